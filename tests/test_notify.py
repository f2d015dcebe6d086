"""Reminders that reach you with the app closed (SPEC F1): `assistant notify` and the desktop sender.

Real parts: a private D-Bus session bus (dbus-daemon) with a notification server on it
(python-dbusmock's notification_daemon template), started here; what arrived is read from the
server's log. The notifier runs as the real `assistant notify` process, reminders are written by
the real CLI in another process, and due times are a few seconds ahead of the real clock. Nothing
here measures a delay (benchmarks/bench_notify.py does); the waits are only bounds for a failure.
"""
from __future__ import annotations

import json
import os
import plistlib
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from assistant.autostart import install, notifier_command, systemd_quote
from assistant.desktop import DesktopSender
from assistant.notifier import Notifier, deliver
from memory import memories, reminders
from memory.store import Store
from tests.conftest import T0, make_runtime
from tests.desktop_bus import Notification, SessionBus, missing
from tests.test_import_hygiene import HEAVY

ASSISTANT = Path(sys.executable).with_name("assistant")


# -- the bus, the notifier process, the CLI ------------------------------------------------------

@pytest.fixture(scope="module")
def session_bus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionBus]:
    reason = missing()
    if reason:  # only where they cannot be installed: .ci/run installs them
        pytest.skip(reason)
    bus = SessionBus(tmp_path_factory.mktemp("bus"))
    yield bus
    bus.close()


class Desktop:
    """What reached the notification server since this test began."""

    def __init__(self, bus: SessionBus) -> None:
        self.bus = bus
        self.start = len(bus.notifications())

    def arrived(self) -> list[Notification]:
        return self.bus.notifications()[self.start:]

    def count(self, text: str) -> int:
        return sum(text in n.body for n in self.arrived())

    def wait_for(self, text: str, times: int = 1, timeout: float = 30.0) -> None:
        wait_until(lambda: self.count(text) >= times, timeout, f"{text!r} on the bus {times}x")


@pytest.fixture
def desktop(session_bus: SessionBus, monkeypatch: pytest.MonkeyPatch) -> Desktop:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", session_bus.address)
    return Desktop(session_bus)


T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = 30.0, what: str = "") -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class NotifierProcess:
    """`assistant notify` in a process of its own, its output lines collected as they come."""

    def __init__(self, db: str, *args: str) -> None:
        self.proc = subprocess.Popen([str(ASSISTANT), "notify", "--db", db, *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.lines) if line.startswith("{")]

    def wait_for_event(self, name: str, times: int = 1, timeout: float = 30.0) -> list[dict[str, Any]]:
        return wait_until(lambda: [e for e in self.events() if e["event"] == name][times - 1:] and
                          [e for e in self.events() if e["event"] == name], timeout, f"{times}x {name}: {self.lines}")

    def wait_for_line(self, text: str, times: int = 1, timeout: float = 30.0) -> None:
        wait_until(lambda: sum(text in line for line in list(self.lines)) >= times, timeout,
                   f"{times}x {text!r} in {self.lines}")

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        self._reader.join(timeout=10)
        return code, self.proc.stderr.read() if self.proc.stderr else ""


@pytest.fixture
def notifiers() -> Iterator[Callable[..., NotifierProcess]]:
    started: list[NotifierProcess] = []

    def start(db: str, *args: str) -> NotifierProcess:
        started.append(NotifierProcess(db, *args))
        return started[-1]

    yield start
    for n in started:
        if n.proc.poll() is None:
            n.proc.kill()
            n.proc.wait()


def cli(db: str, *args: str) -> str:
    """The real CLI, in a process of its own (as a person would type it while the notifier runs)."""
    done = subprocess.run([str(ASSISTANT), *args, "--db", db], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def remember_due(db: str, text: str, seconds: int) -> int:
    """A reminder written by the CLI, due `seconds` from now on the real clock; returns its id."""
    due = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=seconds)
    return int(json.loads(cli(db, "remember", text, "--due", due.isoformat(), "--allow-past", "--json"))["id"])


# -- the notifier with the app closed ----------------------------------------------------------

