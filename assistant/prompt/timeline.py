"""The Timeline section (SPEC F3): the turn's relevant memories in three headed buckets, within a budget."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.views import private_marked
from memory.timeline import MID, OLD, RECENT, assign_memories_to_buckets, field_of

HEADERS = {OLD: "[ESTABLISHED HISTORY]", MID: "[PREVIOUSLY]", RECENT: "[RECENT EVENTS]"}


@dataclass
class Person:
    name: str
    relation: str | None = None
    trust: int | None = None
    tension: int | None = None

    def line(self) -> str:
        trust = 5 if self.trust is None else self.trust
        trust_word = "high" if trust >= 7 else "low" if trust <= 3 else "moderate"
        parts = [f"{trust_word} trust"]
        tension = self.tension or 0
        if tension >= 7:
            parts.append("high tension")
        elif tension >= 4:
            parts.append("some tension")
        return f"- {self.name}: {self.relation or 'acquaintance'} ({', '.join(parts)})"


@dataclass
class Mood:
    state: str
    message_ids: list[int] = field(default_factory=list)

    def line(self) -> str | None:
        if self.state.strip().lower() in ("", "neutral", "calm/neutral"):
            return None
        if self.message_ids:
            span = f" (as of msgs #{min(self.message_ids)}-{max(self.message_ids)})"
        else:
            span = ""
        return f"Emotional state: {self.state}{span}"


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def memory_line(memory: Any) -> str:
    stars = "★" * int(field_of(memory, "importance") or 3)
    return f"[{stars}] {private_marked(str(field_of(memory, 'content')), bool(field_of(memory, 'private')))}"


def _render(buckets: dict[str, list[Any]], chat_length: int, mood: Mood | None, people: Sequence[Person],
            escape: Callable[[str], str]) -> str:
    n = max(chat_length, 0)
    m, r = int(0.4 * n), int(0.8 * n)
    ranges = {OLD: f"messages 1-{m}", MID: f"messages {m}-{r}", RECENT: f"messages {r}-{n}"}
    lines = [f'<memory_timeline total_messages="{n}">']
    mood_line = mood.line() if mood else None
    for name in (OLD, MID, RECENT):
        extra: list[str] = []
        if name == RECENT:
            if mood_line:
                extra.append(escape(mood_line))
            extra += [escape(p.line()) for p in people]
        if not buckets[name] and not extra:
            continue
        lines.append(f"{HEADERS[name]} ({ranges[name]})")
        lines += extra
        lines += [escape(memory_line(mem)) for mem in buckets[name]]
    lines.append("</memory_timeline>")
    return "\n".join(lines)


def format_timeline(memories: Sequence[Any] | None, chat_length: int, mood: Mood | None = None,
                    people: Sequence[Person] = (), max_tokens: int | None = None,
                    escape: Callable[[str], str] = str, positions: Mapping[int, int] | None = None) -> str:
    """Render the turn's relevant memories in three headed buckets, within `max_tokens`.

    Over budget, the least important and oldest memories go first, and never a recent one while an
    older one remains; what stays is rendered chronologically. `positions`: message ids -> rank in time
    (memory.timeline.message_positions), so imported history counts as old.
    """
    kept = list(memories or [])
    buckets = assign_memories_to_buckets(kept, chat_length, positions)
    text = _render(buckets, chat_length, mood, people, escape)
    if max_tokens is None or estimate_tokens(text) <= max_tokens:
        return text
    rank = {OLD: 0, MID: 1, RECENT: 2}
    order = sorted(((rank[b], int(field_of(m, "importance") or 3), field_of(m, "sequence") or 0, id(m)), m)
                   for b, items in buckets.items() for m in items)
    dropped: set[int] = set()
    for _, memory in order:
        dropped.add(id(memory))
        remaining = [m for m in kept if id(m) not in dropped]
        text = _render(assign_memories_to_buckets(remaining, chat_length, positions), chat_length, mood, people, escape)
        if estimate_tokens(text) <= max_tokens:
            return text
    return text
