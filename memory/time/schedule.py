"""A due phrase, one-off or repeating, resolved against the clock to what the store keeps.

Every writer of a due date (remember, update, snooze, the importers) resolves it here, so the
conventions of SPEC section 3 hold alike for the CLI, the tools and the offline mode. So is the one
rule for a due date that has already passed (check_not_past): a conventional time of today that
has gone by ("tonight" said at 22:50) is kept and due at once; any other past date is refused
unless the caller allows it.
"""
from __future__ import annotations

import re
from datetime import datetime, time, timedelta, tzinfo

from memory.errors import InvalidInput
from memory.time.clock import Clock
from memory.time.due_phrases import DEFAULT_TIME, parse_due
from memory.time.instants import parse_stored, to_utc_iso
from memory.time.rules import Recurrence, parse_recurrence

GRACE = timedelta(minutes=1)  # the time it took to say it

# Today, named only by a convention of the day: a part of the day, noon, or the day itself (at the
# default time). Said after that time has passed it still means today, now: "remind me tonight"
# at 22:50 is a reminder due at once, not an error and not tomorrow night.
_CONVENTIONAL_TODAY = re.compile(
    r"(?:(?:by|for|until|before)\s+)?(?:later\s+)?(?:"
    r"today|tonight|tonite|(?:this|today|later)\s+(?:morning|afternoon|evening|night)|"
    r"(?:this\s+|the\s+|over\s+the\s+)?weekend|(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?:month|week)|"
    r"(?:today\s+)?(?:at\s+)?(?:noon|midday)|today\s+(?:in\s+the\s+|at\s+)?(?:morning|afternoon|evening|night))")


def parse_schedule(phrase: str, now: datetime, zone: tzinfo,
                   default_time: time = DEFAULT_TIME) -> tuple[datetime, Recurrence | None]:
    """A due phrase, one-off or repeating: (first due instant in UTC, the rule or None)."""
    found = parse_recurrence(phrase, now, zone, default_time)
    if found is not None:
        return found[1], found[0]
    return parse_due(phrase, now, zone, default_time), None


def resolve_when(clock: Clock, when: str | datetime) -> str:
    """A user's due date (ISO 8601 or natural language) as stored UTC text."""
    if isinstance(when, datetime):
        return to_utc_iso(when)
    return to_utc_iso(parse_due(when, clock.now(), clock.zone, clock.default_time))


def resolve_schedule(clock: Clock, when: str | datetime) -> tuple[str, str | None]:
    """(first due instant as stored UTC text, stored rule or None) for a date or a rule phrase."""
    if isinstance(when, datetime):
        return to_utc_iso(when), None
    due, rule = parse_schedule(when, clock.now(), clock.zone, clock.default_time)
    return to_utc_iso(due), rule.to_text() if rule else None


def is_conventional_today(phrase: str) -> bool:
    """Whether a due phrase names today only by a convention of the day ("tonight", "this morning",
    "today", "at noon"), not by a clock time or another day."""
    return bool(_CONVENTIONAL_TODAY.fullmatch(" ".join(phrase.strip().lower().split())))


def has_passed(clock: Clock, due: str) -> bool:
    """Whether a stored due instant lies before now (with GRACE for the time it took to say it)."""
    return parse_stored(due) < clock.now() - GRACE


def check_not_past(clock: Clock, due: str, when: str | datetime | None = None, allow_past: bool = False) -> str:
    """The one rule for a new due date that has already passed; returns `due` when it may be kept.

    Kept: a date that has not passed; a conventional time of today that has (`when`, the phrase as
    said, is "tonight" at 22:50: due at once, overdue, and the caller says so with past_note); any
    past date when `allow_past`. Else InvalidInput ("yesterday at 3pm", an ISO date of last week).
    """
    if allow_past or not has_passed(clock, due):
        return due
    today = clock.local(clock.now()).date()
    if isinstance(when, str) and is_conventional_today(when) and clock.local(due).date() == today:
        return due
    raise InvalidInput(f"{clock.short(due)} has already passed; give a time in the future")


def past_note(clock: Clock, due: str | None) -> str | None:
    """The usual note for a due date that was kept though it has passed: it is overdue at once."""
    if not due or not has_passed(clock, due):
        return None
    return f"{clock.short(due)} has already passed, so this reminder is overdue"
