"""Reminders on every device (SPEC F15): `assistant sync` against a real Radicale server, the real `caldav`
client on both sides (ours, and the test acting as the phone). Slow: each module starts a server."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory.store import Store
from memory.time.clock import Clock
from memory.time.instants import parse_stored
from tests.caldav_server import USERS, Phone, Radicale, free_port, self_signed

pytestmark = pytest.mark.slow

NOW = "2026-11-22T14:00:00+00:00"
LATER = datetime(2026, 11, 22, 15, 0, tzinfo=UTC)  # a phone's edit made after the app's (at NOW)
EARLIER = datetime(2026, 11, 22, 13, 0, tzinfo=UTC)

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Radicale]:
    server = Radicale(tmp_path_factory.mktemp("radicale"))
    yield server
    server.stop()


@pytest.fixture
def calendar_name(request: pytest.FixtureRequest) -> str:
    return f"Assistant {request.node.name}"[:100]  # one calendar per test on the shared server


@pytest.fixture
def synced(radicale: Radicale, calendar_name: str, monkeypatch: pytest.MonkeyPatch) -> Phone:
    """This test's store set to sync with its own calendar on the server; the phone on the same one."""
    monkeypatch.setenv("ASSISTANT_CALDAV__URL", radicale.url)
    monkeypatch.setenv("ASSISTANT_CALDAV__USERNAME", "alice")
    monkeypatch.setenv("ASSISTANT_CALDAV__CALENDAR", calendar_name)
    monkeypatch.setenv("ASSISTANT_CALDAV_PASSWORD", USERS["alice"])
    return Phone(radicale.url, "alice", calendar_name)


def sync(cli: Cli, now: str = NOW) -> dict[str, Any]:
    code, out, err = cli("sync", "--json", now=now)
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def reminders(cli: Cli, now: str = NOW) -> dict[str, dict[str, Any]]:
    code, out, err = cli("export", now=now)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    return {r["content"]: r for r in records if r["type"] == "memory"}


def store_of(cli: Any) -> Store:
    return Store(Path(cli.db), Clock(UTC, parse_stored(NOW)))


def test_a_reminder_is_one_todo_with_due_alarm_and_rule(cli: Cli, synced: Phone) -> None:
    cli("remember", "call the dentist", "--due", "2026-11-23T09:00:00+00:00")
    cli("remember", "water the plants", "--due", "every monday at 8am")
    result = sync(cli)
    assert result["sent"] == 2 and result["ok"] is True
    dentist, plants = synced.todo("dentist"), synced.todo("plants")
    assert dentist.due == datetime(2026, 11, 23, 9, 0, tzinfo=UTC) and dentist.status == "NEEDS-ACTION"
    assert dentist.alarms in (["P0D;DISPLAY"], ["PT0S;DISPLAY"]) and "TRIGGER;RELATED=END:P" in dentist.data
    assert dentist.uid.endswith("/memory/1") and "DTSTAMP:" in dentist.data
    assert plants.rrule == "FREQ=WEEKLY;BYDAY=MO" and "DTSTART" in plants.data
    assert plants.due == datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


def test_two_syncs_in_a_row_change_nothing_and_the_second_is_one_request(cli: Cli, synced: Phone) -> None:
    for i in range(5):
        cli("remember", f"task {i}", "--due", f"2026-11-2{3 + i}T09:00:00+00:00")
    first = sync(cli)
    second, third = sync(cli), sync(cli)
    assert first["sent"] == 5
    for later in (second, third):
        assert (later["sent"], later["fetched"], later["created_here"], later["changed_here"]) == (0, 0, [], [])
        assert later["requests"] == 1
    code, out, _ = cli("status", "--json")
    assert json.loads(out)["calendar_sync"]["ok"] is True
    assert len(synced.todos()) == 5 and len(reminders(cli)) == 5


