"""A progress bar on stderr for long jobs (import, index): rich's, and only on a terminal.

rich is imported only when a bar is shown, so scripts and pipes (and the light commands) never
pay for it, and their stderr stays free of control sequences.
"""
from __future__ import annotations

import sys
from typing import Any


class ProgressBar:
    """`with ProgressBar("Embedding", total) as bar: bar.update(done)`; silent unless stderr is a
    terminal and the job has at least `min_total` steps."""

    def __init__(self, label: str, total: int, min_total: int = 2000, enabled: bool | None = None) -> None:
        self.label = label
        self.total = total
        self.enabled = (sys.stderr.isatty() if enabled is None else enabled) and total >= min_total
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeRemainingColumn(), console=Console(stderr=True))
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=self.total)
        return self

    def update(self, done: int, total: int | None = None) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=done, total=total or self.total)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
