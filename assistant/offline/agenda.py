"""Agendas without a model (SPEC F7 offline mode): "what's coming up?", "what do I have on Tuesday?",
"what do I still have to do today?", "where am I going in December?", "do I have any trips planned?".

An agenda is the open reminders due in its days and the plans said for them: memories that give a
date ("the dentist appointment is on Tuesday at 3pm", "my Lisbon flight is on Dec 10"), read against
the day they were said, the older value of a plan that moved left out. Done reminders never appear.
"What's coming up" lists the most urgent of the next seven days, counts the rest of the window and
says what lies beyond it ("and 3 later: next on Mon Dec 7"), so a reminder moved out of the window
never vanishes; it reads the due-date index, as quick with 20,000 open reminders as with 20.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from assistant.reading.dates import StatedDate, stated_date
from assistant.reading.spans import DaySpan
from assistant.runtime import Runtime
from assistant.views import private_marked
from memory import memories, reminders, supersession
from memory.memories import Memory
from memory.text import flat
from memory.time import names
from memory.time.instants import parse_stored, to_utc_iso

LISTED = 20  # reminders "what's coming up" names; the rest of the window is counted
_MONTHS = names.MONTHS
_DAYS = names.WEEKDAYS
# Words a plan's date is written with, besides the days' own names and numbers.
_RELATIVE = ("today", "tonight", "tomorrow", "next", "weekend", "week", "coming")
TRIP_WORDS = ("trip", "trips", "flight", "flights", "fly", "flying", "travel", "travelling", "traveling", "holiday",
              "holidays", "vacation", "hotel", "train", "journey", "visit", "visiting", "airport", "cruise",
              "getaway", "ferry")
_PLAN_KINDS = ("fact", "event", "note", "decision", "preference", "person")
_A_MONTH = timedelta(days=28)  # a plan said for a month or a year shows in lists that span at least this


@dataclass
class PlanItem:
    memory: Memory
    stated: StatedDate

    @property
    def at(self) -> str:
        return to_utc_iso(self.stated.at)


def span_words(start: datetime, end: datetime, runtime: Runtime) -> list[str]:
    """Words a date in [start, end) may be written with: its days' names, months and numbers."""
    clock = runtime.clock
    first, last = clock.local(start).date(), clock.local(end - timedelta(seconds=1)).date()
    words: list[str] = list(_RELATIVE)
    day = first
    for _ in range(62):
        if day > last:
            break
        name, month = _DAYS[day.weekday()], _MONTHS[day.month - 1]
        suffix = "th" if 10 <= day.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
        words += [name, name[:3], month, month[:3], str(day.day), f"{day.day}{suffix}", f"{day:%Y-%m-%d}"]
        day += timedelta(days=1)
    return list(dict.fromkeys(words))


def plans_between(runtime: Runtime, start: datetime, end: datetime, words: list[str] | None = None,
                  limit: int = 300) -> list[PlanItem]:
    """Memories (not reminders) that give a plan a date in [start, end), by that date; looked up in the
    keyword index by the words such a date is written with (or by `words`), newest first, at most
    `limit` read; a plan restated since with another date is left out."""
    store, clock = runtime.store, runtime.clock
    found = [m for m in memories.matching(store, words or span_words(start, end, runtime), limit)
             if m.due_at is None and m.kind in _PLAN_KINDS]
    gone = supersession.superseded_by(store, [m.id for m in found])
    plans = []
    for memory in found:
        if memory.id in gone:
            continue
        stated = stated_date(memory.content, parse_stored(memory.created_at), clock.zone, clock.default_time)
        if stated is not None and start <= stated.at < end and (stated.granularity == "day" or end - start >= _A_MONTH):
            plans.append(PlanItem(memory, stated))  # a month or a year said is in no day's agenda
    plans.sort(key=lambda p: (p.stated.at, p.memory.id))
    return plans


def plan_line(runtime: Runtime, plan: PlanItem) -> str:
    clock = runtime.clock
    when = plan.stated.told(clock)
    text = private_marked(flat(plan.memory.content), plan.memory.private)
    return f"- #{plan.memory.id} [PLAN {when}] {text} (you told me {clock.day(plan.memory.created_at)})"


