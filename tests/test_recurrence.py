"""SPEC F1 recurring reminders: rule phrases, occurrences in local wall-clock time, done/snooze/forget."""
from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memory import memories, reminders
from memory.errors import DateParseError
from memory.store import Store
from memory.time.clock import Clock
from memory.time.instants import UTC, parse_stored
from memory.time.rules import Recurrence, parse_recurrence
from memory.time.zones import zone_from_name
from memory.transfer.jsonl_export import export_records
from memory.transfer.jsonl_import import import_records
from tests.conftest import T0, fresh_store_file, present

SUNDAY_14 = T0  # Sun Nov 22 2026 14:00 UTC

# (phrase, rule, first occurrence local, human text): the phrasings and the ones people add.
PHRASES = [
    ("every Monday at 9am", "FREQ=WEEKLY;BYDAY=MO", "Mon 2026-11-23 09:00", "every Mon"),
    ("every day at 8", "FREQ=DAILY", "Mon 2026-11-23 08:00", "every day"),
    ("every weekday at 7:30", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "Mon 2026-11-23 07:30", "every weekday"),
    ("every 2 weeks on Friday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", "Fri 2026-11-27 09:00", "every 2 weeks on Fri"),
    ("on the 1st of every month at 10", "FREQ=MONTHLY;BYMONTHDAY=1", "Tue 2026-12-01 10:00", "every month on the 1st"),
    ("every year on March 3", "FREQ=YEARLY;BYMONTHDAY=3;BYMONTH=3", "Wed 2027-03-03 09:00", "every year on Mar 3"),
    ("every Tuesday at 7pm", "FREQ=WEEKLY;BYDAY=TU", "Tue 2026-11-24 19:00", "every Tue"),
    ("daily at 8am", "FREQ=DAILY", "Mon 2026-11-23 08:00", "every day"),
    ("every other tuesday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", "Tue 2026-11-24 09:00", "every 2 weeks on Tue"),
    ("every tuesday and thursday at 7pm", "FREQ=WEEKLY;BYDAY=TU,TH", "Tue 2026-11-24 19:00", "every Tue and Thu"),
    ("monthly on the 15th", "FREQ=MONTHLY;BYMONTHDAY=15", "Tue 2026-12-15 09:00", "every month on the 15th"),
    ("every last friday of the month", "FREQ=MONTHLY;BYDAY=-1FR", "Fri 2026-11-27 09:00",
     "every month on the last Fri"),
    ("every first monday of the month at 9", "FREQ=MONTHLY;BYDAY=1MO", "Mon 2026-12-07 09:00",
     "every month on the first Mon"),
    ("every weekend at 10am", "FREQ=WEEKLY;BYDAY=SA,SU", "Sat 2026-11-28 10:00", "every weekend"),
    ("every morning", "FREQ=DAILY", "Mon 2026-11-23 09:00", "every day"),
    ("every evening at 7", "FREQ=DAILY", "Sun 2026-11-22 19:00", "every day"),
    ("every weekday morning", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "Mon 2026-11-23 09:00", "every weekday"),
    ("each wednesday", "FREQ=WEEKLY;BYDAY=WE", "Wed 2026-11-25 09:00", "every Wed"),
    ("weekly on sunday", "FREQ=WEEKLY;BYDAY=SU", "Sun 2026-11-29 09:00", "every Sun"),
    ("fortnightly on monday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", "Mon 2026-11-23 09:00", "every 2 weeks on Mon"),
    ("every year on march 3 at noon", "FREQ=YEARLY;BYMONTHDAY=3;BYMONTH=3", "Wed 2027-03-03 12:00",
     "every year on Mar 3"),
    ("every 2 hours", "FREQ=HOURLY;INTERVAL=2", "Sun 2026-11-22 16:00", "every 2 hours"),
    # A day without a clock time is due at the default time, 09:00, never at the time it was said (issue 22).
    ("every monday", "FREQ=WEEKLY;BYDAY=MO", "Mon 2026-11-23 09:00", "every Mon"),
    ("every day", "FREQ=DAILY", "Mon 2026-11-23 09:00", "every day"),
    ("every year on January 10", "FREQ=YEARLY;BYMONTHDAY=10;BYMONTH=1", "Sun 2027-01-10 09:00", "every year on Jan 10"),
    ("every sunday", "FREQ=WEEKLY;BYDAY=SU", "Sun 2026-11-29 09:00", "every Sun"),  # today's 09:00 has passed
    # A day said twice is one day (a repeated phrase was stored as BYDAY=MO,MO,MO,...).
    ("every monday and friday and monday", "FREQ=WEEKLY;BYDAY=MO,FR", "Mon 2026-11-23 09:00", "every Mon and Fri"),
    ("every monday and every monday and friday", "FREQ=WEEKLY;BYDAY=MO,FR", "Mon 2026-11-23 09:00",
     "every Mon and Fri"),
    ("every hour", "FREQ=HOURLY", "Sun 2026-11-22 15:00", "every hour"),
]


