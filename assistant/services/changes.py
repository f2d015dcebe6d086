"""Undo for a front end: the last change recorded in the store (memory.changes) put back, wherever it
was made (the reminder list, a dialog, the chat, the Memories screen, the CLI, an MCP client)."""
from __future__ import annotations

from assistant.runtime import Runtime
from memory import changes


class ChangeService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def undo_last(self) -> changes.UndoneChange | None:
        """Put back the last recorded change, made here or anywhere (the chat, the CLI)."""
        return changes.undo_last_change(self.runtime.store)

    def undo_text(self, undone: changes.UndoneChange | None) -> str:
        from assistant.tools import undo_text

        return undo_text(self.runtime, undone, mask=True)  # a notice: a secret masked, as the lists show it
