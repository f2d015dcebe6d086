"""Natural-language due dates (SPEC section 3), resolved in the user's zone, stored in UTC.

dateparser finds the day; the time of day is read here, because dateparser gets bare hours
("at 8") and parts of the day ("tonight") wrong, and ignores times that do not exist ("12:99").
Conventions when a phrase names no clock time: morning 09:00, afternoon 14:00, evening 18:00,
tonight 20:00, noon 12:00; a day ("tomorrow", "on Friday", "dec 1", "this weekend": its Saturday,
"end of the month": its last day, "the 12th") is due at the default time (the caller's
`default_time`, 09:00 unless configured), never at the current clock time; a
duration ("in 3 days", "in a week", "next week") keeps the clock time. Offsets in minutes or hours
are added to the UTC instant, so they stay exact across a DST change; everything else is
wall-clock time in the user's zone. A phrase over MAX_PHRASE characters is refused unread.
"""
from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, tzinfo

from memory.errors import DateParseError, InvalidInput
from memory.time import names
from memory.time.instants import MAX_YEAR, MIN_YEAR, UTC, check_instant, parse_iso

DEFAULT_TIME = time(9, 0)  # a day without a clock time: the morning, as "tomorrow morning" is
MAX_PHRASE = 200  # characters: longer is a paste, not a date, and would cost the parsers seconds
PARTS_OF_DAY = {"morning": 9, "afternoon": 14, "evening": 18, "tonight": 20, "night": 20}
LATE_PARTS = {"afternoon", "evening", "tonight", "night"}
_NAMED_TIMES = {"noon": (12, 0), "midday": (12, 0), "midnight": (0, 0)}
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "half an": 0.5}

# Offsets in hours and minutes are exact durations, added in UTC: "in 2 h" at 01:30 on the night
# DST ends is 03:30 UTC later by the clock on the wall, not by the wall clock's numbers.
_OFFSET = re.compile(r"^in\s+(\d+(?:\.\d+)?|an?|one|two|three|half an)\s*"
                     r"(minutes?|mins?|m|hours?|hrs?|hr|h)$")
# "6:30pm", and "6.30pm" as the British write it (a newcomer's reminder went off 9.5 hours early).
_AMPM = re.compile(r"\b(?:at\s+)?(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?=\s|$|[,.!?])")
# A clock time: "17:05", or "at 9.30" (with a dot only after "at": "1.12.2026" is a date).
_CLOCK = re.compile(r"\b(?:at\s+)?(\d+):(\d+)\b|\bat\s+(\d+)\.(\d\d)\b(?!\.)")
_AT_HOUR = re.compile(r"\bat\s+(\d+)\b(?![:.\-/]\d)(?!\s*(?:st|nd|rd|th|days?|weeks?|months?|hours?|minutes?)\b)")
# Durations keep the clock time; everything else without one is a day, due at the default time.
_COUNT = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)"
_DURATION = re.compile(rf"(?:in|after) {_COUNT} (?:days?|weeks?|months?|years?)|in a fortnight|"
                       rf"{_COUNT} (?:days?|weeks?|months?|years?) (?:from now|from today|later|hence)|"
                       r"next (?:week|month|year)|a (?:week|month|year|fortnight) from (?:now|today)")
_NAMED = re.compile(r"\b(?:at\s+)?(noon|midday|midnight)\b")
PART = re.compile(r"\b(?:this\s+|in\s+the\s+|at\s+)?(morning|afternoon|evening|tonight|night)\b")


def looks_like_iso(text: str) -> bool:
    return bool(re.match(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$", text.strip(),
                         re.I))


