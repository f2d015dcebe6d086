"""The replica (SPEC F16) as the app sees it: a replicator kept running while the app runs (started at
launch when a replica is set and none runs; the app's own stopped at quit after a last sync), and the
status bar's warning when a change has waited more than ten minutes for the replica."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from assistant.replicas import parse_replica
from assistant.runtime import Runtime

if TYPE_CHECKING:
    from assistant.backup.keeper import Keeper

QUIT_BUDGET = 0.8  # seconds of the app's quit given to the replicator's last sync (the whole quit: 1 s)


class BackupService:
    def __init__(self, runtime: Runtime, notice: Callable[[str], None] | None = None) -> None:
        backup = runtime.settings.backup
        self.keeper: Keeper | None = None
        if backup.replica:  # only then: the replicator's modules (http.client for its socket) cost ~20 ms to import
            from assistant.backup.keeper import Keeper

            self.keeper = Keeper(runtime.settings.db_path(), parse_replica(backup.replica), backup.access(),
                                 say=self._said)
        self.notice = notice or (lambda text: None)

    @property
    def enabled(self) -> bool:
        return self.keeper is not None

    def _said(self, text: str) -> None:
        """A replicator that could not start is said once, in short (the whole line: `assistant backup run`)."""
        prefix = "the store is not being replicated: "
        if text.startswith(prefix):
            why = text.removeprefix(prefix).split(": ", 1)[0]
            self.notice(f"Backup: the store is not being replicated: {why} (`assistant backup run` says more)")

    def keep(self) -> None:
        """Start a replicator when none runs (blocking: a thread worker's, at launch and now and then)."""
        if self.keeper is not None:
            self.keeper.keep()

    def warning(self) -> str | None:
        """The status bar's words when a change has waited more than ten minutes for the replica, else None."""
        if self.keeper is None:
            return None
        status = self.keeper.status()
        if not status.late or status.lag_seconds is None:
            return None
        minutes = status.lag_seconds // 60
        waited = f"{minutes} min" if minutes < 120 else f"{minutes // 60} h"
        why = "not replicating" if not status.running else "replica unreachable" if status.error else "replica late"
        return f"⚠ backup {waited} behind: {why} (assistant backup status)"

    def stop_for_quit(self) -> None:
        """The app's own replicator ends after a last sync, within the quit's budget; another's is left."""
        if self.keeper is not None:
            self.keeper.stop(QUIT_BUDGET)
