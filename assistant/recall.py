"""Reasoned recall (SPEC F5): memories with their timestamps, relative dates resolved against each
memory's own time, then an answer with provenance: from the configured model, or composed from the
best memory when there is none."""
from __future__ import annotations

import asyncio
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from assistant.runtime import Runtime
from memory.temporal import detect_temporal_references, resolve_temporal_reference


@dataclass
class Resolution:
    original_text: str
    memory_timestamp: str
    resolved_date: str
    memory_id: int


@dataclass
class ReasonedAnswer:
    answer: str
    confidence: float
    reasoning: str
    temporal_resolutions: list[Resolution] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    model: str = "none"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["source_ids"] = [s["id"] for s in self.sources]
        return data

    def to_text(self) -> str:
        lines = [self.answer, f"(confidence {self.confidence:.2f}; {self.reasoning})"]
        lines += [f"  '{r.original_text}' in #{r.memory_id} ({r.memory_timestamp[:10]}) -> {r.resolved_date}"
                  for r in self.temporal_resolutions]
        return "\n".join(lines)


def reasoned_recall(runtime: Runtime, query: str, mode: str = "standard", limit: int = 8) -> ReasonedAnswer:
    hits = runtime.searcher.search(query, limit=limit, mode=mode, types=("memory", "message", "summary"))
    sources, resolutions = [], []
    for h in hits:
        local = runtime.clock.local(h.created_at)
        sources.append({"type": h.type, "id": h.id, "content": h.content, "created_at": h.created_at})
        for ref in detect_temporal_references(h.content):
            resolved = resolve_temporal_reference(ref, local)
            if resolved is not None:
                resolutions.append(Resolution(ref, h.created_at, resolved.date().isoformat(), h.id))
    if not hits:
        return ReasonedAnswer("I have nothing in memory about that.", 0.0, "no matching memories")
    answer = _ask_model(runtime, query, sources, resolutions)
    if answer is not None:
        return answer
    best = sources[0]
    own = [r for r in resolutions if r.memory_id == best["id"]]
    when = f" That was on {own[0].resolved_date} ('{own[0].original_text}', written {best['created_at'][:10]})." \
        if own else f" (recorded {best['created_at'][:10]})"
    # Every ranked source, not the first few: the best match is often the question's own context and
    # the dated turn comes later (keeping 5 cost 7 points on "when" questions of the public benchmark).
    return ReasonedAnswer(f"From memory: {best['content']}{when}", 0.6 if own else 0.4,
                          "composed without a model from the best-matching memory and its resolved dates",
                          resolutions, sources)


def _ask_model(runtime: Runtime, query: str, sources, resolutions) -> ReasonedAnswer | None:
    from assistant.providers.base import Delta, ProviderError, SystemPrompt
    from assistant.providers.select import select_provider

    try:
        provider = select_provider(runtime)
    except ProviderError:
        return None
    if provider.name == "offline":
        return None
    evidence = json.dumps({"memories": sources, "resolved_dates": [asdict(r) for r in resolutions]}, indent=1)
    system = SystemPrompt("Answer the question from the memories only. Reply with JSON: {\"answer\": str, "
                          "\"confidence\": number 0-1, \"reasoning\": str, \"source_ids\": [int]}. Dates in "
                          "memories are relative to when each memory was written; use resolved_dates.",
                          f"<memories>\n{evidence}\n</memories>")

    async def ask() -> str:
        parts = []
        async for item in provider.stream(system, [{"role": "user", "text": query}], []):
            if isinstance(item, Delta):
                parts.append(item.text)
        return "".join(parts)

    try:
        raw = asyncio.run(ask())
        data = json.loads(re.search(r"\{.*\}", raw, re.S).group(0))
        used = {int(i) for i in data.get("source_ids") or []}
        return ReasonedAnswer(str(data["answer"]), float(data.get("confidence", 0.5)), str(data.get("reasoning", "")),
                              resolutions, [s for s in sources if s["id"] in used] or sources[:3], provider.model)
    except (ProviderError, AttributeError, ValueError, KeyError, TypeError):
        return None
