"""SPEC section 3: natural-language due dates in the user's zone, stored in UTC."""
from __future__ import annotations

from datetime import datetime, time

import pytest

from memory.errors import DateParseError
from memory.time.due_phrases import parse_due
from memory.time.instants import UTC
from memory.time.zones import zone_from_name

SUNDAY_14 = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)


def local(phrase: str, now: datetime = SUNDAY_14, zone: str = "UTC") -> str:
    tz = zone_from_name(zone)
    return parse_due(phrase, now, tz).astimezone(tz).strftime("%Y-%m-%d %H:%M")


@pytest.mark.parametrize("phrase, expected", [
    ("tomorrow at 3pm", "2026-11-23 15:00"),
    ("in 2 hours", "2026-11-22 16:00"),
    ("in 90 minutes", "2026-11-22 15:30"),
    ("in an hour", "2026-11-22 15:00"),
    ("friday 10am", "2026-11-27 10:00"),
    ("friday at 10", "2026-11-27 10:00"),
    ("tonight at 8", "2026-11-22 20:00"),
    ("tonight", "2026-11-22 20:00"),
    ("this evening", "2026-11-22 18:00"),
    ("this afternoon", "2026-11-22 14:00"),
    ("tomorrow morning", "2026-11-23 09:00"),
    ("tomorrow evening at 7", "2026-11-23 19:00"),
    ("tomorrow at noon", "2026-11-23 12:00"),
    ("next week", "2026-11-29 14:00"),  # a duration: seven days from now, same time
    ("tomorrow", "2026-11-23 09:00"),  # a day without a clock time: the morning (issue 22)
    ("monday", "2026-11-23 09:00"),
    ("dec 1", "2026-12-01 09:00"),
    ("december 1st at 9am", "2026-12-01 09:00"),
    ("at 9am", "2026-11-23 09:00"),  # already past today: the future is preferred
    ("at 6pm", "2026-11-22 18:00"),
    ("next tuesday at 7pm", "2026-11-24 19:00"),
    ("in 3 days", "2026-11-25 14:00"),
    ("2026-12-01T09:00:00+00:00", "2026-12-01 09:00"),
    ("2026-12-01 09:00", "2026-12-01 09:00"),
    # Bare clock times are the next such time, today or tomorrow (issue 11).
    ("12:45", "2026-11-23 12:45"),
    ("15:30", "2026-11-22 15:30"),
    ("at 5", "2026-11-22 17:00"),  # 05:00 has passed; 17:00 is next
    ("at 17:05", "2026-11-22 17:05"),
    ("5pm", "2026-11-22 17:00"),
    ("at 09:00", "2026-11-23 09:00"),  # a leading zero is a 24-hour time
    ("at 2", "2026-11-23 02:00"),  # 14:00 is now, not after it: the next is 02:00
    # Days without a clock time are due at the default time, 09:00; durations keep the time (issue 22).
    ("on friday", "2026-11-27 09:00"),
    ("on sunday", "2026-11-29 09:00"),  # said on a Sunday: the next one
    ("the day after tomorrow", "2026-11-24 09:00"),
    ("next friday", "2026-11-27 09:00"),
    ("today", "2026-11-22 09:00"),  # has passed: kept, due at once (see test_reminders)
    ("in a week", "2026-11-29 14:00"),
    ("a week from now", "2026-11-29 14:00"),
    ("3 days from now", "2026-11-25 14:00"),
    ("in 2 weeks", "2026-12-06 14:00"),
    ("next month", "2026-12-22 14:00"),
    # Near misses that must still work.
    ("at 9", "2026-11-22 21:00"),
    ("tomorrow at 9.30", "2026-11-23 09:30"),
    ("tomorrow at 0:00", "2026-11-23 00:00"),
    ("in 2 days at 10", "2026-11-24 10:00"),
    ("friday at 10:30am", "2026-11-27 10:30"),
    ("tomorrow morning at 7", "2026-11-23 07:00"),
    # A month without a day is its first (a newcomer's "in June 2028" was Jun 6, today's day); a time with a dot
    # and am/pm is that time (their "6.30pm" was read as part of the task).
    ("in June 2028", "2028-06-01 09:00"),
    ("in march", "2027-03-01 09:00"),
    ("december 2027", "2027-12-01 09:00"),
    ("in a month", "2026-12-22 14:00"),
    ("tomorrow at 6.30pm", "2026-11-23 18:30"),
])
def test_phrases_in_utc(phrase: str, expected: str) -> None:
    assert local(phrase) == expected


def test_other_zone_is_wall_clock_and_stored_utc() -> None:
    # 14:00 UTC is 09:00 in New York (EST, UTC-5).
    due = parse_due("tomorrow at 3pm", SUNDAY_14, zone_from_name("America/New_York"))
    assert due.isoformat() == "2026-11-23T20:00:00+00:00"
    naive_iso = parse_due("2026-12-01T09:00", SUNDAY_14, zone_from_name("Asia/Tokyo"))
    assert naive_iso.isoformat() == "2026-12-01T00:00:00+00:00"


