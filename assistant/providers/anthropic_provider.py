"""Anthropic Messages API: streaming, tool use, and prompt caching laid out for reuse (SPEC F4): cache
breakpoints after the stable instructions, after the memory context (the tools and the system prompt
are then one cached prefix) and after the conversation before this turn; this turn's block is its own
content block in the newest user message, never kept in the history."""
from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, cast

from assistant.conversation import AssistantMessage, Item, ToolUse, UserMessage
from assistant.providers.base import Capabilities, Delta, ProviderError, SystemPrompt, ToolSpec, turn_block_at

if TYPE_CHECKING:
    from anthropic.types import (
        CacheControlEphemeralParam,
        MessageParam,
        TextBlockParam,
        ToolParam,
        ToolResultBlockParam,
        ToolUseBlockParam,
    )

CACHED: CacheControlEphemeralParam = {"type": "ephemeral"}


def to_messages(conversation: list[Item], turn: str = "") -> list[MessageParam]:
    """Our conversation as Messages API messages: this turn's block (`turn`) as the first content block
    of the newest user message, and a cache breakpoint on the last block before it."""
    out: list[MessageParam] = []
    block_at = turn_block_at(conversation)
    for index, item in enumerate(conversation):
        if index == block_at and turn and isinstance(item, UserMessage):
            opened: list[TextBlockParam] = [{"type": "text", "text": turn}, {"type": "text", "text": item.text}]
            out.append({"role": "user", "content": opened})
        elif isinstance(item, UserMessage):
            out.append({"role": "user", "content": item.text})
        elif isinstance(item, AssistantMessage):
            blocks: list[TextBlockParam | ToolUseBlockParam] = []
            if item.text:
                blocks.append({"type": "text", "text": item.text})
            calls: list[ToolUseBlockParam] = [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input}
                                              for c in item.tool_calls]
            blocks += calls
            out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(no text)"}]})
        else:
            results: list[ToolResultBlockParam] = [
                {"type": "tool_result", "tool_use_id": r.id, "content": r.content, "is_error": r.is_error}
                for r in item.results]
            out.append({"role": "user", "content": results})
    if block_at:  # one message for each item: the history is out[:block_at]
        _mark_cached(cast("dict[str, Any]", out[block_at - 1]))
    return out


def _mark_cached(message: dict[str, Any]) -> None:
    """A cache breakpoint after this message: on its last content block."""
    content = message["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    blocks = [dict(block) for block in content]
    if blocks:
        blocks[-1]["cache_control"] = CACHED
    message["content"] = blocks


class AnthropicProvider:
    name = "anthropic"

    WINDOW = 200_000  # every Claude model takes at least this many

    def __init__(self, model: str, max_tokens: int = 2048, timeout: float = 60.0, max_retries: int = 2,
                 context_window: int | None = None) -> None:
        import anthropic

        if not os.environ.get("ANTHROPIC_API_KEY"):
            raise ProviderError("auth", "ANTHROPIC_API_KEY is not set")
        self.model = model
        self.max_tokens = max_tokens
        # The SDK retries 429, 5xx and connection errors with backoff; the key never leaves env.
        self.client = anthropic.AsyncAnthropic(timeout=timeout, max_retries=max_retries)
        self.url = str(self.client.base_url).rstrip("/")
        self.configured_window = context_window
        self.capabilities = Capabilities(context_window=context_window or self.WINDOW, learned=True)

    def learn(self) -> Capabilities:
        if not self.capabilities.learned:  # nothing to ask: tools always, the window known
            self.capabilities.context_window, self.capabilities.learned = self.configured_window or self.WINDOW, True
        return self.capabilities

    async def stream(self, system: SystemPrompt, conversation: list[Item], tools: list[ToolSpec], *,
                     max_tokens: int | None = None) -> AsyncIterator[Delta | ToolUse]:
        import anthropic

        blocks: list[TextBlockParam] = [
            {"type": "text", "text": system.stable, "cache_control": CACHED},
            {"type": "text", "text": system.memory, "cache_control": CACHED}]
        specs: list[ToolParam] = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                                  for t in tools]
        try:
            async with self.client.messages.stream(model=self.model, max_tokens=max_tokens or self.max_tokens,
                                                   system=blocks, messages=to_messages(conversation, system.turn),
                                                   tools=specs) as stream:
                async for event in stream:
                    if event.type == "text":
                        yield Delta(event.text)
                final = await stream.get_final_message()
        except anthropic.AuthenticationError:
            raise ProviderError("auth", "the Anthropic API key was rejected (401): check ANTHROPIC_API_KEY") from None
        except anthropic.RateLimitError:
            raise ProviderError("rate_limit", "Anthropic is rate limiting this key (429); try again shortly") from None
        except anthropic.APITimeoutError:
            raise ProviderError("timeout", "the Anthropic API did not answer in time") from None
        except anthropic.APIConnectionError:
            raise ProviderError("network", f"cannot reach the Anthropic API at {self.url}") from None
        except anthropic.APIStatusError as exc:
            if exc.status_code == 529 or "overloaded" in str(exc).lower():
                raise ProviderError("overloaded", "Anthropic is overloaded (529); try again in a minute") from None
            if exc.status_code >= 500:
                raise ProviderError("model", f"the Anthropic API failed ({exc.status_code})") from None
            raise ProviderError("bad_request", f"the Anthropic API refused the request ({exc.status_code})") from None
        for block in final.content:
            if block.type == "tool_use":
                yield ToolUse(block.id, block.name, dict(block.input or {}))
