"""The record of imports (schema 12): what each one added, so the last one can be undone whole, and an
interrupted one continued by the next run of the same file."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from memory.docs import doc_id
from memory.episodes import place_by_time
from memory.errors import InvalidInput
from memory.store import Store

TAGGED = {"episode": "episodes", "message": "messages", "memory": "knowledge", "summary": "summaries"}


@dataclass
class ImportRecord:
    id: int
    format: str
    source: str
    started_at: str
    finished_at: str | None
    status: str
    counts: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Any) -> ImportRecord:
        return cls(row["id"], row["format"], row["source"], row["started_at"], row["finished_at"], row["status"],
                   json.loads(row["counts"] or "{}"))


def begin_import(store: Store, format_name: str, source: str, fingerprint: str | None) -> int:
    """A new import, or the interrupted one of the same file (a rerun continues it: one undo removes both)."""
    with store.transaction():
        if fingerprint:
            row = store.one("SELECT id, status FROM imports WHERE status IN ('running', 'interrupted') "
                            "AND fingerprint = ? AND id = (SELECT max(id) FROM imports WHERE status != 'undone')",
                            (fingerprint,))
            if row is not None:
                store.execute("UPDATE imports SET status = 'running' WHERE id = ?", (row["id"],))
                return int(row["id"])
        return store.insert("imports", {"format": format_name, "source": source, "fingerprint": fingerprint,
                                        "started_at": store.clock.now_iso()})


def finish_import(store: Store, import_id: int, counts: dict[str, Any], status: str = "done") -> None:
    with store.transaction():
        before = store.one("SELECT counts FROM imports WHERE id = ?", (import_id,))
        merged = _added(json.loads(before[0]) if before else {}, counts)
        store.execute("UPDATE imports SET status = ?, finished_at = ?, counts = ? WHERE id = ?",
                      (status, store.clock.now_iso(), json.dumps(merged), import_id))


def _added(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """Counts of a continued import: what its runs added, together."""
    out = dict(now)
    for key, value in before.items():
        if key.endswith("_added") and isinstance(value, int) and isinstance(now.get(key), int):
            out[key] = value + now[key]
    return out


def tag(store: Store, kind: str, row_ids: list[int], import_id: int) -> None:
    """Mark rows written by another module's insert (memories, summaries) as this import's."""
    table = TAGGED[kind]
    store.executemany(f"UPDATE {table} SET import_id = ? WHERE id = ?", [(import_id, i) for i in row_ids])


def record_growth(store: Store, import_id: int, episode_id: int, ended_at: str | None) -> None:
    """An existing conversation this import adds messages to: its end as it was, for an undo."""
    row = store.one("SELECT grown FROM imports WHERE id = ?", (import_id,))
    grown = json.loads(row[0] or "{}")
    grown.setdefault(str(episode_id), ended_at)
    store.execute("UPDATE imports SET grown = ? WHERE id = ?", (json.dumps(grown), import_id))


def last_import(store: Store) -> tuple[ImportRecord | None, list[int]]:
    """The last import that added something still here (rows tagged with it, or a conversation it grew),
    and the ids of the imports after it that added nothing (a re-import of the same file)."""
    empty: list[int] = []
    for row in store.query("SELECT * FROM imports WHERE status != 'undone' ORDER BY id DESC"):
        if _added_something(store, row["id"], row["grown"]):
            return ImportRecord.from_row(row), empty
        empty.append(row["id"])
    return None, empty


def _added_something(store: Store, import_id: int, grown: str | None) -> bool:
    if json.loads(grown or "{}"):
        return True
    return any(store.one(f"SELECT 1 FROM {table} WHERE import_id = ? LIMIT 1", (import_id,)) is not None
               for table in ("episodes", "messages", "knowledge", "summaries"))


@dataclass
class UndoneImport:
    record: ImportRecord
    removed: dict[str, int]  # rows of each kind that went
    skipped: list[int]  # the imports after it, newest first, that had added nothing


def undo_last_import(store: Store) -> UndoneImport:
    """Remove everything the last import that added something added, in one transaction: its memories
    (with their links and vectors), summaries, messages, and the conversations it brought (a conversation
    it only grew loses the new messages and gets its end back). Imports after it that added nothing (the
    same file again) are passed over, and said. Nothing is tombstoned: importing the file again brings it
    back."""
    from memory.search.embeddings import drop_vectors

    with store.transaction():
        record, skipped = last_import(store)
        if record is None:
            raise InvalidInput("there is no import to undo" + (": the imports left added nothing" if skipped else ""))
        removed: dict[str, int] = {}
        memories = [r[0] for r in store.query("SELECT id FROM knowledge WHERE import_id = ?", (record.id,))]
        if memories:
            _delete_memories(store, memories)
        removed["memories"] = len(memories)
        summaries = [r[0] for r in store.query("SELECT id FROM summaries WHERE import_id = ?", (record.id,))]
        if summaries:
            marks = ",".join("?" * len(summaries))
            store.execute(f"UPDATE memory_meta SET consolidated_into = NULL WHERE consolidated_into IN ({marks})",
                          tuple(summaries))
            store.execute(f"DELETE FROM edges WHERE (source_type = 'summary' AND source_id IN ({marks})) "
                          f"OR (target_type = 'summary' AND target_id IN ({marks}))", tuple(summaries + summaries))
            store.execute(f"DELETE FROM summaries WHERE id IN ({marks})", tuple(summaries))
            drop_vectors(store, [doc_id("summary", i) for i in summaries])
        removed["summaries"] = len(summaries)
        earliest = store.one("SELECT min(created_at) FROM messages WHERE import_id = ?", (record.id,))[0]
        messages = [r[0] for r in store.query("SELECT id FROM messages WHERE import_id = ?", (record.id,))]
        store.execute("DELETE FROM messages WHERE import_id = ?", (record.id,))
        drop_vectors(store, [doc_id("message", i) for i in messages])
        store.executemany("DELETE FROM stale_embeddings WHERE doc_id = ?",
                          [(doc_id("message", i),) for i in messages])
        removed["messages"] = len(messages)
        # A conversation that has messages from elsewhere too (continued here since) stays.
        episodes = [r[0] for r in store.query("SELECT id FROM episodes e WHERE import_id = ? AND NOT EXISTS "
                                              "(SELECT 1 FROM messages m WHERE m.episode_id = e.id)", (record.id,))]
        marks = ",".join("?" * len(episodes))
        if episodes:
            store.execute(f"DELETE FROM episodes WHERE id IN ({marks})", tuple(episodes))
            drop_vectors(store, [doc_id("episode", i) for i in episodes])
            store.executemany("DELETE FROM stale_embeddings WHERE doc_id = ?",
                              [(doc_id("episode", i),) for i in episodes])
        removed["conversations"] = len(episodes)
        grown = json.loads(store.one("SELECT grown FROM imports WHERE id = ?", (record.id,))[0] or "{}")
        for episode_id, ended_at in grown.items():
            store.execute("UPDATE episodes SET ended_at = ? WHERE id = ?", (ended_at, int(episode_id)))
        if earliest is not None:
            place_by_time(store, earliest)
        store.execute("UPDATE imports SET status = 'undone', finished_at = ? WHERE id = ?",
                      (store.clock.now_iso(), record.id))
    return UndoneImport(record, removed, skipped)


def _delete_memories(store: Store, ids: list[int]) -> None:
    from memory.search.embeddings import drop_vectors

    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        marks = ",".join("?" * len(part))
        store.execute(f"DELETE FROM edges WHERE (source_type = 'memory' AND source_id IN ({marks})) "
                      f"OR (target_type = 'memory' AND target_id IN ({marks}))", tuple(part + part))
        store.execute(f"UPDATE memory_meta SET superseded_by = NULL WHERE superseded_by IN ({marks})", tuple(part))
        store.execute(f"DELETE FROM knowledge WHERE id IN ({marks})", tuple(part))
        docs = [doc_id("memory", i) for i in part]
        drop_vectors(store, docs)
        store.executemany("DELETE FROM stale_embeddings WHERE doc_id = ?", [(d,) for d in docs])
