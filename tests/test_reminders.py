"""SPEC F1: the get_upcoming lifecycle, step by step, with a frozen clock."""
from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory import memories, reminders
from memory.errors import DateParseError, InvalidInput, NotFound
from memory.time.clock import Clock
from memory.time.instants import UTC
from tests.conftest import T0, present

if TYPE_CHECKING:
    from memory.reminders import Reminder
    from memory.store import Store


def listed(store: Store, days: float = 7) -> dict[str, Reminder]:
    return {r.memory.content: r for r in reminders.get_upcoming(store, days)}


def at(store: Store, moment: datetime) -> None:
    store.clock.fixed = moment


def test_lifecycle_due_reminded_silent_overdue_once_silent(store: Store) -> None:
    plumber = memories.remember(store, "Call the plumber", due_at="2026-11-25T10:00:00+00:00")
    control = memories.remember(store, "Dentist", due_at="2026-11-24T10:00:00+00:00")

    items = listed(store)
    assert items["Call the plumber"].status == "due"
    assert items["Call the plumber"].label == "[DUE Wed Nov 25 10:00]"

    reminders.update_memory(store, plumber.id, reminded_at="now")  # mentioned before it was due
    at(store, T0 + timedelta(hours=1))
    assert "Call the plumber" not in listed(store)  # silent: no nagging
    assert "Dentist" in listed(store)

    at(store, T0 + timedelta(days=2, hours=21))  # 25 Nov 11:00, an hour past due
    item = listed(store)["Call the plumber"]
    assert item.status == "overdue" and item.label == "[OVERDUE Wed Nov 25 10:00]"
    assert listed(store)["Dentist"].status == "overdue"

    reminders.update_memory(store, plumber.id, reminded_at="now")
    at(store, T0 + timedelta(days=2, hours=22))
    assert "Call the plumber" not in listed(store)  # reminded after due: silent for good
    assert control.id in {r.memory.id for r in reminders.get_upcoming(store)}


def test_window_and_plain_memories(store: Store) -> None:
    memories.remember(store, "Renew passport", due_at="2026-12-20T10:00:00+00:00")
    memories.remember(store, "Water plants on the balcony")
    assert listed(store) == {}
    assert "Renew passport" in listed(store, days=30)


def test_done_never_shows(store: Store) -> None:
    bins = memories.remember(store, "Take out the bins", due_at="2026-11-23T09:00:00+00:00")
    reminders.mark_done(store, bins.id)
    assert "Take out the bins" not in listed(store)
    at(store, T0 + timedelta(days=3))
    assert "Take out the bins" not in listed(store)
    assert reminders.list_open_reminders(store) == []


def test_snooze_sets_new_due_and_clears_reminded(store: Store) -> None:
    vet = memories.remember(store, "Book the vet", due_at="2026-11-23T09:00:00+00:00")
    reminders.update_memory(store, vet.id, reminded_at="now")
    assert "Book the vet" not in listed(store)
    snoozed = reminders.snooze(store, vet.id, "2026-11-24T09:00:00+00:00")
    assert snoozed.reminded_at is None and snoozed.due_at == "2026-11-24T09:00:00+00:00"
    assert listed(store)["Book the vet"].memory.due_at == "2026-11-24T09:00:00+00:00"


def test_bad_input_changes_nothing(store: Store) -> None:
    vet = memories.remember(store, "Book the vet", due_at="2026-11-23T09:00:00+00:00")
    before = memories.get_memory(store, vet.id)
    with pytest.raises(DateParseError, match="when pigs fly"):
        reminders.snooze(store, vet.id, "when pigs fly")
    with pytest.raises(NotFound):
        reminders.update_memory(store, 987654, reminded_at="now")
    with pytest.raises(InvalidInput):
        memories.remember(store, "x", importance=9)
    with pytest.raises(DateParseError):
        memories.remember(store, "Party", due_at="the twelfth of never")
    assert memories.get_memory(store, vet.id) == before
    assert memories.count_memories(store) == 1


def test_overdue_listed_first(store: Store) -> None:
    memories.remember(store, "Later", due_at="2026-11-26T09:00:00+00:00")
    memories.remember(store, "Missed", due_at="2026-11-21T09:00:00+00:00")
    items = reminders.get_upcoming(store)
    assert [r.memory.content for r in items] == ["Missed", "Later"]
    assert items[0].status == "overdue"


