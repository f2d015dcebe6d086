"""Consolidation wired to the app's settings: the configured Ollama model and the local embedder; in
the app, in a process of its own (ConsolidationProcess)."""
from __future__ import annotations

import dataclasses
import json
import os
import pickle
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.errors import AssistantError, explain
from assistant.providers.local import local_model
from assistant.runtime import Runtime
from assistant.settings import Settings
from memory.consolidation.options import Options
from memory.consolidation.runs import last_completed_run
from memory.memories import count_created_since
from memory.time.instants import parse_stored

if TYPE_CHECKING:
    from memory.consolidation.pipeline import Progress


def run_consolidation(runtime: Runtime, full: bool = False, dry_run: bool = False,
                      progress: Progress | None = None) -> dict[str, Any]:

    from assistant.outbound.send import GatedConsolidationModel
    from memory.consolidation.pipeline import Consolidator

    c = runtime.settings.consolidation
    model = GatedConsolidationModel(runtime.store, local_model(runtime))  # the local model behind the gate
    # The pipeline's options are the [consolidation] settings of the same names.
    options = Options(**{f.name: getattr(c, f.name) for f in dataclasses.fields(Options) if hasattr(c, f.name)})
    result = Consolidator(runtime.store, runtime.embedder, model, options, progress).run(full=full, dry_run=dry_run)
    return result.to_json()


def consolidation_due(runtime: Runtime, idle_minutes: float) -> bool:
    """Idle long enough, or enough new memories, and not more often than min_interval_hours."""
    c = runtime.settings.consolidation
    if not c.enabled:
        return False
    store, now = runtime.store, runtime.clock.now()
    last = last_completed_run(store)
    if last is not None and now - parse_stored(last.started_at) < timedelta(hours=c.min_interval_hours):
        return False
    new = count_created_since(store, last.started_at if last else None)
    return new > 0 and (idle_minutes >= c.idle_minutes or new >= c.memory_threshold)


class ConsolidationFailed(AssistantError):
    """The consolidation process failed; its message says why (the child's own error)."""


class ConsolidationProcess:
    """Consolidation in a child process, for the app: what it loads (scipy's clustering, ~40 MB; its own
    embedder, ~90 MB) and the memory its batches took go back to the system when it ends, instead of
    staying in the app for the rest of the day. The child is `python -m assistant.jobs`, given the
    settings on its stdin; it writes one JSON line per progress step and one with the result or the
    error; its stderr goes nowhere (the app owns the terminal). A killed child leaves the store intact
    (every step commits whole; SPEC 5), so `stop` may end it at any point."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def run(self, progress: Progress | None = None) -> dict[str, Any]:
        """Consolidate (blocking: call it from a thread) and return the run's result, as run_consolidation."""
        root = str(Path(__file__).resolve().parent.parent)  # this checkout, whatever the child's sys.path says
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        with self._lock:
            if self._stopped:
                raise ConsolidationFailed("the app is closing")
            self._process = subprocess.Popen([sys.executable, "-m", "assistant.jobs"], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(pickle.dumps(self.settings))
            process.stdin.close()
            for line in process.stdout:
                message = json.loads(line)
                if "progress" in message and progress is not None:
                    progress(*message["progress"])
                elif "result" in message:
                    return dict(message["result"])
                elif "error" in message:
                    raise ConsolidationFailed(message["error"])
        except (BrokenPipeError, ValueError) as exc:  # the child ended early, or wrote what is not ours
            raise ConsolidationFailed(f"the consolidation process ended early ({exc})") from None
        finally:
            process.stdout.close()
            process.wait()
        raise ConsolidationFailed("the consolidation process was stopped" if self._stopped else
                                  f"the consolidation process ended without a result (exit {process.returncode})")

    def stop(self) -> None:
        """End the child now, if one runs (the app is closing); a later run is refused."""
        with self._lock:
            self._stopped = True
            if self._process is not None and self._process.poll() is None:
                self._process.kill()


def _child() -> int:
    """The child's side of ConsolidationProcess: settings from stdin, JSON lines to stdout."""
    out = sys.stdout
    sys.stdout = sys.stderr  # anything printed by a library goes nowhere, never into the protocol

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    settings = pickle.loads(sys.stdin.buffer.read())  # written by our own parent process
    runtime = Runtime(settings)

    def progress(done: int, total: int, phase: str) -> None:
        send({"progress": [done, total, phase]})

    try:
        result = run_consolidation(runtime, progress=progress)
    except Exception as exc:  # noqa: BLE001 - said to the parent, which shows it

        send({"error": explain(exc) or type(exc).__name__})
        return 1
    finally:
        runtime.close()
    send({"result": result})
    return 0


if __name__ == "__main__":
    sys.exit(_child())
