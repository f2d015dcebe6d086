"""How a command that runs until stopped (`notify run`, `backup run`) learns it is asked to stop."""
from __future__ import annotations

import signal
import threading


class StopSignals:
    """SIGTERM and SIGINT set one event; the first signal's name says why the command stopped."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.names: list[str] = []
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.names.append(signal.Signals(signum).name)
        self.event.set()

    @property
    def why(self) -> str:
        return self.names[0] if self.names else "done"
