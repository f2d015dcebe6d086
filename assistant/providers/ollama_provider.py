"""Chat through a local Ollama server with tools: fully local use."""
from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from assistant.conversation import AssistantMessage, Item, ToolUse, UserMessage
from assistant.providers.base import (
    Capabilities,
    Delta,
    ProviderError,
    SystemPrompt,
    ToolSpec,
    own_server,
    turn_block_at,
    unreachable,
)


def to_messages(system: SystemPrompt, conversation: list[Item]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": f"{system.stable}\n\n{system.memory}"}]
    block_at = turn_block_at(conversation) if system.turn else None  # this turn's block, just before the message
    for index, item in enumerate(conversation):
        if index == block_at:
            out.append({"role": "user", "content": system.turn})
        if isinstance(item, UserMessage):
            out.append({"role": "user", "content": item.text})
        elif isinstance(item, AssistantMessage):
            msg: dict[str, Any] = {"role": "assistant", "content": item.text}
            if item.tool_calls:
                msg["tool_calls"] = [{"function": {"name": c.name, "arguments": c.input}} for c in item.tool_calls]
            out.append(msg)
        else:
            out += [{"role": "tool", "content": r.content, "tool_name": r.name} for r in item.results]
    return out


class OllamaProvider:
    name = "ollama"

    DEFAULT_WINDOW = 8192  # asked for when nothing is configured: Ollama's own default (2048-4096) cuts prompts

    def __init__(self, host: str, model: str, timeout: float = 60.0, max_tokens: int = 2048,
                 context_window: int | None = None) -> None:
        import ollama

        self.host = self.url = host
        self.model = model
        self.max_tokens = max_tokens
        self.num_ctx: int | None = None  # the window asked for in each request (Ollama keeps what it is told)
        self.client = ollama.AsyncClient(host=host, timeout=timeout)
        self.configured_window = context_window
        # The person's own server keeps the last request's tokens (SPEC F4); one on the internet (ollama.com)
        # or a cloud model is a paid service.
        self.capabilities = Capabilities(context_window=context_window, learned=context_window is not None,
                                         keeps_prefix=own_server(host, model))

    def learn(self) -> Capabilities:
        """The model's window as Ollama reads it, at most DEFAULT_WINDOW (a longer one costs memory the
        machine may not have); Ollama is then asked for exactly that. A configured window is taken as it is."""
        from assistant.providers.window import ollama_window

        if not self.capabilities.learned and self.configured_window:
            self.capabilities.context_window, self.capabilities.learned = self.configured_window, True
        if not self.capabilities.learned:
            found = ollama_window(self.host, self.model)
            self.num_ctx = min(found, self.DEFAULT_WINDOW) if found else self.DEFAULT_WINDOW
            self.capabilities.context_window, self.capabilities.learned = self.num_ctx, True
        return self.capabilities

    async def stream(self, system: SystemPrompt, conversation: list[Item], tools: list[ToolSpec], *,
                     max_tokens: int | None = None) -> AsyncIterator[Delta | ToolUse]:
        import httpx
        import ollama

        specs = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                   "parameters": t.parameters}} for t in tools]
        calls: list[ToolUse] = []
        finished, said = False, 0  # the last chunk says done; characters of the answer so far
        try:
            options = {"num_predict": max_tokens or self.max_tokens,
                       **({"num_ctx": self.num_ctx} if self.num_ctx else {})}
            response = await self.client.chat(model=self.model, messages=to_messages(system, conversation),
                                              tools=specs, stream=True, options=options)
            async for chunk in response:
                finished = finished or bool(chunk.done)
                message = chunk.message
                if message.content:
                    said += len(message.content)
                    yield Delta(message.content)
                for call in message.tool_calls or []:
                    args = call.function.arguments
                    if isinstance(args, str):
                        args = json.loads(args or "{}")
                    calls.append(ToolUse(f"call_{len(calls) + 1}", call.function.name, dict(args or {})))
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise ProviderError("model", f"Ollama at {self.host} has no model {self.model!r} "
                                             f"(ollama pull {self.model})") from None
            raise ProviderError("model", f"Ollama failed: {exc.error}") from None
        except httpx.TimeoutException:
            raise ProviderError("timeout", f"Ollama at {self.host} did not answer in time") from None
        except (ConnectionError, httpx.TransportError) as exc:
            if said:
                raise ProviderError("cut", f"Ollama at {self.host} closed the connection in the middle of the answer "
                                           f"(cut off after {said} characters)") from None
            if isinstance(exc, httpx.ConnectError | ConnectionError):
                raise ProviderError("network", unreachable(self.host)) from None
            raise ProviderError("network", f"Ollama at {self.host} closed the connection before answering") from None
        if not finished:  # every answer ends with a chunk that says done
            if said or calls:
                raise ProviderError("cut", f"Ollama at {self.host} stopped in the middle of the answer (cut off after "
                                           f"{said} characters)")
            raise ProviderError("empty", f"Ollama at {self.host} ended the answer before it began, without saying why")
        for use in calls:
            yield use
