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
