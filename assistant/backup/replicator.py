"""The replicator of one store: Litestream as a child process, one per store (SPEC F16).

`start` takes the store's lock (place.py), checks that the replica belongs to this store, writes
Litestream's config and starts `litestream replicate` as a child. The lock's file descriptor is
inherited, so the lock is held for as long as Litestream runs, whoever started it and whatever became
of that process. Litestream logs to a file beside the store and answers on its control socket: what
`assistant backup status` says is read from those, live, so nothing has to watch Litestream while it
runs. `assistant backup run` runs a Replicator in the foreground; the app and the notifier start the
same Replicator from a thread (no second Python process stays resident: Litestream alone, ~35 MB).

`stop` asks Litestream for a last sync (bounded), then ends it; Litestream itself syncs once more as it
stops (bounded by SHUTDOWN_SYNC_SECONDS), on its own time if the caller does not wait.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.backup import litestream
from assistant.backup.place import Lock, Place, holder, place_of
from assistant.backup.status import (
    LINEAGE_KEY,
    iso,
    last_error,
    now_utc,
    parse_instant,
    read_status_file,
    socket_of,
    write_status,
)
from assistant.errors import AssistantError
from assistant.replicas import Access, ReplicaURL
from memory.store import Store

SHUTDOWN_SYNC_SECONDS = 10.0  # the last sync as Litestream stops may take this long (a slow upload)
LOG_LIMIT = 1_000_000  # litestream.log is started afresh beyond this size (errors repeat every 30 s at most)

Say = Callable[[dict[str, Any], str], None]


class AlreadyRunning(AssistantError):
    """Another replicator holds this store's lock."""

    def __init__(self, place: Place, pid: int | None) -> None:
        who = f" (pid {pid})" if pid else ""
        super().__init__(f"a replicator already runs for {place.db}{who}: `assistant backup status` says how far "
                         "it is")
        self.pid = pid


def check_lineage(db: Path, replica: ReplicaURL, access: Access) -> list[dict[str, Any]] | None:
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
        files = litestream.replica_files(replica, access, db)
        if files:
            raise AssistantError(
                f"the replica {replica.shown()} already holds another store: replicating {db} there would make it the "
                f"replica's newest state. `assistant restore --from {replica.shown()} --db NEW_PATH` gets that store "
                "back; to replicate this one, give it a replica of its own (an empty folder or path)")
        store.set_meta(LINEAGE_KEY, replica.key())
    return files


