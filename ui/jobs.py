"""Work the app does while you are idle: consolidation (when due by the settings' triggers, or by
hand), and embedding what a big import left waiting. Progress is said with messages; the state
(`running`) is written on the event loop only."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget

from assistant.service import AssistantService
from ui.failures import ReportsFailures

EMBED_IDLE_SECONDS = 10.0  # quiet this long, the app embeds texts a big import left waiting
CHECK_SECONDS = 60.0  # how often the consolidation triggers are looked at


class IdleJobs(ReportsFailures, Widget):
    """Not drawn; lives on the main screen for its timers and workers. `idle_for()` says how many
    seconds since the user last pressed a key, `busy()` whether an answer is being written."""

    DEFAULT_CSS = "IdleJobs { display: none; }"

    class Progress(Message):
        """Consolidation state for the status bar: "consolidating 3/10 (cluster)", or "idle"."""

        def __init__(self, state: str) -> None:
            super().__init__()
            self.state = state

    class Finished(Message):
        def __init__(self, result: dict[str, Any] | None, error: str | None = None) -> None:
            super().__init__()
            self.result = result
            self.error = error

    def __init__(self, service: AssistantService, idle_for: Callable[[], float], busy: Callable[[], bool],
                 embed_idle_seconds: float = EMBED_IDLE_SECONDS) -> None:
        super().__init__()
        self.service = service
        self.idle_for = idle_for
        self.busy = busy
        self.embed_idle_seconds = embed_idle_seconds
        self.running = False  # a consolidation is under way

    def on_mount(self) -> None:
        self.set_interval(CHECK_SECONDS, self.maybe_consolidate, name="idle-consolidation")
        self.set_interval(self.embed_idle_seconds, self.embed_while_idle, name="idle-embedding")

    # -- consolidation ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="idle-check", exit_on_error=False,
          description="check whether to consolidate")
    def maybe_consolidate(self) -> None:
        """Consolidate in the background when idle long enough or many memories are new (F6 triggers)."""
        if not self.running and not self.busy() and self.service.consolidation_due(self.idle_for() / 60):
            self.app.call_from_thread(self.consolidate)

    def consolidate(self) -> None:
        if self.running:
            return
        self.running = True
        self.post_message(self.Progress("consolidating…"))
        self._consolidate()

    @work(thread=True, exclusive=True, group="consolidate", exit_on_error=False, description="consolidate")
    def _consolidate(self) -> None:
        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(self.Progress(f"consolidating {done}/{total} ({phase})"))

        try:
            result = self.service.consolidate(progress)
        except Exception as exc:  # noqa: BLE001 - a failed run must not take the app down
            self.post_message(self.Finished(None, str(exc)))
        else:
            self.post_message(self.Finished(result))

    def on_idle_jobs_finished(self, event: Finished) -> None:
        self.running = False
        self.post_message(self.Progress("idle"))

    # -- embedding an import's backlog ----------------------------------------------------------

    @work(thread=True, exclusive=True, group="idle-embed", exit_on_error=False, description="embed waiting texts")
    def embed_while_idle(self) -> None:
        """After a big import thousands of texts wait for their embeddings (search finds them by keywords
        meanwhile): embed them a batch at a time (about a second each) while nobody types or waits for
        an answer, and stop at the first key."""
        waiting = None
        while not self.busy() and self.idle_for() >= self.embed_idle_seconds and self.app.is_running:
            left = self.service.embed_backlog()
            if left == 0 or (waiting is not None and left >= waiting):  # done, or no progress: stop
                break
            waiting = left
