"""Consolidation wired to the app's settings: the configured Ollama model and the local embedder."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from assistant.runtime import Runtime


def run_consolidation(runtime: Runtime, full: bool = False, dry_run: bool = False, progress=None) -> dict[str, Any]:
    import dataclasses

    from assistant.local_model import local_model
    from memory.consolidation.pipeline import Consolidator, Options

    c = runtime.settings.consolidation
    model = local_model(runtime)
    # The pipeline's options are the [consolidation] settings of the same names.
    options = Options(**{f.name: getattr(c, f.name) for f in dataclasses.fields(Options) if hasattr(c, f.name)})
    result = Consolidator(runtime.store, runtime.embedder, model, options, progress).run(full=full, dry_run=dry_run)
    return result.to_json()


def consolidation_due(runtime: Runtime, idle_minutes: float) -> bool:
    """Idle long enough, or enough new memories, and not more often than min_interval_hours."""
    c = runtime.settings.consolidation
    if not c.enabled:
        return False
    store, now = runtime.store, runtime.clock.now()
    last = store.one("SELECT max(started_at) FROM consolidation_runs WHERE status = 'completed'")[0]
    if last:
        from memory.clock import parse_stored

        if now - parse_stored(last) < timedelta(hours=c.min_interval_hours):
            return False
        new = store.one("SELECT count(*) FROM knowledge WHERE created_at >= ?", (last,))[0]
    else:
        new = store.one("SELECT count(*) FROM knowledge")[0]
    return new > 0 and (idle_minutes >= c.idle_minutes or new >= c.memory_threshold)
