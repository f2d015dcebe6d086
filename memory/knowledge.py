"""Memories (the `knowledge` table): remember, update_memory, forget, and their JSON shape."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memory.clock import parse_iso, parse_stored, to_utc_iso
from memory.dates import parse_due
from memory.errors import InvalidInput, NotFound
from memory.recurrence import Recurrence, parse_schedule
from memory.schema import KINDS, doc_id
from memory.store import Store

MAX_CONTENT = 100_000  # characters; a memory is a note, not a document

FIELDS = ("id", "kind", "content", "importance", "private", "due_at", "reminded_at", "done_at",
          "message_ids", "sequence", "created_at", "updated_at", "relation", "trust", "tension",
          "recurrence", "occurrence_at", "time_refs")


@dataclass
class Memory:
    id: int
    kind: str
    content: str
    importance: int = 3
    private: bool = False
    due_at: str | None = None
    reminded_at: str | None = None
    done_at: str | None = None
    message_ids: list[int] = field(default_factory=list)
    sequence: int = 0
    created_at: str = ""
    updated_at: str = ""
    relation: str | None = None
    trust: int | None = None
    tension: int | None = None
    recurrence: str | None = None  # stored RFC 5545 text; see `rule`
    occurrence_at: str | None = None  # the scheduled instant of this occurrence (due_at moves on snooze)
    time_refs: list[dict[str, str]] = field(default_factory=list)
    tier: str = "hot"

    @classmethod
    def from_row(cls, row: Any) -> Memory:
        data = {name: row[name] for name in FIELDS}
        data["private"] = bool(data["private"])
        data["message_ids"] = json.loads(data["message_ids"] or "[]")
        data["time_refs"] = json.loads(data["time_refs"] or "[]")
        keys = row.keys()
        if "tier" in keys and row["tier"]:
            data["tier"] = row["tier"]
        return cls(**data)

    @property
    def rule(self) -> Recurrence | None:
        return Recurrence.from_text(self.recurrence) if self.recurrence else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["recurrence"] = self.rule.to_json() if self.recurrence else None
        return data


SELECT_MEMORY = ("SELECT k.*, coalesce(m.tier, 'hot') AS tier FROM knowledge k "
                 "LEFT JOIN memory_meta m ON m.memory_id = k.id")


def get_memory(store: Store, memory_id: int) -> Memory:
    row = store.one(f"{SELECT_MEMORY} WHERE k.id = ?", (memory_id,))
    if row is None:
        raise NotFound(f"no memory with id {memory_id}")
    return Memory.from_row(row)


def memories_by_id(store: Store, memory_ids: list[int]) -> list[Memory]:
    """The memories with these ids, in the order given (missing ones are left out)."""
    if not memory_ids:
        return []
    rows = store.query(f"{SELECT_MEMORY} WHERE k.id IN ({','.join('?' * len(memory_ids))})", tuple(memory_ids))
    by_id = {r["id"]: Memory.from_row(r) for r in rows}
    return [by_id[i] for i in memory_ids if i in by_id]


def resolve_when(store: Store, when: str | datetime) -> str:
    """A user's due date (ISO 8601 or natural language) as stored UTC text."""
    if isinstance(when, datetime):
        return to_utc_iso(when)
    return to_utc_iso(parse_due(when, store.clock.now(), store.clock.zone))


def resolve_schedule(store: Store, when: str | datetime) -> tuple[str, str | None]:
    """(first due instant as stored UTC text, stored rule or None) for a date or a rule phrase."""
    if isinstance(when, datetime):
        return to_utc_iso(when), None
    due, rule = parse_schedule(when, store.clock.now(), store.clock.zone)
    return to_utc_iso(due), rule.to_text() if rule else None


def time_refs_json(store: Store, text: str, written_at: str | None = None) -> str | None:
    """Relative dates in `text` resolved against when it was written (now unless given), as stored."""
    from memory.temporal import annotate

    moment = store.clock.local(written_at or store.clock.now())
    refs = annotate(text, moment.replace(tzinfo=None))
    return json.dumps(refs) if refs else None