@pytest.mark.parametrize("phrase, rule, first, text", PHRASES)
def test_rule_phrases(phrase: str, rule: str, first: str, text: str) -> None:
    recurrence, due = present(parse_recurrence(phrase, SUNDAY_14, UTC))
    assert recurrence.rule == rule
    assert f"{due:%a %Y-%m-%d %H:%M}" == first
    assert recurrence.describe() == text


@pytest.mark.parametrize("phrase", ["tomorrow at 9", "friday 10am", "in 2 hours", "2026-12-01T09:00"])
def test_one_off_phrases_are_not_rules(phrase: str) -> None:
    assert parse_recurrence(phrase, SUNDAY_14, UTC) is None


@pytest.mark.parametrize("phrase", ["every blue moon", "every minute", "every 5 seconds", "every every day",
                                    "every every every every day", "every monday monday", "every day at 12:99",
                                    "every day at 111:00"])
def test_unreadable_or_too_frequent_rules_are_errors_naming_the_phrase(phrase: str) -> None:
    with pytest.raises(DateParseError) as info:
        parse_recurrence(phrase, SUNDAY_14, UTC)
    assert repr(phrase) in str(info.value)


@pytest.mark.parametrize("phrase", ["every " + "monday and " * 3000 + "friday", "every day " + "x" * 200,
                                    "every " * 50 + "day"], ids=["30 KB of days", "201 characters", "every x50"])
def test_a_rule_phrase_over_200_characters_is_refused_unread(phrase: str) -> None:
    """Issue 22: a 30 KB rule phrase ran for minutes."""
    with pytest.raises(DateParseError, match="longer than 200 characters"):
        parse_recurrence(phrase, SUNDAY_14, UTC)


def occurrences(recurrence: Recurrence, after: datetime, n: int) -> list[datetime]:
    out = []
    for _ in range(n):
        after = present(recurrence.next_after(after))
        out.append(after)
    return out


def test_month_ends_and_leap_days() -> None:
    monthly = Recurrence("FREQ=MONTHLY;BYMONTHDAY=31", datetime(2027, 1, 31, 9), "UTC")
    days = [f"{d:%Y-%m-%d}" for d in occurrences(monthly, datetime(2027, 1, 1, tzinfo=UTC), 4)]
    assert days == ["2027-01-31", "2027-03-31", "2027-05-31", "2027-07-31"]  # months without a 31st are skipped
    last_day = Recurrence("FREQ=MONTHLY;BYMONTHDAY=-1", datetime(2027, 1, 31, 9), "UTC")
    days = [f"{d:%m-%d}" for d in occurrences(last_day, datetime(2027, 1, 1, tzinfo=UTC), 3)]
    assert days == ["01-31", "02-28", "03-31"]
    leap = Recurrence("FREQ=YEARLY;BYMONTHDAY=29;BYMONTH=2", datetime(2028, 2, 29, 9), "UTC")
    assert [d.year for d in occurrences(leap, datetime(2026, 11, 22, tzinfo=UTC), 2)] == [2028, 2032]


def test_every_day_at_8_stays_8_local_across_dst() -> None:
    berlin = zone_from_name("Europe/Berlin")
    before_autumn = datetime(2026, 10, 23, 12, 0, tzinfo=UTC)
    recurrence, first = present(parse_recurrence("every day at 8", before_autumn, berlin))
    days = occurrences(recurrence, before_autumn, 4)
    assert [f"{d.astimezone(berlin):%d %H:%M}" for d in days] == ["24 08:00", "25 08:00", "26 08:00", "27 08:00"]
    assert [d.hour for d in days] == [6, 7, 7, 7]  # UTC hour changes with the offset, local hour does not
    spring = Recurrence("FREQ=DAILY", datetime(2026, 3, 27, 2, 30), "Europe/Berlin")
    gap = occurrences(spring, datetime(2026, 3, 28, 12, 0, tzinfo=UTC), 2)
    assert f"{gap[0].astimezone(berlin):%d %H:%M}" == "29 03:30"  # 02:30 does not exist that night
    assert f"{gap[1].astimezone(berlin):%d %H:%M}" == "30 02:30"