def test_relative_time(clock: Clock) -> None:
    now = clock.now()
    assert reminders.relative_time("2026-11-22T16:00:00+00:00", now, clock) == "in 2 h"
    assert reminders.relative_time("2026-11-21T13:00:00+00:00", now, clock) == "overdue 25 h"
    assert reminders.relative_time("2026-11-22T14:30:00+00:00", now, clock) == "in 30 min"


def test_forget_removes_row_and_index(store: Store) -> None:
    m = memories.remember(store, "secret plan zebra")
    assert store.one("SELECT count(*) FROM search_index WHERE search_index MATCH 'zebra'")[0] == 1
    memories.forget(store, m.id)
    assert store.one("SELECT count(*) FROM search_index WHERE search_index MATCH 'zebra'")[0] == 0
    assert store.one("SELECT count(*) FROM pending_embeddings")[0] == 0
    with pytest.raises(NotFound):
        memories.forget(store, m.id)


def test_one_truth_lists_every_open_reminder_mentioned_or_not(store: Store) -> None:
    """The user's list keeps a mentioned reminder (with reminded_at); only the prompt goes silent."""
    plumber = memories.remember(store, "Call the plumber", due_at="2026-11-25T10:00:00+00:00")
    memories.remember(store, "Dentist", due_at="2026-11-24T10:00:00+00:00")
    reminders.update_memory(store, plumber.id, reminded_at="now")
    at(store, T0 + timedelta(hours=1))
    listed_ids = [r.memory.id for r in reminders.list_open_reminders(store)]
    assert plumber.id in listed_ids and plumber.id not in {r.memory.id for r in reminders.get_upcoming(store)}
    [item] = [r for r in reminders.list_open_reminders(store) if r.memory.id == plumber.id]
    assert item.memory.reminded_at == "2026-11-22T14:00:00+00:00"
    at(store, T0 + timedelta(days=3))  # both overdue now: earliest due first
    assert [r.memory.content for r in reminders.list_open_reminders(store)] == ["Dentist", "Call the plumber"]


def test_next_due_after_and_fell_due_between(store: Store) -> None:
    a = memories.remember(store, "A", due_at="2026-11-22T14:00:20+00:00")
    b = memories.remember(store, "B", due_at="2026-11-22T15:00:00+00:00")
    assert present(reminders.next_due_after(store, T0)).isoformat() == "2026-11-22T14:00:20+00:00"
    assert present(reminders.next_due_after(store, T0 + timedelta(seconds=20))).isoformat() == \
        "2026-11-22T15:00:00+00:00"
    reminders.mark_done(store, b.id)
    assert reminders.next_due_after(store, T0 + timedelta(seconds=20)) is None
    fell = reminders.fell_due_between(store, T0, T0 + timedelta(minutes=1))
    assert [r.memory.id for r in fell] == [a.id] and fell[0].status == "overdue"
    assert reminders.fell_due_between(store, T0 + timedelta(minutes=1), T0 + timedelta(hours=2)) == []


def test_a_reminder_written_already_overdue_is_announced_once(store: Store) -> None:
    """`remember --due "today at 8am" --allow-past` from the CLI while the app runs: its due instant is
    before the app's last announcement, but it was written after it."""
    earlier = memories.remember(store, "old overdue", due_at="2026-11-22T08:00:00+00:00", allow_past=True)
    at(store, T0 + timedelta(minutes=5))
    late = memories.remember(store, "past thing", due_at="2026-11-22T08:00:00+00:00", allow_past=True)
    fell = reminders.fell_due_between(store, T0 + timedelta(minutes=1), T0 + timedelta(minutes=6))
    assert [r.memory.id for r in fell] == [late.id] and earlier.id != late.id
    assert reminders.fell_due_between(store, T0 + timedelta(minutes=6), T0 + timedelta(minutes=7)) == []


def test_restore_undoes_done(store: Store) -> None:
    from memory import changes

    bins = memories.remember(store, "Take out the bins", due_at="2026-11-23T09:00:00+00:00")
    with changes.recorded(store, bins.id, "done"):
        reminders.mark_done(store, bins.id)
    restored = present(present(changes.undo_last_change(store)).memory)
    assert restored.done_at is None and restored.due_at == bins.due_at
    assert [r.memory.id for r in reminders.list_open_reminders(store)] == [bins.id]


def test_data_version_changes_when_another_connection_commits(tmp_path: Path, clock: Clock) -> None:
    from memory.store import Store

    path = tmp_path / "shared.db"
    with Store(path, clock) as watcher, Store(path, clock) as writer:
        before = watcher.data_version()
        assert watcher.data_version() == before  # nothing changed: the poll is stable
        memories.remember(writer, "Written by the CLI", due_at="2026-11-23T09:00:00+00:00")
        assert watcher.data_version() != before


