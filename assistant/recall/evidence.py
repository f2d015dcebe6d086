"""Answers from memory without a model (SPEC F7 offline mode, F5 reasoned recall without a model).

A question is answered from the statements that best match it: memories first, then what the user
said, never a question (least of all the question being asked) and never small talk. Each piece of
evidence carries its date, and relative words in it carry the date they meant ("Sara moved to
Lisbon last month [October 2026]").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from assistant.runtime import Runtime
from memory import episodes, memories
from memory.search import STOPWORDS
from memory.time.references import with_dates

# Words that say how a question is asked, not what it is about.
_QUESTION_WORDS = frozenset("""what whats when where who whom whose which why how is are was were do does did can
could should would will have has had tell remind know remember again please any idea forgot forget told say said
ever much many long ago date day time year month week""".split()) | STOPWORDS
_QUESTION = re.compile(r"\?\s*$|^\W*(what|what's|whats|when|where|who|whom|whose|which|why|how|is|are|was|were|do|"
                       r"does|did|can|could|should|would|will|have|has|had)\b", re.I)
_SMALL_TALK = re.compile(r"^\W*(hi|hello|hey|thanks|thank you|ok|okay|cool|great|nice|wow|haha|lol|yes|no|yeah|"
                         r"sure|bye)\b[\w\s!.,']{0,25}$", re.I)
TYPE_RANK = {"memory": 0, "summary": 1, "message": 2, "episode": 3}
MIN_RELEVANCE = 0.5  # share of the question's content words a statement must contain


def content_words(text: str) -> set[str]:
    """Lower-cased stems of the words that carry meaning ("birthdays" and "birthday" meet)."""
    stems = set()
    for word in re.findall(r"[\w']+", text.lower()):
        word = word.removesuffix("'s").strip("'")
        if len(word) < 2 or word in _QUESTION_WORDS:
            continue
        for suffix in ("ies", "es", "s", "ing", "ed"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
                break
        stems.add(word)
    return stems


def _flat(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def asked_about(query: str, content: str) -> bool:
    """The message asks about this (private) memory: most of its meaningful words are in it."""
    wanted = content_words(query)
    return bool(wanted) and len(wanted & content_words(content)) / len(wanted) >= MIN_RELEVANCE


def is_question(text: str) -> bool:
    return bool(_QUESTION.search(text.strip()))


@dataclass
class Evidence:
    type: str  # memory | message | summary | episode
    id: int
    content: str  # as written
    created_at: str
    relevance: float  # share of the question's content words found in it
    role: str | None = None  # for messages: user | assistant
    time_refs: list[dict[str, str]] = field(default_factory=list)
    private: bool = False

    def source(self) -> dict[str, Any]:
        return {"type": self.type, "id": self.id, "content": self.content, "created_at": self.created_at}

    def dated(self, this_year: int | None = None) -> str:
        """The text with each relative word followed by the date it meant."""
        return with_dates(self.content, self.time_refs, this_year)


def find_evidence(runtime: Runtime, question: str, limit: int = 10, mode: str = "standard",
                  exclude_message_ids: tuple[int, ...] = (), strict: bool = True) -> list[Evidence]:
    """Statements that answer `question`, best first.

    strict (an answer shown as is): only statements holding most of the question's words, by
    relevance, memories before messages. Not strict (evidence for reasoning): every statement the
    search ranked, in its order, since in conversation the answer often shares no word with the
    question and is found through the turn before it.
    """
    wanted = content_words(question)
    if not wanted:
        return []
    hits = runtime.searcher.search(question, limit=max(limit * 3, 30), mode=mode,
                                   types=("memory", "message", "summary"), touch=False)
    messages = episodes.messages_by_id(runtime.store, [h.id for h in hits if h.type == "message"])
    by_id = {m.id: m for m in memories.memories_by_id(runtime.store, [h.id for h in hits if h.type == "memory"])}
    found: list[tuple[tuple, Evidence]] = []
    kept: list[str] = []
    # Memories first, so a memory is kept over the message that asked for it (the rank stays).
    ordered = sorted(enumerate(hits), key=lambda item: item[1].type != "memory")
    for rank, hit in ordered:
        role, refs, private = None, [], False
        if hit.type == "message":
            message = messages.get(hit.id)
            if message is None or hit.id in exclude_message_ids:
                continue
            role, refs = message.role, message.time_refs
            if role == "assistant" and strict:  # shown as an answer, its own words would repeat a memory
                continue
        elif hit.type == "memory" and hit.id in by_id:
            refs, private = by_id[hit.id].time_refs, by_id[hit.id].private
        if is_question(hit.content) or _SMALL_TALK.match(hit.content):
            continue  # a question never answers itself
        relevance = len(wanted & content_words(hit.content)) / len(wanted)
        if strict and relevance < MIN_RELEVANCE:
            continue
        flat = _flat(hit.content)
        if any(flat in seen or seen in flat for seen in kept):
            continue  # "remember that X" said and X remembered: one piece of evidence, not two
        kept.append(flat)
        evidence = Evidence(hit.type, hit.id, hit.content, hit.created_at, round(relevance, 3), role, refs, private)
        found.append(((-relevance, TYPE_RANK[hit.type], rank) if strict else (rank,), evidence))
    found.sort(key=lambda item: item[0])
    return [evidence for _, evidence in found[:limit]]


def told_when(runtime: Runtime, evidence: Evidence) -> str:
    """"you told me Sun Nov 22" / "you said Sun Nov 22" / "from my notes of Sun Nov 22"."""
    day = runtime.clock.day(evidence.created_at)
    if evidence.type == "memory":
        return f"you told me {day}"
    if evidence.type == "summary":
        return f"from my notes of {day}"
    return f"I said {day}" if evidence.role == "assistant" else f"you said {day}"


