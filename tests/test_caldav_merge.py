"""The CalDAV sync's own rules without a server (SPEC F15): a reminder's VTODO and what reads back from it,
the three-way merge, the exit rule for secrets, and what a store says to send. The server's side is
tests/test_caldav.py (slow: a real Radicale)."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.memories import get_memory, remember
from memory.store import Store
from memory.time.clock import Clock
from memory.time.zones import zone_from_name
from memory.transfer import caldav
from memory.transfer.exits import SECRET, Exit
from memory.transfer.ical.todo import Shape, local_shape, read_todo, todo_calendar
from tests.conftest import T0

STAMP = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)


def _round_trip(store: Store, memory_id: int) -> tuple[Shape, Shape, str]:
    memory = get_memory(store, memory_id)
    text = Exit(store).text(memory.content, memory.sensitive)
    data = todo_calendar(memory, f"uid-{memory_id}", text, STAMP)
    remote = read_todo(data, store.clock.zone)
    assert remote is not None and remote.shape is not None and remote.uid == f"uid-{memory_id}"
    return local_shape(memory, text), remote.shape, data


def test_what_is_written_reads_back_the_same(store: Store) -> None:
    one = remember(store, "call the dentist\nask about the crown", due_at="2026-11-23T09:00:00+00:00")
    weird = remember(store, "odd \x1b[31mred\x1b[0m text", due_at="2026-11-24T09:00:00+00:00")
    for memory in (one, weird):
        local, remote, data = _round_trip(store, memory.id)
        assert (remote.text, remote.due, remote.done) == (local.text, local.due, local.done)
        assert "DUE:20261123T090000Z" in data or "DUE:20261124T090000Z" in data
    assert "\x1b" not in _round_trip(store, weird.id)[2]


def test_a_repeating_reminder_in_a_zone_is_written_with_its_tzid_and_read_back(tmp_path: Path) -> None:
    clock = Clock(zone_from_name("Europe/Berlin"), T0)
    with Store(tmp_path / "berlin.db", clock) as store:
        bins = remember(store, "bins out", due_at="every tuesday at 7pm")
        local, remote, data = _round_trip(store, bins.id)
        assert "DTSTART;TZID=Europe/Berlin:20261124T190000" in data and "BEGIN:VTIMEZONE" in data
        assert "RRULE:FREQ=WEEKLY;BYDAY=TU" in data
        assert (remote.text, remote.due) == (local.text, local.due) == ("bins out", "2026-11-24T18:00:00+00:00")


def test_a_counted_rule_keeps_its_last_occurrence_when_dtstart_moves(store: Store) -> None:
    from memory.memories import insert_memory
    from memory.new_memory import NewMemory

    memory_id = insert_memory(store, NewMemory(
        "physio", kind="reminder", due_at="2026-11-24T09:00:00+00:00",
        recurrence="DTSTART;TZID=UTC:20261117T090000\nRRULE:FREQ=WEEKLY;COUNT=3"))
    data = _round_trip(store, memory_id)[2]
    assert "COUNT" not in data and "UNTIL=20261201T090000Z" in data


def test_a_phones_alarm_and_a_date_alone_read_as_its_due(store: Store) -> None:
    phone = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VTODO\r\nUID:p1\r\n"
             "DTSTAMP:20261122T120000Z\r\nLAST-MODIFIED:20261122T130000Z\r\nSUMMARY:dentist\r\n"
             "DESCRIPTION:bring the card\r\nDUE:20261125T100000Z\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
             "TRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")
    remote = read_todo(phone, UTC)
    assert remote is not None and remote.shape == Shape("dentist\nbring the card", "2026-11-25T10:00:00+00:00", False)
    assert remote.modified == datetime(2026, 11, 22, 13, 0, tzinfo=UTC)
    dated = phone.replace("DUE:20261125T100000Z", "DUE;VALUE=DATE:20261125")
    dated = dated.replace("LAST-MODIFIED:20261122T130000Z\r\n", "")
    remote = read_todo(dated, UTC)
    assert remote is not None and remote.shape is not None and remote.shape.due == "2026-11-25T09:00:00+00:00"
    assert remote.modified == datetime(2026, 11, 22, 12, 0, tzinfo=UTC)  # DTSTAMP when nothing else says
    undated = phone.replace("DUE:20261125T100000Z\r\n", "")
    remote = read_todo(undated, UTC)
    assert remote is not None and remote.shape is None


BASE = Shape("call the bank", "2026-11-24T09:00:00+00:00", False).stored()
EARLY, LATE = "2026-11-22T13:00:00+00:00", datetime(2026, 11, 22, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize("local, remote, remote_time, take, winners", [
    # One side changed: that side's value.
    (Shape("call the bank", "2026-11-24T09:00:00+00:00", True), Shape("call the bank", "2026-11-24T09:00:00+00:00",
                                                                     False), LATE, set(), []),
    (Shape("call the bank", "2026-11-24T09:00:00+00:00", False), Shape("phone the bank", "2026-11-24T09:00:00+00:00",
                                                                      False), LATE, {"text"}, []),
    # Different fields on each side: both kept, no conflict.
    (Shape("call the bank", "2026-11-25T09:00:00+00:00", False), Shape("phone the bank", "2026-11-24T09:00:00+00:00",
                                                                      False), LATE, {"text"}, []),
    # The same change on both sides: no conflict.
    (Shape("phone the bank", "2026-11-24T09:00:00+00:00", False), Shape("phone the bank", "2026-11-24T09:00:00+00:00",
                                                                       False), LATE, set(), []),
    # Both changed the text: the newer wins.
    (Shape("ring the bank", "2026-11-24T09:00:00+00:00", False), Shape("phone the bank", "2026-11-24T09:00:00+00:00",
                                                                      False), LATE, {"text"}, ["server"]),
    (Shape("ring the bank", "2026-11-24T09:00:00+00:00", False), Shape("phone the bank", "2026-11-24T09:00:00+00:00",
                                                                      False), datetime(2026, 11, 22, 12, tzinfo=UTC),
     set(), ["here"]),
    # A server change that says no time loses: nothing here is lost.
    (Shape("call the bank", "2026-11-26T09:00:00+00:00", False), Shape("call the bank", "2026-11-27T09:00:00+00:00",
                                                                      False), None, set(), ["here"]),
])
def test_the_merge_takes_each_side_s_changes_and_the_newer_of_two(local: Shape, remote: Shape,
                                                                  remote_time: datetime | None, take: set[str],
                                                                  winners: list[str]) -> None:
    taken, conflicts = caldav.merge(local, BASE, remote, EARLY, remote_time)
    assert taken == take and [c.winner for c in conflicts] == winners


def test_a_secret_leaves_masked_with_its_other_words_and_comes_back_whole(store: Store) -> None:
    exit_ = Exit(store)
    text = "bank PIN is 4471, pay the rent"
    assert exit_.text(text) == f"bank PIN is {SECRET}, pay the rent"
    assert exit_.text("just words", sensitive=True) == SECRET  # marked, the detector cannot point at it
    assert exit_.restore(f"bank PIN is {SECRET}, pay the rent today", text) == "bank PIN is 4471, pay the rent today"
    assert exit_.restore("bank PIN changed", text) == "bank PIN changed"
    assert exit_.restore(f"{SECRET} {SECRET}", text) == f"{SECRET} {SECRET}"  # one value, two masks: left as is
    assert exit_.restore(f"{SECRET} tomorrow", "just words", sensitive=True) == "just words tomorrow"


def test_the_href_of_a_reminder_is_its_uid_alone() -> None:
    assert caldav.object_name("0b1c/memory/12") == "0b1c-memory-12.ics"
    odd = caldav.object_name("weird uid@example.com/../x")
    assert odd.endswith(".ics") and "/" not in odd and odd == caldav.object_name("weird uid@example.com/../x")
    assert odd != caldav.object_name("weird-uid@example.com/../x")


def test_what_a_store_sends_and_removes(store: Store) -> None:
    exit_ = Exit(store)
    kept = remember(store, "renew passport", due_at="2026-11-24T09:00:00+00:00")
    remember(store, "see the therapist", due_at="2026-11-24T10:00:00+00:00", private=True)
    remember(store, "a fact, not a reminder")
    assert caldav.pending(store) == 1
    pushes, removals = caldav.local_changes(store, "/alice/cal/", exit_)
    assert [(p.memory_id, p.new, p.href.startswith("/alice/cal/")) for p in pushes] == [(kept.id, True, True)]
    assert removals == []
    caldav.sent(store, pushes[0], '"etag-1"')
    assert caldav.pending(store) == 0 and caldav.local_changes(store, "/alice/cal/", exit_) == ([], [])
    # A change in the same second as the sync is still seen (a version, not a time).
    from memory.reminders import update_memory

    update_memory(store, kept.id, content="renew the passport")
    [push], [] = caldav.local_changes(store, "/alice/cal/", exit_)
    assert (push.new, push.etag) == (False, '"etag-1"') and "renew the passport" in push.body
    caldav.sent(store, push, '"etag-2"')
    update_memory(store, kept.id, reminded_at="now")  # what the to-do does not say: nothing to send
    assert caldav.local_changes(store, "/alice/cal/", exit_) == ([], [])
    from memory.memories import set_private

    set_private(store, kept.id, True)
    assert caldav.local_changes(store, "/alice/cal/", exit_) == ([], [caldav.Removal(push.href, "private")])


def test_a_change_made_while_it_was_sent_is_sent_next_time(store: Store) -> None:
    exit_ = Exit(store)
    memory = remember(store, "pay the gas bill", due_at="2026-11-24T09:00:00+00:00")
    [push], _ = caldav.local_changes(store, "/c/", exit_)
    from memory.reminders import update_memory

    update_memory(store, memory.id, content="pay the gas and water bills")  # after it was read, before recorded
    caldav.sent(store, push, '"e1"')
    [again], _ = caldav.local_changes(store, "/c/", exit_)
    assert "gas and water" in again.body


def test_a_new_todo_from_the_phone_becomes_a_reminder_and_its_deletion_cancels_it(store: Store) -> None:
    exit_ = Exit(store)
    phone = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VTODO\r\nUID:p-7\r\n"
             "DTSTAMP:20261122T120000Z\r\nSUMMARY:pick up the parcel\r\nDUE:20261124T120000Z\r\n"
             "RRULE:FREQ=WEEKLY\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")
    cancelled: list[int] = []
    outcome = caldav.take_remote(store, [caldav.Found("/c/p-7.ics", '"e1"', phone)], [], "token-1", exit_,
                                 cancelled.append)
    [made] = outcome.created
    memory = get_memory(store, made)
    assert (memory.content, memory.due_at, memory.rule is not None) == ("pick up the parcel",
                                                                       "2026-11-24T12:00:00+00:00", True)
    assert store.get_meta(caldav.TOKEN_KEY) == "token-1"
    assert caldav.local_changes(store, "/c/", exit_) == ([], [])  # as the server has it: nothing to send
    # The same to-do reported again (a sync cut short): nothing made twice.
    caldav.take_remote(store, [caldav.Found("/c/p-7.ics", '"e1"', phone)], [], None, exit_, cancelled.append)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 1
    outcome = caldav.take_remote(store, [], ["/c/p-7.ics"], "token-2", exit_, cancelled.append)
    assert cancelled == [made] == outcome.cancelled
    assert store.query("SELECT href FROM caldav_items") == []


def test_what_changed_since_the_last_sync_is_found_in_an_index(store: Store) -> None:
    plan = " ".join(str(tuple(r)) for r in store.query(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM caldav_items WHERE compared IS NOT version"))
    assert "caldav_items_stale" in plan
    memory = remember(store, "renew passport", due_at="2026-11-24T09:00:00+00:00")
    [push], _ = caldav.local_changes(store, "/c/", Exit(store))
    caldav.sent(store, push, '"e1"')
    from memory.memories import forget

    forget(store, memory.id)  # gone: found by the same index, to be removed there
    assert caldav.local_changes(store, "/c/", Exit(store)) == ([], [caldav.Removal(push.href, "forgotten")])
