"""Memories (the `knowledge` table): remember, update_memory, forget, and their JSON shape."""
from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from memory import secrets
from memory.docs import doc_id
from memory.episodes import episode_messages, get_episode, heuristic_title_and_summary
from memory.errors import EmbedderUnavailable, InvalidInput, NotFound
from memory.fts import content_match
from memory.store import Store
from memory.time.instants import parse_iso, to_utc_iso
from memory.time.references import time_refs_json
from memory.time.rules import Recurrence
from memory.time.schedule import check_not_past, resolve_schedule

if TYPE_CHECKING:
    from memory.new_memory import NewMemory
    from memory.schema import Kind
    from memory.search.embeddings import Embedder

FIELDS = ("id", "kind", "content", "importance", "private", "due_at", "reminded_at", "done_at",
          "message_ids", "sequence", "created_at", "updated_at", "relation", "trust", "tension",
          "recurrence", "occurrence_at", "time_refs", "sensitive", "source", "pinned")


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
    sensitive: bool = False  # holds a secret (decided when written): it leaves only as "[secret in memory #N]"
    source: str = "typed"  # typed | imported | mcp:<client> (schema 9)
    pinned: bool = False  # never archived, never outranked by its own echoes
    tier: str = "hot"

    @classmethod
    def from_row(cls, row: Any) -> Memory:
        data = {name: row[name] for name in FIELDS}
        data["private"] = bool(data["private"])
        data["sensitive"] = bool(data["sensitive"])
        data["pinned"] = bool(data["pinned"])
        # Most rows hold none: a list of thousands of reminders skips the JSON parser for them.
        data["message_ids"] = json.loads(data["message_ids"]) if data["message_ids"] not in (None, "", "[]") else []
        data["time_refs"] = json.loads(data["time_refs"]) if data["time_refs"] not in (None, "", "[]") else []
        keys = row.keys()
        if "tier" in keys and row["tier"]:
            data["tier"] = row["tier"]
        return cls(**data)

    @property
    def rule(self) -> Recurrence | None:
        return Recurrence.from_text(self.recurrence) if self.recurrence else None

    def to_json(self) -> dict[str, Any]:
        # What dataclasses.asdict gives, without its deep copy of every field (thousands per `reminders --json`).
        data = {name: getattr(self, name) for name in _JSON_FIELDS}
        data["message_ids"] = list(self.message_ids)
        data["time_refs"] = [dict(ref) for ref in self.time_refs]
        rule = self.rule
        data["recurrence"] = rule.to_json() if rule else None
        return data


_JSON_FIELDS = tuple(f.name for f in fields(Memory))

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


def next_sequence(store: Store) -> int:
    """Chat position * 1000 + order within it, so sequence // 1000 is the message position."""
    position = store.number("SELECT coalesce(max(id), 0) FROM messages")
    last = store.number("SELECT coalesce(max(sequence), 0) FROM knowledge")
    return max(position * 1000, last + 1)


def detect_sensitive(text: str, store: Store | None = None) -> bool:
    """Whether a memory's text holds a secret: the one detector (imported when first needed), or, with the
    store, a secret value a sensitive memory holds said again ("it's now 7719": memory.secrets). The
    classifier's verdict comes with the text's embedding (memory.secrets.judge)."""
    from memory.sensitive import is_sensitive

    if is_sensitive(text):
        return True
    return store is not None and secrets.restates_a_secret(store, text)


def decide_sensitive_again(earlier: str, was_sensitive: bool, text: str, store: Store | None = None) -> bool:
    """Whether a memory's new words `text` hold a secret (SPEC F12: decided again when its text changes).

    They do when the detector finds one in them, or when they keep a value of the secret its earlier
    words held, judged as the gate's last step judges a piece of one ("Bank login: Qx7-hunter22" edited
    to "HSBC online: Qx7-hunter22" has no keyword left: a model must not launder a secret through an
    edit). A secret removed unmarks the memory; when the detector cannot say what the earlier secret
    was (its writer marked it), the mark stays, as nothing tells that the secret is gone."""
    from memory.sensitive import find_secrets, withhold_fragments

    if detect_sensitive(text, store):
        return True
    if not was_sensitive:
        return False
    values = [span.value(earlier) for span in find_secrets(earlier)]
    return not values or withhold_fragments(text, values) != text


