"""Files written from the store (exports): private and atomic.

mkstemp creates the file 0600 beside the target, so the rename is atomic and the data is never
readable by others, not even for a moment; on any failure the temporary file is removed, so no
`.partial` is ever left behind. An unwritable or wrong path is InvalidInput naming it; so is a
target that exists and is not a regular file (a device, a pipe, a folder), which a rename would
replace. A symlink is followed: the file it names is replaced. Hard links to the old file keep
the old content, as with any editor that saves atomically.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TypeVar

from memory.errors import InvalidInput

T = TypeVar("T")


def expand(path: str | os.PathLike[str]) -> Path:
    """`path` with a leading ~ or ~user expanded; InvalidInput when there is no such home ("~0")."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        raise InvalidInput(f"cannot find the home folder in {str(path)[:80]!r}") from None


def write_private(path: str | os.PathLike[str], write: Callable[[IO[bytes]], T], durable: bool = True) -> T:
    """Call `write` with a binary file that becomes `path` (mode 0600) only when it succeeds. `durable`
    (the default) flushes it to the disk first; a folder of many small files (the Markdown export) is
    synced once at the end instead (sync_folder), not file by file."""
    named = expand(path)
    target = named.resolve()  # through a symlink: the file it points at is replaced, the link stays
    if target.exists() and not target.is_file():
        # A device, a pipe or a folder: renaming over it would replace /dev/null or /etc/... itself.
        what = "a directory" if target.is_dir() else "not a regular file"
        raise InvalidInput(f"cannot write {named}: it is {what}; give a file path (or - for standard output)")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    except OSError as exc:
        raise InvalidInput(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            result = write(out)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InvalidInput(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
    return result


def sync_folder(folder: Path) -> None:
    """Flush what was written into `folder` (its files' data and names) to the disk."""
    with contextlib.suppress(OSError, AttributeError):
        os.sync()
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
