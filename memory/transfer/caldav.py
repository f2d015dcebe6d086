"""Reminders kept in step with a CalDAV calendar (SPEC F15): what the store knows of the calendar, and what a
sync decides. The network is assistant/caldav's: this module never speaks to a server; it is given what the
server reported and says what to send.

A sync is a three-way merge per reminder, on three fields (its text as it left, its due instant, done), of
what both sides agreed on at the last sync (`caldav_items.base`), the reminder now, and the to-do now:
- a field changed on one side only takes that side's value;
- changed on both sides to different values: the newer change wins (the to-do's LAST-MODIFIED against the
  reminder's updated_at), the other is kept in the reminder's history (an earlier text; a due time or a
  done in `caldav_conflicts`), and a front end says so once;
- then the reminder is sent when it differs from what the server holds.
From the server: done -> done (a repeating one moves to its next occurrence, sent back), DUE -> moved (to
the series' next occurrence -> this one done), SUMMARY -> renamed (a masked secret put back: a masked
SUMMARY coming back is no rename), a new to-do with a date -> a new reminder, deleted -> cancelled
(undoable like any cancel; kept and sent again when it changed here since). The server's rule is not read
back: a rule changed there is replaced by ours at the next change here.

What leaves: reminders that are not private, through the exits' one rule (memory.transfer.exits: secrets
masked, other words kept). A reminder forgotten here, made private, or no longer due is removed there.

Never a duplicate: a reminder's to-do has one href, made from its UID (no server choice), created with
If-None-Match: * and changed with If-Match; a to-do met again with no row (a crash between sending and
recording) is matched by its UID and adopted; the server's changes and the new sync token are recorded in
one transaction.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlsplit

from memory import changes, reminders
from memory.errors import ImportFailed, InvalidInput, NotFound
from memory.memories import SELECT_MEMORY, Memory, get_memory, insert_memory, keep_earlier_text
from memory.store import Store
from memory.time.instants import parse_stored, to_utc_iso
from memory.transfer.exits import Exit
from memory.transfer.ical.export import calendar_uid
from memory.transfer.ical.todo import FIELDS, Remote, Shape, changed, local_shape, read_todo, todo_calendar

ACCOUNT_KEY = "caldav_account"  # the server, user and calendar name the rows below belong to
CALENDAR_KEY = "caldav_calendar_url"
TOKEN_KEY = "caldav_sync_token"
LAST_KEY = "caldav_last_sync"  # JSON: when the last sync ended, and how (the status line of every front end)


def href_of(url: str) -> str:
    """The key of a to-do: its URL's path, unquoted ("/user/calendar/x.ics")."""
    return unquote(urlsplit(str(url)).path)


