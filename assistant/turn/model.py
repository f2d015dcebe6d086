"""The responder that asks a chat model: it builds the turn's prompt from memory and calls the model
through the gate, with the tools.

A server that cannot call tools (many small local models) is chatted with without them, and a message
that asks for an action is carried out by the offline mode's reading instead. The first request goes
with tools; when the server refuses them (ToolsUnsupported), or answers nothing at all when offered
tools before any tool call ever came back from it (llama-cpp-python's `chatml-function-calling`
format does that with tool_choice "auto": its grammar leaves a plain answer empty), the user is told
once (a Note), and from then on an action message ("remind me ...", "remember that ...", "done with
...", "forget 12", "what's coming up", "what did we talk about", or the answer to one of the offline
mode's own questions) goes to the offline mode, every other message to the model without tools.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from assistant.conversation import AssistantMessage, Item, ToolResults, ToolUse, UserMessage
from assistant.offline.responder import ASK_WHEN, WHICH_ONE, OfflineResponder
from assistant.outbound import send
from assistant.outbound.gate import Gate
from assistant.prompt.build import Prompt, build_prompt
from assistant.providers.base import Delta, Note, Provider, SystemPrompt, Usage
from assistant.providers.openai_provider import ToolsUnsupported
from assistant.reading import Reading
from assistant.reading.understand import read_message
from assistant.responder import TurnInput
from assistant.runtime import Runtime
from assistant.tools import TOOL_SPECS
from memory.store import Store

# Intents of the offline reading that act on memory (or list it exactly); the rest is conversation.
ACTIONS = {"remind", "remind_no_time", "remember", "done", "forget", "upcoming", "recap"}


class ModelResponder:
    local = False

    def __init__(self, runtime: Runtime, provider: Provider) -> None:
        self.runtime = runtime
        self.provider = provider
        self.name = provider.name
        self.prompt: Prompt | None = None  # this turn's, once prepared
        self._turn: TurnInput | None = None
        self._offline = OfflineResponder(runtime)  # acts for a server without tools

    @property
    def model(self) -> str:
        return self.provider.model

    def gate_for(self, store: Store, reading: Reading) -> Gate:
        return Gate.for_turn(store, reading)

    async def prepare(self, turn: TurnInput) -> None:
        self._turn = turn
        self.prompt = await asyncio.to_thread(build_prompt, self.runtime, turn.reading, turn.gate, True)
        await self._offline.prepare(turn)

    async def round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        turn, prompt = self._turn, self.prompt
        assert turn is not None and prompt is not None, "prepare() comes first"
        system = SystemPrompt(prompt.stable, prompt.memory_text)
        provider = self.provider
        if getattr(provider, "tools_supported", None) is not False:
            said = False
            try:
                async for item in send.chat(provider, turn.gate, system, conversation, TOOL_SPECS):
                    said = said or isinstance(item, ToolUse) or isinstance(item, Delta) and bool(item.text.strip())
                    yield item
                if said or not hasattr(provider, "tools_supported") or getattr(provider, "tool_calls_seen", False):
                    return
                provider.tools_supported = False
                why = (f"{provider.model!r} at {getattr(provider, 'url', '')} answered nothing when offered tools, "
                       "so it cannot use them")
            except ToolsUnsupported as exc:
                why = str(exc)
            yield Note(f"{why}. Chatting without tools: reminders and memories are set by this app's own "
                       "reading of your messages.")
        if self._acts(conversation):
            async for item in self._offline.round(conversation):
                yield item
            return
        async for item in send.chat(provider, turn.gate, system, conversation, []):
            yield item

    def _acts(self, conversation: list[Item]) -> bool:
        """Whether this round belongs to the offline mode: an action, or the results of its own calls."""
        last = conversation[-1]
        if isinstance(last, ToolResults):
            return True  # without tools, only the offline mode makes calls
        if not isinstance(last, UserMessage):
            return False
        previous = conversation[-2] if len(conversation) > 1 else None
        if isinstance(previous, AssistantMessage) and (ASK_WHEN in previous.text
                                                       or previous.text.startswith(WHICH_ONE)):
            return True  # the answer to a question the offline mode asked
        turn = self._turn
        if turn is not None and turn.text == last.text:
            return turn.reading.action.intent in ACTIONS
        clock = self.runtime.clock
        return read_message(last.text, clock.now(), clock.zone).intent in ACTIONS
