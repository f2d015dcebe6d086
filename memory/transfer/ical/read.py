"""Reading VEVENT and VTODO components: their times in a known zone, their alarms, rules and exceptions,
and the text a reminder is made of."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.errors import ImportFailed
from memory.sensitive import redact
from memory.time.due_phrases import localize
from memory.time.rules import ALLOWED_FREQ, format_rule, format_rule_time, parse_rule, parse_rule_time
from memory.time.zones import zone_name
from memory.transfer.ical.lines import PRODID, Block, scan, unreadable

ALL_DAY_TIME = time(9, 0)  # when an all-day item without an alarm is due


MAX_DESCRIPTION = 200  # a longer DESCRIPTION is left out of the reminder's text




_DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def _importance_of(priority: Any) -> int:
    try:
        value = int(priority)
    except (TypeError, ValueError):
        return 3
    if value <= 0 or value > 9:
        return 3
    return 5 if value <= 2 else 4 if value <= 4 else 3 if value == 5 else 2 if value <= 7 else 1


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


def item_error(block: Block, label: str, why: str) -> ImportFailed:
    # A value quoted in `why` can be a file's worth of digits: the message stays one readable line.
    return ImportFailed(block.line, f"{label}: {why if len(why) <= 300 else why[:297] + '...'}")


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


def _stamp(component: Any) -> datetime | None:
    """When an item was last changed where it lives: LAST-MODIFIED, else DTSTAMP, in UTC (None: neither
    is a date-time; a floating one is read as UTC)."""
    for prop in ("LAST-MODIFIED", "DTSTAMP"):
        moment = getattr(_first(component.get(prop)), "dt", None)
        if isinstance(moment, datetime):
            return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    return None


def _hours(moment: time) -> timedelta:
    return timedelta(hours=moment.hour, minutes=moment.minute)


@dataclass
class _Reader:
    """Reads the date-times of one VCALENDAR in the zones that apply to it."""

    user_zone: tzinfo
    calendar_zone: ZoneInfo | None  # X-WR-TIMEZONE

    def when(self, component: Any, prop: str, block: Block, label: str) -> _When | None:
        value = _first(component.get(prop))
        if value is None:
            return None
        moment = None if _is_broken(value) else getattr(value, "dt", None)
        if not isinstance(moment, date | datetime):
            raise item_error(block, label, f"{block.where(prop)} is not a valid date or date-time ({_raw(value)!r})")
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
                raise item_error(block, label, f"{block.where(prop)} names the unknown time zone {str(tzid)!r} "
                                         "(no VTIMEZONE for it, and not an IANA or Windows zone name)")
            return _When(moment.replace(tzinfo=None), moment.tzinfo, None)  # only its VTIMEZONE knows it
        if moment.tzinfo is None:
            return _When(moment, floating, zone_name(floating))
        if self.calendar_zone is not None:  # Google writes UTC and means the calendar's zone
            local = moment.astimezone(self.calendar_zone).replace(tzinfo=None)
            return _When(local, self.calendar_zone, self.calendar_zone.key)
        return _When(moment.astimezone(UTC).replace(tzinfo=None), UTC, "UTC")


@dataclass
class Item:
    """One VEVENT/VTODO, read into what a reminder needs."""

    kind: str
    block: Block
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
    due: _When | None = None  # a to-do's DUE (or DTSTART + DURATION) as written
    rule_as_written: str | None = None  # `rule` before an alarm on another day moved it (a CalDAV sync reads DUE)
    modified: datetime | None = None  # LAST-MODIFIED, else DTSTAMP (UTC): when it was last changed out there


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

    def __init__(self, reader: _Reader, blocks: dict[int, Block], ours: bool) -> None:
        self.reader = reader
        self.blocks = blocks
        self.ours = ours

    def read(self, component: Any) -> Item:
        block = self.blocks[id(component)]
        kind = component.name
        content = _content(component, kind, self.ours)
        label = f"{kind} {redact(content.splitlines()[0])[:60]!r}"  # an error line names it, never its secret
        for prop, error in getattr(component, "errors", []):
            if prop.upper() in self._CHECKED:  # a broken property we do not use is not worth failing for
                raise item_error(block, label, f"{block.where(prop.upper())} is not valid ({error})")
        status = _text(component, "STATUS").upper()
        item = Item(kind, block, label, _text(component, "UID"), status,
                     kind == "VTODO" and (status == "COMPLETED" or component.get("COMPLETED") is not None),
                     content, _importance_of(_first(component.get("PRIORITY"))),
                     _text(component, "CLASS").upper() in ("PRIVATE", "CONFIDENTIAL"))
        when = self.reader.when
        start = when(component, "DTSTART", block, label)
        if kind == "VEVENT" and start is None:
            raise item_error(block, label, "an event needs a DTSTART")
        end = when(component, "DTEND" if kind == "VEVENT" else "DUE", block, label)
        duration = _first(component.get("DURATION"))
        if duration is not None:
            if not isinstance(getattr(duration, "dt", None), timedelta):
                raise item_error(block, label, f"{block.where('DURATION')} is not a duration ({_raw(duration)!r})")
            if end is None and start is not None:
                end = _When(start.wall + duration.dt, start.zone, start.zone_name, start.all_day)
        due = end if kind == "VTODO" else None
        item.due = due
        item.modified = _stamp(component)
        item.anchor = start or due
        if item.anchor is None:
            return item
        recurrence_id = when(component, "RECURRENCE-ID", block, label)
        if recurrence_id is not None:
            item.recurrence_id = recurrence_id.wall_in(item.anchor)
        rule = _first(component.get("RRULE"))
        if rule is not None:
            item.rule = item.rule_as_written = self.rule_text(rule, item)
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

    def alarm_offsets(self, component: Any, item: Item, start: _When | None, end: _When | None) -> list[timedelta]:
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
                raise item_error(block, f"VALARM of {item.label}",
                           f"{block.where('TRIGGER')} is not a duration or a date-time ({_raw(trigger)!r})")
        return offsets

    def rule_text(self, rule: Any, item: Item) -> str:
        """The RRULE as we store it: hourly to yearly, UNTIL as wall-clock time in the anchor's zone.

        (memory.time.rules expands rules from a naive DTSTART, and dateutil refuses a UTC UNTIL
        beside a naive DTSTART; wall-clock UNTIL means the same there.)
        """
        block = item.block
        if _is_broken(rule):
            raise item_error(block, item.label, f"{block.where('RRULE')} is not a valid rule ({_raw(rule)!r})")
        parts = parse_rule(_raw(rule))
        if parts.get("FREQ") not in ALLOWED_FREQ:
            raise item_error(block, item.label, f"{block.where('RRULE')}: FREQ={parts.get('FREQ')} is not a reminder "
                                          "rule (hourly to yearly)")
        until = parts.get("UNTIL")
        if until:
            try:
                wall = parse_rule_time(until)
                if "T" not in until:  # a date: an all-day series ends with that day, a timed one at its end
                    wall = datetime.combine(wall.date(), time(0) if item.anchor.all_day else time(23, 59, 59))  # type: ignore[union-attr]
                elif until.endswith("Z"):
                    wall = wall.replace(tzinfo=UTC).astimezone(item.anchor.zone).replace(tzinfo=None)  # type: ignore[union-attr]
            except ValueError:
                raise item_error(block, item.label, f"{block.where('RRULE')}: UNTIL={until} is not a date") from None
            parts["UNTIL"] = format_rule_time(wall)
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


def _shifted_rule(item: Item, happens: timedelta) -> str:
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


def read_calendar(text: str, user_zone: tzinfo, as_written: bool = False) -> tuple[list[Item], bool]:
    """Every VEVENT/VTODO of an iCalendar text, read; (items, whether we wrote the file). `as_written`: each
    item's text is SUMMARY and DESCRIPTION exactly as written, as for our own file (a CalDAV sync compares
    it with what it sent).

    Raises ImportFailed naming the line where the offending component starts.
    """
    from icalendar import Calendar

    text = text.lstrip("\ufeff")
    blocks = scan(text)
    try:
        calendars = Calendar.from_ical(text, multiple=True)
    except ValueError as exc:  # the structure passed our scan, so this is a value icalendar cannot read
        raise unreadable(text, blocks, exc) from None
    # icalendar keeps components in file order, depth first: pair them with the blocks we found.
    queue = iter(blocks)
    where: dict[int, Block] = {}

    def pair(component: Any) -> None:
        where[id(component)] = next(queue, blocks[0])
        for sub in component.subcomponents:
            pair(sub)

    items: list[Item] = []
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
        reader = _ComponentReader(_Reader(user_zone, zone), where, ours or as_written)
        items += [reader.read(c) for c in calendar.subcomponents if c.name in ("VEVENT", "VTODO")]
    return items, ours