def insert_memory(store: Store, new: NewMemory) -> int:
    """Store one memory (checked when it was made); returns its id. Call inside a transaction when it is one
    of many."""
    created = new.created_at or store.clock.now_iso()
    sequence = new.sequence if new.sequence is not None else next_sequence(store)
    refs = json.dumps(new.time_refs) if new.time_refs else time_refs_json(store.clock, new.content, created)
    values: dict[str, Any] = {
        "kind": new.kind or ("reminder" if new.due_at else "note"), "content": new.content,
        "importance": new.importance, "private": int(new.private), "due_at": new.due_at,
        "reminded_at": new.reminded_at, "done_at": new.done_at, "message_ids": json.dumps(new.message_ids),
        "sequence": sequence, "created_at": created, "updated_at": new.updated_at or created,
        "relation": new.relation, "trust": new.trust, "tension": new.tension, "recurrence": new.recurrence,
        "occurrence_at": (new.occurrence_at or new.due_at) if new.recurrence else None, "time_refs": refs,
        "uid": new.uid, "sensitive": int(bool(new.sensitive) or detect_sensitive(new.content, store)),
        "source": new.source, "pinned": int(new.pinned)}
    if new.id is not None and store.one("SELECT 1 FROM knowledge WHERE id = ?", (new.id,)) is None:
        values["id"] = new.id
    with store.transaction():
        return store.insert("knowledge", values)


def remember(store: Store, content: str, due_at: str | datetime | None = None, kind: str | None = None,
             importance: int = 3, private: bool = False, message_ids: list[int] | None = None,
             relation: str | None = None, trust: int | None = None, tension: int | None = None,
             allow_past: bool = True, sensitive: bool | None = None, source: str = "typed",
             embedder: Embedder | Literal["bundled"] | None = "bundled") -> Memory:
    """Store a memory; with `due_at` (ISO 8601, a phrase or a rule) it is a reminder (kind defaults
    to "reminder"). `sensitive`: True when the caller knows the text holds a secret; otherwise the
    detector decides. `source`: who wrote it ("typed", or "mcp:<client>" for another AI tool).

    A statement that gives a current memory's subject a new value replaces it now (memory.replacing),
    and inherits its marks (secret, private, pinned). `embedder` finds it by meaning: the app passes its
    own (None when embeddings are off: the rules alone decide); by default the bundled model.

    allow_past=False refuses a due date that has already passed (the model's tool, the UI), except a
    conventional time of today ("tonight" said at 22:50), which is due at once: see check_not_past.
    """
    from memory.new_memory import NewMemory, check_field  # pydantic: imported by writers only

    content = check_field("content", content)
    if not content.strip(string.punctuation + string.whitespace):
        # "!!!", "((((" typed: nothing a search could find it by (an import keeps what a backup holds)
        raise InvalidInput("the memory text has no words, only signs")
    # Before the date: a wrong kind is named even when the date is wrong too.
    checked_kind: Kind | None = check_field("kind", kind) if kind is not None else None
    due, recurrence = resolve_schedule(store.clock, due_at) if due_at not in (None, "") else (None, None)
    if due:
        check_not_past(store.clock, due, due_at, allow_past)
    statement = due is None and (checked_kind or "note") not in ("reminder", "mood")
    if statement and embedder == "bundled":
        from memory.search.embeddings import bundled_embedder

        embedder = bundled_embedder()
    # What needs the model is done before the write lock is taken: its first use loads it (0.2 s, more on a busy
    # machine), and fifteen writers at once each holding the lock that long ran out of the busy timeout (an
    # attacker's "database is locked"). What a statement replaces is read first too, and read again under the lock
    # only if another writer changed the store meanwhile (the model loaded by then: milliseconds).
    from memory.replacing import replaced_memory

    flagged = sensitive is None and _flagged_by_meaning(content, embedder)
    model = None if embedder == "bundled" else embedder
    version = store.data_version()
    replaced = replaced_memory(store, content, model) if statement else None
    with store.transaction():
        # A statement (never a reminder or a mood) replaces now, not at the next consolidation.
        if statement and store.data_version() != version:
            replaced = replaced_memory(store, content, model)
        if sensitive is None and not (replaced and replaced.sensitive) and flagged:
            sensitive = True  # decided as it is written, not when its vector is stored: nothing of it leaves before
        memory_id = insert_memory(store, NewMemory(
            content, kind=checked_kind, importance=importance, private=private or bool(replaced and replaced.private),
            due_at=due, message_ids=message_ids or [], relation=relation, trust=trust, tension=tension,
            recurrence=recurrence, sensitive=True if replaced and replaced.sensitive else sensitive, source=source,
            pinned=bool(replaced and replaced.pinned)))
        if replaced is not None:
            from memory.replacing import link

            link(store, memory_id, replaced)
        return get_memory(store, memory_id)