def test_stored_text_round_trip() -> None:
    recurrence = Recurrence("FREQ=WEEKLY;BYDAY=TU", datetime(2026, 11, 24, 19), "Europe/Berlin")
    text = recurrence.to_text()
    assert text == "DTSTART;TZID=Europe/Berlin:20261124T190000\nRRULE:FREQ=WEEKLY;BYDAY=TU"
    assert Recurrence.from_text(text) == recurrence


@pytest.fixture
def berlin_store(tmp_path: Path) -> Iterator[Store]:
    s = Store(fresh_store_file(tmp_path / "m.db"), Clock(zone_from_name("Europe/Berlin"), SUNDAY_14))
    yield s
    s.close()


def test_done_moves_to_the_next_occurrence_and_keeps_when_each_was_done(store: Store) -> None:
    bins = memories.remember(store, "Take out the bins", due_at="every Tuesday at 7pm")
    assert bins.due_at == "2026-11-24T19:00:00+00:00" and bins.kind == "reminder"
    [item] = reminders.list_open_reminders(store)
    assert item.label == "[DUE Tue Nov 24 19:00, every Tue]"
    assert bins.to_json()["recurrence"] == {"rule": "FREQ=WEEKLY;BYDAY=TU", "text": "every Tue",
                                           "start": "2026-11-24T19:00:00", "zone": "UTC"}
    store.clock.fixed = datetime(2026, 11, 24, 19, 5, tzinfo=UTC)
    done = reminders.mark_done(store, bins.id)
    assert done.done_at is None and done.due_at == "2026-12-01T19:00:00+00:00" and done.reminded_at is None
    assert reminders.completions(store, bins.id) == [
        {"occurrence_at": "2026-11-24T19:00:00+00:00", "done_at": "2026-11-24T19:05:00+00:00"}]
    store.clock.fixed = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # done early: the following Tuesday
    assert reminders.mark_done(store, bins.id).due_at == "2026-12-08T19:00:00+00:00"


def test_done_days_late_does_not_land_in_the_past(store: Store) -> None:
    pills = memories.remember(store, "Take the pills", due_at="every day at 8")
    store.clock.fixed = datetime(2026, 11, 26, 7, 0, tzinfo=UTC)  # three days missed
    assert reminders.mark_done(store, pills.id).due_at == "2026-11-26T08:00:00+00:00"


def test_snooze_moves_only_this_occurrence(store: Store) -> None:
    bins = memories.remember(store, "Take out the bins", due_at="every Tuesday at 7pm")
    snoozed = reminders.snooze(store, bins.id, "2026-11-25T08:00:00+00:00")
    assert snoozed.due_at == "2026-11-25T08:00:00+00:00" and snoozed.recurrence == bins.recurrence
    store.clock.fixed = datetime(2026, 11, 25, 8, 30, tzinfo=UTC)
    assert reminders.mark_done(store, bins.id).due_at == "2026-12-01T19:00:00+00:00"  # the rule, not the snooze


def test_forget_ends_the_series(store: Store) -> None:
    bins = memories.remember(store, "Take out the bins", due_at="every Tuesday at 7pm")
    reminders.mark_done(store, bins.id)
    memories.forget(store, bins.id)
    assert reminders.list_open_reminders(store, 365) == []
    assert store.one("SELECT count(*) FROM reminder_completions")[0] == 0


def test_undo_of_done_on_a_series_restores_the_occurrence(store: Store) -> None:
    from memory import changes

    bins = memories.remember(store, "Take out the bins", due_at="every Tuesday at 7pm")
    with changes.recorded(store, bins.id, "done"):
        reminders.mark_done(store, bins.id)
    restored = present(present(changes.undo_last_change(store)).memory)
    assert restored.due_at == bins.due_at and restored.occurrence_at == bins.occurrence_at
    assert reminders.completions(store, bins.id) == []


