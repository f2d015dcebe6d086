"""Changing a reminder from the chat without a model (SPEC F7): done, cancel, move, snooze, rename one
reminder named by its number, "that", or words; forgetting a memory. An ambiguous one lists what it could
mean and changes nothing; a memory named by words is asked about before it is forgotten."""
from __future__ import annotations

import re
import tomllib
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from assistant.conversation import Item
from assistant.offline.phrases import CONFIRM_FORGET, DID_YOU_MEAN, SHORT_CAPABILITIES, THIS_ONE, WHICH_ONE
from assistant.offline.plan import Plan, rule_phrase, said, text_of
from assistant.reading.actions import Cancel, Change, Done, Forget, Move, NearMiss, Rename, Snooze
from assistant.reading.spans import day_span
from assistant.recall.evidence import search_words, topic_words
from assistant.runtime import Runtime
from assistant.views import private_marked
from memory import memories, reminders
from memory.errors import NotFound
from memory.memories import Memory
from memory.time.due_phrases import localize, take_time
from memory.time.instants import parse_stored, to_utc_iso
from memory.turn_records import Asking, OpenQuestion

_MENTIONED = re.compile(r"#(\d{1,12})\b")
LISTED = 8  # candidates a "which one?" lists; the rest are counted


def plan_change(runtime: Runtime, action: Change, request: str, conversation: list[Item]) -> Plan:
    """done, cancel, move, snooze or rename one reminder, named by its number or by words (`request` says
    it); when the words fit several, the candidates are listed, asked about, and nothing changes."""
    clock = runtime.clock
    if isinstance(action, Rename) and not action.new_text:
        return said("Rename it to what? For example \"rename 5 to call the bank\".")
    if isinstance(action, Done | Cancel) and action.target is None:
        named = _each_named(runtime, action.content)
        if named:  # "done with the oven and the soup": each is the one reminder its words name
            call = "update_memory" if isinstance(action, Done) else "forget"
            return Plan([(call, {"id": m.id, "done": True} if call == "update_memory" else {"id": m.id})
                         for m in named], purposes=[action] * len(named))
    chosen, reply = _reminder(runtime, action, request, conversation)
    if chosen is None:
        return reply
    assert chosen.due_at is not None  # _reminder chooses reminders only
    chosen_due = parse_stored(chosen.due_at)
    if isinstance(action, Move | Snooze) and action.due is None and action.shift is None and action.when:
        verb = action.verb
        return said(f"I couldn't read \"{action.when}\" as a time, so #{chosen.id} {chosen.content} is unchanged. "
                    f"Say for example \"{verb} {chosen.id} to 6pm\" or \"{verb} {chosen.id} for 30 minutes\".")
    if isinstance(action, Move) and action.due is None and action.shift is None:
        return said(f"Move #{chosen.id} {chosen.content} to when? For example \"move {chosen.id} to 6pm\", "
                    f"\"move {chosen.id} to friday at 10am\" or \"push {chosen.id} back an hour\".")
    match action:
        case Done():
            return Plan([("update_memory", {"id": chosen.id, "done": True})], purposes=[action])
        case Cancel():
            return Plan([("forget", {"id": chosen.id})], purposes=[action])
        case Rename():
            return Plan([("update_memory", {"id": chosen.id, "content": action.new_text})], purposes=[action])
        case Snooze():
            due = action.due or clock.now() + timedelta(minutes=10)
            if action.due is not None:
                due = _keeping_its_time(runtime, action.when, action.due, chosen_due)
            if action.shift is not None and chosen_due > clock.now():
                due = chosen_due + action.shift  # not due yet: put off from its own time
            return Plan([("update_memory", {"id": chosen.id, "due_at": due.isoformat()})], purposes=[action])
    assert isinstance(action, Move)
    if action.shift is not None:
        due = chosen_due + action.shift
    elif action.rule is not None:
        return Plan([("update_memory", {"id": chosen.id, "due_at": rule_phrase(action)})], purposes=[action])
    else:
        assert action.due is not None  # a move without a time was answered above
        due = _keeping_its_time(runtime, action.when, action.due, chosen_due)
        if action.keep_day:
            # "move the dentist call to 10am": 10:00 on the day it is due, not the next 10:00 from now.
            wanted, day = clock.local(action.due), clock.local(chosen_due)
            on_its_day = localize(datetime.combine(day.date(), wanted.time().replace(tzinfo=None)), clock.zone)
            due = on_its_day if on_its_day >= clock.now() else action.due
    return Plan([("update_memory", {"id": chosen.id, "due_at": due.isoformat()})], purposes=[action])


_BY_THE_CLOCK = re.compile(r"\b(?:hours?|hrs?|minutes?|mins?|now|tonight|morning|afternoon|evening|noon|midnight)\b",
                           re.I)


