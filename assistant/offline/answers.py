"""Answers from memory without a model (SPEC F7 offline mode): what is current, about the thing asked.

- A fact restated with a new value is answered with the newest, saying what it replaced and since
  when ("the building door code changed to 7731 (since Tue Nov 24; it was 5829 before)").
- A question about a thing is answered with what the user told about it before reminders and
  messages that merely share a word ("what car do I drive?" is the car, not "pay the car insurance").
- "When" about a reminder is its due day and time; about a repeating fact ("our 1:1 is every
  Thursday") the rule and its next day. Other "when" questions get reasoned recall (dates resolved).
"""
from __future__ import annotations

import re

from assistant.recall.evidence import (
    MIN_RELEVANCE,
    Evidence,
    find_evidence,
    search_evidence,
    search_words,
    told_when,
    topic_words,
)
from assistant.recall.reasoned import reasoned_recall
from assistant.runtime import Runtime
from assistant.views import private_marked
from memory import reminders, supersession
from memory.search import Hit
from memory.time.references import asks_when

STATEMENT_BONUS = 0.25  # a statement about the thing outranks a reminder or a message sharing as many words
_PAST_WHEN = re.compile(r"^\W*when (did|was|were|had|have)\b", re.I)
_DAY_WORDS = (r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|"
              r"day|week|month|year|weekday|weekend|morning|evening|afternoon|night")
_RULE_IN_TEXT = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+)?(?:(?:\d+|two|three|four)\s+)?(?:{_DAY_WORDS})s?\b"
    r"(?:\s+(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon))?", re.I)


def shown(runtime: Runtime, evidence: Evidence) -> str:
    this_year = runtime.clock.local(runtime.clock.now()).year
    return private_marked(evidence.dated(this_year), evidence.private)


def ranked(found: list[Evidence]) -> list[Evidence]:
    """Statements about the thing first, then reminders and messages; older values of a fact out."""
    current = [e for e in found if e.superseded_by is None]
    return sorted(current, key=lambda e: -(e.relevance + (STATEMENT_BONUS if e.is_statement else 0)))


def answer_from_memory(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...] = ()) -> str:
    """The offline answer to a question: the best statements with their dates, or a plain "nothing".
    One hybrid search, whichever way the answer is then composed."""
    from assistant.recall.asked import asks_what_i_said, what_i_said

    if asks_what_i_said(question):  # the person's own words, when that is what is asked (imported ones too)
        said = what_i_said(runtime, question, exclude_message_ids)
        if said is not None:
            return said
    hits = search_evidence(runtime, question) if topic_words(question) else []
    if asks_when(question):
        when = _when(runtime, question, exclude_message_ids, hits)
        if when is not None:
            return when
        return reasoned_recall(runtime, question, exclude_message_ids=exclude_message_ids, hits=hits).answer
    found = ranked(find_evidence(runtime, question, limit=8, exclude_message_ids=exclude_message_ids, hits=hits))
    if not found:
        return "I don't have anything in memory about that."
    best = found[0]
    shown_now = [best] + [e for e in found[1:3] if e.relevance >= best.relevance]
    runtime.searcher.touch([e.id for e in shown_now if e.type == "memory"])
    lines = [_lead(runtime, best)]
    # Equally good matches are shown too: the user can tell which one they meant.
    lines += [f"Also ({told_when(runtime, e)}): {_text(runtime, e)}" for e in shown_now[1:]]
    return "\n".join(lines)


def _text(runtime: Runtime, evidence: Evidence) -> str:
    text = shown(runtime, evidence)
    if evidence.type == "memory" and evidence.due_at:
        text += f" (reminder #{evidence.id}, due {runtime.clock.short(evidence.due_at)})"
    return text


def _lead(runtime: Runtime, best: Evidence) -> str:
    """The best statement; when it restated a fact with a new value, since when and what it was before."""
    before = supersession.replaced(runtime.store, best.id) if best.type == "memory" else []
    if not before:
        return f"From memory ({told_when(runtime, best)}): {_text(runtime, best)}"
    older = before[0]
    value = supersession.value_of(older["content"])
    was = f"it was {value} before" if value and not older["private"] else f"before that: {older['content']}"
    return f"From memory: {_text(runtime, best)} (since {runtime.clock.day(best.created_at)}; {was})"


def _when(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...], hits: list[Hit]) -> str | None:
    """ "When is ...?" about a reminder (its due day and time) or a repeating fact (its rule); None when
    neither fits, and for questions about the past ("when did ...")."""
    if _PAST_WHEN.match(question):
        return None
    wanted = topic_words(question)
    if not wanted:
        return None
    store, clock = runtime.store, runtime.clock
    now = clock.now()
    due: list[tuple[float, reminders.Reminder]] = []
    for r in reminders.open_matching(store, search_words(question)):
        relevance = len(wanted & topic_words(r.memory.content)) / len(wanted)
        if relevance >= MIN_RELEVANCE:
            due.append((relevance, r))
    due.sort(key=lambda item: (-item[0], item[1].memory.due_at))
    repeating: list[tuple[float, Evidence, str]] = []
    for e in ranked(find_evidence(runtime, question, limit=8, exclude_message_ids=exclude_message_ids, hits=hits)):
        if e.is_statement:
            rule = _RULE_IN_TEXT.search(e.content)
            if rule:
                repeating.append((e.relevance, e, rule.group(0)))
    if not due and not repeating:
        return None
    best = max([d[0] for d in due[:1]] + [f[0] for f in repeating[:1]])
    lines: list[tuple[float, int, str]] = []  # (relevance, statement first, line)
    for relevance, e, phrase in repeating[:2]:
        if relevance < best:
            continue
        lines.append((relevance, 0, _rule_line(runtime, e, phrase)))
    for relevance, r in due[:3]:
        if relevance < best:
            continue
        m = r.memory
        every = f", {m.rule.describe()}" if m.rule else ""
        lines.append((relevance, 1, f"Reminder #{m.id}, {m.content}: due {clock.short(r.due_at)}{every} "
                                    f"({reminders.relative_time(r.due_at, now, clock)})."))
    lines.sort(key=lambda item: (-item[0], item[1]))
    runtime.searcher.touch([e.id for _, e, _ in repeating[:2]])
    return "\n".join(line for _, _, line in lines[:3])


def _rule_line(runtime: Runtime, evidence: Evidence, phrase: str) -> str:
    """ "From memory (...): our 1:1 is every Thursday. That is every Thu; the next one is Thu Nov 26."."""
    from memory.errors import InvalidInput
    from memory.time.schedule import parse_schedule

    clock = runtime.clock
    text = f"From memory ({told_when(runtime, evidence)}): {shown(runtime, evidence).rstrip('.')}."
    try:
        first, rule = parse_schedule(phrase, clock.now(), clock.zone)
    except (InvalidInput, ValueError, OverflowError):
        return text
    if rule is None:
        return text
    timed = re.search(r"\d|noon", phrase)
    nxt = clock.short(first) if timed else clock.day(first)
    return f"{text} That is {rule.describe()}; the next one is {nxt}."
