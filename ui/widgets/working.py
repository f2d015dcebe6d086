"""While an answer is being written: that the model is working, for how long, and how to stop it
(SPEC F7: a visible working state with the seconds elapsed; escape cancels the turn)."""
from __future__ import annotations

import time

from textual.timer import Timer
from textual.widgets import Static

SHOWN_AFTER = 0.6  # seconds: an instant answer (the offline mode) never flashes it


def working_line(seconds: float, key: str, model: str) -> str:
    return f"{model} is answering… {int(seconds)} s · {key} stops it (your message stays)"


class TurnClock(Static):
    """Hidden unless a turn runs for longer than a moment; then counts the seconds."""

    DEFAULT_CSS = "TurnClock { height: 1; padding: 0 1; color: $text-muted; display: none; }"

    def __init__(self, key: str, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.key = key
        self.model = "The model"
        self._started: float | None = None
        self._ticks: Timer | None = None

    def start(self, model: str) -> None:
        self.model = model
        self._started = time.monotonic()
        self._ticks = self.set_interval(0.5, self._tick, name="turn clock")

    def stop(self) -> None:
        self._started = None
        if self._ticks is not None:
            self._ticks.stop()
            self._ticks = None
        self.display = False

    def _tick(self) -> None:
        if self._started is None:
            return
        elapsed = time.monotonic() - self._started
        if elapsed >= SHOWN_AFTER:
            self.display = True
            self.update(working_line(elapsed, self.key, self.model))
