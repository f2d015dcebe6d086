"""Is the database file sound? Read-only: it never migrates or writes.

PRAGMA integrity_check finds damaged pages; the row counts show what can still be read. When the
file is damaged, the way back is an export (which reads every row it can) into a fresh store.

The file is looked into with sqlite-utils, the library people open the store with themselves.
"""
from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from memory.connection import DatabaseError, connect, folder_writable
from memory.errors import InvalidInput, StoreUnusable
from memory.schema import SCHEMA_VERSION
from memory.store import check_file

if TYPE_CHECKING:
    from sqlite_utils import Database

TABLES = {"knowledge": "memories", "messages": "messages", "episodes": "conversations", "summaries": "summaries"}


@dataclass
class Health:
    path: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    size_bytes: int = 0
    mode: str = ""
    schema_version: int | None = None
    counts: dict[str, int | None] = field(default_factory=dict)
    pending_embeddings: int | None = None
    readable: bool = True  # its list of tables can be read, so export can save rows
    store_file: bool = True  # False: the path names a pipe, a folder or a file that is not SQLite
    newer: bool = False  # written by a newer version: nothing to recover, an upgrade to make

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _database(path: str) -> Database:
    """The file opened read-only (our connection: sqlean, sqlite-vec), seen through sqlite-utils; no
    plugin of the user's sqlite-utils runs and no setting is changed."""
    import sqlite_utils  # numpy comes with it (~0.3 s): only the doctor pays, when it runs

    return sqlite_utils.Database(connect(path, read_only=True), recursive_triggers=False, execute_plugins=False)


def check(path: str, max_messages: int = 20) -> Health:
    """A report on the file at `path`; never raises for a damaged or missing file."""
    if not os.path.exists(path):
        return Health(path, False, [f"{path} does not exist"])
    try:
        check_file(path)  # a pipe would hang the open; a text file is not a store
    except (InvalidInput, StoreUnusable) as exc:
        return Health(path, False, [str(exc)], readable=False, store_file=False)
    info = os.stat(path)
    health = Health(path, True, size_bytes=info.st_size, mode=f"{stat.S_IMODE(info.st_mode):04o}")
    if stat.S_IMODE(info.st_mode) & 0o077:
        health.problems.append(f"the file mode is {health.mode}: others can read your memories (chmod 600)")
    if not folder_writable(path):  # read as it is (connect opens it immutable): sound, but it cannot change
        health.problems.append(f"its folder {os.path.dirname(os.path.abspath(path))} cannot be written to: the "
                               "store can be read but nothing can be saved in it")
    try:
        db = _database(path)
        health.schema_version = db.execute("PRAGMA user_version").fetchone()[0]
        db.table_names()  # the list of tables: rows can be found
    except DatabaseError as exc:
        health.ok = health.readable = False
        health.problems.append(f"{path} cannot be read as a database ({exc})")
        return health
    try:
        found = [row[0] for row in db.execute(f"PRAGMA integrity_check({max_messages})").fetchall()]
    except DatabaseError as exc:  # damaged pages stop the check itself; the rows counted below say what is left
        found = [f"the check stopped: {exc}"]
    if found != ["ok"]:
        health.ok = False
        health.problems += [f"integrity: {line}" for line in found]
    if health.schema_version is not None and health.schema_version > SCHEMA_VERSION:
        health.ok = False
        health.newer = True
        health.problems.append(f"the database is from a newer version of assistant (schema {health.schema_version} > "
                               f"{SCHEMA_VERSION}): upgrade assistant to use it")
        db.close()
        return health  # its tables are not ours to count
    for table, name in TABLES.items():
        try:
            health.counts[name] = db.table(table).count
        except DatabaseError as exc:
            health.ok = False
            health.counts[name] = None
            health.problems.append(f"the {name} cannot be counted ({exc})")
    try:
        health.pending_embeddings = db.table("pending_embeddings").count
    except DatabaseError:
        pass
    db.close()
    return health