def _flagged_by_meaning(content: str, embedder: Embedder | Literal["bundled"] | None) -> bool:
    """The classifier's verdict on a text the rules find nothing in but that holds a word a secret hangs on
    and a value's shape (memory.secrets.judge gives it again when the vector is stored): an attacker's "boat shed:
    kiwiBird55kiwi" went out whole in a chat turn before its embedding was computed."""
    from memory import secrets
    from memory.sensitive import meaning, needs_opinion

    if embedder is None or not needs_opinion(content):
        return False
    if embedder == "bundled":
        from memory.search.embeddings import bundled_embedder

        embedder = bundled_embedder()
    if not secrets.usable(embedder):
        return False
    try:
        return bool(meaning.flags(embedder.embed([content])[0]))
    except EmbedderUnavailable:
        return False


def keep_earlier_text(store: Store, memory_id: int, content: str, sensitive: bool) -> None:
    """A memory's text as it was before a change of its words, kept (newest last in the table, shown
    newest first): called by the one update path (memory.reminders.update_memory) in its transaction."""
    store.execute("INSERT INTO memory_history (memory_id, content, sensitive, replaced_at) VALUES (?, ?, ?, ?)",
                  (memory_id, content, int(sensitive), store.clock.now_iso()))


@dataclass
class EarlierText:
    content: str
    sensitive: bool
    replaced_at: str  # when a newer text replaced it (UTC)


def edited_since(store: Store, memory_ids: list[int], instant: str) -> set[int]:
    """Those of `memory_ids` whose text was changed after `instant` (stored UTC text)."""
    if not memory_ids:
        return set()
    marks = ",".join("?" * len(memory_ids))
    return {r[0] for r in store.query(f"SELECT DISTINCT memory_id FROM memory_history WHERE replaced_at > ? "
                                      f"AND memory_id IN ({marks})", (instant, *memory_ids))}


def earlier_texts(store: Store, memory_id: int, limit: int = 50) -> list[EarlierText]:
    """What a memory said before, newest first."""
    rows = store.query("SELECT content, sensitive, replaced_at FROM memory_history WHERE memory_id = ? "
                       "ORDER BY id DESC LIMIT ?", (memory_id, limit))
    return [EarlierText(r[0], bool(r[1]), r[2]) for r in rows]


def set_private(store: Store, memory_id: int, private: bool) -> Memory:
    """Mark a memory private (it goes to a model only when a message asks about it) or not."""
    with store.transaction():
        get_memory(store, memory_id)
        store.execute("UPDATE knowledge SET private = ?, updated_at = ? WHERE id = ?",
                      (int(private), store.clock.now_iso(), memory_id))
        return get_memory(store, memory_id)


PINNED_FLOOR = "warm"  # the lowest tier a pinned memory is in: the default retrieval mode always reaches it


def set_pinned(store: Store, memory_id: int, pinned: bool) -> Memory:
    """Pin a memory (never archived by consolidation, never outranked by its own echoes in search) or
    unpin it. A pinned memory found cold or archived comes up to PINNED_FLOOR at once."""
    with store.transaction():
        get_memory(store, memory_id)
        store.execute("UPDATE knowledge SET pinned = ?, updated_at = ? WHERE id = ?",
                      (int(pinned), store.clock.now_iso(), memory_id))
        if pinned:
            store.execute("UPDATE memory_meta SET tier = ? WHERE memory_id = ? AND tier IN ('cold', 'archived')",
                          (PINNED_FLOOR, memory_id))
        return get_memory(store, memory_id)


FORGOTTEN = "[forgotten]"


