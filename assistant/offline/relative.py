"""Reminders set relative to an event ("remind me two days before the budget review to check the
numbers"): the event's date from memory (an open reminder about it, or a memory that gives its date),
asked about when there is none or more than one."""
from __future__ import annotations

from datetime import datetime, timedelta

from assistant.offline.phrases import ASK_EVENT, ASK_WHEN, offset_words, to_you
from assistant.offline.plan import Plan, said
from assistant.reading.actions import RemindRelative
from assistant.reading.dates import stated_date
from assistant.recall.evidence import search_words, topic_words
from assistant.runtime import Runtime
from memory import memories, reminders, supersession
from memory.time.instants import parse_stored
from memory.turn_records import Asking, OpenQuestion

LISTED = 6  # dates of an event a question lists


def plan_relative(runtime: Runtime, action: RemindRelative, request: str) -> Plan:
    """The reminder `action` asks for (`request` says it), or the question of when the event is."""
    if not action.content:
        return said(f"What should I remind you about {offset_words(action.offset)} {action.event}?")
    if action.due is not None:
        return relative_due(runtime, action, request, action.due + (action.offset or timedelta(0)), action.event)
    known = event_dates(runtime, action.event)
    then = f"Then I'll remind you {offset_words(action.offset)} it {action.link} {to_you(action.content)}."
    if not known:
        return said(f"{ASK_EVENT} {to_you(action.event)}? {then}", OpenQuestion(Asking.EVENT, request))
    if len({at for at, _, _ in known}) > 1:
        # Several memories give it different dates: which one is meant is asked, never guessed.
        lines = [f"{ASK_EVENT} {to_you(action.event)}? I have more than one date for it; say which, or the date "
                 f"({then[:-1].lower()}):"]
        lines += [f"- #{memory_id} {told}" for _, told, memory_id in known[:LISTED]]
        return said("\n".join(lines), OpenQuestion(Asking.EVENT, request, tuple(i for _, _, i in known[:LISTED])))
    event_due, told, _ = known[0]
    return relative_due(runtime, action, request, event_due, action.event, told)


def relative_due(runtime: Runtime, action: RemindRelative, request: str, event_due: datetime, event: str,
                 source: str = "") -> Plan:
    """The reminder `action.offset` before the event; `source` says where its date came from; `request`
    is the message that asked for it (asked about again when the time has passed)."""
    clock = runtime.clock
    due = event_due - (action.offset or timedelta(0))
    when = source or clock.short(event_due)
    about = f"{offset_words(action.offset)} {to_you(event)} ({when})"
    if due < clock.now() - timedelta(minutes=1):
        return said(f"{about[:1].upper()}{about[1:]} was {clock.short(due)}, which has already passed. "
                    f"{ASK_WHEN} {action.link} {to_you(action.content)}?", OpenQuestion(Asking.WHEN, request))
    return Plan([("remember", {"content": action.content, "due_at": due.isoformat(), "kind": "reminder"})],
                note=f", {about}")


def event_dates(runtime: Runtime, event: str) -> list[tuple[datetime, str, int]]:
    """When an event is: (its date, where that comes from, the memory's id) for each open reminder about
    it and each current memory that gives its date ("my Lisbon flight is on Dec 10"), soonest first, one
    per date."""
    clock = runtime.clock
    wanted = topic_words(event) - {"due"}
    if not wanted:
        return []
    store = runtime.store
    found: dict[datetime, tuple[str, int]] = {}
    for r in reminders.open_matching(store, search_words(event)):
        if wanted <= topic_words(r.memory.content):
            found.setdefault(parse_stored(r.due_at), (f"#{r.memory.id} {r.memory.content}, "
                                                      f"{clock.short(r.due_at)}", r.memory.id))
    stated = [m for m in memories.matching(store, search_words(event)) if not m.due_at and
              wanted <= topic_words(m.content)]
    gone = supersession.superseded_by(store, [m.id for m in stated])
    for m in stated:
        if m.id in gone:
            continue  # a date said before it moved
        date = stated_date(m.content, parse_stored(m.created_at), clock.zone, clock.default_time)
        if date is not None and date.granularity == "day":  # a reminder before "June" needs a day
            when = date.told(clock)
            found.setdefault(date.at, (f"{when}, as you told me {clock.day(m.created_at)}", m.id))
    return [(at, told, memory_id) for at, (told, memory_id) in sorted(found.items())]
