"""Recurring reminders (SPEC F1): an RFC 5545 rule with its start in the user's zone.

A rule is stored as the two lines a calendar would write, `DTSTART;TZID=<zone>:<local wall time>`
and `RRULE:<rule>`, so it round-trips through iCalendar unchanged. Occurrences come from
dateutil.rrule in local wall-clock time and are then attached to the zone, which keeps "every day
at 8" at 08:00 across a DST change. Phrases ("every Tuesday at 7pm") are read in two steps: the
time of day by our own conventions (memory.time.due_phrases), the day pattern by the `recurrent` package.
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Any

from dateutil.relativedelta import relativedelta

from memory.errors import DateParseError, InvalidInput
from memory.time import names
from memory.time.due_phrases import (
    DEFAULT_TIME,
    LATE_PARTS,
    PART,
    PARTS_OF_DAY,
    check_phrase_length,
    localize,
    take_time,
)
from memory.time.instants import MAX_YEAR, MIN_YEAR
from memory.time.zones import stored_zone, zone_from_stored, zone_name

# Words that make a due phrase a rule rather than one instant.
_RULE_WORDS = re.compile(r"\b(every|each|daily|weekly|monthly|yearly|annually|fortnightly|weekdays|weekends)\b")
MAX_SCAN = 5000  # occurrences looked at when excluded or moved ones are skipped
ALLOWED_FREQ = ("HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY")
# BY-parts and their allowed magnitudes (RFC 5545); INTERVAL and COUNT are checked on their own.
_RANGES = [("INTERVAL", 1, 1000), ("COUNT", 1, 100_000), ("BYMONTH", 1, 12), ("BYMONTHDAY", 1, 31),
           ("BYYEARDAY", 1, 366), ("BYWEEKNO", 1, 53), ("BYSETPOS", 1, 366), ("BYHOUR", 0, 23),
           ("BYMINUTE", 0, 59), ("BYSECOND", 0, 59), ("BYDAY", 0, 0)]
_SIGNED = {"BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS"}  # may count from the end
_KEY_ORDER = ("FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "WKST", "COUNT", "UNTIL")
_DAY_NAMES = {"MO": "Mon", "TU": "Tue", "WE": "Wed", "TH": "Thu", "FR": "Fri", "SA": "Sat", "SU": "Sun"}
_MONTH_NAMES = tuple(name.title() for name in names.MONTH_SHORT)  # "Jan" ... "Dec"
_ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last", -2: "second-to-last"}
_DAYS = " ".join(names.WEEKDAYS + names.WEEKDAY_SHORT + names.WEEKDAY_SPELLINGS)
_MONTHS = " ".join(names.MONTHS + names.MONTH_SHORT + names.MONTH_SPELLINGS)
_RULE_VOCABULARY = frozenset(
    "every each other day days week weeks month months year years hour hours weekday weekdays weekend weekends on "
    "the of and first second third fourth fifth last daily weekly monthly yearly".split()
    + _DAYS.split() + [d + "s" for d in _DAYS.split()] + _MONTHS.split())
_RULE_NUMBER = re.compile(r"([1-9]\d{0,2})(st|nd|rd|th)?")  # "2" (weeks), "15th" (of the month)
# Plain-English spellings recurrent does not know, rewritten before it reads the phrase.
_SYNONYMS = [
    (r"\bdaily\b", "every day"), (r"\bfortnightly\b", "every 2 weeks"), (r"\b(annually|yearly)\b", "every year"),
    (r"^(on )?weekdays$", "every weekday"), (r"^(on )?weekends$", "every weekend"),
    (r"\bevery (morning|afternoon|evening|night)\b", "every day"),
    # A day number before its month ("1 february"): recurrent drops the number and the rule takes
    # the day it was said, so it is put after the month, as in "february 1".
    (rf"\b([1-9]|[12]\d|3[01]) ({names.alternation(names.MONTHS, names.MONTH_SHORT, names.MONTH_SPELLINGS)})\b",
     r"\2 \1"),
]


def is_rule_phrase(phrase: str) -> bool:
    return bool(_RULE_WORDS.search(phrase.lower()))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def parse_rule(rule: str) -> dict[str, str]:
    """"FREQ=WEEKLY;BYDAY=TU" -> {"FREQ": "WEEKLY", "BYDAY": "TU"}; a value listed twice in a BY-list
    ("BYDAY=MO,MO,FR") is kept once."""
    parts = {}
    for item in rule.removeprefix("RRULE:").strip().split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            value = value.strip().upper()
            if "," in value:
                value = ",".join(dict.fromkeys(value.split(",")))
            parts[key.strip().upper()] = value
    return parts


def format_rule(parts: dict[str, str]) -> str:
    keys = [k for k in _KEY_ORDER if k in parts] + sorted(k for k in parts if k not in _KEY_ORDER)
    return ";".join(f"{k}={parts[k]}" for k in keys)


_RULE_TIME = re.compile(r"(\d{8})(?:T(\d{6}))?Z?")


def parse_rule_time(text: str) -> datetime:
    """An iCalendar DATE or DATE-TIME as DTSTART and UNTIL write it ("20261124T190000", "...Z", or
    "20261124" for its midnight), as a naive datetime; whether a trailing Z makes it UTC is the
    caller's to read. ValueError when it is neither."""
    match = _RULE_TIME.fullmatch(text.strip().upper())
    if match is None:
        raise ValueError(f"not an iCalendar date-time: {text[:40]!r}")
    return datetime.strptime(match.group(1) + (match.group(2) or "000000"), "%Y%m%d%H%M%S")


