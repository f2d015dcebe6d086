"""Relative time in remembered text (SPEC F5, reasoned recall).

`detect_temporal_references` finds phrases such as "yesterday", "3 weeks ago", "last Friday";
`resolve_temporal_reference` turns one into a date relative to the memory's own timestamp
("Caroline went to the support group yesterday", recorded 8 May 2023 -> 7 May 2023). A bare weekday
follows the tense of its statement: "the dentist is on Friday" is the coming Friday, "we had sushi
on Friday" the last one (`tense_of`). `resolve_in_text` does all three for a whole text, reading at
most MAX_SCANNED characters and keeping at most MAX_REFERENCES, so a pasted megabyte of dates
stores a few kilobytes, not megabytes, and every later prompt stays fast.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache

from dateutil.relativedelta import relativedelta

from memory.time import names
from memory.time.clock import Clock

WEEKDAYS = names.WEEKDAYS
_NUM = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a few": 3, "a couple of": 2}
_PARTS = {"this morning": 9, "this afternoon": 14, "this evening": 18, "tonight": 20}
_WD = "|".join(WEEKDAYS)

_PATTERN = re.compile(
    rf"\b(the day before yesterday|the day after tomorrow|the day before|the day after|yesterday|today|tomorrow|"
    rf"tonight|last night|this (?:morning|afternoon|evening|week|month|year)|"
    rf"(?:last|next|this) (?:week|month|year|{_WD})|"
    rf"{_NUM} (?:days?|weeks?|months?|years?) ago|in {_NUM} (?:days?|weeks?|months?|years?)|"
    rf"on (?:{_WD}))\b", re.I)
MAX_SCANNED = 20_000  # characters of one text read for references (a long paste: its beginning)
MAX_REFERENCES = 40  # references kept per text

# The tense of a statement, read from its verbs: what decides which Friday "on Friday" is. A past
# form ("went", "had", "was", "have been", "-ed") makes it the last one; anything else (a plan, the
# present, the future, no verb at all: "Dentist on Friday") the coming one. Verbs of arranging
# ("booked", "scheduled") speak of a plan though they end in -ed, and an -ed word after a form of
# "be" ("I'm excited", "it was booked") takes that verb's tense.
_PLAN_WORDS = (r"scheduled|booked|planned|arranged|invited|supposed|expected|due|will|shall|'ll|gonna|going|is|are|"
               r"am|'m|'re|'s|have|has|do|does|can|need|needs|want|wants|plan|plans|let's|should|must")
_PAST_WORDS = (r"(?:have|has|'ve)\s+(?:been|gone|had|done|seen|met|\w+ed)|went|was|were|had|did|got|saw|met|made|"
               r"took|came|ate|drank|bought|paid|spent|left|ran|sat|gave|told|said|heard|felt|found|lost|won|"
               r"wrote|drove|flew|rode|swam|sang|spoke|broke|forgot|caught|taught|fought|sent|built|sold|stood|"
               r"wore|threw|knew|grew|drew|became|chose|fell|held|kept|slept|began|brought|thought|ago|yesterday")
_PAST_ED = (r"(?!(?:need|bed|red|shed|seed|feed|speed|weed|breed|proceed|exceed|succeed|indeed|hundred|sacred|wicked|"
            r"naked)\b)\w{2,}ed")
# Tried in this order at each word: "have been" is past before "have" is a plan, "booked" a plan
# before it is any -ed word.
_TENSE = re.compile(rf"\b(?:(?P<past>{_PAST_WORDS})|(?P<plan>{_PLAN_WORDS})|(?P<ed>{_PAST_ED}))\b", re.I)
_AFTER_BE = re.compile(r"\b(?:am|is|are|was|were|be|been|being|'m|'re|'s|get|gets|got|feel|feels|felt)\s+(?:\w+\s+)?$",
                       re.I)
_CLAUSE_END = re.compile(r"[.!?;\n]|\bbut\b", re.I)
_TENSE_WINDOW = 300  # characters either side of a reference searched for its clause


def tense_of(text: str, start: int, end: int) -> str:
    """"past" or "plan": the tense of the clause around the reference text[start:end], from the
    tense word nearest to it (a word after "be" defers to it); "plan" when the clause has none."""
    low = max(0, start - _TENSE_WINDOW)
    before = [m.end() for m in _CLAUSE_END.finditer(text, low, start)]
    clause_start = before[-1] if before else low
    after = _CLAUSE_END.search(text, end, min(len(text), end + _TENSE_WINDOW))
    clause_end = after.start() if after else min(len(text), end + _TENSE_WINDOW)
    best: tuple[int, str] | None = None
    for match in _TENSE.finditer(text, clause_start, clause_end):
        if match.start() >= start and match.end() <= end:
            continue
        if match.group("ed") and _AFTER_BE.search(text, max(clause_start, match.start() - 40), match.start()):
            continue
        distance = start - match.end() if match.end() <= start else match.start() - end
        if best is None or distance < best[0]:
            best = (distance, "plan" if match.group("plan") else "past")
    return best[1] if best else "plan"


_ASKS_WHEN = re.compile(r"^\W*(when\b|what (date|day|time|year|month)\b|which (day|date)\b|how long ago\b|"
                        r"how many (days|weeks|months|years) ago\b)", re.I)


def asks_when(text: str) -> bool:
    """A question about when something happened: answered with resolved dates."""
    return bool(_ASKS_WHEN.search(text))


def detect_temporal_references(text: str) -> list[str]:
    """The relative-time phrases in `text`, in order, as written."""
    return [m.group(0) for m in _PATTERN.finditer(text or "")]


def _months_back(moment: datetime, months: int) -> datetime:
    back: datetime = moment - relativedelta(months=months)  # clamps to the month's last day (Mar 31 - 1 month = Feb 28)
    return back


def resolve_temporal_reference(ref: str, memory_timestamp: datetime, tense: str = "plan") -> datetime | None:
    """The instant `ref` meant when written at `memory_timestamp` (same zone); None if unknown.

    Day references keep the memory's clock time; parts of the day get their conventional hour
    (morning 09:00, afternoon 14:00, evening 18:00, tonight 20:00, last night 22:00 the day before);
    weeks resolve to their Monday; months and years to their first day. A bare weekday ("on
    Friday") is the coming one, or with tense="past" (see tense_of) the last one.
    """
    text = " ".join(ref.lower().split())
    base = memory_timestamp
    day = timedelta(days=1)
    simple = {"today": base, "yesterday": base - day, "tomorrow": base + day, "the day before": base - day,
              "the day after": base + day, "the day before yesterday": base - 2 * day,
              "the day after tomorrow": base + 2 * day}
    if text in simple:
        return simple[text]
    if text in _PARTS:
        return datetime.combine(base.date(), time(_PARTS[text]), base.tzinfo)
    if text == "last night":
        return datetime.combine((base - day).date(), time(22), base.tzinfo)
    monday = datetime.combine((base - timedelta(days=base.weekday())).date(), time(0), base.tzinfo)
    if text in ("this week", "last week", "next week"):
        return monday + timedelta(weeks={"this week": 0, "last week": -1, "next week": 1}[text])
    first = datetime.combine(base.date().replace(day=1), time(0), base.tzinfo)
    if text in ("this month", "last month", "next month"):
        return {"this month": first, "last month": _months_back(first, 1), "next month": _months_back(first, -1)}[text]
    if text in ("this year", "last year", "next year"):
        return first.replace(month=1, year=base.year + {"this year": 0, "last year": -1, "next year": 1}[text])
    match = re.fullmatch(rf"(last|next|this|on) ({_WD})", text)
    if match:
        target = WEEKDAYS.index(match.group(2))
        delta = target - base.weekday()
        if match.group(1) == "last" or (match.group(1) == "on" and tense == "past"):
            delta = delta - 7 if delta >= 0 else delta  # the most recent such day before the memory
        elif match.group(1) in ("next", "on"):
            delta = delta + 7 if delta <= 0 else delta  # the coming one, after the memory's day
        return base + timedelta(days=delta)
    match = re.fullmatch(rf"(in )?{_NUM} (day|week|month|year)s? ?(ago)?", text)
    if match:
        n = _NUMBERS.get(match.group(2), None) or int(match.group(2))
        sign = 1 if match.group(1) else -1
        unit = match.group(3)
        if unit == "day":
            return base + sign * n * day
        if unit == "week":
            return base + sign * timedelta(weeks=n)
        if unit == "month":
            return _months_back(base, -sign * n)
        later: datetime = base + relativedelta(years=sign * n)  # Feb 29 a year on is Feb 28
        return later
    return None


# How precisely a reference names its time: "yesterday" a day, "last week" a week, "last month" a month.
_WEEK_WORDS = re.compile(r"\bweeks?\b")
_MONTH_WORDS = re.compile(r"\bmonths?\b")
_YEAR_WORDS = re.compile(r"\byears?\b")
_MONTH_NAMES = tuple(name.title() for name in names.MONTHS)


@lru_cache(maxsize=512)
def granularity_of(ref: str) -> str:
    """How precisely `ref` names its time: day, week, month or year.

    dateparser's own reading of the phrase (DateDataParser.get_date_data().period) where it reads
    it, with its "time" (a clock time) counted as a day; where it reads nothing ("a few weeks ago",
    "a couple of months ago", "the day before"), the unit the phrase is counted in. The two agree on
    every phrase both read (tests/test_temporal.py holds the table).
    """
    text = " ".join(ref.lower().split())
    from dateparser.date import DateDataParser  # slow import: only once a text holds a reference

    data = DateDataParser(languages=["en"]).get_date_data(text)
    if data.date_obj is not None and data.period in ("day", "week", "month", "year", "time"):
        return "day" if data.period == "time" else data.period
    return unit_of(text)


def unit_of(text: str) -> str:
    """The unit a relative phrase counts in: "3 weeks ago" a week, "yesterday" a day."""
    if _YEAR_WORDS.search(text):
        return "year"
    if _MONTH_WORDS.search(text):
        return "month"
    if _WEEK_WORDS.search(text):
        return "week"
    return "day"


@dataclass(frozen=True)
class Resolved:
    """A relative reference resolved against when it was written, at the precision it was said."""

    text: str  # as written: "last month"
    moment: datetime  # the start of the period (a day keeps the writing's clock time)
    granularity: str  # day | week | month | year

    def iso(self) -> str:
        """"2026-11-08" (day), "2026-11-02" (the week's Monday), "2026-10" (month), "2022" (year)."""
        if self.granularity == "year":
            return f"{self.moment.year:04d}"
        if self.granularity == "month":
            return f"{self.moment.year:04d}-{self.moment.month:02d}"
        return self.moment.date().isoformat()

    def describe(self, this_year: int | None = None) -> str:
        """"Sun Nov 8", "the week of Nov 2", "October 2026", "2022"; the year when it is not this one."""
        m = self.moment
        year = "" if this_year == m.year else f" {m.year}"
        if self.granularity == "year":
            return f"{m.year}"
        if self.granularity == "month":
            return f"{_MONTH_NAMES[m.month - 1]} {m.year}"
        if self.granularity == "week":
            return f"the week of {m:%b} {m.day}{year}"
        return f"{m:%a %b} {m.day}{year}"

    def phrase(self, this_year: int | None = None) -> str:
        """As an answer says it: "on Sun Nov 8", "in the week of Nov 2", "in October 2026", "in 2022"."""
        return ("on " if self.granularity == "day" else "in ") + self.describe(this_year)


def resolve_reference(ref: str, memory_timestamp: datetime, tense: str = "plan") -> Resolved | None:
    """resolve_temporal_reference, with the precision the phrase carries."""
    moment = resolve_temporal_reference(ref, memory_timestamp, tense)
    if moment is None:
        return None
    return Resolved(ref, moment, granularity_of(ref))


def resolve_in_text(text: str, written_at: datetime) -> list[Resolved]:
    """The relative references in `text` resolved against `written_at` (local time), a bare weekday
    by the tense of its clause; the first MAX_REFERENCES in its first MAX_SCANNED characters."""
    found: list[Resolved] = []
    for match in _PATTERN.finditer(text or "", 0, MAX_SCANNED):
        ref = match.group(0)
        tense = tense_of(text, match.start(), match.end()) if ref.lower().startswith("on ") else "plan"
        resolved = resolve_reference(ref, written_at, tense)
        if resolved is not None:
            found.append(resolved)
            if len(found) >= MAX_REFERENCES:
                break
    return found


def annotate(text: str, written_at: datetime) -> list[dict[str, str]]:
    """The relative references in `text` resolved against `written_at` (local time), for storing
    beside the text: [{"text": "yesterday", "date": "2026-11-08", "granularity": "day"}]."""
    return [{"text": r.text, "date": r.iso(), "granularity": r.granularity} for r in resolve_in_text(text, written_at)]


def valid_ref(ref: object) -> bool:
    """Whether a time_refs entry is one this module wrote: {"text": str, "date": "YYYY[-MM[-DD]]",
    "granularity": str}. An import can carry anything; a reader skips what is not this."""
    if not isinstance(ref, dict) or not isinstance(ref.get("text"), str) or not ref["text"].strip():
        return False
    if not isinstance(ref.get("date"), str) or ref.get("granularity", "day") not in ("day", "week", "month", "year"):
        return False
    try:
        stored_resolution(ref)
    except (ValueError, TypeError, OverflowError):
        return False
    return True


def stored_resolution(ref: dict[str, str]) -> Resolved:
    """A time_refs entry back as a Resolved (its moment is the start of the period)."""
    parts = [int(p) for p in ref["date"].split("-")] + [1, 1]
    return Resolved(ref["text"], datetime(parts[0], parts[1], parts[2]), ref.get("granularity", "day"))


def with_dates(text: str, time_refs: list[dict[str, str]] | None, this_year: int | None = None) -> str:
    """`text` with each resolved reference followed by its date: "hiking yesterday [Sun Nov 8]"."""
    if not time_refs:
        return text
    out, position, lowered = [], 0, text.lower()
    for ref in time_refs:
        if not valid_ref(ref):
            continue
        found = lowered.find(ref["text"].lower(), position)
        if found < 0:
            continue
        end = found + len(ref["text"])
        out.append(f"{text[position:end]} [{stored_resolution(ref).describe(this_year)}]")
        position = end
    return "".join(out) + text[position:]


def time_refs_json(clock: Clock, text: str, written_at: str | None = None) -> str | None:
    """Relative dates in `text` resolved against when it was written (now unless given), as stored."""
    moment = clock.local(written_at or clock.now())
    refs = annotate(text, moment.replace(tzinfo=None))
    return json.dumps(refs) if refs else None


# -- time named in text, for search ----------------------------------------------------------------

_MONTHS = {name.lower(): number for number, name in enumerate(_MONTH_NAMES, start=1)}
_MONTHS |= {name[:3]: number for name, number in list(_MONTHS.items())} | {"sept": 9}
_MONTH = rf"({names.alternation(names.MONTHS, names.MONTH_SHORT, names.MONTH_SPELLINGS)})\.?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
# "October 13, 2023", "13 October 2023", "the 13th of October", "in March 2023", "March 2023", "in June",
# "in 2022". "May" alone is a verb as often as a month: it counts only with a day or a year, or after in/of.
_NAMED_DAY = re.compile(rf"\b(?:{_MONTH} {_ORDINAL}\b(?:,? {_YEAR})?|{_ORDINAL} (?:of )?{_MONTH}(?:,? {_YEAR})?)", re.I)
_NAMED_MONTH = re.compile(rf"\b(?:(?:in|during|of|since|early|late|mid|mid-|around|by) {_MONTH}(?:,? {_YEAR})?"
                          rf"|{_MONTH},? {_YEAR})\b", re.I)
_NAMED_YEAR = re.compile(rf"\b(?:in|during|of|since|around|by) {_YEAR}\b", re.I)
# Phrases that say when beyond the relative ones above: weekdays ("last Fri"), weekends, named months
# and years, durations ("for 3 years", "two weekends ago").
# ("May", "sat", "sun" and "wed" are left out: they are words as often as dates.)
_TIME_WORDS = re.compile(rf"\b(?:{_WD}|tue|tues|thu|thurs|fri|weekends?|january|february|march|april|june|july|"
                         rf"august|september|october|november|december|jan|feb|jun|jul|aug|sept|oct|nov|dec|"
                         rf"(?:19|20)\d\d|"
                         rf"{_NUM} (?:days?|nights?|weeks?|weekends?|months?|years?)|ago|recently|lately|"
                         rf"(?:last|next|this|that) (?:time|summer|winter|spring|fall|autumn))\b", re.I)


@dataclass(frozen=True)
class NamedPeriod:
    """A day, month, season or year a text names outright ("on October 13, 2023", "in March", "in 2022",
    "last spring"); year None: that month (and day) of any year. A season is `months` (3) from its first
    month (meteorological seasons of the northern hemisphere: spring from March, winter from December)."""

    year: int | None
    month: int | None = None
    day: int | None = None
    months: int = 1

    def start_and_end(self, year: int) -> tuple[datetime, datetime]:
        """The period as [start, end) in `year` (its own year when it names one)."""
        year = self.year or year
        if self.months > 1 and self.month is not None:
            start = datetime(year, self.month, 1)
            return start, start + relativedelta(months=self.months)
        if self.day is not None and self.month is not None:
            start = datetime(year, self.month, min(self.day, 28 if self.month == 2 else 30 if self.month in (
                4, 6, 9, 11) else 31))
            return start, start + timedelta(days=1)
        if self.month is not None:
            start = datetime(year, self.month, 1)
            return start, start + relativedelta(months=1)
        return datetime(year, 1, 1), datetime(year + 1, 1, 1)


_SEASON_STARTS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON = re.compile(r"\b(?:(last|this|past|previous)\s+)?(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?"
                     rf"{_YEAR})?\b", re.I)


def _season(match: re.Match[str], today: date | None) -> NamedPeriod | None:
    """ "last spring" (the latest one over by `today`), "this summer" (the one `today` is in, else this
    year's), "spring 2025", "in spring" (any year: None)."""
    which, name, year = match[1], match[2].lower(), match[3]
    start_month = _SEASON_STARTS[name]
    if year:
        return NamedPeriod(int(year), start_month, months=3)
    if not which:
        return NamedPeriod(None, start_month, months=3) if re.search(r"\b(?:in|during)\s+(?:the\s+)?$",
                                                                      match.string[:match.start()], re.I) else None
    if today is None:
        return None
    starts = [date(y, start_month, 1) for y in (today.year + 1, today.year, today.year - 1, today.year - 2)]
    spans = [(s, s + relativedelta(months=3)) for s in starts]
    if which.lower() == "this":
        current = [s for s, e in spans if s <= today < e] or [s for s, _ in spans if s.year == today.year]
        return NamedPeriod(current[0].year, start_month, months=3) if current else None
    over = [s for s, e in spans if e <= today]
    return NamedPeriod(over[0].year, start_month, months=3) if over else None


def named_periods(text: str, today: date | None = None) -> list[NamedPeriod]:
    """The days, months, seasons and years `text` names outright, in order, each once. `today` (the
    user's date) places "last spring" and "this summer"; without it they name no period."""
    found: list[NamedPeriod] = []
    taken: list[tuple[int, int]] = []

    def free(match: re.Match[str]) -> bool:
        return not any(a < match.end() and match.start() < b for a, b in taken)

    for match in _NAMED_DAY.finditer(text or ""):
        month_name, day, year = (match[1], match[2], match[3]) if match[1] else (match[5], match[4], match[6])
        if 1 <= int(day) <= 31:
            found.append(NamedPeriod(int(year) if year else None, _MONTHS[month_name.lower().rstrip(".")], int(day)))
            taken.append(match.span())
    for match in _NAMED_MONTH.finditer(text or ""):
        if free(match):
            month_name, year = (match[1], match[2]) if match[1] else (match[3], match[4])
            found.append(NamedPeriod(int(year) if year else None, _MONTHS[month_name.lower().rstrip(".")]))
            taken.append(match.span())
    for match in _SEASON.finditer(text or ""):
        season = _season(match, today)
        if season is not None and free(match):
            found.append(season)
            taken.append(match.span())
    for match in _NAMED_YEAR.finditer(text or ""):
        if free(match):
            found.append(NamedPeriod(int(match[1])))
    return list(dict.fromkeys(found))


def mentions_time(text: str) -> bool:
    """Whether `text` says when something happened or how long: a relative reference ("yesterday",
    "last week"), a weekday, a weekend, a month, a year, a duration ("for 3 years", "two weekends ago")."""
    return bool(_PATTERN.search(text or "") or _TIME_WORDS.search(text or ""))
