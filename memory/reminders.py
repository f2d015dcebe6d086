"""Reminders: the get_upcoming lifecycle of SPEC F1, their labels, and the undo of the last change."""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memory.connection import Row
from memory.errors import InvalidInput
from memory.fts import content_match
from memory.memories import SELECT_MEMORY, Memory, decide_sensitive_again, get_memory, keep_earlier_text
from memory.store import Store
from memory.time.clock import Clock
from memory.time.due_phrases import check_not_empty
from memory.time.instants import UTC, parse_stored, to_utc_iso
from memory.time.references import time_refs_json
from memory.time.schedule import check_not_past, resolve_schedule, resolve_when

log = logging.getLogger(__name__)


@dataclass
class Reminder:
    memory: Memory
    status: str  # "due" | "overdue"
    label: str

    @property
    def due_at(self) -> str:
        """When it is due (stored UTC text): every listed reminder has a due time."""
        assert self.memory.due_at is not None, "a reminder has a due time"
        return self.memory.due_at

    def to_json(self) -> dict[str, Any]:
        return {**self.memory.to_json(), "status": self.status, "label": self.label}


def due_text(memory: Memory, clock: Clock) -> str:
    """When a reminder is due, the one wording every list uses: "Tue Nov 24 19:00, every Tue"."""
    assert memory.due_at is not None  # a reminder has a due time
    recurrence = memory.rule
    rule = f", {recurrence.describe()}" if recurrence else ""
    return f"{clock.short(memory.due_at)}{rule}"


def label_for(memory: Memory, now: datetime, clock: Clock, now_iso: str | None = None) -> tuple[str, str]:
    """("due" | "overdue", "[DUE Tue Nov 24 19:00, every Tue]"); `now_iso`: `now` as stored, when the
    caller labels many."""
    assert memory.due_at is not None  # a reminder has a due time
    status = "overdue" if memory.due_at < (now_iso or to_utc_iso(now)) else "due"
    return status, f"[{status.upper()} {due_text(memory, clock)}]"


# Needs mentioning now (get_upcoming): never reminded, or reminded only before a due date that has passed.
_NEEDS_MENTION = "(k.reminded_at IS NULL OR (k.reminded_at < k.due_at AND k.due_at <= ?))"


def get_upcoming(store: Store, within_days: float = 7, now: datetime | None = None,
                 limit: int | None = None) -> list[Reminder]:
    """Reminders not done, due within `within_days`, that need mentioning now.

    Listed when never reminded, or when reminded only before a due date that has now passed
    (it resurfaces once as overdue). Overdue first, then by due date. With `limit`, only the most
    urgent that many (the latest overdue and the soonest upcoming, as urgent_open_reminders picks
    them), read through the due-date index whatever the number of open reminders.
    """
    now = now or store.clock.now()
    now_iso = to_utc_iso(now)
    horizon = to_utc_iso(now + timedelta(days=within_days))
    if limit is not None:
        rows = _most_urgent(store, f"k.due_at IS NOT NULL AND k.done_at IS NULL AND {_NEEDS_MENTION}", (now_iso,),
                            now_iso, horizon, limit)
        return _labelled(rows, now, store.clock)
    rows = store.query(
        f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= ? "
        f"AND {_NEEDS_MENTION} ORDER BY k.due_at, k.id", (horizon, now_iso))
    return _labelled(rows, now, store.clock)


def needing_mention(store: Store, memory_ids: list[int], within_days: float = 7,
                    now: datetime | None = None) -> set[int]:
    """Those of `memory_ids` that get_upcoming would list now (what mentioning them marks reminded)."""
    if not memory_ids:
        return set()
    now = now or store.clock.now()
    rows = store.query(f"SELECT k.id FROM knowledge k WHERE k.id IN ({','.join('?' * len(memory_ids))}) AND "
                       f"k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= ? AND {_NEEDS_MENTION}",
                       (*memory_ids, to_utc_iso(now + timedelta(days=within_days)), to_utc_iso(now)))
    return {r[0] for r in rows}


