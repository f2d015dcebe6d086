"""Forgetting a memory, the one way every front end does it (the model's tool, the offline mode, the
CLI, the app, the MCP server): the memory and its exact quotations go (memory.memories.forget: by id
and whole quotation, with a tombstone so an old export does not bring it back), the message box's
input history drops the lines that quote it, and the change is recorded so that undo brings it all
back, with its id and every word forgetting it took out, until the next change."""
from __future__ import annotations

from assistant.input_history import InputHistory
from assistant.paths import history_file
from assistant.runtime import Runtime
from memory import changes, memories


def forget(runtime: Runtime, memory_id: int, action: str = "forget") -> memories.Memory:
    """`action`: what undo calls it ("cancel": a reminder deleted on the calendar server, F15)."""
    store = runtime.store
    with changes.recorded(store, memory_id, action):
        forgotten = memories.forget(store, memory_id)
        changes.keep_with_change(store, forgotten.rows)
    try:
        path = history_file()
    except OSError:
        return forgotten.memory  # no state folder: no history to clean
    history = InputHistory(path)
    for text in [forgotten.memory.content, *(r["content"] for r in forgotten.rows.get("memory_history", []))]:
        history.drop_quoting(text)  # its earlier texts are the memory too
    return forgotten.memory