def test_changes_made_on_the_phone_come_back(cli: Cli, synced: Phone) -> None:
    for text, due in (("pay rent", "2026-11-25T09:00:00+00:00"), ("book flights", "2026-11-26T09:00:00+00:00"),
                      ("buy milk", "2026-11-24T09:00:00+00:00"), ("old task", "2026-11-27T09:00:00+00:00")):
        cli("remember", text, "--due", due)
    sync(cli)
    synced.complete(synced.todo("pay rent"))
    synced.edit(synced.todo("book flights"), due=datetime(2026, 11, 28, 17, 30, tzinfo=UTC))
    synced.edit(synced.todo("buy milk"), summary="buy oat milk")
    synced.delete(synced.todo("old task"))
    synced.create("pick up the parcel", datetime(2026, 11, 24, 12, 0, tzinfo=UTC))
    result = sync(cli)
    now = reminders(cli)
    assert now["pay rent"]["done_at"] is not None
    assert now["book flights"]["due_at"] == "2026-11-28T17:30:00+00:00"
    assert "buy oat milk" in now and "buy milk" not in now
    assert "old task" not in now
    assert now["pick up the parcel"]["due_at"] == "2026-11-24T12:00:00+00:00"
    assert len(result["cancelled_here"]) == 1 and len(result["created_here"]) == 1
    # The deletion is the last change, undoable like any cancel; nothing comes back twice.
    code, _, err = cli("undo")
    assert code == 0, err
    assert "old task" in reminders(cli)
    again = sync(cli)
    assert again["sent"] == 1 and again["created_here"] == []  # the cancelled one, made again on the server
    assert sorted(t.summary for t in synced.todos()) == ["book flights", "buy oat milk", "old task", "pay rent",
                                                          "pick up the parcel"]
    assert sync(cli)["sent"] == 0 and len(reminders(cli)) == 5


def test_a_secret_never_reaches_the_server_and_its_mask_is_no_rename(cli: Cli, synced: Phone,
                                                                     radicale: Radicale) -> None:
    cli("remember", "bank PIN is 4471, pay the rent", "--due", "2026-11-25T09:00:00+00:00")
    sync(cli)
    todo = synced.todo("pay the rent")
    assert todo.summary == "bank PIN is [secret], pay the rent"
    assert radicale.holds("bank PIN is [secret], pay the rent") and not radicale.holds("4471")  # it sees the item
    synced.edit(todo, due=datetime(2026, 11, 25, 18, 0, tzinfo=UTC))  # moved there, the masked text untouched
    sync(cli)
    kept = reminders(cli)["bank PIN is 4471, pay the rent"]
    assert kept["due_at"] == "2026-11-25T18:00:00+00:00"
    # Renamed there around the mask: the secret is put back here, and still never sent.
    synced.edit(synced.todo("pay the rent"), summary="bank PIN is [secret], pay the rent today")
    sync(cli)
    assert "bank PIN is 4471, pay the rent today" in reminders(cli)
    assert sync(cli)["sent"] == 0 and not radicale.holds("4471")


def test_private_reminders_stay_here_and_one_made_private_leaves_the_server(cli: Cli, synced: Phone) -> None:
    cli("remember", "see the therapist", "--due", "2026-11-24T09:00:00+00:00", "--private")
    cli("remember", "renew passport", "--due", "2026-11-24T10:00:00+00:00")
    sync(cli)
    assert [t.summary for t in synced.todos()] == ["renew passport"]
    with store_of(cli) as store, store.transaction():
        store.execute("UPDATE knowledge SET private = 1, updated_at = ? WHERE content = 'renew passport'",
                      ("2026-11-22T14:00:01+00:00",))
    assert sync(cli)["removed_there"] == 1
    assert synced.todos() == []


def test_a_reminder_forgotten_here_is_removed_there(cli: Cli, synced: Phone) -> None:
    cli("remember", "call mum", "--due", "2026-11-24T09:00:00+00:00")
    sync(cli)
    code, _, err = cli("forget", "1")
    assert code == 0, err
    assert sync(cli)["removed_there"] == 1 and synced.todos() == []


def test_done_and_moved_here_reach_the_phone(cli: Cli, synced: Phone) -> None:
    cli("remember", "send invoice", "--due", "2026-11-24T09:00:00+00:00")
    cli("remember", "gym", "--due", "2026-11-24T18:00:00+00:00")
    sync(cli)
    cli("done", "1")
    cli("snooze", "2", "2026-11-25T18:00:00+00:00")
    assert sync(cli)["sent"] == 2
    assert synced.todo("invoice").status == "COMPLETED"
    assert synced.todo("gym").due == datetime(2026, 11, 25, 18, 0, tzinfo=UTC)


def test_a_repeating_reminder_done_on_the_phone_moves_on_here_and_there(cli: Cli, synced: Phone) -> None:
    cli("remember", "take out the bins", "--due", "every tuesday at 7pm")
    sync(cli)
    synced.complete(synced.todo("bins"))
    result = sync(cli)
    bins = reminders(cli)["take out the bins"]
    assert bins["done_at"] is None and bins["due_at"] == "2026-12-01T19:00:00+00:00"
    assert result["sent"] == 1  # the series' next occurrence, open again on the phone
    todo = synced.todo("bins")
    assert todo.status == "NEEDS-ACTION" and todo.due == datetime(2026, 12, 1, 19, 0, tzinfo=UTC)
    assert sync(cli)["sent"] == 0


