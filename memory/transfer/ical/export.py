"""Open reminders written as a calendar: one VEVENT per reminder (with its alarm), a repeating one as a
series plus, when needed, its moved current occurrence."""
from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from memory.files import write_private
from memory.memories import SELECT_MEMORY, Memory
from memory.store import Store
from memory.text import CONTROL
from memory.time.due_phrases import localize
from memory.time.instants import parse_stored
from memory.time.rules import format_rule, format_rule_time, parse_rule, parse_rule_time
from memory.transfer.exits import Exit
from memory.transfer.ical.lines import PRODID

if TYPE_CHECKING:
    from icalendar import Calendar

# importance 1-5 <-> PRIORITY 1 (highest) - 9 (lowest); 3 is "no priority" (PRIORITY absent).
_PRIORITY_OF = {5: 1, 4: 3, 2: 7, 1: 9}


def _open_reminders(store: Store) -> list[tuple[Memory, str | None]]:
    """Every open reminder, whatever its due date (an export is not a window of the list)."""
    rows = store.query(f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL ORDER BY k.due_at, k.id")
    return [(Memory.from_row(row), row["uid"]) for row in rows]


def calendar_uid(store: Store, memory_id: int, uid: str | None) -> str:
    """The UID a memory carries in a calendar: its own when it came from elsewhere."""
    return uid or f"{store.store_uid()}/memory/{memory_id}"  # the uid a JSON Lines export gives it too


def export_zone(zone: tzinfo) -> tzinfo | None:
    """The zone DTSTART is written in: an IANA zone (TZID), UTC, or None for floating time.

    A zone known only by its offset has no TZID a calendar could read; a repeating reminder in it
    is written as floating time (read back in the user's zone), a one-off as UTC.
    """
    key = getattr(zone, "key", None)
    if key in ("UTC", "Etc/UTC", "Etc/Zulu", "Zulu"):
        return UTC
    return zone if key else None


def until_to_utc(rule: str, zone: tzinfo | None) -> str:
    """RFC 5545 wants UNTIL in UTC when DTSTART has a zone; we keep it as wall-clock time."""
    parts = parse_rule(rule)
    until = parts.get("UNTIL")
    if not until or zone is None or until.endswith("Z") or "T" not in until:
        return rule
    wall = parse_rule_time(until)
    parts["UNTIL"] = format_rule_time(localize(wall, zone).astimezone(UTC)) + "Z"
    return format_rule(parts)


def split_text(text: str) -> tuple[str, str]:
    """A reminder's text as a calendar item carries it: (SUMMARY, DESCRIPTION), split at the first line
    break, control characters (escape sequences, bidi overrides: a calendar app shows these raw) made
    visible as U+FFFD."""
    summary, _, description = CONTROL.sub("\ufffd", text.replace("\r\n", "\n")).partition("\n")
    return summary, description


def item_component(name: str, memory: Memory, uid: str, stamp: datetime, text: str | None = None) -> Any:
    """A VEVENT (the .ics export) or a VTODO (CalDAV) of one reminder: UID, DTSTAMP, its text (`text`: as it
    may leave the machine; the memory's own by default), CREATED, LAST-MODIFIED, CLASS, PRIORITY, and an
    alarm (ACTION:DISPLAY) at the event's start or the to-do's due time. The caller adds the times."""
    from icalendar import Alarm, Event, Todo

    item = Event() if name == "VEVENT" else Todo()
    item.add("UID", uid)
    item.add("DTSTAMP", stamp)
    summary, description = split_text(memory.content if text is None else text)
    item.add("SUMMARY", summary)
    if description.strip():
        item.add("DESCRIPTION", description)
    if memory.created_at:
        item.add("CREATED", parse_stored(memory.created_at))
    if memory.updated_at:
        item.add("LAST-MODIFIED", parse_stored(memory.updated_at))
    if memory.private:
        item.add("CLASS", "PRIVATE")
    if memory.importance in _PRIORITY_OF:
        item.add("PRIORITY", _PRIORITY_OF[memory.importance])
    alarm = Alarm()
    alarm.add("ACTION", "DISPLAY")
    alarm.add("DESCRIPTION", summary)
    if name == "VEVENT":
        alarm.add("TRIGGER", timedelta(0))  # at the event's start, which is the due time
    else:  # a to-do may have no DTSTART, which a plain relative trigger counts from: count from DUE
        alarm.add("TRIGGER", timedelta(0), parameters={"RELATED": "END"})
    item.add_component(alarm)
    return item


def _event(memory: Memory, uid: str, start: datetime, stamp: datetime, exit_: Exit) -> Any:
    event = item_component("VEVENT", memory, uid, stamp, exit_.memory(memory))
    event.add("DTSTART", start)
    return event


def wall_or_zoned(moment: datetime, zone: tzinfo | None, wall_zone: tzinfo) -> datetime:
    """An instant as written in `zone`; floating (zone None): wall-clock time in `wall_zone`."""
    if zone is None:
        return moment.astimezone(wall_zone).replace(tzinfo=None)
    return moment.astimezone(zone)


def build_calendar(store: Store, embedder: Any = None) -> tuple[Calendar, int]:
    """(icalendar.Calendar of the open reminders, how many reminders it holds): each text as it may leave
    (memory.transfer.exits: a secret as "[secret]"). `embedder`: the app's, for the classifier's verdict on a
    reminder not embedded yet."""
    from icalendar import Calendar, vRecur

    exit_ = Exit(store, embedder=embedder)
    now = store.clock.now()
    calendar = Calendar()
    calendar.add("PRODID", PRODID)
    calendar.add("VERSION", "2.0")
    calendar.add("CALSCALE", "GREGORIAN")
    calendar.add("X-WR-CALNAME", "Assistant reminders")
    reminders = _open_reminders(store)
    earliest = now.date()
    for memory, own_uid in reminders:
        uid = calendar_uid(store, memory.id, own_uid)
        assert memory.due_at is not None  # open reminders are selected by their due_at
        due = parse_stored(memory.due_at)
        rule = memory.rule
        zone: tzinfo | None
        if rule is None:
            zone = export_zone(store.clock.zone) or UTC
            calendar.add_component(_event(memory, uid, wall_or_zoned(due, zone, UTC), now, exit_))
            earliest = min(earliest, due.date())
            continue
        zone = export_zone(rule.tz())
        series_start = localize(rule.start, rule.tz())
        master = _event(memory, uid, wall_or_zoned(series_start, zone, rule.tz()), now, exit_)
        master.add("RRULE", vRecur.from_ical(until_to_utc(rule.rule, zone)))
        calendar.add_component(master)
        earliest = min(earliest, series_start.date())
        occurrence = parse_stored(memory.occurrence_at or memory.due_at)
        # Read back, a series is due at its first occurrence from now on (see _schedule); say so
        # explicitly when that is not where this reminder stands.
        natural = next(rule.instances_after(now - timedelta(seconds=1)), None)
        if occurrence != due or occurrence != natural:
            moved = _event(memory, uid, wall_or_zoned(due, zone, rule.tz()), now, exit_)
            moved.add("RECURRENCE-ID", wall_or_zoned(occurrence, zone, rule.tz()))
            calendar.add_component(moved)
    # VTIMEZONEs from the zone database, covering every occurrence a calendar is likely to show.
    calendar.add_missing_timezones(first_date=date(max(earliest.year - 1, 1970), 1, 1),
                                   last_date=date(now.year + 30, 1, 1))
    return calendar, len(reminders)


def write_calendar(store: Store, path: str | os.PathLike[str], embedder: Any = None) -> int:
    """Write the open reminders to `path` (0600, through a temporary file); returns how many."""
    calendar, count = build_calendar(store, embedder)
    data = calendar.to_ical()
    write_private(path, lambda out: out.write(data))
    return count


def calendar_text(store: Store, embedder: Any = None) -> str:
    """The open reminders as iCalendar text (for `export --ics -`)."""
    text: bytes = build_calendar(store, embedder)[0].to_ical()  # icalendar does not annotate to_ical
    return text.decode("utf-8")
