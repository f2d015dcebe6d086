"""SPEC F3: positions, buckets (boundaries at exactly 40 % and 80 %), rendering, budget."""
from __future__ import annotations

from typing import Any

from assistant.prompt.timeline import Mood, Person, format_timeline
from memory.timeline import assign_memories_to_buckets, get_memory_position


def mem(content: str, seq: int = 0, ids: list[int] | None = None, importance: int | None = None,
        private: bool = False, mid: int | None = None) -> dict[str, Any]:
    return {"id": mid or seq, "content": content, "sequence": seq, "message_ids": ids or [],
            "importance": importance, "private": private}


def test_position() -> None:
    assert get_memory_position(mem("a", ids=[10, 11, 13])) == 11  # round(11.33)
    assert get_memory_position(mem("a", ids=[1, 2])) == 2  # round(1.5) == 2 (banker's rounding)
    assert get_memory_position(mem("a", seq=42_123)) == 42
    assert get_memory_position(mem("a")) == 0


def test_boundaries_are_inclusive_upward() -> None:
    ms = [mem("p39", seq=39_000), mem("p40", seq=40_000), mem("p79", seq=79_000), mem("p80", seq=80_000)]
    b = assign_memories_to_buckets(ms, 100)
    assert [m["content"] for m in b["old"]] == ["p39"]
    assert [m["content"] for m in b["mid"]] == ["p40", "p79"]
    assert [m["content"] for m in b["recent"]] == ["p80"]


def test_empty_and_zero_length() -> None:
    assert assign_memories_to_buckets(None, 10) == {"old": [], "mid": [], "recent": []}
    assert assign_memories_to_buckets([], 10) == {"old": [], "mid": [], "recent": []}
    b = assign_memories_to_buckets([mem("a", seq=5000), mem("b", seq=1000)], 0)
    assert [m["content"] for m in b["recent"]] == ["b", "a"]  # sorted by sequence


def test_chronological_within_bucket() -> None:
    b = assign_memories_to_buckets([mem("late", seq=3100), mem("early", seq=1200), mem("mid", seq=2500)], 100)
    assert [m["content"] for m in b["old"]] == ["early", "mid", "late"]


def test_format_headers_stars_private_mood_people() -> None:
    ms = [mem("Likes hiking", seq=10_000, importance=4), mem("Bank PIN hint", seq=50_000, private=True),
          mem("Started a new job", seq=95_000, importance=5)]
    text = format_timeline(ms, 100, Mood("anxious", [10, 15]),
                           [Person("Bob", "brother", 8, 5), Person("Eve", None, 2, 9), Person("Al", "boss", 5, 1)])
    assert text.splitlines() == [
        '<memory_timeline total_messages="100">',
        "[ESTABLISHED HISTORY] (messages 1-40)",
        "[★★★★] Likes hiking",
        "[PREVIOUSLY] (messages 40-80)",
        "[★★★] [Private] Bank PIN hint",
        "[RECENT EVENTS] (messages 80-100)",
        "Emotional state: anxious (as of msgs #10-15)",
        "- Bob: brother (high trust, some tension)",
        "- Eve: acquaintance (low trust, high tension)",
        "- Al: boss (moderate trust)",
        "[★★★★★] Started a new job",
        "</memory_timeline>",
    ]


def test_neutral_mood_omitted_and_empty_buckets_skipped() -> None:
    text = format_timeline([mem("only recent", seq=99_000)], 100, Mood("neutral", [98]))
    assert "Emotional state" not in text and "[ESTABLISHED HISTORY]" not in text and "[PREVIOUSLY]" not in text


def test_budget_drops_old_and_unimportant_first_never_recent_before_old() -> None:
    old = [mem(f"old memory number {i} " + "x" * 60, seq=(i + 1) * 1000, importance=5) for i in range(10)]
    recent = [mem(f"recent memory {i} " + "y" * 60, seq=(90 + i) * 1000, importance=1) for i in range(3)]
    text = format_timeline(old + recent, 100, max_tokens=120)
    assert all(f"recent memory {i}" in text for i in range(3))
    assert "old memory number 0 " not in text  # the oldest old ones went first
    kept = [line for line in text.splitlines() if line.startswith("[★")]
    assert kept == sorted(kept, key=lambda line: ("recent" in line, line))  # still chronological
    assert len(text) / 4 <= 120
