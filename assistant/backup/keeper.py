"""The replicator the app and the notifier keep running in the background while a replica is set.

One replicator per store, whoever starts first (the store's lock): a keeper starts one when none runs,
checks again now and then (the app's replicator ends when the app quits; a notifier still running then
takes over), and stops only the one it started. The replicator is Litestream as this process's child,
in a process group of its own; nothing else stays resident (replicator.py).
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from assistant.backup.place import holder, place_of
from assistant.backup.replicator import AlreadyRunning, Replicator
from assistant.backup.status import BackupStatus, read_status
from assistant.errors import AssistantError
from assistant.replicas import ReplicaURL

CHECK_SECONDS = 30.0  # how often a keeper looks whether a replicator still runs


class Keeper:
    """`say(text)`: what happened, for a log or a notice (started, could not start, stopped)."""

    def __init__(self, db: Path, replica: ReplicaURL, endpoint: str = "", region: str = "",
                 say: Callable[[str], None] | None = None) -> None:
        self.place = place_of(db)
        self.replica, self.endpoint, self.region = replica, endpoint, region
        self.say = say or (lambda text: None)
        self.replicator: Replicator | None = None
        self.problem = ""  # why the last start failed, as said (said again only when it changes)
        self._lock = threading.Lock()

    @property
    def owns(self) -> bool:
        """This process started the replicator that runs."""
        process = self.replicator.process if self.replicator is not None else None
        return process is not None and process.poll() is None

    def keep(self) -> bool:
        """Start a replicator when none runs for the store; True when one runs (this one or another's)."""
        with self._lock:
            if self.owns:
                return True
            if self.replicator is not None:  # ours ended by itself: its lock is given back
                self.replicator.lock.release()
                self.replicator = None
                self.say("the replicator this process started has ended; starting it again")
            if holder(self.place) is not None:
                return True
            replicator = Replicator(self.place.db, self.replica, self.endpoint, self.region, own_group=True)
            try:
                replicator.start()
            except AlreadyRunning:
                return True  # another process started one a moment ago
            except AssistantError as exc:
                if str(exc) != self.problem:
                    self.problem = str(exc)
                    self.say(f"the store is not being replicated: {exc}")
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
        return read_status(self.place, self.replica, self.endpoint, self.region, ask_replica=False)

    def stop(self, budget: float | None = None) -> bool:
        """Stop the replicator this process started, after a last sync (within `budget` seconds when given);
        True when the replica had every change, as far as is known. Another's replicator is left running."""
        with self._lock:
            replicator, self.replicator = self.replicator, None
        if replicator is None:
            return False
        synced = replicator.stop(budget)
        self.say("stopped the replicator after a last sync" if synced else
                 "stopped the replicator; its last sync goes on in the background or did not finish")
        return synced