def object_name(uid: str) -> str:
    """The file name of a reminder's to-do in the calendar, made from its UID alone (so two processes, or a
    rerun after a crash, always write the same one): "<store uid>-memory-12.ics"."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", uid)
    if safe != uid.replace("/", "-") or len(safe) > 120:
        import hashlib

        safe = f"{safe[:80]}-{hashlib.sha256(uid.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return f"{safe}.ics"


# -- the calendar the rows belong to ----------------------------------------------------------------------

def use_account(store: Store, account: str) -> tuple[str | None, str | None]:
    """(calendar URL, sync token) known for `account` (the server, user and calendar name). Another account
    than the last one starts over: its rows, calendar and token are forgotten (the reminders stay)."""
    with store.transaction():
        if store.get_meta(ACCOUNT_KEY) != account:
            forget_calendar(store)
            store.set_meta(ACCOUNT_KEY, account)
        return store.get_meta(CALENDAR_KEY), store.get_meta(TOKEN_KEY)


def forget_calendar(store: Store) -> None:
    """Start over with the calendar (another account, or the calendar is gone from the server)."""
    with store.transaction():
        store.execute("DELETE FROM caldav_items")
        store.execute("DELETE FROM meta WHERE key IN (?, ?)", (CALENDAR_KEY, TOKEN_KEY))


def use_calendar(store: Store, url: str) -> None:
    with store.transaction():
        if store.get_meta(CALENDAR_KEY) not in (None, url):
            forget_calendar(store)
        store.set_meta(CALENDAR_KEY, url)


def known_etags(store: Store) -> dict[str, str | None]:
    """{href: ETag} of every to-do a sync has recorded: a reported to-do with the same ETag is not fetched."""
    return {r[0]: r[1] for r in store.query("SELECT href, etag FROM caldav_items")}


# -- what the server reported -------------------------------------------------------------------------------

@dataclass
class Found:
    """A to-do the server reported new or changed, fetched."""

    href: str
    etag: str | None
    data: str


@dataclass
class Conflict:
    memory_id: int
    field: str  # text | due | done | deleted
    winner: str  # here | server
    lost: str | None = None  # the value that lost (an instant, "done"/"open"); a lost text is in the history

    def describe(self) -> str:
        if self.field == "deleted":
            return (f"#{self.memory_id} was deleted on the server but changed here since the last sync: kept, "
                    "and sent again")
        what = {"text": "renamed", "due": "moved", "done": "marked done or reopened"}.get(self.field, "changed")
        where = "on the server" if self.winner == "server" else "here"
        kept = "its earlier text is in its history" if self.field == "text" else f"the other was {self.lost}"
        return f"#{self.memory_id} was {what} here and on the server: the newer change ({where}) was kept; {kept}"


@dataclass
class Outcome:
    """What a sync did on this side, and what it could not read."""

    created: list[int] = field(default_factory=list)  # reminders made from new to-dos
    changed: list[tuple[int, str]] = field(default_factory=list)  # (reminder, "done" | "moved" | "renamed" ...)
    cancelled: list[int] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # hrefs of objects that are not a readable calendar

    def to_json(self) -> dict[str, Any]:
        return {"created_here": self.created, "changed_here": [{"id": i, "change": c} for i, c in self.changed],
                "cancelled_here": self.cancelled, "unreadable": len(self.unreadable),
                "conflicts": [c.describe() for c in self.conflicts]}


Cancel = Callable[[int], object]  # forgets a reminder the way every front end cancels one, recorded for undo


def _row(store: Store, href: str) -> Any:
    return store.one("SELECT * FROM caldav_items WHERE href = ?", (href,))


def _memory(store: Store, memory_id: int | None) -> Memory | None:
    if memory_id is None:
        return None
    try:
        return get_memory(store, memory_id)
    except NotFound:
        return None


def _own_memory(store: Store, uid: str) -> int | None:
    """The reminder a to-do's UID names: one of ours ("<store uid>/memory/<id>"), or one made from it."""
    row = store.one("SELECT id FROM knowledge WHERE uid = ?", (uid,))
    if row is not None:
        return int(row[0])
    match = re.fullmatch(re.escape(store.store_uid()) + r"/memory/(\d+)", uid)
    if match and store.one("SELECT 1 FROM knowledge WHERE id = ? AND uid IS NULL", (int(match.group(1)),)):
        return int(match.group(1))
    return None


def take_remote(store: Store, found: list[Found], deleted: list[str], token: str | None, exit_: Exit,
                cancel: Cancel) -> Outcome:
    """Apply what the server reported (changed or new to-dos, fetched; hrefs deleted there) to the reminders,
    and record the new sync token, in one transaction."""
    outcome = Outcome()
    zone = store.clock.zone
    with store.transaction():
        for item in found:
            try:
                remote = read_todo(item.data, zone)
            except (ImportFailed, ValueError, OverflowError, RecursionError, KeyError, TypeError, AttributeError):
                outcome.unreadable.append(item.href)  # left alone there, said in the result
                continue
            if remote is None:  # an event or a journal in the calendar: not ours to read
                continue
            _take_one(store, item, remote, exit_, cancel, outcome)
        for href in deleted:
            _take_deleted(store, href, exit_, cancel, outcome)
        if token is not None:
            store.set_meta(TOKEN_KEY, token)
    return outcome


def _record(store: Store, href: str, uid: str, memory_id: int | None, etag: str | None, base: dict[str, Any]) -> None:
    """What both sides hold now, as the server has it; the reminder is compared again before anything is sent."""
    store.execute("INSERT INTO caldav_items (href, uid, memory_id, etag, base, compared, synced_at) "
                  "VALUES (?, ?, ?, ?, ?, NULL, ?) ON CONFLICT(href) DO UPDATE SET uid = excluded.uid, "
                  "memory_id = excluded.memory_id, etag = excluded.etag, base = excluded.base, compared = NULL, "
                  "synced_at = excluded.synced_at",
                  (href, uid, memory_id, etag, json.dumps(base), store.clock.now_iso()))