def take_time(text: str) -> tuple[str, tuple[int, int] | None, bool]:
    """Remove the clock time from `text`; returns (rest, (hour, minute) or None, has_meridiem)."""
    match = _AMPM.search(text)
    if match:
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise ValueError("no such time of day")
        pm = match.group(3).startswith("p")
        hour = hour % 12 + (12 if pm else 0)
        return text[:match.start()] + text[match.end():], (hour, minute), True
    match = _CLOCK.search(text)
    if match:
        hours, minutes = match.group(1) or match.group(3), match.group(2) or match.group(4)
        if len(hours) > 2 or int(hours) > 23 or len(minutes) != 2 or int(minutes) > 59:
            raise ValueError("no such time of day")
        return text[:match.start()] + text[match.end():], (int(hours), int(minutes)), False
    match = _AT_HOUR.search(text)
    if match:
        if len(match.group(1)) > 2 or int(match.group(1)) > 23:
            raise ValueError("no such time of day")
        return text[:match.start()] + text[match.end():], (int(match.group(1)), 0), False
    match = _NAMED.search(text)
    if match:
        return text[:match.start()] + text[match.end():], _NAMED_TIMES[match.group(1)], True
    return text, None, False


def impossible_time(text: str) -> str | None:
    """The clock time written in `text` that no day has ("at 25:00", "13pm", "9:75"), as written; None when
    there is none (take_time's reading, which refuses it)."""
    try:
        take_time(text)
    except ValueError:
        for pattern in (_AMPM, _CLOCK, _AT_HOUR):  # in take_time's order: the first found is the one refused
            match = pattern.search(text)
            if match:
                return match.group(0).strip()
    return None


def _clean(text: str) -> str:
    text = re.sub(r"\b(on|at|by|the|this)\b\s*$", "", text.strip())
    text = re.sub(r"^\s*(on|at|by)\b", "", text)
    return re.sub(r"\s+", " ", text).strip(" ,")


def check_phrase_length(phrase: str) -> None:
    """A due phrase is a few words: over MAX_PHRASE characters it is refused before any parser runs."""
    if len(phrase) > MAX_PHRASE:
        raise DateParseError(phrase, f"longer than {MAX_PHRASE} characters")


def check_not_empty(phrase: str) -> None:
    """A due phrase says a date: an empty one ("", "   ") is refused as one that cannot be read. Called
    first by whoever was given a date that must be there (a --due flag, a snooze), since the writers
    take "" for "no date" (a model's tool call leaves an unused argument empty)."""
    if not phrase.strip():
        raise DateParseError(phrase, "empty")


