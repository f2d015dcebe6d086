"""Forgetting a memory, the one way every front end does it (the model's tool, the offline mode, the
CLI, the app): the memory and its exact quotations go (memory.memories.forget: by id and whole
quotation, with a tombstone so an old export does not bring it back), the message box's input
history drops the lines that quote it, and the change is recorded so `undo` can bring it back."""
from __future__ import annotations

from assistant.input_history import InputHistory
from assistant.paths import history_file
from assistant.runtime import Runtime
from memory import memories, reminders


def forget(runtime: Runtime, memory_id: int) -> memories.Memory:
    store = runtime.store
    with reminders.recorded(store, memory_id, "forget"):  # a reminder can be brought back by undo ...
        before = memories.get_memory(store, memory_id)
        if before.due_at is not None:  # ... with its conversations as they were
            reminders.keep_with_change(store, memories.forget_snapshot(store, before))
        memory = memories.forget(store, memory_id)
        if memory.due_at is None:  # ... a note cannot, and undo must not reach past it to an older change
            reminders.drop_recorded_change(store)
    try:
        path = history_file()
    except OSError:
        return memory  # no state folder: no history to clean
    InputHistory(path).drop_quoting(memory.content)
    return memory