def check_content(content: str) -> str:
    if not isinstance(content, str):
        raise InvalidInput(f"the memory text must be text, not {type(content).__name__}")
    if not content.strip():
        raise InvalidInput("the memory text is empty")
    if len(content) > MAX_CONTENT:
        raise InvalidInput(f"the memory text is too long ({len(content)} characters, at most {MAX_CONTENT})")
    return content.strip()


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"unknown kind {kind!r} (one of: {', '.join(KINDS)})")
    return kind


def check_importance(importance: Any) -> int:
    if isinstance(importance, bool) or not isinstance(importance, int) or not 1 <= importance <= 5:
        raise InvalidInput(f"importance must be a whole number from 1 to 5, not {importance!r}")
    return importance


def check_scale(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
        raise InvalidInput(f"{name} must be a whole number from 0 to 10, not {value!r}")
    return value


def next_sequence(store: Store) -> int:
    """Chat position * 1000 + order within it, so sequence // 1000 is the message position."""
    position = store.one("SELECT coalesce(max(id), 0) FROM messages")[0]
    last = store.one("SELECT coalesce(max(sequence), 0) FROM knowledge")[0]
    return max(position * 1000, last + 1)


def check_not_past(store: Store, due: str) -> str:
    """A new due date must not have passed (a minute of grace for the time it took to say it)."""
    if parse_stored(due) < store.clock.now() - timedelta(minutes=1):
        raise InvalidInput(f"{store.clock.short(due)} has already passed; give a time in the future")
    return due


def remember(store: Store, content: str, due_at: str | datetime | None = None, kind: str | None = None,
             importance: int = 3, private: bool = False, message_ids: list[int] | None = None,
             relation: str | None = None, trust: int | None = None, tension: int | None = None,
             allow_past: bool = True) -> Memory:
    """Store a memory; with `due_at` it is a reminder (kind defaults to "reminder").

    allow_past=False refuses a due date that has already passed (the model's tool, the UI).
    """
    content = check_content(content)
    kind = check_kind(kind or ("reminder" if due_at else "note"))
    importance = check_importance(importance)
    trust, tension = check_scale("trust", trust), check_scale("tension", tension)
    due, recurrence = resolve_schedule(store, due_at) if due_at not in (None, "") else (None, None)
    if due and not allow_past:
        check_not_past(store, due)
    now = store.clock.now_iso()
    with store.transaction():
        cursor = store.execute(
            "INSERT INTO knowledge (kind, content, importance, private, due_at, message_ids, sequence, "
            "created_at, updated_at, relation, trust, tension, recurrence, occurrence_at, time_refs) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (kind, content, importance, int(bool(private)), due, json.dumps(message_ids or []),
             next_sequence(store), now, now, relation, trust, tension, recurrence, due if recurrence else None,
             time_refs_json(store, content)))
        return get_memory(store, cursor.lastrowid)


