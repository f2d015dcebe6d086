"""The one small protocol every chat model sits behind. A provider reads a typed conversation
(assistant.conversation) and yields text deltas, then the tool calls of its response."""
from __future__ import annotations

import ipaddress
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol
from urllib.parse import urlsplit

from assistant.conversation import Item, ToolUse, UserMessage
from assistant.errors import ProviderError

__all__ = ["Capabilities", "Delta", "Note", "Provider", "ProviderError", "SystemPrompt", "ToolSpec", "Tools", "Usage",
           "http_get", "not_found", "not_listed", "on_this_network", "own_server", "short_name", "turn_block_at",
           "unreachable"]


def http_get(url: str, headers: dict[str, str] | None = None, timeout: float = 0.5) -> tuple[int, bytes] | None:
    """(status, body) of a quick GET, or None when nothing answers. The standard library's client, so
    that `assistant status` and `doctor` can probe servers without importing an HTTP stack."""
    import urllib.request

    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only, checked
            return response.status, response.read(1_000_000)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(100_000) if exc.fp else b""
    except (OSError, ValueError):
        return None


def unreachable(host: str, server: str = "Ollama") -> str:
    """The one wording of "nothing answers at that address", whichever server it is."""
    return f"{server} is not reachable at {host}"


def not_listed(server: str, host: str, name: str, listed: list[str]) -> str:
    """One rule for a model's name on every path: the configured name is sent as it is. A server whose
    list lacks it is warned about, never refused (llama-cpp-python lists a file path and answers any
    name); only a 404 refuses, and then `not_found` names what the server offers."""
    return (f"{server} at {host} does not list {name!r} (it lists {', '.join(listed[:5])}); it is sent as "
            "configured: some servers answer any name")


def not_found(server: str, host: str, name: str, listed: list[str] | None, fix: str) -> str:
    """The 404 of a model name, with the names the server lists."""
    offers = (", ".join(listed[:10]) + (" ..." if len(listed) > 10 else "")) if listed else "no models"
    return f"{server} at {host} has no model {name!r} (404); it offers: {offers}; {fix}"


def short_name(model: str) -> str:
    """A model as a person names it: a file path's stem ("SmolLM2-135M-Instruct.Q4_1", not the path)."""

    if "/" not in model and "\\" not in model and not re.search(r"\.(gguf|bin|safetensors|ggml)$", model, re.I):
        return model
    tail = re.split(r"[\\/]", model.rstrip("/\\"))[-1]
    return re.sub(r"\.(gguf|bin|safetensors|ggml)$", "", tail, flags=re.I) or model


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class Delta:
    text: str


@dataclass
class Usage:
    """Tokens one model call took, when the server reports them (after the last delta)."""
    input_tokens: int
    output_tokens: int


@dataclass
class Note:
    """Something the user should know about the model itself ("this server has no tools"), said once."""
    text: str


@dataclass
class SystemPrompt:
    """What the memory context sends (SPEC F4): the system prompt, laid out so a server can reuse it
    from one turn to the next, and this turn's block, which a provider sends as its own message (for
    Anthropic, its own content block) just before the newest user message, and never again."""
    stable: str  # instructions; identical across turns, so it can be cached
    memory: str  # `<memory_context>`: changes only when the store (or the day) does
    turn: str = ""  # `<turn_context>`: this turn's clock and what its message brings up


def turn_block_at(conversation: list[Item]) -> int | None:
    """Where this turn's block goes: the index of the newest user message (None: there is none)."""
    return max((i for i, item in enumerate(conversation) if isinstance(item, UserMessage)), default=None)


class Tools(Enum):
    """Whether a provider's model takes tools."""
    YES = "yes"  # the server always does (Anthropic, Ollama), or a model there has called one
    UNKNOWN = "unknown"  # an OpenAI-compatible server, until its model calls a tool or it refuses them
    NO = "no"  # refused, or answered nothing when offered them: chatted with without tools from then on


@dataclass
class Capabilities:
    """What a provider's server can do, as far as it is known: one typed object on the provider. Its
    window is learned when the provider is chosen (`Provider.learn`: config `context_window`, else as the
    server says), and again after a request failed in a way that may mean another server now answers
    (`learned` set back to False); a failed request that says more (tools refused, usage refused, a
    refusal for length) updates it."""
    tools: Tools = Tools.YES
    streaming_usage: bool = False  # the server reports the tokens of a streamed answer when asked
    context_window: int | None = None  # tokens one request may take (configured, or as the server says)
    learned: bool = False  # the window is known: configured, or the server was asked
    # The server is the person's own (this machine or its network) and keeps the last request's tokens,
    # reading again only what follows their longest common prefix: worth asking it to read the
    # conversation between two turns (SPEC F4). Never a paid API: that would be charged for it.
    keeps_prefix: bool = False


def on_this_network(url: str) -> bool:
    """Whether a server's address is this machine or its local network (a loopback, private or link-local
    address, `localhost`, a name without a dot or under .local/.lan/.home.arpa)."""
    host = (urlsplit(url if "//" in url else f"http://{url}").hostname or "").rstrip(".").lower()
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or "." not in host or host.endswith((".localhost", ".local", ".lan", ".home.arpa"))
    return address.is_loopback or address.is_private or address.is_link_local


def own_server(url: str, model: str) -> bool:
    """Whether a model server is the person's own, one that keeps the last request's tokens and charges
    nothing for a request (`Capabilities.keeps_prefix`): on this machine or its network, and the model not
    one of Ollama's cloud models (`gpt-oss:120b-cloud`, `glm-4.6:cloud`), which a local Ollama forwards to
    ollama.com."""
    return on_this_network(url) and not re.search(r"[:-]cloud$", model.strip().lower())


class Provider(Protocol):
    name: str
    model: str
    url: str  # where the server is, as messages name it
    max_tokens: int  # the longest answer asked for (the model responder lowers it to fit a small window)
    capabilities: Capabilities

    def learn(self) -> Capabilities:
        """Ask the server what it can do (its context window) unless that is known already; blocking (a
        few quick requests), so off the event loop. Returns `capabilities`."""
        ...

    def stream(self, system: SystemPrompt, conversation: list[Item], tools: list[ToolSpec], *,
               max_tokens: int | None = None) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        """Text deltas as they arrive, then the tool calls of this response (if any); a provider may
        also yield a Usage after the last delta and a Note for the user. `max_tokens`: this request's
        longest answer, when not `self.max_tokens` (1 to have a server read a conversation, SPEC F4)."""
        ...
