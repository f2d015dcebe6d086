"""While an answer is being written: that the model is working, for how long, and how to stop it
(SPEC F7: a visible working state with the seconds elapsed; escape cancels the turn)."""
from __future__ import annotations

import time

from textual.timer import Timer
from textual.widgets import Static

SHOWN_AFTER = 0.6  # seconds: an instant answer (the offline mode) never flashes it


def working_line(seconds: float, key: str, doing: str) -> str:
    return f"{doing} {int(seconds)} s · {key} stops it"  # the line after a stop says the message is kept


class TurnClock(Static):
    """Hidden unless a turn runs for longer than a moment; then says what is happening (the model reading
    the message, then answering; without a model, the app reading it) and counts the seconds."""

    DEFAULT_CSS = "TurnClock { height: 1; padding: 0 1; color: $text-muted; display: none; }"

    def __init__(self, key: str, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.key = key
        self.model: str | None = None
        self.doing = "Reading your message…"
        self._started: float | None = None
        self._ticks: Timer | None = None

    def start(self, model: str | None) -> None:
        """A turn begins; `model`: the model that answers it (None: the offline mode)."""
        self.model = model
        # Before its first word a model is reading the message (on a CPU, the prompt is the slow part).
        self.doing = f"{model} is reading your message…" if model else "Reading your message…"
        self._started = time.monotonic()
        self._ticks = self.set_interval(0.5, self._tick, name="turn clock")

    def answering(self) -> None:
        """The first words of the answer are in."""
        self.doing = f"{self.model} is answering…" if self.model else "Writing the answer…"

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
            self.update(working_line(elapsed, self.key, self.doing))