def format_rule_time(moment: datetime) -> str:
    """The iCalendar form of a wall-clock time: "20261124T190000"."""
    return f"{moment:%Y%m%dT%H%M%S}"


# The Gregorian calendar repeats every 400 years to the weekday, leap days and week numbers included,
# so a rule moved 400*k years ahead follows the same pattern. dateutil iterates period by period and
# stops only at an occurrence or at year 9999: a rule with no occurrence left (Feb 30, or a BYSETPOS
# beyond every month's days) would be followed for 8,000 years. Iterated this far ahead, its end is
# where the kept years end (MAX_YEAR, plus less than one cycle).
_AHEAD_YEARS = (9999 - MAX_YEAR) // 400 * 400
_KNOWN_KEYS = {"FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"} | {key for key, _, _ in _RANGES}
# Where a frequency finer than monthly meets BY-parts that leave most of its periods empty, dateutil
# looks at every period in between: refused, with what RFC 5545 itself does not allow there.
_MONTHLY_OR_YEARLY_ONLY = ("BYSETPOS", "BYYEARDAY", "BYWEEKNO")
_DAY_LIMITS = ("BYMONTH", "BYMONTHDAY", "BYDAY")


def _ahead(moment: datetime) -> datetime:
    return moment.replace(year=moment.year + _AHEAD_YEARS)


def _back(moment: datetime) -> datetime:
    return moment.replace(year=moment.year - _AHEAD_YEARS)


def _start_near(start: datetime, parts: dict[str, str], near: datetime) -> datetime:
    """The same series seen from `near` on, with a later start: `start` moved forward by whole periods
    of the rule (hours to years times INTERVAL) to at most `near`, so that following it costs the same
    whether it began in 1970 or today. What dateutil takes from the start when the rule does not say
    it (the month and the day of the month) is written into `parts` first. Not for COUNT, which
    counts from the first occurrence."""
    if near <= start:
        return start
    freq, interval = parts["FREQ"], int(parts.get("INTERVAL", "1"))
    if not {"BYWEEKNO", "BYYEARDAY", "BYMONTHDAY", "BYDAY"} & set(parts):
        if freq == "YEARLY":
            parts.setdefault("BYMONTH", str(start.month))
            parts["BYMONTHDAY"] = str(start.day)
        elif freq == "MONTHLY":
            parts["BYMONTHDAY"] = str(start.day)
    if freq in ("HOURLY", "DAILY", "WEEKLY"):
        step = {"HOURLY": timedelta(hours=1), "DAILY": timedelta(days=1), "WEEKLY": timedelta(weeks=1)}[freq]
        step *= interval
        return start + (near - start) // step * step

    unit = interval * (12 if freq == "YEARLY" else 1)  # in months
    periods = ((near.year - start.year) * 12 + near.month - start.month) // unit - 1  # one early: day clamps
    return start + relativedelta(months=periods * unit) if periods > 0 else start


