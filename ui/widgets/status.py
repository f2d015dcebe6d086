"""The status bar: the model, how many memories, consolidation, a frozen clock, and, first, that the
conversation is incognito. It reads the status service's StatusView in a worker of its own and words it; the
screen only passes on news."""
from __future__ import annotations

import asyncio

from textual import work
from textual.reactive import reactive
from textual.widgets import Static

from assistant.services import IncognitoService, StatusService
from assistant.views import StatusView
from ui import actions
from ui.failures import ReportsFailures
from ui.messages import StatusNews

INCOGNITO = "INCOGNITO: nothing said here is kept ({key} ends it)"
BACKUP_CHECK_SECONDS = 60.0  # how often the line reads again whether the replica is late


def status_line(view: StatusView | None, consolidation: str, incognito: str = "", calendar: str = "") -> str:
    """`incognito`: the words that say a conversation is incognito (first, so a narrow bar keeps them);
    `calendar`: how the last sync with a calendar server ended ("" when none is set up)."""
    if view is None:
        return f" {incognito}  ·  starting…" if incognito else "starting…"
    running = consolidation if consolidation != "idle" or not view.last_consolidation else None
    parts = [view.provider, f"{view.memories} {'memory' if view.memories == 1 else 'memories'}",
             *([calendar] if calendar else []), f"consolidation: {running or f'last run {view.last_consolidation}'}"]
    if view.frozen_at:
        parts.insert(0, f"⏸ clock frozen at {view.frozen_at}")
    if view.backup:
        parts.insert(0, view.backup)
    if incognito:
        parts.insert(0, incognito)
    return " " + "  ·  ".join(parts)


class StatusBar(ReportsFailures, Static):
    view: reactive[StatusView | None] = reactive(None)
    consolidation: reactive[str] = reactive("idle")
    incognito: reactive[bool] = reactive(False)  # read from the incognito service at each reload (no SQL)
    calendar: reactive[str] = reactive("")  # how the last calendar sync ended (ui/calendar_sync.py)

    def __init__(self, status: StatusService, incognito: IncognitoService, *, id: str | None = None,
                 keymap: dict[str, str] | None = None) -> None:
        super().__init__(status_line(None, "idle"), markup=False, id=id)
        self.status_service = status
        self.incognito_service = incognito
        self.keymap = keymap or {}
        self._asked = 0  # reads asked for; the newest one's answer is shown

    def on_mount(self) -> None:
        backup = self.status_service.backup
        if backup is not None and backup.enabled:  # a replica that falls behind says so without any news
            self.set_interval(BACKUP_CHECK_SECONDS, self.reload)

    # Not exclusive: a read superseded at start-up (a model chosen just after the first read) would be
    # cancelled, and whoever waits for the app's workers would be told so. The newest read wins instead.
    @work(group="status", exit_on_error=False, description="read the status")
    async def reload(self) -> None:
        self.incognito = self.incognito_service.active
        self._asked += 1
        asked = self._asked
        view = await asyncio.to_thread(self.status_service.view)
        if asked == self._asked:
            self.view = view

    def news(self, event: StatusNews) -> None:
        if event.consolidation is None:
            self.reload()
        else:
            self.consolidation = event.consolidation

    def _show(self) -> None:
        said = INCOGNITO.format(key=actions.key_for("new-conversation", self.keymap)) if self.incognito else ""
        self.set_class(self.incognito, "-incognito")
        self.update(status_line(self.view, self.consolidation, said, self.calendar))

    def watch_view(self) -> None:
        self._show()

    def watch_consolidation(self) -> None:
        self._show()

    def watch_incognito(self) -> None:
        self._show()

    def watch_calendar(self) -> None:
        self._show()
