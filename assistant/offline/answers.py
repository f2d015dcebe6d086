"""Answers from memory without a model (SPEC F7 offline mode): what is current, about the thing asked.

- A fact restated with a new value is answered with the newest, and the older one only as older,
  each with its date ("the building door code changed to 7731 (since Tue Nov 24; older, from Sun Nov
  22: 5829)").
- A question about a thing is answered with the memory that defines it ("what car do I drive?": "I
  drive a 2014 Corolla"), whatever its age, before passing mentions ("the car wouldn't start this
  morning"), reminders and messages that merely share a word; a question about a person's or a
  thing's attribute ("Priya's last name") with what is said about that person or thing.
- "When" about an event is the latest date said for it ("the offsite got pushed to the 12th"), before
  a reminder that only shares a word ("buy a present for Tom" is not when Tom's birthday is); about a
  reminder its due day and time; about a repeating fact ("our 1:1 is every Thursday") the rule and its
  next day. Other "when" questions get reasoned recall (dates resolved).
"""
from __future__ import annotations

import re
from typing import Any

from assistant.reading.dates import stated_date
from assistant.reading.questions import Focus
from assistant.recall.asked import asks_what_i_said, what_i_said
from assistant.recall.evidence import (
    MIN_RELEVANCE,
    NOTHING,
    Evidence,
    content_words,
    find_evidence,
    question_vector,
    search_evidence,
    search_words,
    told_when,
    topic_words,
)
from assistant.recall.reasoned import reasoned_recall
from assistant.runtime import Runtime
from assistant.views import masked, private_marked, secrets_hidden
from memory import memories, reminders, subjects, supersession
from memory.errors import InvalidInput
from memory.search import Hit
from memory.supersession import Subject
from memory.text import flat
from memory.time import names
from memory.time.instants import parse_stored
from memory.time.references import asks_when
from memory.time.schedule import parse_schedule
from memory.words import stem

STATEMENT_BONUS = 0.25  # a statement about the thing outranks a reminder or a message sharing as many words
_PAST_WHEN = re.compile(r"^\W*when (did|was|were|had|have)\b", re.I)
_DAY_WORDS = (names.alternation(names.WEEKDAYS, names.WEEKDAY_SHORT, names.WEEKDAY_SPELLINGS) + "|"
              r"day|week|month|year|weekday|weekend|morning|evening|afternoon|night")
_RULE_IN_TEXT = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+)?(?:(?:\d+|two|three|four)\s+)?(?:{_DAY_WORDS})s?\b"
    r"(?:\s+(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon))?", re.I)


def shown(runtime: Runtime, evidence: Evidence) -> str:
    this_year = runtime.clock.local(runtime.clock.now()).year
    return private_marked(evidence.dated(this_year), evidence.private)


def ranked(found: list[Evidence]) -> list[Evidence]:
    """Weighed by meaning: in the order weighed (what answers first, a memory before what was said in
    passing, by score). Otherwise the memories that define what is asked first (whatever their age), then
    statements about the thing, then reminders and messages. Older values of a fact out."""
    current = [e for e in found if e.superseded_by is None]
    if any(e.score is not None for e in current):
        return current
    return sorted(current, key=lambda e: (not e.defining, -(e.relevance + (STATEMENT_BONUS if e.is_statement else 0))))


def answer_from_memory(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...] = (),
                       focus: Focus | None = None) -> str:
    """The offline answer to a question: the best statements with their dates, or a plain "nothing".
    One hybrid search, whichever way the answer is then composed; `focus` is what the question asks
    about, as the reading found it."""
    if asks_what_i_said(question):  # the person's own words, when that is what is asked (imported ones too)
        return what_i_said(runtime, question, exclude_message_ids) or NOTHING  # still one search
    # The question's meaning, when an embedder is there: it finds and weighs the evidence (SPEC F14).
    vector = question_vector(runtime, question) if topic_words(question) else None
    hits = search_evidence(runtime, question, vector=vector) if topic_words(question) else []
    found = ranked(find_evidence(runtime, question, limit=8, exclude_message_ids=exclude_message_ids, hits=hits,
                                 focus=focus, vector=vector, near=True))
    # "what was the old alarm code?": the value the current one replaced, before whatever else answers (the
    # current one led: a tester's)
    earlier = _before(runtime, question, exclude_message_ids, hits, focus, vector) if focus is not None else None
    if earlier is not None:
        return earlier
    answering = [e for e in found if e.answers]
    if asks_when(question):
        when = _when(runtime, question, exclude_message_ids, hits, focus, answering if vector is not None else None)
        if when is not None:
            return when
        if vector is None:
            return reasoned_recall(runtime, question, exclude_message_ids=exclude_message_ids, hits=hits).answer
        if answering:  # the statement that answers, with the dates it gives resolved
            return reasoned_recall(runtime, question, exclude_message_ids=exclude_message_ids, hits=hits,
                                   evidence=answering).answer
    if not answering:
        return _nothing(runtime, found[0] if found else None)
    said = _said_over_time(answering)
    if said:  # what was said of it in passing, the newest first, the one before named as earlier
        newest, before_it = said
        return (f"{_lead(runtime, newest)}\n"
                f"Earlier ({told_when(runtime, before_it)}): {_text(runtime, before_it)}")
    best = answering[0]
    if best.score is not None:
        # Weighed by meaning: another answer follows only when it is about as likely as the best.
        shown_now = [best] + [e for e in answering[1:3] if (e.score or 0.0) >= (best.score or 0.0) - ALSO_WITHIN]
    else:
        # Equally good matches are shown too (the user can tell which one they meant); a passing mention
        # never follows the memory that defines the thing.
        shown_now = [best] + [e for e in found[1:3] if e.relevance >= best.relevance and e.defining == best.defining]
    runtime.searcher.touch([e.id for e in shown_now if e.type == "memory"])
    lines = [_lead(runtime, best)]
    changed = subjects.read(best.content).changed
    lines += [f"{'Earlier' if changed and _said_before(e, best) else 'Also'} ({told_when(runtime, e)}): "
              f"{_text(runtime, e)}" for e in shown_now[1:]]
    return "\n".join(lines)


