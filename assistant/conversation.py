"""A conversation as a model reads it, typed from the store to the wire (SPEC 1).

Items are made from stored messages and from this turn's rounds; the outbound gate returns copies of
them as they may be sent, and each provider turns them into its own wire format. `message_id` is the
stored message's id when the item is one (the gate withholds a message by it). An answer of the offline
mode that asked a question carries it as data (`asked`): the answer to it is read from that, never from
the wording."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory.turn_records import OpenQuestion


@dataclass(frozen=True)
class ToolUse:
    """A tool call, as a model asked for it, or as the app made it from the reading of a request the
    model did not carry out (origin "app")."""
    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    origin: str = "model"  # model | app


@dataclass(frozen=True)
class UserMessage:
    text: str
    message_id: int | None = None


@dataclass(frozen=True)
class AssistantMessage:
    text: str
    tool_calls: tuple[ToolUse, ...] = ()
    message_id: int | None = None
    asked: OpenQuestion | None = None  # the offline mode's question this answer asked (from its record)


@dataclass(frozen=True)
class ToolOutput:
    """What one tool call gave back. `content` is whole here (the user's own screen, the offline wording);
    the gate masks it for a model at the exit. `data`: the memory the call wrote, as JSON."""
    id: str
    name: str
    content: str
    is_error: bool = False
    data: dict[str, Any] | None = None


@dataclass(frozen=True)
class ToolResults:
    results: tuple[ToolOutput, ...]


Item = UserMessage | AssistantMessage | ToolResults


def last_user_text(conversation: list[Item]) -> str:
    """The text of the latest user message of a conversation ("" when there is none)."""
    return next((item.text for item in reversed(conversation) if isinstance(item, UserMessage)), "")
