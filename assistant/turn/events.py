"""One turn as data: what the agent yields to the UI or the CLI, in order."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class TextDelta:
    text: str
    type: str = "text_delta"


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    type: str = "tool_call"


@dataclass
class ToolResult:
    id: str
    name: str
    content: str
    is_error: bool = False
    summary: str = ""  # one compact line for the UI ("remembered: Pay rent, due Tue Dec 1 09:00")
    type: str = "tool_result"


@dataclass
class Notice:
    text: str
    level: str = "information"  # information | warning | error
    type: str = "notice"


@dataclass
class Done:
    text: str
    episode_id: int
    message_id: int
    rounds: int
    changed: list[str] = field(default_factory=list)  # what the turn wrote: "reminders", "memories"
    failure: str | None = None  # the model's failure kind when the offline mode answered instead
    usage: dict[str, int] | None = None  # {"input_tokens", "output_tokens"} summed over the turn, when reported
    type: str = "done"


@dataclass
class Failed:
    text: str
    kind: str  # auth | rate_limit | overloaded | network | timeout | model | bad_request
    episode_id: int | None = None
    user_message_id: int | None = None
    type: str = "error"


Event = TextDelta | ToolCall | ToolResult | Notice | Done | Failed


def to_json(event: Event) -> dict[str, Any]:
    return asdict(event)
