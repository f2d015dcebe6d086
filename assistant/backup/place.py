"""Where a store's replication keeps its things, and the lock that makes one replicator per store.

Beside the store (its folder is 0700): Litestream's own state, `.<name>-litestream/` (it belongs with
the store), and ours, `.<name>-backup/`: `lock` (held by the one replicator of this store; the others
see it and start none), `status.json` (who started it, and when the replica was last known current),
`litestream.yml` (the config Litestream runs with; no credential in it) and `litestream.log`. The
control socket lives in a private folder of the temp dir: a Unix socket's path may not exceed ~100 bytes.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import AssistantError
from assistant.locks import lock_within


@dataclass(frozen=True)
class Place:
    db: Path

    @property
    def folder(self) -> Path:
        return self.db.parent / f".{self.db.name}-backup"

    @property
    def lock(self) -> Path:
        return self.folder / "lock"

    @property
    def status(self) -> Path:
        return self.folder / "status.json"

    @property
    def config(self) -> Path:
        return self.folder / "litestream.yml"

    @property
    def log(self) -> Path:
        """What Litestream logs (JSON lines): errors, snapshots, compactions."""
        return self.folder / "litestream.log"

    @property
    def litestream_state(self) -> Path:
        """Litestream's state for this store (its LTX files not yet compacted away)."""
        return self.db.parent / f".{self.db.name}-litestream"

    @property
    def local_changes(self) -> Path:
        """The LTX files Litestream made from the WAL (level 0), uploaded from here."""
        return self.litestream_state / "ltx" / "0"

    @property
    def socket(self) -> Path:
        digest = hashlib.sha256(str(self.db).encode("utf-8")).hexdigest()[:16]
        return private_temp() / f"backup-{digest}.sock"

    def make_folder(self) -> None:
        try:
            self.folder.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise AssistantError(f"cannot make {self.folder}: {exc.strerror or exc}") from None


def place_of(db: str | os.PathLike[str]) -> Place:
    return Place(Path(os.path.abspath(db)))


def private_temp() -> Path:
    """A folder of the temp dir only this user can enter (made 0700; refused when another owns it)."""
    folder = Path(tempfile.gettempdir()) / f"assistant-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise AssistantError(f"cannot make {folder}: {exc.strerror or exc}") from None
    if not folder.is_dir() or folder.is_symlink() or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise AssistantError(f"{folder} is not a private folder of yours: remove it, or set TMPDIR elsewhere")
    return folder


class Lock:
    """The replicator's lock on one store (flock on `.<name>-backup/lock`): held by the process that replicates
    it, and by its litestream child, which inherits it, so that a litestream left behind by a parent that was
    killed still counts as the replicator. The file holds the holder's pid, for messages."""

    def __init__(self, place: Place) -> None:
        self.place = place
        self.fd: int | None = None

    def acquire(self, patience: float = 1.0) -> bool:
        """Take the lock (within `patience` seconds: a process that only looks holds it for a moment);
        False when another replicator holds it."""
        self.place.make_folder()
        fd = os.open(self.place.lock, os.O_RDWR | os.O_CREAT, 0o600)
        if not lock_within(fd, patience):
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def holder(place: Place) -> int | None:
    """The pid of the replicator holding this store's lock, or None when none runs (0 when one runs and its
    pid cannot be read)."""
    try:
        fd = os.open(place.lock, os.O_RDONLY)
    except OSError:
        return None  # never replicated from here
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                return int(os.pread(fd, 32, 0).decode("ascii").strip() or 0)
            except (OSError, ValueError):
                return 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
