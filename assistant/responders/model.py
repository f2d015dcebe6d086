"""The responder that asks a chat model (SPEC F7): it builds the turn's prompt from memory, fits the
request to the model's context window, and calls the model through the gate with the tools.

What a model does not do, the app does: when the turn's message is a clear request (reminders, memories,
changes, undo: assistant.reading.requests) and no tool call of the turn carried it out, the offline
mode's plan for it (assistant.offline, below both responders) makes the same tool calls after the
model's answer, marked as the app's, and words them; the answer stored with them tells the model in the
next turn. Nothing is done twice.

Failures are said: an answer that never starts (no first token within `first_token_timeout`), a stream
that ends with nothing said, a request refused for its length (retried once, smaller, then said as
such). A server that cannot call tools (many small local models) is chatted with without them after it
refuses them or answers nothing when offered them: the user is told once (a Note), and from then on a
message that asks for an action, or answers one of the offline mode's own questions, goes to the
offline mode, every other message to the model without tools.
"""
from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from enum import Enum
from typing import Any

from assistant.conversation import AssistantMessage, Item, ToolResults, ToolUse, UserMessage
from assistant.errors import ProviderError
from assistant.offline import planner
from assistant.offline.plan import Plan, Situation, asked_before, text_of
from assistant.offline.wording import word_results
from assistant.outbound import send
from assistant.outbound.gate import Gate
from assistant.prompt.build import SYSTEM, TURN, Prompt, build_prompt
from assistant.providers.base import Delta, Note, Provider, SystemPrompt, Tools, ToolSpec, Usage, short_name
from assistant.providers.openai_provider import ToolsUnsupported
from assistant.providers.window import reply_room, tokens, window_from_refusal
from assistant.reading import Reading, read
from assistant.reading.actions import Done, Forget, Recap, Remember, Remind, RemindNoTime, Undo, Upcoming
from assistant.reading.requests import clear_request
from assistant.reading.understand import read_message
from assistant.responders import known_tools
from assistant.responders.fit import Fitted, fit
from assistant.responders.protocol import TurnInput
from assistant.runtime import Runtime
from assistant.tools import TOOL_SPECS
from memory.store import Store
from memory.turn_records import OpenQuestion, Section, TurnRecord, Withheld

# Intents of the offline reading that act on memory (or list it exactly): without tools, the offline
# mode answers these itself.
ACTIONS = (Remind, RemindNoTime, Remember, Done, Forget, Upcoming, Recap)
APP_NOTE = "Done from your message (the model did not do it)"
NOT_SET = "No reminder was set"  # a reminder asked at a time no day has, the model having set none
# Failures after which another server (or model) may answer the next request: a restart, a model swapped.
_ANOTHER_SERVER = ("network", "timeout", "model", "overloaded", "cut")
# Context windows servers start with when not told (llama-cpp-python 2,048; Ollama, llama.cpp 4,096...):
# the guesses for one that refused a request without saying its own.
COMMON_WINDOWS = (2048, 4096, 8192, 16384, 32768)
log = logging.getLogger(__name__)
WARM_SPARE = 256  # tokens kept free between turns, besides the last turn's block and message (`warm`)


class Phase(Enum):
    """Where a turn answered by a model is: its rounds go MODEL (until a round makes no tool call), then
    APP once (a clear request no tool call carried out), then DONE. A server without tools hands a
    message that acts, or answers one of the offline mode's questions, to OFFLINE for the whole turn."""
    MODEL = "the model answers"
    APP = "the app carries out what the model did not"
    OFFLINE = "the offline mode answers, its calls and its words"
    DONE = "nothing is left to do"


