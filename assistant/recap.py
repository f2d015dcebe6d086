"""How conversations are listed in a recap, one way for every front end (the recall_recent tool, the
CLI's `recap`, the offline mode's "what did we talk about yesterday", the app's ctrl+r): a line with
its time and title, then its summary; the conversation in progress marked as such, with its opening
lines. Shown as stored on your own screen (a title made without a model holds no secret: it is masked
when made); what goes to a model passes the turn's gate."""
from __future__ import annotations

from datetime import datetime, timedelta

from assistant.outbound.gate import LOCAL_GATE, Gate
from assistant.reading.spans import day_span
from assistant.runtime import Runtime
from memory import episodes, memories, reminders
from memory.episodes import Episode, InProgress
from memory.text import flat
from memory.time.clock import Clock
from memory.time.instants import to_utc_iso

OPENING_WIDTH = 160  # characters of a message's opening line in a list


def episode_lines(clock: Clock, episode: Episode, title: str | None = None, summary: bool | str = True,
                  width: int | None = None) -> list[str]:
    """["- <when> <title>", "  <summary>"]: `title` replaces the stored one (a conversation in progress,
    a title as the gate lets it out), and so does a text `summary`; False leaves it out."""
    lines = ["- " + episode.line(clock, title if title is not None else episode.title or "Untitled")]
    said = episode.summary if summary is True else summary or ""
    if said:
        lines.append(f"  {flat(said, width)}")
    return lines


def current_title(current: InProgress) -> str:
    size = f"{current.messages} message{'s' if current.messages != 1 else ''}"
    return f"(current conversation, {size}) {current.title}"


def current_lines(clock: Clock, current: InProgress, gate: Gate = LOCAL_GATE) -> list[str]:
    """The conversation in progress: its line, then its opening messages."""
    return episode_lines(clock, current.episode, current_title(current), summary=False) + [
        f"  > {flat(gate.message(m.id, m.content), OPENING_WIDTH)}" for m in current.opening]


def recent_conversations(runtime: Runtime, hours: float = 48, limit: int = 10, gate: Gate = LOCAL_GATE,
                         outcome: str | None = None, newest_first: bool = False, min_messages: int = 2,
                         empty: str | None = None) -> str:
    """Recent closed conversations (list_recent) with local times and summaries, and the one in progress.

    In time order, the one in progress last (the recall_recent tool: "what did we talk about"), or
    newest first, the one in progress leading (the CLI, like list_recent). The conversation in progress
    is listed once it holds `min_messages` (the tool: more than the message that asked). `empty`: what
    to say when there is none.
    """
    items = episodes.list_recent(runtime.store, limit=limit, outcome=outcome, hours=hours)
    current = episodes.in_progress(runtime.store, min_messages=min_messages) \
        if outcome in (None, "success") else None
    if not items and current is None:
        return empty if empty is not None else f"No episodes found in the last {hours:g} hours."
    clock = runtime.clock
    closed: list[str] = []
    for e in (items if newest_first else reversed(items)):
        if e.id in gate.private_episodes:  # for a model: as the gate lets it out
            closed += episode_lines(clock, e, gate.episode(e.id, e.title or "Untitled"),
                                    gate.episode(e.id, e.summary or "") or False)
        else:
            closed += episode_lines(clock, e)
    ongoing = current_lines(clock, current, gate) if current is not None else []
    return "\n".join(ongoing + closed if newest_first else closed + ongoing)


def reminder_line(runtime: Runtime, reminder: reminders.Reminder, gate: Gate = LOCAL_GATE) -> str:
    """"- #5 [DUE Mon Nov 23 10:00] Call the bank (in 20 h)": a reminder in a list a model reads."""
    clock = runtime.clock
    return (f"- #{reminder.memory.id} {reminder.label} {flat(gate.memory(reminder.memory), 300)} "
            f"({reminders.relative_time(reminder.due_at, clock.now(), clock)})")


def _new_memories(runtime: Runtime, since: datetime, gate: Gate, limit: int = 20) -> list[str]:
    """Memories written since `since` (not reminders), newest first, as the gate lets them out: a private
    one the gate does not list is left out."""
    found = memories.created_since(runtime.store, to_utc_iso(since), limit=limit, reminders=False, current=True)
    return [f"- #{m.id} {m.kind}: {flat(gate.memory(m), 200)}" for m in found if gate.listed(m)]


def recap_text(runtime: Runtime, period: str = "48h", gate: Gate = LOCAL_GATE) -> str:
    """Today (since local midnight) or the last 48 hours: conversations, open reminders (overdue, then the
    next 7 days), what was newly remembered. The recap tool and prompt of other AI tools (assistant.mcp)."""
    clock = runtime.clock
    now = clock.now()
    today = day_span("today", now, clock.zone, past=True)
    since, label = (today.start, today.label) if period == "today" and today else \
        (now - timedelta(hours=48), "the last 48 hours")
    hours = max((now - since).total_seconds() / 3600, 1 / 60)
    lines = [f"Recap of {label} (local times, {clock.offset_text()}; now {clock.short(now)})", "",
             "Conversations:", recent_conversations(runtime, hours, limit=20, gate=gate, min_messages=1, empty="None.")]
    items, _, _ = reminders.urgent_open_reminders(runtime.store, 7, 20)
    for status, title in (("overdue", "Overdue"), ("due", "Due in the next 7 days")):
        shown = [reminder_line(runtime, r, gate) for r in items if r.status == status]
        if shown:
            lines += ["", f"{title}:", *shown]
    new = _new_memories(runtime, since, gate)
    lines += ["", "Newly remembered:", *new] if new else ["", "Nothing new was remembered."]
    return "\n".join(lines)


def agenda_text(runtime: Runtime, gate: Gate = LOCAL_GATE, limit: int = 50) -> str:
    """Today at a glance: what is overdue, what falls due today (each occurrence of a repeating reminder),
    and yesterday's conversations. The agenda other AI tools read (assistant.mcp)."""
    store, clock = runtime.store, runtime.clock
    now = clock.now()
    today = day_span("today", now, clock.zone, past=False)
    yesterday = day_span("yesterday", now, clock.zone, past=True)
    assert today is not None and yesterday is not None  # both words are read by day_span
    lines = [f"Agenda for {today.label} (local times, {clock.offset_text()}; now {clock.short(now)})"]
    late, _, overdue = reminders.urgent_open_reminders(store, 0, limit)
    late = [r for r in late if r.status == "overdue" and r.due_at < to_utc_iso(today.start)]
    if late:
        more = f" ({overdue} in all)" if overdue > len(late) else ""
        lines += ["", f"Overdue from before today{more}:", *(reminder_line(runtime, r, gate) for r in late)]
    due = reminders.due_between(store, today.start, today.end)[:limit]
    lines += ["", "Today:"]
    for r, instant in due:
        rule = f", {r.memory.rule.describe()}" if r.memory.rule else ""
        state = "OVERDUE" if instant < to_utc_iso(now) else "DUE"
        lines.append(f"- #{r.memory.id} [{state} {clock.short(instant)}{rule}] {flat(gate.memory(r.memory), 300)} "
                     f"({reminders.relative_time(instant, now, clock)})")
    if not due:
        lines.append("Nothing is due today.")
    lines += ["", f"Conversations {yesterday.label}:"]
    talks = episodes.conversations_between(store, yesterday.start, yesterday.end)
    for c in talks:
        e = c.episode
        title = gate.episode(e.id, e.title or "Untitled")
        lines += episode_lines(clock, e, title, gate.episode(e.id, e.summary or "") or False, width=300)
    if not talks:
        lines.append("None.")
    return "\n".join(lines)
