"""SQLite with extension loading: sqlean, with sqlite-vec loaded.

The stdlib sqlite3 of many Pythons cannot load extensions, so sqlite-vec would not load. sqlean
is a drop-in sqlite3 with extension loading and FTS5. It is registered as `pysqlite3` (the name
sqlite-utils looks for, see STACK.md), so that the `sqlite-utils` tools a user points at the file
use the same SQLite; the product itself talks to sqlean directly (docs/storage.md says why).
"""
from __future__ import annotations

import importlib.util
import os
import sys
import time
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import sqlean
import sqlean.dbapi2
from sqlean import _sqlite3 as _native  # the compiled module: SQLite's C API

sys.modules.setdefault("pysqlite3", sqlean)
sys.modules.setdefault("pysqlite3.dbapi2", sqlean.dbapi2)

if TYPE_CHECKING:  # sqlean publishes no types; its API is the standard library's sqlite3
    from sqlite3 import Connection, Cursor, DatabaseError, Error, IntegrityError, OperationalError, Row
else:
    Connection = sqlean.dbapi2.Connection
    Cursor = sqlean.dbapi2.Cursor
    Error = sqlean.dbapi2.Error
    DatabaseError = sqlean.dbapi2.DatabaseError
    IntegrityError = sqlean.dbapi2.IntegrityError
    OperationalError = sqlean.dbapi2.OperationalError
    Row = sqlean.dbapi2.Row


@cache
def _sqlite_vec_path() -> str:
    """The sqlite-vec extension file, found without importing the sqlite_vec package: its
    __init__ imports numpy.typing when numpy is installed (0.3 s), for helpers never used here."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        import sqlite_vec  # not a plain package on disk (a zip?): let it say where it is

        return str(sqlite_vec.loadable_path())
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def connect(path: str, read_only: bool = False, immutable: bool = False, keep_wal: bool = False) -> Connection:
    """Open `path` with sqlite-vec loaded, WAL, foreign keys and a busy timeout.

    Autocommit mode (isolation_level=None): transactions are explicit, see Store.transaction.
    read_only opens the file with mode=ro, so nothing can be written to it; `immutable` also makes no
    -shm file beside it (a full disk has no room for one). `keep_wal`: see leave_wal_at_close.
    """
    conn: Connection  # sqlean's, which publishes no types
    if read_only:
        conn = sqlean.connect(_read_only_uri(path, immutable), uri=True, isolation_level=None,
                              check_same_thread=False, timeout=10.0)
    else:
        conn = sqlean.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.enable_load_extension(True)
    conn.load_extension(_sqlite_vec_path())
    conn.enable_load_extension(False)
    conn.row_factory = Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    if path != ":memory:" and not read_only:
        _use_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        if keep_wal:
            leave_wal_at_close(conn)
    return conn


SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE = 1006  # sqlite3.h


@cache
def _native_library() -> Any:
    """sqlean's compiled module, whose SQLite exports its C API (a ctypes.CDLL)."""
    import ctypes

    return ctypes.CDLL(_native.__file__)


def leave_wal_at_close(conn: Connection) -> bool:
    """Make closing `conn` leave the WAL as it is (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE); True when it took.

    For a store a replicator (Litestream) copies from its WAL: the last connection to close checkpoints
    the WAL into the file and deletes it, and Litestream, finding its place in the WAL gone, copies the
    whole store again (a full snapshot: the store's size, uploaded, at each start). Left in place, the
    WAL is read on from where it was. SQLite's own checkpoints while the store is open (PASSIVE, every
    1000 pages) stay: Litestream follows them.

    Python's sqlite3 says this with Connection.setconfig from 3.12 on; sqlean, its 3.11 API, has no such
    call, so SQLite's sqlite3_db_config is called through ctypes on the connection's handle, which
    CPython's connection object holds first after its object header. Anything unexpected (another
    layout, a library that does not export the call) leaves SQLite's default, which is only slower.
    """
    import ctypes

    try:
        library = _native_library()
        handle = ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value
        filename = library.sqlite3_db_filename
        filename.restype, filename.argtypes = ctypes.c_char_p, [ctypes.c_void_p, ctypes.c_char_p]
        main = conn.execute("PRAGMA database_list").fetchone()[2]
        if not handle or (filename(handle, b"main") or b"").decode("utf-8", "replace") != main:
            return False  # not the handle this code expects: leave SQLite's default
        state = ctypes.c_int(-1)
        configure = library.sqlite3_db_config
        configure.restype = ctypes.c_int
        done = configure(ctypes.c_void_p(handle), ctypes.c_int(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE), ctypes.c_int(1),
                         ctypes.byref(state))
        return done == 0 and state.value == 1
    except (OSError, AttributeError, ValueError, TypeError):
        return False


def folder_writable(path: str) -> bool:
    """Whether files can be made beside `path`: a WAL database needs its -wal and -shm files there."""
    return os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)


def _read_only_uri(path: str, immutable: bool = False) -> str:
    """A URI that opens `path` for reading only. In a folder nobody can write to, SQLite cannot make the
    -shm file that reading a WAL database takes, and mode=ro alone fails ("attempt to write a readonly
    database"); there the file is opened immutable, which is exact while no -wal file holds changes
    not yet in it (nothing can write beside it to make one)."""

    uri = f"file:{quote(path)}?mode=ro"
    if immutable or not folder_writable(path) and not os.path.exists(path + "-wal"):
        uri += "&immutable=1"
    return uri


def table_names(path: str) -> set[str] | None:
    """The names of the tables in the SQLite file at `path`, read without writing to it or loading any
    extension; None when they cannot be read (a damaged file: the caller's open will say so)."""
    try:
        conn = sqlean.connect(_read_only_uri(path), uri=True, timeout=10.0)
    except Error:
        return None
    try:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except Error:
        return None
    finally:
        conn.close()


def _use_wal(conn: Connection, patience: float = 10.0) -> None:
    """Put the file in WAL mode (it stays so). Switching needs the file to itself and SQLite does not wait
    for that (no busy handler): two processes opening a new store at once saw "database is locked". A file
    already in WAL mode needs no switch; otherwise retry while another connection holds it."""

    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
        return
    deadline = time.monotonic() + patience
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


__all__ = ["Connection", "Cursor", "DatabaseError", "Error", "IntegrityError", "OperationalError", "Row", "connect",
           "folder_writable", "leave_wal_at_close", "table_names"]