def parse_due(phrase: str, now: datetime, zone: tzinfo, default_time: time = DEFAULT_TIME) -> datetime:
    """Resolve a due-date phrase to an aware UTC datetime, preferring the future; a day without a
    clock time is due at `default_time`.

    Raises DateParseError naming the phrase when it cannot be understood.
    """
    check_phrase_length(phrase)
    check_not_empty(phrase)
    text = " ".join(phrase.strip().lower().split())
    if looks_like_iso(text):
        try:
            return parse_iso(phrase, zone)
        except InvalidInput as exc:
            why = "out of range" if "out of range" in str(exc) else "not a valid ISO 8601 date"
            raise DateParseError(phrase, why) from exc

    offset = _OFFSET.match(text)
    if offset:
        raw = offset.group(1)
        amount = _NUMBER_WORDS[raw] if raw in _NUMBER_WORDS else float(raw)
        unit = timedelta(minutes=1) if offset.group(2).startswith("m") else timedelta(hours=1)
        if amount > timedelta(days=365 * 200) / unit:  # compared before multiplying, which overflows
            raise DateParseError(phrase, "too far away")
        try:
            return _checked(phrase, (now.astimezone(UTC) + amount * unit).replace(microsecond=0))
        except OverflowError:
            raise DateParseError(phrase, "too far away") from None

    bare = re.fullmatch(r"(?:at\s+)?(\d{1,2})(?::([0-5]\d))?", text)
    if bare and (":" in text or text.startswith("at")):
        return _next_clock_time(phrase, int(bare.group(1)), int(bare.group(2) or 0), bare.group(1), now, zone)
    if re.fullmatch(r"[\d\s./:-]+", text):
        raise DateParseError(phrase, "a bare number is not a date")

    try:
        rest, clock_time, meridiem = take_time(text)
    except ValueError as exc:
        raise DateParseError(phrase, str(exc)) from exc
    part_match = PART.search(rest)
    part = part_match.group(1) if part_match else None
    if part_match:
        day_word = "today" if part == "tonight" else ""
        rest = rest[:part_match.start()] + f" {day_word} " + rest[part_match.end():]
    rest = _clean(rest)

    local_now = now.astimezone(zone).replace(tzinfo=None)
    named = _named_day(rest, local_now, clock_time or (default_time.hour, default_time.minute))
    if rest in ("", "today"):
        day = local_now
    elif named is not None:
        day = datetime.combine(named, time(0))
    else:
        import dateparser  # slow import: only when a phrase really needs it

        # The base is already local wall time; naming a zone keeps dateparser from asking tzlocal for
        # the machine's, which fails on a POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0") or a bad TZ.
        # A month named without a day is its first ("in June 2028": a newcomer's came out on today's day of it,
        # Jun 6); "in a month", "next month" keep today's day.
        day = dateparser.parse(rest, languages=["en"], settings={
            "PREFER_DATES_FROM": "future", "RELATIVE_BASE": local_now, "TIMEZONE": "UTC", "TO_TIMEZONE": "UTC",
            "RETURN_AS_TIMEZONE_AWARE": False,
            "PREFER_DAY_OF_MONTH": "first" if _MONTH_ALONE.fullmatch(rest) else "current"})
        if day is None:
            raise DateParseError(phrase)

    if clock_time is not None:
        hour, minute = clock_time
        if not meridiem and part in LATE_PARTS and hour < 12:
            hour += 12
        wall = datetime.combine(day.date(), time(hour, minute))
    elif part is not None:
        wall = datetime.combine(day.date(), time(PARTS_OF_DAY[part], 0))
    elif _DURATION.fullmatch(rest):  # "in 3 days", "next week": the same time, that much later
        wall = datetime.combine(day.date(), local_now.time().replace(second=0, microsecond=0))
    elif re.search(r"\b(hours?|minutes?|mins?)\b", rest):
        wall = day.replace(second=0, microsecond=0)
    else:  # a day: "tomorrow", "friday", "dec 1"
        wall = datetime.combine(day.date(), default_time)

    if rest == "" and part is None and wall <= local_now:
        wall += timedelta(days=1)  # "at 9am" said at 14:00 means tomorrow
    try:
        return _checked(phrase, localize(wall, zone))
    except OverflowError:
        raise DateParseError(phrase, "too far away") from None


_MONTH_NAMES = names.MONTH_SHORT
_DAY_NAMES = names.WEEKDAY_SHORT
_MONTH = rf"(?P<month>{'|'.join(_MONTH_NAMES)})[a-z]*\.?"
_CALENDAR_DAY = re.compile(rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<year>\d{{4}}))?|"
                           rf"(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH.replace('month', 'month2')}"
                           r"(?:,?\s+(?P<year2>\d{4}))?")
_MONTH_ALONE = re.compile(rf"(?:(?:in|during|by|early|for|of)\s+)*{_MONTH}(?:\s+(?:of\s+)?\d{{4}})?", re.I)
_WEEKDAY = re.compile(rf"(?:next\s+)?(?P<name>{'|'.join(_DAY_NAMES)})(?:day|s|sday|nesday|rsday|urday|\.)?")
_WEEKEND = re.compile(r"(?:(?:this|the|over the|at the|during the|on the|for the)\s+)?(?P<next>next\s+)?weekend")
_MONTH_END = re.compile(r"(?:the\s+)?(?:end|last day) of (?:the |this )?(?P<next>next )?month|month[\s-]end")
_MONTH_START = re.compile(r"(?:the\s+)?(?:start|beginning|first day) of (?:the )?next month")
_WEEK_END = re.compile(r"(?:the\s+)?end of (?:the |this )?(?P<next>next )?week")
_ORDINAL = re.compile(r"(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)(?:\s+of\s+(?:the |this )?(?P<next>next )?month)?")


