"""Export as JSON Lines (SPEC F9): every record with its stable uid, read block by block so that a damaged
store still gives every row it can, and a tombstone for each memory forgotten here."""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from memory.connection import DatabaseError
from memory.memories import (
    FIELDS,
)
from memory.reminders import completions
from memory.schema import KINDS
from memory.store import Store
from memory.text import safe_json
from memory.time.rules import Recurrence

META_FIELDS = ("tier", "activation_count", "last_accessed", "superseded_by", "consolidated_into")


SUMMARY_FIELDS = ("id", "content", "key_facts", "decisions", "superseded_facts", "source_ids", "confidence",
                  "tier", "period_start", "period_end", "model", "run_id", "created_at")


EDGE_FIELDS = ("source_type", "source_id", "target_type", "target_id", "edge_type", "weight", "reason",
               "run_id", "created_at")


JSON_COLUMNS = ("message_ids", "tags", "key_facts", "decisions", "superseded_facts", "source_ids", "time_refs")


def _decode(row: Any, names: Iterable[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        value = row[name]
        if name in JSON_COLUMNS and isinstance(value, str):
            value = json.loads(value)
        out[name] = value
    return out


READ_BLOCK = 1000  # rows read per query; a block that cannot be read is split down to single rows


class Salvage:
    """What an export could not read from a damaged store (row ids per table)."""

    def __init__(self) -> None:
        self.skipped: dict[str, list[int]] = {}
        self.unreadable_tables: list[str] = []

    @property
    def count(self) -> int:
        return sum(len(ids) for ids in self.skipped.values())

    def describe(self) -> str:
        parts = [f"{len(ids)} {table} rows (ids {_ranges(ids)})" for table, ids in self.skipped.items()]
        parts += [f"the whole {table} table" for table in self.unreadable_tables]
        return "could not read " + "; ".join(parts)


def _ranges(ids: list[int]) -> str:
    ids = sorted(ids)
    spans: list[str] = []
    start: int | None = ids[0]
    for prev, cur in zip(ids, ids[1:] + [None], strict=True):
        if cur != prev + 1:
            spans.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = cur
    return ", ".join(spans[:5]) + (" ..." if len(spans) > 5 else "")


def _readable_rows(store: Store, table: str, select: str, salvage: Salvage) -> Iterator[Any]:
    """Rows of `table` in id order, read in blocks; in a damaged file the blocks that fail are split
    until every readable row is out and only the unreadable ones are skipped (and counted)."""
    last = None
    for sql in (f"SELECT max(id) FROM {table}", f"SELECT seq FROM sqlite_sequence WHERE name = '{table}'"):
        try:
            row = store.one(sql)
            last = row[0] if row else None
            break
        except DatabaseError:
            continue
    if last is None:
        try:
            store.one(f"SELECT 1 FROM {table} LIMIT 1")
        except DatabaseError:
            salvage.unreadable_tables.append(table)
        return

    def read(low: int, high: int, inside_damage: bool = False) -> list[Any]:
        if inside_damage and 1 < high - low + 1 <= 64:
            # Near damage a range can come back short without failing: read its ids one by one.
            return [row for one in range(low, high + 1) for row in read(one, one, True)]
        try:
            rows = store.query(select, (low, high))
        except DatabaseError:
            if low == high:
                salvage.skipped.setdefault(table, []).append(low)
                return []
            middle = (low + high) // 2
            return read(low, middle, True) + read(middle + 1, high, True)
        if low == high and not rows and inside_damage:
            # A lookup that lands on a damaged page can come back empty instead of failing.
            salvage.skipped.setdefault(table, []).append(low)
        return rows

    for low in range(1, last + 1, READ_BLOCK):
        yield from read(low, low + READ_BLOCK - 1)


def export_records(store: Store, salvage: Salvage | None = None) -> Iterator[dict[str, Any]]:
    """Every record, in an order import can replay, each with its stable `uid`.

    Reads block by block, so a damaged store still gives every row it can (see Salvage).
    """
    salvage = salvage or Salvage()
    own = store.store_uid() if not store.read_only else (store.get_meta("store_uid") or "readonly")

    def uid(kind: str, row: Any) -> str:
        return row["uid"] or f"{own}/{kind}/{row['id']}"

    for row in _readable_rows(store, "episodes", "SELECT * FROM episodes WHERE id BETWEEN ? AND ? ORDER BY id",
                              salvage):
        data = _decode(row, ("id", "title", "summary", "outcome", "started_at", "ended_at", "tags"))
        yield {"type": "episode", "uid": uid("episode", row), **data, "active": bool(row["active"])}
    for row in _readable_rows(store, "messages", "SELECT * FROM messages WHERE id BETWEEN ? AND ? ORDER BY id",
                              salvage):
        yield {"type": "message", "uid": uid("message", row),
               **_decode(row, ("id", "episode_id", "role", "content", "created_at", "time_refs"))}
    for row in _readable_rows(store, "knowledge", "SELECT k.*, m.tier, m.activation_count, m.last_accessed, "
                              "m.superseded_by, m.consolidated_into FROM knowledge k LEFT JOIN memory_meta m "
                              "ON m.memory_id = k.id WHERE k.id BETWEEN ? AND ? ORDER BY k.id", salvage):
        if not row["content"] or row["kind"] not in KINDS:  # garbage read back from a damaged page
            salvage.skipped.setdefault("knowledge", []).append(row["id"])
            continue
        data = _decode(row, (*FIELDS, *META_FIELDS))
        data["private"] = bool(data["private"])
        data["pinned"] = bool(data["pinned"])
        if data["recurrence"]:
            data["recurrence"] = Recurrence.from_text(data["recurrence"]).to_json()
            try:
                data["completions"] = completions(store, data["id"])
            except DatabaseError:
                data["completions"] = []
        yield {"type": "memory", "uid": uid("memory", row), **data}
    for row in _readable_rows(store, "summaries", "SELECT * FROM summaries WHERE id BETWEEN ? AND ? ORDER BY id",
                              salvage):
        yield {"type": "summary", "uid": uid("summary", row), **_decode(row, SUMMARY_FIELDS)}
    for row in _readable_rows(store, "edges", "SELECT * FROM edges WHERE id BETWEEN ? AND ? ORDER BY id", salvage):
        yield {"type": "edge", **_decode(row, EDGE_FIELDS)}
    yield from _tombstones(store, salvage)


def _tombstones(store: Store, salvage: Salvage) -> Iterator[dict[str, Any]]:
    """What was forgotten here, as tombstones (its uid and a hash of its text, never the text), so that an
    import of this file into another store, before or after an older one, keeps it forgotten."""
    try:
        rows = store.query("SELECT uid, hash, forgotten_at FROM forgotten ORDER BY forgotten_at, uid")
    except DatabaseError:
        salvage.unreadable_tables.append("forgotten")
        return
    for row in rows:
        yield {"type": "forgotten", "uid": row["uid"], "hash": row["hash"], "forgotten_at": row["forgotten_at"]}


def record_line(record: dict[str, Any]) -> str:
    """One JSON Lines record, every control character escaped: an export printed to a terminal
    cannot drive it."""
    return safe_json(record) + "\n"


def write_export(store: Store, out: IO[str], salvage: Salvage | None = None) -> int:
    count = 0
    for record in export_records(store, salvage):
        out.write(record_line(record))
        count += 1
    return count
