"""The agent loop: one turn as data (SPEC F4, F7) and the episode lifecycle (SPEC F2).

user text -> stored message -> intent -> prompt rebuilt from memory -> model stream -> tool calls
-> memory writes -> stored answer -> Done. SQLite and embedding work runs in threads so an event
loop (the UI's) never blocks on it.
"""
from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from assistant.conversation import AssistantMessage, Item, ToolOutput, ToolResults, ToolUse, UserMessage
from assistant.errors import ToolError
from assistant.providers.base import Delta, Note, ProviderError, Usage
from assistant.reading import read
from assistant.responders.offline import OfflineResponder
from assistant.responders.protocol import Responder, TurnInput
from assistant.runtime import Runtime
from assistant.tools import execute_tool
from assistant.turn.events import Done, Event, Failed, Notice, TextDelta, ToolCall, ToolResult
from memory import episodes, secrets, turn_records
from memory.search import untouched
from memory.time.instants import parse_stored
from memory.turn_records import ReadingRecord, ToolCallRecord, TurnRecord

HISTORY_MESSAGES = 20
CUT_MARK = "[cut off: the answer stopped here]"  # ends a stored answer the model did not finish
HISTORY_STEP = 10  # the history's first message moves on by this many at once (see `history_start`)


def history_start(count: int) -> int:
    """Where a conversation of `count` earlier messages starts being sent: the last HISTORY_MESSAGES at
    most, the start moving on HISTORY_STEP messages at a time, so that consecutive turns send the same
    first messages and a server reuses what it read (one message later each turn, it reads it all again)."""
    over = count - HISTORY_MESSAGES
    return 0 if over <= 0 else -(-over // HISTORY_STEP) * HISTORY_STEP


class Agent:
    def __init__(self, runtime: Runtime, responder: Responder, fallback: Responder | None = None) -> None:
        self.runtime = runtime
        self.responder = responder
        # What answers a turn when the responder's model cannot be reached: the offline mode, told why.
        self.fallback = fallback or OfflineResponder(runtime)
        self.max_rounds = runtime.settings.max_tool_rounds
        # A conversation continued from the archive counts as active from the moment it was resumed.
        self._resumed: tuple[int, datetime] | None = None
        # An incognito conversation: its items, kept in this process only (None: an ordinary one).
        self.incognito: list[Item] | None = None

    def resume(self, episode_id: int) -> episodes.Episode:
        """Continue a past conversation as the current one (the open one, if any, is closed first)."""
        active = episodes.active_episode(self.runtime.store)
        if active is not None and active.id != episode_id:
            self.close_episode(active.id)
        episode = episodes.reopen_episode(self.runtime.store, episode_id)
        self._resumed = (episode_id, self.runtime.clock.now())
        return episode

    # -- episodes ---------------------------------------------------------------------------

    def current_episode(self) -> episodes.Episode:
        """The open episode, closing it first when it has been idle longer than the gap."""
        store = self.runtime.store
        active = episodes.active_episode(store)
        if active is not None:
            last = parse_stored(episodes.last_activity(store, active.id) or active.started_at)
            if self._resumed is not None and self._resumed[0] == active.id:
                last = max(last, self._resumed[1])
            gap = timedelta(minutes=self.runtime.settings.idle_gap_minutes)
            if self.runtime.clock.now() - last > gap:
                self.close_episode(active.id, ended_at=episodes.last_activity(store, active.id) or active.started_at)
                active = None
        return active or episodes.open_episode(store)

    def close_episode(self, episode_id: int | None = None, ended_at: str | None = None,
                      use_model: bool = True) -> episodes.Episode | None:
        """Close (by default the active) episode at once with its quick title, summary and outcome. A
        real exchange owes a model-written title, queued in the store and written when it costs no one
        a wait (assistant.turn.titles: the app when idle); quitting never waits for a model."""
        store = self.runtime.store
        if episode_id is None:
            active = episodes.active_episode(store)
            if active is None:
                return None
            episode_id = active.id
        messages = episodes.episode_messages(store, episode_id)
        real = episodes.had_real_exchange(messages)
        title, summary = episodes.heuristic_title_and_summary(messages, store, self.runtime.embedder)
        return episodes.close_episode(store, episode_id, title, summary, "success" if real else "abandoned",
                                      ended_at=ended_at, needs_title=use_model and real)

    def history(self, episode_id: int, before_id: int) -> list[Item]:
        """The conversation so far, as stored (the gate takes out what may not leave, at the exit)."""
        store = self.runtime.store
        said = [m for m in episodes.episode_messages(store, episode_id)
                if m.id < before_id and m.role in ("user", "assistant")]
        # An exchange the offline mode answered because the model could not be reached is not the model's:
        # its answer says the model was not reachable, and a model shown it says so too, reachable as it
        # is. Left out with the message it answered (what was said is in memory, searched like the rest).
        fallbacks = turn_records.fallbacks_of(store, [m.id for m in said if m.role == "assistant"])
        answered = {before.id for before, after in zip(said, said[1:], strict=False)
                    if before.role == "user" and after.id in fallbacks}
        said = [m for m in said if m.id not in fallbacks and m.id not in answered]
        msgs = said[history_start(len(said)):]
        while msgs and msgs[0].role != "user":
            msgs = msgs[1:]  # a conversation opens with the user's words
        # An answer that asked a question of the offline mode's own carries it, as its record kept it.
        asked = turn_records.questions_of(store, [m.id for m in msgs if m.role == "assistant"])
        return [UserMessage(m.content, m.id) if m.role == "user" else
                AssistantMessage(m.content, message_id=m.id, asked=asked.get(m.id)) for m in msgs]

    async def warm(self) -> bool:
        """Once a turn has ended, or before the first (the app asks, while the person reads and types):
        the model's server reads the conversation as the next turn will send it, so that turn reads only
        its own block and message (SPEC F4; a server of the person's own only). Whether a request went out."""
        if self.incognito is not None:
            conversation = list(self.incognito)
        else:
            active = await asyncio.to_thread(episodes.active_episode, self.runtime.store)
            conversation = [] if active is None else await asyncio.to_thread(self.history, active.id, sys.maxsize)
        return await self.responder.warm(conversation)

    # -- one turn ---------------------------------------------------------------------------

    async def turn(self, text: str) -> AsyncIterator[Event]:
        """Run one turn; the user's text is in the database before the model is called (in an incognito
        conversation nothing is stored at all: `incognito`).

        The message is read once; the responder's gate decides what of memory may leave with it. When
        the model cannot be reached (network, 401, 429, 5xx, timeout) before it said or did anything,
        the offline mode acts on the same message (a reminder is still set, a question is still
        answered from memory) and the turn ends with Done carrying the failure. What went into the
        answer is recorded with it (the Why view).
        """
        run = asyncio.to_thread
        store = self.runtime.store
        incognito = self.incognito is not None
        if incognito:
            episode_id, message_id = 0, 0
            conversation = list(self.incognito or [])
        else:
            episode = await run(self.current_episode)
            user_message = await run(episodes.add_message, store, episode.id, "user", text)
            episode_id, message_id = episode.id, user_message.id
            conversation = await run(self.history, episode_id, message_id)
        conversation.append(UserMessage(text, message_id or None))
        reading = await run(read, text, self.runtime.clock)
        responder = self.responder
        turn = TurnInput(reading, await run(responder.gate_for, store, reading), episode_id, message_id,
                         incognito)
        state = _TurnState()
        failure: ProviderError | None = None
        with untouched() if incognito else contextlib.nullcontext():
            try:
                await responder.prepare(turn)
                async for event in self._rounds(responder, turn, conversation, state):
                    yield event
            except ProviderError as exc:
                failure = exc
                if state.acted or responder.local:
                    # Said in one line; what the model had not done yet, the app still does (a reminder).
                    yield Failed(f"{exc} — your message is saved." if not incognito else str(exc), exc.kind,
                                 episode_id or None, message_id or None)
                    if responder.recover():
                        try:
                            async for event in self._rounds(responder, turn, conversation, state):
                                yield event
                        except ProviderError:
                            pass  # said already
                    if not incognito and state.answer:
                        # A cut answer is stored as such (the transcript and the next turn's history say so).
                        said = f"{state.answer}\n\n{CUT_MARK}" if state.cut else state.answer
                        stored = await run(episodes.add_answer, store, episode_id, turn.gate.restore(said))
                        await run(self._record, stored.id, episode_id, responder, turn, state)
                    return
                # Nothing leaves the machine now: the offline mode reads the message as typed, and its
                # answer opens with why (said there once: a notice too would say it twice).
                responder = self.fallback
                turn = TurnInput(reading, responder.gate_for(store, reading), episode_id, message_id, incognito,
                                 unreachable=str(exc))
                state = _TurnState()
                await responder.prepare(turn)
                async for event in self._rounds(responder, turn, conversation, state):
                    yield event
        # The model answered with this turn's placeholders ("[secret 1 of your message]"): the person reads
        # the values, and what is kept never holds a name the next turn gives to another secret.
        answer = turn.gate.restore(state.answer)
        if incognito:
            kept = EARLIER_PLACEHOLDER.sub(r"[secret \1 of an earlier message]", state.answer)
            self.incognito = [*conversation[-HISTORY_MESSAGES:],
                              AssistantMessage(kept or "(no answer)", asked=responder.asked())]
            yield Done(answer, 0, 0, state.rounds, sorted(state.changed), failure.kind if failure else None,
                       state.usage)
            return
        stored = await run(episodes.add_answer, store, episode_id, answer or "(no answer)")
        await run(self._record, stored.id, episode_id, responder, turn, state)
        yield Done(answer, episode_id, stored.id, state.rounds, sorted(state.changed),
                   failure.kind if failure else None, state.usage)

    def _record(self, answer_id: int, episode_id: int, responder: Responder, turn: TurnInput,
                state: _TurnState) -> None:
        """What went into this answer, kept with it (the Why view): recorded when the turn ran, never
        recomputed later."""
        record = TurnRecord(responder.name, responder.model, not responder.local, _reading_record(turn),
                            tuple(state.tools), asked=responder.asked(), cut=state.cut,
                            fallback=turn.unreachable or "")
        said = [value for _, values in secrets.said_in(self.runtime.store, episode_id, self.runtime.embedder)
                for value in values]
        turn_records.record(self.runtime.store, answer_id, episode_id, responder.explain(record), said)

    async def _rounds(self, responder: Responder, turn: TurnInput, conversation: list[Item],
                      state: _TurnState) -> AsyncIterator[Event]:
        """Rounds of the responder and their tool calls until a round makes none (bounded)."""
        while True:
            state.rounds += 1
            text_part, calls = "", []
            shown = _Shown(turn.gate.restore)
            try:
                async for item in responder.round(conversation):
                    if isinstance(item, Delta):
                        text_part += item.text
                        state.acted = True
                        if said := shown.add(item.text):
                            yield TextDelta(said)
                    elif isinstance(item, ToolUse):
                        calls.append(item)
                    elif isinstance(item, Usage):
                        state.usage = {k: (state.usage or {}).get(k, 0) + v for k, v in
                                       {"input_tokens": item.input_tokens, "output_tokens": item.output_tokens}.items()}
                    elif isinstance(item, Note):
                        yield Notice(item.text, "warning")
            except ProviderError as exc:
                if text_part.strip():
                    state.cut = str(exc)  # it stopped in the middle of what it was saying
                raise
            finally:
                state.answer_parts.append(text_part)  # what was shown is kept, also when the stream broke
            if rest := shown.flush():
                yield TextDelta(rest)
            if not calls:
                return
            state.acted = True
            conversation.append(AssistantMessage(text_part, tuple(calls)))
            if state.rounds > self.max_rounds:
                yield Notice(f"Stopped after {self.max_rounds} tool rounds.", "warning")
                return
            results = []
            for call in calls:
                yield ToolCall(call.id, call.name, call.input)
                data = None
                try:
                    arguments = turn.gate.restore(call.input)
                    outcome = await asyncio.to_thread(execute_tool, self.runtime, call.name, arguments,
                                                      turn.message_id or None, turn.gate, turn.incognito)
                    summary = outcome.summary
                    if call.origin == "app" and summary:
                        summary = f"{summary} (done by the app from your message; ctrl+z or \"undo\" takes it back)"
                    result = ToolResult(call.id, call.name, outcome.content, False, summary)
                    data = outcome.data
                    if outcome.changed:
                        state.changed.add(outcome.changed)
                except ToolError as exc:
                    # The offline mode words every result in its answer, a failure too: a line above it
                    # saying the same would say it twice. A model may not; the line is then the record.
                    said = "" if responder.local else f"{call.name} failed: {exc}"
                    result = ToolResult(call.id, call.name, f"Error: {exc}", True, said)
                yield result
                results.append(ToolOutput(call.id, call.name, result.content, result.is_error, data))
                state.tools.append(ToolCallRecord(call.name, call.input, result.content, result.is_error, call.origin))
            conversation.append(ToolResults(tuple(results)))


def _reading_record(turn: TurnInput) -> ReadingRecord:
    """What the reading understood of the message (the Why view of an offline answer, shown for any)."""
    reading = turn.reading
    understood = reading.action.understood()
    return ReadingRecord(understood.pop("intent"), reading.recap, reading.asks_when, tuple(sorted(reading.ids)),
                         reading.statement, **understood)


@dataclass
class _TurnState:
    rounds: int = 0
    acted: bool = False  # the responder said or did something: a fallback would repeat it
    answer_parts: list[str] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)
    usage: dict[str, int] | None = None  # tokens of every model call of the turn, when the server reports them
    tools: list[ToolCallRecord] = field(default_factory=list)  # every call of the turn and its result (Why)
    cut: str = ""  # why the answer stopped in the middle, when it did

    @property
    def answer(self) -> str:
        return "\n\n".join(p.strip() for p in self.answer_parts if p.strip())


EARLIER_PLACEHOLDER = re.compile(r"\[secret (\d+) of your message\]")


class _Shown:
    """A streamed answer as the person reads it: this turn's placeholders replaced by the secrets they stand
    for (`restore`), a placeholder split across two pieces of the stream held back until it is whole."""

    HOLD = 48  # longer than any placeholder

    def __init__(self, restore: Callable[[str], str]) -> None:
        self.restore = restore
        self.pending = ""

    def add(self, text: str) -> str:
        text = self.pending + text
        opened = text.rfind("[")
        if opened >= 0 and "]" not in text[opened:] and len(text) - opened < self.HOLD:
            text, self.pending = text[:opened], text[opened:]
        else:
            self.pending = ""
        return str(self.restore(text)) if text else ""

    def flush(self) -> str:
        text, self.pending = self.pending, ""
        return str(self.restore(text)) if text else ""