def test_a_series_that_ends_is_done_for_good(store: Store) -> None:
    knowledge_id = memories.remember(store, "Physio", due_at="every Tuesday at 7pm").id
    store.execute("UPDATE knowledge SET recurrence = ? WHERE id = ?",
                  ("DTSTART;TZID=UTC:20261124T190000\nRRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=1", knowledge_id))
    assert reminders.mark_done(store, knowledge_id).done_at is not None


def test_local_wall_clock_in_the_users_zone(berlin_store: Store) -> None:
    bins = memories.remember(berlin_store, "Bins", due_at="every Tuesday at 7pm")
    assert bins.due_at == "2026-11-24T18:00:00+00:00"  # 19:00 CET
    assert bins.to_json()["recurrence"]["zone"] == "Europe/Berlin"


def test_rule_survives_export_and_import(store: Store, tmp_path: Path, clock: Clock) -> None:
    bins = memories.remember(store, "Take out the bins", due_at="every Tuesday at 7pm")
    reminders.mark_done(store, bins.id)
    lines = [json.dumps(r) for r in export_records(store)]
    with Store(tmp_path / "copy.db", clock) as copy:
        import_records(copy, lines)
        again = memories.get_memory(copy, bins.id)
        assert again.recurrence == memories.get_memory(store, bins.id).recurrence
        assert again.due_at == "2026-12-01T19:00:00+00:00"
        assert reminders.completions(copy, bins.id) == reminders.completions(store, bins.id)
        assert [json.loads(line) for line in lines] == list(export_records(copy))


def test_bad_recurrence_in_an_import_is_rejected(store: Store) -> None:
    from memory.errors import ImportFailed

    bad = {"type": "memory", "content": "x", "due_at": "2026-12-01T09:00:00Z",
           "recurrence": {"rule": "FREQ=SOMETIMES", "start": "2026-12-01T09:00:00", "zone": "UTC"}}
    with pytest.raises(ImportFailed) as info:
        import_records(store, [json.dumps(bad)])
    assert "line 1" in str(info.value) and "recurrence" in str(info.value)
    assert memories.count_memories(store) == 0


def test_next_due_follows_the_series(store: Store) -> None:
    bins = memories.remember(store, "Bins", due_at="every Tuesday at 7pm")
    store.clock.fixed = datetime(2026, 11, 24, 19, 0, 1, tzinfo=UTC)
    reminders.mark_done(store, bins.id)
    assert reminders.next_due_after(store, store.clock.now()) == datetime(2026, 12, 1, 19, tzinfo=UTC)
    assert reminders.next_due_after(store, store.clock.now() + timedelta(days=8)) is None


def test_yearly_rule_without_by_parts_and_until_in_utc() -> None:
    """Found by the calendar work: a bare yearly rule and a UTC UNTIL, as calendars write them."""
    assert Recurrence("FREQ=YEARLY", datetime(2027, 3, 15, 9), "Europe/Berlin").describe() == "every year on Mar 15"
    weekly = Recurrence("FREQ=WEEKLY;BYDAY=TU;UNTIL=20261208T230000Z", datetime(2026, 11, 24, 19), "Europe/Berlin")
    assert [f"{d:%m-%d}" for d in occurrences(weekly, datetime(2026, 11, 23, tzinfo=UTC), 2)] == ["11-24", "12-01"]
    assert weekly.next_after(datetime(2026, 12, 8, 18, 0, 1, tzinfo=UTC)) is None  # Dec 8 19:00 CET is the last


@pytest.mark.parametrize("phrase", [
    "every 0 hours", "every 0 days", "every 0th Monday", "every 0 months", "every -1 weeks", "every 1.5 days",
    "every nan days", "every inf weeks", "every day except tuesday", "every day but not weekends",
    "every weekday except friday", "daily at 8am in 2 hours", "every day at 23:60", "every day at -1",
    "every garbage day", "every \x1b[31m day", "every 99999999999999999999 days", "every day for 0 times",
])
def test_rule_phrases_with_words_we_cannot_honour_are_refused(phrase: str) -> None:
    """An attacker's list: each was stored as something else (every day, every weekend, hourly) or,
    with a zero interval, spun dateutil forever."""
    with pytest.raises(DateParseError) as info:
        parse_recurrence(phrase, SUNDAY_14, UTC)
    assert repr(phrase[:20])[1:-1] in str(info.value) or phrase[:20] in str(info.value)


