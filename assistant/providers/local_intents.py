"""A chat model on a server that cannot call tools (many small local models): plain chat for
conversation, and the offline mode's reading of the message for what must act on memory.

The first request goes with tools. When the server refuses them (ToolsUnsupported), or answers
nothing at all when offered tools before any tool call ever came back from it (llama-cpp-python's
`chatml-function-calling` format does that with tool_choice "auto": its grammar leaves a plain
answer empty), the user is told once (a Note), and from then on: a message that asks for an action ("remind me ...",
"remember that ...", "done with ...", "forget 12", "what's coming up", "what did we talk about", or
the answer to one of the offline mode's own questions) is carried out through our tools by the
offline mode and worded by it; every other message goes to the model without tools.
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from assistant.providers.base import Delta, Note, SystemPrompt, ToolSpec, ToolUse, Usage
from assistant.providers.openai_provider import OpenAIProvider, ToolsUnsupported
from assistant.runtime import Runtime

# Intents of the offline reading that act on memory (or list it exactly); the rest is conversation.
ACTIONS = {"remind", "remind_no_time", "remember", "done", "forget", "upcoming", "recap"}


class ToolsOrLocalIntents:
    """The chat provider for an OpenAI-compatible endpoint, whether or not its server has tools."""

    def __init__(self, runtime: Runtime, inner: OpenAIProvider) -> None:
        self.runtime = runtime
        self.inner = inner
        self.name = inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def tools_supported(self) -> bool | None:
        return self.inner.tools_supported

    async def stream(self, system: SystemPrompt, conversation: list[dict[str, Any]],
                     tools: list[ToolSpec]) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        if tools and self.inner.tools_supported is not False:
            said = False
            try:
                async for item in self.inner.stream(system, conversation, tools):
                    said = said or isinstance(item, ToolUse) or isinstance(item, Delta) and bool(item.text.strip())
                    yield item
                if said or self.inner.tool_calls_seen:
                    return
                self.inner.tools_supported = False
                why = (f"{self.inner.model!r} at {self.inner.url} answered nothing when offered tools, so it "
                       "cannot use them")
            except ToolsUnsupported as exc:
                why = str(exc)
            yield Note(f"{why}. Chatting without tools: reminders and memories are set by this app's own "
                       "reading of your messages.")
        if tools and self._acts(conversation):
            from assistant.offline.reply import OfflineProvider

            async for item in OfflineProvider(self.runtime).stream(system, conversation, tools):
                yield item
            return
        async for item in self.inner.stream(system, conversation, []):
            yield item

    def _acts(self, conversation: list[dict[str, Any]]) -> bool:
        """Whether this round belongs to the offline mode: an action, or the results of its own calls."""
        last = conversation[-1]
        if last["role"] == "tool":
            return True  # without tools, only the offline mode makes calls
        if last["role"] != "user":
            return False
        from assistant.offline.reply import ASK_WHEN, WHICH_ONE
        from assistant.reading.understand import read_message

        previous = conversation[-2].get("text") or "" if len(conversation) > 1 else ""
        if conversation[-2:-1] and conversation[-2].get("role") == "assistant" and (
                ASK_WHEN in previous or previous.startswith(WHICH_ONE)):
            return True  # the answer to a question the offline mode asked
        clock = self.runtime.clock
        return read_message(last["text"], clock.now(), clock.zone).intent in ACTIONS
