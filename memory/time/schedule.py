"""A due phrase, one-off or repeating, resolved against the clock to what the store keeps.

Every writer of a due date (remember, update, snooze, the importers) resolves it here, so the
conventions of SPEC section 3 hold alike for the CLI, the tools and the offline mode.
"""
from __future__ import annotations

from datetime import datetime, time, timedelta, tzinfo

from memory.errors import InvalidInput
from memory.time.clock import Clock
from memory.time.due_phrases import DEFAULT_TIME, parse_due
from memory.time.instants import parse_stored, to_utc_iso
from memory.time.rules import Recurrence, parse_recurrence


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


def check_not_past(clock: Clock, due: str) -> str:
    """A new due date must not have passed (a minute of grace for the time it took to say it)."""
    if parse_stored(due) < clock.now() - timedelta(minutes=1):
        raise InvalidInput(f"{clock.short(due)} has already passed; give a time in the future")
    return due
