"""Reminders falling due, for a front end that runs: when the next one is due, what fell due since the
last announcement (at launch: while the app was closed), the desktop notification claimed once per
occurrence, and whether another process changed the store."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from assistant.desktop import reminder_text
from assistant.notifier import deliver
from assistant.runtime import Runtime
from assistant.services.reminders import reminder_view
from assistant.views import DueNotice, ReminderView
from memory import reminders
from memory.time.instants import parse_stored, to_utc_iso

DUE_NAMED = 20  # reminders read per announcement; the rest are counted
ANNOUNCED_KEY = "announced_until"  # store meta: reminders due up to this instant have been announced
FIRST_LAUNCH_LOOKBACK = timedelta(days=30)  # a store never opened by the app: announce what fell due lately


class DueService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._announcing = threading.Lock()
        self.announced_until: datetime | None = None  # this process's own mark (see take_due_reminders)

    def data_version(self) -> int:
        """Changes when another process (the CLI, a second window) commits to the store."""
        return self.runtime.store.data_version()

    def next_due_after(self, moment: datetime) -> datetime | None:
        return reminders.next_due_after(self.runtime.store, moment)

    def seconds_until(self, moment: datetime) -> float:
        """How long until `moment` (0 or less: it has come), for a timer. A running clock is read to
        the microsecond here: its now() has whole seconds, and a timer set from it fires up to a
        second late. A frozen clock is read as it is (a test moves it)."""
        clock = self.runtime.clock
        now = clock.now() if clock.fixed else datetime.now(UTC)
        return (moment - now).total_seconds()

    def take_due_reminders(self) -> DueNotice:
        """Reminders that fell due since this process last announced (the latest DUE_NAMED, latest
        first, and how many in all), marked as announced now.

        At the first call (launch) the mark comes from the store, so what fell due while the app was
        closed is announced once, and a relaunch does not repeat it.
        """
        store, clock = self.runtime.store, self.runtime.clock
        with self._announcing:
            now = clock.now()
            at_launch = self.announced_until is None
            since = self.announced_until
            if since is None:
                stored = store.get_meta(ANNOUNCED_KEY)
                since = parse_stored(stored) if stored else now - FIRST_LAUNCH_LOOKBACK
                since = min(since, now)  # a mark from the future (an earlier frozen clock) announces nothing new
            items, total = reminders.fell_due_latest(store, since, now, DUE_NAMED) if since < now else ([], 0)
            self.announced_until = max(since, now)
            if at_launch or items:
                store.set_meta(ANNOUNCED_KEY, to_utc_iso(now))
        return DueNotice([reminder_view(r, clock) for r in items], total, at_launch)

    def notify_desktop(self, reminder: ReminderView, send: Callable[[str, str], bool]) -> bool:
        """The desktop notification of a reminder that fell due, through `send`, unless another process
        (`assistant notify`, another window) has raised it: the store records each occurrence once, and
        a failed send gives the record back. True when this process showed it."""
        title, body = reminder_text(reminder.content, reminder.when)
        return deliver(self.runtime.store, reminder.id, reminder.due_at, title, body, send, f"app {os.getpid()}")

    def remember_announced(self) -> None:
        """Store this process's mark (at quit), so the next launch starts from here."""
        if self.announced_until is not None:
            self.runtime.store.set_meta(ANNOUNCED_KEY, to_utc_iso(self.announced_until))