@pytest.mark.slow
def test_a_reminder_written_by_the_cli_while_the_notifier_runs_arrives_once(
        tmp_path: Path, desktop: Desktop, notifiers: Callable[..., NotifierProcess]) -> None:
    db = str(tmp_path / "m.db")
    notifier = notifiers(db, "--json")
    notifier.wait_for_event("started")
    first = remember_due(db, "Water the plants", 3)
    desktop.wait_for("Water the plants")
    # A later reminder arriving proves the notifier went on polling after the first one; it must not
    # have shown the first again in between.
    remember_due(db, "Call the bank", 2)
    desktop.wait_for("Call the bank")
    assert desktop.count("Water the plants") == 1 and desktop.count("Call the bank") == 1
    shown = next(n for n in desktop.arrived() if "Water the plants" in n.body)
    assert (shown.app, shown.title, shown.icon) == ("assistant", "Reminder", "appointment-soon")
    assert shown.body.startswith("Water the plants (due ")
    assert [e["id"] for e in notifier.events() if e["event"] == "notified"][:1] == [first]
    code, err = notifier.stop()
    assert code == 0 and err == ""
    assert notifier.lines[-1] == json.dumps({"event": "stopped", "signal": "SIGTERM"})


PROBE = r"""
import json, os, signal, sys, threading, time
from pathlib import Path

log, before, heavy, report = Path(sys.argv[1]), int(sys.argv[2]), set(json.loads(sys.argv[3])), Path(sys.argv[4])

def probe():
    # Once the notifier has shown what fell due, it has imported all it needs: look, then stop it.
    deadline = time.monotonic() + 60
    while log.read_text().count(" Notify ") <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    report.write_text(json.dumps(sorted({name.split(".")[0] for name in list(sys.modules)} & heavy)))
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=probe, daemon=True).start()
sys.argv = ["assistant", "notify", "--db", sys.argv[5]]
import ui.entry  # the console script's own module
sys.exit(ui.entry.main())
"""


@pytest.mark.slow
def test_what_fell_due_while_nothing_ran_arrives_once_at_start_from_a_light_process(
        tmp_path: Path, desktop: Desktop, notifiers: Callable[..., NotifierProcess]) -> None:
    db = str(tmp_path / "m.db")
    now = datetime.now(UTC)
    with Store(db) as store:
        memories.remember(store, "Take the pills", due_at=now - timedelta(minutes=10))
        memories.remember(store, "Renew the passport", due_at=now - timedelta(hours=30))  # beyond the lookback
        done = memories.remember(store, "Feed the cat", due_at=now - timedelta(minutes=5))
        reminders.mark_done(store, done.id)
        memories.remember(store, "Book the dentist", due_at=now + timedelta(hours=2))  # not yet
    report = tmp_path / "heavy.json"
    before = desktop.bus.log.read_text().count(" Notify ")
    probe = subprocess.run([sys.executable, "-c", PROBE, str(desktop.bus.log), str(before), json.dumps(HEAVY),
                            str(report), db], capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    assert json.loads(report.read_text()) == [], "the notifier imported heavy modules"
    assert probe.stdout.splitlines()[-1] == "assistant notify: stopped (SIGTERM)"
    assert [n.body.split(" (due")[0] for n in desktop.arrived()] == ["Take the pills"]
    # Started again, it has nothing to show: the store recorded the occurrence.
    again = notifiers(db, "--json")
    assert again.wait_for_event("started")[0]["shown"] == 0
    code, _ = again.stop(signal.SIGINT)
    assert code == 0 and again.events()[-1] == {"event": "stopped", "signal": "SIGINT"}
    assert desktop.count("Take the pills") == 1 and desktop.count("Renew the passport") == 0


@pytest.mark.slow
def test_two_notifiers_on_one_store_notify_each_occurrence_once(tmp_path: Path, desktop: Desktop,
                                                                notifiers: Callable[..., NotifierProcess]) -> None:
    db = str(tmp_path / "m.db")
    Store(db).close()
    pair = [notifiers(db, "--json"), notifiers(db, "--json")]
    for n in pair:
        n.wait_for_event("started")
    due = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=4)
    names = ["Stretch", "Drink water", "Stand up"]  # due at the same second: both notifiers wake for them
    with Store(db) as store:
        for name in names:
            memories.remember(store, name, due_at=due)
    remember_due(db, "Check the oven", 6)
    for name in [*names, "Check the oven"]:
        desktop.wait_for(name)
    remember_due(db, "Close the window", 2)  # both have swept again since
    desktop.wait_for("Close the window")
    for name in [*names, "Check the oven", "Close the window"]:
        assert desktop.count(name) == 1, name
    assert len(desktop.arrived()) == 5
    with Store(db) as store:
        assert store.one("SELECT count(*) FROM notified")[0] == 5
    for n in pair:
        assert n.stop()[0] == 0