def _keeping_its_time(runtime: Runtime, when: str, due: datetime, chosen_due: datetime) -> datetime:
    """A day said without a time of day ("snooze the dry cleaning to saturday", "move it to friday") keeps
    the reminder's own time on that day (a tester's Fri 18:00 became Sat 09:00); a time said, an amount of
    hours, or a moment already past, and the day's reading stands."""
    clock = runtime.clock
    if not when or _BY_THE_CLOCK.search(when):
        return due
    try:
        _, said_time, _ = take_time(when)
    except ValueError:
        return due
    if said_time is not None:
        return due
    wanted, own = clock.local(due), clock.local(chosen_due)
    kept = localize(datetime.combine(wanted.date(), own.time().replace(tzinfo=None)), clock.zone)
    return kept if kept > clock.now() else due


def _reminder(runtime: Runtime, action: Change, request: str, conversation: list[Item]) -> tuple[Memory | None, Plan]:
    """The one reminder a change is about, or (None, what to say: the candidates, or that none fits)."""
    store = runtime.store
    if action.target is not None:
        try:
            memory = memories.get_memory(store, action.target)
        except NotFound:
            return None, said(f"That didn't work: there is no reminder #{action.target}.")
        if memory.due_at is None:
            what = "forget" if isinstance(action, Cancel) else "change"
            return None, said(f"#{memory.id} is a {memory.kind}, not a reminder" +
                              (f"; to delete it say \"forget {memory.id}\"." if what == "forget" else "."))
        return memory, Plan()
    if action.content in ("", "that"):
        last = last_reminder(runtime, conversation)
        if last is None:
            return None, said(f"Which reminder should I {action.verb}? Say its number or some of its words.")
        return last, Plan()
    full, partial = match_reminders(runtime, action.content)
    if len(full) == 1:
        return full[0].memory, Plan()
    candidates = full or partial
    if not candidates:
        return None, said(f"I couldn't find an open reminder matching \"{action.content}\".")
    lines = [f"{WHICH_ONE} Say its number (nothing was changed):" if len(candidates) > 1 else
             f"{THIS_ONE} Say \"yes\" or its number (nothing was changed):"]
    lines += [reminder_line(r) for r in candidates[:LISTED]]
    if len(candidates) > LISTED:
        lines.append(f"(and {len(candidates) - LISTED} more)")
    offered = tuple(r.memory.id for r in candidates[:LISTED])
    return None, said("\n".join(lines), OpenQuestion(Asking.WHICH, request, offered))


def reminder_line(reminder: reminders.Reminder) -> str:
    """A reminder as a "which one?" lists it."""
    return f"- #{reminder.memory.id} {reminder.memory.content} ({reminder.label.strip('[]')})"


def memory_line(runtime: Runtime, memory: Memory) -> str:
    """A memory as a "which one?" of forgetting lists it."""
    return f"- #{memory.id} {private_marked(memory.content, memory.private)} ({memory.kind}, " \
           f"{runtime.clock.day(memory.created_at)})"


def offered_lines(runtime: Runtime, question: OpenQuestion, forgetting: bool) -> list[str]:
    """What a "which one?" offered, listed again as it reads now (one gone since is left out)."""
    clock = runtime.clock
    found = {m.id: m for m in memories.memories_by_id(runtime.store, list(question.ids))}
    lines = []
    for memory_id in question.ids:
        memory = found.get(memory_id)
        if memory is None:
            continue
        if forgetting or memory.due_at is None:
            lines.append(memory_line(runtime, memory))
        else:
            lines.append(reminder_line(reminders.Reminder(memory, *reminders.label_for(memory, clock.now(), clock))))
    return lines


def last_reminder(runtime: Runtime, conversation: list[Item]) -> Memory | None:
    """ "that", "it": the open reminder named last in this conversation, else the one that fell due last."""
    store = runtime.store
    for message in reversed(conversation[:-1]):
        for number in reversed(_MENTIONED.findall(text_of(message))):
            try:
                memory = memories.get_memory(store, int(number))
            except NotFound:
                continue
            if memory.due_at is not None:
                return memory
    fell_due = reminders.last_fell_due(store)
    return fell_due.memory if fell_due else None


_JOINED = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)", re.I)


def _each_named(runtime: Runtime, words: str) -> list[Memory]:
    """The reminders of a request that names several, each by words that name exactly one ("the oven and the
    soup", "oven, soup and bins"); none unless every part names its own one."""
    parts = [part for part in _JOINED.split(words) if part.strip()]
    if len(parts) < 2:
        return []
    named: list[Memory] = []
    for part in parts:
        full, _ = match_reminders(runtime, part)
        if len(full) != 1 or any(m.id == full[0].memory.id for m in named):
            return []
        named.append(full[0].memory)
    return named


def match_reminders(runtime: Runtime, words: str) -> tuple[list[reminders.Reminder], list[reminders.Reminder]]:
    """(every open reminder about all the words, those about some): a reminder is only acted on by
    words when exactly one clearly matches."""
    wanted = topic_words(words)
    full: list[reminders.Reminder] = []
    partial: list[reminders.Reminder] = []
    if not wanted:
        return full, partial
    for r in reminders.open_matching(runtime.store, search_words(words)):
        have = topic_words(r.memory.content)
        if wanted <= have:
            full.append(r)
        elif wanted & have:
            partial.append(r)
    return full, partial


PAST_TENSE = Path(__file__).with_name("past_tense.toml")


