"""The app's sync with a calendar server (SPEC F15), when one is set up: not drawn; every two seconds a worker
asks the calendar service whether to start or reap an `assistant sync` child (a few seconds after a change to
a reminder, and every caldav.interval_minutes), so no key ever waits for the network. What ended goes to
the screen as News: the status bar's words, and once, a failure or a conflict the sync could not merge. At
quit nothing waits: a running sync finishes on its own, and a change still waiting goes in one of its own."""
from __future__ import annotations

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker

from assistant.services import CalendarService
from ui.failures import ReportsFailures

TICK_SECONDS = 2.0


class CalendarSync(ReportsFailures, Widget):
    DEFAULT_CSS = "CalendarSync { display: none; }"

    class News(Message):
        def __init__(self, status: str, notice: str | None = None) -> None:
            super().__init__()
            self.status = status
            self.notice = notice

    def __init__(self, calendar: CalendarService) -> None:
        super().__init__()
        self.calendar = calendar
        self._check: Worker[None] | None = None
        self._said_last = False

    def on_mount(self) -> None:
        if self.calendar.configured:
            self.set_interval(TICK_SECONDS, self._tick, name="calendar-sync")

    def start(self) -> None:
        """At launch, once the first frame is drawn: how the last sync ended, and a sync now."""
        if self.calendar.configured:
            self._tick()

    def _tick(self) -> None:
        if self._check is not None and not self._check.is_finished:
            return
        self._check = self._run_tick()

    @work(thread=True, group="calendar-sync", exit_on_error=False, description="sync with the calendar server")
    def _run_tick(self) -> None:
        if not self._said_last:
            self._said_last = True
            self.post_message(self.News(self.calendar.last_status()))
        ended = self.calendar.tick()
        if ended is not None:
            self.post_message(self.News(ended.status, ended.notice))

    def at_quit(self) -> None:
        self.calendar.at_quit()
