"""A progress bar on stderr for long jobs (import, index): rich's, and only on a terminal.

rich is imported only when a bar is shown, so scripts and pipes (and the light commands) never
pay for it, and their stderr stays free of control sequences.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from memory.text import counted


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


def progress_line(done: int, total: int, messages: int, conversations_per_s: float, messages_per_s: float) -> str:
    """The line a chat import prints without a terminal: what was read and what was added, which a
    re-import's summary ("0 conversations ...; 3 already present") never contradicts."""
    return (f"Read {done:,} of {counted(total, 'conversation')}: {counted(messages, 'message')} added "
            f"({counted(conversations_per_s, 'conversation')}/s, {counted(messages_per_s, 'message')}/s)")


class ImportProgress:
    """Progress of a chat export's import: on a terminal a bar with conversations and messages per second
    and the time left; elsewhere one line per thousand conversations (none when `quiet`: --json)."""

    EVERY = 1000

    def __init__(self, total: int, quiet: bool = False, terminal: bool | None = None) -> None:

        self.total = total
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.quiet = quiet
        self.started = time.monotonic()
        self._bar: ProgressBar | None = None
        self._last_line = 0
        self.messages = 0

    def __enter__(self) -> ImportProgress:
        if self.terminal and not self.quiet:
            self._bar = ProgressBar("Importing", self.total, min_total=1, enabled=True)
            self._bar.__enter__()
        return self

    def rates(self, done: int) -> tuple[float, float]:

        elapsed = max(time.monotonic() - self.started, 1e-6)
        return done / elapsed, self.messages / elapsed

    def update(self, done: int, total: int, messages: int) -> None:
        """`done` conversations of `total` read (added, grown or found already here), `messages` added."""
        self.messages = messages
        if self._bar is not None and self._bar._progress is not None:
            conversations, per_second = self.rates(done)
            self._bar._progress.update(self._bar._task, completed=done, total=total,
                                       description=f"Reading conversations ({counted(conversations, 'conversation')}"
                                                   f"/s; {counted(messages, 'message')} added, {per_second:,.0f}/s)")
        elif not self.quiet and not self.terminal and (done // self.EVERY > self._last_line or done == total):
            self._last_line = done // self.EVERY
            print(progress_line(done, total, messages, *self.rates(done)), file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
