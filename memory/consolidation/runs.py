"""The consolidation run log (consolidation_runs): the last run, the last completed one."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memory.store import Store


@dataclass
class Run:
    id: str
    started_at: str
    completed_at: str | None
    status: str  # running | completed | failed
    phase: str
    counts: dict[str, Any]

    @classmethod
    def from_row(cls, row: Any) -> Run:
        return cls(row["id"], row["started_at"], row["completed_at"], row["status"], row["phase"],
                   json.loads(row["counts"] or "{}"))


def last_completed_run(store: Store) -> Run | None:
    """The run that completed last (its started_at bounds what the next incremental run looks at)."""
    row = store.one("SELECT * FROM consolidation_runs WHERE status = 'completed' "
                    "ORDER BY completed_at DESC, started_at DESC LIMIT 1")
    return Run.from_row(row) if row else None


def latest_run(store: Store) -> Run | None:
    """The run started last, whatever became of it."""
    row = store.one("SELECT * FROM consolidation_runs ORDER BY started_at DESC LIMIT 1")
    return Run.from_row(row) if row else None
