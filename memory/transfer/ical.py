"""Reminders as iCalendar (SPEC F1): `assistant export --ics FILE` and `assistant import FILE.ics`.

Export writes every open reminder as a VEVENT, not a VTODO: people want to see their reminders
in the calendar they already look at, and Google Calendar ignores VTODO on import, while every
calendar app shows a VEVENT. Each event starts at the reminder's due
time (TZID-qualified, with a VTIMEZONE made from the zone database) and carries a VALARM at that
start, so the calendar notifies at the same moment the assistant would. A repeating reminder is
one VEVENT with its RRULE and DTSTART = the series start; when the current occurrence is not
simply the next one of the series (it was snoozed, or it is overdue, or an earlier one was done
ahead of time) a second VEVENT with the same UID and a RECURRENCE-ID moves that one occurrence,
which is how calendars say "this occurrence, moved". UIDs are the memory's own `uid` when it came
from elsewhere, else "<store uid>/memory/<id>" (the uid a JSON Lines export gives), so a calendar updates rather than
duplicates an event on a second import, and so do we.

Import reads VEVENT and VTODO as reminders (kind "reminder"):
- Content is SUMMARY, then " — " and the DESCRIPTION on the same line when the description is
  short (MAX_DESCRIPTION characters): a reminder is read in one line, in the list, the sidebar and
  the prompt. Longer descriptions (invitations paste pages of dial-in text) stay in the calendar.
  CLASS:PRIVATE/CONFIDENTIAL makes the memory private; PRIORITY maps to importance.
- The due time is the earliest VALARM's trigger when the item has one (relative to its start, or
  its end/DUE with RELATED=END; the earliest because that is when the user asked to hear of it
  first), else DTSTART for an event, DUE (else DTSTART) for a to-do.
- All-day items (DATE values) have no clock time: they are read in the user's zone, their alarms
  count from midnight of the day (so Apple's "-PT15H" reminds at 09:00 the day before), and without
  an alarm they are due at 09:00 on the day. VALARMs with ACTION:NONE (Apple's "no alert") are
  not alarms.
- Times with a TZID keep their zone (IANA names, Windows names such as "W. Europe Standard Time",
  and "/vendor/Europe/Berlin" ids are mapped; other names work for one-off items through the
  file's own VTIMEZONE, but a repeating item needs a zone we know, else the import fails naming
  it). UTC times are read in the calendar's X-WR-TIMEZONE when it has one (what Google means by
  it: the wall-clock time there, which matters for a weekly event across a DST change); floating
  times in X-WR-TIMEZONE, else in the user's zone.
- RRULE becomes the reminder's Recurrence, a series of reminder times: its start is the first
  occurrence's alarm, UNTIL moves with the alarm and is kept as wall-clock time in the event's
  zone, and an alarm on another day than its occurrence moves a BYDAY list with it (see
  _shifted_rule). The reminder is due at the first occurrence that has not passed, skipping
  EXDATEs and applying a RECURRENCE-ID override of that occurrence. RDATE is not read, and later
  EXDATEs and overrides are not kept (a Recurrence is a rule, not a list of exceptions).
- Skipped, and counted in the result: cancelled items (STATUS:CANCELLED), completed to-dos,
  to-dos without any date, and items that are over (a one-off event that started before now, an
  all-day one whose day has ended, a series with no occurrence left). Past events are history that
  the calendar keeps; as open reminders they would only flood the overdue list. A to-do, though,
  stays open until it is completed, so an overdue one comes in overdue; and a file that we wrote
  ourselves (our PRODID) holds only open reminders, so its overdue ones come back open too.
- Re-importing adds nothing: an item is matched on knowledge.uid = its UID (or, for our own
  export read back into the store that wrote it, on the row id inside the UID).
- All or nothing, as the JSON Lines import: any bad item raises ImportFailed naming the line of
  the file (as the user sees it, folded lines counted) where the component starts, and nothing
  is written.

X-WR-TIMEZONE is applied here rather than with the `x-wr-timezone` package: every date-time
already passes through one function that gives it a zone (floating times need the user's zone,
TZIDs need mapping), the rule is one line there, and it covers VTODO too.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.errors import ImportFailed, InvalidInput
from memory.files import write_private
from memory.memories import SELECT_MEMORY, Memory, check_content, next_sequence
from memory.store import Store
from memory.text import CONTROL
from memory.time.due_phrases import localize
from memory.time.instants import check_instant, parse_stored, to_utc_iso
from memory.time.rules import Recurrence, format_rule, parse_rule
from memory.time.zones import zone_name

PRODID = "-//assistant//memory reminders//EN"
ALL_DAY_TIME = time(9, 0)  # when an all-day item without an alarm is due
MAX_DESCRIPTION = 200  # a longer DESCRIPTION is left out of the reminder's text
_ALLOWED_FREQ = ("HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY")
_DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_MAX_SCAN = 5000  # occurrences looked at when EXDATEs or past overrides are skipped

# importance 1-5 <-> PRIORITY 1 (highest) - 9 (lowest); 3 is "no priority" (PRIORITY absent).
_PRIORITY_OF = {5: 1, 4: 3, 2: 7, 1: 9}


def _importance_of(priority: Any) -> int:
    try:
        value = int(priority)
    except (TypeError, ValueError):
        return 3
    if value <= 0 or value > 9:
        return 3
    return 5 if value <= 2 else 4 if value <= 4 else 3 if value == 5 else 2 if value <= 7 else 1


# ---------------------------------------------------------------------------------------------
# Export


def _open_reminders(store: Store) -> list[tuple[Memory, str | None]]:
    """Every open reminder, whatever its due date (an export is not a window of the list)."""
    rows = store.query(f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL ORDER BY k.due_at, k.id")
    return [(Memory.from_row(row), row["uid"]) for row in rows]


def calendar_uid(store: Store, memory_id: int, uid: str | None) -> str:
    """The UID a memory carries in a calendar: its own when it came from elsewhere."""
    return uid or f"{store.store_uid()}/memory/{memory_id}"  # the uid a JSON Lines export gives it too


def _export_zone(zone: tzinfo) -> tzinfo | None:
    """The zone DTSTART is written in: an IANA zone (TZID), UTC, or None for floating time.

    A zone known only by its offset has no TZID a calendar could read; a repeating reminder in it
    is written as floating time (read back in the user's zone), a one-off as UTC.
    """
    key = getattr(zone, "key", None)
    if key in ("UTC", "Etc/UTC", "Etc/Zulu", "Zulu"):
        return UTC
    return zone if key else None


def _until_to_utc(rule: str, zone: tzinfo | None) -> str:
    """RFC 5545 wants UNTIL in UTC when DTSTART has a zone; we keep it as wall-clock time."""
    parts = parse_rule(rule)
    until = parts.get("UNTIL")
    if not until or zone is None or until.endswith("Z") or "T" not in until:
        return rule
    wall = datetime.strptime(until[:15], "%Y%m%dT%H%M%S")
    parts["UNTIL"] = f"{localize(wall, zone).astimezone(UTC):%Y%m%dT%H%M%SZ}"
    return format_rule(parts)


def _event(memory: Memory, uid: str, start: datetime, stamp: datetime) -> Any:
    from icalendar import Alarm, Event

    event = Event()
    event.add("UID", uid)
    event.add("DTSTAMP", stamp)
    event.add("DTSTART", start)
    # A calendar app shows these raw: control characters (escape sequences, bidi overrides) go.
    summary, _, description = CONTROL.sub("\ufffd", memory.content.replace("\r\n", "\n")).partition("\n")
    event.add("SUMMARY", summary)
    if description.strip():
        event.add("DESCRIPTION", description)
    if memory.created_at:
        event.add("CREATED", parse_stored(memory.created_at))
    if memory.updated_at:
        event.add("LAST-MODIFIED", parse_stored(memory.updated_at))
    if memory.private:
        event.add("CLASS", "PRIVATE")
    if memory.importance in _PRIORITY_OF:
        event.add("PRIORITY", _PRIORITY_OF[memory.importance])
    alarm = Alarm()
    alarm.add("ACTION", "DISPLAY")
    alarm.add("DESCRIPTION", summary)
    alarm.add("TRIGGER", timedelta(0))  # at the event's start, which is the due time
    event.add_component(alarm)
    return event


def _at(moment: datetime, zone: tzinfo | None, wall_zone: tzinfo) -> datetime:
    """An instant as written in `zone`; floating (zone None): wall-clock time in `wall_zone`."""
    if zone is None:
        return moment.astimezone(wall_zone).replace(tzinfo=None)
    return moment.astimezone(zone)


def build_calendar(store: Store) -> tuple[Any, int]:
    """(icalendar.Calendar of the open reminders, how many reminders it holds)."""
    from icalendar import Calendar, vRecur

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
        due = parse_stored(memory.due_at)
        rule = memory.rule
        if rule is None:
            zone = _export_zone(store.clock.zone) or UTC
            calendar.add_component(_event(memory, uid, _at(due, zone, UTC), now))
            earliest = min(earliest, due.date())
            continue
        zone = _export_zone(rule.tz())
        series_start = localize(rule.start, rule.tz())
        master = _event(memory, uid, _at(series_start, zone, rule.tz()), now)
        master.add("RRULE", vRecur.from_ical(_until_to_utc(rule.rule, zone)))
        calendar.add_component(master)
        earliest = min(earliest, series_start.date())
        occurrence = parse_stored(memory.occurrence_at or memory.due_at)
        # Read back, a series is due at its first occurrence from now on (see _schedule); say so
        # explicitly when that is not where this reminder stands.
        natural = next(_instances(rule, now - timedelta(seconds=1)), None)
        if occurrence != due or occurrence != natural:
            moved = _event(memory, uid, _at(due, zone, rule.tz()), now)
            moved.add("RECURRENCE-ID", _at(occurrence, zone, rule.tz()))
            calendar.add_component(moved)
    # VTIMEZONEs from the zone database, covering every occurrence a calendar is likely to show.
    calendar.add_missing_timezones(first_date=date(max(earliest.year - 1, 1970), 1, 1),
                                   last_date=date(now.year + 30, 1, 1))
    return calendar, len(reminders)


def write_calendar(store: Store, path: str | os.PathLike[str]) -> int:
    """Write the open reminders to `path` (0600, through a temporary file); returns how many."""
    calendar, count = build_calendar(store)
    data = calendar.to_ical()
    write_private(path, lambda out: out.write(data))
    return count


def calendar_text(store: Store) -> str:
    """The open reminders as iCalendar text (for `export --ics -`)."""
    return build_calendar(store)[0].to_ical().decode("utf-8")


# ---------------------------------------------------------------------------------------------
# Import: where each component starts in the file


@dataclass
class _Block:
    """A BEGIN:...END: block of the file and the physical lines of its properties."""

    name: str
    line: int
    props: dict[str, int] = field(default_factory=dict)
    end: int = 0  # the line of its END

    def where(self, prop: str) -> str:
        return f"{prop} (line {self.props[prop]})" if prop in self.props else prop


_CONTENT_LINE = re.compile(r"([A-Za-z0-9-]+)[;:]")


def _unfold(text: str) -> list[tuple[int, str]]:
    """(physical line number where it starts, unfolded content line), blank lines dropped."""
    logical: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line[:1] in (" ", "\t"):
            if not logical:
                raise ImportFailed(number, "a continuation line before any content line")
            start, content = logical[-1]
            logical[-1] = (start, content + line[1:])
        elif line.strip():
            logical.append((number, line))
    return logical


def _scan(text: str) -> list[_Block]:
    """Check the BEGIN/END structure; every block in file order, with the line it starts on."""
    lines = _unfold(text)
    if not lines or lines[0][1].strip().upper() != "BEGIN:VCALENDAR":
        raise ImportFailed(lines[0][0] if lines else 1, "not an iCalendar file (it must start with BEGIN:VCALENDAR)")
    blocks: list[_Block] = []
    stack: list[_Block] = []
    for number, content in lines:
        match = _CONTENT_LINE.match(content)
        if not match or ":" not in content:
            raise ImportFailed(number, f"not an iCalendar content line: {content[:60]!r}")
        name = match.group(1).upper()
        value = content.split(":", 1)[1].strip().upper()
        if name == "BEGIN":
            if not stack and value != "VCALENDAR":
                raise ImportFailed(number, f"BEGIN:{value} outside BEGIN:VCALENDAR")
            block = _Block(value, number)
            blocks.append(block)
            stack.append(block)
        elif name == "END":
            if stack and stack[-1].name == value:
                stack.pop().end = number
            elif any(b.name == value for b in stack):
                raise ImportFailed(stack[-1].line, f"BEGIN:{stack[-1].name} has no END:{stack[-1].name}")
            elif stack:
                raise ImportFailed(number, f"END:{value} does not close BEGIN:{stack[-1].name} "
                                           f"(line {stack[-1].line})")
            else:
                raise ImportFailed(number, f"END:{value} without a BEGIN")
        elif stack:
            stack[-1].props.setdefault(name, number)
        else:
            raise ImportFailed(number, "text after END:VCALENDAR")
    if stack:
        raise ImportFailed(stack[-1].line, f"BEGIN:{stack[-1].name} has no END:{stack[-1].name}")
    return blocks


# ---------------------------------------------------------------------------------------------
# Import: reading one component


def zone_for_tzid(tzid: str) -> ZoneInfo | None:
    """An IANA zone for a TZID: an IANA name, a Windows name, or a "/vendor/Area/City" id."""
    from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

    clean = tzid.strip().strip('"').strip("/")
    candidates = [clean]
    if clean in WINDOWS_TO_OLSON:
        candidates.append(WINDOWS_TO_OLSON[clean])
    if tzid.strip().startswith("/"):  # "globally unique" ids (libical, Lightning) end in the IANA name
        parts = clean.split("/")
        candidates += ["/".join(parts[i:]) for i in range(1, len(parts))]
    for candidate in candidates:
        if not candidate or candidate.startswith(".") or ".." in candidate:
            continue
        try:
            return ZoneInfo(candidate)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            continue
    return None


@dataclass(frozen=True)
class _When:
    """A date-time as written: wall-clock time in a zone (zone_name None: no IANA name known)."""

    wall: datetime
    zone: tzinfo
    zone_name: str | None
    all_day: bool = False

    def instant(self, offset: timedelta = timedelta(0)) -> datetime:
        return localize(self.wall + offset, self.zone)

    def wall_in(self, other: _When) -> datetime:
        """This time as wall-clock time in `other`'s zone (an all-day date stays as written)."""
        if self.all_day or self.zone is other.zone:
            return self.wall
        return self.instant().astimezone(other.zone).replace(tzinfo=None)



def _bad(block: _Block, label: str, why: str) -> ImportFailed:
    return ImportFailed(block.line, f"{label}: {why}")


def _is_broken(value: Any) -> bool:
    from icalendar import vBroken

    return isinstance(value, vBroken)


def _raw(value: Any) -> str:
    try:
        raw = value.to_ical()
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    except (ValueError, TypeError, AttributeError):  # a broken value may not render; its text will do
        return str(value)


def _first(value: Any) -> Any:
    """A property given more than once counts once: the first."""
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _text(component: Any, prop: str) -> str:
    value = _first(component.get(prop))
    return "" if value is None else str(value).strip()


def _hours(moment: time) -> timedelta:
    return timedelta(hours=moment.hour, minutes=moment.minute)


@dataclass
class _Reader:
    """Reads the date-times of one VCALENDAR in the zones that apply to it."""

    user_zone: tzinfo
    calendar_zone: ZoneInfo | None  # X-WR-TIMEZONE

    def when(self, component: Any, prop: str, block: _Block, label: str) -> _When | None:
        value = _first(component.get(prop))
        if value is None:
            return None
        moment = None if _is_broken(value) else getattr(value, "dt", None)
        if not isinstance(moment, date | datetime):
            raise _bad(block, label, f"{block.where(prop)} is not a valid date or date-time ({_raw(value)!r})")
        floating = self.calendar_zone or self.user_zone
        if not isinstance(moment, datetime):  # all-day: its 09:00 is the user's, wherever the calendar is
            return _When(datetime.combine(moment, time(0)), self.user_zone, zone_name(self.user_zone), all_day=True)
        tzid = value.params.get("TZID")
        if tzid:
            zone = zone_for_tzid(str(tzid))
            if zone is not None:
                wall = moment.replace(tzinfo=None)
                if moment.tzinfo is not None and getattr(moment.tzinfo, "key", zone.key) != zone.key:
                    wall = moment.astimezone(zone).replace(tzinfo=None)
                return _When(wall, zone, zone.key)
            if moment.tzinfo is None:
                raise _bad(block, label, f"{block.where(prop)} names the unknown time zone {str(tzid)!r} "
                                         "(no VTIMEZONE for it, and not an IANA or Windows zone name)")
            return _When(moment.replace(tzinfo=None), moment.tzinfo, None)  # only its VTIMEZONE knows it
        if moment.tzinfo is None:
            return _When(moment, floating, zone_name(floating))
        if self.calendar_zone is not None:  # Google writes UTC and means the calendar's zone
            local = moment.astimezone(self.calendar_zone).replace(tzinfo=None)
            return _When(local, self.calendar_zone, self.calendar_zone.key)
        return _When(moment.astimezone(UTC).replace(tzinfo=None), UTC, "UTC")


@dataclass
class _Item:
    """One VEVENT/VTODO, read into what a reminder needs."""

    kind: str
    block: _Block
    label: str
    uid: str
    status: str
    completed: bool
    content: str
    importance: int
    private: bool
    anchor: _When | None = None  # DTSTART (DUE for a to-do without one); None: an undated to-do
    recurrence_id: datetime | None = None  # wall-clock time in the anchor's zone
    due_offset: timedelta = timedelta(0)  # anchor -> when the reminder is due
    over_offset: timedelta = timedelta(0)  # anchor -> when the item is over
    rule: str | None = None
    exdates: set[datetime] = field(default_factory=set)


def _content(component: Any, kind: str, ours: bool) -> str:
    """SUMMARY, and a short DESCRIPTION after it on the same line (a reminder is read in one line).

    A long description (an invitation's dial-in text, an agenda) stays in the calendar. Our own
    export splits a reminder's text into SUMMARY and DESCRIPTION at its first line break, so that
    is joined back exactly.
    """
    if ours:
        summary, description = (str(_first(component.get(prop)) or "") for prop in ("SUMMARY", "DESCRIPTION"))
        return f"{summary}\n{description}" if description else summary
    summary, description = _text(component, "SUMMARY"), _text(component, "DESCRIPTION")
    if not summary:  # some apps leave the title empty and write only a description
        first, _, rest = description.partition("\n")
        summary = first.strip() or f"(untitled {'to-do' if kind == 'VTODO' else 'event'})"
        description = rest
    description = " ".join(description.split())
    if not description or description == summary or len(description) > MAX_DESCRIPTION:
        return summary
    return f"{summary} — {description}"


class _ComponentReader:
    """Reads VEVENT/VTODO components, knowing which block of the file each one came from."""

    _CHECKED = ("DTSTART", "DTEND", "DUE", "DURATION", "RRULE", "EXDATE", "RECURRENCE-ID")

    def __init__(self, reader: _Reader, blocks: dict[int, _Block], ours: bool) -> None:
        self.reader = reader
        self.blocks = blocks
        self.ours = ours

    def read(self, component: Any) -> _Item:
        block = self.blocks[id(component)]
        kind = component.name
        content = _content(component, kind, self.ours)
        label = f"{kind} {content.splitlines()[0][:60]!r}"
        for prop, error in getattr(component, "errors", []):
            if prop.upper() in self._CHECKED:  # a broken property we do not use is not worth failing for
                raise _bad(block, label, f"{block.where(prop.upper())} is not valid ({error})")
        status = _text(component, "STATUS").upper()
        item = _Item(kind, block, label, _text(component, "UID"), status,
                     kind == "VTODO" and (status == "COMPLETED" or component.get("COMPLETED") is not None),
                     content, _importance_of(_first(component.get("PRIORITY"))),
                     _text(component, "CLASS").upper() in ("PRIVATE", "CONFIDENTIAL"))
        when = self.reader.when
        start = when(component, "DTSTART", block, label)
        if kind == "VEVENT" and start is None:
            raise _bad(block, label, "an event needs a DTSTART")
        end = when(component, "DTEND" if kind == "VEVENT" else "DUE", block, label)
        duration = _first(component.get("DURATION"))
        if duration is not None:
            if not isinstance(getattr(duration, "dt", None), timedelta):
                raise _bad(block, label, f"{block.where('DURATION')} is not a duration ({_raw(duration)!r})")
            if end is None and start is not None:
                end = _When(start.wall + duration.dt, start.zone, start.zone_name, start.all_day)
        due = end if kind == "VTODO" else None
        item.anchor = start or due
        if item.anchor is None:
            return item
        recurrence_id = when(component, "RECURRENCE-ID", block, label)
        if recurrence_id is not None:
            item.recurrence_id = recurrence_id.wall_in(item.anchor)
        rule = _first(component.get("RRULE"))
        if rule is not None:
            item.rule = self.rule_text(rule, item)
            item.exdates = self.exdates(component, item.anchor)
        # When it happens: an event's start, a to-do's DUE. An all-day item lasts until its day ends.
        happens = due.wall_in(item.anchor) - item.anchor.wall if due is not None else timedelta(0)
        item.over_offset = happens + (timedelta(days=1) if item.anchor.all_day else timedelta(0))
        offsets = self.alarm_offsets(component, item, start, end)
        if offsets:
            item.due_offset = min(offsets)  # the earliest alarm: when the user asked to be reminded first
        else:
            item.due_offset = happens + (_hours(ALL_DAY_TIME) if item.anchor.all_day else timedelta(0))
        if item.rule is not None:
            item.rule = _shifted_rule(item, happens)
        return item

    def alarm_offsets(self, component: Any, item: _Item, start: _When | None, end: _When | None) -> list[timedelta]:
        """Offsets from the anchor at which the item's alarms go off."""
        anchor = item.anchor
        assert anchor is not None
        offsets = []
        for alarm in component.subcomponents:
            if alarm.name != "VALARM":
                continue
            block = self.blocks[id(alarm)]
            trigger = _first(alarm.get("TRIGGER"))
            if trigger is None or _text(alarm, "ACTION").upper() == "NONE":
                # No trigger never goes off; Apple writes ACTION:NONE with a trigger in 1976 to mean
                # "no alert" (RFC 9074), which must not make a reminder fifty years overdue.
                continue
            value = None if _is_broken(trigger) else getattr(trigger, "dt", None)
            if isinstance(value, timedelta):
                related_end = str(trigger.params.get("RELATED", "START")).upper() == "END"
                base = ((end or start) if related_end else (start or end)) or anchor
                offsets.append(base.wall_in(anchor) - anchor.wall + value)
            elif isinstance(value, datetime):
                if item.rule is not None:
                    continue  # an absolute time fits one occurrence of a series, not the rule
                zone = self.reader.calendar_zone or self.reader.user_zone
                moment = value if value.tzinfo else localize(value, zone)
                offsets.append(moment.astimezone(anchor.zone).replace(tzinfo=None) - anchor.wall)
            else:
                raise _bad(block, f"VALARM of {item.label}",
                           f"{block.where('TRIGGER')} is not a duration or a date-time ({_raw(trigger)!r})")
        return offsets

    def rule_text(self, rule: Any, item: _Item) -> str:
        """The RRULE as we store it: hourly to yearly, UNTIL as wall-clock time in the anchor's zone.

        (memory.time.rules expands rules from a naive DTSTART, and dateutil refuses a UTC UNTIL
        beside a naive DTSTART; wall-clock UNTIL means the same there.)
        """
        block = item.block
        if _is_broken(rule):
            raise _bad(block, item.label, f"{block.where('RRULE')} is not a valid rule ({_raw(rule)!r})")
        parts = parse_rule(_raw(rule))
        if parts.get("FREQ") not in _ALLOWED_FREQ:
            raise _bad(block, item.label, f"{block.where('RRULE')}: FREQ={parts.get('FREQ')} is not a reminder "
                                          "rule (hourly to yearly)")
        until = parts.get("UNTIL")
        if until:
            try:
                if "T" not in until:  # a date: an all-day series ends with that day, a timed one at its end
                    day = datetime.strptime(until[:8], "%Y%m%d").date()
                    wall = datetime.combine(day, time(0) if item.anchor.all_day else time(23, 59, 59))  # type: ignore[union-attr]
                elif until.endswith("Z"):
                    moment = datetime.strptime(until[:15], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
                    wall = moment.astimezone(item.anchor.zone).replace(tzinfo=None)  # type: ignore[union-attr]
                else:
                    wall = datetime.strptime(until[:15], "%Y%m%dT%H%M%S")
            except ValueError:
                raise _bad(block, item.label, f"{block.where('RRULE')}: UNTIL={until} is not a date") from None
            parts["UNTIL"] = f"{wall:%Y%m%dT%H%M%S}"
        if parts.get("INTERVAL") == "1":  # the default, as our own rules leave it out
            del parts["INTERVAL"]
        return format_rule(parts)

    def exdates(self, component: Any, anchor: _When) -> set[datetime]:
        """Excluded occurrences, as wall-clock times of their start in the anchor's zone."""
        excluded = set()
        for value in _as_list(component.get("EXDATE")):
            for one in getattr(value, "dts", []):
                moment = one.dt
                if not isinstance(moment, datetime):
                    excluded.add(datetime.combine(moment, anchor.wall.time()))
                elif moment.tzinfo is None:
                    excluded.add(moment)
                else:
                    excluded.add(moment.astimezone(anchor.zone).replace(tzinfo=None))
        return excluded


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _shifted_rule(item: _Item, happens: timedelta) -> str:
    """The rule of the reminder times, when an alarm falls on another day than its occurrence.

    "Every Tuesday, remind me the day before" is every Monday: plain weekday lists move with the
    alarm, and a rule that takes its day from DTSTART follows the moved start by itself. Where a
    rule pins days some other way (day of the month, month, week number, "first Monday") or a
    monthly day would land past the 28th, the reminder falls back to the occurrence's own time
    (09:00 for an all-day one) rather than remind on a wrong day.
    """
    anchor = item.anchor
    assert anchor is not None and item.rule is not None
    moved_start = anchor.wall + item.due_offset
    shift = (moved_start.date() - anchor.wall.date()).days
    if shift == 0:
        return item.rule
    parts = parse_rule(item.rule)
    pinned = {"BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYMONTH"} & set(parts)
    days = [day for day in parts.get("BYDAY", "").split(",") if day]
    if not pinned and all(day in _DAY_CODES for day in days):
        if days:
            parts["BYDAY"] = ",".join(_DAY_CODES[(_DAY_CODES.index(day) + shift) % 7] for day in days)
            return format_rule(parts)
        if parts["FREQ"] != "MONTHLY" or moved_start.day <= 28:
            return item.rule
    item.due_offset = happens + (_hours(ALL_DAY_TIME) if anchor.all_day else timedelta(0))
    return item.rule


# ---------------------------------------------------------------------------------------------
# Import: what each item becomes


@dataclass
class CalendarImport:
    """What an .ics import did."""

    imported: int = 0
    already_present: int = 0
    past: int = 0
    cancelled: int = 0
    completed: int = 0
    undated: int = 0

    def to_json(self) -> dict[str, int]:
        return {"reminders": self.imported, "already_present": self.already_present,
                "skipped_past": self.past, "skipped_cancelled": self.cancelled,
                "skipped_completed": self.completed, "skipped_undated": self.undated}

    def describe(self) -> str:
        """"Imported 3 reminders (2 already present, 4 past skipped)."."""
        notes = [f"{n} {what}" for n, what in (
            (self.already_present, "already present"), (self.past, "past skipped"),
            (self.cancelled, "cancelled skipped"), (self.completed, "completed skipped"),
            (self.undated, "without a date skipped")) if n]
        noun = "reminder" if self.imported == 1 else "reminders"
        return f"Imported {self.imported} {noun}" + (f" ({', '.join(notes)})" if notes else "") + "."


@dataclass
class _Plan:
    """A reminder to insert."""

    item: _Item
    uid: str
    due_at: str
    recurrence: str | None = None
    occurrence_at: str | None = None


def _recurrence(item: _Item) -> Recurrence:
    anchor = item.anchor
    assert anchor is not None
    if anchor.zone_name is None:
        raise _bad(item.block, item.label, f"a repeating item needs a time zone we know, and "
                                           f"{item.block.where('DTSTART')} has one that only its VTIMEZONE defines")
    start = (anchor.wall + item.due_offset).replace(microsecond=0)
    parts = parse_rule(item.rule or "")
    if "UNTIL" in parts:  # the rule is of reminder times now: the last occurrence's alarm moves with it
        until = datetime.strptime(parts["UNTIL"], "%Y%m%dT%H%M%S") + item.due_offset
        parts["UNTIL"] = f"{until:%Y%m%dT%H%M%S}"
    if parts.get("FREQ") == "YEARLY" and not {"BYMONTH", "BYMONTHDAY", "BYDAY", "BYYEARDAY", "BYWEEKNO"} & set(parts):
        # The same series spelled out: Recurrence.describe() needs BYMONTH/BYMONTHDAY on a yearly rule.
        parts.update(BYMONTH=str(start.month), BYMONTHDAY=str(start.day))
    recurrence = Recurrence(format_rule(parts), start, anchor.zone_name)
    try:
        recurrence.validate()
    except (TypeError, ValueError, AttributeError) as exc:
        raise _bad(item.block, item.label, f"{item.block.where('RRULE')} cannot be followed ({exc})") from None
    return recurrence


def _instances(recurrence: Recurrence, after: datetime) -> Iterator[datetime]:
    """Due instants of a series after `after`; DTSTART counts even where the rule skips it (RFC 5545)."""
    first = localize(recurrence.start, recurrence.tz())
    cursor = after
    if first > after:
        yield first
        cursor = first
    for _ in range(_MAX_SCAN):
        following = recurrence.next_after(cursor)
        if following is None:
            return
        yield following
        cursor = following


def _plan(uid: str, item: _Item, overrides: list[_Item], now: datetime, ours: bool) -> _Plan | None:
    """The reminder an item becomes, or None when it is over.

    A one-off event that has begun is over; a to-do stays open until it is completed, so an
    overdue one comes in overdue. Everything in a file we wrote was open when it was written.
    """
    anchor = item.anchor
    assert anchor is not None
    if item.rule is None:
        if not ours and item.kind == "VEVENT" and anchor.instant(item.over_offset) < now:
            return None
        return _Plan(item, uid, to_utc_iso(anchor.instant(item.due_offset)))
    recurrence = _recurrence(item)
    rule = recurrence.to_text()
    moved = {o.recurrence_id: o for o in overrides if o.anchor is not None and o.recurrence_id is not None}
    if ours:  # our own export names the current occurrence when it is not simply the next one
        for key, override in moved.items():
            if override.status != "CANCELLED":
                occurrence = localize(key + item.due_offset, anchor.zone)
                due = override.anchor.instant(override.due_offset)  # type: ignore[union-attr]
                return _Plan(item, uid, to_utc_iso(due), rule, to_utc_iso(occurrence))
    lead = item.over_offset - item.due_offset
    for due in _instances(recurrence, now - lead - timedelta(seconds=1)):
        key = due.astimezone(anchor.zone).replace(tzinfo=None) - item.due_offset
        if key in item.exdates:
            continue
        override = moved.get(key)
        if override is None:
            return _Plan(item, uid, to_utc_iso(due), rule, to_utc_iso(due))
        assert override.anchor is not None
        if override.status == "CANCELLED" or override.anchor.instant(override.over_offset) < now:
            continue
        return _Plan(item, uid, to_utc_iso(override.anchor.instant(override.due_offset)), rule, to_utc_iso(due))
    return None


def _fallback_uid(item: _Item) -> str:
    """A stable UID for an item without one (RFC 5545 requires it; some exporters forget), so a
    second import of the same file still adds nothing."""
    import hashlib

    anchor = f"{item.anchor.wall.isoformat()} {item.anchor.zone_name}" if item.anchor else ""
    digest = hashlib.sha256(f"{item.kind}\n{item.content}\n{anchor}\n{item.rule}".encode()).hexdigest()[:32]
    return f"ics-{digest}"


def read_calendar(text: str, user_zone: tzinfo) -> tuple[list[_Item], bool]:
    """Every VEVENT/VTODO of an iCalendar text, read; (items, whether we wrote the file).

    Raises ImportFailed naming the line where the offending component starts.
    """
    from icalendar import Calendar

    text = text.lstrip("\ufeff")
    blocks = _scan(text)
    try:
        calendars = Calendar.from_ical(text, multiple=True)
    except ValueError as exc:  # the structure passed our scan, so this is a value icalendar cannot read
        raise _unreadable(text, blocks, exc) from None
    # icalendar keeps components in file order, depth first: pair them with the blocks we found.
    queue = iter(blocks)
    where: dict[int, _Block] = {}

    def pair(component: Any) -> None:
        where[id(component)] = next(queue, blocks[0])
        for sub in component.subcomponents:
            pair(sub)

    items: list[_Item] = []
    ours = bool(calendars) and all(_text(calendar, "PRODID") == PRODID for calendar in calendars)
    for calendar in calendars:
        pair(calendar)
        zone = None
        named = _text(calendar, "X-WR-TIMEZONE")
        if named:
            zone = zone_for_tzid(named)
            if zone is None:
                block = where[id(calendar)]
                raise ImportFailed(block.props.get("X-WR-TIMEZONE", block.line),
                                   f"X-WR-TIMEZONE names the unknown time zone {named!r}")
        reader = _ComponentReader(_Reader(user_zone, zone), where, ours)
        items += [reader.read(c) for c in calendar.subcomponents if c.name in ("VEVENT", "VTODO")]
    return items, ours


def _unreadable(text: str, blocks: list[_Block], error: ValueError) -> ImportFailed:
    """Which component icalendar could not read: the innermost block that fails on its own."""
    from icalendar import Component

    lines = text.splitlines()
    failing = blocks[0]
    for block in blocks[1:]:
        try:
            Component.from_ical("\r\n".join(lines[block.line - 1:block.end]))
        except ValueError as exc:
            if block.end - block.line <= failing.end - failing.line or failing is blocks[0]:
                failing, error = block, exc
    what = failing.name
    for number, content in _unfold("\r\n".join(lines[failing.line:failing.end - 1])):
        try:
            Component.from_ical(f"BEGIN:{failing.name}\r\n{content}\r\nEND:{failing.name}")
        except ValueError:
            what = f"{failing.name}: {content.split(':')[0].split(';')[0].upper()} (line {failing.line + number})"
            break
    return ImportFailed(failing.line, f"{what} is not readable ({error})")


def import_calendar(store: Store, text: str) -> CalendarImport:
    """Import VEVENT/VTODO items as reminders; a bad item raises ImportFailed and nothing is written."""
    try:
        items, ours = read_calendar(text, store.clock.zone)
    except RecursionError:
        raise ImportFailed(1, "components are nested too deeply to be a calendar") from None
    except OverflowError:
        raise ImportFailed(1, "a date is out of range") from None
    now = store.clock.now()
    result = CalendarImport()
    series: dict[str, _Item] = {}
    overrides: dict[str, list[_Item]] = {}
    for item in items:
        if item.anchor is None:
            result.undated += 1
            continue
        uid = item.uid or _fallback_uid(item)
        if item.recurrence_id is not None:
            overrides.setdefault(uid, []).append(item)
        elif uid in series:
            result.already_present += 1  # the same item twice in one file (merged calendars)
        else:
            series[uid] = item
    for uid, moved in overrides.items():
        if uid not in series:  # a moved occurrence whose series is not in the file stands alone
            moved[0].recurrence_id = None
            series[uid] = moved[0]
    plans = []
    for uid, item in series.items():
        if item.status == "CANCELLED":
            result.cancelled += 1
        elif item.completed:
            result.completed += 1
        elif (plan := _checked_plan(uid, item, overrides.get(uid, []), now, ours)) is None:
            result.past += 1
        else:
            plans.append(plan)
    # Our own UIDs name rows of the store that wrote them; read back there they are already present.
    own = store.get_meta("store_uid")
    own_uid = re.compile(re.escape(own) + r"/memory/(\d+)") if own else None
    with store.transaction():
        for plan in plans:
            mine = own_uid.fullmatch(plan.uid) if own_uid else None
            if store.one("SELECT 1 FROM knowledge WHERE uid = ?", (plan.uid,)) is not None or (
                    mine and store.one("SELECT 1 FROM knowledge WHERE id = ?", (int(mine.group(1)),))):
                result.already_present += 1
                continue
            try:
                _insert(store, plan)
            except Exception as exc:  # InvalidInput (content), or a constraint the checks did not foresee
                raise ImportFailed(plan.item.block.line, f"{plan.item.label}: {exc}") from exc
            result.imported += 1
    return result


def _checked_plan(uid: str, item: _Item, overrides: list[_Item], now: datetime, ours: bool) -> _Plan | None:
    """_plan, with every instant it yields inside the years the store keeps."""
    try:
        plan = _plan(uid, item, overrides, now, ours)
        for instant in (plan.due_at, plan.occurrence_at) if plan else ():
            if instant:
                check_instant(parse_stored(instant), "due date")
        return plan
    except ImportFailed:
        raise  # already names its line
    except (InvalidInput, OverflowError, ValueError) as exc:
        why = "a date out of range" if isinstance(exc, OverflowError) else str(exc)
        raise ImportFailed(item.block.line, f"{item.label}: {why}") from None


def _insert(store: Store, plan: _Plan) -> None:
    import json

    item = plan.item
    now = store.clock.now_iso()
    store.execute(
        "INSERT INTO knowledge (kind, content, importance, private, due_at, message_ids, sequence, created_at, "
        "updated_at, recurrence, occurrence_at, uid) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        ("reminder", check_content(item.content), item.importance, int(item.private), plan.due_at, json.dumps([]),
         next_sequence(store), now, now, plan.recurrence, plan.occurrence_at, plan.uid))


def looks_like_calendar(name: str, text: str) -> bool:
    """Whether an import file is iCalendar: by its extension or by its first line."""
    if name.lower().endswith((".ics", ".ical", ".icalendar", ".ifb")):
        return True
    return text.lstrip("\ufeff \t\r\n")[:15].upper() == "BEGIN:VCALENDAR"
