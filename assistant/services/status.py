"""What the app's status line shows (assistant.views.StatusView): the model, how many memories, the
last consolidation, a frozen clock. Whatever else the line comes to say is read here too."""
from __future__ import annotations

from assistant.runtime import Runtime
from assistant.services.backup import BackupService
from assistant.services.model import ModelService
from assistant.views import StatusView
from memory import memories
from memory.consolidation.runs import last_completed_run


class StatusService:
    def __init__(self, runtime: Runtime, model: ModelService, backup: BackupService | None = None) -> None:
        self.runtime = runtime
        self.model = model
        self.backup = backup

    def view(self) -> StatusView:
        store = self.runtime.store
        last = last_completed_run(store)
        clock = self.runtime.clock
        return StatusView(self.model.provider_label, memories.count_memories(store),
                          clock.short(last.completed_at) if last and last.completed_at else None,
                          # Shown in the status bar so that nobody writes test times into a real store by accident.
                          clock.short(clock.fixed) if clock.fixed else None,
                          self.backup.warning() if self.backup is not None else None)
