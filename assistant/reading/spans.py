"""The span of days a recap or an agenda asks about ("yesterday", "tomorrow", "on Friday", "last week",
"this weekend", "this afternoon", "in December"), as instants: local midnights (or the hours of a part
of the day) in the user's zone, from the one clock, computed here in Python (SPEC section 3)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from memory.time import names
from memory.time.due_phrases import localize

_DAYS = names.WEEKDAYS
_DAY = r"(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|sday|nesday|rsday|urday)?"
_MONTHS = names.MONTH_SHORT
_PHRASE = re.compile(
    rf"\b(?P<rel>the day (?:before yesterday|after tomorrow)|yesterday|today|"
    rf"(?P<part>tonight|this (?:morning|afternoon|evening))|last night|tomorrow|"
    rf"(?P<mwhich>this|next|last) month|in (?P<month>{'|'.join(_MONTHS)})[a-z]*(?! \d)|"
    rf"(?P<which>last|this|next|coming) (?P<unit>week|weekend)|(?:on )?(?:the )?weekend|"
    rf"(?P<wdwhich>last|this|next|coming|on)? ?(?P<wd>{_DAY})\b|"
    rf"(?:on )?(?P<mon>{'|'.join(_MONTHS)})[a-z]* (?P<mday>\d{{1,2}})(?:st|nd|rd|th)?)\b", re.I)


# The hours of a part of the day ("this afternoon"), in local time: [start, end).
_PARTS = {"morning": (0, 12), "afternoon": (12, 17), "evening": (17, 24), "tonight": (17, 24)}


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
    if match.group("part"):
        hours = _PARTS[phrase.removeprefix("this ")]
        start = localize(datetime.combine(today, time(hours[0])), zone)
        end = localize(datetime.combine(today, time(0)) + timedelta(hours=hours[1]), zone)
        return DaySpan(start, end, f"{phrase} ({_day_label(today, today)})")
    if match.group("mwhich") or match.group("month"):
        return _month_span(match, today, zone, past)
    if phrase == "today":
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


def _month_span(match: re.Match[str], today: date, zone: tzinfo, past: bool) -> DaySpan:
    """ "in December" (the next December for an agenda, the last one for a recap), "this month", "next month"."""
    which = (match.group("mwhich") or "").lower()
    if which:
        month, year = today.month + {"last": -1, "this": 0, "next": 1}[which], today.year
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
        name = f"{which} month"
    else:
        month, year = _MONTHS.index(match.group("month").lower()[:3]) + 1, today.year
        if past and month > today.month:
            year -= 1
        elif not past and month < today.month:
            year += 1
        name = "in"
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    if which == "this" and not past:
        first = today  # what is left of this month
    shown = f"{first:%B}" + ("" if year == today.year else f" {year}")
    label = f"in {shown}" if name == "in" else f"{name} ({shown})"
    return DaySpan(localize(datetime.combine(first, time(0)), zone), localize(datetime.combine(following, time(0)),
                                                                               zone), label)
