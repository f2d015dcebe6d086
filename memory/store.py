"""The Store: one SQLite file, its clock, and explicit transactions."""
from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memory.connection import (
    Connection,
    Cursor,
    DatabaseError,
    OperationalError,
    connect,
    folder_writable,
    table_names,
)
from memory.errors import DiskFull, InvalidInput, StoreUnusable
from memory.files import expand
from memory.schema import SCHEMA_VERSION, migrate
from memory.time.clock import Clock

SQLITE_HEADER = b"SQLite format 3\x00"
OWN_TABLES = {"meta", "knowledge"}  # made by the first migration, in the transaction that sets user_version 1


log = logging.getLogger(__name__)
SQLITE_FULL = 13


def is_full(exc: BaseException) -> bool:
    """Whether SQLite refused a write for want of room on the disk."""
    return isinstance(exc, OperationalError) and (getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL
                                                  or "database or disk is full" in str(exc))


ROOM_TO_OPEN = 64 * 1024  # bytes a WAL store needs beside it to open for writing: its -shm (32 KB) and -wal


def no_room(path: str, room: int = ROOM_TO_OPEN) -> bool:
    """Whether the disk that holds `path` refuses `room` bytes now: tried for real, in a file of no name
    in its folder (gone when closed), and answered by the error itself (ENOSPC, EDQUOT). A threshold on
    the free space was wrong both ways: on a volume under 4 MB the disk was full for ever, and a damaged
    file there was taken for a full disk."""
    try:
        with tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(path))) as handle:
            handle.write(b"\0" * room)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return False


def check_path(path: str, in_memory: bool = True) -> None:
    """A store is a file named by a plain path. SQLite reads a name that starts with "file:" as a URI, so
    "file:/x.db" would be written elsewhere than the path says (beside a stray "file:" folder) and
    "?mode=memory" would keep nothing; ":memory:" keeps nothing either (allowed only when `in_memory`)."""
    if path == ":memory:" and not in_memory:
        raise InvalidInput("':memory:' names no file, so nothing would be kept; give the path of a database file")
    if path[:5].lower() == "file:" or "?mode=" in path:
        raise InvalidInput(f"{path[:80]!r} is an SQLite URI, not a file path; give the path of a database file")


