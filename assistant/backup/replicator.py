"""`assistant backup run`: one replicator for one store, Litestream as its child (SPEC F16).

The process takes the store's lock (place.py: one replicator per store), checks the replica belongs to
this store, writes Litestream's config, and runs `litestream replicate` as a child in its own process
group: the lock's file descriptor is inherited, so a litestream whose parent was killed still holds it,
and on Linux it gets SIGTERM when its parent dies. Litestream copies every change within a second
(its sync interval). This process watches it: every POLL seconds it asks Litestream's control socket
when the replica was last synced, looks at the changes Litestream made from the WAL, and rewrites
status.json when what it says changed (nothing is written while nothing happens).

It ends on SIGTERM or SIGINT, when the process that started it ends (`parent`: the app, the notifier),
or when Litestream does: Litestream makes a last sync as it stops (bounded by SHUTDOWN_SYNC_SECONDS).
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from assistant.backup import litestream
from assistant.backup.place import Lock, Place, holder, place_of
from assistant.backup.status import iso, now_utc, parse_instant, read_status_file, wal_changed_at, write_status
from assistant.errors import AssistantError
from assistant.replicas import ReplicaURL
from memory.store import Store

POLL_SECONDS = 5.0  # how often Litestream is asked how far the replica is
SHUTDOWN_SYNC_SECONDS = 10.0  # the last sync as Litestream stops may take this long (a slow upload)
UNCAPTURED_AFTER = 3.0  # a WAL change Litestream has not picked up after this long (it looks every second)
STARTUP_SECONDS = 10.0  # Litestream's control socket may take this long to answer after a start
LINEAGE_KEY = "backup_replica"  # in the store's meta table: the replica it is replicated to

Say = Callable[[dict[str, Any], str], None]


class AlreadyRunning(AssistantError):
    """Another replicator holds this store's lock."""

    def __init__(self, place: Place, pid: int | None) -> None:
        who = f" (pid {pid})" if pid else ""
        super().__init__(f"a replicator already runs for {place.db}{who}: `assistant backup status` says how far "
                         "it is")
        self.pid = pid


def check_lineage(db: Path, replica: ReplicaURL, endpoint: str = "", region: str = "") -> list[dict[str, Any]] | None:
    """Refuse to replicate into a replica that holds another store (or this store before a restore that did
    not come from it): Litestream would continue that replica's history with this store, and its newest
    state, what a restore brings back, would be this store instead of the one it held (an empty store on a
    new machine, launched before the restore, would replace a whole memory). The store remembers the replica
    it is replicated to (meta backup_replica, itself replicated, so a restored store knows its replica).
    Returns the replica's files when it had to list them."""
    with Store(db, keep_wal=True) as store:
        known = store.get_meta(LINEAGE_KEY)
        if known == replica.key():
            return None
        files = litestream.replica_files(replica, endpoint, region)
        if files:
            raise AssistantError(
                f"the replica {replica.shown()} already holds a store that was not replicated from {db}: replicating "
                "into it would make this store its newest state. To get that store back: `assistant restore --from "
                f"{replica.shown()} --db NEW_PATH`; to replicate this one, give it a replica of its own (an empty "
                "folder or path)")
        store.set_meta(LINEAGE_KEY, replica.key())
    return files