def _most_urgent(store: Store, where: str, params: tuple[Any, ...], now_iso: str, horizon: str,
                 limit: int) -> list[Any]:
    """Rows matching `where` due by `horizon`: the latest overdue and the soonest upcoming, at most `limit`
    (half and half when both are many), overdue first, in due order. Each side is read from the due-date
    index in its own direction and stops at `limit`."""
    overdue = store.query(f"{SELECT_MEMORY} WHERE {where} AND k.due_at < ? ORDER BY k.due_at DESC, k.id DESC LIMIT ?",
                          (*params, now_iso, limit))
    upcoming = store.query(f"{SELECT_MEMORY} WHERE {where} AND k.due_at >= ? AND k.due_at <= ? "
                           "ORDER BY k.due_at, k.id LIMIT ?", (*params, now_iso, horizon, limit))
    keep_upcoming = min(len(upcoming), max(limit // 2, limit - len(overdue)))
    return list(reversed(overdue[:limit - keep_upcoming])) + list(upcoming[:keep_upcoming])


def list_open_reminders(store: Store, within_days: float = 7, now: datetime | None = None) -> list[Reminder]:
    """Every reminder not done and due within the window, mentioned or not, overdue first.

    This is the user's one truth (the reminder list of every front end, "what's coming up"); the
    no-nagging lifecycle of get_upcoming decides only what the prompt asks the assistant to mention.
    """
    now = now or store.clock.now()
    horizon = to_utc_iso(now + timedelta(days=within_days))
    rows = store.query(f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= ? "
                       "ORDER BY k.due_at, k.id", (horizon,))
    return _labelled(rows, now, store.clock)


def urgent_open_reminders(store: Store, within_days: float = 7, limit: int = 50,
                          now: datetime | None = None) -> tuple[list[Reminder], int, int]:
    """The most urgent open reminders of the window, at most `limit` (the latest overdue and the
    soonest upcoming, half and half when both are many), in due order; how many the window holds;
    how many of those are overdue.

    For lists a person reads (a sidebar): a calendar import of thousands costs what a few do, and a
    year-old overdue item does not push today's out of sight."""
    now = now or store.clock.now()
    now_iso, horizon = to_utc_iso(now), to_utc_iso(now + timedelta(days=within_days))
    open_ = "k.due_at IS NOT NULL AND k.done_at IS NULL"
    # Counted in the partial index of open reminders' due dates, never from the rows themselves.
    total, late = store.one(f"SELECT count(*), count(*) FILTER (WHERE k.due_at < ?) FROM knowledge k "
                            f"WHERE {open_} AND k.due_at <= ?", (now_iso, horizon))
    rows = _most_urgent(store, open_, (), now_iso, horizon, limit)
    return _labelled(rows, now, store.clock), total, late


@dataclass
class Later:
    """Open reminders beyond a list's window: how many, and the first one's due instant (UTC)."""
    count: int
    next_due_at: str | None

    def text(self, clock: Clock) -> str:
        """ "and 3 later: next on Mon Dec 7" ("" when there are none)."""
        return later_line(self.count, clock.day(self.next_due_at) if self.next_due_at else "")


def later_line(count: int, next_day: str) -> str:
    """The one wording of what lies beyond a list's window: "and 3 later: next on Mon Dec 7"."""
    return f"and {count:,} later: next on {next_day}" if count and next_day else ""


def beyond_window(store: Store, within_days: float = 7, now: datetime | None = None) -> Later:
    """The open reminders due after the window of a list (`within_days` from now), counted in the index."""
    now = now or store.clock.now()
    row = store.one("SELECT count(*), min(due_at) FROM knowledge WHERE due_at > ? AND done_at IS NULL",
                    (to_utc_iso(now + timedelta(days=within_days)),))
    return Later(row[0], row[1])


def last_fell_due(store: Store, now: datetime | None = None) -> Reminder | None:
    """The open reminder that fell due last (what "that" means when nothing was named)."""
    now = now or store.clock.now()
    rows = store.query(f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= ? "
                       "ORDER BY k.due_at DESC, k.id DESC LIMIT 1", (to_utc_iso(now),))
    found = _labelled(rows, now, store.clock)
    return found[0] if found else None


def fell_due_latest(store: Store, since: datetime, until: datetime, limit: int = 20) -> tuple[list[Reminder], int]:
    """What fell_due_between finds, but only the latest `limit` (latest first) and how many in all:
    a launch after a long absence names a few and counts the rest, whatever the number."""
    start, end = to_utc_iso(since), to_utc_iso(until)
    total = store.one(f"SELECT count(*) FROM knowledge k WHERE {_FELL_DUE}", (end, start, start, end))[0]
    rows = store.query(f"{SELECT_MEMORY} WHERE {_FELL_DUE} ORDER BY k.due_at DESC, k.id DESC LIMIT ?",
                       (end, start, start, end, limit)) if total else []
    return _labelled(rows, until, store.clock), total


def next_due_after(store: Store, after: datetime) -> datetime | None:
    """The earliest due instant of an open reminder strictly after `after` (for a notification timer)."""
    row = store.one("SELECT min(due_at) FROM knowledge WHERE due_at > ? AND done_at IS NULL", (to_utc_iso(after),))
    return parse_stored(row[0]) if row and row[0] else None


def fell_due_between(store: Store, since: datetime, until: datetime) -> list[Reminder]:
    """Open reminders that fell due in (since, until]: their due instant lies in it, or they were
    written in it already overdue (`remember --due "today at 8am" --allow-past` from the CLI while
    the app runs), so each is announced once."""
    start, end = to_utc_iso(since), to_utc_iso(until)
    rows = store.query(f"{SELECT_MEMORY} WHERE {_FELL_DUE} ORDER BY k.due_at, k.id", (end, start, start, end))
    return _labelled(rows, until, store.clock)


# Fell due in (since, until]: (until, since, since, until).
_FELL_DUE = "k.done_at IS NULL AND k.due_at <= ? AND (k.due_at > ? OR (k.created_at > ? AND k.created_at <= ?))"


def due_unnotified(store: Store, since: datetime, until: datetime, limit: int = 100) -> tuple[list[Reminder], int]:
    """Open reminders whose due instant lies in (since, until] and whose occurrence no process has
    claimed for a desktop notification (see claim_notification): the latest `limit`, latest first,
    and how many there are in all."""
    start, end = to_utc_iso(since), to_utc_iso(until)
    where = ("k.done_at IS NULL AND k.due_at > ? AND k.due_at <= ? AND NOT EXISTS "
             "(SELECT 1 FROM notified n WHERE n.memory_id = k.id AND n.occurrence_at = k.due_at)")
    total = store.one(f"SELECT count(*) FROM knowledge k WHERE {where}", (start, end))[0]
    rows = store.query(f"{SELECT_MEMORY} WHERE {where} ORDER BY k.due_at DESC, k.id DESC LIMIT ?",
                       (start, end, limit)) if total else []
    return _labelled(rows, until, store.clock), total


def claim_notification(store: Store, memory_id: int, occurrence_at: str, by: str) -> bool:
    """Record that `by` raises the desktop notification of this occurrence (the reminder at the due
    instant `occurrence_at`); True only for the one caller that recorded it, whichever process asks.

    Call it before sending. It claims nothing, and returns False, when the reminder is no longer at
    that instant (done, snoozed, forgotten since it was read): its current occurrence is another one.
    """
    with store.transaction():
        cursor = store.execute(
            "INSERT OR IGNORE INTO notified (memory_id, occurrence_at, notified_at, by) SELECT ?, ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM knowledge WHERE id = ? AND due_at = ? AND done_at IS NULL)",
            (memory_id, occurrence_at, store.clock.now_iso(), by, memory_id, occurrence_at))
        return cursor.rowcount == 1


def release_notification(store: Store, memory_id: int, occurrence_at: str, by: str) -> None:
    """Undo `by`'s claim when its notification could not be sent, so another process may send it."""
    with store.transaction():
        store.execute("DELETE FROM notified WHERE memory_id = ? AND occurrence_at = ? AND by = ?",
                      (memory_id, occurrence_at, by))


def _labelled(rows: list[Row], now: datetime, clock: Clock) -> list[Reminder]:
    """Rows as labelled reminders; a row that cannot be read (a date out of range written by an
    older version, a broken rule) is skipped and reported, so one bad row never hides the rest."""
    out = []
    now_iso = to_utc_iso(now)
    for row in rows:
        try:
            memory = Memory.from_row(row)
            out.append(Reminder(memory, *label_for(memory, now, clock, now_iso)))
        except (ValueError, OverflowError, TypeError) as exc:
            log.warning("skipped reminder #%s: it cannot be read (%s)", row["id"], exc)
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


def update_memory(store: Store, memory_id: int, reminded_at: str | datetime | None = None,
                  due_at: str | datetime | None = None, content: str | None = None,
                  done: bool | None = None, importance: int | None = None, allow_past: bool = True,
                  sensitive: bool | None = None) -> Memory:
    """Change a memory: the one update path (every front end's edit, the model's tool). reminded_at
    accepts "now" or a date; done=True marks a reminder done.

    New words are the memory's new text: its earlier text is kept with its own flag (memory_history,
    shown newest first), the index and the queue of texts to embed follow by the table's triggers, and
    sensitivity is decided again (memories.decide_sensitive_again): new words with a secret, or with a
    value of the earlier secret ("HSBC: <the same value>" has no keyword), or `sensitive` (the caller
    knows) mark it; new words without any unmark it.

    A new due_at clears reminded_at (that is what snoozing means). On a repeating reminder a date
    moves only this occurrence and a rule phrase replaces the rule; done completes this occurrence
    and moves the reminder to the next one.
    """
    changes: dict[str, Any] = {}
    if content is not None or importance is not None:
        from memory.new_memory import check_field  # pydantic: only an edit of these pays for it
    if content is not None:
        changes["content"] = check_field("content", content)
        changes["time_refs"] = time_refs_json(store.clock, changes["content"])
    if importance is not None:
        changes["importance"] = check_field("importance", importance)
    if due_at not in (None, ""):
        changes["due_at"], recurrence = resolve_schedule(store.clock, due_at)
        check_not_past(store.clock, changes["due_at"], due_at, allow_past)
        changes["reminded_at"] = None
        if recurrence is not None:
            changes["recurrence"], changes["occurrence_at"] = recurrence, changes["due_at"]
    if reminded_at not in (None, ""):
        if isinstance(reminded_at, str) and reminded_at.strip().lower() == "now":
            changes["reminded_at"] = store.clock.now_iso()
        else:
            changes["reminded_at"] = resolve_when(store.clock, reminded_at)
    if done is not None:
        changes["done_at"] = store.clock.now_iso() if done else None
    if not changes:
        raise InvalidInput("nothing to change: give reminded_at, due_at, content, importance or done")
    with store.transaction():
        current = get_memory(store, memory_id)
        if done is not None and current.due_at is None and "due_at" not in changes:
            raise InvalidInput(f"#{memory_id} is a {current.kind}, not a reminder: it cannot be done")
        if done and current.recurrence and current.done_at is None:
            changes.update(_complete_occurrence(store, current))
        if "content" in changes:
            changes["sensitive"] = int(bool(sensitive) or decide_sensitive_again(
                current.content, current.sensitive, changes["content"], store))
        if "content" in changes and changes["content"] != current.content:
            keep_earlier_text(store, memory_id, current.content, current.sensitive)  # its history, newest first
        changes["updated_at"] = store.clock.now_iso()
        assignments = ", ".join(f"{name} = ?" for name in changes)
        store.execute(f"UPDATE knowledge SET {assignments} WHERE id = ?", (*changes.values(), memory_id))
        return get_memory(store, memory_id)


def _complete_occurrence(store: Store, memory: Memory) -> dict[str, Any]:
    """Record this occurrence as done and move a repeating reminder to its next occurrence.

    The next one is the first after both this occurrence and now, so a reminder done early moves
    to the following occurrence and one done days late does not land in the past again. When the
    series has ended the reminder is done for good.
    """
    occurrence = memory.occurrence_at or memory.due_at
    now = store.clock.now()
    store.execute("INSERT INTO reminder_completions (memory_id, occurrence_at, done_at) VALUES (?, ?, ?)",
                  (memory.id, occurrence, to_utc_iso(now)))
    rule = memory.rule
    following = rule.next_after(max(parse_stored(occurrence), now)) if occurrence and rule else None
    if following is None:
        return {}
    nxt = to_utc_iso(following)
    return {"done_at": None, "due_at": nxt, "occurrence_at": nxt, "reminded_at": None}


def completions(store: Store, memory_id: int) -> list[dict[str, str]]:
    """When each occurrence of a repeating reminder was done, oldest first."""
    rows = store.query("SELECT occurrence_at, done_at FROM reminder_completions WHERE memory_id = ? ORDER BY id",
                       (memory_id,))
    return [{"occurrence_at": r[0], "done_at": r[1]} for r in rows]


def snooze(store: Store, memory_id: int, when: str | datetime, allow_past: bool = False) -> Memory:
    """A new due date for this occurrence; one that has passed is refused unless allowed or a
    conventional time of today (check_not_past), and so is a reminder already done (snoozing it would
    leave a done reminder with a new due date)."""
    with store.transaction():
        current = get_memory(store, memory_id)
        if current.due_at is None:
            raise InvalidInput(f"#{memory_id} is not a reminder; nothing to snooze")
        if current.done_at is not None:
            raise InvalidInput(f"reminder #{memory_id} is already done; nothing to snooze")
        if isinstance(when, str):
            check_not_empty(when)  # update_memory takes "" for "no new date": snoozed to nothing, unsaid
        if isinstance(when, str) and when.strip().lower().startswith(("every ", "each ")):
            raise InvalidInput(f"snooze moves this one occurrence to a time, not to a rule ({when.strip()[:60]!r}); "
                               "to make the reminder repeat, change its due date to the rule")
        return update_memory(store, memory_id, due_at=when, allow_past=allow_past)


def mark_done(store: Store, memory_id: int) -> Memory:
    return update_memory(store, memory_id, done=True)



def due_between(store: Store, start: datetime, end: datetime) -> list[tuple[Reminder, str]]:
    """Open reminders with an occurrence due in [start, end), with that occurrence's instant (UTC ISO), in
    time order: a repeating reminder appears on each of its days in the span, not only on its next one.
    A done reminder is never among them: every agenda (the briefing, the offline day, the MCP agenda)
    lists what is still to do."""
    now = store.clock.now()
    lo, hi = to_utc_iso(start), to_utc_iso(end)
    rows = store.query(f"{SELECT_MEMORY} WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at >= ? "
                       "AND k.due_at < ? ORDER BY k.due_at, k.id LIMIT 500", (lo, hi))
    found = [(r, r.memory.due_at or "") for r in _labelled(rows, now, store.clock)]  # due_at IS NOT NULL
    # Later occurrences of open series that fall due before the span.
    series = store.query(f"{SELECT_MEMORY} WHERE k.recurrence IS NOT NULL AND k.done_at IS NULL AND k.due_at < ? "
                         "ORDER BY k.due_at, k.id LIMIT 500", (lo,))
    for reminder in _labelled(series, now, store.clock):
        rule = reminder.memory.rule
        if rule is None:
            continue
        for _, instant in zip(range(50), rule.instances_after(start - timedelta(seconds=1)), strict=False):
            if instant >= end:
                break
            if instant >= start:
                found.append((reminder, to_utc_iso(instant)))
    found.sort(key=lambda item: (item[1], item[0].memory.id))
    return found


def open_matching(store: Store, words: list[str], limit: int = 200) -> list[Reminder]:
    """Open reminders whose text has any of `words` (the keyword index, so thousands of reminders cost
    no more than a few), soonest first."""
    match = content_match(w.lower() for w in words if re.fullmatch(r"\w+", w))
    if match is None:
        return []
    rows = store.query(f"{SELECT_MEMORY} JOIN search_index s ON k.id = s.rowid / 4 WHERE search_index MATCH ? "
                       "AND s.rowid % 4 = 1 AND k.due_at IS NOT NULL AND k.done_at IS NULL "
                       "ORDER BY k.due_at, k.id LIMIT ?", (match, limit))
    return _labelled(rows, store.clock.now(), store.clock)