@cache
def _irregular() -> dict[str, str]:
    with PAST_TENSE.open("rb") as f:
        return dict(tomllib.load(f)["irregular"])


def _presents(word: str) -> set[str]:
    """The present forms a past one may be of ("called" -> call, "tidied" -> tidy, "stopped" -> stop)."""
    word = word.lower()
    found = {_irregular()[word]} if word in _irregular() else set()
    if word.endswith("ed") and len(word) > 4:
        stem = word[:-2]
        found |= {stem, word[:-1]}  # "called" -> call, "booked"; "filed" -> file
        if stem.endswith("i"):
            found.add(stem[:-1] + "y")  # "tidied" -> tidy
        if len(stem) > 2 and stem[-1] == stem[-2]:
            found.add(stem[:-1])  # "stopped" -> stop
    return found


def done_in_the_past(runtime: Runtime, text: str) -> reminders.Reminder | None:
    """The one open reminder a statement says was done, in the past of its first word and its other words ("I took
    the laundry out" of "take the laundry out"; a newcomer's got "Noted", the reminder left open); None when none
    or more than one."""
    words = re.findall(r"[^\W\d_][\w'-]*", text)
    verbs = {i: _presents(w) for i, w in enumerate(words[:4]) if _presents(w)}
    if not verbs or len(text) > 200:
        return None
    wanted = topic_words(text)
    found = []
    today = day_span("today", runtime.clock.now(), runtime.clock.zone, past=False)
    for reminder in reminders.open_matching(runtime.store, search_words(text)):
        if today is not None and reminder.due_at > to_utc_iso(today.end):
            continue  # done already, its next time to come ("I've put the bins out" of next week's bins: a newcomer's)
        first = re.findall(r"[^\W\d_][\w'-]*", reminder.memory.content.lower())
        if first and any(first[0] in presents for presents in verbs.values()):
            rest = topic_words(" ".join(first[1:]))
            if rest and rest <= wanted:
                found.append(reminder)
    return found[0] if len(found) == 1 else None


def plan_forget(runtime: Runtime, action: Forget, request: str, conversation: list[Item]) -> Plan:
    """Forget by number, by "that", or by words when exactly one memory holds them all (asked first)."""
    if action.target is not None:
        return Plan([("forget", {"id": action.target})])
    store = runtime.store
    if action.content in ("", "that"):
        for message in reversed(conversation[:-1]):
            numbers = _MENTIONED.findall(text_of(message))
            if numbers:
                return Plan([("forget", {"id": int(numbers[-1])})])
        return said("What should I forget? Say its number, for example \"forget 12\", or some of its words.")
    wanted = topic_words(action.content)
    matched = memories.matching(store, search_words(action.content)) if wanted else []
    found = [m for m in matched if wanted <= topic_words(m.content)] or \
        [m for m in matched if wanted & topic_words(m.content)]  # "my licence plate": the memory says "plate"
    if not found:
        return said(f"I have nothing in memory matching \"{action.content}\", so nothing was forgotten.")
    if len(found) == 1:
        # Named by words, never forgotten at once: the person sees what would go, whole, and says yes.
        memory = found[0]
        part = (f"\"{action.content}\" is only part of it: forgetting takes the whole memory. "
                if len(topic_words(memory.content)) > len(wanted) + 1 else "")
        return said(f"{CONFIRM_FORGET}{memory.id} \"{private_marked(memory.content, memory.private)}\"? {part}"
                    f"Say \"yes\" to forget it (\"undo\" brings it back), or \"no\"; nothing was forgotten yet.",
                    OpenQuestion(Asking.FORGET, request, (memory.id,)))
    lines = [f"{WHICH_ONE} Say its number (nothing was forgotten yet):"]
    lines += [memory_line(runtime, m) for m in found[:LISTED]]
    if len(found) > LISTED:
        lines.append(f"(and {len(found) - LISTED} more)")
    return said("\n".join(lines), OpenQuestion(Asking.WHICH, request, tuple(m.id for m in found[:LISTED])))


def plan_near_miss(runtime: Runtime, action: NearMiss) -> Plan:
    """What a message that looks like a command but is none gets: the command it probably meant, asked
    about, or the reminders its words name with what can be done with them."""
    if action.suggestion:
        return said(f"{DID_YOU_MEAN} \"{action.suggestion}\"? Say \"yes\" and I'll do it; nothing was changed.\n\n"
                    f"{SHORT_CAPABILITIES}", OpenQuestion(Asking.SUGGESTION, action.suggestion))
    full, partial = match_reminders(runtime, action.content)
    candidates = full or partial
    if not candidates:
        return said(f"I'm not sure what you mean by \"{action.content}\". {SHORT_CAPABILITIES}")
    first = candidates[0].memory
    lines = [f"What should I do with {'it' if len(candidates) == 1 else 'which one'}?"]
    lines += [reminder_line(r) for r in candidates[:5]]
    lines.append(f"For example: \"done with {first.id}\", \"snooze {first.id} for 10 minutes\", "
                 f"\"move {first.id} to 6pm\", \"cancel {first.id}\", \"rename {first.id} to ...\".")
    return said("\n".join(lines))
