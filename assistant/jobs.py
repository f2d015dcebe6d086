"""Consolidation wired to the app's settings: the configured Ollama model and the local embedder."""
from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from assistant.runtime import Runtime
from memory.consolidation.runs import last_completed_run
from memory.memories import count_created_since
from memory.time.instants import parse_stored

if TYPE_CHECKING:
    from memory.consolidation.pipeline import Progress


def run_consolidation(runtime: Runtime, full: bool = False, dry_run: bool = False,
                      progress: Progress | None = None) -> dict[str, Any]:
    import dataclasses

    from assistant.outbound.send import GatedConsolidationModel
    from assistant.providers.local import local_model
    from memory.consolidation.options import Options
    from memory.consolidation.pipeline import Consolidator

    c = runtime.settings.consolidation
    model = GatedConsolidationModel(runtime.store, local_model(runtime))  # the local model behind the gate
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
    last = last_completed_run(store)
    if last is not None and now - parse_stored(last.started_at) < timedelta(hours=c.min_interval_hours):
        return False
    new = count_created_since(store, last.started_at if last else None)
    return new > 0 and (idle_minutes >= c.idle_minutes or new >= c.memory_threshold)
