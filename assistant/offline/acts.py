"""What the offline mode does for each kind of request (one Action of the reading): the tool calls a
model would make, or the answer it gives from memory, or what it says it cannot do."""
from __future__ import annotations

import re
from typing import Any

from assistant.conversation import AssistantMessage, Item, UserMessage
from assistant.offline.agenda import agenda, coming_up, overdue, trips
from assistant.offline.answers import answer_from_memory, what_i_know
from assistant.offline.phrases import (
    ASK_WHEN,
    CAPABILITIES,
    DID_YOU_MEAN,
    HOW_TO_CONNECT,
    INCOGNITO_KEPT,
    NO_MODEL,
    SHORT_CAPABILITIES,
    connect,
)
from assistant.offline.plan import Plan, Situation, remember_args, said
from assistant.offline.relative import plan_relative
from assistant.offline.reminder_changes import done_in_the_past, plan_change, plan_forget, plan_near_miss
from assistant.reading.actions import (
    Action,
    Change,
    Chat,
    Forget,
    Help,
    Known,
    NearMiss,
    Question,
    Recap,
    Remember,
    Remind,
    RemindNoTime,
    RemindRelative,
    Undo,
    Upcoming,
)
from assistant.reading.spans import DaySpan
from assistant.reading.understand import is_small_talk, states_something
from assistant.recall.evidence import NOTHING, topic_words
from assistant.recap import episode_lines
from assistant.runtime import Runtime
from assistant.tools import undo_text
from memory import changes, episodes, reminders
from memory.subjects import place_named
from memory.turn_records import Asking, OpenQuestion

_THANKS = re.compile(r"^\W*(thanks|thank you|thx|ty|cheers|much appreciated)\b", re.I)


def act(runtime: Runtime, action: Action, text: str, conversation: list[Item], situation: Situation) -> Plan:
    """What the offline mode does for `action`, read from `text` (the last item of `conversation`)."""
    match action:
        case Remind() if not action.content:
            when = runtime.clock.short(action.due) if action.rule is None else action.when
            return said(f"What should I remind you about on {when}?" if action.rule is None else
                        f"What should I remind you about {when}?", OpenQuestion(Asking.WHAT, text))
        case Remind():
            return Plan([("remember", remember_args(action, runtime.clock.now()))])
        case RemindNoTime():
            if not action.content:
                return said("What should I remind you about, and when?")
            no_such = f"There's no such {action.impossible_kind} as {action.impossible}. " if action.impossible else ""
            return said(f"{no_such}{ASK_WHEN} to {action.content}?" if action.link == "to" else
                        f"{no_such}{ASK_WHEN} {action.link} {action.content}?", OpenQuestion(Asking.WHEN, text))
        case RemindRelative():
            return plan_relative(runtime, action, text)
        case Remember():
            return Plan([("remember", {"content": action.content, "kind": action.kind})])
        case Upcoming():
            last = conversation[-1]
            asking = (last.message_id,) if isinstance(last, UserMessage) and last.message_id else ()
            return _agenda(runtime, action, text, asking)
        case Known():
            return said(what_i_know(runtime))
        case Recap():
            if action.span:
                return said(_recap(runtime, action.span, conversation))
            return Plan([("recall_recent", {"hours": 48, "limit": 10})])
        case Change():
            return plan_change(runtime, action, text, conversation)
        case Undo():
            return said(undo_text(runtime, changes.undo_last_change(runtime.store)))
        case Forget():
            return plan_forget(runtime, action, text, conversation)
        case Question():
            last = conversation[-1]
            asking = (last.message_id,) if isinstance(last, UserMessage) and last.message_id else ()
            answer = answer_from_memory(runtime, action.content, exclude_message_ids=asking, focus=action.focus)
            if action.days is not None and answer == NOTHING:
                # Nothing in memory answers a question about a day, or comes near ("what am I supposed to do
                # on Friday?"): what is planned for it does, when anything is (a memory offered as the closest
                # is kept: "who is my dentist? I have a checkup tomorrow").
                listed, named = agenda(runtime, action.days)
                if named:
                    return Plan(_mark_mentioned(runtime, named), listed)
            return said(answer)
        case Help():
            return said(connect(runtime, NO_MODEL) if not situation.unreachable else CAPABILITIES)
        case NearMiss():
            return plan_near_miss(runtime, action)
    if isinstance(action, Chat) and not (situation.incognito or situation.unreachable) and \
            len(text) <= STATEMENT_CHARACTERS and states_something(action, text) and _changes_a_memory(runtime, text):
        # "we switched to a new dentist, Dr Okafor" said plainly: a new value of something kept is kept as
        # that, or the old value stays the answer (issue 42's newcomers); it says what it replaces.
        return Plan([("remember", {"content": text.strip(), "kind": "fact"})])
    if isinstance(action, Chat) and not (situation.incognito or situation.unreachable) and \
            states_something(action, text) and (done := done_in_the_past(runtime, text)) is not None:
        # "I took the laundry out" with "take the laundry out" open: asked, never done on a guess
        request = f"done with {done.memory.id}"
        return said(f'{DID_YOU_MEAN} "{request}" (#{done.memory.id} {done.memory.content})? Say "yes" and I\'ll mark '
                    "it done; nothing was changed.", OpenQuestion(Asking.SUGGESTION, request))
    return said(_chat(runtime, action, text, conversation, situation))


STATEMENT_CHARACTERS = 500  # a change is said in a sentence or two: a paste is not read for one