class ModelResponder:
    local = False

    def __init__(self, runtime: Runtime, provider: Provider) -> None:
        self.runtime = runtime
        self.provider = provider
        self.name = provider.name
        self.prompt: Prompt | None = None  # this turn's, once prepared
        self.fitted: Fitted | None = None  # the last request as sent: what did not fit the window
        self._turn: TurnInput | None = None
        self.reached = False  # a model answered a request of this turn
        # The offline mode's plan this turn (the app's calls, or its whole answer): its results are worded with it.
        self._plan = Plan()
        self._asked_tokens = provider.max_tokens
        self._phase = Phase.MODEL
        self._called = False  # the model's last round made tool calls
        self._start: int | None = None  # the message the last request's history started at (fit: reuse)
        self._said_tools_dropped = False
        if provider.capabilities.tools is Tools.UNKNOWN and known_tools.found_without_tools(runtime.store, provider):
            provider.capabilities.tools = Tools.NO  # found at an earlier launch: not offered them again

    @property
    def model(self) -> str:
        return short_name(self.provider.model)

    def gate_for(self, store: Store, reading: Reading) -> Gate:
        return Gate.for_turn(store, reading, self.runtime.embedder)

    def window(self) -> int | None:
        """The model's context window: config `context_window`, else what the server says (asked when the
        provider was chosen, or now when not yet or no longer known: blocking), as a refusal for length
        corrected it."""
        return self.provider.learn().context_window

    @property
    def _window(self) -> int | None:
        """The window as known now, within a turn (learned in `prepare`, never asked on the event loop)."""
        return self.provider.capabilities.context_window

    async def prepare(self, turn: TurnInput) -> None:
        self._turn, self._phase, self.reached = turn, Phase.MODEL, False
        window = await asyncio.to_thread(self.window)
        self.prompt = await asyncio.to_thread(build_prompt, self.runtime, turn.reading, turn.gate, True, window)
        self._plan = Plan()

    def explain(self, record: TurnRecord) -> TurnRecord:
        """The prompt as sent (each section through the gate, with its tokens), the memories and
        conversations in it, what the gate withheld and why, what did not fit the window."""
        turn, fitted = self._turn, self.fitted
        if turn is None or self.prompt is None:
            return record
        prompt = fitted.prompt if fitted is not None else self.prompt
        gate = turn.gate
        sections = tuple(Section(s.label, s.tokens, gate.fragments(gate.text(s.content, "the memory context")))
                         for s in prompt.sections)
        sent = [s.content for s in sections]
        for item in gate.conversation(fitted.conversation if fitted is not None else []):
            sent += [r.content for r in item.results] if isinstance(item, ToolResults) else [item.text]
        withheld = tuple(Withheld(w["what"], w["why"]) for w in gate.withheld_in("\n".join(sent)))
        return replace(record, sections=sections, instructions_tokens=tokens(prompt.stable),
                       memories=tuple(prompt.memory_ids), conversations=tuple(prompt.episode_ids), withheld=withheld,
                       did_not_fit=tuple(fitted.dropped) if fitted else (),
                       context_window=self._window)  # as known when it was sent

    def asked(self) -> OpenQuestion | None:
        # Only the offline mode's own answer asks (a server without tools); the app's calls after a model's
        # answer say nothing but what they did.
        return self._plan.asked if self._phase is Phase.OFFLINE else None

    def recover(self) -> bool:
        """The model failed after it had begun: the rest of the turn is the app's, which carries out a
        clear request no tool call did. Whether a round is left to run."""
        if self._phase is not Phase.MODEL:
            return False
        self._phase = Phase.APP
        return True

    async def round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        last = conversation[-1]
        if isinstance(last, ToolResults) and _made_by_app(conversation):
            text = await asyncio.to_thread(word_results, self.runtime, self._plan, conversation)
            if text:
                yield Delta(f"\n\n{APP_NOTE}: {text}")
            return
        if self._phase is Phase.OFFLINE:  # the offline mode's own calls, worded by it
            async for offline in self._offline_round(conversation):
                yield offline
            return
        if self._phase is Phase.MODEL:
            async for item in self._model_round(conversation):
                yield item
            if self._phase is Phase.MODEL and not self._called:
                self._phase = Phase.APP  # the model has answered: now what it did not do
        if self._phase is Phase.APP:
            self._phase = Phase.DONE
            calls, said = await asyncio.to_thread(self._app_calls, conversation)
            if said:
                yield Delta(f"\n\n{said}")
            for use in calls:
                yield use

    async def _model_round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        self._called = False
        capabilities = self.provider.capabilities
        if capabilities.tools is Tools.NO:
            if self._acts_offline(conversation):
                self._phase = Phase.OFFLINE  # the offline mode answers this message whole, its calls and words
                async for offline in self._offline_round(conversation):
                    self._called = self._called or isinstance(offline, ToolUse)
                    yield offline
                return
            async for plain in self._ask(conversation, []):
                yield plain
            return
        said, refused = False, False
        try:
            async for item in self._ask(conversation, TOOL_SPECS):
                said = said or isinstance(item, ToolUse) or isinstance(item, Delta) and bool(item.text.strip())
                self._called = self._called or isinstance(item, ToolUse)
                yield item
        except ToolsUnsupported as exc:
            why, refused = str(exc), True
        else:
            if said or self._acted_this_turn(conversation):
                return
            if capabilities.tools is Tools.YES:
                raise ProviderError("model", f"{self.model} ended its answer without a word")
            capabilities.tools = Tools.NO
            why = f"{self.model!r} at {self.provider.url} answered nothing when offered tools, so it cannot use them"
        note: Note | None = Note(f"{why}. Chatting without tools: reminders and memories are set by this app's own "
                    "reading of your messages.")
        try:
            async for again in self._model_round(conversation):
                if note is not None:  # said once the model answers without them: it was the tools
                    yield note
                    note = None
                    await asyncio.to_thread(known_tools.keep_without_tools, self.runtime.store, self.provider)
                yield again
        except ProviderError:
            if not refused and note is not None:
                capabilities.tools = Tools.UNKNOWN  # without tools it failed too: it was not the tools
            raise

    def _app_calls(self, conversation: list[Item]) -> tuple[list[ToolUse], str]:
        """The app's calls for a clear request no tool call of this turn carried out, and what it said
        (an undo is done in the reading: only its words come back)."""
        turn = self._turn
        if turn is None or turn.incognito:
            return [], ""  # never in an incognito conversation: nothing of it is stored
        start = max(i for i, item in enumerate(conversation) if isinstance(item, UserMessage))
        action = turn.reading.action
        if isinstance(action, RemindNoTime) and action.impossible and not _done_this_turn(conversation[start:]):
            # "remind me to call Bob tomorrow at 25:00": the model set nothing (an attacker's), and no day has that
            # time: said, as the offline mode says it, so the person knows and gives the time again
            plan = planner.plan(self.runtime, turn.reading.text, conversation[:start + 1], Situation(), turn.reading)
            return [], f"{NOT_SET}: {plan.said}" if plan.said else ""
        if not clear_request(turn.reading):
            return [], ""
        self._plan = planner.plan(self.runtime, turn.reading.text, conversation[:start + 1], Situation(), turn.reading)
        done = _done_this_turn(conversation[start:])
        calls = [(name, args) for name, args in self._plan.calls if not _already(name, args, done)]
        uses = [ToolUse(f"app_{n}", name, args, origin="app") for n, (name, args) in enumerate(calls, start=1)]
        return uses, f"{APP_NOTE}: {self._plan.said}" if isinstance(action, Undo) and self._plan.said else ""

    async def _offline_round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse]:
        """A round of the offline mode's own (a server without tools): its calls, then their results in
        its words."""
        turn = self._turn
        assert turn is not None
        last = conversation[-1]
        if isinstance(last, ToolResults):
            text = await asyncio.to_thread(word_results, self.runtime, self._plan, conversation)
            if text:
                yield Delta(text)
            return
        self._plan = await asyncio.to_thread(planner.plan, self.runtime, text_of(last), conversation,
                                             Situation(incognito=turn.incognito), turn.reading)
        if self._plan.said:
            yield Delta(self._plan.said)
        for n, (name, args) in enumerate(self._plan.calls, start=1):
            yield ToolUse(f"offline_{n}", name, args)

    def _acted_this_turn(self, conversation: list[Item]) -> bool:
        start = max(i for i, item in enumerate(conversation) if isinstance(item, UserMessage))
        return any(isinstance(item, ToolResults) for item in conversation[start:])

    async def _ask(self, conversation: list[Item], tools: list[ToolSpec]) -> AsyncIterator[Delta | ToolUse | Usage
                                                                                           | Note]:
        """One model call, fitted to the window; a refusal for length is retried once, smaller."""
        turn, prompt = self._turn, self.prompt
        assert turn is not None and prompt is not None, "prepare() comes first"
        for attempt in (1, 2):
            request = self._fitted(prompt, conversation, tools)
            if request.tools_dropped and tools and not self._said_tools_dropped:
                self._said_tools_dropped = True  # once: the conversation only grows
                yield Note(f"The request with its tools does not fit {self.model}'s context window "
                           f"({self._window} tokens): the model answers without them and this app acts on "
                           "clear requests itself.")
            system = SystemPrompt(request.prompt.stable, request.prompt.memory_text, request.prompt.turn_text)
            started = False
            try:
                async for item in _first_token_within(send.chat(self.provider, turn.gate, system,
                                                                 request.conversation, request.tools),
                                                      self.runtime.settings.first_token_timeout, self.model):
                    started = self.reached = True
                    yield item
                return
            except ProviderError as exc:
                told = window_from_refusal(str(exc)) if exc.kind in ("bad_request", "model") else None
                if exc.kind == "empty" and not started:
                    if tools and self.provider.capabilities.tools is Tools.UNKNOWN and \
                            request.tokens < COMMON_WINDOWS[0]:
                        return  # small enough for any window: a model that says nothing when offered tools
                    told = 0  # a server that refuses a streamed request for its length may say nothing at all
                if told is None and exc.kind in _ANOTHER_SERVER:
                    self.provider.capabilities.learned = False  # what it is is asked again before the next request
                if started or told is None or attempt == 2:
                    if told is not None and not started:
                        raise ProviderError("context", f"{self.model} cannot take this conversation: it is longer "
                                                       f"than its context window ({self._window or told} tokens); "
                                                       "start a new conversation (ctrl+n) or give the server a "
                                                       "larger window (llama.cpp: --n_ctx / -c)") from None
                    raise
                # What the refusal says of the window is learned (none said: a smaller guess).
                self.provider.capabilities.context_window = told or self._smaller_window(request.tokens)

    def _smaller_window(self, refused: int) -> int:
        """A guess at the window of a server that refused a request of `refused` tokens without saying
        its window: less than the one known, else the largest common default under the request."""
        if self._window:
            return max(512, int(self._window * 0.7))
        below = [w for w in COMMON_WINDOWS if w < refused]
        return below[-1] if below else max(512, int(refused * 0.7))

    def _fitted(self, prompt: Prompt, conversation: list[Item], tools: list[ToolSpec]) -> Fitted:
        window = self._window
        if window is not None:
            self.provider.max_tokens = reply_room(window, self._asked_tokens)
        self.fitted = fit(prompt, conversation, tools, self._budget(), self._start)
        self._start = self.fitted.start
        return self.fitted

    def _budget(self) -> int:
        """What a request may take of the window, the room for the answer kept (no window: no limit)."""
        window = self._window
        return sys.maxsize if window is None else window - reply_room(window, self._asked_tokens)

    async def warm(self, conversation: list[Item]) -> bool:
        """Between two turns (and before the first), a server of the person's own (`keeps_prefix`:
        llama.cpp, llama-cpp-python, Ollama, LM Studio keep the last request's tokens) is asked for one
        token of an answer to the conversation as the next turn will send it: its system prompt built now,
        the history fitted as that turn will fit it (the last turn's block and message stand in for the
        next's size), the same tools, through the gate, then the next turn's block as far as it is known
        now (its framing and the clock) before an empty message. The next turn then reads only the rest of
        its block (from the minute on) and its message, not the last answer again (SPEC F4). A failure
        here is said to no one: the next turn meets it and says it."""
        capabilities, last = self.provider.capabilities, self.prompt
        if not capabilities.keeps_prefix:
            return False
        asked = [item for item in conversation if isinstance(item, UserMessage)]
        reading = read("", self.runtime.clock)
        gate = Gate.for_turn(self.runtime.store, reading, self.runtime.embedder)
        now = await asyncio.to_thread(build_prompt, self.runtime, reading, gate, False, self._window)
        clock = [s for s in now.placed(TURN) if s.label == "Current Time"]
        sized = replace(now, sections=[*now.placed(SYSTEM), *(last.placed(TURN) if last is not None else clock)])
        tools = [] if capabilities.tools is Tools.NO else TOOL_SPECS
        # Fitted with room to spare for a next block and message longer than the last: when the history
        # must be cut, it is cut now, read now, and the next turn starts where this request did.
        stand_in = asked[-1] if asked else UserMessage("")
        fitted = fit(sized, [*conversation, stand_in], tools, self._budget() - WARM_SPARE, self._start)
        self._start = fitted.start
        sent = replace(fitted.prompt, sections=[*fitted.prompt.placed(SYSTEM), *clock])
        system = SystemPrompt(sent.stable, sent.memory_text, sent.turn_text)
        had = capabilities.tools
        try:
            async for _ in send.chat(self.provider, gate, system, [*fitted.conversation[:-1], UserMessage("")],
                                     fitted.tools, max_tokens=1):
                pass
        except ToolsUnsupported as exc:
            # Left for the next turn to meet: it chats without them and tells the person why, once.
            capabilities.tools = had
            log.info("the server refused the tools between turns: %s", exc)
        except ProviderError as exc:
            log.info("the server did not read the conversation between turns: %s", exc)
        return True

    def _acts_offline(self, conversation: list[Item]) -> bool:
        """Without tools, whether this round belongs to the offline mode: an action, or the answer to
        one of its questions."""
        last = conversation[-1]
        if not isinstance(last, UserMessage):
            return isinstance(last, ToolResults)
        if asked_before(conversation) is not None:
            return True  # the answer to a question of the offline mode's, whichever it asked
        turn = self._turn
        if turn is not None and turn.text == last.text:
            return isinstance(turn.reading.action, ACTIONS)
        clock = self.runtime.clock
        return isinstance(read_message(last.text, clock.now(), clock.zone), ACTIONS)


