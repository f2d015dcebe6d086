"""What went into each answer, recorded when its turn ran (SPEC F12, "Why this answer"): the prompt's
sections as sent, the memories and conversations in it, what the gate withheld and why, the tool calls
and their results; for an offline answer, what the reading understood and that nothing left the machine.

One record per answer (keyed by the answer's message id, gone with it). A record is data the app wrote
about a turn: it is shown on the person's own screen, never sent to a model. Forget scrubs what a record
quotes of a forgotten memory (memory.memories.forget), and undo puts it back.
"""
from __future__ import annotations

import json
from typing import Any

from memory.store import Store


def record(store: Store, message_id: int, episode_id: int | None, data: dict[str, Any]) -> None:
    store.execute("INSERT OR REPLACE INTO turn_records (message_id, episode_id, data, created_at) VALUES (?, ?, ?, ?)",
                  (message_id, episode_id, json.dumps(data, ensure_ascii=False), store.clock.now_iso()))


def get(store: Store, message_id: int) -> dict[str, Any] | None:
    row = store.one("SELECT data FROM turn_records WHERE message_id = ?", (message_id,))
    return None if row is None else json.loads(row[0])


def latest(store: Store, episode_id: int | None = None) -> tuple[int, dict[str, Any]] | None:
    """The newest record (of a conversation): (the answer's message id, the record)."""
    row = store.one("SELECT message_id, data FROM turn_records WHERE (? IS NULL OR episode_id = ?) "
                    "ORDER BY message_id DESC LIMIT 1", (episode_id, episode_id))
    return None if row is None else (row[0], json.loads(row[1]))


def _marks(ids: list[int]) -> str:
    return ",".join("?" * len(ids))


def readings_of(store: Store, message_ids: list[int]) -> dict[int, dict[str, Any]]:
    """What the reading of each of these messages understood when its turn ran (the record of the answer
    that followed it in its conversation), for those that have one: an imported message, or one older
    than the records, has none."""
    ids = sorted(set(message_ids))
    if not ids:
        return {}
    rows = store.query(
        "SELECT u.id, json_extract(r.data, '$.reading') FROM messages u JOIN turn_records r ON r.message_id = "
        "(SELECT min(a.id) FROM messages a WHERE a.episode_id = u.episode_id AND a.id > u.id) "
        f"WHERE u.id IN ({_marks(ids)}) AND u.role = 'user'", tuple(ids))
    return {row[0]: json.loads(row[1]) for row in rows if row[1]}


def responders_of(store: Store, message_ids: list[int]) -> dict[int, str]:
    """Which responder wrote each of these answers ("offline", or a model's), for those recorded."""
    ids = sorted(set(message_ids))
    if not ids:
        return {}
    rows = store.query(f"SELECT message_id, json_extract(data, '$.responder') FROM turn_records "
                       f"WHERE message_id IN ({_marks(ids)})", tuple(ids))
    return {row[0]: row[1] for row in rows if row[1]}