@pytest.mark.parametrize("rule", ["FREQ=DAILY;INTERVAL=0", "FREQ=WEEKLY;INTERVAL=-3", "FREQ=SECONDLY",
                                  "FREQ=MONTHLY;BYMONTHDAY=32", "FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30",
                                  "FREQ=DAILY;COUNT=0", "FREQ=YEARLY;BYSETPOS=400;BYDAY=MO",
                                  # finer than hourly through BY-lists: every minute, every second (issue 22)
                                  "FREQ=HOURLY;BYMINUTE=" + ",".join(map(str, range(60))),
                                  "FREQ=HOURLY;BYMINUTE=0;BYSECOND=0,30", "FREQ=DAILY;BYMINUTE=0,30",
                                  # BY-parts that leave runs of empty periods dateutil would walk one by one
                                  "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", "FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31",
                                  "FREQ=DAILY;INTERVAL=7;BYDAY=TU", "FREQ=DAILY;BYSETPOS=2",
                                  "FREQ=WEEKLY;BYMONTHDAY=3", "FREQ=DAILY;BYYEARDAY=366", "FREQ=DAILY;BYDAY=1MO",
                                  "FREQ=MONTHLY;BYSETPOS=6;BYDAY=MO", "FREQ=DAILY;BYEASTER=0", "FREQ=DAILY;WKST=XX",
                                  "FREQ=DAILY;INTERVAL=" + "9" * 5000, "FREQ=DAILY;UNTIL=2026"])
def test_rules_that_cannot_be_followed_are_refused_at_import(store: Store, rule: str) -> None:
    from memory.errors import ImportFailed

    record = {"type": "memory", "content": "x", "due_at": "2026-12-01T09:00:00Z",
              "recurrence": {"rule": rule, "start": "2026-12-01T09:00:00", "zone": "UTC"}}
    with pytest.raises(ImportFailed, match="recurrence"):
        import_records(store, [json.dumps(record)])
    assert memories.count_memories(store) == 0


def test_a_daily_rule_begun_on_the_spring_forward_night_keeps_its_time() -> None:
    berlin = zone_from_name("Europe/Berlin")
    recurrence, first = present(parse_recurrence("every day at 2:30", datetime(2026, 3, 28, 10, 0, tzinfo=UTC), berlin))
    assert recurrence.start == datetime(2026, 3, 29, 2, 30)  # as asked, though that night skips it
    assert f"{first.astimezone(berlin):%d %H:%M}" == "29 03:30"  # the first one is moved past the gap
    assert f"{present(recurrence.next_after(first)).astimezone(berlin):%d %H:%M}" == "30 02:30"


def test_a_series_ends_where_the_kept_years_end(store: Store) -> None:
    """"every 90 years", done three times, would land in 2297: an instant no export could carry."""
    century = memories.remember(store, "century check", due_at="every 90 years")
    for _ in range(4):
        century = reminders.mark_done(store, century.id)
        if century.done_at:
            break
    assert century.done_at is not None and parse_stored(present(century.due_at)).year <= 2200
    assert len(reminders.completions(store, century.id)) >= 2


@pytest.mark.parametrize("rule", ["FREQ=HOURLY;BYMINUTE=30", "FREQ=DAILY;BYHOUR=9,17",
                                  "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29",
                                  "FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO",
                                  "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=HOURLY;INTERVAL=7;BYHOUR=5"])
def test_rules_calendars_write_are_still_followed(rule: str) -> None:
    assert Recurrence(rule, datetime(2026, 11, 22, 9), "UTC").validate().next_after(SUNDAY_14) is not None


# Rules whose start lies years before the question; every one is compared with plain dateutil
# iterating from its own start (the same answer, however the start was moved).
EQUIVALENT = [
    ("FREQ=HOURLY;INTERVAL=5", datetime(2019, 1, 31, 8, 15)), ("FREQ=DAILY;INTERVAL=3", datetime(2019, 1, 31, 8, 15)),
    ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", datetime(2019, 1, 31, 8, 15)),
    ("FREQ=WEEKLY;INTERVAL=3", datetime(2020, 2, 29, 23, 45)), ("FREQ=MONTHLY", datetime(2019, 1, 31, 8, 15)),
    ("FREQ=MONTHLY;INTERVAL=5", datetime(2019, 1, 31, 8, 15)), ("FREQ=MONTHLY;BYDAY=-1FR", datetime(2019, 1, 31, 8)),
    ("FREQ=MONTHLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", datetime(2019, 3, 1, 18)),
    ("FREQ=YEARLY", datetime(2020, 2, 29, 23, 45)), ("FREQ=YEARLY;INTERVAL=3;BYMONTH=2", datetime(2020, 2, 29, 7)),
    ("FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO", datetime(2019, 1, 1, 9)),
    ("FREQ=HOURLY;BYHOUR=9,17", datetime(2019, 5, 5, 9, 5)),
    ("FREQ=WEEKLY;WKST=SU;INTERVAL=2;BYDAY=SU,MO", datetime(2019, 6, 2, 10)),
    ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29", datetime(2019, 1, 1, 6)),
    ("FREQ=MONTHLY;INTERVAL=7;BYMONTHDAY=15;COUNT=50", datetime(2019, 1, 15, 12)),
    ("FREQ=DAILY;UNTIL=20280101T000000", datetime(2019, 1, 1, 6)),
]