def update_memory(store: Store, memory_id: int, reminded_at: str | datetime | None = None,
                  due_at: str | datetime | None = None, content: str | None = None,
                  done: bool | None = None, importance: int | None = None, allow_past: bool = True) -> Memory:
    """Change a memory. reminded_at accepts "now" or a date; done=True marks a reminder done.

    A new due_at clears reminded_at (that is what snoozing means). On a repeating reminder a date
    moves only this occurrence and a rule phrase replaces the rule; done completes this occurrence
    and moves the reminder to the next one.
    """
    changes: dict[str, Any] = {}
    if content is not None:
        changes["content"] = check_content(content)
        changes["time_refs"] = time_refs_json(store, changes["content"])
    if importance is not None:
        changes["importance"] = check_importance(importance)
    if due_at not in (None, ""):
        changes["due_at"], recurrence = resolve_schedule(store, due_at)
        if not allow_past:
            check_not_past(store, changes["due_at"])
        changes["reminded_at"] = None
        if recurrence is not None:
            changes["recurrence"], changes["occurrence_at"] = recurrence, changes["due_at"]
    if reminded_at not in (None, ""):
        if isinstance(reminded_at, str) and reminded_at.strip().lower() == "now":
            changes["reminded_at"] = store.clock.now_iso()
        else:
            changes["reminded_at"] = resolve_when(store, reminded_at)
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
    following = memory.rule.next_after(max(parse_stored(occurrence), now)) if occurrence else None
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
    """A new due date for this occurrence; one that has passed is refused unless allowed, and so is a
    reminder already done (snoozing it would leave a done reminder with a new due date)."""
    with store.transaction():
        current = get_memory(store, memory_id)
        if current.due_at is None:
            raise InvalidInput(f"#{memory_id} is not a reminder; nothing to snooze")
        if current.done_at is not None:
            raise InvalidInput(f"reminder #{memory_id} is already done; nothing to snooze")
        if isinstance(when, str) and when.strip().lower().startswith(("every ", "each ")):
            raise InvalidInput("snooze moves this one occurrence to a time; to make it repeat, use "
                               f"`assistant update {memory_id} --due \"{when.strip()[:60]}\"`")
        return update_memory(store, memory_id, due_at=when, allow_past=allow_past)


def mark_done(store: Store, memory_id: int) -> Memory:
    return update_memory(store, memory_id, done=True)


def restore(store: Store, before: Memory) -> Memory:
    """Put a reminder's state back as it was in `before` (undo of done or snooze)."""
    with store.transaction():
        current = get_memory(store, before.id)
        if current.occurrence_at != before.occurrence_at and before.occurrence_at:
            # Undoing the completion of an occurrence of a series: forget that it was done.
            store.execute("DELETE FROM reminder_completions WHERE id = (SELECT max(id) FROM reminder_completions "
                          "WHERE memory_id = ? AND occurrence_at = ?)", (before.id, before.occurrence_at))
        store.execute("UPDATE knowledge SET due_at = ?, reminded_at = ?, done_at = ?, occurrence_at = ?, "
                      "recurrence = ?, updated_at = ? WHERE id = ?",
                      (before.due_at, before.reminded_at, before.done_at, before.occurrence_at, before.recurrence,
                       store.clock.now_iso(), before.id))
        return get_memory(store, before.id)


FORGOTTEN = "[forgotten]"


def _scrub_sources(store: Store, memory: Memory) -> int:
    """Take a forgotten memory's text out of the messages it came from: the user's "remember that X"
    and the replies of the same turn that repeat X. Otherwise the words would still answer a question
    after "forget". The rest of each message, and the message itself, stay. Returns how many changed."""
    needle = memory.content.strip()
    if not needle:
        return 0
    pattern = re.compile(re.escape(needle), re.I)
    changed = 0
    # The assistant's own messages that quote it ("From memory ...: X") go too, wherever they are:
    # found through the keyword index, then checked word for word.
    words = [w for w in re.findall(r"\w+", needle.lower()) if len(w) > 1][:16]
    if words:
        match = " AND ".join(f'"{w}"' for w in words)
        for row in store.query("SELECT m.id, m.content FROM search_index s JOIN messages m ON m.id * 4 = s.rowid "
                               "WHERE search_index MATCH ? AND m.role = 'assistant'", (f"content:({match})",)):
            scrubbed = pattern.sub(FORGOTTEN, row["content"])
            if scrubbed != row["content"]:
                store.execute("UPDATE messages SET content = ? WHERE id = ?", (scrubbed, row["id"]))
                changed += 1
    for source in memory.message_ids:
        row = store.one("SELECT id, episode_id FROM messages WHERE id = ?", (source,))
        if row is None:
            continue
        # This message and the replies up to the next thing the user said.
        following = store.one("SELECT min(id) FROM messages WHERE episode_id IS ? AND id > ? AND role = 'user'",
                              (row["episode_id"], source))[0]
        rows = store.query("SELECT id, content FROM messages WHERE id >= ? AND id < ? AND (id = ? OR episode_id IS ?)",
                           (source, following or 2**62, source, row["episode_id"]))
        for message in rows:
            scrubbed = pattern.sub(FORGOTTEN, message["content"])
            if scrubbed != message["content"]:
                store.execute("UPDATE messages SET content = ?, time_refs = NULL WHERE id = ?", (scrubbed, message["id"]))
                changed += 1
    return changed