@pytest.mark.slow
def test_a_snoozed_reminder_notifies_again_at_its_new_time(tmp_path: Path, desktop: Desktop,
                                                           notifiers: Callable[..., NotifierProcess]) -> None:
    db = str(tmp_path / "m.db")
    notifier = notifiers(db, "--json")
    notifier.wait_for_event("started")
    rid = remember_due(db, "Leave for the train", 2)
    desktop.wait_for("Leave for the train")
    later = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=3)
    cli(db, "snooze", str(rid), later.isoformat())
    desktop.wait_for("Leave for the train", times=2)
    remember_due(db, "Lock the door", 1)
    desktop.wait_for("Lock the door")
    assert desktop.count("Leave for the train") == 2
    assert notifier.stop()[0] == 0


@pytest.mark.slow
def test_without_a_bus_the_notifier_keeps_running_and_says_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   notifiers: Callable[..., NotifierProcess]) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS")
    monkeypatch.setenv("PATH", str(ASSISTANT.parent))  # and no notify-send
    db = str(tmp_path / "m.db")
    notifier = notifiers(db)
    notifier.wait_for_line("watching")
    first = remember_due(db, "Water the plants", 1)
    notifier.wait_for_line(f"not shown: reminder #{first}")
    second = remember_due(db, "Call the bank", 1)
    notifier.wait_for_line(f"not shown: reminder #{second}")
    assert notifier.proc.poll() is None
    code, err = notifier.stop()
    assert code == 0 and err == ""
    said = [line for line in notifier.lines if "no session bus" in line]
    assert len(said) == 1 and "still watching" in said[0], notifier.lines
    assert notifier.lines[-1] == "assistant notify: stopped (SIGTERM)"
    assert all(line.startswith("assistant notify: ") for line in notifier.lines)
    assert not any("Water the plants" in line for line in notifier.lines)  # ids in the journal, not the text
    with Store(db) as store:
        assert store.one("SELECT count(*) FROM notified")[0] == 0  # left for a process that can show them


# -- one claim per occurrence: the library, the app's send path, repeating reminders ------------

def test_an_occurrence_is_claimed_once_and_a_new_due_time_is_a_new_occurrence(store: Store) -> None:
    m = memories.remember(store, "Pay the rent", due_at=T0 + timedelta(hours=1))
    other = Store(store.path, store.clock)  # another connection, as another process has
    assert m.due_at is not None
    assert reminders.claim_notification(store, m.id, m.due_at, "app 1")
    assert not reminders.claim_notification(other, m.id, m.due_at, "notifier 2")
    moved = reminders.snooze(store, m.id, "2026-11-22T16:00:00Z")
    assert moved.due_at is not None
    assert not reminders.claim_notification(other, m.id, m.due_at, "notifier 2")  # no longer its due time
    assert reminders.claim_notification(other, m.id, moved.due_at, "notifier 2")
    reminders.release_notification(other, m.id, moved.due_at, "app 1")  # only its own claim is given back
    assert not reminders.claim_notification(store, m.id, moved.due_at, "app 1")
    reminders.release_notification(other, m.id, moved.due_at, "notifier 2")
    assert reminders.claim_notification(store, m.id, moved.due_at, "app 1")
    memories.forget(store, m.id)  # its records go with it; a claim on it claims nothing
    assert not reminders.claim_notification(other, m.id, moved.due_at, "notifier 2")
    assert store.one("SELECT count(*) FROM notified")[0] == 0
    other.close()


def test_a_send_that_fails_gives_the_claim_back(store: Store) -> None:
    m = memories.remember(store, "Pay the rent", due_at=T0)
    assert m.due_at is not None
    assert not deliver(store, m.id, m.due_at, "Reminder", "Pay the rent", lambda title, body: False, "app 1")
    assert deliver(store, m.id, m.due_at, "Reminder", "Pay the rent", lambda title, body: True, "notifier 2")
    assert store.one("SELECT by FROM notified")[0] == "notifier 2"


