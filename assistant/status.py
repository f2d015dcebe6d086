"""`assistant status`: what is stored, where, and what the background work is doing."""
from __future__ import annotations

from typing import Any

from assistant.runtime import Runtime
from memory.consolidation.runs import latest_run
from memory.schema import SCHEMA_VERSION
from memory.store import counts
from memory.time.zones import zone_name


def effective_provider(runtime: Runtime) -> str:
    """The chat model a turn would use now, and why ("offline (auto: no key, Ollama not reachable ...)")."""
    import os

    from assistant.providers.local import reachable

    s = runtime.settings
    if s.provider:
        return f"{s.provider} (configured)"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return f"anthropic {s.model} (auto: ANTHROPIC_API_KEY is set)"
    if reachable(s.ollama.host):
        return f"ollama (auto: Ollama answers at {s.ollama.host})"
    return f"offline (auto: no ANTHROPIC_API_KEY, Ollama not reachable at {s.ollama.host})"


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
        "provider": effective_provider(runtime),
        **counts(store),
        "embedding_model": store.get_meta("embedding_model"),
        "consolidation": None if last is None else {
            "last_run_id": last.id, "started_at": last.started_at, "completed_at": last.completed_at,
            "status": last.status, "phase": last.phase, "counts": last.counts},
    }
