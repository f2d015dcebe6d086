"""What the offline mode does for one message (a Plan: the tool calls and what it says, and what the
wording of their results needs), and what such a plan depends on besides the message (a Situation)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from assistant.conversation import AssistantMessage, Item, UserMessage
from assistant.reading.actions import Action, BaseAction, Move, Remind
from assistant.reading.understand import read_message
from assistant.runtime import Runtime
from memory.turn_records import OpenQuestion

Call = tuple[str, dict[str, Any]]  # a tool's name and its arguments


@dataclass
class Plan:
    """The tool calls to make and what to say; with what the wording of their results needs."""
    calls: list[Call] = field(default_factory=list)
    said: str = ""
    # What each call is for (a Cancel is a forget, a Snooze an update), in the order of `calls`.
    purposes: list[BaseAction] = field(default_factory=list)
    request: str | None = None  # the request the calls carry out, when not the message (a "yes" to a suggestion)
    note: str = ""  # said after a reminder's time: ", two days before the trip (Fri Dec 4)"
    asked: OpenQuestion | None = None  # the question `said` asks (kept with the answer's record)


@dataclass(frozen=True)
class Situation:
    """What an offline answer depends on besides the message."""
    unreachable: str | None = None  # why the configured model was not used (the fallback says so first)
    incognito: bool = False  # nothing of the conversation is kept


def said(text: str, asked: OpenQuestion | None = None) -> Plan:
    """A plan that only says something (maybe a question)."""
    return Plan(said=text, asked=asked)


def asked_before(conversation: list[Item]) -> OpenQuestion | None:
    """The question our answer before the message (the last item) asked, if it asked one."""
    before = conversation[-2] if len(conversation) > 1 else None
    return before.asked if isinstance(before, AssistantMessage) else None


def text_of(item: Item) -> str:
    return item.text if isinstance(item, UserMessage | AssistantMessage) else ""


def read_action(runtime: Runtime, text: str) -> Action:
    """An earlier message's action (the request a question of ours was about)."""
    return read_message(text, runtime.clock.now(), runtime.clock.zone)


def rule_phrase(action: Remind | Move) -> str:
    return re.sub(r"^(for|on)\s+(?!the\b)", "", action.when.strip(" ,.;:-?!"), flags=re.I)


def remember_args(action: Remind, now: datetime | None = None) -> dict[str, Any]:
    """The remember call of a reminder read with its time."""
    # A rule goes to the tool as its phrase (the tool stores the rule); a one-off as its instant,
    # unless that has passed: then as said, so the tool's one rule for a passed time applies ("tonight"
    # said at 22:50 is due at once, as in the app and the CLI; "yesterday at 3pm" is refused).
    due = action.rule and rule_phrase(action)
    if not due and now is not None and action.when and action.due <= now:
        due = action.when
    if not due:
        due = action.due.isoformat()
    return {"content": action.content, "due_at": due, "kind": "reminder"}
