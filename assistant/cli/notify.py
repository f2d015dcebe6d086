"""`assistant notify [--install]`: the background notifier (SPEC F1), or the user service that runs it."""
from __future__ import annotations

import argparse
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from assistant.cli.output import emit
from assistant.cli.stopping import StopSignals
from assistant.runtime import Runtime
from memory.errors import StoreUnusable
from memory.text import safe_json, visible

if TYPE_CHECKING:
    from assistant.backup.keeper import Keeper


def cmd_notify(runtime: Runtime, args: argparse.Namespace) -> int:
    if getattr(args, "install", False):
        return _install(args)
    return _run(runtime, args)


def _run(runtime: Runtime, args: argparse.Namespace) -> int:
    """Watch the store in the foreground until SIGTERM or SIGINT, then end with one line and exit 0."""
    from assistant.notifier import Notifier

    stops = StopSignals()
    stop = stops.event
    as_json = getattr(args, "json", False)

    def say(event: dict[str, Any], text: str) -> None:
        # Ids and times only: the journal a service writes to is no place for what reminders say.
        print(safe_json(event) if as_json else "assistant notify: " + visible(text), flush=True)

    store = runtime.store
    if store.read_only:
        raise StoreUnusable(f"the database {store.path} is read-only, and the notifier records in it each "
                            "notification it shows (so that none is shown twice)", store.path, "read_only")
    calendar = None
    from assistant.caldav.config import configured

    if configured(runtime.settings):
        from assistant.caldav.background import BackgroundSync

        calendar = BackgroundSync(store, runtime.settings)
    notifier = Notifier(store, runtime.clock, say, briefing_at=runtime.settings.notify.briefing_clock_time(),
                        calendar=calendar)
    keeper = _replicator(runtime, say, stop)
    try:
        notifier.run(stop)
    finally:
        notifier.sender.close()
        if keeper is not None:
            keeper.stop()  # its own replicator, after its last sync; one the app started goes on
    why = stops.why
    say({"event": "stopped", "signal": why}, f"stopped ({why})")
    return 0


def _replicator(runtime: Runtime, say: Callable[[dict[str, Any], str], None], stop: threading.Event) -> Keeper | None:
    """With a replica set (SPEC F16), one replicator runs while the notifier does: started here when none
    runs, checked again every 30 s (the app's replicator ends when the app quits)."""
    backup = runtime.settings.backup
    if not backup.replica:
        return None
    from assistant.backup.keeper import Keeper
    from assistant.replicas import parse_replica

    keeper = Keeper(runtime.store_path(), parse_replica(backup.replica), backup.access(),
                    say=lambda text: say({"event": "backup", "text": text}, f"backup: {text}"))
    threading.Thread(target=keeper.run, args=(stop,), name="replicator keeper", daemon=True).start()
    return keeper


def _install(args: argparse.Namespace) -> int:
    from assistant.autostart import assistant_executable, install, notifier_command

    # The same store and config as this run: from the command line, else from the environment.
    db = getattr(args, "db", None) or os.environ.get("ASSISTANT_DB") or None
    config = getattr(args, "config", None) or os.environ.get("ASSISTANT_CONFIG") or None
    installed = install(notifier_command(assistant_executable(), db, config))

    def text() -> str:
        verb = "Replaced" if installed.replaced else "Wrote"
        lines = [f"{verb} {installed.path}", f"  it runs: {' '.join(installed.command)}",
                 "Nothing is enabled yet. To start it now and at every login:"]
        lines += [f"  {command}" for command in installed.enable]
        lines += [f"({note})" for note in installed.notes]
        return "\n".join(lines)

    emit(args, installed.to_json(), text)
    return 0
