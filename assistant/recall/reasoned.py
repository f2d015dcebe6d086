"""Reasoned recall (SPEC F5): statements with their timestamps, relative dates resolved against each
one's own time at the precision they were said ("last month" is a month, never a made-up day),
then an answer with provenance: from the local model (Ollama's or the OpenAI-compatible endpoint's),
or composed from the best statement
when there is none. Every source is named by its type and id (a message id is not a memory id)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from assistant.recall.evidence import (
    MIN_RELEVANCE,
    NOTHING,
    TYPE_RANK,
    Evidence,
    content_words,
    find_evidence,
    told_when,
)
from assistant.runtime import Runtime
from assistant.views import private_marked
from memory.consolidation.protocol import confidence_value
from memory.errors import MalformedAnswer, ModelUnavailable, RequestTooLong
from memory.memories import memories_by_id
from memory.search import Hit
from memory.time.references import Resolved, resolve_in_text, stored_resolution, valid_ref

if TYPE_CHECKING:
    from assistant.providers.local import StructuredModel


@dataclass
class Resolution:
    original_text: str
    memory_timestamp: str  # when the source was written (UTC)
    resolved_date: str  # at its granularity: "2026-11-08", "2026-11-02" (week), "2026-10", "2026"
    granularity: str  # day | week | month | year
    resolved_text: str  # "Sun Nov 8", "the week of Nov 2", "October 2026", "2026"
    source_type: str  # memory | message | summary
    source_id: int
    memory_id: int | None  # the source's id when it is a memory, else None


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
        data["source_ids"] = [s["id"] for s in self.sources if s["type"] == "memory"]
        data["source_refs"] = [f"{s['type']}:{s['id']}" for s in self.sources]
        return data

    def to_text(self) -> str:
        lines = [self.answer, f"(confidence {self.confidence:.2f}; {self.reasoning})"]
        lines += [f"  '{r.original_text}' in {r.source_type} #{r.source_id} ({r.memory_timestamp[:10]}) -> "
                  f"{r.resolved_text}" for r in self.temporal_resolutions]
        return "\n".join(lines)


def resolutions_of(runtime: Runtime, evidence: Evidence) -> list[Resolution]:
    """Stored write-time resolutions when the row has them; older rows are resolved now."""
    this_year = runtime.clock.local(runtime.clock.now()).year
    if evidence.time_refs:
        resolved: list[Resolved] = [stored_resolution(ref) for ref in evidence.time_refs if valid_ref(ref)]
    else:
        # Resolved as when written (a bare weekday by the tense of its statement), as annotate() does.
        resolved = resolve_in_text(evidence.content, runtime.clock.local(evidence.created_at).replace(tzinfo=None))
    return [Resolution(r.text, evidence.created_at, r.iso(), r.granularity, r.describe(this_year), evidence.type,
                       evidence.id, evidence.id if evidence.type == "memory" else None) for r in resolved]


def reasoned_recall(runtime: Runtime, query: str, mode: str = "standard", limit: int = 10,
                    exclude_message_ids: tuple[int, ...] = (), model: StructuredModel | None = None,
                    hits: list[Hit] | None = None, evidence: list[Evidence] | None = None) -> ReasonedAnswer:
    """The statements that answer `query` with their dates resolved; `model`, the local model (none:
    composed locally), writes the answer from them. `hits`: the search already made for `query`;
    `evidence`: the statements already found to answer it (weighed by meaning), the best first."""
    weighed = evidence is not None
    if evidence is None:
        evidence = find_evidence(runtime, query, limit=limit, mode=mode, exclude_message_ids=exclude_message_ids,
                                 strict=False, hits=hits)
    if not weighed and not any(e.relevance >= MIN_RELEVANCE for e in evidence[:3]) and model is None:
        # Without a model the answer is the best statement itself: it must be about the question.
        evidence = [e for e in evidence if e.relevance >= MIN_RELEVANCE] or []
    if not evidence:
        return ReasonedAnswer(NOTHING, 0.0, "no matching statements")
    runtime.searcher.touch([e.id for e in evidence if e.type == "memory"])
    resolutions = [r for e in evidence for r in resolutions_of(runtime, e)]
    sources = [e.source() for e in evidence]  # every source it ranked, best first
    refused = ""  # why the local model did not answer, when it was asked and it says why
    if model is not None:
        try:
            answer = _ask_model(runtime, model, query, sources, resolutions)
        except RequestTooLong as exc:
            answer, refused = None, f"; the local model could not take them: {exc}"
        except (ModelUnavailable, MalformedAnswer) as exc:
            answer, refused = None, f"; the local model gave no usable answer: {exc}"
        if answer is not None:
            return answer
    # From the ranked head, the most to the point, a memory before something said in passing, and
    # never the assistant's own words (they may be a help text quoting the very question).
    # ... and sharing a word of the question itself, not only a word for the same kind of thing ("the
    # book club meets on Wednesdays" is no answer to "when is the dentist appointment?").
    asked = content_words(query)
    said = [e for e in evidence if e.role != "assistant" and (weighed or asked & content_words(e.content))]
    if not said:
        return ReasonedAnswer(NOTHING, 0.0, "only my own replies matched" + refused, resolutions, sources)
    best = said[0] if weighed else max(said[:5], key=lambda e: (e.relevance, -TYPE_RANK[e.type]))
    own = [r for r in resolutions if (r.source_type, r.source_id) == (best.type, best.id)]
    text = f"From memory ({told_when(runtime, best)}): {private_marked(best.content.rstrip('.'), best.private)}."
    if own:
        first = own[0]
        meant = stored_resolution({"text": first.original_text, "date": first.resolved_date,
                                   "granularity": first.granularity})
        today = runtime.clock.local(runtime.clock.now())
        # The tense of the date, not of the statement: "the dentist is on Friday", asked on Tuesday, is ahead.
        tense = "is" if meant.moment.date() > today.date() else "was"
        text += f" That {tense} {meant.phrase(today.year)}."
    return ReasonedAnswer(text, 0.6 if own else 0.4,
                          "composed without a model from the best-matching statement and its resolved dates" + refused,
                          resolutions, sources)


def _ask_model(runtime: Runtime, model: StructuredModel, query: str, sources: list[dict[str, Any]],
               resolutions: list[Resolution]) -> ReasonedAnswer:
    """The local model's answer from the statements; ModelUnavailable or MalformedAnswer when there is none
    (said with the answer composed without it), RequestTooLong for a request it cannot take even cut to fit."""
    from assistant.outbound import requests, send
    from assistant.outbound.gate import Gate

    # Through the gate like a chat turn: a private memory the question does not ask about stays home,
    # a sensitive one goes as its id, every statement is one escaped JSON value.
    gate = Gate(runtime.store, query, embedder=runtime.embedder)
    held = {m.id: m for m in memories_by_id(runtime.store, [s["id"] for s in sources if s["type"] == "memory"])}
    sources = [s for s in sources if s["type"] != "memory" or s["id"] not in held or gate.listed(held[s["id"]])]
    kept = {(s["type"], s["id"]) for s in sources}
    resolutions = [r for r in resolutions if (r.source_type, r.source_id) in kept]  # a withheld one's dates too
    data = send.ask_local(model, requests.recall(gate, query, sources, held, resolutions))
    refs = {str(r) for r in data.get("source_refs") or []}
    used = [s for s in sources if f"{s['type']}:{s['id']}" in refs or str(s["id"]) in refs]
    return ReasonedAnswer(str(data["answer"]), confidence_value(data.get("confidence")),
                          str(data.get("reasoning") or ""), resolutions, used or sources[:3], model.name)