def _made_by_app(conversation: list[Item]) -> bool:
    before = conversation[-2] if len(conversation) > 1 else None
    return isinstance(before, AssistantMessage) and any(c.origin == "app" for c in before.tool_calls)


def _done_this_turn(turn: list[Item]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of this turn that worked: (name, input)."""
    calls = {c.id: c for item in turn if isinstance(item, AssistantMessage) for c in item.tool_calls}
    return [(calls[r.id].name, calls[r.id].input) for item in turn if isinstance(item, ToolResults)
            for r in item.results if not r.is_error and r.id in calls]


def _already(name: str, args: dict[str, Any], done: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether a tool call of the turn did what this planned call does."""
    if name == "remember":
        return any(n == "remember" for n, _ in done)
    target = str(args.get("id"))
    if name == "forget":
        return any(n == "forget" and str(a.get("id")) == target for n, a in done)
    if name == "update_memory":
        if set(args) <= {"id", "reminded_at"}:
            return True  # bookkeeping: never the app's to do after a model
        return any(n in ("update_memory", "forget") and str(a.get("id")) == target and set(a) - {"id", "reminded_at"}
                   for n, a in done)
    return False


async def _first_token_within(stream: AsyncIterator[Any], timeout: float, model: str) -> AsyncIterator[Any]:
    """The stream, with its first item due within `timeout` seconds (a server that accepted the request
    and went quiet is a failure, said, never a wait without end)."""
    iterator = aiter(stream)
    try:
        first = await asyncio.wait_for(anext(iterator), timeout)
    except StopAsyncIteration:
        return
    except TimeoutError:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            try:
                await close()
            except Exception:  # noqa: BLE001,S110 - it is being abandoned: its own error matters no more
                pass
        raise ProviderError("timeout", f"{model} sent no answer within {timeout:g} s") from None
    yield first
    async for item in iterator:
        yield item
