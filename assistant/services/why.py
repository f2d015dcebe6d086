"""Why this answer (SPEC F12): what went into an answer, as recorded when its turn ran (memory.turn_records),
with the memories and conversations it names read as they are now."""
from __future__ import annotations

from assistant.runtime import Runtime
from assistant.services.conversations import conversation_view
from assistant.views import LinkedView, WhyView, masked, private_marked
from memory import episodes, memories, turn_records
from memory.memories import Memory


def _ids(value: object) -> list[int]:
    """The ids a Why record lists (it is JSON: anything else in it is left out)."""
    return [i for i in value if isinstance(i, int)] if isinstance(value, list) else []


class WhyService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def record(self, message_id: int | None = None) -> dict[str, object] | None:
        """What went into an answer (the latest of the conversation in progress when no id is given), as
        recorded when its turn ran; None when there is no record (an incognito or older answer)."""
        store = self.runtime.store
        if message_id is None:
            active = episodes.active_episode(store)
            found = turn_records.latest(store, active.id if active else None)
        else:
            record = turn_records.get(store, message_id)
            found = (message_id, record) if record is not None else None
        return None if found is None else {"message_id": found[0], **found[1]}

    def view(self, message_id: int | None = None) -> WhyView | None:
        """`record` with the memories and conversations it names read as they are now, for the Why screen
        (a secret masked, as everywhere but the Memories screen)."""
        record = self.record(message_id)
        if record is None:
            return None
        ids = _ids(record.get("memories"))
        store = self.runtime.store
        found = {m.id: m for m in memories.memories_by_id(store, ids)}
        clock = self.runtime.clock
        # Read as they are now: one whose text was changed after the answer says so (its earlier texts
        # are on its own screen), so the line is not taken for what the answer was given.
        answer_id = int(str(record["message_id"]))
        answered = episodes.messages_by_id(store, [answer_id]).get(answer_id)
        changed = memories.edited_since(store, ids, answered.created_at) if answered is not None else set()

        def when(m: Memory) -> str:
            said = clock.short(m.created_at)
            return f"{said}; its text was changed after this answer" if m.id in changed else said

        shown = [LinkedView(i, private_marked(masked(found[i].content, found[i].sensitive), found[i].private),
                            when(found[i])) if i in found else LinkedView(i, "", "") for i in ids]
        episode_ids = _ids(record.get("conversations"))
        talks = {c.episode.id: conversation_view(c, None, clock)
                 for c in episodes.list_conversations(self.runtime.store, len(episode_ids) or 1, episode_ids)}
        return WhyView(int(str(record["message_id"])), record, shown, [talks[i] for i in episode_ids if i in talks])
