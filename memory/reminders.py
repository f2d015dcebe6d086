"""Reminders: the get_upcoming lifecycle of SPEC F1 and their labels."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memory.clock import UTC, Clock, parse_stored, to_utc_iso
from memory.knowledge import SELECT_MEMORY, Memory
from memory.store import Store

log = logging.getLogger(__name__)


@dataclass
class Reminder:
    memory: Memory
    status: str  # "due" | "overdue"
    label: str

    def to_json(self) -> dict[str, Any]:
        return {**self.memory.to_json(), "status": self.status, "label": self.label}


def label_for(memory: Memory, now: datetime, clock: Clock) -> tuple[str, str]:
    """("due" | "overdue", "[DUE Tue Nov 24 19:00, every Tue]")."""
    status = "overdue" if memory.due_at < to_utc_iso(now) else "due"
    rule = f", {memory.rule.describe()}" if memory.recurrence else ""
    return status, f"[{status.upper()} {clock.short(memory.due_at)}{rule}]"


def get_upcoming(store: Store, within_days: float = 7, now: datetime | None = None) -> list[Reminder]:
    """Reminders not done, due within `within_days`, that need mentioning now.

    Listed when never reminded, or when reminded only before a due date that has now passed
    (it resurfaces once as overdue). Overdue first, then by due date.
    """
    now = now or store.clock.now()
    now_iso = to_utc_iso(now)
    horizon = to_utc_iso(now + timedelta(days=within_days))
    rows = store.query(
        f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= ? "
        "AND (k.reminded_at IS NULL OR (k.reminded_at < k.due_at AND k.due_at <= ?)) "
        "ORDER BY k.due_at, k.id", (horizon, now_iso))
    return _labelled(rows, now, store.clock)


def list_open_reminders(store: Store, within_days: float = 7, now: datetime | None = None) -> list[Reminder]:
    """Every reminder not done and due within the window, mentioned or not, overdue first.

    This is the user's one truth (`assistant reminders`, the sidebar, "what's coming up"); the
    no-nagging lifecycle of get_upcoming decides only what the prompt asks the assistant to mention.
    """
    now = now or store.clock.now()
    horizon = to_utc_iso(now + timedelta(days=within_days))
    rows = store.query(f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= ? "
                       "ORDER BY k.due_at, k.id", (horizon,))
    return _labelled(rows, now, store.clock)


def next_due_after(store: Store, after: datetime) -> datetime | None:
    """The earliest due instant of an open reminder strictly after `after` (for a notification timer)."""
    row = store.one("SELECT min(due_at) FROM knowledge WHERE due_at > ? AND done_at IS NULL", (to_utc_iso(after),))
    return parse_stored(row[0]) if row and row[0] else None


def fell_due_between(store: Store, since: datetime, until: datetime) -> list[Reminder]:
    """Open reminders that fell due in (since, until]: their due instant lies in it, or they were
    written in it already overdue (`remember --due "today at 8am" --allow-past` from the CLI while
    the app runs), so each is announced once."""
    start, end = to_utc_iso(since), to_utc_iso(until)
    rows = store.query(f"{SELECT_MEMORY} WHERE k.done_at IS NULL AND k.due_at <= ? AND "
                       "(k.due_at > ? OR (k.created_at > ? AND k.created_at <= ?)) ORDER BY k.due_at, k.id",
                       (end, start, start, end))
    return _labelled(rows, until, store.clock)


def _labelled(rows: list, now: datetime, clock: Clock) -> list[Reminder]:
    """Rows as labelled reminders; a row that cannot be read (a date out of range written by an
    older version, a broken rule) is skipped and reported, so one bad row never hides the rest."""
    out = []
    for row in rows:
        try:
            memory = Memory.from_row(row)
            out.append(Reminder(memory, *label_for(memory, now, clock)))
        except (ValueError, OverflowError, TypeError) as exc:
            log.warning("skipped reminder #%s: it cannot be read (%s); `assistant forget %s` removes it",
                        row["id"], exc, row["id"])
    return out


def relative_time(due_at: str, now: datetime, clock: Clock) -> str:
    """"in 2 h", "in 3 d", "overdue 1 d", "now": rounded to the nearest unit (47 h 50 min is "in 2 d").

    The difference is taken in UTC: two aware datetimes in one zone subtract as wall-clock time,
    which is an hour off across a DST change.
    """
    seconds = round((parse_stored(due_at) - now.astimezone(UTC)).total_seconds())
    span = abs(seconds)
    if span < 30:
        return "now"
    def nearest(unit: int) -> int:  # halves round up (Python's round() rounds 4.5 to 4)
        return int(span / unit + 0.5)

    if span < 90 * 60:
        text = f"{max(1, nearest(60))} min"
    elif span < 36 * 3600:
        text = f"{nearest(3600)} h"
    else:
        text = f"{nearest(86400)} d"
    return f"in {text}" if seconds > 0 else f"overdue {text}"
