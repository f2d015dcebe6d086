"""SPEC F5 temporal references: detection and resolution against each memory's own timestamp."""
from __future__ import annotations

from datetime import datetime

import pytest

from memory.time.references import asks_when, detect_temporal_references, resolve_temporal_reference

MAY8 = datetime(2023, 5, 8, 13, 56)  # a Monday

LABELLED = [  # (reference, memory timestamp, expected date)
    ("yesterday", MAY8, "2023-05-07"), ("today", MAY8, "2023-05-08"), ("tomorrow", MAY8, "2023-05-09"),
    ("the day before", MAY8, "2023-05-07"), ("the day after", MAY8, "2023-05-09"),
    ("the day before yesterday", MAY8, "2023-05-06"), ("the day after tomorrow", MAY8, "2023-05-10"),
    ("2 days ago", MAY8, "2023-05-06"), ("10 days ago", MAY8, "2023-04-28"), ("a day ago", MAY8, "2023-05-07"),
    ("3 weeks ago", MAY8, "2023-04-17"), ("a week ago", MAY8, "2023-05-01"), ("two weeks ago", MAY8, "2023-04-24"),
    ("2 months ago", MAY8, "2023-03-08"), ("a month ago", MAY8, "2023-04-08"), ("6 months ago", MAY8, "2022-11-08"),
    ("a year ago", MAY8, "2022-05-08"), ("3 years ago", MAY8, "2020-05-08"), ("in 3 days", MAY8, "2023-05-11"),
    ("last week", MAY8, "2023-05-01"), ("this week", MAY8, "2023-05-08"), ("next week", MAY8, "2023-05-15"),
    ("last month", MAY8, "2023-04-01"), ("this month", MAY8, "2023-05-01"), ("next month", MAY8, "2023-06-01"),
    ("last year", MAY8, "2022-01-01"), ("this year", MAY8, "2023-01-01"),
    ("last friday", MAY8, "2023-05-05"), ("last monday", MAY8, "2023-05-01"), ("last sunday", MAY8, "2023-05-07"),
    ("next saturday", MAY8, "2023-05-13"), ("next monday", MAY8, "2023-05-15"), ("this friday", MAY8, "2023-05-12"),
    ("on tuesday", MAY8, "2023-05-02"), ("this morning", MAY8, "2023-05-08"), ("tonight", MAY8, "2023-05-08"),
    ("last night", MAY8, "2023-05-07"), ("this evening", MAY8, "2023-05-08"),
    ("yesterday", datetime(2024, 3, 1, 9), "2024-02-29"), ("a month ago", datetime(2023, 3, 31), "2023-02-28"),
    ("last friday", datetime(2023, 5, 12, 10), "2023-05-05"), ("2 days ago", datetime(2023, 1, 1), "2022-12-30"),
]



@pytest.mark.parametrize("ref, stamp, expected", LABELLED)
def test_resolution(ref, stamp, expected):
    assert resolve_temporal_reference(ref, stamp).date().isoformat() == expected


def test_seed_example_and_parts_of_day():
    refs = detect_temporal_references("Caroline went to the LGBTQ support group yesterday")
    assert refs == ["yesterday"]
    assert resolve_temporal_reference(refs[0], MAY8).date().isoformat() == "2023-05-07"
    assert resolve_temporal_reference("this morning", MAY8).hour == 9
    assert resolve_temporal_reference("this afternoon", MAY8).hour == 14
    assert resolve_temporal_reference("tonight", MAY8).hour == 20
    last_night = resolve_temporal_reference("last night", MAY8)
    assert (last_night.day, last_night.hour) == (7, 22)


def test_detection():
    text = "Two weeks ago I met Ana; last Friday we talked, and next week we meet again. Nothing else."
    assert detect_temporal_references(text) == ["Two weeks ago", "last Friday", "next week"]
    assert detect_temporal_references("I like tea") == []
    assert resolve_temporal_reference("someday", MAY8) is None


def test_asks_when():
    assert asks_when("When did I go to the support group?") and asks_when("how long ago did we move?")
    assert asks_when("What date was the dentist?") and not asks_when("where do I live")
