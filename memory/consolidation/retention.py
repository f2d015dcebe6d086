"""Retention score and tiers (SPEC F6, SCAN and TIER)."""
from __future__ import annotations

import math
from datetime import datetime

HALF_LIFE_DAYS = 30.0
IMPORTANCE_BY_KIND = {"decision": 1.0, "fact": 0.9, "learning": 0.9, "preference": 0.85, "person": 0.8,
                      "event": 0.7, "note": 0.5}
DEFAULT_IMPORTANCE = 0.5
SUPERSEDED_FACTOR = 0.2
TIER_THRESHOLDS = (("hot", 0.6), ("warm", 0.3), ("cold", 0.1))


def retention(kind: str, created_at: datetime, last_accessed: datetime | None, activation_count: int,
              superseded: bool, now: datetime) -> dict[str, float]:
    """{overall, recency, activation, importance}, each in [0, 1]."""
    age = max(0.0, (now - created_at).total_seconds() / 86400)
    since_access = max(0.0, (now - last_accessed).total_seconds() / 86400) if last_accessed else age
    effective_age = min(age, since_access)
    recency = math.exp(-effective_age / HALF_LIFE_DAYS * math.log(2))
    activation = min(1.0, math.log(1 + max(0, activation_count)) / math.log(21))
    importance = IMPORTANCE_BY_KIND.get(kind, DEFAULT_IMPORTANCE)
    overall = 0.4 * recency + 0.2 * activation + 0.4 * importance
    if superseded:
        overall *= SUPERSEDED_FACTOR
    def clamp(x: float) -> float:
        return min(1.0, max(0.0, x))

    return {"overall": clamp(overall), "recency": clamp(recency), "activation": clamp(activation),
            "importance": clamp(importance)}


PINNED_TIERS = ("hot", "warm")  # a pinned memory's tier: never archived, never out of the default search's reach


def tier_for(score: float, superseded: bool = False, pinned: bool = False) -> str:
    """hot >= 0.6 > warm >= 0.3 > cold >= 0.1 > archived; a superseded memory is archived whatever its score.

    The x 0.2 of a superseded memory alone left a fresh fact cold (0.76 x 0.2 = 0.15), still found by a
    deep search as if true; once a newer memory replaces it, only an exhaustive search should find it.

    A memory the person pinned is never archived, superseded or not: it stays hot or warm (warm when its
    score would take it lower), so the standard retrieval mode always reaches it.
    """
    if pinned:
        tier = tier_for(score)
        return tier if tier in PINNED_TIERS else PINNED_TIERS[-1]
    if superseded:
        return "archived"
    for tier, floor in TIER_THRESHOLDS:
        if score >= floor:
            return tier
    return "archived"