def _said_before(evidence: Evidence, best: Evidence) -> bool:
    """Whether `evidence` is a statement said in passing of what is asked before `best` said it changed ("my wifi
    password is Heron-Kettle-42", then "the wifi password changed to Otter-Lamp-77" kept: the first followed as
    "Also", as if it held too: a newcomer's)."""
    return evidence.type == "message" and evidence.defining and \
        parse_stored(evidence.created_at) <= parse_stored(best.created_at)


ALSO_WITHIN = 0.05  # a second answer is shown when its score is this close to the best's


def _said_over_time(answering: list[Evidence]) -> tuple[Evidence, Evidence] | None:
    """(the newest, the one before) when the best answer is a statement said in conversation (no memory: those
    are replaced when a change is kept) and another one said there defines the same subject too ("my GP is Dr
    Patel" said plainly, then "I switched GP, my new doctor is Dr Okafor": the first one answered, a tester's);
    None otherwise."""
    said = [e for e in answering if e.type == "message" and e.defining]
    if len(said) < 2 or answering[0] is not said[0]:
        return None
    ordered = sorted(said, key=lambda e: (parse_stored(e.created_at), e.id), reverse=True)
    # the newer one says a change ("switched", "new", "now"): "the car is due for a service" is no newer car
    return (ordered[0], ordered[1]) if subjects.read(ordered[0].content).changed else None


def _nothing(runtime: Runtime, closest: Evidence | None) -> str:
    """ "I don't have that" first; the nearest statement, if near enough, on its own line as the closest
    there is, never as the answer (SPEC F14)."""
    if closest is None:
        return NOTHING
    runtime.searcher.touch([closest.id] if closest.type == "memory" else [])
    # a guess, not the answer: a secret in it stays hidden (a newcomer's "what's my reg number?" was shown
    # "my bank card PIN is 2580")
    return f"{NOTHING}\nThe closest I have ({told_when(runtime, closest)}): {secrets_hidden(_text(runtime, closest))}"


KNOWN_LISTED = 10  # memories "what do you know about me?" names; the rest are counted


def what_i_know(runtime: Runtime) -> str:
    """ "What do you know about me?": the most important memories, each in one line with the day it was
    told, a secret masked and a private one marked as in every list; how many more there are."""
    store, clock = runtime.store, runtime.clock
    shown = memories.memories_by_id(store, memories.most_important(store, KNOWN_LISTED, tier=None, current=True))
    if not shown:
        return "I don't know anything about you yet. Tell me something with \"remember that ...\"."
    runtime.searcher.touch([m.id for m in shown])
    lines = ["What I know about you, the most important first, then the newest:"]
    lines += [f"- #{m.id} {private_marked(flat(masked(m.content, m.sensitive), 120), m.private)} "
              f"(you told me {clock.day(m.created_at)})" for m in shown]
    more = memories.count_known(store) - len(shown)
    if more > 0:
        lines.append(f"… {more:,} more (the Memories screen, f2 in the app, lists them all)")
    return "\n".join(lines)


def _text(runtime: Runtime, evidence: Evidence) -> str:
    text = shown(runtime, evidence)
    if evidence.type == "memory" and evidence.due_at:
        text += f" (reminder #{evidence.id}, due {runtime.clock.short(evidence.due_at)})"
    return text


def _lead(runtime: Runtime, best: Evidence) -> str:
    """The best statement; when it restated a fact with a new value, since when, and the older value
    as older, with the day it was said."""
    before = supersession.replaced(runtime.store, best.id) if best.type == "memory" else []
    if not before:
        return f"From memory ({told_when(runtime, best)}): {_text(runtime, best)}"
    older = before[0]
    value = supersession.value_of(older["content"])
    was = value if value and not older["private"] else private_marked(older["content"], bool(older["private"]))
    return (f"From memory: {_text(runtime, best)} (since {runtime.clock.day(best.created_at)}; older, from "
            f"{runtime.clock.day(older['created_at'])}: {was})")


