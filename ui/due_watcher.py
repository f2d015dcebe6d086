"""Reminders on time while the app runs: one timer for the next due instant (not a poll each minute),
and a cheap check each second whether another process changed the store (PRAGMA data_version) or
the clock has passed the next due instant (a frozen clock moved by a test, a machine back from
sleep). What it finds it says with messages; its state is touched on the event loop only."""
from __future__ import annotations

from datetime import UTC, datetime

from textual import work
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker

from assistant.service import AssistantService
from assistant.views import DueNotice
from ui.failures import ReportsFailures

POLL_SECONDS = 1.0  # how often the store is asked whether another process changed it
LAUNCH_NAMED = 3  # reminders named in the one launch notice; the rest are counted


def launch_text(notice: DueNotice) -> str:
    """The one notice at launch, however many fell due: how many, and the latest few by name."""
    from ui.text import one_line

    named = "; ".join(f"{one_line(r.content, 50)} ({r.when})" for r in notice.items[:LAUNCH_NAMED])
    n = notice.total
    if n <= LAUNCH_NAMED:
        return f"While the app was closed, {n} reminder{'s' if n != 1 else ''} fell due: {named}."
    return f"While the app was closed, {n:,} reminders fell due; the latest: {named}; and {n - LAUNCH_NAMED:,} more."


class DueWatcher(ReportsFailures, Widget):
    """Not drawn; lives on the main screen for its timers and workers."""

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

    class StoreChanged(Message):
        """Another process (the CLI, a second window) committed to the store."""

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

    def __init__(self, service: AssistantService) -> None:
        super().__init__()
        self.service = service
        self.next_due: datetime | None = None
        self._version: int | None = None  # the store's data_version when last checked
        self._timer: Timer | None = None
        self._check: Worker | None = None

    def on_mount(self) -> None:
        self.set_interval(POLL_SECONDS, self._tick, name="store-watch")

    # -- the check each second ----------------------------------------------------------------

    def _tick(self) -> None:
        if self._check is not None and not self._check.is_finished:
            return  # the last check is still waiting for the store
        self._check = self._check_store(self.next_due)

    @work(thread=True, group="store-watch", exit_on_error=False, description="check the store for changes")
    def _check_store(self, next_due: datetime | None) -> None:
        due = next_due is not None and self.service.runtime.clock.now() >= next_due
        self.post_message(self.Checked(self.service.data_version(), due))

    def on_due_watcher_checked(self, event: Checked) -> None:
        event.stop()
        changed = self._version is not None and event.version != self._version
        self._version = event.version
        if changed:
            self.post_message(self.StoreChanged())
        if changed or event.due:
            self.announce()

    # -- announcing and scheduling --------------------------------------------------------------

    @work(thread=True, exclusive=True, group="announce", exit_on_error=False, description="announce reminders")
    def announce(self) -> None:
        """Announce what fell due since the last announcement (at launch: while the app was closed)."""
        version = self.service.data_version()  # the baseline of the change watch, from before the read
        notice = self.service.take_due_reminders()
        self.post_message(self.Scheduled(self._next_due_now(), notice, version))

    @work(thread=True, exclusive=True, group="reschedule", exit_on_error=False, description="schedule reminders")
    def reschedule(self) -> None:
        """A reminder may have been added or moved (a turn, a snooze, another process): a new timer."""
        if self.service.announced_until is not None:  # not before the first announcement
            self.post_message(self.Scheduled(self._next_due_now()))

    def _next_due_now(self) -> datetime | None:
        moment = self.service.announced_until
        return self.service.next_due_after(moment) if moment is not None else None

    def on_due_watcher_scheduled(self, event: Scheduled) -> None:
        event.stop()
        if self._version is None and event.version is not None:
            self._version = event.version
        self._schedule(event.next_due)
        if event.notice is not None and event.notice.items:
            self.post_message(self.Due(event.notice))

    def _schedule(self, next_due: datetime | None) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.next_due = next_due
        if next_due is None:
            return
        # The app's clock has whole seconds (stored instants do too): measure the wait with the real
        # time when the clock runs, or the notice comes up to a second late. A hair late rather than
        # early, since early means a second round.
        clock = self.service.runtime.clock
        now = clock.now() if clock.fixed else datetime.now(UTC)
        delay = max(0.0, (next_due - now).total_seconds()) + 0.05
        self._timer = self.set_timer(min(delay, 86_400), self.announce, name="reminder-due")
