"""Messages more than one pane posts (Toad's messages.py): they bubble up to the screen, which routes
them, and to the app. A pane's own messages stay on its class (ReminderPanel.Loaded, DueWatcher.Due)."""
from __future__ import annotations

from textual.message import Message
from textual.worker import Worker


class StoreChanged(Message):
    """Something was written to the store (a turn, a change in the list, another process, a
    consolidation): whatever shows it is read again.

    `by_user`: a reminder was changed here, by the person; ctrl+z in the message box then undoes
    that change rather than the box's own typing (see ui/widgets/composer.py)."""

    def __init__(self, by_user: bool = False) -> None:
        super().__init__()
        self.by_user = by_user


class StatusNews(Message):
    """The status bar has news: a consolidation's progress ("consolidating 3/10 (cluster)", "idle"), or,
    with no text, a change it reads again itself (a model was chosen)."""

    def __init__(self, consolidation: str | None = None) -> None:
        super().__init__()
        self.consolidation = consolidation


class JobFailed(Message):
    """A background job of a pane failed; the app decides what that means (ui/app.py: worker_failed).

    Textual tells only the node that started a worker that it failed (Worker.StateChanged does not
    bubble): every node that runs workers mixes in ReportsFailures (ui/failures.py), which says so
    with this message."""

    def __init__(self, worker: Worker[object]) -> None:
        super().__init__()
        self.worker = worker
