"""The last change a person made to a memory, kept so that any process can undo it (the chat, the app,
the command line: SPEC F1, F7, F12).

One record at most: the next change replaces it, and it is never exported. It holds the memory as it
was (nothing, for one just made) and every other row the change touched, as it was: a forget takes a
memory's words out of conversations and titles and drops the summaries made from it, and undo puts
every one of them back, with the memory and its id.
"""
from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from memory.errors import InvalidInput, NotFound
from memory.memories import Memory, delete_memory_row, get_memory
from memory.store import Store

# done, snooze, move, cancel, rename: a reminder's; forget, edit, private, pin: any memory's; remember:
# a memory just made (undone, it is gone again, with no tombstone: it never was).
CHANGE_ACTIONS = ("done", "snooze", "move", "cancel", "rename", "forget", "edit", "remember", "private", "pin")
# Rows a change may touch besides the memory's own, restored whole by undo (keyed by these columns).
RESTORED_TABLES = {"messages": ("id",), "episodes": ("id",), "summaries": ("id",), "edges": ("id",),
                   "memory_meta": ("memory_id",), "reminder_completions": ("id",), "turn_records": ("message_id",),
                   "memory_history": ("id",)}
_COLUMN = re.compile(r"[a-z][a-z_]*")


@dataclass
class UndoneChange:
    action: str  # what was undone (CHANGE_ACTIONS)
    memory: Memory | None  # the memory as it is again; None when a memory just made was taken away
    changed_at: str  # when the undone change was made (UTC)
    memory_id: int = 0


def _row(store: Store, table: str, key: str, value: Any) -> dict[str, Any] | None:
    row = store.one(f"SELECT * FROM {table} WHERE {key} = ?", (value,))
    return None if row is None else dict(zip(row.keys(), tuple(row), strict=True))


def record_change(store: Store, memory_id: int, action: str) -> None:
    """Record the memory `memory_id` as it is now, before `action` changes it, as the one change undo puts
    back (any earlier record is dropped). Call it in the transaction that makes the change, before
    making it; for "remember", after the memory is made."""
    if action not in CHANGE_ACTIONS:
        raise InvalidInput(f"unknown change {action!r}")
    with store.transaction():
        memory = _row(store, "knowledge", "id", memory_id)
        if memory is None:
            raise NotFound(f"no memory with id {memory_id}")
        rows = {"memory_meta": [m] if (m := _row(store, "memory_meta", "memory_id", memory_id)) else []}
        store.execute("DELETE FROM memory_changes")
        before = {"memory": None if action == "remember" else memory, "rows": {} if action == "remember" else rows,
                  # The memory's earlier texts up to now: a text the change replaces is kept after this
                  # (memory_history), and undo takes it out again with the change.
                  "history_until": store.one("SELECT coalesce(max(id), 0) FROM memory_history")[0]}
        store.execute("INSERT INTO memory_changes (memory_id, action, before, created_at) VALUES (?, ?, ?, ?)",
                      (memory_id, action, json.dumps(before), store.clock.now_iso()))


@contextlib.contextmanager
def recorded(store: Store, memory_id: int, action: str) -> Iterator[None]:
    """The change made inside this block is recorded for undo, all or nothing: a change that fails
    leaves the previous record in place."""
    with store.transaction():
        record_change(store, memory_id, action)
        yield


