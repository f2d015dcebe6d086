"""One policy for background work that fails, wherever its worker lives.

Textual tells only the node that started a worker that it failed (Worker.StateChanged does not
bubble), so every pane, screen and service widget that runs workers mixes this in, and the app's
`worker_failed` decides: a store that cannot be used ends the app with one line, anything else is
a notice with the details in the log."""
from __future__ import annotations

from textual.worker import Worker, WorkerState


class ReportsFailures:
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.app.worker_failed(event.worker)  # type: ignore[attr-defined]