def _no_such_day(parts: dict[str, str]) -> bool:
    """BYMONTH and BYMONTHDAY that never meet (February 30th, April 31st)."""
    if "BYMONTH" not in parts or "BYMONTHDAY" not in parts:
        return False
    longest = {2: 29, 4: 30, 6: 30, 9: 30, 11: 30}
    days = [abs(int(d)) for d in parts["BYMONTHDAY"].split(",")]
    return not any(d <= longest.get(int(m), 31) for m in parts["BYMONTH"].split(",") for d in days)


@dataclass(frozen=True)
class Recurrence:
    rule: str  # RRULE value, e.g. "FREQ=WEEKLY;BYDAY=TU"
    start: datetime  # naive local wall-clock time of the first occurrence
    zone: str  # IANA zone name the wall-clock time is read in

    @classmethod
    def from_text(cls, text: str) -> Recurrence:
        """Read the stored two-line form (also accepts a DTSTART without TZID, read as UTC).

        Read here rather than by dateutil's rrulestr: a zone known only by its offset is stored as
        "UTC+03:30", and rrulestr splits "DTSTART;TZID=UTC+03:30:20261124T190000" at its first colon.
        """
        start, zone, rule = None, "UTC", None
        for line in text.strip().splitlines():
            line = line.strip()
            if line.upper().startswith("DTSTART"):
                head, _, value = line.rpartition(":")
                match = re.search(r"TZID=([^;]+)", head, re.I)
                if match:
                    zone = match.group(1)
                start = parse_rule_time(value)
            elif line.upper().startswith("RRULE:"):
                rule = format_rule(parse_rule(line))
        if start is None or rule is None:
            raise ValueError(f"not a stored recurrence: {text[:200]!r}")
        return cls(rule, start, zone)

    def to_text(self) -> str:
        return f"DTSTART;TZID={self.zone}:{format_rule_time(self.start)}\nRRULE:{self.rule}"

    def validate(self) -> Recurrence:
        """Raise ValueError naming the problem unless the rule is one we can follow in bounded time: a
        known frequency no finer than hourly (and no BYMINUTE or BYSECOND list that makes it finer),
        an interval from 1 to 1000 (dateutil loops forever on 0), BY-parts in range and where they
        leave no long runs of empty periods, and an occurrence within the years kept. Every rule
        entering the store passes here, its zone too (one it cannot read would run in UTC unsaid)."""
        try:
            stored_zone(self.zone)
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None
        parts = parse_rule(self.rule)
        freq = parts.get("FREQ")
        if freq not in ALLOWED_FREQ:
            raise ValueError(f"FREQ must be one of {', '.join(ALLOWED_FREQ)}, not {str(freq)[:20]!r}")
        unknown = sorted(set(parts) - _KNOWN_KEYS)
        if unknown:
            raise ValueError(f"{unknown[0][:20]} is not a rule part we follow")
        for key, low, high in _RANGES:
            for value in parts[key].split(",") if key in parts else []:
                if key == "BYDAY":
                    match = re.fullmatch(r"([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)", value)
                    if match and (not match.group(1) or (1 <= abs(int(match.group(1))) <= 53
                                                          and freq in ("MONTHLY", "YEARLY"))):
                        continue
                elif re.fullmatch(r"[+-]?\d{1,6}", value):
                    number = int(value)
                    if low <= abs(number) <= high and (number >= 0 or key in _SIGNED):
                        continue
                raise ValueError(f"{key}={parts[key][:40]} is out of range")
        if parts.get("WKST", "MO") not in _DAY_NAMES:
            raise ValueError(f"WKST={parts['WKST'][:20]} is not a day")
        for key in ("BYMINUTE", "BYSECOND"):
            if "," in parts.get(key, ""):
                raise ValueError(f"{key}={parts[key][:40]} repeats more often than every hour")
        if freq in ("HOURLY", "DAILY", "WEEKLY"):
            for key in _MONTHLY_OR_YEARLY_ONLY + (("BYMONTHDAY",) if freq == "WEEKLY" else ()):
                if key in parts:
                    raise ValueError(f"{key} is for monthly or yearly rules, not {freq.lower()} ones")
            if freq != "WEEKLY" and parts.get("INTERVAL", "1") != "1" and set(_DAY_LIMITS) & set(parts):
                raise ValueError(f"an interval of {parts['INTERVAL']} {'hours' if freq == 'HOURLY' else 'days'} "
                                 "with limits on the days cannot be followed")
        if _no_such_day(parts):
            raise ValueError(f"BYMONTH={parts['BYMONTH'][:40]} has no day {parts['BYMONTHDAY'][:40]}")
        if not MIN_YEAR <= self.start.year <= MAX_YEAR:
            raise ValueError(f"the start {self.start:%Y-%m-%d} is out of range")
        if "UNTIL" in parts:
            parse_rule_time(parts["UNTIL"])
        self.describe()
        first = self._rrule().after(_ahead(self.start), inc=True)
        if first is None or _back(first).year > MAX_YEAR:
            raise ValueError("the rule has no occurrence")
        return self

    def tz(self) -> tzinfo:
        return zone_from_stored(self.zone)

    def _rrule(self, near: datetime | None = None) -> Any:
        """dateutil's rule, iterated _AHEAD of the real dates (see _ahead); with `near` (naive wall
        time), started at most one period before it (see _start_near)."""
        from dateutil.rrule import rrulestr

        parts = parse_rule(self.rule)
        until = parts.get("UNTIL", "")
        if until:
            moment = parse_rule_time(until)
            if until.endswith("Z"):
                # Calendars write UNTIL in UTC; our start is local wall-clock time, and dateutil wants
                # both alike, so the end is read as the local time it is.
                moment = moment.replace(tzinfo=UTC).astimezone(self.tz()).replace(tzinfo=None)
            parts["UNTIL"] = format_rule_time(_ahead(min(moment, datetime(MAX_YEAR, 12, 31, 23, 59, 59))))
        start = self.start
        if near is not None and "COUNT" not in parts:
            start = _start_near(start, parts, near)
        return rrulestr(f"DTSTART:{format_rule_time(_ahead(start))}\nRRULE:{format_rule(parts)}")

    def next_wall_after(self, after: datetime) -> datetime | None:
        """The wall-clock time (naive, in the rule's zone) of the first occurrence strictly after the
        instant `after`; None when the series ended."""
        zone = self.tz()
        # Wall-clock iteration; an occurrence that lands in a DST gap or fold is attached by localize().
        cursor = after.astimezone(zone).replace(tzinfo=None) - timedelta(hours=3)
        cursor = max(cursor, datetime(MIN_YEAR - 1, 1, 1))
        rule = self._rrule(near=cursor)
        probe = _ahead(cursor)
        for _ in range(1000):
            ahead = rule.after(probe, inc=False)
            if ahead is None:
                return None
            wall = _back(ahead)
            if wall.year > MAX_YEAR:  # past the years the store keeps: the series ends
                return None
            if localize(wall, zone) > after:
                return wall
            probe = ahead
        return None

    def next_after(self, after: datetime) -> datetime | None:
        """The first occurrence strictly after the instant `after`, in UTC; None when the series ended."""
        wall = self.next_wall_after(after)
        return None if wall is None else localize(wall, self.tz())

    def instances_after(self, after: datetime) -> Iterator[datetime]:
        """Due instants after the instant `after`, in UTC; DTSTART counts even where the rule skips it
        (RFC 5545). At most MAX_SCAN of them, for callers that skip excluded or moved occurrences."""
        first = localize(self.start, self.tz())
        cursor = after
        if first > after:
            yield first
            cursor = first
        for _ in range(MAX_SCAN):
            following = self.next_after(cursor)
            if following is None:
                return
            yield following
            cursor = following

    def describe(self) -> str:
        """"every Tue", "every weekday", "every 2 weeks on Fri", "every month on the 1st"."""
        parts = parse_rule(self.rule)
        freq, interval = parts.get("FREQ", ""), int(parts.get("INTERVAL", "1") or 1)
        days = [d for d in parts.get("BYDAY", "").split(",") if d]
        if freq == "HOURLY":
            return "every hour" if interval == 1 else f"every {interval} hours"
        if freq == "DAILY":
            return "every day" if interval == 1 else f"every {interval} days"
        if freq == "WEEKLY":
            if not days:
                days = [list(_DAY_NAMES)[self.start.weekday()]]
            if set(days) == {"MO", "TU", "WE", "TH", "FR"}:
                names = "weekday"
            elif set(days) == {"SA", "SU"}:
                names = "weekend"
            else:
                names = " and ".join(_DAY_NAMES.get(d, d) for d in days)
            if interval == 1:
                return f"every {names}"
            return f"every {interval} weeks on {names}"
        if freq == "MONTHLY":
            every = "every month" if interval == 1 else f"every {interval} months"
            if parts.get("BYMONTHDAY"):
                monthdays = [int(d) for d in parts["BYMONTHDAY"].split(",")]
                return f"{every} on the " + " and ".join("last day" if d == -1 else _ordinal(d) for d in monthdays)
            if days:
                readable = []
                for d in days:
                    match = re.fullmatch(r"([+-]?\d+)?([A-Z]{2})", d)
                    if match and match.group(1):
                        n = int(match.group(1))
                        readable.append(f"{_ORDINAL_WORDS.get(n, _ordinal(n))} {_DAY_NAMES.get(match.group(2))}")
                    else:
                        readable.append(_DAY_NAMES.get(d, d))
                return f"{every} on the " + " and ".join(readable)
            return f"{every} on the {_ordinal(self.start.day)}"
        if freq == "YEARLY":
            every = "every year" if interval == 1 else f"every {interval} years"
            month = int(str(parts.get("BYMONTH", self.start.month)).split(",")[0])
            day = int(str(parts.get("BYMONTHDAY", self.start.day)).split(",")[0])
            return f"{every} on {_MONTH_NAMES[month - 1]} {day}"
        return f"repeats ({self.rule})"

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "text": self.describe(), "start": self.start.isoformat(), "zone": self.zone}


