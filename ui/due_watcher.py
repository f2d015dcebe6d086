"""Reminders on time while the app runs: one timer for the next due instant (not a poll each minute),
and a cheap check each second whether another process changed the store (PRAGMA data_version) or
the clock has passed the next due instant (a frozen clock moved by a test, a machine back from
sleep). What falls due it says itself (toasts, the bell, desktop notifications when switched on) and
with a message for the panes; its state is touched on the event loop only."""
from __future__ import annotations

from datetime import datetime

from textual import work
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker

from assistant.services import DueService
from assistant.views import DueNotice, ReminderView
from ui import desktop, due_notices
from ui.failures import ReportsFailures
from ui.messages import StoreChanged

POLL_SECONDS = 1.0  # how often the store is asked whether another process changed it


class DueWatcher(ReportsFailures, Widget):
    """Not drawn; lives on the main screen for its timers and workers. `desktop_notifications`: also raise
    a desktop notification for each reminder that falls due (config ui.desktop_notifications)."""

    DEFAULT_CSS = "DueWatcher { display: none; }"

    class Due(Message):
        """Reminders that fell due since the last announcement (at_launch: while the app was closed):
        the latest few, latest first, and how many in all."""

        def __init__(self, notice: DueNotice) -> None:
            super().__init__()
            self.notice = notice
            self.items = notice.items
            self.total = notice.total
            self.at_launch = notice.at_launch

    class Checked(Message):
        def __init__(self, version: int, due: bool) -> None:
            super().__init__()
            self.version = version
            self.due = due

    class Scheduled(Message):
        def __init__(self, next_due: datetime | None, notice: DueNotice | None = None,
                     version: int | None = None) -> None:
            super().__init__()
            self.next_due = next_due
            self.notice = notice
            self.version = version

    def __init__(self, due: DueService, desktop_notifications: bool = False) -> None:
        super().__init__()
        self.due = due
        self.desktop_notifications = desktop_notifications
        self.next_due: datetime | None = None
        self._version: int | None = None  # the store's data_version when last checked
        self._timer: Timer | None = None
        self._check: Worker[None] | None = None

    def on_mount(self) -> None:
        self.set_interval(POLL_SECONDS, self._tick, name="store-watch")

    # -- the check each second ----------------------------------------------------------------

    def _tick(self) -> None:
        if self._check is not None and not self._check.is_finished:
            return  # the last check is still waiting for the store
        self._check = self._check_store(self.next_due)

    @work(thread=True, group="store-watch", exit_on_error=False, description="check the store for changes")
    def _check_store(self, next_due: datetime | None) -> None:
        due = next_due is not None and self.due.seconds_until(next_due) <= 0
        self.post_message(self.Checked(self.due.data_version(), due))

    def on_due_watcher_checked(self, event: Checked) -> None:
        event.stop()
        changed = self._version is not None and event.version != self._version
        self._version = event.version
        if changed:  # another process (the CLI, a second window) committed to the store
            self.post_message(StoreChanged())
        if changed or event.due:
            self.announce()

    # -- announcing and scheduling --------------------------------------------------------------

    @work(thread=True, exclusive=True, group="announce", exit_on_error=False, description="announce reminders")
    def announce(self) -> None:
        """Announce what fell due since the last announcement (at launch: while the app was closed)."""
        version = self.due.data_version()  # the baseline of the change watch, from before the read
        notice = self.due.take_due_reminders()
        self.post_message(self.Scheduled(self._next_due_now(), notice, version))

    @work(thread=True, exclusive=True, group="reschedule", exit_on_error=False, description="schedule reminders")
    def reschedule(self) -> None:
        """A reminder may have been added or moved (a turn, a snooze, another process): a new timer."""
        if self.due.announced_until is not None:  # not before the first announcement
            self.post_message(self.Scheduled(self._next_due_now()))

    def _next_due_now(self) -> datetime | None:
        moment = self.due.announced_until
        return self.due.next_due_after(moment) if moment is not None else None

    def on_due_watcher_scheduled(self, event: Scheduled) -> None:
        event.stop()
        if self._version is None and event.version is not None:
            self._version = event.version
        self._schedule(event.next_due)
        if event.notice is not None and event.notice.items:
            self._say(event.notice)
            self.post_message(self.Due(event.notice))

    def _say(self, notice: DueNotice) -> None:
        for toast in due_notices.toasts(notice):
            self.app.notify(toast.text, title=toast.title, severity="warning", timeout=toast.timeout, markup=False)
        if self.desktop_notifications and not notice.at_launch:
            self._notify_desktop(due_notices.on_desktop(notice))
        self.app.bell()

    @work(thread=True, group="desktop-notify", exit_on_error=False, description="send a desktop notification")
    def _notify_desktop(self, items: list[ReminderView]) -> None:
        for r in items:  # claimed in the store first: one per occurrence, with `assistant notify` or not
            self.due.notify_desktop(r, desktop.notify_desktop)

    def _schedule(self, next_due: datetime | None) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.next_due = next_due
        if next_due is None:
            return
        # A hair late rather than early, since early means a second round.
        delay = max(0.0, self.due.seconds_until(next_due)) + 0.05
        self._timer = self.set_timer(min(delay, 86_400), self.announce, name="reminder-due")