def _sweeper(store: Store) -> tuple[Notifier, list[dict[str, Any]]]:
    said: list[dict[str, Any]] = []
    return Notifier(store, store.clock, lambda event, text: said.append(event)), said


def test_the_app_and_the_notifier_raise_one_notification_per_occurrence(tmp_path: Path, desktop: Desktop) -> None:
    from assistant.services import Services
    from ui.desktop import notify_desktop

    services = Services(make_runtime(tmp_path, ASSISTANT_PROVIDER="offline"))
    store = services.runtime.store
    memories.remember(store, "Pay the rent", due_at=T0 - timedelta(minutes=1))
    rent = next(r for r in services.reminders.page().items if r.content == "Pay the rent")
    assert services.due.notify_desktop(rent, notify_desktop)  # the app first
    notifier, _ = _sweeper(Store(store.path, store.clock))
    assert notifier.sweep() == 0
    memories.remember(store, "Call the plumber", due_at=T0)
    assert notifier.sweep() == 1  # the notifier first
    plumber = next(r for r in services.reminders.page().items if r.content == "Call the plumber")
    assert not services.due.notify_desktop(plumber, notify_desktop)
    assert [n.body.split(" (due")[0] for n in desktop.arrived()] == ["Pay the rent", "Call the plumber"]
    notifier.sender.close()


def test_each_occurrence_of_a_repeating_reminder_and_each_snooze_notify_once(store: Store, desktop: Desktop) -> None:
    notifier, said = _sweeper(store)
    walk = memories.remember(store, "Walk the dog", due_at="every day at 9am")  # T0 is Sunday 14:00
    assert notifier.sweep() == 0
    store.clock.fixed = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
    assert notifier.sweep() == 1 and notifier.sweep() == 0
    reminders.mark_done(store, walk.id)  # on to Tuesday 09:00
    assert notifier.sweep() == 0
    store.clock.fixed = datetime(2026, 11, 24, 9, 0, 5, tzinfo=UTC)
    assert notifier.sweep() == 1
    reminders.snooze(store, walk.id, "2026-11-24T09:30:00Z")
    store.clock.fixed = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
    assert notifier.sweep() == 1 and notifier.sweep() == 0
    assert [n.body for n in desktop.arrived()] == ["Walk the dog (due Mon Nov 23 09:00)",
                                                   "Walk the dog (due Tue Nov 24 09:00)",
                                                   "Walk the dog (due Tue Nov 24 09:30)"]
    assert [e["event"] for e in said] == ["notified"] * 3
    notifier.sender.close()


def test_many_due_at_once_are_the_latest_three_and_one_summary(store: Store, desktop: Desktop) -> None:
    notifier, _ = _sweeper(store)
    for minute in range(8):
        memories.remember(store, f"Task {minute}", due_at=T0 - timedelta(minutes=10 - minute))
    assert notifier.sweep() == 4 and notifier.sweep() == 0
    bodies = [n.body for n in desktop.arrived()]
    assert [b.split(" (due")[0] for b in bodies[:3]] == ["Task 7", "Task 6", "Task 5"]
    assert bodies[3].startswith("and 5 more reminders fell due (the latest Sun Nov 22 13:54)")
    assert store.one("SELECT count(*) FROM notified")[0] == 8
    notifier.sender.close()


def test_markup_and_control_characters_arrive_escaped_and_bounded(store: Store, desktop: Desktop) -> None:
    notifier, _ = _sweeper(store)
    memories.remember(store, "<a href='https://x.example'>pay</a> & \x1b[2J\u202e now", due_at=T0)
    memories.remember(store, "long " * 5000, due_at=T0 - timedelta(minutes=1))
    assert notifier.sweep() == 2
    shown, long = desktop.arrived()
    assert shown.body == ("&lt;a href='https://x.example'&gt;pay&lt;/a&gt; &amp; ␛[2J&lt;U+202E&gt; now "
                          "(due Sun Nov 22 14:00)")
    assert len(long.body) <= 400 and long.body.endswith("… (due Sun Nov 22 13:59)")
    notifier.sender.close()


