"""Every memory, a page at a time (SPEC F12, the Memories screen): newest first, filtered by kind, tier,
private, sensitive, pinned and source, and what one memory is linked to (its tier and retention, what
it superseded and what superseded it, the summaries made from it, where it was said).

A page is read by its position in the order (keyset: the created_at and id of the last row shown), never
by an offset: the thousandth page of 100,000 memories costs what the first does, and nothing is read
that is not shown.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memory.errors import InvalidInput
from memory.memories import SELECT_MEMORY, Memory
from memory.schema import KINDS, TIERS
from memory.store import Store
from memory.summaries import Summary, summaries_by_id

SOURCES = ("typed", "imported", "mcp")  # "mcp" is every "mcp:<client>"
PAGE = 100
Cursor = tuple[str, int]  # (created_at, id) of the last memory of a page


@dataclass(frozen=True)
class MemoryFilter:
    """What the list shows; None: either way."""

    kind: str | None = None
    tier: str | None = None
    private: bool | None = None
    sensitive: bool | None = None
    pinned: bool | None = None
    source: str | None = None  # typed | imported | mcp

    def __post_init__(self) -> None:
        for name, allowed in (("kind", KINDS), ("tier", TIERS), ("source", SOURCES)):
            value = getattr(self, name)
            if value is not None and value not in allowed:
                raise InvalidInput(f"{name} must be one of {', '.join(allowed)}, not {str(value)[:40]!r}")

    def where(self) -> tuple[list[str], list[Any]]:
        """SQL conditions on `k` (knowledge) and `m` (memory_meta), with their parameters."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.kind is not None:
            clauses.append("k.kind = ?")
            params.append(self.kind)
        if self.tier is not None:
            clauses.append("coalesce(m.tier, 'hot') = ?")
            params.append(self.tier)
        for name in ("private", "sensitive", "pinned"):
            value = getattr(self, name)
            if value is not None:  # a constant, so the partial index of the flag (schema 14) serves it
                clauses.append(f"k.{name} = {int(value)}")
        if self.source == "mcp":
            clauses.append("k.source >= 'mcp:' AND k.source < 'mcp;'")  # every "mcp:<client>", by the index
        elif self.source is not None:
            clauses.append("k.source = ?")
            params.append(self.source)
        return clauses, params


def page(store: Store, filters: MemoryFilter | None = None, after: Cursor | None = None,
         limit: int = PAGE) -> tuple[list[Memory], Cursor | None]:
    """Up to `limit` memories after `after`, newest first (created_at, then id), and the cursor of the
    next page (None when this one is the last)."""
    if limit < 1:
        raise InvalidInput("limit must be at least 1")
    clauses, params = (filters or MemoryFilter()).where()
    if after is not None:
        clauses.append("(k.created_at, k.id) < (?, ?)")
        params += [after[0], after[1]]
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = store.query(f"{SELECT_MEMORY}{where} ORDER BY k.created_at DESC, k.id DESC LIMIT ?", (*params, limit + 1))
    items = [Memory.from_row(r) for r in rows[:limit]]
    more = len(rows) > limit
    return items, ((items[-1].created_at, items[-1].id) if more and items else None)


def count(store: Store, filters: MemoryFilter | None = None) -> int:
    """How many memories the filters let through."""
    clauses, params = (filters or MemoryFilter()).where()
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    join = " LEFT JOIN memory_meta m ON m.memory_id = k.id" if "m." in where else ""
    return store.number(f"SELECT count(*) FROM knowledge k{join}{where}", tuple(params))


def among(store: Store, memory_ids: list[int], filters: MemoryFilter | None = None) -> list[Memory]:
    """Those of these memories (a search's, best first) that the filters let through, in the order given."""
    if not memory_ids:
        return []
    clauses, params = (filters or MemoryFilter()).where()
    clauses.append(f"k.id IN ({','.join('?' * len(memory_ids))})")
    rows = store.query(f"{SELECT_MEMORY} WHERE {' AND '.join(clauses)}", (*params, *memory_ids))
    by_id = {r["id"]: Memory.from_row(r) for r in rows}
    return [by_id[i] for i in memory_ids if i in by_id]


@dataclass
class Linked:
    """Another memory a memory is linked to (by supersession), as it reads now."""

    id: int
    content: str
    created_at: str
    private: bool
    sensitive: bool
    reason: str | None


@dataclass
class Standing:
    """One memory's place in memory: its tier and retention, its links, what was made from it."""

    tier: str
    retention: float | None  # overall retention at the last consolidation (None: not scored yet)
    factors: dict[str, float]  # recency, activation, importance
    activation_count: int
    last_accessed: str | None
    scored_at: str | None
    supersedes: list[Linked]  # older memories it replaced
    superseded_by: list[Linked]  # newer memories that replaced it
    summaries: list[Summary]  # consolidated summaries made from it
    said_in: int | None  # the conversation it was said in (the first of its messages that is still there)
    said_at: str | None  # when that message was said (UTC)


def standing(store: Store, memory_id: int) -> Standing:
    meta = store.one("SELECT * FROM memory_meta WHERE memory_id = ?", (memory_id,))
    factors = {name: meta[column] for name, column in (("recency", "recency"), ("activation", "activation"),
                                                        ("importance", "importance_factor"))
               if meta is not None and meta[column] is not None}

    def linked(this_end: str, other_end: str) -> list[Linked]:
        rows = store.query("SELECT k.id, k.content, k.created_at, k.private, k.sensitive, e.reason FROM edges e "
                           f"JOIN knowledge k ON k.id = e.{other_end} WHERE e.edge_type = 'supersedes' "
                           f"AND e.source_type = 'memory' AND e.target_type = 'memory' AND e.{this_end} = ? "
                           "ORDER BY k.created_at DESC, k.id DESC LIMIT 20", (memory_id,))
        return [Linked(r[0], r[1], r[2], bool(r[3]), bool(r[4]), r[5]) for r in rows]

    supersedes = linked("source_id", "target_id")
    superseded_by = linked("target_id", "source_id")
    # A link the judge or the reading made without an edge still shows (memory_meta.superseded_by).
    if meta is not None and meta["superseded_by"] is not None and \
            all(x.id != meta["superseded_by"] for x in superseded_by):
        row = store.one("SELECT id, content, created_at, private, sensitive FROM knowledge WHERE id = ?",
                        (meta["superseded_by"],))
        if row is not None:
            superseded_by.append(Linked(row[0], row[1], row[2], bool(row[3]), bool(row[4]), None))
    summary_ids = [r[0] for r in store.query(
        "SELECT DISTINCT s.id FROM summaries s, json_each(s.source_ids) j WHERE j.value = ? ORDER BY s.id DESC "
        "LIMIT 20", (memory_id,))]
    said_in, said_at = None, None
    ids_row = store.one("SELECT message_ids FROM knowledge WHERE id = ?", (memory_id,))
    message_ids = json.loads(ids_row[0] or "[]") if ids_row else []
    if message_ids:
        found = store.one(f"SELECT episode_id, created_at FROM messages WHERE id IN "
                          f"({','.join('?' * len(message_ids))}) ORDER BY id LIMIT 1", tuple(message_ids))
        if found is not None:
            said_in, said_at = found[0], found[1]
    def of_meta(column: str, default: Any = None) -> Any:
        return meta[column] if meta is not None else default

    return Standing(of_meta("tier", "hot"), of_meta("retention"), factors, of_meta("activation_count", 0),
                    of_meta("last_accessed"), of_meta("scored_at"), supersedes, superseded_by,
                    summaries_by_id(store, summary_ids), said_in, said_at)