def reminder_line(runtime: Runtime, reminder: reminders.Reminder, instant: str | None = None) -> str:
    clock = runtime.clock
    now = clock.now()
    at = instant or reminder.due_at
    memory = reminder.memory
    rule = f", {memory.rule.describe()}" if memory.rule else ""
    state = "OVERDUE" if at < to_utc_iso(now) else "DUE"
    return (f"- #{memory.id} [{state} {clock.short(at)}{rule}] {private_marked(flat(memory.content), memory.private)} "
            f"({reminders.relative_time(at, now, clock)})")


def agenda(runtime: Runtime, span: DaySpan, topic: str = "") -> tuple[str, list[reminders.Reminder]]:
    """The open reminders and the plans of the days asked about, in time order; and the reminders named."""
    store = runtime.store
    due = reminders.due_between(store, span.start, span.end)
    if topic == "trip":
        due = [(r, at) for r, at in due if _about_travel(r.memory.content)]
    plans = plans_between(runtime, span.start, span.end,
                          words=None if topic != "trip" else list(TRIP_WORDS))
    items = [(at, reminder_line(runtime, r, at)) for r, at in due] + [(p.at, plan_line(runtime, p)) for p in plans]
    if not items:
        what = "No trips are planned" if topic == "trip" else "Nothing is due"
        return f"{what} {span.label}.", []
    items.sort(key=lambda item: item[0])
    heading = f"Trips {span.label}:" if topic == "trip" else f"{span.label[:1].upper()}{span.label[1:]}:"
    return "\n".join([heading] + [line for _, line in items]), [r for r, _ in due]


def trips(runtime: Runtime, within_days: int = 366, place: str | None = None) -> tuple[str, list[reminders.Reminder]]:
    """ "Do I have any trips planned?": plans and open reminders about travel from now on; `place`: only those
    that name it ("when's my flight to Paris?" is no question about the flight to Lisbon)."""
    store, clock = runtime.store, runtime.clock
    now = clock.now()
    end = now + timedelta(days=within_days)
    plans = plans_between(runtime, now, end, words=list(TRIP_WORDS))
    due = [r for r in reminders.open_matching(store, list(TRIP_WORDS)) if r.due_at >= to_utc_iso(now)]
    if place is not None:
        named = re.compile(rf"(?<!\w){re.escape(place)}(?!\w)", re.I)
        due = [r for r in due if named.search(r.memory.content)]
        plans = [p for p in plans if named.search(p.memory.content)]
    items = [(r.due_at, reminder_line(runtime, r)) for r in due] + [(p.at, plan_line(runtime, p)) for p in plans]
    if not items:
        return f"I have no trip to {place} planned in memory." if place else "I have no trips planned in memory.", []
    items.sort(key=lambda item: item[0])
    return "\n".join(["Trips planned:"] + [line for _, line in items]), due


def coming_up(runtime: Runtime, within_days: int = 7) -> tuple[str, list[reminders.Reminder]]:
    """ "What's coming up?": the most urgent open reminders of the next `within_days` days (overdue
    first), the plans said for those days, how many more reminders the window holds, and how many lie
    beyond it with the next one's day."""
    store, clock = runtime.store, runtime.clock
    now = clock.now()
    items, total, _ = reminders.urgent_open_reminders(store, within_days, LISTED)
    plans = plans_between(runtime, now, now + timedelta(days=within_days))
    later = reminders.beyond_window(store, within_days)
    lines = [(r.due_at, reminder_line(runtime, r)) for r in items] + [(p.at, plan_line(runtime, p)) for p in plans]
    lines.sort(key=lambda item: item[0])
    if not lines:
        text = f"Nothing is due in the next {within_days} days."
    else:
        text = "\n".join(["Coming up:"] + [line for _, line in lines])
    if total > len(items):
        text += f"\n… {total - len(items):,} more due in the next {within_days} days (`assistant reminders` lists them)"
    if later.count:
        text += f"\n{later.text(clock)}"
    return text, items


def overdue(runtime: Runtime) -> tuple[str, list[reminders.Reminder]]:
    """ "What's overdue?": the open reminders whose time has passed, oldest first."""
    late = [r for r in reminders.list_open_reminders(runtime.store, 0, runtime.clock.now()) if r.status == "overdue"]
    if not late:
        return "Nothing is overdue.", []
    return "\n".join(["Overdue:"] + [reminder_line(runtime, r) for r in late]), late


def _about_travel(text: str) -> bool:
    words = set(text.lower().replace(",", " ").split())
    return bool(words & set(TRIP_WORDS))
