"""Reading `conversations.json` out of a data export's ZIP without trusting the ZIP.

Everything is decided from the archive's own directory before a byte of any entry is inflated, and
nothing is ever unpacked to disk (the one entry we need is read as a stream, a chunk at a time, up to
its declared size: memory.transfer.json_stream): the entry count comes from the end-of-central-directory
record, before `zipfile` builds an object per entry (a million tiny entries would cost seconds and
hundreds of MB just to list); then every name is checked (no absolute path, drive letter or `..`) and the
declared sizes added up (a compression bomb declares what it unpacks to); an entry that inflates past
what it declared fails its CRC and is refused as damaged; conversations.json is read only when it
compresses as text does (a compression ratio of at most MAX_RATIO), so a bomb under the size limits
costs nothing either.
"""
from __future__ import annotations

import contextlib
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from memory.errors import InvalidInput

MAX_ENTRIES = 200_000  # a heavy user's export with every image is tens of thousands of files
MAX_UNPACKED = 2 * 1024**3  # everything the directory declares, added up
MAX_CONVERSATIONS = 1024**3  # conversations.json itself is read into memory
# conversations.json deflates about 5 times in an export of real-looking chats (benchmarks/bench_import.py's,
# 8 MB and 80 MB), 14 to 19 times in the tests' repetitive ones; deflate's ceiling is about 1,030. An entry
# that would inflate more than this is a bomb, refused from the directory: reading it to its declared size
# first would cost that much memory and time (300 MB from 300 KB: 640 MB and 3 s before the refusal).
MAX_RATIO = 100
RATIO_FROM = 1024**2  # below a megabyte any ratio is cheap to read: a tiny file's overhead skews it
CONVERSATIONS = "conversations.json"

_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"


class UnsafeArchive(InvalidInput):
    """A ZIP refused before anything in it was read."""


def is_zip(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) in (b"PK\x03\x04", b"PK\x05\x06")
    except OSError:
        return False


def declared_entries(path: Path) -> int:
    """How many entries the end-of-central-directory record says the archive holds (ZIP64 too)."""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        tail_size = min(size, 22 + 65535)  # the record, and a comment of at most 64 KB after it
        handle.seek(size - tail_size)
        tail = handle.read(tail_size)
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) - at < 22:
            raise UnsafeArchive(f"{path.name} is not a readable ZIP archive (no central directory)")
        count = struct.unpack("<H", tail[at + 10:at + 12])[0]
        if count != 0xFFFF:
            return int(count)
        locator = tail.rfind(_ZIP64_LOCATOR, 0, at)
        if locator < 0:
            return int(count)
        offset = struct.unpack("<Q", tail[locator + 8:locator + 16])[0]
        handle.seek(offset)
        record = handle.read(56)
        if record[:4] != _ZIP64_EOCD:
            raise UnsafeArchive(f"{path.name} is not a readable ZIP archive (a damaged ZIP64 directory)")
        return int(struct.unpack("<Q", record[32:40])[0])


def unsafe_name(name: str) -> bool:
    """A name that would land outside a folder it was unpacked into (or cannot be a file name)."""
    if not name or "\x00" in name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return True
    return ".." in PurePosixPath(name.replace("\\", "/")).parts


@contextlib.contextmanager
def open_conversations(path: Path) -> Iterator[BinaryIO]:
    """The export's conversations.json (the shallowest one) as a stream, after every check above; read to
    its end, a stream that does not inflate to what its header declares, or fails its CRC, raises
    InvalidInput."""
    count = declared_entries(path)
    if count > MAX_ENTRIES:
        raise UnsafeArchive(f"{path.name} holds {count:,} entries (a data export holds at most {MAX_ENTRIES:,}); "
                            "refused before reading any")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UnsafeArchive(f"{path.name} is not a readable ZIP archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES:  # the record undercounted
            raise UnsafeArchive(f"{path.name} holds {len(infos):,} entries (at most {MAX_ENTRIES:,})")
        total = 0
        for info in infos:
            if unsafe_name(info.filename):
                raise UnsafeArchive(f"{path.name} has an entry with an unsafe path ({info.filename[:80]!r}): "
                                    "refused before reading any")
            total += info.file_size
        if total > MAX_UNPACKED:
            raise UnsafeArchive(f"{path.name} would unpack to {total / 1024**3:.1f} GB (at most "
                                f"{MAX_UNPACKED // 1024**3} GB): refused before reading any")
        found = sorted((i for i in infos if PurePosixPath(i.filename).name == CONVERSATIONS and not i.is_dir()),
                       key=lambda i: (i.filename.count("/"), i.filename))
        if not found:
            raise InvalidInput(f"{path.name} is a ZIP without {CONVERSATIONS} (not a ChatGPT or Claude data export)")
        entry = found[0]
        if entry.flag_bits & 0x1:
            raise InvalidInput(f"{entry.filename} in {path.name} is encrypted")
        if entry.file_size > MAX_CONVERSATIONS:
            raise UnsafeArchive(f"{entry.filename} in {path.name} is {entry.file_size / 1024**3:.1f} GB "
                                f"(at most {MAX_CONVERSATIONS // 1024**3} GB)")
        if entry.file_size > RATIO_FROM and entry.file_size > MAX_RATIO * entry.compress_size:
            raise UnsafeArchive(f"{entry.filename} in {path.name} would inflate {entry.compress_size:,} bytes to "
                                f"{entry.file_size:,} (more than {MAX_RATIO} times, which no chat export does): "
                                "refused before reading any")
        where = f"{entry.filename} in {path.name}"
        try:
            stream = archive.open(entry)
        except (zipfile.BadZipFile, zlib.error, OSError, NotImplementedError, RuntimeError) as exc:
            raise InvalidInput(f"{where} cannot be read ({exc})") from None
        with stream:
            yield _CheckedEntry(stream, entry.file_size, where)  # type: ignore[misc]  # a stream by duck typing


class _CheckedEntry:
    """A ZIP entry read as a stream: zipfile stops at the declared size and checks the CRC there (an entry
    that inflates past what it declared fails that check); one that ends short is damaged. Every failure
    is one InvalidInput naming the entry."""

    def __init__(self, stream: IO[bytes], declared: int, where: str) -> None:
        self.stream, self.declared, self.where = stream, declared, where
        self.read_so_far = 0

    def read(self, size: int = -1) -> bytes:
        try:
            data = self.stream.read(size)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            # BadZipFile: a CRC that does not match; NotImplementedError: a compression zipfile cannot read.
            raise InvalidInput(f"{self.where} cannot be read ({exc})") from None
        self.read_so_far += len(data)
        if not data and self.read_so_far != self.declared or self.read_so_far > self.declared:
            raise InvalidInput(f"{self.where} is damaged (not the size its header says)")
        return data
