"""`assistant status`: what is stored, where, and what the background work is doing."""
from __future__ import annotations

import json
from typing import Any

from assistant.runtime import Runtime
from memory.clock import zone_name
from memory.schema import SCHEMA_VERSION


def collect_status(runtime: Runtime) -> dict[str, Any]:
    store = runtime.store
    count = lambda sql: store.one(sql)[0]  # noqa: E731
    last = store.one("SELECT id, started_at, completed_at, status, phase, counts FROM consolidation_runs "
                     "ORDER BY started_at DESC LIMIT 1")
    settings = runtime.settings
    return {
        "db": str(settings.db_path()),
        "schema_version": SCHEMA_VERSION,
        "config": settings.config_path or None,
        "timezone": zone_name(runtime.clock.zone),
        "now": runtime.clock.now_iso(),
        "provider": settings.provider or "auto",
        "memories": count("SELECT count(*) FROM knowledge"),
        "open_reminders": count("SELECT count(*) FROM knowledge WHERE due_at IS NOT NULL AND done_at IS NULL"),
        "episodes": count("SELECT count(*) FROM episodes"),
        "messages": count("SELECT count(*) FROM messages"),
        "summaries": count("SELECT count(*) FROM summaries"),
        "pending_embeddings": count("SELECT count(*) FROM pending_embeddings"),
        "embedding_model": store.get_meta("embedding_model"),
        "consolidation": None if last is None else {
            "last_run_id": last["id"], "started_at": last["started_at"], "completed_at": last["completed_at"],
            "status": last["status"], "phase": last["phase"], "counts": json.loads(last["counts"])},
    }
