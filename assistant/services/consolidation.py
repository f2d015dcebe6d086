"""Consolidation for a front end (SPEC F6): whether the settings' triggers say it is due, a run in a
process of its own (assistant.jobs), and its end when the app closes."""
from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.jobs import ConsolidationFailed, ConsolidationProcess, consolidation_due
from assistant.runtime import Runtime

if TYPE_CHECKING:
    from memory.consolidation.pipeline import Progress


class ConsolidationService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._consolidation: ConsolidationProcess | None = None  # the one running, to stop at quit
        self._closing = False

    def due(self, idle_minutes: float) -> bool:
        return consolidation_due(self.runtime, idle_minutes)

    def run(self, progress: Progress | None = None) -> dict[str, object]:
        """Consolidate now, in a process of its own (assistant.jobs.ConsolidationProcess): scipy and the
        memory the run takes leave with it. Blocking: call it from a thread."""
        job = ConsolidationProcess(self.runtime.settings)
        self._consolidation = job
        try:
            if self._closing:
                raise ConsolidationFailed("the app is closing")
            return job.run(progress)
        finally:
            self._consolidation = None

    def stop(self) -> None:
        """The app is closing: a consolidation under way ends now (the store stays intact) and none starts."""
        self._closing = True
        job = self._consolidation
        if job is not None:
            job.stop()
