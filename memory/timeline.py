"""Timeline buckets (SPEC F3): where in the conversation a memory comes from, and its rendering.

Position is a message number: a message's rank in time (created_at order; for messages typed here that
is their id order, and imported history takes its place by its own time), and a memory's position the
midpoint of its messages' positions, else sequence // 1000. Buckets split the chat at 40 % and 80 % of
its length (boundaries go to the later bucket).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

OLD, MID, RECENT = "old", "mid", "recent"


def field_of(memory: Any, name: str, default: Any = None) -> Any:
    if isinstance(memory, dict):
        return memory.get(name, default)
    return getattr(memory, name, default)


def get_memory_position(memory: Any, positions: Mapping[int, int] | None = None) -> int:
    """Rounded mean of its messages' positions; else sequence // 1000; else 0.

    `positions` maps message ids to their rank in time (memory.episodes.message_positions); without it
    a message's id is its position, which holds for a store where nothing was imported."""
    ids: list[int] = field_of(memory, "message_ids") or []
    if positions is not None:
        ids = [positions[i] for i in ids if i in positions]
    if ids:
        return round(sum(ids) / len(ids))
    sequence = field_of(memory, "sequence")
    if sequence:
        return int(sequence) // 1000
    return 0


def assign_memories_to_buckets(memories: Sequence[Any] | None, chat_length: int,
                               positions: Mapping[int, int] | None = None) -> dict[str, list[Any]]:
    """{old, mid, recent}, each sorted by sequence; all recent when the chat is empty."""
    buckets: dict[str, list[Any]] = {OLD: [], MID: [], RECENT: []}
    for memory in memories or []:
        if chat_length <= 0:
            buckets[RECENT].append(memory)
            continue
        position = get_memory_position(memory, positions)
        if position < 0.4 * chat_length:
            buckets[OLD].append(memory)
        elif position < 0.8 * chat_length:
            buckets[MID].append(memory)
        else:
            buckets[RECENT].append(memory)
    for items in buckets.values():
        items.sort(key=lambda m: (field_of(m, "sequence") or 0, field_of(m, "id") or 0))
    return buckets
