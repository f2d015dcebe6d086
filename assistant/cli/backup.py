"""`assistant backup run | status` and `assistant restore` (SPEC F16): the Litestream replica."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from assistant.cli.output import emit, note
from assistant.cli.stopping import StopSignals
from assistant.errors import BadInput
from assistant.replicas import ReplicaURL, parse_replica
from assistant.runtime import Runtime
from memory.errors import InvalidInput
from memory.text import safe_json, visible


def configured_replica(runtime: Runtime) -> ReplicaURL | None:
    text = runtime.settings.backup.replica
    return parse_replica(text) if text else None


def existing_store(runtime: Runtime) -> Path:
    """The store's path; InvalidInput when there is no store there yet (the default one included): there is
    nothing to replicate, and a replicator must not make an empty store that a restore would then meet."""
    db = runtime.store_path()
    if not db.exists():
        raise InvalidInput(f"no store at {db} yet: nothing to replicate (on a new machine, `assistant restore "
                           "--from URL` first)")
    return db


def cmd_run(runtime: Runtime, args: argparse.Namespace) -> int:
    """Replicate in the foreground until SIGTERM or Ctrl+C (Litestream makes a last sync as it stops)."""
    from assistant.backup.replicator import Replicator

    replica = configured_replica(runtime)
    if replica is None:
        raise BadInput("no replica is set: give [backup] replica in the config (or ASSISTANT_BACKUP__REPLICA), e.g. "
                       "file:///mnt/nas/assistant; docs/backup.md")
    db = existing_store(runtime)
    as_json = getattr(args, "json", False)

    def say(event: dict[str, Any], text: str) -> None:
        print(safe_json(event) if as_json else "assistant backup: " + visible(text), flush=True)

    stops = StopSignals()
    stop = stops.event
    backup = runtime.settings.backup
    # Litestream in this process's group: a Ctrl+C reaches both, `kill -- -PGID` ends both.
    replicator = Replicator(db, replica, backup.access(), own_group=False)
    replicator.start()
    say({"event": "started", "db": str(db), "replica": replica.shown(), "pid": replicator.pid},
        f"replicating {db} to {replica.shown()} (litestream pid {replicator.pid}); stop with Ctrl+C")
    try:
        replicator.wait(stop, say)
    finally:
        replicator.stop(interrupted="SIGINT" in stops.names)
    why = stops.why
    say({"event": "stopped", "signal": why}, f"stopped ({why}) after a last sync")
    return 0


def cmd_status(runtime: Runtime, args: argparse.Namespace) -> int:
    """Where the replica is, when it was last current, how late it is, what is wrong. Exit 1 when something is."""
    from assistant.backup.place import place_of
    from assistant.backup.status import WARN_AFTER_SECONDS, read_status

    backup = runtime.settings.backup
    status = read_status(place_of(existing_store(runtime)), configured_replica(runtime), backup.access())

    def text() -> str:
        running = "not running"
        if status.running:
            running = f"running (litestream pid {status.litestream_pid}, started by pid {status.pid})" \
                if status.litestream_pid else f"running (pid {status.pid})"
        when = "never" if status.last_replicated_at is None else runtime.clock.stamp(status.last_replicated_at)
        if status.lag_seconds is None:
            lag = "-"
        elif status.lag_seconds == 0:
            lag = "none: the replica has every change"
        else:
            lag = f"{_duration(status.lag_seconds)} (the oldest change it lacks has waited this long)"
            if status.lag_seconds > WARN_AFTER_SECONDS:
                lag += " LATE"
        return "\n".join([f"Replica: {status.replica or '-'}", f"Replicator: {running}",
                          f"Last replicated: {when}", f"Lag: {lag}", f"Error: {status.error or '-'}"])

    emit(args, status.to_json(), text)
    return 0 if status.error is None else 1


def cmd_restore(runtime: Runtime, args: argparse.Namespace) -> int:
    """The replica's newest (or --timestamp's) state into --db, checked; an existing file only with --force."""
    from assistant.backup.restore import refuse_existing, restore
    from memory.time.instants import parse_iso

    replica = parse_replica(args.source)
    timestamp = parse_iso(args.timestamp, runtime.clock.zone) if args.timestamp is not None else None
    target = runtime.store_path()
    if not runtime.settings.db:  # the default store: its folder is made, as on a first launch (0700)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    refuse_existing(target, args.force)  # before the replica is reached: exit 2, nothing changed
    note(f"assistant: restoring {replica.shown()} into {target} ...")
    # An object store's endpoint and region: the URL's own query, else the config's (a new machine needs none).
    done = restore(target, replica, runtime.settings.backup.access(), timestamp, args.force)

    def text() -> str:
        counts = ", ".join(f"{n} {name}" for name, n in done.counts.items() if n is not None)
        state = f"as it was at {runtime.clock.stamp(done.state_of)}" if done.state_of else "its newest state"
        lines = [f"Restored {done.path} from {done.replica} ({state}; {done.size_bytes / 1e6:.1f} MB, schema "
                 f"{done.schema_version}, integrity ok)", f"It holds: {counts}"]
        if done.newest_change_at:
            lines.append(f"Newest change in it: {runtime.clock.stamp(done.newest_change_at)}")
        if done.kept_old:
            lines.append(f"The file it replaced is kept as {done.kept_old}")
        return "\n".join(lines)

    emit(args, done.to_json(), text)
    return 0


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