# The words that ask the value a thing had before the current one ("the old code"; "the spare key" is another key).
_EARLIER = frozenset(stem(w) for w in ("old", "former", "previous", "ex", "earlier", "original"))


def _before(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...], hits: list[Hit], focus: Focus,
            vector: Any) -> str | None:
    """ "What was the old door code?", "who was my GP before?": the value the current memory of that subject
    replaced, with its day, and what replaced it; None when the question asks no earlier value, or the
    memory the reading finds defines the subject (or that answers it by meaning) replaced none."""
    subject = focus.subject
    other = {mark for mark in subject.modifiers if mark in _EARLIER} if subject is not None else set()
    if subject is None or not other:
        return None
    current = Focus(Subject(subject.owner, subject.head, subject.modifiers - other, subject.person), focus.entity)
    found = ranked(find_evidence(runtime, question, limit=8, exclude_message_ids=exclude_message_ids, hits=hits,
                                 focus=current, vector=vector, near=True))
    now = next((e for e in found if e.type == "memory" and (e.defining or (e.score is not None and e.answers))), None)
    before = supersession.replaced(runtime.store, now.id) if now is not None else []
    if now is None or not before:
        return None
    older = before[0]
    runtime.searcher.touch([older["id"]])
    return (f"From memory (you told me {runtime.clock.day(older['created_at'])}): "
            f"{private_marked(older['content'], bool(older['private']))} "
            f"(replaced {runtime.clock.day(now.created_at)}: {_text(runtime, now)})")


def _when(runtime: Runtime, question: str, exclude_message_ids: tuple[int, ...], hits: list[Hit],
          focus: Focus | None = None, answering: list[Evidence] | None = None) -> str | None:
    """ "When is ...?" about an event (the latest date said for it), a reminder (its due day and time)
    or a repeating fact (its rule); None when none fits, and for questions about the past ("when
    did ..."). `answering`: the statements weighed by meaning as answers (else found here by words)."""
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
    dated: list[tuple[float, Evidence, str]] = []  # statements of an event's date: (relevance, evidence, date)
    asked = content_words(question)
    statements = answering if answering is not None else ranked(
        find_evidence(runtime, question, limit=8, exclude_message_ids=exclude_message_ids, hits=hits, focus=focus))
    for e in statements:
        if not e.is_statement:
            continue
        rule = _RULE_IN_TEXT.search(e.content)
        if rule:
            repeating.append((e.relevance, e, rule.group(0)))
            continue
        if not asked & content_words(e.content) and not e.defining and e.score is None:
            continue  # only a word for the same kind of thing ("meets" for "appointment"): not this event
        stated = stated_date(e.content, parse_stored(e.created_at), clock.zone, clock.default_time)
        if stated is not None:
            dated.append((e.relevance, e, stated.told(clock)))  # "June 2027" for a month, never a made-up day
        elif e.defining or e.relevance == 1 or e.score is not None:
            dated.append((e.relevance, e, ""))  # "the standup is now at 9:30": the time it gives, as said
    # The latest date said for the event: of the best matches, one that gives a date, the one said last.
    # Words for one kind of thing ("meets", "standup") count as one in relevance; the question's own words
    # decide between equally relevant statements.
    dated.sort(key=lambda item: (-item[0], -len(asked & content_words(item[1].content)), not item[2],
                                 -parse_stored(item[1].created_at).timestamp()))
    if not due and not repeating and not dated:
        return None
    best = max([d[0] for d in due[:1]] + [f[0] for f in repeating[:1]] + [d[0] for d in dated[:1]])
    lines: list[tuple[float, int, str]] = []  # (relevance, statement first, line)
    for relevance, e, phrase in repeating[:2]:
        if relevance < best:
            continue
        lines.append((relevance, 0, _rule_line(runtime, e, phrase)))
    for relevance, e, day in dated[:1]:
        if relevance >= best:
            lines.append((relevance, 0, f"{_lead(runtime, e).rstrip('.')}." + (f" That is {day}." if day else "")))
    for relevance, r in due[:3]:
        if relevance < best:
            continue
        m = r.memory
        every = f", {m.rule.describe()}" if m.rule else ""
        lines.append((relevance, 1, f"Reminder #{m.id}, {m.content}: due {clock.short(r.due_at)}{every} "
                                    f"({reminders.relative_time(r.due_at, now, clock)})."))
    lines.sort(key=lambda item: (-item[0], item[1]))
    runtime.searcher.touch([e.id for _, e, _ in repeating[:2]] + [e.id for _, e, _ in dated[:1]])
    return "\n".join(line for _, _, line in lines[:3])


def _rule_line(runtime: Runtime, evidence: Evidence, phrase: str) -> str:
    """ "From memory (...): our 1:1 is every Thursday. That is every Thu; the next one is Thu Nov 26."."""

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