def test_both_sides_changed_the_newer_wins_and_the_other_is_kept(cli: Cli, synced: Phone) -> None:
    cli("remember", "call the plumber", "--due", "2026-11-24T09:00:00+00:00")
    cli("remember", "call the bank", "--due", "2026-11-24T10:00:00+00:00")
    sync(cli)
    # Renamed here at NOW, and on the phone an hour later: the phone's wins.
    cli("update", "1", "--content", "call the plumber about the boiler")
    synced.edit(synced.todo("plumber"), LATER, summary="call the plumber before noon")
    # Renamed here at NOW, and on the phone an hour before: ours wins, sent back.
    cli("update", "2", "--content", "call the bank about the card")
    synced.edit(synced.todo("bank"), EARLIER, summary="call the bank tomorrow")
    code, out, err = cli("sync", now=NOW)
    assert code == 0, err
    now = reminders(cli)
    assert "call the plumber before noon" in now and "call the bank about the card" in now
    assert synced.todo("bank").summary == "call the bank about the card"
    assert err.count("here and on the server") == 2  # said once each
    with store_of(cli) as store:
        history = {r[0] for r in store.query("SELECT content FROM memory_history")}
    assert {"call the plumber about the boiler", "call the bank tomorrow"} <= history
    code, _, err = cli("sync", now=NOW)
    assert "here and on the server" not in err