def check_file(path: str) -> int | None:
    """Refuse, before SQLite touches it, a path naming a directory, a device or a pipe (opening a FIFO
    would hang) or a file that is not SQLite; return the schema version in its header (None: no file yet)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreUnusable(f"the database {path} cannot be read ({exc.strerror or exc})", path) from None
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"the database {path} is not a regular file")
    if info.st_size == 0:
        return None  # an empty file becomes a new store
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        raise StoreUnusable(f"the database {path} cannot be read ({exc.strerror or exc})", path) from None
    if header[:16] != SQLITE_HEADER:
        raise InvalidInput(f"{path} is not a memory store (not an SQLite file)")
    tables = table_names(path)
    if tables and not OWN_TABLES <= tables:
        # Another application's database: migrating would add our tables to it (and tighten its mode).
        shown = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
        raise InvalidInput(f"{path} is not a memory store (an SQLite database of another application, with "
                           f"tables {shown[:120]}); nothing was changed")
    return int.from_bytes(header[60:64], "big") if len(header) >= 64 else 0  # PRAGMA user_version



class Store:
    """An open memory database.

    Writes go through `transaction()` (BEGIN IMMEDIATE, so two processes writing at once wait for
    each other instead of failing half-way). One Store may be shared by threads; a lock serialises
    use of its connection. `keep_wal`: a replicator copies this store from its WAL, so closing leaves
    the WAL in place (memory.connection.leave_wal_at_close).
    """

    def __init__(self, path: str | os.PathLike[str], clock: Clock | None = None, read_only: bool = False,
                 keep_wal: bool = False) -> None:
        check_path(str(path))
        self.keep_wal = keep_wal
        self.path = str(expand(path)) if str(path) != ":memory:" else ":memory:"
        self.clock = clock or Clock()
        if self.path != ":memory:":
            check_file(self.path)
        # A store whose file the user made read-only (chmod 0400) is opened read-only and kept so.
        # read_only=True: open without migrating or writing (saving what can be read from a damaged file).
        # In a folder it cannot write to, SQLite cannot make the files a WAL store writes beside it: read-only too.
        self.read_only = self.path != ":memory:" and Path(self.path).exists() and (
            read_only or not self._writable_mode() or not folder_writable(self.path))
        if self.path != ":memory:" and not self.read_only:
            self._create_private()
        self.lock = threading.RLock()
        self._depth = 0
        self.full = False  # opened for reading because the disk had no room for its working files
        try:
            self._conn = self._open()
        except DatabaseError as exc:
            raise StoreUnusable(f"the database {self.path} cannot be read ({exc})", self.path, "damaged") from None
        if self.path != ":memory:" and not self.read_only:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    mode = os.stat(self.path + suffix).st_mode & 0o777
                    if mode & 0o077:  # only ever tighten: never undo a mode the user chose
                        os.chmod(self.path + suffix, mode & 0o700)

    def _open(self) -> Connection:
        try:
            conn = connect(self.path, read_only=self.read_only, keep_wal=self.keep_wal)
            if self.read_only:
                self._conn = conn
                self._check_version()
            else:
                migrate(conn, self.path)
            return conn
        except DatabaseError as exc:
            if self.read_only or not (is_full(exc) or no_room(self.path)):
                raise
        # No room for the -wal and -shm files a WAL store writes beside it: read it as it is (reads work on
        # a full disk); a write says the disk is full, and opens it for writing again when it can.
        self.read_only = self.full = True
        conn = connect(self.path, read_only=True, immutable=True)
        self._conn = conn
        self._check_version()
        return conn

    def _room_again(self) -> bool:
        """After opening on a full disk: writable again once there is room. Tried for real (the store is
        opened for writing again, and read as before while there is none)."""
        if not self.full or no_room(self.path):
            return False
        with self.lock:
            self._conn.close()
            self.read_only = self.full = False
            self._conn = self._open()
        return not self.full

    def read_only_cause(self) -> str:
        if self.full:
            return "the disk that holds it is full"
        if not folder_writable(self.path):
            return f"its folder {os.path.dirname(os.path.abspath(self.path))} cannot be written to"
        return "its file mode has no write permission" if not self._writable_mode() else "opened for reading"

    def _writable_mode(self) -> bool:
        return bool(os.stat(self.path).st_mode & stat.S_IWUSR)

    def _create_private(self) -> None:
        """The folder (0700) and the file (0600) exist before SQLite opens it: memories are private."""
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not Path(self.path).exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError as exc:
            raise InvalidInput(f"cannot create the database {self.path}: {exc.strerror or exc}") from None

    def _check_version(self) -> None:

        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreUnusable(f"the database {self.path} is from a newer version (schema {version} > "
                                f"{SCHEMA_VERSION})", self.path, "newer")
        if version != SCHEMA_VERSION:
            raise StoreUnusable(f"the database {self.path} is read-only and needs an upgrade (schema {version}, this "
                                f"version uses {SCHEMA_VERSION})", self.path, "read_only")

    @property
    def conn(self) -> Connection:  # the raw DB-API connection
        return self._conn

    def read_table_list(self) -> None:
        """Read the list of tables (DatabaseError when even that is damaged: no row can be found)."""
        self.one("SELECT count(*) FROM sqlite_master")

    def execute(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> Cursor:
        with self.lock:
            return self._conn.execute(sql, params)

    def query(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[Any]:
        with self.lock:
            return self._conn.execute(sql, params).fetchall()

    def executemany(self, sql: str, rows: list[Any]) -> Cursor:
        with self.lock:
            return self._conn.executemany(sql, rows)

    def one(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> Any:  # a Row or None
        with self.lock:
            return self._conn.execute(sql, params).fetchone()

    def number(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> int:
        """The whole number in the first column of the one row a query gives (a count, a max, a PRAGMA)."""
        return int(self.one(sql, params)[0])

    def insert(self, table: str, values: dict[str, Any]) -> int:
        """One row (column -> value) into `table`, in the caller's transaction; its row id (a WITHOUT ROWID
        table has none: the number is then SQLite's last one, of no use)."""
        cursor = self.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                              tuple(values.values()))
        if cursor.lastrowid is None:  # never: the driver sets it after every INSERT
            raise DatabaseError(f"INSERT INTO {table} gave no row id")
        return cursor.lastrowid

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Store]:
        """All-or-nothing block; nested blocks join the outer transaction."""
        if self.full and not self._room_again():
            raise DiskFull(self.path)
        if self.read_only:
            raise StoreUnusable(f"the database {self.path} is read-only ({self.read_only_cause()}): nothing was "
                                "written", self.path, "read_only")
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            # BEGIN, the block and COMMIT under one guard: a Ctrl+C that lands just after BEGIN or during
            # COMMIT left the transaction open, and the next write failed with "cannot start a
            # transaction within a transaction" (an import's interrupted record could not be written).
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                yield self
                self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
                    self._conn.execute("ROLLBACK")
                if is_full(exc):
                    raise DiskFull(self.path) from exc
                raise
            finally:
                self._depth = 0

    @contextlib.contextmanager
    def bookkeeping(self) -> Iterator[Store]:
        """A write that only keeps bookkeeping beside a read (a memory's activation, embeddings of waiting
        texts): on a full disk it is skipped, and the read it came with still answers."""
        try:
            with self.transaction():
                yield self
        except DiskFull:
            log.warning("the disk is full: bookkeeping skipped (nothing else was lost)")

    def data_version(self) -> int:
        """Changes when another connection commits to the file (PRAGMA data_version): a cheap poll."""
        return self.number("PRAGMA data_version")

    def get_meta(self, key: str) -> str | None:
        row = self.one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def advance_meta(self, key: str, value: str) -> bool:
        """Set `key` to `value` when it is unset or below it (ISO days and instants order as text): a
        claim. True only for the one caller, in any process, that moved it; a mark already at or past
        `value` is left alone."""
        with self.transaction():
            cursor = self.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                                  "SET value = excluded.value WHERE meta.value < excluded.value", (key, value))
            return cursor.rowcount == 1

    def retreat_meta(self, key: str, value: str, previous: str | None) -> None:
        """Give back a claim made with advance_meta (it is `value` still): `key` is `previous` again."""
        with self.transaction():
            if previous is None:
                self.execute("DELETE FROM meta WHERE key = ? AND value = ?", (key, value))
            else:
                self.execute("UPDATE meta SET value = ? WHERE key = ? AND value = ?", (previous, key, value))

    def store_uid(self) -> str:
        """This database's own identity (made on first use), the prefix of the uids its exports carry."""
        uid = self.get_meta("store_uid")
        if uid is None:
            import uuid

            with self.transaction():
                uid = self.get_meta("store_uid") or str(uuid.uuid4())
                self.set_meta("store_uid", uid)
        return uid

    def close(self, wait: float = -1) -> bool:
        """Close the connection once no thread of this process uses it; with `wait` (seconds), give up after
        that long and leave it open (the process is ending: a thread still waiting for another process's write
        holds it, and SQLite keeps what was committed). Whether it was closed."""
        if not self.lock.acquire(timeout=wait):
            return False
        try:
            self._conn.close()
        finally:
            self.lock.release()
        return True

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def counts(store: Store) -> dict[str, int]:
    """Rows per kind of record, for status displays."""
    row = store.one("SELECT (SELECT count(*) FROM knowledge), (SELECT count(*) FROM knowledge WHERE due_at IS NOT "
                    "NULL AND done_at IS NULL), (SELECT count(*) FROM episodes), (SELECT count(*) FROM messages), "
                    "(SELECT count(*) FROM summaries), (SELECT count(*) FROM pending_embeddings)")
    return dict(zip(("memories", "open_reminders", "episodes", "messages", "summaries", "pending_embeddings"),
                    row, strict=True))
