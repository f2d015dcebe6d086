"""`assistant status`: what is stored, where, and what the background work is doing."""
from __future__ import annotations

from typing import Any

from assistant.runtime import Runtime
from memory.clock import zone_name
from memory.consolidation.runs import latest_run
from memory.schema import SCHEMA_VERSION
from memory.store import counts


def collect_status(runtime: Runtime) -> dict[str, Any]:
    store = runtime.store
    last = latest_run(store)
    settings = runtime.settings
    return {
        "db": str(settings.db_path()),
        "schema_version": SCHEMA_VERSION,
        "config": settings.config_path or None,
        "timezone": zone_name(runtime.clock.zone),
        "now": runtime.clock.now_iso(),
        "provider": settings.provider or "auto",
        **counts(store),
        "embedding_model": store.get_meta("embedding_model"),
        "consolidation": None if last is None else {
            "last_run_id": last.id, "started_at": last.started_at, "completed_at": last.completed_at,
            "status": last.status, "phase": last.phase, "counts": last.counts},
    }