def _time_of_day(text: str) -> tuple[str, tuple[int, int] | None]:
    """Take the clock time or part of day out of a rule phrase: ("every tuesday", (19, 0))."""
    try:
        rest, clock_time, meridiem = take_time(text)
    except ValueError as exc:
        raise DateParseError(text, str(exc)) from exc
    part_match = PART.search(rest)
    if part_match:
        part = part_match.group(1)
        if clock_time is None:
            clock_time = (PARTS_OF_DAY[part], 0)
        elif not meridiem and part in LATE_PARTS and clock_time[0] < 12:
            clock_time = (clock_time[0] + 12, clock_time[1])
        # "every morning" keeps its rule word: it means every day.
        rest = rest[:part_match.start()] + ("day" if rest[:part_match.start()].rstrip().endswith("every")
                                            else "") + rest[part_match.end():]
    return " ".join(rest.replace(",", " ").split()), clock_time


def parse_recurrence(phrase: str, now: datetime, zone: tzinfo,
                     default_time: time = DEFAULT_TIME) -> tuple[Recurrence, datetime] | None:
    """A rule phrase as (Recurrence, first occurrence in UTC); None when the phrase is not a rule. A
    rule of days without a clock time ("every Monday", "every year on January 10") is due at
    `default_time`.

    Raises DateParseError naming the phrase when it looks like a rule that cannot be read.
    """
    text = " ".join(phrase.strip().lower().split())
    if not is_rule_phrase(text):
        return None
    check_phrase_length(phrase)
    rest, clock_time = _time_of_day(text)
    rest = re.sub(r"^(remind me\s+)?(starting\s+)?", "", rest)
    for pattern, replacement in _SYNONYMS:
        rest = re.sub(pattern, replacement, rest)
    rest = re.sub(r"\s+(at|on|by)$", "", rest).strip()
    twice = re.search(r"\b(\w+) \1\b", rest)
    if twice:  # "every every day", "monday monday": recurrent would read past it
        raise DateParseError(phrase, f"{twice.group(1)[:20]!r} is said twice")
    for word in rest.split():
        # recurrent skips words it does not know ("every day except tuesday" came out as every day):
        # every word must be one a rule is made of, or the phrase is refused.
        if not (word in _RULE_VOCABULARY or _RULE_NUMBER.fullmatch(word)):
            raise DateParseError(phrase, f"{word[:20]!r} is not understood in a repeating rule")
    local_now = now.astimezone(zone).replace(tzinfo=None, microsecond=0)


    from recurrent.event_parser import RecurringEvent  # slow import: only for rule phrases

    with warnings.catch_warnings():  # parsedatetime warns about its own flag style on every parse
        warnings.simplefilter("ignore")
        parsed = RecurringEvent(now_date=local_now).parse(rest)
    if not isinstance(parsed, str) or "RRULE:" not in parsed:
        raise DateParseError(phrase, "no repeating pattern found")
    lines = dict(line.split(":", 1) for line in parsed.splitlines() if ":" in line)
    parts = parse_rule(lines["RRULE"])
    for key in ("BYHOUR", "BYMINUTE", "BYSECOND"):
        parts.pop(key, None)  # the time of day is ours (recurrent reads "7:30" as 19:30)
    if parts.get("FREQ") not in ALLOWED_FREQ:
        raise DateParseError(phrase, "repeats more often than every hour")
    if parts.get("INTERVAL") == "1":
        parts.pop("INTERVAL")

    earliest = local_now
    if "DTSTART" in lines:  # "starting next month"
        earliest = max(earliest, parse_rule_time(lines["DTSTART"]) - timedelta(seconds=1))
    if parts["FREQ"] == "HOURLY":
        at = local_now.replace(second=0)
    else:
        at = datetime.combine(earliest.date(), time(*clock_time) if clock_time is not None else default_time)

    # The first occurrence is the next matching day, whatever the interval: "every 2 weeks on Friday"
    # said on a Sunday starts this Friday. The series is then anchored there (its DTSTART).
    dropped = ("COUNT", "UNTIL") if parts["FREQ"] == "HOURLY" else ("INTERVAL", "COUNT", "UNTIL")
    probe = {k: v for k, v in parts.items() if k not in dropped}
    first = Recurrence(format_rule(probe), at, zone_name(zone)).next_wall_after(
        localize(earliest, zone) if earliest > local_now else now)
    if first is None:
        raise DateParseError(phrase, "the rule has no future occurrence")
    # The series starts at the wall-clock time asked for, even when its first day skips it (a daily
    # 02:30 begun on the night clocks spring forward stays 02:30 on every later day).
    recurrence = Recurrence(format_rule(parts), first, zone_name(zone))
    try:
        recurrence.validate()
    except ValueError as exc:
        raise DateParseError(phrase, str(exc)) from None
    return recurrence, localize(first, zone)