def quotation_pattern(*texts: str) -> re.Pattern[str] | None:
    """Whole quotations of any of `texts` (the longest first), never inside another word ("Tom" is
    not in "tomorrow" nor "atom"): the one rule for what forget scrubs and the gate withholds."""
    return _quotations(tuple(sorted({t.strip() for t in texts if t.strip()}, key=lambda t: (-len(t), t))))


@lru_cache(maxsize=8)
def _quotations(needles: tuple[str, ...]) -> re.Pattern[str] | None:
    """Compiled once while the texts stay the same (2,000 withheld memories: 0.5 s to compile)."""
    if not needles:
        return None
    return re.compile("|".join(f"(?<!\\w){re.escape(n)}(?!\\w)" for n in needles), re.IGNORECASE)


def source_turns(store: Store, memory: Memory) -> list[Any]:
    """The messages a memory was made from: each source message and the replies of its turn, up to
    the next thing the user said (rows: id, episode_id, role, content)."""
    found: dict[int, Any] = {}
    for source in memory.message_ids:
        row = store.one("SELECT id, episode_id FROM messages WHERE id = ?", (source,))
        if row is None:
            continue
        following = store.one("SELECT min(id) FROM messages WHERE episode_id IS ? AND id > ? AND role = 'user'",
                              (row["episode_id"], source))[0]
        for message in store.query("SELECT id, episode_id, role, content FROM messages WHERE id >= ? AND id < ? "
                                   "AND (id = ? OR episode_id IS ?)",
                                   (source, following or 2**62, source, row["episode_id"])):
            found[message["id"]] = message
    return list(found.values())


def _rows(store: Store, sql: str, params: Any) -> list[dict[str, Any]]:
    return [dict(zip(r.keys(), tuple(r), strict=True)) for r in store.query(sql, params)]


def _scrub_sources(store: Store, memory: Memory, texts: list[str]) -> list[dict[str, Any]]:
    """Take a forgotten memory's texts (its text and its earlier ones) out of the messages it came from:
    the user's "remember that X" and the replies of the same turn that repeat X, by whole quotation only.
    Elsewhere only the assistant's own quotations of it go, and only of a text long enough to be a
    quotation, not a word ("Tom" forgotten leaves every other conversation's "Tom" alone). Returns the
    messages it changed, as they were."""
    pattern = quotation_pattern(*texts)
    if pattern is None:
        return []
    changed: list[dict[str, Any]] = []

    def keep(message_id: int) -> None:
        if all(c["id"] != message_id for c in changed):
            changed.extend(_rows(store, "SELECT * FROM messages WHERE id = ?", (message_id,)))

    # The assistant's own messages that quote it ("From memory ...: X") go too, wherever they are:
    # found through the keyword index, then checked word for word.
    for needle in dict.fromkeys(t.strip() for t in texts):
        words = [w for w in re.findall(r"\w+", needle.lower()) if len(w) > 1][:16]
        if not words or (len(words) < 3 and len(needle) < 20):
            continue
        for row in store.query("SELECT m.id, m.content FROM search_index s JOIN messages m ON m.id * 4 = s.rowid "
                               "WHERE search_index MATCH ? AND m.role = 'assistant'",
                               (content_match(words, every=True),)):
            scrubbed = pattern.sub(FORGOTTEN, row["content"])
            if scrubbed != row["content"]:
                keep(row["id"])
                store.execute("UPDATE messages SET content = ? WHERE id = ?", (scrubbed, row["id"]))
    for message in source_turns(store, memory):
        scrubbed = pattern.sub(FORGOTTEN, message["content"])
        if scrubbed != message["content"]:
            keep(message["id"])
            store.execute("UPDATE messages SET content = ?, time_refs = NULL WHERE id = ?", (scrubbed, message["id"]))
    return changed