def test_a_wrong_password_or_a_server_down_is_one_line_and_nothing_lost(cli: Cli, synced: Phone,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    cli("remember", "renew the car insurance", "--due", "2026-11-30T09:00:00+00:00")
    monkeypatch.setenv("ASSISTANT_CALDAV_PASSWORD", "not the password")
    code, out, err = cli("sync")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "refused the login" in err and "not the password" not in err
    port = free_port()
    monkeypatch.setenv("ASSISTANT_CALDAV__URL", f"http://127.0.0.1:{port}/")
    monkeypatch.setenv("ASSISTANT_CALDAV_PASSWORD", USERS["alice"])
    code, out, err = cli("sync")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "cannot reach the calendar server" in err
    assert "renew the car insurance" in reminders(cli)
    # The server comes up there: the reminder goes at the next sync.
    late = Radicale(tmp_path / "late", port=port)
    try:
        result = sync(cli)
        assert result["sent"] == 1
        phone = Phone(late.url, "alice", synced.calendar_name)
        assert [t.summary for t in phone.todos()] == ["renew the car insurance"]
    finally:
        late.stop()


@pytest.mark.parametrize("env, fragment", [
    ({"ASSISTANT_CALDAV_PASSWORD": ""}, "ASSISTANT_CALDAV_PASSWORD is not set"),
    ({"ASSISTANT_CALDAV__URL": "dav.example.com"}, "caldav.url"),
    ({"ASSISTANT_CALDAV__URL": "https://alice:pw@dav.example.com/"}, "must not hold a user or password"),
    ({"ASSISTANT_CALDAV__USERNAME": ""}, "caldav.username"),
    ({"ASSISTANT_CALDAV__CA_BUNDLE": "/no/such/ca.pem"}, "caldav.ca_bundle"),
])
def test_a_bad_configuration_is_exit_2(cli: Cli, synced: Phone, monkeypatch: pytest.MonkeyPatch,
                                       env: dict[str, str], fragment: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = cli("sync")
    assert code == 2 and out == "" and fragment in err and len(err.strip().splitlines()) == 1


def test_no_calendar_set_up_is_exit_2_without_a_config_file(cli: Cli) -> None:
    code, _, err = cli("sync")
    assert code == 2 and "no calendar server is set up" in err


def test_a_sync_cut_short_leaves_no_duplicate(cli: Cli, synced: Phone) -> None:
    """The to-dos were written but not recorded (a crash between the two): the next sync adopts them."""
    for i in range(4):
        cli("remember", f"errand {i}", "--due", f"2026-11-2{4 + i}T09:00:00+00:00")
    sync(cli)
    with store_of(cli) as store, store.transaction():
        store.execute("DELETE FROM caldav_items")
        store.execute("DELETE FROM meta WHERE key = 'caldav_sync_token'")
    result = sync(cli)
    assert result["created_here"] == [] and result["sent"] == 0
    assert len(synced.todos()) == 4 and len(reminders(cli)) == 4
    with store_of(cli) as store:
        assert store.one("SELECT count(*) FROM caldav_items")[0] == 4


def _run(db: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "assistant.cli.program", *args, "--db", db, "--now", NOW],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def test_killed_mid_sync_and_two_processes_at_once_leave_one_todo_per_reminder(cli: Cli, synced: Phone) -> None:
    with store_of(cli) as store:
        from memory.memories import remember

        with store.transaction():
            for i in range(150):
                remember(store, f"chore {i:03d}", due_at=f"2026-12-{1 + i % 28:02d}T09:00:00+00:00")
    # Killed while sending: some to-dos are on the server, some recorded, some neither.
    victim = _run(cli.db, "sync")  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if len(synced.calendar().children()) >= 20:
                break
        except AssertionError:
            pass
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert 0 < len(synced.calendar().children()) < 150  # cut short while sending
    # Two syncs at once finish the job: one waits for the other.
    both = [_run(cli.db, "sync", "--json"), _run(cli.db, "sync", "--json")]  # type: ignore[attr-defined]
    outs = [p.communicate(timeout=300) for p in both]
    assert [p.returncode for p in both] == [0, 0], outs
    todos = synced.todos()
    assert len(todos) == 150 and len({t.uid for t in todos}) == 150
    assert len(reminders(cli)) == 150
    assert sync(cli)["sent"] == 0


def test_a_self_signed_server_needs_its_ca_bundle(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = self_signed(tmp_path)
    server = Radicale(tmp_path / "tls", tls=(cert, key))
    try:
        monkeypatch.setenv("ASSISTANT_CALDAV__URL", server.url)
        monkeypatch.setenv("ASSISTANT_CALDAV__USERNAME", "bob")
        monkeypatch.setenv("ASSISTANT_CALDAV_PASSWORD", USERS["bob"])
        cli("remember", "renew the domain", "--due", "2026-11-30T09:00:00+00:00")
        code, _, err = cli("sync")
        assert code == 1 and "cannot be trusted" in err and "caldav.ca_bundle" in err
        monkeypatch.setenv("ASSISTANT_CALDAV__CA_BUNDLE", str(cert))
        assert sync(cli)["sent"] == 1
        assert [t.summary for t in Phone(server.url, "bob", "Assistant", str(cert)).todos()] == ["renew the domain"]
    finally:
        server.stop()


def test_the_calendar_is_found_by_its_url_or_made_once(cli: Cli, synced: Phone, radicale: Radicale,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cli("remember", "file taxes", "--due", "2026-11-30T09:00:00+00:00")
    sync(cli)
    assert synced.calendars_named().count(synced.calendar_name) == 1
    # The calendar's own address in caldav.url: the same calendar, whatever its name.
    monkeypatch.setenv("ASSISTANT_CALDAV__URL", str(synced.calendar().url))
    monkeypatch.setenv("ASSISTANT_CALDAV__CALENDAR", "Some other name")
    result = sync(cli)
    assert result["sent"] == 0 and result["created_here"] == []
    assert "Some other name" not in synced.calendars_named()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_the_notifier_syncs_by_itself_in_a_child_and_stays_small(cli: Cli, synced: Phone,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSISTANT_CALDAV__INTERVAL_MINUTES", "0.1")
    cli("remember", "book the car service", "--due", "2026-11-30T09:00:00+00:00")
    notifier = subprocess.Popen([sys.executable, "-m", "assistant.cli.program", "notify", "--json", "--db",
                                 cli.db], stdout=subprocess.PIPE, stderr=subprocess.PIPE,  # type: ignore[attr-defined]
                                text=True, env=os.environ.copy())
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not synced.summaries():
            time.sleep(0.2)
        assert synced.summaries() == ["book the car service"]  # at start
        # Written by another process while it runs: sent a few seconds later, by a child of the notifier.
        code, _, err = cli("remember", "renew the parking permit", "--due", "2026-12-01T09:00:00+00:00", now=NOW)
        assert code == 0, err
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(synced.summaries()) < 2:
            assert notifier.poll() is None
            time.sleep(0.2)
        assert synced.summaries() == ["book the car service", "renew the parking permit"]
        assert _rss_mb(notifier.pid) < 60
    finally:
        notifier.send_signal(signal.SIGTERM)
        out, err = notifier.communicate(timeout=30)
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert any(e["event"] == "calendar" and e["ok"] for e in events), out
    assert "book the car service" not in out and "parking" not in out  # ids and times only, never the text
