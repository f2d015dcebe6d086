"""What `assistant backup status` and the app's status bar say: the replica, when the newest change
reached it, how long a change has been waiting for it, and what is wrong.

While a replicator runs, it keeps `status.json` (place.py) up to date, rewriting it only when something
changed. Without one, the replica itself is asked (`litestream ltx`), and the store's WAL says whether a
change was made since.

Replication happens in real time, so these instants are read on the real clock, not the frozen one of
--now (which is for the memories' own dates).
"""
from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from assistant.backup.litestream import newest_timestamp, replica_files
from assistant.backup.place import Place, holder
from assistant.errors import AssistantError
from assistant.replicas import ReplicaURL

# A replica's listing gives whole seconds, and a change is written to the WAL just before Litestream
# stamps it: a WAL this much newer than the replica's newest change holds one it lacks.
LISTING_RESOLUTION = timedelta(seconds=2)
WARN_AFTER_SECONDS = 600  # the status bar warns when a change has waited longer than this
NOT_RUNNING = ("no replicator is running for this store (the app and `assistant notify` start one; `assistant "
               "backup run` runs one in the foreground)")


@dataclass
class BackupStatus:
    replica: str | None  # as shown: never a password
    last_replicated_at: str | None  # when the newest change now in the replica reached it (UTC ISO 8601)
    lag_seconds: int | None  # how long the oldest change the replica lacks has waited; 0: it has them all
    error: str | None  # one line, or None
    running: bool = False  # a replicator runs for this store
    pid: int | None = None  # its process

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def late(self) -> bool:
        """A change has waited longer than WARN_AFTER_SECONDS for the replica."""
        return self.lag_seconds is not None and self.lag_seconds > WARN_AFTER_SECONDS


def waited(now: datetime, since: datetime | None) -> int:
    """Whole seconds waited since `since`, at least 1 (0 means nothing waits); 0 for None."""
    if since is None:
        return 0
    return max(1, math.ceil((now - since).total_seconds()))


def now_utc() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).replace(microsecond=0).isoformat()


def parse_instant(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def write_status(place: Place, data: dict[str, Any]) -> None:
    """Replace status.json whole (a reader never sees half of it)."""
    partial = place.status.with_name(f"status.{os.getpid()}.partial")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(partial, place.status)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial)


def read_status_file(place: Place) -> dict[str, Any]:
    try:
        data = json.loads(place.status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def wal_changed_at(place: Place) -> datetime | None:
    """When the store's WAL was last written: every change goes there first (the app's, the CLI's)."""
    try:
        return datetime.fromtimestamp(os.stat(f"{place.db}-wal").st_mtime, UTC)
    except OSError:
        return None


def read_status(place: Place, replica: ReplicaURL | None, endpoint: str = "", region: str = "",
                now: datetime | None = None, ask_replica: bool = True) -> BackupStatus:
    """The state of replication for the store at `place`. `ask_replica`: without a running replicator, list
    the replica itself (a command's one look); otherwise go by what the last replicator saw (the app's poll)."""
    now = now or now_utc()
    if replica is None:
        return BackupStatus(None, None, None, "no replica is set (the [backup] replica setting; docs/backup.md)")
    pid = holder(place)
    saved = read_status_file(place)
    if pid is not None:
        if saved.get("replica_key") not in (None, replica.key()):
            return BackupStatus(replica.shown(), saved.get("last_replicated_at"), None,
                                f"the running replicator copies to {saved.get('replica')}, not to the replica set now: "
                                "restart it (quit the app and the notifier, or stop `assistant backup run`)",
                                True, pid or None)
        pending = parse_instant(saved.get("pending_since"))
        last, changed = parse_instant(saved.get("last_replicated_at")), wal_changed_at(place)
        if pending is None and changed is not None and (last is None or changed > last + LISTING_RESOLUTION):
            pending = changed  # made since the replicator last looked (it looks every few seconds)
        lag = None if last is None and pending is None else waited(now, pending)
        return BackupStatus(replica.shown(), saved.get("last_replicated_at"), lag, saved.get("error") or None,
                            True, pid or None)
    last = parse_instant(saved.get("last_replicated_at")) if saved.get("replica_key") == replica.key() else None
    error = NOT_RUNNING
    if ask_replica:
        try:
            last = newest_timestamp(replica_files(replica, endpoint, region))
        except AssistantError as exc:
            error = f"{NOT_RUNNING}; {exc}"
    changed = wal_changed_at(place)
    if last is None:
        lag = None if changed is None else waited(now, changed)
        if error == NOT_RUNNING:
            error = "nothing has been copied to the replica yet: " + NOT_RUNNING
    else:
        # A change made since the newest one in the replica has waited at most this long (the first such
        # change is not known: its time was not kept, as no replicator saw it).
        waiting = changed is not None and changed > last + LISTING_RESOLUTION
        lag = waited(now, last) if waiting else 0
    return BackupStatus(replica.shown(), iso(last), lag, error, False, None)