def _scrub_records(store: Store, texts: list[str]) -> list[dict[str, Any]]:
    """What the Why records quote of a forgotten memory (its text or an earlier one) goes too (whole
    quotations, as in messages). Returns the records it changed, as they were."""
    pattern = quotation_pattern(*texts)
    needles = [t.strip() for t in dict.fromkeys(texts) if t.strip()]
    if pattern is None or not needles:
        return []

    def scrubbed(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(FORGOTTEN, value)
        if isinstance(value, list):
            return [scrubbed(v) for v in value]
        if isinstance(value, dict):
            return {k: scrubbed(v) for k, v in value.items()}
        return value

    changed: list[dict[str, Any]] = []
    for needle in needles:
        for row in _rows(store, "SELECT * FROM turn_records WHERE instr(lower(data), lower(?)) > 0",
                         (json.dumps(needle, ensure_ascii=False)[1:-1],)):
            data = json.dumps(scrubbed(json.loads(row["data"])), ensure_ascii=False)
            if data != row["data"]:
                if all(c["message_id"] != row["message_id"] for c in changed):
                    changed.append(row)
                store.execute("UPDATE turn_records SET data = ? WHERE message_id = ?", (data, row["message_id"]))
    return changed


def _retitle(store: Store, episode_ids: set[int], texts: list[str]) -> list[dict[str, Any]]:
    """The conversations a forgotten memory was made in get their titles again from their scrubbed
    messages (a quick title is made of the words said, the forgotten ones among them); a title or
    summary that quotes the memory loses the quotation in any conversation. Returns the conversations
    it changed, as they were."""

    changed: dict[int, dict[str, Any]] = {}

    def keep(episode_id: int) -> None:
        if episode_id not in changed:
            changed[episode_id] = _rows(store, "SELECT * FROM episodes WHERE id = ?", (episode_id,))[0]

    for episode_id in sorted(episode_ids):
        episode = get_episode(store, episode_id)
        if episode.ended_at is None:
            continue  # still open: it is titled when it closes, from the scrubbed messages
        title, summary = heuristic_title_and_summary(episode_messages(store, episode_id), store)
        keep(episode_id)
        store.execute("UPDATE episodes SET title = ?, summary = ? WHERE id = ?", (title, summary, episode_id))
    for forgotten in dict.fromkeys(t.strip() for t in texts):
        pattern = quotation_pattern(forgotten)
        if pattern is None or len(forgotten) < 20:
            continue
        for row in store.query("SELECT id, title, summary FROM episodes WHERE title LIKE ? OR summary LIKE ?",
                               (f"%{forgotten}%", f"%{forgotten}%")):
            keep(row["id"])
            store.execute("UPDATE episodes SET title = ?, summary = ? WHERE id = ?",
                          (pattern.sub(FORGOTTEN, row["title"] or "") or None,
                           pattern.sub(FORGOTTEN, row["summary"] or "") or None, row["id"]))
    return list(changed.values())


def _drop_summaries_of(store: Store, memory_id: int) -> dict[str, list[dict[str, Any]]]:
    """Consolidated summaries made from a forgotten memory go with it (they would carry it on); the
    other memories they summarised stay, and the next consolidation summarises them again. Returns the
    rows it changes (summaries, their edges, the memories consolidated into them), as they were."""
    ids = [r[0] for r in store.query("SELECT DISTINCT s.id FROM summaries s, json_each(s.source_ids) j "
                                     "WHERE j.value = ?", (memory_id,))]
    if not ids:
        return {}
    from memory.search.embeddings import drop_vectors

    marks = ",".join("?" * len(ids))
    before = {"summaries": _rows(store, f"SELECT * FROM summaries WHERE id IN ({marks})", ids),
              "edges": _rows(store, f"SELECT * FROM edges WHERE (source_type = 'summary' AND source_id IN ({marks})) "
                                    f"OR (target_type = 'summary' AND target_id IN ({marks}))", ids + ids),
              "memory_meta": _rows(store, f"SELECT * FROM memory_meta WHERE consolidated_into IN ({marks})",
                                   tuple(ids))}
    store.execute(f"UPDATE memory_meta SET consolidated_into = NULL WHERE consolidated_into IN ({marks})", tuple(ids))
    store.execute(f"DELETE FROM edges WHERE (source_type = 'summary' AND source_id IN ({marks})) "
                  f"OR (target_type = 'summary' AND target_id IN ({marks}))", tuple(ids + ids))
    store.execute(f"DELETE FROM summaries WHERE id IN ({marks})", tuple(ids))
    drop_vectors(store, [doc_id("summary", i) for i in ids])
    return before


@dataclass
class Forgotten:
    memory: Memory  # as it was
    rows: dict[str, list[dict[str, Any]]]  # every other row forgetting it changed or removed, as it was


def forget(store: Store, memory_id: int) -> Forgotten:
    """Delete a memory, its embedding and its index entries in one transaction, and take its text out
    of the messages it was made from (see _scrub_sources); what it changed is returned, so that undo
    (memory.changes) can put every word back."""
    with store.transaction():
        memory = get_memory(store, memory_id)
        turns = source_turns(store, memory)
        rows: dict[str, list[dict[str, Any]]] = {
            "memory_meta": _rows(store, "SELECT * FROM memory_meta WHERE memory_id = ?", (memory_id,)),
            "reminder_completions": _rows(store, "SELECT * FROM reminder_completions WHERE memory_id = ?",
                                          (memory_id,)),
            "edges": _rows(store, "SELECT * FROM edges WHERE (source_type = 'memory' AND source_id = ?) "
                                  "OR (target_type = 'memory' AND target_id = ?)", (memory_id, memory_id))}
        # Its earlier texts are the memory too: they go with it, and from what quotes them.
        rows["memory_history"] = _rows(store, "SELECT * FROM memory_history WHERE memory_id = ? ORDER BY id",
                                       (memory_id,))
        texts = [memory.content, *(r["content"] for r in reversed(rows["memory_history"]))]
        rows["messages"] = _scrub_sources(store, memory, texts)
        rows["turn_records"] = _scrub_records(store, texts)
        rows["episodes"] = _retitle(store, {t["episode_id"] for t in turns if t["episode_id"] is not None}, texts)
        for table, found in _drop_summaries_of(store, memory_id).items():
            rows[table] = rows.get(table, []) + found
        # A tombstone (its identity, never its text): an older export does not bring it back.
        uid = store.one("SELECT uid FROM knowledge WHERE id = ?", (memory_id,))[0] or \
            f"{store.store_uid()}/memory/{memory_id}"
        from memory.tombstones import content_hash

        store.execute("INSERT OR IGNORE INTO forgotten (uid, forgotten_at, hash) VALUES (?, ?, ?)",
                      (uid, store.clock.now_iso(), content_hash(memory.content)))
        delete_memory_row(store, memory_id)
    return Forgotten(memory, rows)


def delete_memory_row(store: Store, memory_id: int) -> None:
    """The memory's row, its embedding, its index entries and its edges, gone in the caller's transaction
    (forget adds its scrubbing and tombstone; undoing a memory just made needs only this)."""
    with store.transaction():
        store.execute("DELETE FROM memory_history WHERE memory_id = ?", (memory_id,))
        store.execute("DELETE FROM knowledge WHERE id = ?", (memory_id,))
        doc = doc_id("memory", memory_id)
        from memory.search.embeddings import drop_vectors  # numpy-free, but not needed to read reminders

        drop_vectors(store, [doc])
        store.execute("DELETE FROM stale_embeddings WHERE doc_id = ?", (doc,))
        store.execute("DELETE FROM edges WHERE (source_type = 'memory' AND source_id = ?) "
                      "OR (target_type = 'memory' AND target_id = ?)", (memory_id, memory_id))


def matching(store: Store, words: list[str], limit: int = 200) -> list[Memory]:
    """Memories whose text has any of `words` (looked up in the keyword index), newest first."""
    match = content_match(w.lower() for w in words if re.fullmatch(r"\w+", w))
    if match is None:
        return []
    rows = store.query(f"{SELECT_MEMORY} JOIN search_index s ON k.id = s.rowid / 4 WHERE search_index MATCH ? "
                       "AND s.rowid % 4 = 1 ORDER BY k.id DESC LIMIT ?", (match, limit))
    return [Memory.from_row(r) for r in rows]


def count_memories(store: Store) -> int:
    return store.number("SELECT count(*) FROM knowledge")


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


_KNOWN = "k.due_at IS NULL AND k.kind NOT IN ('mood', 'person')"  # what is known, not a task or a mood
_CURRENT = " AND m.superseded_by IS NULL"  # not the older value of a fact restated since


def most_important(store: Store, limit: int, tier: str | None = "hot", current: bool = False) -> list[int]:
    """Ids of the most important memories of a tier (None: any) (not reminders, people or moods), newest
    first among equals: the ones a prompt shows whatever the question; `current`: no older value of a
    fact restated since."""
    rows = store.query(f"SELECT k.id FROM knowledge k LEFT JOIN memory_meta m ON m.memory_id = k.id WHERE {_KNOWN}"
                       f"{_CURRENT if current else ''} AND (? IS NULL OR coalesce(m.tier, 'hot') = ?) "
                       "ORDER BY k.importance DESC, k.id DESC LIMIT ?", (tier, tier, limit))
    return [r[0] for r in rows]


def count_known(store: Store) -> int:
    """How many memories most_important(tier=None, current=True) chooses from."""
    return store.number(f"SELECT count(*) FROM knowledge k LEFT JOIN memory_meta m ON m.memory_id = k.id "
                        f"WHERE {_KNOWN}{_CURRENT}")


def people(store: Store) -> list[Memory]:
    """Every memory of kind person."""
    return [Memory.from_row(r) for r in store.query(f"{SELECT_MEMORY} WHERE k.kind = 'person' ORDER BY k.id")]


def latest_mood(store: Store) -> Memory | None:
    """The user's most recent mood."""
    row = store.one(f"{SELECT_MEMORY} WHERE k.kind = 'mood' ORDER BY k.sequence DESC, k.id DESC LIMIT 1")
    return Memory.from_row(row) if row else None


def created_since(store: Store, since: str | None, limit: int | None = None, reminders: bool = True,
                  current: bool = False) -> list[Memory]:
    """Memories created at or after `since` (UTC ISO; None: all), newest first; `current`: not those replaced
    since by a newer value (a recap's new memories: the replaced one read as current beside its replacement)."""
    clauses, params = ["1"], []
    if current:
        clauses.append("m.superseded_by IS NULL")
    if since is not None:
        clauses.append("k.created_at >= ?")
        params.append(since)
    if not reminders:
        clauses.append("k.due_at IS NULL")
    sql = f"{SELECT_MEMORY} WHERE {' AND '.join(clauses)} ORDER BY k.created_at DESC, k.id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [Memory.from_row(r) for r in store.query(sql, tuple(params))]


def changed_since(store: Store, since: str, limit: int = 5) -> tuple[list[Memory], int]:
    """Memories (not reminders) made or changed at or after `since` (UTC ISO) and current (not replaced since),
    the latest `limit` first, and how many in all."""
    where = "k.updated_at >= ? AND k.due_at IS NULL AND m.superseded_by IS NULL"
    total = store.one(f"SELECT count(*) FROM knowledge k LEFT JOIN memory_meta m ON m.memory_id = k.id WHERE {where}",
                      (since,))[0]
    rows = store.query(f"{SELECT_MEMORY} WHERE {where} ORDER BY k.updated_at DESC, k.id DESC LIMIT ?",
                       (since, limit)) if total else []
    return [Memory.from_row(r) for r in rows], total


def count_created_since(store: Store, since: str | None) -> int:
    if since is None:
        return count_memories(store)
    return store.number("SELECT count(*) FROM knowledge WHERE created_at >= ?", (since,))


def withheld_candidates(store: Store) -> list[Memory]:
    """Every memory marked private or sensitive: what a request to a model may have to hold back.
    (The condition is the one of the index knowledge_withheld, word for word, so SQLite uses it.)"""
    return [Memory.from_row(r) for r in store.query(f"{SELECT_MEMORY} WHERE k.private = 1 OR k.sensitive = 1 "
                                                    "ORDER BY k.id")]


def withheld_earlier_texts(store: Store) -> dict[int, list[EarlierText]]:
    """{memory id: its earlier texts, oldest first} of every memory marked private or sensitive, and the
    earlier texts that held a secret of any memory (an edit that took the secret out unmarks the memory,
    not what it said before): what a memory said before an edit is the memory too, and a request to a
    model holds it back as it holds back the memory (withheld_candidates)."""
    found: dict[int, list[EarlierText]] = {}
    for r in store.query("SELECT h.memory_id, h.content, h.sensitive, h.replaced_at FROM memory_history h "
                         "JOIN knowledge k ON k.id = h.memory_id WHERE k.private = 1 OR k.sensitive = 1 "
                         "OR h.sensitive = 1 ORDER BY h.id"):
        found.setdefault(r[0], []).append(EarlierText(r[1], bool(r[2]), r[3]))
    return found
