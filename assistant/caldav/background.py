"""How the app and the notifier sync by themselves (SPEC F15): each sync is a short-lived `assistant sync --json`
child process, started a few seconds after a change to a reminder here (made by any process) and every
caldav.interval_minutes (and once at start), never waited for.

A child, not a thread: the caldav client and its HTTP stack add about 35 MB and 0.45 s of imports to the
process that loads them, which the notifier's 60 MB cannot carry and the app need not; and a sync killed
with its process loses nothing (see sync.py). The child records how it ended in the store
(memory.transfer.caldav.last_sync), so the app shows a sync the notifier made, and the other way round.

`tick()` does a few cheap reads (whether anything was written since the last look: PRAGMA data_version and
this connection's total_changes(); then how many reminders wait to be sent, counted in the indexes) and
starts or reaps the child: the app calls it from a worker thread every two seconds, the notifier from its
loop.
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.settings import Settings
from memory.store import Store
from memory.transfer import caldav as state

DEBOUNCE_SECONDS = 3.0  # a change here goes this long after it (changes made meanwhile go with it)
RETRY_SECONDS = 30.0  # after a failed sync, a change waits this long, doubled at each failure, up to the interval
CHILD_LIMIT_SECONDS = 30 * 60  # a sync that runs longer is stopped (it loses nothing; the next one goes on)
STOP_WAIT_SECONDS = 3.0  # at quit, a running sync is given this long to finish before it is stopped


@dataclass
class Ended:
    """A background sync that ended: the status bar's words, and a line to show once (None: nothing new)."""

    ok: bool
    status: str
    notice: str | None = None


def status_words(last: dict[str, Any] | None, clock_short: Callable[[str], str]) -> str:
    """The status bar's words for how the last sync ended: "calendar synced Mon Dec 7 14:02", "calendar: login
    refused (Mon Dec 7 14:02)"."""
    words = sync_words(last, clock_short)
    return f"calendar {words}" if words.startswith("synced") else f"calendar: {words}"


def sync_words(last: dict[str, Any] | None, clock_short: Callable[[str], str]) -> str:
    """How the last sync ended, in a few words: "synced Mon Dec 7 14:02", "login refused (Mon Dec 7 14:02)"."""
    if last is None:
        return "not synced yet"
    when = clock_short(str(last.get("at"))) if last.get("at") else "?"
    if last.get("ok"):
        return f"synced {when}"
    return f"{short_reason(str(last.get('error', '')))} ({when})"


def short_reason(error: str) -> str:
    """A failed sync's one line, said in a few words for a status bar."""
    for marker, words in (("refused the login", "login refused"), ("cannot reach", "server unreachable"),
                          ("cannot be trusted", "certificate not trusted"), ("is not set", "not set up"),
                          ("still running", "another sync running"), ("takes no to-dos", "calendar takes no to-dos")):
        if marker in error:
            return words
    return "sync failed"


class BackgroundSync:
    """Starts and reaps `assistant sync` children for one store; `says_conflicts`: this front end says what a
    sync could not merge (the app), once."""

    def __init__(self, store: Store, settings: Settings, says_conflicts: bool = False,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.settings = settings
        self.says_conflicts = says_conflicts
        self.monotonic = monotonic
        self.interval = settings.caldav.interval_minutes * 60
        self.db_path = settings.db_path()
        self._child: subprocess.Popen[bytes] | None = None
        self._started = 0.0
        self._last_start: float | None = None  # None: not yet (the first tick syncs)
        self._seen: tuple[int, int] | None = None
        self._pending_since: float | None = None
        self._failure = ""  # the failure last said (said again only when it changes)
        self._failures = 0  # failed syncs in a row: a change waits longer after each (the server is down)
        self._not_before = 0.0

    def command(self) -> list[str]:
        """The child: this Python running the command line, with this run's store, config and clock."""
        command = [sys.executable, "-m", "assistant.cli.program", "sync", "--json", "--db", str(self.db_path)]
        if self.settings.config_path:
            command += ["--config", self.settings.config_path]
        if self.settings.now:
            command += ["--now", self.settings.now]
        return command

    @property
    def running(self) -> bool:
        return self._child is not None

    def tick(self) -> Ended | None:
        """Reap a child that ended (what it did), or start one when a change waits or the interval is up."""
        now = self.monotonic()
        if self._child is not None:
            if self._child.poll() is None:
                if now - self._started > CHILD_LIMIT_SECONDS:
                    self._child.kill()
                return None
            return self._reaped()
        seen = (self.store.data_version(), int(self.store.one("SELECT total_changes()")[0]))
        if seen != self._seen:  # something was written, here or by another process: anything to send?
            self._seen = seen
            waiting = state.pending(self.store) > 0
            self._pending_since = (self._pending_since or now) if waiting else None
        by_change = self._pending_since is not None and now - self._pending_since >= DEBOUNCE_SECONDS \
            and now >= self._not_before
        by_interval = self._last_start is None or now - self._last_start >= self.interval
        if (by_change or by_interval) and not self._another_sync_running():
            self._start(now)
        return None

    def _start(self, now: float) -> None:
        self._child = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, start_new_session=True, env=os.environ.copy())
        self._started = now
        self._last_start = now
        self._pending_since = None

    def _another_sync_running(self) -> bool:
        """Whether a sync of this store holds its lock now (the notifier's, a `assistant sync` typed in a shell):
        then this one waits for the next tick rather than queue behind it."""
        try:
            fd = os.open(Path(f"{self.db_path}.caldav-lock"), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    def _reaped(self) -> Ended:
        child, self._child = self._child, None
        assert child is not None
        error = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
        if child.stderr:
            child.stderr.close()
        last = state.last_sync(self.store)
        if child.returncode != 0 and (last is None or last.get("ok")):
            # Ended before it could record why (a bad configuration, exit 2): its own line says it.
            reason = " ".join(error.split()).removeprefix("assistant: ").removeprefix("error: ")
            last = {"at": self.store.clock.now_iso(), "ok": False, "error": reason or f"exit {child.returncode}"}
        status = status_words(last, self.store.clock.short)
        notices = []
        ok = bool(last and last.get("ok"))
        self._failures = 0 if ok else self._failures + 1
        wait = min(self.interval, RETRY_SECONDS * 2 ** min(self._failures - 1, 16))
        self._not_before = 0.0 if ok else self.monotonic() + wait
        if last and not last.get("ok"):
            failure = str(last.get("error", ""))
            if failure != self._failure:
                self._failure = failure
                notices.append(f"Calendar sync: {failure}")
        else:
            self._failure = ""
        if self.says_conflicts:
            notices += [conflict.describe() for conflict in state.unsaid_conflicts(self.store)]
            state.mark_said(self.store)
        return Ended(ok, status, "\n".join(notices) or None)

    def at_quit(self) -> None:
        """The app quits at once: a running sync finishes on its own (its own session: the terminal's hangup
        does not stop it), and a change made in the last seconds, still waiting, goes in one now."""
        if self._child is None and state.pending(self.store) > 0 and not self._another_sync_running():
            self._start(self.monotonic())
        self._child = None

    def stop(self) -> None:
        """At the notifier's end: a running sync gets a moment to finish, then it is stopped (it loses nothing)."""
        child, self._child = self._child, None
        if child is None:
            return
        try:
            child.wait(STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            child.terminate()
            try:
                child.wait(STOP_WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if child.stderr:
            child.stderr.close()
