"""The sync with a calendar server (SPEC F15), for the app: whether one is set up, how the last sync ended
(any process's), and the tick that starts or reaps an `assistant sync` child (assistant.caldav.background)
soon after a change and every caldav.interval_minutes. Blocking (SQLite, starting a process): call it from a
thread worker."""
from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.runtime import Runtime

if TYPE_CHECKING:
    from assistant.caldav.background import BackgroundSync, Ended


class CalendarService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._sync: BackgroundSync | None = None

    @property
    def configured(self) -> bool:
        return bool(self.runtime.settings.caldav.url)

    def last_status(self) -> str:
        """The status bar's words for the last sync ("calendar synced Mon Dec 7 14:02")."""
        from assistant.caldav.background import status_words  # the sync's state: only with a calendar set up
        from memory.transfer.caldav import last_sync

        store = self.runtime.store
        return status_words(last_sync(store), store.clock.short)

    def tick(self) -> Ended | None:
        """Start or reap a background sync; what one that ended did (its words, a line to show once)."""
        return self._background().tick()

    def at_quit(self) -> None:
        """A change still waiting goes in a sync of its own, which outlives the app; nothing is waited for."""
        if self._sync is not None:
            self._sync.at_quit()

    def _background(self) -> BackgroundSync:
        if self._sync is None:
            from assistant.caldav.background import BackgroundSync

            self._sync = BackgroundSync(self.runtime.store, self.runtime.settings, says_conflicts=True)
        return self._sync
