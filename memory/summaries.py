"""Consolidated summaries (written by memory.consolidation): reading them back."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from memory.errors import InvalidInput
from memory.schema import TIERS
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


@dataclass
class NewSummary:
    """A consolidated summary about to be stored (by consolidation, or an import)."""

    content: str
    source_key: str  # what makes it unique: its sources' ids, "1,2,3" (a rerun over them adds nothing)
    key_facts: list[str] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    superseded_facts: list[str] = field(default_factory=list)
    source_ids: list[int] = field(default_factory=list)
    confidence: float = 0.8
    tier: str = "warm"
    period_start: str | None = None
    period_end: str | None = None
    model: str | None = None
    run_id: str | None = None
    created_at: str | None = None
    uid: str | None = None
    id: int | None = None


def _texts(name: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"{name} must be a list of text")
    return value


def insert_summary(store: Store, new: NewSummary) -> int:
    """Check and store one summary; returns its id. A model's or a file's odd values are refused here,
    once, for every writer (a non-text key fact used to break every later prompt)."""
    content = new.content.strip() if isinstance(new.content, str) else ""
    if not content:
        raise InvalidInput("a summary needs text")
    confidence = new.confidence
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not math.isfinite(confidence) \
            or not 0 <= confidence <= 1:
        raise InvalidInput(f"confidence must be a number from 0 to 1, not {confidence!r}"[:80])
    if new.tier not in TIERS:
        raise InvalidInput(f"tier must be one of {', '.join(TIERS)}")
    if not isinstance(new.decisions, list) or not all(isinstance(d, dict) for d in new.decisions):
        raise InvalidInput("decisions must be a list of objects")
    for name in ("model", "run_id"):
        if getattr(new, name) is not None and not isinstance(getattr(new, name), str):
            raise InvalidInput(f"{name} must be text")
    values: dict[str, Any] = {
        "content": content, "key_facts": json.dumps(_texts("key_facts", new.key_facts)),
        "decisions": json.dumps(new.decisions), "superseded_facts": json.dumps(_texts("superseded_facts",
                                                                                    new.superseded_facts)),
        "source_ids": json.dumps(new.source_ids), "source_key": new.source_key, "confidence": float(confidence),
        "tier": new.tier, "period_start": new.period_start, "period_end": new.period_end, "model": new.model,
        "run_id": new.run_id, "created_at": new.created_at or store.clock.now_iso(), "uid": new.uid}
    if new.id is not None and store.one("SELECT 1 FROM summaries WHERE id = ?", (new.id,)) is None:
        values["id"] = new.id
    with store.transaction():
        return store.insert("summaries", values)
