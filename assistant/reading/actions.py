"""What a message asks the assistant to do, read without a model: one small frozen class per intent,
each with only the parts that intent has. Code tells them apart by class (isinstance, match), never by
comparing names; `intent` is the name the labelled sets and the Why record use."""
from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any, ClassVar

from assistant.reading.questions import Focus
from assistant.reading.spans import DaySpan
from memory.time.rules import Recurrence


@dataclass(frozen=True, kw_only=True)
class BaseAction:
    intent: ClassVar[str]  # its name in the labelled sets and the Why record
    content: str = ""  # the task, the fact, the words naming a reminder, or the question

    def understood(self) -> dict[str, Any]:
        """What was read, as JSON (the Why record): the intent and the parts that were found."""
        found: dict[str, Any] = {"intent": self.intent}
        parts = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("content", "when", "target", "event", "new_text"):
            if parts.get(name) not in ("", None):
                found[name] = parts[name]
        if parts.get("due") is not None:
            found["due"] = parts["due"].isoformat()
        return found


@dataclass(frozen=True, kw_only=True)
class Remind(BaseAction):
    """ "remind me to X <when>"."""
    intent: ClassVar[str] = "remind"
    due: datetime
    when: str = ""  # the date or rule phrase as written
    rule: Recurrence | None = None
    link: str = "to"  # how the task reads after "remind you": to | about | that


@dataclass(frozen=True, kw_only=True)
class RemindNoTime(BaseAction):
    """ "remind me to X" with no time: asked when."""
    intent: ClassVar[str] = "remind_no_time"
    link: str = "to"
    impossible: str = ""  # a time or date said that no day has ("25:00", "Feb 30"): said so, and asked again
    impossible_kind: str = "time of day"  # or "date"


@dataclass(frozen=True, kw_only=True)
class RemindRelative(BaseAction):
    """ "remind me two days before the budget review to check the numbers"."""
    intent: ClassVar[str] = "remind_relative"
    event: str = ""  # the event the reminder is relative to
    offset: timedelta | None = None  # signed; due = the event's time - offset
    when: str = ""  # the event's date as written, when given
    due: datetime | None = None  # the event's time, when given
    link: str = "to"


@dataclass(frozen=True, kw_only=True)
class Remember(BaseAction):
    """ "remember that X", or a change of a fact said plainly."""
    intent: ClassVar[str] = "remember"
    kind: str = "note"  # the kind of memory ("fact" for a change said without "remember that")


@dataclass(frozen=True, kw_only=True)
class Upcoming(BaseAction):
    """ "what's coming up?", "what do I have tomorrow?", "any trips planned?"."""
    intent: ClassVar[str] = "upcoming"
    span: DaySpan | None = None  # the days it is limited to
    topic: str = ""  # "trip" for plans of travel, "overdue" for what is late; "" for everything


@dataclass(frozen=True, kw_only=True)
class Known(BaseAction):
    """ "what do you know about me?"."""
    intent: ClassVar[str] = "known"


@dataclass(frozen=True, kw_only=True)
class Recap(BaseAction):
    """ "what did we talk about (yesterday)?"."""
    intent: ClassVar[str] = "recap"
    span: DaySpan | None = None


@dataclass(frozen=True, kw_only=True)
class Change(BaseAction):
    """A change to one reminder, named by its id (`target`) or by words (`content`; "that": the one named
    last)."""
    verb: ClassVar[str]  # as said in "Which reminder should I <verb>?"
    target: int | None = None


@dataclass(frozen=True, kw_only=True)
class Done(Change):
    intent: ClassVar[str] = "done"
    verb: ClassVar[str] = "mark done"


@dataclass(frozen=True, kw_only=True)
class Cancel(Change):
    intent: ClassVar[str] = "cancel"
    verb: ClassVar[str] = "cancel"


@dataclass(frozen=True, kw_only=True)
class Move(Change):
    intent: ClassVar[str] = "move"
    verb: ClassVar[str] = "move"
    when: str = ""
    due: datetime | None = None
    rule: Recurrence | None = None
    keep_day: bool = False  # the new time is a clock time only; the reminder keeps its day
    shift: timedelta | None = None  # by an amount ("push it back an hour")


@dataclass(frozen=True, kw_only=True)
class Snooze(Change):
    intent: ClassVar[str] = "snooze"
    verb: ClassVar[str] = "snooze"
    when: str = ""
    due: datetime | None = None
    shift: timedelta | None = None  # said as a duration: put off from its own time when not due yet


@dataclass(frozen=True, kw_only=True)
class Rename(Change):
    intent: ClassVar[str] = "rename"
    verb: ClassVar[str] = "rename"
    new_text: str = ""


@dataclass(frozen=True, kw_only=True)
class Undo(BaseAction):
    intent: ClassVar[str] = "undo"


@dataclass(frozen=True, kw_only=True)
class Forget(BaseAction):
    """Forget a memory by its id (`target`), "that", or words."""
    intent: ClassVar[str] = "forget"
    target: int | None = None


@dataclass(frozen=True, kw_only=True)
class Question(BaseAction):
    """A question about memory (`content` is the question)."""
    intent: ClassVar[str] = "question"
    asks_when: bool = False
    focus: Focus | None = None  # the subject or the person it asks about
    days: DaySpan | None = None  # the days it names ("any appointments tomorrow?"), as an agenda reads them


@dataclass(frozen=True, kw_only=True)
class Help(BaseAction):
    intent: ClassVar[str] = "help"


@dataclass(frozen=True, kw_only=True)
class NearMiss(BaseAction):
    """Looks like a command but is not one: a misspelt command word, or a reminder named with nothing to
    do with it ("the oven one")."""
    intent: ClassVar[str] = "near_miss"
    suggestion: str = ""  # the message as it was probably meant


@dataclass(frozen=True, kw_only=True)
class Chat(BaseAction):
    """Anything else: small talk, a statement, a request of a model."""
    intent: ClassVar[str] = "chat"


Action = (Remind | RemindNoTime | RemindRelative | Remember | Upcoming | Known | Recap | Done | Cancel | Move | Snooze
          | Rename | Undo | Forget | Question | Help | NearMiss | Chat)
