"""`assistant restore --from URL --db PATH [--timestamp ISO] [--force]` (SPEC F16): the replicated store,
newest or as it was at an instant, written into PATH and checked before it takes that place.

Litestream restores into a private folder beside PATH (0700, so nothing of it is readable by others even
for a moment); the result must pass PRAGMA integrity_check and be a memory store whose schema this version
opens, or PATH is left as it was. An existing PATH is replaced only with --force, and then kept beside
it as PATH.before-restore (its WAL too), with Litestream's state of the old file removed (it describes a
file that is gone). The restored store remembers the replica it came from, so replicating it again to
that URL continues the replica's history.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assistant.backup import litestream
from assistant.backup.place import holder, place_of
from assistant.backup.status import LINEAGE_KEY, iso
from assistant.errors import AssistantError, BadInput
from assistant.replicas import Access, ReplicaURL
from memory.errors import InvalidInput, MemoryLibError
from memory.health import check
from memory.store import Store

SIDECARS = ("-wal", "-shm")


@dataclass
class Restored:
    path: str
    replica: str
    state_of: str | None  # the instant asked for (None: the newest state)
    newest_change_at: str | None  # when the newest change in what was restored was made, as the replica says
    size_bytes: int
    schema_version: int | None
    counts: dict[str, int | None] = field(default_factory=dict)
    kept_old: str | None = None  # where the file it replaced was kept

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def refuse_existing(target: Path, force: bool) -> None:
    """Nothing is replaced without --force: BadInput (exit 2) before anything is fetched."""
    present = [str(target) + suffix for suffix in ("", *SIDECARS) if os.path.lexists(str(target) + suffix)]
    if present and not force:
        raise BadInput(f"{present[0]} already exists: nothing was changed (--force replaces it, keeping the old file "
                       f"as {target.name}.before-restore)")
    if os.path.lexists(target) and not os.path.isfile(target):
        raise BadInput(f"{target} is not a regular file: nothing was changed")
    running = holder(place_of(target))
    if running is not None:
        raise BadInput(f"a replicator is running for {target} (pid {running or '?'}): quit the app and the notifier "
                       "(or stop `assistant backup run`) before replacing the store it copies")


def restore(target: Path, replica: ReplicaURL, access: Access, timestamp: datetime | None = None,
            force: bool = False) -> Restored:
    refuse_existing(target, force)
    files = litestream.replica_files(replica, access, target)
    if not files:
        raise AssistantError(f"the replica {replica.shown()} holds no store: nothing was ever replicated there")
    newest = litestream.newest_timestamp(files)
    state_of = timestamp
    if timestamp is not None:
        oldest = min((t for t in (_stamp(item) for item in files) if t is not None), default=None)
        if oldest is not None and timestamp < oldest:
            raise AssistantError(f"the replica holds no state as old as {iso(timestamp)}: its oldest is from "
                                 f"{iso(oldest)}")
        if newest is not None and timestamp >= newest:
            timestamp = None  # nothing changed after its newest change: the newest state is that instant's
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.restore-", dir=target.parent))
    try:
        out = folder / target.name
        args = ["restore", "-o", str(out)]
        if timestamp is not None:
            # to the microsecond: cut to the second, an instant just after the oldest state read as before it
            args += ["-timestamp", timestamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")]
        with litestream.naming(replica, access, target) as names:
            done = litestream.run([*args, *names])
        if done.returncode != 0 or not out.is_file():
            raise AssistantError(f"the restore from {replica.shown()} failed: "
                                 f"{litestream.error_line(done.stderr or done.stdout)}")
        for suffix in ("", *SIDECARS):
            with contextlib.suppress(OSError):
                os.chmod(str(out) + suffix, 0o600)
        health = _checked(out, replica)
        kept = _set_aside(target) if force else None
        os.replace(out, target)
        for suffix in SIDECARS:  # the checked store is one file (it was closed with its WAL checkpointed)
            if os.path.exists(str(out) + suffix):
                os.replace(str(out) + suffix, str(target) + suffix)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if timestamp is not None:
        newest = litestream.newest_timestamp([item for item in files if (_stamp(item) or timestamp) <= timestamp])
    return Restored(str(target), replica.shown(), iso(state_of), iso(newest), os.path.getsize(target),
                    health.schema_version, dict(health.counts), kept)


def _stamp(item: dict[str, Any]) -> datetime | None:
    return litestream.newest_timestamp([item])


def _checked(out: Path, replica: ReplicaURL) -> Any:
    """The restored file, checked: a memory store this version opens, sound (PRAGMA integrity_check). It
    is opened once as the app opens it (migrated if it is older) and told the replica it came from."""
    health = check(str(out))
    if not health.ok:
        raise AssistantError(f"the restored store is not usable, so nothing was changed: {'; '.join(health.problems)}")
    try:
        with Store(out) as store:
            store.set_meta(LINEAGE_KEY, replica.key())
    except (InvalidInput, MemoryLibError) as exc:
        raise AssistantError(f"the restored store cannot be opened, so nothing was changed: {exc}") from None
    health = check(str(out))
    if not health.ok:
        raise AssistantError(f"the restored store is not usable, so nothing was changed: {'; '.join(health.problems)}")
    return health


def _set_aside(target: Path) -> str | None:
    """Keep the file a forced restore replaces as PATH.before-restore (with its WAL, which may hold its newest
    changes), and drop Litestream's state of it."""
    if not target.exists():
        return None
    kept = target.with_name(f"{target.name}.before-restore")
    for suffix in ("", *SIDECARS):
        source = Path(str(target) + suffix)
        if source.exists():
            os.replace(source, str(kept) + suffix)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(kept) + suffix)  # an older -wal of an older kept file would be read with this one
    shutil.rmtree(place_of(target).litestream_state, ignore_errors=True)
    return str(kept)