class Replicator:
    """`own_group`: Litestream in a process group of its own (started by the app or the notifier: a terminal's
    Ctrl+C or hang-up meant for them would reach it too and end it without its last sync, SIGHUP at once);
    else in the starter's group (`backup run` in a terminal: Ctrl+C reaches both, and `kill -- -PGID` ends
    both)."""

    def __init__(self, db: Path, replica: ReplicaURL, access: Access | None = None,
                 shutdown_sync: float = SHUTDOWN_SYNC_SECONDS, own_group: bool = True) -> None:
        self.place = place_of(db)
        self.replica, self.access = replica, access or Access()
        self.shutdown_sync, self.own_group = shutdown_sync, own_group
        self.lock = Lock(self.place)
        self.process: subprocess.Popen[bytes] | None = None
        self.follower: LogFollower | None = None
        self.stopping = False  # Litestream said a signal reached it: it is making its last sync
        self.socket = self.place.socket  # its control socket (written into status.json for the others)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def start(self) -> None:
        """Take the lock, check the replica, start Litestream. AlreadyRunning when another replicator holds
        the lock; AssistantError (one line) when the replica cannot be used or Litestream cannot start."""
        if not self.lock.acquire():
            raise AlreadyRunning(self.place, holder(self.place))
        try:
            files = check_lineage(self.place.db, self.replica, self.access)
            saved = read_status_file(self.place)
            known = parse_instant(saved.get("last_replicated_at")) if saved.get("replica_key") == self.replica.key() \
                else None
            if files:
                known = litestream.newest_timestamp(files) or known
            self._spawn()
            assert self.process is not None
            write_status(self.place, {"pid": os.getpid(), "litestream_pid": self.process.pid,
                                      "socket": str(self.socket),
                                      "replica": self.replica.shown(), "replica_key": self.replica.key(),
                                      "started_at": iso(now_utc()), "last_replicated_at": iso(known)})
        except BaseException:
            self.lock.release()
            raise

    def _spawn(self) -> None:
        executable = litestream.binary()
        socket_path = self.socket = self.place.socket
        with contextlib.suppress(FileNotFoundError):
            socket_path.unlink()  # a socket left by a litestream that was killed
        config = litestream.replicate_config(self.place.db, self.replica, self.access, socket_path, self.shutdown_sync)
        fd = os.open(self.place.config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(config, out, indent=1)
        log = self.place.log
        with contextlib.suppress(OSError):
            if log.stat().st_size > LOG_LIMIT:
                log.replace(log.with_name(log.name + ".1"))
        log_fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.follower = LogFollower(log)
        assert self.lock.fd is not None
        try:
            self.process = subprocess.Popen(
                [executable, "replicate", "-config", str(self.place.config), "-no-expand-env"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log_fd, env=litestream.environment(),
                pass_fds=(self.lock.fd,), start_new_session=self.own_group)
        except OSError as exc:
            raise AssistantError(f"litestream cannot be started: {exc.strerror or exc}") from None
        finally:
            os.close(log_fd)

    def _records(self, say: Say | None = None) -> bool:
        """Read what Litestream logged since last asked (said, when `say`); True when it said it is stopping."""
        for record in self.follower.new_records() if self.follower is not None else []:
            if str(record.get("msg", "")).startswith("signal received"):
                self.stopping = True
            if say is not None:
                _say_record(record, say)
        return self.stopping

    def wait(self, stop: threading.Event, say: Say | None = None) -> None:
        """Until `stop` is set or Litestream ends by itself (AssistantError, with what it last logged); its log
        said as it goes (errors, snapshots)."""
        assert self.process is not None
        while not stop.wait(0.5):
            self._records(say)
            if self.process.poll() is not None:
                self._records(say)
                last = last_error(self.place.log) or f"exit status {self.process.returncode}"
                self.lock.release()
                raise AssistantError(f"litestream stopped by itself: {last}")
        self._records(say)

    def stop(self, budget: float | None = None, interrupted: bool = False) -> bool:
        """End this replicator after a last sync. `budget`: seconds to spend (the app's quit), else wait for
        Litestream's own last sync as it stops. `interrupted`: a Ctrl+C in the terminal, which reached
        Litestream too when it shares the group (a second signal would cut its last sync short). True when
        the replica had every change at the end, as far as is known."""
        process = self.process
        if process is None:
            return False
        synced = False
        if process.poll() is None:
            began = time.monotonic()
            if interrupted and not self.own_group:
                deadline = time.monotonic() + 0.5
                while not self._records() and time.monotonic() < deadline:
                    time.sleep(0.02)  # did the Ctrl+C reach it? It says so at once
                interrupted = self.stopping
            if budget is not None:
                synced = last_sync(self.place, max(0.1, min(budget - 0.2, 0.7)))
            if not interrupted or self.own_group:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
            left = None if budget is None else max(0.0, budget - (time.monotonic() - began))
            try:
                process.wait(self.shutdown_sync + 5 if left is None else left)
            except subprocess.TimeoutExpired:
                if left is None:
                    process.kill()
                    process.wait()
                # else: it finishes its last sync on its own, holding the lock until it ends
        self.lock.release()
        return synced or process.returncode == 0


def last_sync(place: Place, timeout: float) -> bool:
    """Ask the replicator running for this store to copy every change now, waiting up to `timeout` seconds;
    True when the replica has them all."""
    try:
        answer = litestream.control(socket_of(place), "POST", "/sync",
                                    {"path": str(place.db), "wait": True, "timeout": max(1, round(timeout))},
                                    timeout=timeout)
    except (OSError, AssistantError):
        return False
    return bool(answer.get("replicated_txid")) and answer.get("replicated_txid") == answer.get("txid")


class LogFollower:
    """The records Litestream appends to its log, read as they come."""

    def __init__(self, path: Path, from_start: bool = False) -> None:
        self.path = path
        self.offset = 0
        if not from_start:
            with contextlib.suppress(OSError):
                self.offset = path.stat().st_size

    def new_records(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, "rb") as log:
                log.seek(self.offset)
                data = log.read()
        except OSError:
            return []
        complete = data.rfind(b"\n") + 1
        self.offset += complete
        lines = data[:complete].decode("utf-8", "replace").splitlines()
        return [record for line in lines if (record := litestream.parse_log_line(line)) is not None]


def _say_record(record: dict[str, Any], say: Say) -> None:
    message = str(record.get("msg", ""))
    if str(record.get("level", "")).upper() == "ERROR":
        say({"event": "litestream_error", "error": litestream.describe(record)},
            f"litestream: {litestream.describe(record)}")
    elif message in ("snapshot complete", "sync recovered", "replica sync recovered"):
        say({"event": "litestream", "message": message}, f"litestream: {litestream.describe(record)}")