def _take_one(store: Store, item: Found, remote: Remote, exit_: Exit, cancel: Cancel, outcome: Outcome) -> None:
    row = _row(store, item.href)
    if row is None:
        memory_id = _own_memory(store, remote.uid) if remote.uid else None
        if memory_id is not None:
            # Ours, with no row: sent before a crash, or by another process. Adopted as the server has it;
            # what differs here is sent by this sync.
            store.execute("DELETE FROM caldav_items WHERE memory_id = ?", (memory_id,))
            base = remote.shape.stored() if remote.shape else {}
            memory = _memory(store, memory_id)
            base["rule"] = memory.recurrence if memory else None
            _record(store, item.href, remote.uid, memory_id, item.etag, base)
            return
        if remote.shape is None or remote.shape.done or remote.cancelled or not remote.uid:
            return  # no date, done or cancelled: not a reminder to make here (it comes when that changes)
        made = _make(store, remote)
        if made is None:
            outcome.unreadable.append(item.href)
            return
        memory = get_memory(store, made)
        _record(store, item.href, remote.uid, made, item.etag, {**remote.shape.stored(), "rule": memory.recurrence})
        outcome.created.append(made)
        return
    base = json.loads(row["base"])
    memory = _memory(store, row["memory_id"])
    if memory is None or memory.private or memory.due_at is None or remote.shape is None:
        # Forgotten or made private here (removed there by this sync), or no longer dated there.
        store.execute("UPDATE caldav_items SET etag = ? WHERE href = ?", (item.etag, item.href))
        return
    if remote.cancelled:
        store.execute("UPDATE caldav_items SET etag = ? WHERE href = ?", (item.etag, item.href))
        _take_deleted(store, item.href, exit_, cancel, outcome, cancelled_there=True)
        return
    local = local_shape(memory, exit_.text(memory.content, memory.sensitive))
    take, conflicts = merge(local, base, remote.shape, memory.updated_at, remote.modified)
    for conflict in conflicts:
        conflict.memory_id = memory.id
        _keep_lost(store, memory, conflict, remote.shape)
        outcome.conflicts.append(conflict)
    if take:
        done = _apply(store, memory, take, remote.shape, exit_)
        if done:
            outcome.changed.append((memory.id, done))
    new_base = {**remote.shape.stored(), "rule": base.get("rule")}
    _record(store, item.href, row["uid"], memory.id, item.etag, new_base)


def _make(store: Store, remote: Remote) -> int | None:
    """A new reminder from a to-do made on the server (not private: it lives on the server already)."""
    from memory.new_memory import NewMemory

    text, due, rule = remote.new_reminder()
    try:
        return insert_memory(store, NewMemory(text, kind="reminder", due_at=due, recurrence=rule,
                                              occurrence_at=due if rule else None, uid=remote.uid,
                                              source="imported"))
    except InvalidInput:
        return None


def merge(local: Shape, base: dict[str, Any], remote: Shape, local_time: str,
          remote_time: datetime | None) -> tuple[set[str], list[Conflict]]:
    """The fields to take from the server, and the conflicts (the same field changed on both sides, to
    different values): the newer change wins; a server change without a time loses (nothing here is lost)."""
    here, there = changed(local, base), changed(remote, base)
    take = there - here
    conflicts = []
    local_values, remote_values = local.stored(), remote.stored()
    for name in sorted(here & there):
        if local_values[name] == remote_values[name]:
            continue  # the same change on both sides
        server_newer = remote_time is not None and remote_time > parse_stored(local_time)
        if server_newer:
            take.add(name)
            conflicts.append(Conflict(0, name, "server", _shown(name, local)))
        else:
            conflicts.append(Conflict(0, name, "here", _shown(name, remote)))
    return take, conflicts


def _shown(name: str, shape: Shape) -> str | None:
    if name == "due":
        return shape.due
    if name == "done":
        return "done" if shape.done else "open"
    return None  # a text lives in the reminder's history


def _keep_lost(store: Store, memory: Memory, conflict: Conflict, remote: Shape) -> None:
    """Keep what lost a conflict: a text from the server in the reminder's history (its own text, when the
    server's wins, goes there by the one update path); every conflict in caldav_conflicts, to be said once."""
    if conflict.field == "text" and conflict.winner == "here":
        keep_earlier_text(store, memory.id, remote.text, False)
    store.execute("INSERT INTO caldav_conflicts (memory_id, field, winner, lost, at) VALUES (?, ?, ?, ?, ?)",
                  (memory.id, conflict.field, conflict.winner, conflict.lost, store.clock.now_iso()))


