"""One policy for background work that fails, wherever its worker lives.

Textual tells only the node that started a worker that it failed (Worker.StateChanged does not
bubble), so every pane, screen and service widget that runs workers mixes this in: it says so with a
JobFailed message, which bubbles up to the app, whose `worker_failed` decides (a store that cannot be
used ends the app with one line, anything else is a notice with the details in the log)."""
from __future__ import annotations

from textual.message_pump import MessagePump
from textual.worker import Worker, WorkerState

from ui.messages import JobFailed


class ReportsFailures(MessagePump):
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.post_message(JobFailed(event.worker))
