"""SPEC F2: list_recent semantics and the episode helpers."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from memory import episodes
from memory.errors import InvalidInput
from memory.transfer.jsonl_import import import_records
from tests.conftest import T0, present

if TYPE_CHECKING:
    from memory.episodes import Episode
    from memory.store import Store

FIXTURE = [
    {"type": "episode", "id": "e1", "title": "Ski Trip Planning", "summary": "Budget for Breckenridge",
     "outcome": "success", "started_at": "2026-11-22T13:00:00+00:00", "ended_at": "2026-11-22T13:30:00+00:00"},
    {"type": "episode", "id": "e2", "title": "Code Review", "summary": "PR 81", "outcome": "success",
     "started_at": "2026-11-22T11:00:00+00:00", "ended_at": "2026-11-22T11:40:00+00:00"},
    {"type": "episode", "id": "e3", "title": "Tax Forms", "summary": "Property tax", "outcome": "success",
     "started_at": "2026-11-19T10:00:00+00:00", "ended_at": "2026-11-19T10:30:00+00:00"},
    {"type": "episode", "id": "e4", "title": "Current Chat", "summary": None, "outcome": None,
     "started_at": "2026-11-22T13:50:00+00:00", "ended_at": None},
    {"type": "episode", "id": "e5", "title": "Abandoned Thing", "summary": "Abandoned", "outcome": "abandoned",
     "started_at": "2026-11-22T12:00:00+00:00", "ended_at": "2026-11-22T12:05:00+00:00"},
]


@pytest.fixture
def fixture_store(store: Store) -> Store:
    import json

    import_records(store, [json.dumps(r) for r in FIXTURE])
    return store


def titles(items: list[Episode]) -> list[str | None]:
    return [e.title for e in items]


def test_completed_only_newest_first_no_abandoned(fixture_store: Store) -> None:
    assert titles(episodes.list_recent(fixture_store)) == ["Ski Trip Planning", "Code Review", "Tax Forms"]


def test_hours_window(fixture_store: Store) -> None:
    assert titles(episodes.list_recent(fixture_store, hours=48)) == ["Ski Trip Planning", "Code Review"]
    assert titles(episodes.list_recent(fixture_store, hours=100)) == ["Ski Trip Planning", "Code Review", "Tax Forms"]
    assert titles(episodes.list_recent(fixture_store, hours=1.5)) == ["Ski Trip Planning"]


def test_abandoned_only_when_asked(fixture_store: Store) -> None:
    assert titles(episodes.list_recent(fixture_store, outcome="abandoned")) == ["Abandoned Thing"]
    assert "Abandoned Thing" not in titles(episodes.list_recent(fixture_store, outcome="success"))


def test_limit(fixture_store: Store) -> None:
    assert titles(episodes.list_recent(fixture_store, limit=1)) == ["Ski Trip Planning"]
    with pytest.raises(InvalidInput):
        episodes.list_recent(fixture_store, limit=0)


def test_open_add_close(store: Store) -> None:
    ep = episodes.open_episode(store)
    assert present(episodes.active_episode(store)).id == ep.id
    episodes.add_message(store, ep.id, "user", "Can you help me plan the garden for spring?")
    episodes.add_message(store, ep.id, "assistant", "Sure.")
    msgs = episodes.episode_messages(store, ep.id)
    assert episodes.had_real_exchange(msgs)
    title, summary = episodes.heuristic_title_and_summary(msgs)
    assert title == "Plan the garden for spring"
    closed = episodes.close_episode(store, ep.id, title, summary, "success")
    assert closed.ended_at == T0.isoformat() and not closed.active
    assert episodes.active_episode(store) is None
    assert titles(episodes.list_recent(store)) == [title]


def test_message_kept_exactly(store: Store) -> None:
    text = "line one\n\tline two \x07 with a bell\n" + "x" * 1_000_000
    msg = episodes.add_message(store, None, "user", text)
    assert store.one("SELECT content FROM messages WHERE id = ?", (msg.id,))[0] == text
    assert not episodes.had_real_exchange(episodes.episode_messages(store, 0))


def test_a_title_never_holds_a_secret_or_a_time() -> None:
    messages = [episodes.Message(1, 1, "user", "my bank password is hunter2xyz! remind me at 10:30 tomorrow", "")]
    title = episodes.heuristic_title_and_summary(messages)[0]
    assert title == "My bank password" and "hunter" not in title


@pytest.mark.parametrize("said, title", [
    ("my doctor is Dr. Amelia Hart at the Elm Street surgery", "My doctor is Dr. Amelia Hart…"),
    ("Mrs. Patel from St. Mary's called", "Mrs. Patel from St. Mary's called"),
    ("the plan for Mr. Jones. He arrives on Monday", "Plan for Mr. Jones"),
    ("bring the tools, e.g. the drill", "Bring the tools"),
    ("pack spare batteries e.g. AA and AAA ones", "Pack spare batteries e.g. AA and AAA ones"),
])
def test_a_title_without_a_model_goes_on_past_an_abbreviations_dot(said: str, title: str) -> None:
    """A tester's conversation about "Dr. Amelia Hart" was titled "My doctor is Dr": the dot of an
    abbreviation ended the clause as a sentence's would."""
    messages = [episodes.Message(1, 1, "user", said, "2026-11-22T14:00:00+00:00")]
    assert episodes.heuristic_title_and_summary(messages)[0] == title


@pytest.mark.parametrize("said, title", [
    ("is the bank call still on for tomorrow?", "Is the bank call still on"),
    ("book a table for two at Luigi's for Friday at 8pm", "Book a table for two at Luigi's"),
    ("remind me to send the forms to the accountant and the bank by Friday", "Send the forms to the accountant"),
    ("log in", "Log in"),
])
def test_a_title_does_not_end_on_a_word_left_dangling(said: str, title: str) -> None:
    """A newcomer's titles read "Is the bank call still on for" (the reminder's time taken off the end) and
    "... at the…" (cut at eight words): a phrase a person writes does not end on "for" or "the"."""
    messages = [episodes.Message(1, 1, "user", said, "2026-11-22T14:00:00+00:00")]
    assert episodes.heuristic_title_and_summary(messages)[0] == title
