"""SQLite with extension loading: sqlean registered under the name sqlite-utils looks for.

The stdlib sqlite3 of many Pythons cannot load extensions, so sqlite-vec would not load. sqlean
is a drop-in sqlite3 with extension loading and FTS5. It must be aliased before sqlite_utils is
imported (see STACK.md), which is why every module imports sqlite_utils through this one.
"""
from __future__ import annotations

import sys

import sqlean
import sqlean.dbapi2

sys.modules.setdefault("pysqlite3", sqlean)
sys.modules.setdefault("pysqlite3.dbapi2", sqlean.dbapi2)

import sqlite_utils  # noqa: E402
import sqlite_vec  # noqa: E402

Error = sqlean.dbapi2.Error
DatabaseError = sqlean.dbapi2.DatabaseError
IntegrityError = sqlean.dbapi2.IntegrityError
OperationalError = sqlean.dbapi2.OperationalError
Row = sqlean.dbapi2.Row


def connect(path: str, read_only: bool = False) -> sqlite_utils.Database:
    """Open `path` with sqlite-vec loaded, WAL, foreign keys and a busy timeout.

    Autocommit mode (isolation_level=None): transactions are explicit, see Store.transaction.
    read_only opens the file with mode=ro, so nothing can be written to it.
    """
    if read_only:
        from urllib.parse import quote

        conn = sqlean.connect(f"file:{quote(path)}?mode=ro", uri=True, isolation_level=None,
                              check_same_thread=False, timeout=10.0)
    else:
        conn = sqlean.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    conn.row_factory = Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    if path != ":memory:" and not read_only:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return sqlite_utils.Database(conn)


__all__ = ["DatabaseError", "Error", "IntegrityError", "OperationalError", "Row", "connect", "sqlite_utils"]