def _die_with_parent() -> None:
    """In the child, before litestream starts: on Linux, SIGTERM when the parent dies (PR_SET_PDEATHSIG),
    so a replicator killed with -9 does not leave Litestream copying on with nobody watching."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Replicator:
    def __init__(self, db: Path, replica: ReplicaURL, say: Say, endpoint: str = "", region: str = "",
                 parent: int | None = None, poll: float = POLL_SECONDS,
                 shutdown_sync: float = SHUTDOWN_SYNC_SECONDS) -> None:
        self.place = place_of(db)
        self.replica, self.endpoint, self.region = replica, endpoint, region
        self.say, self.parent, self.poll, self.shutdown_sync = say, parent, poll, shutdown_sync
        self.lock = Lock(self.place)
        self.process: subprocess.Popen[str] | None = None
        self.started_at = now_utc()
        self.replicated_upto: datetime | None = None  # every change captured up to here is in the replica
        self.last_replicated: datetime | None = None  # when the newest change in the replica was captured
        self.uncaptured_since: datetime | None = None  # a WAL change Litestream has not picked up, seen first
        self.last_sync: datetime | None = None  # Litestream's last successful replica sync
        self.error: tuple[datetime, str] | None = None  # Litestream's last error, when it said it
        self.stopping_seen = False  # Litestream said it is shutting down (a signal reached it)
        self.socket_silent_since: datetime | None = None
        self.pending_since: datetime | None = None  # the oldest change the replica lacks
        self.written: dict[str, Any] = {}

    # -- start ----------------------------------------------------------------------------------------

    def start(self) -> None:
        """Take the lock, check the replica, start Litestream. AlreadyRunning when another replicator holds
        the lock; AssistantError when Litestream cannot be started."""
        if not self.lock.acquire():
            raise AlreadyRunning(self.place, holder(self.place))
        try:
            files = check_lineage(self.place.db, self.replica, self.endpoint, self.region)
            saved = read_status_file(self.place)
            if saved.get("replica_key") == self.replica.key():
                self.last_replicated = parse_instant(saved.get("last_replicated_at"))
            if files:
                self.last_replicated = litestream.newest_timestamp(files) or self.last_replicated
            self.replicated_upto = self.last_replicated
            self._spawn()
        except BaseException:
            self.lock.release()
            raise
        self._write_status()

    def _spawn(self) -> None:
        executable = litestream.binary()
        socket_path = self.place.socket
        with contextlib.suppress(FileNotFoundError):
            socket_path.unlink()  # a socket left by a litestream that was killed
        config = litestream.replicate_config(self.place.db, self.replica, socket_path, self.endpoint, self.region,
                                             self.shutdown_sync)
        fd = os.open(self.place.config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(config, out, indent=1)
        assert self.lock.fd is not None
        try:
            self.process = subprocess.Popen(
                [executable, "replicate", "-config", str(self.place.config), "-no-expand-env"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                errors="replace", env=litestream.environment(), pass_fds=(self.lock.fd,),
                preexec_fn=_die_with_parent)  # one thread so far: preexec_fn is safe here
        except OSError as exc:
            raise AssistantError(f"litestream cannot be started: {exc.strerror or exc}") from None
        assert self.process.stderr is not None
        threading.Thread(target=self._read_log, args=(self.process.stderr,), name="litestream log",
                         daemon=True).start()

    # -- while it runs --------------------------------------------------------------------------------

    def _read_log(self, stream: IO[str]) -> None:
        for line in stream:
            record = litestream.parse_log_line(line)
            if record is None:
                text = line.strip().removeprefix("Error:").strip()
                if text:
                    self.error = (now_utc(), litestream.describe({"msg": text}))
                continue
            message = str(record.get("msg", ""))
            if message.startswith("signal received"):
                self.stopping_seen = True
            level = str(record.get("level", "")).upper()
            if level == "ERROR":
                self.error = (now_utc(), litestream.describe(record))
                self.say({"event": "litestream_error", "error": self.error[1]}, f"litestream: {self.error[1]}")
            elif message in ("snapshot complete", "sync recovered", "replica sync recovered"):
                self.say({"event": "litestream", "message": message}, f"litestream: {litestream.describe(record)}")

    def run(self, stop: threading.Event) -> int:
        """Watch until `stop` is set, the parent ends or Litestream ends; then stop Litestream (after its
        last sync) and give the lock back. 0 when stopped, 1 when Litestream ended by itself."""
        assert self.process is not None
        next_poll = time.monotonic() + min(1.0, self.poll)
        why = "stopped"
        try:
            while True:
                if stop.wait(0.5):
                    break
                if self.process.poll() is not None:
                    why = "litestream ended"
                    break
                if self.parent is not None and os.getppid() != self.parent:
                    self.say({"event": "parent_gone", "parent": self.parent},
                             f"the process that started this replicator ({self.parent}) has ended: stopping after "
                             "a last sync")
                    break
                if time.monotonic() >= next_poll:
                    next_poll = time.monotonic() + self.poll
                    self.check()
        finally:
            code = self.stop()
        if why == "litestream ended":
            detail = self.error[1] if self.error else f"exit status {code}"
            raise AssistantError(f"litestream stopped by itself: {detail}")
        return 0

    def check(self) -> None:
        """Ask Litestream how far the replica is; rewrite status.json if what it says changed."""
        now = now_utc()
        try:
            answer = litestream.control(self.place.socket, "GET", "/list")
            self.socket_silent_since = None
        except (OSError, AssistantError):
            self.socket_silent_since = self.socket_silent_since or now
        else:
            for item in answer.get("databases") or []:
                if isinstance(item, dict) and os.path.abspath(str(item.get("path", ""))) == str(self.place.db):
                    self.last_sync = parse_instant(item.get("last_sync_at")) or self.last_sync
        self._account(now)
        self._write_status()

    def _account(self, now: datetime) -> None:
        captured = self._captured()
        upto = max((m for m in (self.last_sync, self.replicated_upto) if m is not None), default=None)
        if upto is not None:
            self.replicated_upto = upto
        replicated = [m for m in captured if upto is not None and m <= upto]
        if replicated:
            newest = max(replicated)
            self.last_replicated = max(newest, self.last_replicated) if self.last_replicated else newest
        waiting = [m for m in captured if upto is None or m > upto]
        changed = wal_changed_at(self.place)
        newest_capture = max(captured, default=None)
        stuck = changed is not None and (newest_capture is None or changed > newest_capture) and \
            (now - changed).total_seconds() > UNCAPTURED_AFTER and (upto is None or changed > upto)
        if stuck:
            self.uncaptured_since = self.uncaptured_since or changed
        else:
            self.uncaptured_since = None
        self.pending_since = min((*waiting, *([self.uncaptured_since] if self.uncaptured_since else [])),
                                 default=None)
        if self.last_replicated is None:  # nothing in the replica yet: the whole store waits for its first copy
            self.pending_since = min(self.pending_since or self.started_at, self.started_at)

    def _captured(self) -> list[datetime]:
        """When Litestream made each change file it still keeps (their modification times)."""
        found = []
        try:
            with os.scandir(self.place.local_changes) as entries:
                for entry in entries:
                    if entry.name.endswith(".ltx"):
                        with contextlib.suppress(OSError):
                            found.append(datetime.fromtimestamp(entry.stat().st_mtime, UTC))
        except OSError:
            pass
        return found

    def current_error(self, now: datetime) -> str | None:
        if self.socket_silent_since is not None and (now - self.socket_silent_since).total_seconds() > STARTUP_SECONDS:
            return "litestream does not answer on its control socket"
        if self.error is None:
            return None
        at, text = self.error
        if self.last_sync is not None and self.last_sync > at and self.pending_since is None:
            return None  # it synced since
        return text

    def _write_status(self, stopped: bool = False) -> None:
        data = {"pid": None if stopped else os.getpid(),
                "litestream_pid": None if stopped or self.process is None else self.process.pid,
                "replica": self.replica.shown(), "replica_key": self.replica.key(),
                "started_at": iso(self.started_at), "stopped": stopped,
                "last_replicated_at": iso(self.last_replicated), "pending_since": iso(self.pending_since),
                "error": self.current_error(now_utc())}
        if data != self.written:
            write_status(self.place, data)
            self.written = data

    # -- stop -----------------------------------------------------------------------------------------

    def stop(self) -> int | None:
        """Stop Litestream (it makes a last sync first) and give the lock back; its exit status."""
        code = None
        process = self.process
        if process is not None:
            if process.poll() is None:
                deadline = time.monotonic() + 0.3
                while not self.stopping_seen and time.monotonic() < deadline and process.poll() is None:
                    time.sleep(0.02)  # a Ctrl+C reached it too: a second signal would cut its last sync short
                if not self.stopping_seen:
                    with contextlib.suppress(ProcessLookupError):
                        process.send_signal(signal.SIGTERM)
                try:
                    code = process.wait(self.shutdown_sync + 5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    code = process.wait()
            else:
                code = process.returncode
            if code == 0 and self.error is None:
                # Its last sync copied what it had: the newest change it made is in the replica.
                self.replicated_upto = now_utc()
            self._account(now_utc())
        with contextlib.suppress(OSError):
            self.place.socket.unlink()
        self._write_status(stopped=True)
        self.lock.release()
        return code


def last_sync(place: Place, timeout: float) -> bool:
    """Ask the replicator running for this store to copy every change now, waiting up to `timeout`
    seconds; True when the replica has them all."""
    try:
        answer = litestream.control(place.socket, "POST", "/sync",
                                    {"path": str(place.db), "wait": True, "timeout": max(1, int(timeout))},
                                    timeout=timeout)
    except (OSError, AssistantError):
        return False
    return bool(answer.get("replicated_txid")) and answer.get("replicated_txid") == answer.get("txid")
