"""Consolidated summaries (written by memory.consolidation): reading them back."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from memory.store import Store

CONFIDENT = 0.7  # summaries below this confidence are not shown to a model


@dataclass
class Summary:
    id: int
    content: str
    confidence: float
    tier: str
    key_facts: list[str] = field(default_factory=list)
    source_ids: list[int] = field(default_factory=list)
    period_start: str | None = None
    period_end: str | None = None
    created_at: str = ""

    @classmethod
    def from_row(cls, row: Any) -> Summary:
        return cls(row["id"], row["content"], row["confidence"], row["tier"], json.loads(row["key_facts"]),
                   json.loads(row["source_ids"]), row["period_start"], row["period_end"], row["created_at"])


def summaries_by_id(store: Store, ids: list[int]) -> list[Summary]:
    """These summaries, in the order given (missing ones are left out)."""
    if not ids:
        return []
    rows = {r["id"]: r for r in store.query(f"SELECT * FROM summaries WHERE id IN ({','.join('?' * len(ids))})",
                                            tuple(ids))}
    return [Summary.from_row(rows[i]) for i in ids if i in rows]


def confident_summaries(store: Store, limit: int) -> list[int]:
    """Ids of the newest summaries confident enough to show, not archived."""
    rows = store.query("SELECT id FROM summaries WHERE confidence >= ? AND tier != 'archived' "
                       "ORDER BY created_at DESC, id DESC LIMIT ?", (CONFIDENT, limit))
    return [r[0] for r in rows]
