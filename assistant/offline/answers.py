"""Answers from memory without a model (SPEC F7 offline mode): the best statements with their dates."""
from __future__ import annotations

from assistant.recall.evidence import Evidence, find_evidence, told_when
from assistant.runtime import Runtime


def shown(runtime: Runtime, evidence: Evidence) -> str:
    this_year = runtime.clock.local(runtime.clock.now()).year
    return ("[Private] " if evidence.private else "") + evidence.dated(this_year)


def answer_from_memory(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...] = ()) -> str:
    """The offline answer to a question: the best statements with their dates, or a plain "nothing"."""
    from memory.time.references import asks_when

    if asks_when(question):
        from assistant.recall.reasoned import reasoned_recall

        return reasoned_recall(runtime, question, exclude_message_ids=exclude_message_ids).answer
    found = find_evidence(runtime, question, limit=5, exclude_message_ids=exclude_message_ids)
    if not found:
        return "I don't have anything in memory about that."
    best = found[0]
    shown_now = [best] + [e for e in found[1:3] if e.relevance >= best.relevance]
    runtime.searcher.touch([e.id for e in shown_now if e.type == "memory"])
    lines = [f"From memory ({told_when(runtime, best)}): {shown(runtime, best)}"]
    # Equally good matches are shown too: the user can tell which one they meant.
    lines += [f"Also ({told_when(runtime, e)}): {shown(runtime, e)}" for e in shown_now[1:]]
    return "\n".join(lines)