def _apply(store: Store, memory: Memory, take: set[str], remote: Shape, exit_: Exit) -> str:
    """Make the server's changes to a reminder through the one update path, recorded for undo; returns what
    was done ("renamed", "moved", "done", "reopened", joined by " and ")."""
    done: list[str] = []
    action = "edit" if len(take) > 1 else {"text": "rename", "due": "move", "done": "done"}[next(iter(take))]
    with changes.recorded(store, memory.id, action):
        if "text" in take:
            content = exit_.restore(remote.text, memory.content, memory.sensitive)
            try:
                reminders.update_memory(store, memory.id, content=content)
                done.append("renamed")
            except InvalidInput:
                pass  # emptied there: the text here stays, and is sent back
        if "due" in take and remote.due is not None:
            current = get_memory(store, memory.id)
            rule = current.rule
            occurrence = current.occurrence_at or current.due_at
            following = rule.next_after(parse_stored(occurrence)) if rule and occurrence else None
            try:
                if following is not None and remote.due == to_utc_iso(following) and current.done_at is None:
                    reminders.update_memory(store, memory.id, done=True)  # a task app moved the series on
                    done.append("done")
                else:
                    reminders.update_memory(store, memory.id, due_at=remote.due)
                    done.append("moved")
            except InvalidInput:
                pass  # a time the store cannot keep: the one here stays, and is sent back
        if "done" in take and "done" not in done:
            current = get_memory(store, memory.id)
            if remote.done and current.done_at is None:
                reminders.update_memory(store, memory.id, done=True)
                done.append("done")
            elif not remote.done and current.done_at is not None and current.recurrence is None:
                reminders.update_memory(store, memory.id, done=False)
                done.append("reopened")
    return " and ".join(done)


def _take_deleted(store: Store, href: str, exit_: Exit, cancel: Cancel, outcome: Outcome,
                  cancelled_there: bool = False) -> None:
    """A to-do deleted (or cancelled) on the server: its reminder is cancelled here, unless it changed here
    since the last sync (then it is kept and sent again, and that is said once)."""
    row = _row(store, href)
    if row is None:
        return
    memory = _memory(store, row["memory_id"])
    if memory is not None and not memory.private and memory.due_at is not None:
        local = local_shape(memory, exit_.text(memory.content, memory.sensitive))
        if changed(local, json.loads(row["base"]), (*FIELDS, "rule")):
            outcome.conflicts.append(Conflict(memory.id, "deleted", "here"))
            store.execute("INSERT INTO caldav_conflicts (memory_id, field, winner, lost, at) VALUES (?, ?, ?, ?, ?)",
                          (memory.id, "deleted", "here", None, store.clock.now_iso()))
            if cancelled_there:  # still there, cancelled: written over with the reminder as it is here
                store.execute("UPDATE caldav_items SET base = '{}', compared = NULL WHERE href = ?", (href,))
            else:  # gone: made again as a new to-do
                store.execute("DELETE FROM caldav_items WHERE href = ?", (href,))
            return
        if memory.done_at is None:
            cancel(memory.id)
            outcome.cancelled.append(memory.id)
    store.execute("DELETE FROM caldav_items WHERE href = ?", (href,))


# -- what to send -------------------------------------------------------------------------------------------

@dataclass
class Push:
    """A reminder's to-do to write: new (etag None: If-None-Match: *) or changed (If-Match: etag)."""

    memory_id: int
    uid: str
    href: str
    etag: str | None
    new: bool
    body: str
    base: dict[str, Any]
    version: int  # of the reminder's row (caldav_items.version) when it was read; -1: it had none
    read: tuple[Any, ...]  # what of the reminder a to-do says, as read: a change since is sent next time


@dataclass
class Removal:
    href: str
    why: str  # forgotten | private | undated


_SAID = "content, due_at, done_at, private, recurrence, sensitive"  # what a to-do says of a reminder


def local_changes(store: Store, calendar_path: str, exit_: Exit) -> tuple[list[Push], list[Removal]]:
    """What to send: open reminders not yet on the server (not private), reminders changed here since they
    were last compared, and to-dos to remove (their reminder forgotten, made private or no longer due).
    Reads only those: a sync with nothing changed here reads no reminder."""
    pushes: list[Push] = []
    removals: list[Removal] = []
    now = store.clock.now()
    rows = store.query(
        f"{SELECT_MEMORY} LEFT JOIN caldav_items c ON c.memory_id = k.id WHERE k.due_at IS NOT NULL "
        "AND k.done_at IS NULL AND k.private = 0 AND c.href IS NULL ORDER BY k.due_at, k.id")
    folder = calendar_path if calendar_path.endswith("/") else calendar_path + "/"
    for row in rows:
        memory = Memory.from_row(row)
        uid = calendar_uid(store, memory.id, row["uid"])
        href = folder + object_name(uid)
        taken = _row(store, href)
        if taken is not None and taken["memory_id"] != memory.id and _memory(store, taken["memory_id"]):
            continue  # another reminder's to-do (a UID given twice): never written over
        push = _push(memory, uid, href, taken["etag"] if taken else None, exit_, now, -1)
        push.new = taken is None
        pushes.append(push)
    stale = store.query(
        "SELECT c.href, c.uid, c.etag, c.base, c.version, k.id AS present, k.private, k.due_at "
        "FROM caldav_items c LEFT JOIN knowledge k ON k.id = c.memory_id WHERE c.compared IS NOT c.version")
    for row in stale:
        if row["present"] is None:
            removals.append(Removal(row["href"], "forgotten"))
            continue
        if row["private"]:
            removals.append(Removal(row["href"], "private"))
            continue
        if row["due_at"] is None:
            removals.append(Removal(row["href"], "undated"))
            continue
        memory = get_memory(store, row["present"])
        base = json.loads(row["base"])
        shape = local_shape(memory, exit_.text(memory.content, memory.sensitive))
        if not base or changed(shape, base, (*FIELDS, "rule")):
            pushes.append(_push(memory, row["uid"], row["href"], row["etag"], exit_, now, row["version"]))
        else:
            store.execute("UPDATE caldav_items SET compared = ? WHERE href = ?", (row["version"], row["href"]))
    return pushes, removals


