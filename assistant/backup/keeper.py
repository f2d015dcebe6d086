"""The replicator the app and the notifier keep running in the background while a replica is set.

One replicator per store, whoever starts first (the store's lock): a keeper starts one when none runs,
checks again now and then (the app's replicator ends when the app quits; a notifier still running then
takes over), and stops only the one it started. The replicator is Litestream as this process's child,
in a process group of its own; nothing else stays resident (replicator.py).
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from assistant.backup.place import holder, place_of
from assistant.backup.replicator import SHUTDOWN_SYNC_SECONDS, AlreadyRunning, Replicator, last_sync
from assistant.backup.status import BackupStatus, read_status, read_status_file
from assistant.errors import AssistantError
from assistant.replicas import Access, ReplicaURL

CHECK_SECONDS = 30.0  # how often a keeper looks whether a replicator still runs


class Keeper:
    """`say(text)`: what happened, for a log or a notice (started, could not start, stopped)."""

    def __init__(self, db: Path, replica: ReplicaURL, access: Access | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.place = place_of(db)
        self.replica, self.access = replica, access or Access()
        self.say = say or (lambda text: None)
        self.replicator: Replicator | None = None
        self.problem = ""  # why the last start failed, as said (said again only when it changes)
        self.adopted: int | None = None  # a Litestream whose starter died (killed): stopped as ours at the end
        self.closing = False  # stop() was called: start nothing more
        self._lock = threading.Lock()

    def _adopt(self, starter: int) -> None:
        """The process that started the running replicator is gone (killed, crashed): its Litestream goes on
        by itself, holding the lock. This process takes it as its own, to stop it when it ends."""
        pid = read_status_file(self.place).get("litestream_pid")
        if isinstance(pid, int) and _alive(pid):
            self.adopted = pid
            self.say(f"took over the replicator (litestream pid {pid}) that process {starter} started and left")

    @property
    def owns(self) -> bool:
        """This process started the replicator that runs."""
        process = self.replicator.process if self.replicator is not None else None
        return process is not None and process.poll() is None

    def keep(self) -> bool:
        """Start a replicator when none runs for the store; True when one runs (this one or another's)."""
        with self._lock:
            if self.closing:
                return False
            if self.owns:
                return True
            if self.replicator is not None:  # ours ended by itself: its lock is given back
                self.replicator.lock.release()
                self.replicator = None
                self.say("the replicator this process started has ended; starting it again")
            running = holder(self.place)
            if running is not None:
                if running and not _alive(running) and self.adopted is None:
                    self._adopt(running)
                return True
            self.adopted = None
            replicator = Replicator(self.place.db, self.replica, self.access, own_group=True)
            try:
                replicator.start()
            except AlreadyRunning:
                return True  # another process started one a moment ago
            except AssistantError as exc:
                if str(exc) != self.problem:
                    self.problem = str(exc)
                    self.say(f"the store is not being replicated: {exc}")
                return False
            if self.closing:  # stop() came while this start was under way (a slow replica to list)
                replicator.stop(1.0)
                return False
            self.replicator, self.problem = replicator, ""
            self.say(f"replicating {self.place.db} to {self.replica.shown()} (litestream pid {replicator.pid})")
            return True

    def run(self, stop: threading.Event, every: float = CHECK_SECONDS) -> None:
        """keep() now and every `every` seconds until `stop` is set (a thread of the notifier)."""
        while True:
            with contextlib.suppress(Exception):  # a check that failed is tried again at the next
                self.keep()
            if stop.wait(every):
                return

    def status(self) -> BackupStatus:
        """What `assistant backup status` says, without listing the replica (cheap enough to poll)."""
        return read_status(self.place, self.replica, self.access, ask_replica=False)

    def stop(self, budget: float | None = None) -> bool:
        """Stop the replicator this process started, after a last sync (within `budget` seconds when given);
        True when the replica had every change, as far as is known. Another's replicator is left running."""
        self.closing = True
        if not self._lock.acquire(timeout=-1 if budget is None else budget):
            return False  # a start is under way (listing a slow replica): it sees `closing` and stops what it started
        try:
            replicator, self.replicator = self.replicator, None
            adopted, self.adopted = self.adopted, None
        finally:
            self._lock.release()
        if replicator is None and adopted is not None:
            return self._stop_adopted(adopted, budget)
        if replicator is None:
            return False
        synced = replicator.stop(budget)
        self.say("stopped the replicator after a last sync" if synced else
                 "stopped the replicator; its last sync goes on in the background or did not finish")
        return synced

    def _stop_adopted(self, pid: int, budget: float | None) -> bool:
        began = time.monotonic()
        synced = last_sync(self.place, max(0.1, min((budget or 5.0) - 0.2, 0.7)))
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        deadline = began + (budget if budget is not None else SHUTDOWN_SYNC_SECONDS + 5)
        while holder(self.place) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        self.say("stopped the replicator it took over")
        return synced


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
