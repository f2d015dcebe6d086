"""The span of days a recap or an agenda asks about ("yesterday", "tomorrow", "on Friday", "last week",
"this weekend"), as instants: local midnights in the user's zone, from the one clock, computed here
in Python (SPEC section 3)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from memory.time.due_phrases import localize

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = r"(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|sday|nesday|rsday|urday)?"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_PHRASE = re.compile(
    rf"\b(?P<rel>the day (?:before yesterday|after tomorrow)|yesterday|today|tonight|"
    rf"this (?:morning|afternoon|evening)|last night|tomorrow|"
    rf"(?P<which>last|this|next|coming) (?P<unit>week|weekend)|(?:on )?(?:the )?weekend|"
    rf"(?P<wdwhich>last|this|next|coming|on)? ?(?P<wd>{_DAY})\b|"
    rf"(?:on )?(?P<mon>{'|'.join(_MONTHS)})[a-z]* (?P<mday>\d{{1,2}})(?:st|nd|rd|th)?)\b", re.I)


@dataclass(frozen=True)
class DaySpan:
    start: datetime  # UTC, inclusive
    end: datetime  # UTC, exclusive
    label: str  # "yesterday (Sat Nov 21)", "this weekend (Sat Nov 28 - Sun Nov 29)"

    def text(self) -> str:
        return self.label


def _weekday(token: str) -> int:
    token = token.lower()[:3]
    return [d[:3] for d in _DAYS].index(token)


def _day_label(day: date, today: date) -> str:
    return f"{day:%a %b} {day.day}" + ("" if day.year == today.year else f" {day.year}")


def day_span(text: str, now: datetime, zone: tzinfo, past: bool) -> DaySpan | None:
    """The days `text` names, or None. `past`: a recap (a bare weekday is the last one), else an
    agenda (the coming one)."""
    match = _PHRASE.search(text)
    if match is None:
        return None
    today = now.astimezone(zone).date()
    phrase = match.group(0).lower()
    first, days, name = today, 1, phrase.removeprefix("on ")
    if phrase in ("today", "tonight") or phrase.startswith("this ") and match.group("unit") is None:
        name = "today"
    elif phrase in ("yesterday", "last night"):
        first, name = today - timedelta(days=1), "yesterday"
    elif phrase == "the day before yesterday":
        first = today - timedelta(days=2)
    elif phrase == "tomorrow":
        first = today + timedelta(days=1)
    elif phrase == "the day after tomorrow":
        first = today + timedelta(days=2)
    elif match.group("unit") or "weekend" in phrase:
        unit = match.group("unit") or "weekend"
        if unit == "week" and not past and (match.group("which") or "").lower() == "this":
            return None  # an agenda for "this week" is the coming seven days, as "what's coming up" lists
        weekend_now = today.weekday() >= 5
        which = (match.group("which") or ("this" if weekend_now or not past else "last")).lower()
        monday = today - timedelta(days=today.weekday())
        step = {"last": -7, "this": 0, "next": 7, "coming": 7 if unit == "week" or weekend_now else 0}[which]
        if unit == "week":
            first, days = monday + timedelta(days=step), 7
        else:
            first, days = monday + timedelta(days=5 + step), 2
        name = f"{which} {unit}"
    elif match.group("wd"):
        target = _weekday(match.group("wd"))
        which = (match.group("wdwhich") or "on").lower()
        ahead = (target - today.weekday()) % 7
        behind = (today.weekday() - target) % 7
        if which == "last":
            first = today - timedelta(days=behind or 7)
        elif which == "next":
            first = today + timedelta(days=ahead or 7)
        elif past:
            first = today - timedelta(days=behind)
        else:
            first = today + timedelta(days=ahead)
        name = f"on {_DAYS[target].capitalize()}"
    else:
        month = _MONTHS.index(match.group("mon").lower()[:3]) + 1
        try:
            first = date(today.year, month, int(match.group("mday")))
        except ValueError:
            return None
        if past and first > today:
            first = first.replace(year=first.year - 1)
        elif not past and first < today:
            first = first.replace(year=first.year + 1)
        name = "on"
    last = first + timedelta(days=days - 1)
    shown = _day_label(first, today) if days == 1 else f"{_day_label(first, today)} - {_day_label(last, today)}"
    label = f"on {shown}" if name == "on" else f"{name} ({shown})"
    start = localize(datetime.combine(first, time(0)), zone)
    end = localize(datetime.combine(first + timedelta(days=days), time(0)), zone)
    return DaySpan(start, end, label)