@pytest.mark.parametrize("rule, start", EQUIVALENT)
def test_the_next_occurrence_is_the_one_dateutil_finds_from_the_start(rule: str, start: datetime) -> None:
    from dateutil.rrule import rrulestr

    plain = rrulestr(f"DTSTART:{start:%Y%m%dT%H%M%S}\nRRULE:{rule}")
    recurrence = Recurrence(rule, start, "UTC").validate()
    for after in (datetime(2019, 3, 1, 0, 30), datetime(2026, 11, 22, 14), datetime(2027, 2, 28, 23, 59),
                  datetime(2028, 2, 29, 9), datetime(2031, 12, 31, 23)):
        expected = plain.after(after)
        got = recurrence.next_after(after.replace(tzinfo=UTC))
        assert (got.replace(tzinfo=None) if got else None) == expected, (rule, after)


def test_a_series_from_1970_is_followed_from_now_not_from_1970() -> None:
    """Issue 22: 10 hourly series starting in 1970 took 1 min 47 s to import and `done` 10 s, because
    every occurrence since 1970 was walked. The start is moved forward by whole periods first."""
    from memory.time.rules import _start_near

    hourly = Recurrence("FREQ=HOURLY", datetime(1970, 1, 1, 0, 15), "Europe/Berlin").validate()
    assert hourly.next_after(SUNDAY_14) == datetime(2026, 11, 22, 14, 15, tzinfo=UTC)  # 15:15 CET
    assert _start_near(datetime(1970, 1, 1, 0, 15), {"FREQ": "HOURLY"}, datetime(2026, 11, 22, 13)) == \
        datetime(2026, 11, 22, 12, 15)
    parts = {"FREQ": "MONTHLY", "INTERVAL": "5"}
    moved = _start_near(datetime(1970, 1, 31, 9), parts, datetime(2026, 11, 22))
    assert moved.day < 31 or moved.month in (1, 3, 5, 7, 8, 10, 12)  # a later month, its day clamped...
    assert parts["BYMONTHDAY"] == "31" and (moved.year * 12 + moved.month - (1970 * 12 + 1)) % 5 == 0  # ...kept here


def test_an_offset_zone_round_trips() -> None:
    """A machine whose TZ is "<+0330>-3:30" stores its rules in "UTC+03:30"; the colon in it broke reading them."""
    recurrence = Recurrence("FREQ=DAILY", datetime(2026, 11, 23, 8), "UTC+03:30")
    assert Recurrence.from_text(recurrence.to_text()) == recurrence
    assert recurrence.next_after(SUNDAY_14) == datetime(2026, 11, 23, 4, 30, tzinfo=UTC)


DECEMBER_6 = datetime(2026, 12, 6, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize("phrase", ["every year on 1 February at 10am", "every 1 February at 10am",
                                    "every year on February 1 at 10am", "every 1st of February at 10am",
                                    "every year on the 1st of Feb at 10am", "every year on 1st February at 10am",
                                    "yearly on 1 feb at 10am", "every 2 years on 1 February at 10am"])
def test_a_yearly_day_said_before_its_month_is_that_day(phrase: str) -> None:
    """A tester's "every year on 1 February" came out as Feb 6, today's day of the month: the day number
    before the month name was dropped and the rule took the day it was said."""
    recurrence, due = present(parse_recurrence(phrase, DECEMBER_6, UTC))
    assert f"{due:%Y-%m-%d %H:%M}" == "2027-02-01 10:00"
    assert recurrence.describe().endswith("on Feb 1")
    assert "BYMONTHDAY=1" in recurrence.rule
