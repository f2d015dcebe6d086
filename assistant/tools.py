"""The tools the model may call, as plain functions over memory, with their JSON schemas."""
from __future__ import annotations

from assistant.runtime import Runtime
from memory import episodes


def _stamp(runtime: Runtime, iso: str) -> str:
    local = runtime.clock.local(iso)
    return f"{local:%b} {local.day:02d} {local:%H:%M}"


def recall_recent(runtime: Runtime, hours: float = 48, limit: int = 10) -> str:
    """Recent conversations in time order, with local timestamps and summaries."""
    items = episodes.list_recent(runtime.store, limit=limit, hours=hours)
    if not items:
        return f"No episodes found in the last {hours:g} hours."
    lines = []
    for e in reversed(items):
        lines.append(f"- [{_stamp(runtime, e.started_at)}] {e.title or 'Untitled'}")
        if e.summary:
            lines.append(f"  {e.summary}")
    return "\n".join(lines)