def keep_with_change(store: Store, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Keep, with the change just recorded, other rows it touches as they were (a forget's scrubbed
    messages and titles, its dropped summaries and edges), so undo puts them back whole."""
    row = store.one("SELECT id, before FROM memory_changes ORDER BY id DESC LIMIT 1")
    if row is None:
        return
    before = _shaped(json.loads(row[1]))
    for table, found in rows.items():
        if table not in RESTORED_TABLES:
            raise ValueError(f"undo cannot restore rows of {table}")
        kept = before["rows"].setdefault(table, [])
        keys = RESTORED_TABLES[table]
        seen = {tuple(r[k] for k in keys) for r in kept}
        kept += [r for r in found if tuple(r[k] for k in keys) not in seen]  # the earliest state wins
    store.execute("UPDATE memory_changes SET before = ? WHERE id = ?", (json.dumps(before), row[0]))


def drop_recorded_change(store: Store) -> None:
    """A change undo cannot put back was made: undo must not reach past it to an older change."""
    store.execute("DELETE FROM memory_changes")


def last_change(store: Store) -> dict[str, Any] | None:
    """The recorded change (memory_id, action, created_at, before: {memory, rows}), or None."""
    row = store.one("SELECT memory_id, action, before, created_at FROM memory_changes ORDER BY id DESC LIMIT 1")
    if row is None:
        return None
    return {"memory_id": row[0], "action": row[1], "before": _shaped(json.loads(row[2])), "created_at": row[3]}


def _shaped(before: dict[str, Any]) -> dict[str, Any]:
    """A record as this module writes it; one written before schema 10 (the reminder's row itself, its
    scrubbed messages and titles under "_scrubbed") read into that shape."""
    if "memory" in before and "rows" in before:
        return before
    scrubbed = before.pop("_scrubbed", None) or {}
    return {"memory": before, "rows": {"messages": scrubbed.get("messages", []),
                                       "episodes": scrubbed.get("episodes", [])}}


def _put_back(store: Store, table: str, row: dict[str, Any]) -> None:
    """A row as it was: updated where it still is (only the columns it had), inserted where it is gone."""
    columns = [c for c in row if _COLUMN.fullmatch(c)]
    keys = RESTORED_TABLES.get(table, ("id",))
    where = " AND ".join(f"{k} = ?" for k in keys)
    if store.one(f"SELECT 1 FROM {table} WHERE {where}", tuple(row[k] for k in keys)) is None:
        store.insert(table, {c: row[c] for c in columns})
    else:
        values = [c for c in columns if c not in keys]
        store.execute(f"UPDATE {table} SET {', '.join(f'{c} = ?' for c in values)} WHERE {where}",
                      (*(row[c] for c in values), *(row[k] for k in keys)))


def undo_last_change(store: Store) -> UndoneChange | None:
    """Put back what the last recorded change changed: the memory as it was (a forgotten one with its
    id, its words in every conversation and title it was taken out of, the summaries made from it),
    or, for a memory just made, take it away. None when there is nothing to undo. The record is used up."""
    with store.transaction():
        change = last_change(store)
        if change is None:
            return None
        store.execute("DELETE FROM memory_changes")
        memory_id, before = change["memory_id"], change["before"]
        if before["memory"] is None:  # a memory just made: gone again, as if never made
            if store.one("SELECT 1 FROM knowledge WHERE id = ?", (memory_id,)) is not None:
                delete_memory_row(store, memory_id)
            return UndoneChange(change["action"], None, change["created_at"], memory_id)
        row = before["memory"]
        current = store.one("SELECT occurrence_at FROM knowledge WHERE id = ?", (row["id"],))
        if current is not None and current[0] != row.get("occurrence_at") and row.get("occurrence_at"):
            # Undoing the completion of an occurrence of a series: forget that it was done.
            store.execute("DELETE FROM reminder_completions WHERE id = (SELECT max(id) FROM reminder_completions "
                          "WHERE memory_id = ? AND occurrence_at = ?)", (row["id"], row["occurrence_at"]))
        if current is not None:
            row = {**row, "updated_at": store.clock.now_iso()}
        _put_back(store, "knowledge", row)
        if "history_until" in before:  # an earlier text the change kept is the memory's own text again
            store.execute("DELETE FROM memory_history WHERE memory_id = ? AND id > ?",
                          (row["id"], before["history_until"]))
        if change["action"] == "forget":  # asked back: its tombstone goes
            store.execute("DELETE FROM forgotten WHERE uid = ?",
                          (row.get("uid") or f"{store.store_uid()}/memory/{row['id']}",))
        for table in ("summaries", "memory_meta", "messages", "episodes", "edges", "reminder_completions",
                      "turn_records", "memory_history"):
            for kept in before["rows"].get(table, []):
                _put_back(store, table, kept)
        return UndoneChange(change["action"], get_memory(store, row["id"]), change["created_at"], row["id"])
