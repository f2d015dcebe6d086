"""Relative time in remembered text (SPEC F5, reasoned recall).

`detect_temporal_references` finds phrases such as "yesterday", "3 weeks ago", "last Friday";
`resolve_temporal_reference` turns one into a date relative to the memory's own timestamp
("Caroline went to the support group yesterday", recorded 8 May 2023 -> 7 May 2023).
"""
from __future__ import annotations

import re
from datetime import datetime, time, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
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
_ASKS_WHEN = re.compile(r"^\W*(when\b|what (date|day|time|year|month)\b|which (day|date)\b|how long ago\b|"
                        r"how many (days|weeks|months|years) ago\b)", re.I)


def asks_when(text: str) -> bool:
    """A question about when something happened: answered with resolved dates."""
    return bool(_ASKS_WHEN.search(text))


def detect_temporal_references(text: str) -> list[str]:
    """The relative-time phrases in `text`, in order, as written."""
    return [m.group(0) for m in _PATTERN.finditer(text or "")]


def _months_back(moment: datetime, months: int) -> datetime:
    month = moment.month - 1 - months
    year = moment.year + month // 12
    month = month % 12 + 1
    day = min(moment.day, [31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30,
                           31, 31, 30, 31, 30, 31][month - 1])
    return moment.replace(year=year, month=month, day=day)


def resolve_temporal_reference(ref: str, memory_timestamp: datetime) -> datetime | None:
    """The instant `ref` meant when written at `memory_timestamp` (same zone); None if unknown.

    Day references keep the memory's clock time; parts of the day get their conventional hour
    (morning 09:00, afternoon 14:00, evening 18:00, tonight 20:00, last night 22:00 the day before);
    weeks resolve to their Monday; months and years to their first day.
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
        if match.group(1) in ("last", "on"):
            delta = delta - 7 if delta >= 0 else delta  # the most recent such day before the memory
        elif match.group(1) == "next":
            delta = delta + 7 if delta <= 0 else delta
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
        return base.replace(year=base.year + sign * n)
    return None