def _said(store: Store, memory_id: int) -> tuple[Any, ...]:
    row = store.one(f"SELECT {_SAID} FROM knowledge WHERE id = ?", (memory_id,))
    return tuple(row) if row is not None else ()


def _push(memory: Memory, uid: str, href: str, etag: str | None, exit_: Exit, now: datetime, version: int) -> Push:
    text = exit_.text(memory.content, memory.sensitive)
    shape = local_shape(memory, text)
    read = (memory.content, memory.due_at, memory.done_at, int(memory.private), memory.recurrence,
            int(memory.sensitive))
    return Push(memory.id, uid, href, etag, False, todo_calendar(memory, uid, text, now), shape.stored(), version,
                read)


def pending(store: Store) -> int:
    """How many reminders a sync would look at here (new, changed since compared, or to remove): what a front
    end watches to sync soon after a change. Counted in the indexes, whatever the number of reminders."""
    new = store.one("SELECT count(*) FROM knowledge k LEFT JOIN caldav_items c ON c.memory_id = k.id "
                    "WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.private = 0 AND c.href IS NULL")[0]
    stale = store.one("SELECT count(*) FROM caldav_items WHERE compared IS NOT version")[0]
    return int(new) + int(stale)


def sent(store: Store, push: Push, etag: str | None) -> None:
    """Record a to-do written: what both sides hold now, and its ETag (None when the server gave none: the
    next sync reads it back once). A reminder changed since it was read is compared again at the next sync."""
    with store.transaction():
        store.execute("DELETE FROM caldav_items WHERE memory_id = ? AND href != ?", (push.memory_id, push.href))
        store.execute("INSERT INTO caldav_items (href, uid, memory_id, etag, base, version, compared, synced_at) "
                      "VALUES (?, ?, ?, ?, ?, 0, NULL, ?) ON CONFLICT(href) DO UPDATE SET uid = excluded.uid, "
                      "memory_id = excluded.memory_id, etag = excluded.etag, base = excluded.base, "
                      "synced_at = excluded.synced_at",
                      (push.href, push.uid, push.memory_id, etag, json.dumps(push.base), store.clock.now_iso()))
        version = store.one("SELECT version FROM caldav_items WHERE href = ?", (push.href,))[0]
        unchanged = (push.version in (-1, version)) and _said(store, push.memory_id) == push.read
        store.execute("UPDATE caldav_items SET compared = ? WHERE href = ?", (version if unchanged else None,
                                                                              push.href))


def removed(store: Store, href: str) -> None:
    with store.transaction():
        store.execute("DELETE FROM caldav_items WHERE href = ?", (href,))


# -- what a front end says ----------------------------------------------------------------------------------

def record_last(store: Store, result: dict[str, Any]) -> None:
    """How the last sync ended (any process's): {"at", "ok", "error", ...counts}."""
    store.set_meta(LAST_KEY, json.dumps(result))


def last_sync(store: Store) -> dict[str, Any] | None:
    text = store.get_meta(LAST_KEY)
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def unsaid_conflicts(store: Store) -> list[Conflict]:
    """Conflicts no front end has said yet, oldest first."""
    return [Conflict(r[1], r[2], r[3], r[4]) for r in store.query(
        "SELECT id, memory_id, field, winner, lost FROM caldav_conflicts WHERE said = 0 ORDER BY id")]


def mark_said(store: Store) -> None:
    with store.transaction():
        store.execute("UPDATE caldav_conflicts SET said = 1 WHERE said = 0")
