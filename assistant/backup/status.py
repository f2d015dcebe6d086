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
from pathlib import Path
from typing import Any

from assistant.backup.litestream import control, describe, newest_timestamp, parse_log_line, replica_files
from assistant.backup.place import Place, holder
from assistant.errors import AssistantError
from assistant.replicas import Access, ReplicaURL
from memory.connection import DatabaseError
from memory.errors import MemoryLibError
from memory.store import Store

# A replica's listing gives whole seconds, and a change is written to the WAL just before Litestream
# stamps it: a WAL this much newer than the replica's newest change holds one it lacks.
LISTING_RESOLUTION = timedelta(seconds=2)
LINEAGE_KEY = "backup_replica"  # in the store's meta table: the replica it is replicated to
CAPTURE_SLACK = timedelta(seconds=1)  # a WAL write and the change file Litestream makes of it
UNCAPTURED_AFTER = 3.0  # Litestream looks at the WAL every second: a write older than this without a file waits
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
    pid: int | None = None  # the process that started it (the app, the notifier, `backup run`)
    litestream_pid: int | None = None  # the replicator itself

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


def read_status(place: Place, replica: ReplicaURL | None, access: Access | None = None,
                now: datetime | None = None, ask_replica: bool = True) -> BackupStatus:
    """The state of replication for the store at `place`. While a replicator runs, Litestream is asked (its
    control socket, the change files it keeps, its log). Without one, `ask_replica` lists the replica itself
    (a command's one look); otherwise what the last replicator knew is said (the app's poll)."""
    now = now or now_utc()
    if replica is None:
        return BackupStatus(None, None, None, "no replica is set (the [backup] replica setting; docs/backup.md)")
    pid = holder(place)
    saved = read_status_file(place)
    same = saved.get("replica_key") == replica.key()
    if pid is not None:
        if not same:
            return BackupStatus(replica.shown(), None, None,
                                f"the running replicator copies to {saved.get('replica')}, not to the replica set now: "
                                "restart it (quit the app and the notifier, or stop `assistant backup run`)",
                                True, pid or None)
        return live_status(place, replica, saved, now, pid or None)
    last = parse_instant(saved.get("last_replicated_at")) if same else None
    error = NOT_RUNNING
    if ask_replica and replica_of(place) != replica.key():
        # What the replica holds is not this store's: its dates say nothing of this one.
        return BackupStatus(replica.shown(), None, None, f"this store has not been replicated to {replica.shown()} "
                            "yet: " + NOT_RUNNING)
    if ask_replica:
        try:
            last = newest_timestamp(replica_files(replica, access or Access(), place.db))
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


def socket_of(place: Place, saved: dict[str, Any] | None = None) -> Path:
    """The running Litestream's control socket, as its starter wrote it down (the temp dir it is in may differ
    between processes: TMPDIR)."""
    saved = read_status_file(place) if saved is None else saved
    written = saved.get("socket")
    return Path(written) if isinstance(written, str) and written else place.socket


def replica_of(place: Place) -> str | None:
    """The replica this store says it is replicated to (meta LINEAGE_KEY, set when a replicator first starts
    for it, and by a restore), read without writing; None when it says none or cannot be read."""
    if not place.db.is_file():
        return None  # (opening a missing store would make one)
    try:
        with Store(place.db, read_only=True) as store:
            return store.get_meta(LINEAGE_KEY)
    except (MemoryLibError, DatabaseError):
        return None


def live_status(place: Place, replica: ReplicaURL, saved: dict[str, Any], now: datetime,
                pid: int | None) -> BackupStatus:
    """What the running Litestream says: when it last synced the replica (its control socket), which changes it
    made from the WAL since (their files), what it last complained of (its log)."""
    known = parse_instant(saved.get("last_replicated_at"))
    started = parse_instant(saved.get("started_at"))
    try:
        answer = control(socket_of(place, saved), "GET", "/list", timeout=2.0)
    except (OSError, AssistantError) as exc:
        return BackupStatus(replica.shown(), iso(known), None, f"the replicator (pid {pid}) does not answer: {exc}",
                            True, pid)
    synced = None
    for item in answer.get("databases") or []:
        if isinstance(item, dict) and os.path.abspath(str(item.get("path", ""))) == str(place.db):
            synced = parse_instant(item.get("last_sync_at"))
    last, pending = account(now, synced, known, captured(place), wal_changed_at(place), started)
    since = max((m for m in (synced, started) if m is not None), default=None)
    error = last_error(place.log, since.timestamp() if since else None) if pending is not None else None
    lag = None if last is None and pending is None else waited(now, pending)
    litestream_pid = saved.get("litestream_pid")
    return BackupStatus(replica.shown(), iso(last), lag, error, True, pid,
                        litestream_pid if isinstance(litestream_pid, int) else None)


def captured(place: Place) -> list[datetime]:
    """When Litestream made each change file (level 0) it still keeps beside the store."""
    found = []
    try:
        with os.scandir(place.local_changes) as entries:
            for entry in entries:
                if entry.name.endswith(".ltx"):
                    with contextlib.suppress(OSError):
                        found.append(datetime.fromtimestamp(entry.stat().st_mtime, UTC))
    except OSError:
        pass
    return found


def account(now: datetime, synced: datetime | None, known: datetime | None, made: list[datetime],
            changed: datetime | None, started: datetime | None) -> tuple[datetime | None, datetime | None]:
    """(when the newest change now in the replica was made, since when the oldest change it lacks has waited).

    `synced`: Litestream's last successful sync of the replica (each change file made before it is there);
    `known`: the replica's newest change when the replicator started; `made`: when Litestream made each change
    file it keeps; `changed`: the WAL's last write (a change Litestream has not made a file of after
    UNCAPTURED_AFTER waits too, since then at least); `started`: the replicator's start (a replica that has
    nothing yet waits for the whole store since then)."""
    upto = max((m for m in (synced, known) if m is not None), default=None)
    replicated = [m for m in made if upto is not None and m <= upto]
    last = max((m for m in (*replicated, known) if m is not None), default=None)
    waiting = [m for m in made if upto is None or m > upto]
    newest = max(made, default=None)
    if changed is not None and (now - changed).total_seconds() > UNCAPTURED_AFTER and \
            (newest is None or changed > newest + CAPTURE_SLACK) and (upto is None or changed > upto + CAPTURE_SLACK):
        waiting.append(changed)
    if last is None and started is not None:
        waiting.append(started)  # nothing copied yet: the whole store waits
    return last, min(waiting, default=None)


def last_error(log: Path, since: float | None = None) -> str | None:
    """The last error Litestream logged (after `since`, a Unix time), as one line."""
    try:
        with open(log, "rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 65536))
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        record = parse_log_line(line)
        if record is None:  # said before its logger was set up (a config it refused): no time on it
            text = line.strip()
            if text.startswith("Error:") and since is None:
                return describe({"msg": text.removeprefix("Error:").strip()})
            continue
        if str(record.get("level", "")).upper() != "ERROR":
            continue
        at = parse_instant(record.get("time"))
        if since is not None and at is not None and at.timestamp() <= since:
            return None
        return describe(record)
    return None