def forget(store: Store, memory_id: int) -> Memory:
    """Delete a memory, its embedding and its index entries in one transaction, and take its text out
    of the messages it was made from (see _scrub_sources)."""
    with store.transaction():
        memory = get_memory(store, memory_id)
        _scrub_sources(store, memory)
        store.execute("DELETE FROM knowledge WHERE id = ?", (memory_id,))
        doc = doc_id("memory", memory_id)
        from memory.embeddings import drop_vectors  # numpy-free, but not needed to read reminders

        drop_vectors(store, [doc])
        store.execute("DELETE FROM stale_embeddings WHERE doc_id = ?", (doc,))
        store.execute("DELETE FROM edges WHERE (source_type = 'memory' AND source_id = ?) "
                      "OR (target_type = 'memory' AND target_id = ?)", (memory_id, memory_id))
    return memory


def count_memories(store: Store) -> int:
    return store.one("SELECT count(*) FROM knowledge")[0]


def parse_instant_field(name: str, value: Any, store: Store) -> str | None:
    """Validate an optional ISO 8601 instant from a record; returns stored UTC text."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be an ISO 8601 string")
    try:
        return to_utc_iso(parse_iso(value, store.clock.zone))
    except InvalidInput as exc:
        raise InvalidInput(f"{name}: {exc}") from exc


def most_important(store: Store, limit: int, tier: str = "hot") -> list[int]:
    """Ids of the most important memories of a tier (not reminders, people or moods), newest first
    among equals: the ones a prompt shows whatever the question."""
    rows = store.query("SELECT k.id FROM knowledge k LEFT JOIN memory_meta m ON m.memory_id = k.id "
                       "WHERE k.due_at IS NULL AND k.kind NOT IN ('mood', 'person') AND coalesce(m.tier, 'hot') = ? "
                       "ORDER BY k.importance DESC, k.id DESC LIMIT ?", (tier, limit))
    return [r[0] for r in rows]


def people(store: Store) -> list[Memory]:
    """Every memory of kind person."""
    return [Memory.from_row(r) for r in store.query(f"{SELECT_MEMORY} WHERE k.kind = 'person' ORDER BY k.id")]


def latest_mood(store: Store) -> Memory | None:
    """The user's most recent mood."""
    row = store.one(f"{SELECT_MEMORY} WHERE k.kind = 'mood' ORDER BY k.sequence DESC, k.id DESC LIMIT 1")
    return Memory.from_row(row) if row else None


def created_since(store: Store, since: str | None, limit: int | None = None, reminders: bool = True) -> list[Memory]:
    """Memories created at or after `since` (UTC ISO; None: all), newest first."""
    clauses, params = ["1"], []
    if since is not None:
        clauses.append("k.created_at >= ?")
        params.append(since)
    if not reminders:
        clauses.append("k.due_at IS NULL")
    sql = f"{SELECT_MEMORY} WHERE {' AND '.join(clauses)} ORDER BY k.created_at DESC, k.id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [Memory.from_row(r) for r in store.query(sql, tuple(params))]


def count_created_since(store: Store, since: str | None) -> int:
    if since is None:
        return count_memories(store)
    return store.one("SELECT count(*) FROM knowledge WHERE created_at >= ?", (since,))[0]


def private_memories(store: Store) -> list[Memory]:
    """Every memory marked private (the few that must never reach a model unasked)."""
    return [Memory.from_row(r) for r in store.query(f"{SELECT_MEMORY} WHERE k.private = 1 ORDER BY k.id")]
