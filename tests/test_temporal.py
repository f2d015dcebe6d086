"""SPEC F5 temporal references: detection and resolution against each memory's own timestamp."""
from __future__ import annotations

import json
from datetime import datetime

import pytest

from memory.time.references import (
    MAX_REFERENCES,
    annotate,
    asks_when,
    detect_temporal_references,
    granularity_of,
    resolve_temporal_reference,
    unit_of,
)
from tests.conftest import present

MAY8 = datetime(2023, 5, 8, 13, 56)  # a Monday


def resolved(ref: str, stamp: datetime) -> datetime:
    """The instant `ref` names, said at `stamp` (the test expects one)."""
    return present(resolve_temporal_reference(ref, stamp))

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
    ("on tuesday", MAY8, "2023-05-09"),  # no statement around it: a plan ("Dentist on Tuesday"), the coming one
    ("this morning", MAY8, "2023-05-08"), ("tonight", MAY8, "2023-05-08"),
    ("last night", MAY8, "2023-05-07"), ("this evening", MAY8, "2023-05-08"),
    ("yesterday", datetime(2024, 3, 1, 9), "2024-02-29"), ("a month ago", datetime(2023, 3, 31), "2023-02-28"),
    ("last friday", datetime(2023, 5, 12, 10), "2023-05-05"), ("2 days ago", datetime(2023, 1, 1), "2022-12-30"),
]



@pytest.mark.parametrize("ref, stamp, expected", LABELLED)
def test_resolution(ref: str, stamp: datetime, expected: str) -> None:
    assert resolved(ref, stamp).date().isoformat() == expected


def test_seed_example_and_parts_of_day() -> None:
    refs = detect_temporal_references("Caroline went to the LGBTQ support group yesterday")
    assert refs == ["yesterday"]
    assert resolved(refs[0], MAY8).date().isoformat() == "2023-05-07"
    assert resolved("this morning", MAY8).hour == 9
    assert resolved("this afternoon", MAY8).hour == 14
    assert resolved("tonight", MAY8).hour == 20
    last_night = resolved("last night", MAY8)
    assert (last_night.day, last_night.hour) == (7, 22)


def test_detection() -> None:
    text = "Two weeks ago I met Ana; last Friday we talked, and next week we meet again. Nothing else."
    assert detect_temporal_references(text) == ["Two weeks ago", "last Friday", "next week"]
    assert detect_temporal_references("I like tea") == []
    assert resolve_temporal_reference("someday", MAY8) is None


def test_asks_when() -> None:
    assert asks_when("When did I go to the support group?") and asks_when("how long ago did we move?")
    assert asks_when("What date was the dentist?") and not asks_when("where do I live")


MONDAY = datetime(2026, 11, 23, 10, 0)
# A bare weekday follows the tense of its statement (SPEC F5): (statement written on a Monday, date).
TENSES = [
    ("I have a dentist appointment on Friday", "2026-11-27"),  # issue 22: was last Friday
    ("The dentist is on Friday", "2026-11-27"), ("I have the offsite on Thursday", "2026-11-26"),
    ("We're meeting Bob on Wednesday", "2026-11-25"), ("I will call her on Sunday", "2026-11-29"),
    ("Dentist on Friday", "2026-11-27"), ("I'm so excited about the party on Saturday", "2026-11-28"),
    ("Remind me to pay rent on Tuesday", "2026-11-24"), ("I booked a table on Friday", "2026-11-27"),
    ("I went to the dentist on Friday", "2026-11-20"), ("We had sushi on Friday", "2026-11-20"),
    ("On Friday I went hiking", "2026-11-20"), ("Bob visited on Saturday", "2026-11-21"),
    ("I was tired on Sunday", "2026-11-22"), ("It rained on Tuesday", "2026-11-17"),
    ("I have been to the gym on Thursday", "2026-11-19"), ("We met on Monday", "2026-11-16"),
    # Two clauses: each weekday by its own verb.
    ("I went to the gym on Monday, but on Friday I have physio", "2026-11-27"),
    ("We are meeting on Friday. Yesterday I called him.", "2026-11-27"),
    # Explicit words win over the tense.
    ("I went there last Friday", "2026-11-20"), ("I have a meeting next Friday", "2026-11-27"),
]


@pytest.mark.parametrize("statement, expected", TENSES)
def test_a_bare_weekday_follows_the_tense(statement: str, expected: str) -> None:
    """The last weekday named in the statement resolves to `expected`."""
    weekdays = [r for r in annotate(statement, MONDAY) if r["text"].lower().split()[-1].endswith("day")
                and r["text"].lower() != "yesterday"]
    assert weekdays[-1]["date"] == expected
    if "but on Friday" in statement:
        assert weekdays[0]["date"] == "2026-11-16"  # "I went to the gym on Monday": the last Monday


@pytest.mark.parametrize("ref, granularity", [
    ("yesterday", "day"), ("last night", "day"), ("this evening", "day"), ("on friday", "day"), ("tomorrow", "day"),
    ("the day before", "day"), ("3 days ago", "day"), ("in 3 days", "day"), ("last week", "week"),
    ("two weeks ago", "week"), ("a few weeks ago", "week"), ("next week", "week"), ("last month", "month"),
    ("a couple of months ago", "month"), ("6 months ago", "month"), ("this year", "year"), ("3 years ago", "year"),
])
def test_granularity(ref: str, granularity: str) -> None:
    assert granularity_of(ref) == granularity


@pytest.mark.parametrize("ref", ["yesterday", "last week", "two weeks ago", "last month", "6 months ago", "in 3 years",
                                 "this year", "tonight", "next month", "a day ago"])
def test_dateparser_and_the_units_agree_where_both_read_the_phrase(ref: str) -> None:
    """granularity_of is dateparser's period; unit_of is kept for the phrases dateparser cannot read."""
    from dateparser.date import DateDataParser

    data = DateDataParser(languages=["en"]).get_date_data(ref)
    assert data.date_obj is not None and data.period == unit_of(ref)


def test_a_megabyte_of_relative_dates_stores_a_bounded_list() -> None:
    """Issue 20: a 1.9 MB message of relative dates stored 7.2 MB of time_refs."""
    text = "yesterday we met, last week I went out, 3 days ago it rained and next friday is the party. " * 21000
    refs = annotate(text, MONDAY)
    assert len(refs) == MAX_REFERENCES and refs[0] == {"text": "yesterday", "date": "2026-11-22", "granularity": "day"}
    assert len(json.dumps(refs)) < 4000
    assert annotate("x " * 50_000 + "yesterday", MONDAY) == []  # past the characters read
