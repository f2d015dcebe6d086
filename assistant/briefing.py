"""The morning briefing (SPEC F12): today's reminders in time order, what is overdue, yesterday's
conversations by title, the memories that changed. Built here, in one place, from the store; the app
shows it as a card on the first launch of a day, `assistant briefing` prints it, and `assistant notify`
posts it once a day at `notify.briefing_time`.

A day with nothing in it has no briefing: the app and the notifier stay silent, and the command says
so in one line. Each front end claims the day in the store (meta), so a second launch, a second window
or a second notifier shows nothing again that day.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from assistant.views import listed_text
from memory import episodes, memories, reminders
from memory.store import Store
from memory.text import flat
from memory.time.clock import Clock
from memory.time.due_phrases import localize
from memory.time.instants import to_utc_iso

SHOWN = 5  # overdue reminders and changed memories named; the rest are counted
TODAY_SHOWN = 20
YESTERDAY_SHOWN = 10
SHOWN_KEY = "briefing_shown_on"  # store meta: the local day the app last showed (or had no) briefing
NOTIFIED_KEY = "briefing_notified_on"  # store meta: the local day a notifier last posted it
NOTHING = "Nothing is due today and nothing is overdue."


@dataclass
class BriefingItem:
    id: int
    text: str  # as shown: a secret masked, a private memory marked
    when: str  # local: "09:00" today, "Sat Nov 21 09:00" overdue, "new" / "changed" for a memory
    at: str  # the instant it is about (UTC): due, or changed


@dataclass
class Briefing:
    day: date  # the local day
    label: str  # "Sun Nov 22"
    today: list[BriefingItem] = field(default_factory=list)  # in time order
    overdue: list[BriefingItem] = field(default_factory=list)  # oldest first, the latest SHOWN of them
    overdue_total: int = 0
    yesterday: list[BriefingItem] = field(default_factory=list)  # conversations, oldest first (text: title)
    yesterday_total: int = 0
    changed: list[BriefingItem] = field(default_factory=list)  # memories, latest first
    changed_total: int = 0

    @property
    def empty(self) -> bool:
        return not (self.today or self.overdue_total or self.yesterday_total or self.changed_total)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["day"] = self.day.isoformat()
        data["empty"] = self.empty
        return data

    def sections(self, limit: int | None = None) -> list[tuple[str, list[str]]]:
        """(heading, lines) of the sections that have something, for a card or a terminal; `limit`: the
        lines a section shows, the rest counted."""
        out: list[tuple[str, list[str]]] = []

        def add(heading: str, total: int, lines: list[str], hint: str = "") -> None:
            shown = lines[:limit] if limit is not None else lines
            more = total - len(shown)
            out.append((f"{heading} ({total})", shown + ([f"… and {more} more{hint}"] if more > 0 else [])))

        if self.today:
            add("Today", len(self.today), [f"{i.when}  {i.text}" for i in self.today])
        if self.overdue_total:
            add("Overdue", self.overdue_total, [f"{i.when}  {i.text}" for i in self.overdue],
                " (`assistant reminders` lists them)")
        if self.yesterday_total:
            add("Yesterday's conversations", self.yesterday_total, [i.text for i in self.yesterday])
        if self.changed_total:
            add("Memories that changed", self.changed_total, [f"{i.when}: {i.text}" for i in self.changed])
        return out

    def text(self) -> str:
        if self.empty:
            return NOTHING
        lines = [f"Briefing for {self.label}"]
        for heading, items in self.sections():
            lines += ["", heading, *(f"  {line}" for line in items)]
        return "\n".join(lines)

    def notification(self) -> tuple[str, str]:
        """(title, body) of the desktop notification: short, a line a section."""
        parts = []
        if self.today:
            named = "; ".join(f"{i.when} {flat(i.text, 40)}" for i in self.today[:3])
            parts.append(f"Today: {named}" + (f" (+{len(self.today) - 3})" if len(self.today) > 3 else ""))
        if self.overdue_total:
            parts.append(f"Overdue: {self.overdue_total}")
        if self.yesterday_total:
            parts.append(f"Yesterday: {self.yesterday_total} conversation{'s' if self.yesterday_total != 1 else ''}")
        if self.changed_total:
            parts.append(f"Memories changed: {self.changed_total}")
        return f"Briefing for {self.label}", " · ".join(parts)


def day_start(clock: Clock, day: date) -> datetime:
    """Local midnight of `day`, as an instant (DST gaps handled as everywhere: localize)."""
    return localize(datetime.combine(day, time(0)), clock.zone)


def build_briefing(store: Store, clock: Clock) -> Briefing:
    """Today's briefing as the store has it now (reads only; bounded whatever the store holds)."""
    now = clock.now()
    today = clock.local(now).date()
    start, end = day_start(clock, today), day_start(clock, today + timedelta(days=1))
    yesterday = day_start(clock, today - timedelta(days=1))
    briefing = Briefing(today, clock.day(now))
    for reminder, instant in reminders.due_between(store, now, end)[:TODAY_SHOWN]:
        m = reminder.memory
        briefing.today.append(BriefingItem(m.id, _shown(m), f"{clock.local(instant):%H:%M}", instant))
    late, _, overdue = reminders.urgent_open_reminders(store, 0, SHOWN, now)
    briefing.overdue = [BriefingItem(r.memory.id, _shown(r.memory), clock.short(r.due_at), r.due_at)
                        for r in late if r.status == "overdue"]
    briefing.overdue_total = overdue
    said = episodes.conversations_between(store, yesterday, start)
    briefing.yesterday_total = len(said)
    briefing.yesterday = [BriefingItem(c.episode.id, flat(c.episode.title or "Untitled", 120),
                                       clock.short(c.episode.started_at), c.episode.started_at)
                          for c in said[:YESTERDAY_SHOWN]]
    changed, briefing.changed_total = memories.changed_since(store, to_utc_iso(yesterday), SHOWN)
    briefing.changed = [BriefingItem(m.id, _shown(m), "new" if m.created_at >= to_utc_iso(yesterday) else "changed",
                                     m.updated_at) for m in changed]
    return briefing


def _shown(memory: memories.Memory) -> str:
    return listed_text(memory, 200)


def briefing_for_launch(store: Store, clock: Clock) -> Briefing | None:
    """The briefing the app shows at launch: only at the first launch of a local day (the day is claimed
    in the store, whatever the briefing holds), and only when the day has something in it."""
    day = clock.local(clock.now()).date().isoformat()
    if store.read_only or not store.advance_meta(SHOWN_KEY, day):
        return None
    briefing = build_briefing(store, clock)
    return None if briefing.empty else briefing
