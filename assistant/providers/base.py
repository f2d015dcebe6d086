"""The one small protocol every chat model sits behind, and the neutral conversation format.

Conversation items (dicts; "message_id", when present, is the stored message's id):
  {"role": "user", "text": str}
  {"role": "assistant", "text": str, "tool_calls": [{"id", "name", "input"}]}
  {"role": "tool", "results": [{"id", "name", "content", "is_error"}]}
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from assistant.errors import ProviderError

__all__ = ["Delta", "Provider", "ProviderError", "SystemPrompt", "ToolSpec", "ToolUse"]


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class Delta:
    text: str


@dataclass
class ToolUse:
    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass
class SystemPrompt:
    stable: str  # instructions; identical across turns, so it can be cached
    memory: str  # rebuilt every turn


class Provider(Protocol):
    name: str
    model: str

    def stream(self, system: SystemPrompt, conversation: list[dict[str, Any]],
               tools: list[ToolSpec]) -> AsyncIterator[Delta | ToolUse]:
        """Text deltas as they arrive, then the tool calls of this response (if any)."""
        ...
