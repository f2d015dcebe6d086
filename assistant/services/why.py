"""Why this answer (SPEC F12): what went into an answer, as recorded when its turn ran (memory.turn_records),
with the memories and conversations it names read as they are now."""
from __future__ import annotations

from assistant.runtime import Runtime
from assistant.services.conversations import conversation_view
from assistant.views import LinkedView, WhyView, masked, private_marked
from memory import episodes, memories, turn_records
from memory.memories import Memory
from memory.turn_records import TurnRecord


class WhyService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def record(self, message_id: int | None = None) -> tuple[int, TurnRecord] | None:
        """What went into an answer (the latest of the conversation in progress when no id is given), as
        recorded when its turn ran, with the answer's id; None when there is no record (an incognito or
        older answer)."""
        store = self.runtime.store
        if message_id is None:
            active = episodes.active_episode(store)
            found = turn_records.latest(store, active.id if active else None)
        else:
            record = turn_records.get(store, message_id)
            found = (message_id, record) if record is not None else None
        return found

    def view(self, message_id: int | None = None) -> WhyView | None:
        """`record` with the memories and conversations it names read as they are now, for the Why screen
        (a secret masked, as everywhere but the Memories screen)."""
        found_record = self.record(message_id)
        if found_record is None:
            return None
        answer_id, record = found_record
        ids = list(record.memories)
        store = self.runtime.store
        found = {m.id: m for m in memories.memories_by_id(store, ids)}
        clock = self.runtime.clock
        # Read as they are now: one whose text was changed after the answer says so (its earlier texts
        # are on its own screen), so the line is not taken for what the answer was given.
        answered = episodes.messages_by_id(store, [answer_id]).get(answer_id)
        changed = memories.edited_since(store, ids, answered.created_at) if answered is not None else set()

        def when(m: Memory) -> str:
            said = clock.short(m.created_at)
            return f"{said}; its text was changed after this answer" if m.id in changed else said

        shown = [LinkedView(i, private_marked(masked(found[i].content, found[i].sensitive), found[i].private),
                            when(found[i])) if i in found else LinkedView(i, "", "") for i in ids]
        episode_ids = list(record.conversations)
        talks = {c.episode.id: conversation_view(c, None, clock)
                 for c in episodes.list_conversations(self.runtime.store, len(episode_ids) or 1, episode_ids)}
        return WhyView(answer_id, record, shown, [talks[i] for i in episode_ids if i in talks])