def test_dst_change_wall_clock_day_and_exact_hours() -> None:
    berlin = zone_from_name("Europe/Berlin")
    before = datetime(2026, 10, 24, 8, 0, tzinfo=UTC)  # Sat 10:00 CEST (UTC+2); DST ends Sun 25 Oct
    assert parse_due("tomorrow at 9am", before, berlin).isoformat() == "2026-10-25T08:00:00+00:00"  # CET
    night = datetime(2026, 10, 24, 23, 30, tzinfo=UTC)  # Sun 01:30 CEST
    assert parse_due("in 2 hours", night, berlin).isoformat() == "2026-10-25T01:30:00+00:00"
    spring = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)  # the night of 29 Mar skips 02:00-03:00
    assert parse_due("tomorrow at 2:30am", spring, berlin).astimezone(berlin).hour == 3


@pytest.mark.parametrize("phrase", ["when pigs fly", "", "2", "the twelfth of never", "at 25:00", "13pm", "24:10",
                                    # impossible clock times were read as another time (issue 22)
                                    "tomorrow at 12:99", "tomorrow at 111:00", "12:99", "25:00", "tomorrow 25:00",
                                    "12:99 tomorrow", "tomorrow at 7:60", "tomorrow at 9:5", "tomorrow at 111",
                                    "tomorrow at 1530", "friday at 10:99am"])
def test_unparseable_names_the_phrase(phrase: str) -> None:
    with pytest.raises(DateParseError) as info:
        parse_due(phrase, SUNDAY_14, UTC)
    assert repr(phrase) in str(info.value)


def test_hours_are_exact_durations_across_dst() -> None:
    """Issue 13: "in 2 h" was an hour off across the October change (wall-clock arithmetic)."""
    berlin = zone_from_name("Europe/Berlin")
    night = datetime(2026, 10, 24, 23, 30, tzinfo=UTC)  # Sun 01:30 CEST, an hour before the change
    for phrase in ("in 2 h", "in 2 hours", "in 2h", "in 120 min", "in 120m"):
        assert parse_due(phrase, night, berlin).isoformat() == "2026-10-25T01:30:00+00:00", phrase


@pytest.mark.parametrize("phrase", ["in 9999999999 hours", "0001-01-01", "9999-12-31T23:59:59", "1969-12-31T10:00"])
def test_out_of_range_instants_are_refused(phrase: str) -> None:
    with pytest.raises(DateParseError) as info:
        parse_due(phrase, SUNDAY_14, zone_from_name("Asia/Tokyo"))
    assert "out of range" in str(info.value) or "too far" in str(info.value)


def test_a_huge_phrase_is_not_echoed_whole() -> None:
    with pytest.raises(DateParseError) as info:
        parse_due("x" * 1_000_000, SUNDAY_14, UTC)
    assert len(str(info.value)) < 200


def test_posix_tz_string_is_understood(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from memory.time.zones import system_zone

    monkeypatch.setenv("TZ", "<+0330>-3:30")
    try:
        zone = system_zone()
        assert SUNDAY_14.astimezone(zone).strftime("%H:%M") == "17:30"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_day_without_a_clock_time_is_due_in_the_morning_not_now() -> None:
    """Issue 22: "bring the laptop charger tomorrow" said at 23:18 was due at 23:18."""
    late = datetime(2026, 11, 22, 23, 18, tzinfo=UTC)
    assert local("tomorrow", late) == "2026-11-23 09:00"
    assert local("on friday", late) == "2026-11-27 09:00"
    assert local("in 3 days", late) == "2026-11-25 23:18"  # a duration keeps the clock time
    assert local("next week", late) == "2026-11-29 23:18"
    berlin = zone_from_name("Europe/Berlin")  # the morning of the user's zone, not of UTC
    assert parse_due("tomorrow", late, berlin).isoformat() == "2026-11-24T08:00:00+00:00"  # Tue 09:00 CET


def test_the_default_time_is_the_callers() -> None:
    def at_730(phrase: str) -> str:
        return parse_due(phrase, SUNDAY_14, UTC, time(7, 30)).strftime("%Y-%m-%d %H:%M")

    assert at_730("tomorrow") == "2026-11-23 07:30"
    assert at_730("tomorrow at 6pm") == "2026-11-23 18:00"
    assert at_730("tomorrow morning") == "2026-11-23 09:00"  # "morning" is its own convention
    assert at_730("in 3 days") == "2026-11-25 14:00"


@pytest.mark.parametrize("phrase", ["tomorrow " * 5000, "in 2 hours" + " " * 200 + "x", "x" * 201])
def test_a_phrase_over_200_characters_is_refused(phrase: str) -> None:
    with pytest.raises(DateParseError, match="longer than 200 characters"):
        parse_due(phrase, SUNDAY_14, UTC)
    parse_due(("tomorrow at 9am " + " " * 200)[:200], SUNDAY_14, UTC)  # 200 is still a phrase
