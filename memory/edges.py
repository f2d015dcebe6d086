"""Links between memories and summaries (the `edges` table): supersedes, consolidates, references.

Every writer (consolidation's summaries and judge, an import) stores a link through `insert_edge`;
a supersession also marks the older memory (memory_meta.superseded_by), in `mark_superseded`."""
from __future__ import annotations

import math
from typing import Any

from memory.errors import InvalidInput
from memory.secrets import mark_secret
from memory.store import Store

EDGE_TYPES = ("supersedes", "consolidates", "references")
END_TYPES = ("memory", "summary")


def insert_edge(store: Store, source: tuple[str, int], target: tuple[str, int], edge_type: str,
                weight: float = 1.0, reason: str | None = None, run_id: str | None = None,
                created_at: str | None = None) -> None:
    """Store one link (a link already there is kept as it is: consolidation reruns add nothing)."""
    if edge_type not in EDGE_TYPES:
        raise InvalidInput(f"edge_type must be supersedes, consolidates or references, not {edge_type!r}")
    for end, (end_type, _) in (("source", source), ("target", target)):
        if end_type not in END_TYPES:
            raise InvalidInput(f"{end}_type must be memory or summary")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
        raise InvalidInput(f"weight must be a finite number, not {weight!r}"[:80])
    if reason is not None and not isinstance(reason, str):
        raise InvalidInput("reason must be text")
    store.execute("INSERT OR IGNORE INTO edges (source_type, source_id, target_type, target_id, edge_type, weight, "
                  "reason, run_id, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                  (*source, *target, edge_type, float(weight), reason, run_id, created_at or store.clock.now_iso()))


def mark_superseded(store: Store, newer: int, older: int, confidence: float, reason: str,
                    run_id: str | None = None) -> None:
    """`newer` replaces what `older` said: the link, and the older one marked (its retention drops)."""
    with store.transaction():
        insert_edge(store, ("memory", newer), ("memory", older), "supersedes", confidence, reason[:500], run_id)
        store.execute("UPDATE memory_meta SET superseded_by = ? WHERE memory_id = ?", (newer, older))
        row = store.one("SELECT sensitive FROM knowledge WHERE id = ?", (newer,))
        if row is not None and row[0]:
            mark_secret(store, [older])


def edges_of(store: Store, memory_id: int) -> list[dict[str, Any]]:
    """Every link from or to one memory, oldest first."""
    rows = store.query("SELECT * FROM edges WHERE (source_type = 'memory' AND source_id = ?) "
                       "OR (target_type = 'memory' AND target_id = ?) ORDER BY id", (memory_id, memory_id))
    return [{"source_type": r["source_type"], "source_id": r["source_id"], "target_type": r["target_type"],
             "target_id": r["target_id"], "edge_type": r["edge_type"], "weight": r["weight"], "reason": r["reason"],
             "run_id": r["run_id"], "created_at": r["created_at"]} for r in rows]