@pytest.mark.parametrize("due, expected", [
    ("2026-11-22T14:00:20+00:00", "now"), ("2026-11-22T14:00:58+00:00", "in 1 min"),
    ("2026-11-22T14:04:30+00:00", "in 5 min"), ("2026-11-22T15:20:00+00:00", "in 80 min"),
    ("2026-11-22T16:40:00+00:00", "in 3 h"), ("2026-11-24T13:50:00+00:00", "in 2 d"),
    ("2026-11-22T13:58:00+00:00", "overdue 2 min"), ("2026-11-20T14:00:00+00:00", "overdue 2 d"),
])
def test_relative_time_rounds_to_the_nearest_unit(clock: Clock, due: str, expected: str) -> None:
    assert reminders.relative_time(due, T0, clock) == expected


def test_relative_time_across_dst_is_real_time() -> None:
    from memory.time.zones import zone_from_name

    berlin = Clock(zone_from_name("Europe/Berlin"))
    night = datetime(2026, 10, 24, 23, 30, tzinfo=UTC)  # 01:30 CEST; at 03:00 the clocks go back to 02:00
    assert reminders.relative_time("2026-10-25T01:30:00+00:00", night, berlin) == "in 2 h"


# -- a due date that has passed: one rule for every writer (issue 22) ----------------------------

LATE = datetime(2026, 11, 22, 22, 50, tzinfo=UTC)  # Sunday 22:50


@pytest.mark.parametrize("phrase, due", [
    ("tonight", "2026-11-22T20:00:00+00:00"), ("this evening", "2026-11-22T18:00:00+00:00"),
    ("this morning", "2026-11-22T09:00:00+00:00"), ("today", "2026-11-22T09:00:00+00:00"),
    ("by tonight", "2026-11-22T20:00:00+00:00"), ("today at noon", "2026-11-22T12:00:00+00:00"),
])
def test_a_conventional_time_that_has_passed_today_is_kept_and_due_at_once(store: Store, phrase: str, due: str) -> None:
    """"remind me tonight to lock the car" at 22:50 failed in the app while the CLI stored it overdue."""
    store.clock.fixed = LATE
    car = memories.remember(store, "lock the car", due_at=phrase, allow_past=False)
    assert car.due_at == due
    [item] = reminders.list_open_reminders(store)
    assert item.memory.id == car.id and item.status == "overdue"
    from memory.time.schedule import past_note

    said = past_note(store.clock, car.due_at)
    assert said == f"{store.clock.short(due)} has already passed, so this reminder is overdue"


@pytest.mark.parametrize("phrase", ["yesterday at 3pm", "2026-11-22T08:00:00+00:00", "today at 8am", "tonight at 8",
                                    "2026-11-20T09:00:00Z"])
def test_an_explicit_past_date_is_still_refused_where_it_was(store: Store, phrase: str) -> None:
    store.clock.fixed = LATE
    with pytest.raises(InvalidInput, match="has already passed"):
        memories.remember(store, "x", due_at=phrase, allow_past=False)
    kept = memories.remember(store, "x", due_at=phrase)  # the CLI keeps it (with a note)
    assert present(kept.due_at) < store.clock.now_iso()
    assert memories.count_memories(store) == 1


def test_snooze_to_a_passed_conventional_time_is_due_at_once(store: Store) -> None:
    car = memories.remember(store, "lock the car", due_at="2026-11-23T10:00:00Z")
    store.clock.fixed = LATE
    assert reminders.snooze(store, car.id, "tonight").due_at == "2026-11-22T20:00:00+00:00"
    with pytest.raises(InvalidInput, match="has already passed"):
        reminders.snooze(store, car.id, "yesterday at 3pm")
    assert reminders.update_memory(store, car.id, due_at="this evening", allow_past=False).due_at == \
        "2026-11-22T18:00:00+00:00"


def test_a_conventional_time_of_another_day_is_not_today(store: Store) -> None:
    """Just after midnight "tonight" is tonight, in the future; "this morning" said at 00:30 is 09:00 ahead."""
    store.clock.fixed = datetime(2026, 11, 23, 0, 30, tzinfo=UTC)
    assert memories.remember(store, "x", due_at="this morning", allow_past=False).due_at == "2026-11-23T09:00:00+00:00"
    assert memories.remember(store, "y", due_at="tonight", allow_past=False).due_at == "2026-11-23T20:00:00+00:00"
