"""A reminder as a CalDAV to-do (SPEC F15): the VTODO written for it, and what a VTODO on the server says,
in the terms a sync compares (a `Shape`). Pure: no store, no network.

The VTODO: UID (kept beside the reminder), DTSTAMP, SUMMARY (and DESCRIPTION for the text after a first
line break), DUE, STATUS (NEEDS-ACTION, or COMPLETED with COMPLETED), CREATED, LAST-MODIFIED, PRIORITY and
an alarm at the due time (ACTION:DISPLAY, TRIGGER;RELATED=END:PT0S: a relative trigger counts from
DTSTART, which a to-do may lack), built by the one builder of the .ics export (export.item_component). A
one-off is due in UTC. A repeating one carries its RRULE with DTSTART = DUE = its current occurrence in the
rule's zone (TZID, with its VTIMEZONE), as task apps write a series whose next occurrence moves on when one
is done; a COUNT becomes the UNTIL of the series' last occurrence, which a moving DTSTART keeps true.

Read back, a to-do is due at its DUE (else its DTSTART; a date alone at the morning time), whatever alarms
a phone added: the sync compares the DUE it wrote with the DUE it finds.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from memory.memories import Memory
from memory.time.instants import parse_stored, to_utc_iso
from memory.time.rules import Recurrence, format_rule, format_rule_time, parse_rule
from memory.transfer.ical.export import export_zone, item_component, split_text, until_to_utc, wall_or_zoned
from memory.transfer.ical.lines import PRODID
from memory.transfer.ical.read import ALL_DAY_TIME, Item, read_calendar


@dataclass(frozen=True)
class Shape:
    """What a sync compares of a reminder and its to-do: the text as it left (secrets masked), the due
    instant (stored UTC text), done, and the stored rule (the server's rule is not read back: see
    docs/caldav.md)."""

    text: str
    due: str | None
    done: bool
    rule: str | None = None

    def stored(self) -> dict[str, Any]:
        """As kept in the store between syncs: the text only as a hash (the store keeps no copy of it)."""
        return {"text": text_hash(self.text), "due": self.due, "done": self.done, "rule": self.rule}


FIELDS = ("text", "due", "done")  # compared with the server's; the rule only with our own earlier one


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def changed(shape: Shape, base: dict[str, Any], fields: tuple[str, ...] = FIELDS) -> set[str]:
    """The fields of `shape` that differ from `base` (a Shape as stored)."""
    now = shape.stored()
    return {name for name in fields if now[name] != base.get(name)}


def written_text(text: str) -> str:
    """A text as a to-do carries it and reads back: SUMMARY, and DESCRIPTION after a line break when it has
    words (control characters made visible, as the .ics export writes them)."""
    summary, description = split_text(text)
    return f"{summary}\n{description}" if description.strip() else summary


def local_shape(memory: Memory, text: str) -> Shape:
    """The shape of a reminder whose text leaves as `text` (masked by the exit's rule)."""
    return Shape(written_text(text), memory.due_at, memory.done_at is not None, memory.recurrence)


def todo_calendar(memory: Memory, uid: str, text: str, stamp: datetime) -> str:
    """The iCalendar object (one VTODO) of a reminder whose text leaves as `text`."""
    from icalendar import Calendar, vRecur

    assert memory.due_at is not None, "a reminder has a due time"
    calendar = Calendar()
    calendar.add("PRODID", PRODID)
    calendar.add("VERSION", "2.0")
    todo = item_component("VTODO", memory, uid, stamp, text)
    due = parse_stored(memory.due_at)
    rule = memory.rule
    if rule is None:
        todo.add("DUE", due.astimezone(UTC))
    else:
        zone = export_zone(rule.tz())
        current = wall_or_zoned(due, zone, rule.tz())
        todo.add("DTSTART", current)
        todo.add("DUE", current)
        todo.add("RRULE", vRecur.from_ical(until_to_utc(_without_count(rule), zone)))
    if memory.done_at is not None:
        todo.add("STATUS", "COMPLETED")
        todo.add("COMPLETED", parse_stored(memory.done_at))
        todo.add("PERCENT-COMPLETE", 100)
    else:
        todo.add("STATUS", "NEEDS-ACTION")
    calendar.add_component(todo)
    if rule is not None:
        year = due.year
        calendar.add_missing_timezones(first_date=datetime(year - 1, 1, 1).date(),
                                       last_date=datetime(min(year + 10, 9999), 1, 1).date())
    return str(calendar.to_ical().decode("utf-8"))


def _without_count(rule: Recurrence) -> str:
    """The rule with a COUNT written as the UNTIL of its last occurrence (DTSTART moves with the series)."""
    parts = parse_rule(rule.rule)
    if "COUNT" not in parts:
        return rule.rule
    from dateutil.rrule import rrulestr

    last = list(rrulestr(f"DTSTART:{format_rule_time(rule.start)}\nRRULE:{rule.rule}"))[-1]
    del parts["COUNT"]
    parts["UNTIL"] = format_rule_time(last)
    return format_rule(parts)


@dataclass
class Remote:
    """A to-do as found on the server."""

    uid: str
    shape: Shape | None  # None: no date (not a reminder here)
    cancelled: bool
    modified: datetime | None  # LAST-MODIFIED (else DTSTAMP), UTC
    item: Item

    def new_reminder(self) -> tuple[str, str, str | None]:
        """(text, due instant, stored rule or None) of a reminder made from this to-do: due at its DUE, and
        when it repeats by a rule we can follow, from that occurrence on in its zone (a rule we cannot,
        finer than hourly or without a known zone, makes a one-off)."""
        assert self.shape is not None and self.shape.due is not None
        due_when = self.item.due or self.item.anchor
        rule = self.item.rule_as_written
        if rule and due_when is not None and due_when.zone_name is not None:
            wall = due_when.wall + (_morning() if due_when.all_day else timedelta(0))
            try:
                recurrence = Recurrence(rule, wall.replace(microsecond=0), due_when.zone_name).validate()
                return self.shape.text, self.shape.due, recurrence.to_text()
            except (TypeError, ValueError, AttributeError):
                pass
        return self.shape.text, self.shape.due, None


def _morning() -> timedelta:
    return timedelta(hours=ALL_DAY_TIME.hour, minutes=ALL_DAY_TIME.minute)


def read_todo(data: str, zone: tzinfo) -> Remote | None:
    """The to-do of a calendar object (its master, when moved occurrences come with it), or None when the
    object holds none. Raises ImportFailed (memory.errors) for an object that cannot be read."""
    items, _ = read_calendar(data, zone, as_written=True)
    todos = [item for item in items if item.kind == "VTODO" and item.recurrence_id is None]
    if not todos:
        return None
    item = todos[0]
    when = item.due or item.anchor
    shape = None
    if when is not None:
        due = when.instant(_morning() if when.all_day else timedelta(0))
        shape = Shape(written_text(item.content), to_utc_iso(due), item.completed)
    return Remote(item.uid, shape, item.status == "CANCELLED", item.modified, item)
