"""What the app needs before its first frame, checked before Textual starts."""
from __future__ import annotations

import os
import stat

from memory.connection import folder_writable
from memory.errors import StoreUnusable
from memory.schema import SCHEMA_VERSION
from memory.store import check_file


def check_launch(path: str) -> None:
    """What the app needs before its first frame, read from the file's header without opening it:
    a store it can write (it saves every message typed) and not from a newer version."""
    version = check_file(path)
    if version is None:
        return
    if version > SCHEMA_VERSION:
        raise StoreUnusable(f"the database {path} is from a newer version of assistant (schema {version} > "
                            f"{SCHEMA_VERSION})", path, "newer")
    if not os.stat(path).st_mode & stat.S_IWUSR or not folder_writable(path):  # as Store reads it
        raise StoreUnusable(f"the database {path} is read-only, and the app saves everything you type", path,
                            "read_only")
