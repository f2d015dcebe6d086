"""`assistant sync [--json]`: one two-way sync of the reminders with the CalDAV calendar (SPEC F15).

Exit 0 when done; 1 with one line when the server cannot be reached or refuses the login (nothing is lost:
changes here go at the next sync); 2 for a bad configuration. How it ended is recorded in the store, for the
status line of the app and the notifier (which run this command as a short-lived child)."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from assistant.cli.output import emit, note
from assistant.errors import AssistantError
from assistant.runtime import Runtime


def cmd_sync(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.caldav.config import calendar_config
    from assistant.caldav.sync import run_sync
    from assistant.forgetting import forget
    from memory.transfer import caldav as state

    config = calendar_config(runtime.settings)  # exit 2 before anything is opened or sent
    store = runtime.store
    as_json = getattr(args, "json", False)
    started = runtime.clock.now_iso()
    try:
        with _progress(quiet=as_json) as progress:
            result = run_sync(store, runtime.settings.db_path(), config,
                              lambda memory_id: forget(runtime, memory_id, "cancel"), progress)
    except AssistantError as exc:
        state.record_last(store, {"at": started, "ok": False, "error": str(exc)})
        raise
    state.record_last(store, {"at": runtime.clock.now_iso(), **result.to_json()})
    if not as_json:
        # Said here, to the person; a background sync's (--json) are said by the app.
        for conflict in state.unsaid_conflicts(store):
            note(f"assistant: {conflict.describe()}")
        state.mark_said(store)
    emit(args, result.to_json(), result.describe())
    return 0


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A bar on a terminal while many reminders are sent (a first sync); nothing for --json or a pipe."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    bars: list[Any] = []

    def update(done: int, total: int) -> None:
        if not bars and total >= 50:
            from assistant.cli.progress import ProgressBar

            bars.append(ProgressBar("Sending reminders", total, min_total=1, enabled=True).__enter__())
        for bar in bars:
            bar.update(done, total)

    try:
        yield update
    finally:
        for bar in bars:
            bar.__exit__(None, None, None)
