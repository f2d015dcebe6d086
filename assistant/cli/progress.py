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


def per_second(rate: float) -> str:
    """"13 a second", "0.4 a second"."""
    return f"{rate:,.0f} a second" if rate >= 1 else f"{rate:.1f} a second"


def duration_words(seconds: float) -> str:
    """"under a minute", "about 13 min", "about 2 h 10 min": a time said as a person would."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"about {minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h" + (f" {minutes} min" if minutes else "")


class EmbeddingProgress:
    """Texts embedded, the rate measured here and the time left: rich's bar saying both on a terminal (for
    200 texts and more), else a line on stderr every LINE_EVERY seconds (none when `quiet`). The model's
    speed depends on the machine and on the texts (a long chat message costs ten short notes): the rate is
    what this run measured, never a figure from elsewhere."""

    LINE_EVERY = 30.0

    def __init__(self, total: int, quiet: bool = False, terminal: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.quiet = quiet
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.started = time.monotonic()
        self._last_line = self.started
        self._bar: ProgressBar | None = None
        self.ahead: float | None = None  # seconds the waiting texts take at a sample's pace (see ahead_words)

    def __enter__(self) -> EmbeddingProgress:
        self.started = self._last_line = time.monotonic()
        if self.terminal and not self.quiet:
            self._bar = ProgressBar("Embedding", self.total, min_total=200, enabled=True)
            self._bar.__enter__()
        return self

    def rate(self) -> float | None:
        """Texts a second so far (None before the first batch)."""
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if self.done and elapsed > 0 else None

    def pace(self) -> str:
        """"13 a second here, about 11 min left": the rate of this run so far, and the rest at that rate."""
        rate = self.rate()
        if rate is None:
            return ""
        return f"{per_second(rate)} here, {duration_words((self.total - self.done) / rate)} left"

    def ahead_words(self, waiting: int) -> str:
        """"about 19 min for 10,168 texts, 9 a second here": what a sample measured (`ahead`, the seconds
        the waiting texts take at its pace)."""
        if not self.ahead:
            return "embedding them was not timed"
        return f"{duration_words(self.ahead)} for {waiting:,} texts, {per_second(waiting / self.ahead)} here"

    def update(self, done: int) -> None:
        """`done`: texts embedded so far in this run."""
        self.done = done
        self.total = max(self.total, done)
        if self._bar is not None and self._bar._progress is not None:
            self._bar._progress.update(self._bar._task, completed=done, total=self.total,
                                       description=f"Embedding ({self.pace()})" if self.pace() else "Embedding")
        elif not self.quiet and not self.terminal and time.monotonic() - self._last_line >= self.LINE_EVERY:
            self._last_line = time.monotonic()
            print(f"Embedded {done:,} of {self.total:,} texts ({self.pace()})", file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
