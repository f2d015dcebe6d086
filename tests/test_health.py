"""memory.health (the doctor): what it reads through sqlite-utils, and that it never writes."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from memory.connection import connect
from memory.health import check
from memory.memories import remember
from memory.schema import SCHEMA_VERSION
from memory.store import Store

if TYPE_CHECKING:
    from memory.time.clock import Clock


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_counts_what_the_store_holds_and_changes_nothing(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "memory.db"
    with Store(path, clock) as store:
        remember(store, "the door code is on the fridge")
        remember(store, "call the plumber", due_at="2026-11-23T10:00:00Z")
    before = _digest(path), path.stat().st_mtime_ns
    health = check(str(path))
    assert health.ok and health.problems == [] and health.schema_version == SCHEMA_VERSION
    assert health.counts == {"memories": 2, "messages": 0, "conversations": 0, "summaries": 0}
    assert health.pending_embeddings == 2
    assert (_digest(path), path.stat().st_mtime_ns) == before


def test_a_table_that_cannot_be_counted_is_named_and_the_rest_still_counted(tmp_path: Path, clock: Clock) -> None:
    """sqlite-utils raises the connection's own error class (sqlean's), which the doctor catches."""
    path = tmp_path / "memory.db"
    with Store(path, clock) as store:
        remember(store, "a memory")
    conn = connect(str(path))
    conn.execute("DROP TABLE summaries")
    conn.close()
    health = check(str(path))
    assert not health.ok and health.counts["summaries"] is None and health.counts["memories"] == 1
    assert [p for p in health.problems if p.startswith("the summaries cannot be counted (no such table")]