def _named_day(rest: str, local_now: datetime, clock: tuple[int, int]) -> date | None:
    """The day of a phrase dateparser reads wrongly or not at all: "this weekend" (its Saturday, or
    Sunday once Saturday's time has passed), "next weekend" (the Saturday a week later, as an agenda
    reads it), "end of the month" (its last day), "start of next month", "end of the week" (Friday),
    "the 12th" (the next 12th of a month); and, read here as dateparser reads them but without loading it
    (half a second in a fresh process), "Dec 10" / "10 December" (the next one after today) and
    "Tuesday" / "next Tuesday" (the next one after today)."""
    today = local_now.date()
    match = _CALENDAR_DAY.fullmatch(rest)
    if match:
        month = _MONTH_NAMES.index((match.group("month") or match.group("month2"))[:3]) + 1
        day_of_month = int(match.group("day") or match.group("day2"))
        year = match.group("year") or match.group("year2")
        try:
            if year:
                return date(int(year), month, day_of_month)
            found = date(today.year, month, day_of_month)
            return found if found > today else date(today.year + 1, month, day_of_month)
        except ValueError:
            raise DateParseError(rest, "no such day") from None
    match = _WEEKDAY.fullmatch(rest)
    if match:
        ahead = (_DAY_NAMES.index(match.group("name")) - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)
    match = _WEEKEND.fullmatch(rest)
    if match:
        saturday = today + timedelta(days=5 - today.weekday())  # this week's: yesterday, on a Sunday
        if match.group("next"):
            return saturday + timedelta(days=7)
        if today.weekday() == 5 and local_now.time() >= time(*clock):
            return today + timedelta(days=1)
        return max(saturday, today)
    match = _MONTH_END.fullmatch(rest)
    if match:
        first = date(today.year, today.month, 1)
        if match.group("next"):
            first = _next_month(first)
        return _next_month(first) - timedelta(days=1)
    if _MONTH_START.fullmatch(rest):
        return _next_month(date(today.year, today.month, 1))
    match = _WEEK_END.fullmatch(rest)
    if match:
        friday = today + timedelta(days=(4 - today.weekday()) % 7)
        return friday + timedelta(days=7) if match.group("next") else friday
    match = _ORDINAL.fullmatch(rest)
    if match:
        wanted = int(match.group("day"))
        first = date(today.year, today.month, 1)
        if match.group("next"):
            first = _next_month(first)
        for _ in range(13):  # the 31st: the next month that has one
            try:
                day = first.replace(day=wanted)
            except ValueError:
                first = _next_month(first)
                continue
            if day > today or day == today and local_now.time() < time(*clock) or match.group("next"):
                return day
            first = _next_month(first)
        raise DateParseError(rest, "no month has that day")
    return None


def _next_month(first: date) -> date:
    return date(first.year + first.month // 12, first.month % 12 + 1, 1)


def _checked(phrase: str, moment: datetime) -> datetime:
    try:
        return check_instant(moment)
    except InvalidInput:
        raise DateParseError(phrase, f"out of range (years {MIN_YEAR} to {MAX_YEAR})") from None


def _next_clock_time(phrase: str, hour: int, minute: int, written: str, now: datetime, zone: tzinfo) -> datetime:
    """A bare clock time ("12:45", "at 5") is the next such time, today or tomorrow.

    An hour from 1 to 11 written without a leading zero may mean either half of the day ("at 5"
    said at 14:00 means 17:00), so the nearer of the two is taken.
    """
    if hour > 23:
        raise DateParseError(phrase, "no such time of day")
    hours = [hour, hour + 12] if 1 <= hour <= 11 and not written.startswith("0") else [hour]
    local_now = now.astimezone(zone).replace(tzinfo=None)
    candidates = []
    for h in hours:
        wall = datetime.combine(local_now.date(), time(h, minute))
        candidates.append(wall if wall > local_now else wall + timedelta(days=1))
    return localize(min(candidates), zone)


def localize(wall: datetime, zone: tzinfo) -> datetime:
    """Attach the zone to a wall-clock time.

    An ambiguous time (DST ends) is its first occurrence; a time skipped when DST starts moves
    forward past the gap (02:30 on a spring-forward night becomes 03:30).
    """
    candidates = [wall.replace(tzinfo=zone, fold=fold).astimezone(UTC) for fold in (0, 1)]
    real = [c for c in candidates if c.astimezone(zone).replace(tzinfo=None) == wall]
    return (min(real) if real else max(candidates)).replace(microsecond=0)