def _changes_a_memory(runtime: Runtime, text: str) -> bool:
    """Whether a statement gives a current memory a new value (memory.replacing: the rules, then by meaning)."""
    from memory.replacing import replaced_memory

    return replaced_memory(runtime.store, text, runtime.embedder) is not None


def _chat(runtime: Runtime, action: Action, text: str, conversation: list[Item], situation: Situation) -> str:
    """What a message that asks nothing the offline mode can do gets."""
    if situation.unreachable:
        if situation.incognito:
            return f"I can answer properly once the model is reachable again. {INCOGNITO_KEPT}"
        return "Your message is saved; I can answer properly once the model is reachable again."
    if _THANKS.match(text):
        return "You're welcome."
    if is_small_talk(text):
        return f"Hi! I'm running without a chat model. {connect(runtime, HOW_TO_CONNECT)}\n\n{CAPABILITIES}"
    if states_something(action, text):
        # Something told: kept with the conversation and found by meaning when asked about (SPEC F14).
        if situation.incognito:
            return f"Noted for this conversation only. {INCOGNITO_KEPT}"
        # Said as what it is: the newcomers of issue 42 took "Noted" for a memory, and found none in f2, in
        # "what do you know about me?" or in the export's facts; a memory is what "remember that" keeps.
        return 'Noted in this conversation; to keep it as a memory, say "remember that ...".'
    # What becomes of the message follows the conversation: in an incognito one nothing is kept.
    kept = (f"I'm running without a chat model, so I can't chat about that. {INCOGNITO_KEPT}"
            if situation.incognito else
            "I'm running without a chat model, so I can't chat about that, but your message is kept and I can "
            "find it later. To keep something as a memory, say \"remember that ...\".")
    if _setup_said(conversation):
        return kept  # how to set up a model is said once a conversation
    return f"{kept}\n\n{SHORT_CAPABILITIES}\n\n{connect(runtime, HOW_TO_CONNECT)}"


def _setup_said(conversation: list[Item]) -> bool:
    """Whether an earlier answer of this conversation already said how to set up a chat model."""
    opening = HOW_TO_CONNECT.split("{model}")[0]
    return any(isinstance(item, AssistantMessage) and opening in item.text for item in conversation[:-1])


def _agenda(runtime: Runtime, action: Upcoming, text: str, exclude: tuple[int, ...]) -> Plan:
    """ "What's coming up?", the days asked about ("what do I have tomorrow?", "anything left for
    today?"), or the trips planned; the reminders it names are marked mentioned. A question an empty
    agenda does not answer ("where are we going camping?", "what time is swimming on the weekend?") is
    answered from memory when something there answers it."""
    place = place_named(text) if action.topic == "trip" else None
    if action.topic == "trip":
        listed, named = agenda(runtime, action.span, "trip") if action.span else \
            trips(runtime, place=place)
    elif action.topic == "overdue":
        listed, named = overdue(runtime)
    elif action.span is not None:
        listed, named = agenda(runtime, action.span)
    else:
        listed, named = coming_up(runtime)
    if not named and "\n" not in listed and (_asks_about_something(text) or place is not None):  # none listed
        answer = answer_from_memory(runtime, text, exclude_message_ids=exclude)
        if place is None or place.lower() in answer.lower():  # of a trip to a place, only that place
            if not answer.startswith(NOTHING):
                return said(answer)
            if "\n" in answer:  # nothing planned, but what was said of it is offered as the closest there is
                closest = answer.split("\n", 1)[1]
                return Plan(_mark_mentioned(runtime, named), f"{listed}\n{closest}")
    return Plan(_mark_mentioned(runtime, named), listed)



def _asks_about_something(text: str) -> bool:
    """A question in words of its own, not only "what's coming up?" or "anything tomorrow?"."""
    return len(topic_words(text)) >= 2


def _mark_mentioned(runtime: Runtime, items: list[reminders.Reminder]) -> list[tuple[str, dict[str, Any]]]:
    # Mentioning a reminder marks it reminded, exactly as the model is told to do.
    needs_mark = reminders.needing_mention(runtime.store, sorted({r.memory.id for r in items}))
    return [("update_memory", {"id": i, "reminded_at": "now"}) for i in sorted(needs_mark)]


def _recap(runtime: Runtime, span: DaySpan, conversation: list[Item]) -> str:
    """The conversations of the days asked about ("what did we talk about yesterday?"), and only those."""
    store, clock = runtime.store, runtime.clock
    last = conversation[-1]
    asking = last.message_id if isinstance(last, UserMessage) else None
    lines = []
    for c in episodes.conversations_between(store, span.start, span.end):
        if c.current:
            told = c.messages - (1 if asking and c.episode.id == _episode_of(runtime, asking) else 0)
            if told <= 0:
                continue
            current = episodes.in_progress(store)
            title = current.title if current and current.episode.id == c.episode.id else c.episode.title
            lines += episode_lines(clock, c.episode, f"(current conversation) {title or 'Untitled'}", summary=False)
            continue
        lines += episode_lines(clock, c.episode, width=200)
    if not lines:
        return f"We didn't talk {span.label}."
    return f"What we talked about {span.label}:\n" + "\n".join(lines)


def _episode_of(runtime: Runtime, message_id: int) -> int | None:
    found = episodes.messages_by_id(runtime.store, [message_id]).get(message_id)
    return found.episode_id if found else None