@pytest.mark.slow  # a bus of its own
def test_a_server_without_markup_gets_plain_text(session_bus: SessionBus, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A notification server that does not read markup shows the body as it is: no escaping then."""
    bus = SessionBus(tmp_path / "plain", capabilities=["body"])
    try:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
        sender = DesktopSender()
        assert sender.send("Reminder", "fish & chips <3 \x1b").ok
        sender.close()
        assert [n.body for n in bus.notifications()] == ["fish & chips <3 ␛"]
    finally:
        bus.close()


def test_the_sender_without_a_bus_says_why_and_raises_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no notify-send either
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS")
    sent = DesktopSender().send("Reminder", "x")
    assert not sent.ok and sent.no_bus and "DBUS_SESSION_BUS_ADDRESS" in sent.problem
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'gone'}")
    sent = DesktopSender().send("Reminder", "x")
    assert not sent.ok and sent.no_bus and "no session bus at" in sent.problem


def test_on_macos_the_text_goes_to_notification_center_as_arguments_never_as_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "argv.json"
    fake = tmp_path / "osascript"  # records its arguments, as the real one would receive them
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nopen({str(log)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS")
    text = 'say "hi" & do shell script "rm -rf ~" <b>\x07'
    sent = DesktopSender().send("Reminder", text)
    assert sent.ok and sent.via == "osascript"
    argv = json.loads(log.read_text())
    assert argv[-2:] == ["Reminder", 'say "hi" & do shell script "rm -rf ~" <b>␇']  # plain text: no markup there
    assert not any("rm -rf" in arg for arg in argv[:-1])


# -- notify --install ---------------------------------------------------------------------------

@pytest.mark.slow
def test_install_writes_a_user_unit_that_runs_this_assistant_on_the_same_store(tmp_path: Path) -> None:
    config = tmp_path / "xdg-config"
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "HOME": str(tmp_path / "home")}
    (tmp_path / "conf.toml").write_text("")
    done = subprocess.run([str(ASSISTANT), "notify", "--install", "--db", "my store.db", "--config", "conf.toml"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    unit = config / "systemd" / "user" / "assistant-notify.service"
    text = unit.read_text()
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert exec_line == (f"ExecStart={ASSISTANT} notify --db \"{tmp_path}/my store.db\" "
                         f"--config {tmp_path}/conf.toml")
    assert "[Install]\nWantedBy=default.target" in text and "Restart=on-failure" in text
    if shutil.which("systemd-analyze"):  # systemd's own reading of the file: quoting, an executable command
        verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
        assert verify.returncode == 0, verify.stderr
    assert "systemctl --user enable --now assistant-notify.service" in done.stdout
    assert "Nothing is enabled yet" in done.stdout
    again = subprocess.run([str(ASSISTANT), "notify", "--install", "--json"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
    data = json.loads(again.stdout)
    assert data["path"] == str(unit) and data["replaced"] is True and data["kind"] == "systemd"
    assert data["command"] == [str(ASSISTANT), "notify"] and data["content"] == unit.read_text()


@pytest.mark.slow
def test_install_refuses_with_one_line_where_it_cannot_write(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = {**os.environ, "XDG_CONFIG_HOME": str(blocker)}
    done = subprocess.run([str(ASSISTANT), "notify", "--install"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "cannot write" in done.stderr
    assert blocker.read_text() == ""


def test_install_writes_a_launchd_agent_on_macos(tmp_path: Path) -> None:
    command = notifier_command(ASSISTANT, str(tmp_path / "m.db"), None)
    installed = install(command, platform="darwin", log_dir=tmp_path / "logs")
    assert installed.path == Path.home() / "Library" / "LaunchAgents" / "local.assistant.notify.plist"
    agent = plistlib.loads(installed.path.read_bytes())
    assert agent["ProgramArguments"] == [str(ASSISTANT), "notify", "--db", str(tmp_path / "m.db")]
    assert agent["RunAtLoad"] is True and agent["Label"] == "local.assistant.notify"
    assert installed.enable == [f"launchctl bootstrap gui/{os.getuid()} {installed.path}"]


def test_a_path_is_quoted_for_systemd_as_it_is_written() -> None:
    assert systemd_quote("/usr/bin/assistant") == "/usr/bin/assistant"
    assert systemd_quote('/tmp/a "b" 100%/$HOME\\x') == '"/tmp/a \\"b\\" 100%%/$$HOME\\\\x"'
