"""SPEC F7 offline provider, phrase by phrase, with a frozen clock (Sunday 22 Nov 2026 14:00 UTC)."""
from __future__ import annotations

import pytest

from assistant.agent import Agent
from assistant.events import Done, ToolCall
from assistant.providers.offline import NO_MODEL, OfflineProvider
from memory import knowledge, reminders
from tests.conftest import make_runtime


@pytest.fixture
def agent(tmp_path):
    rt = make_runtime(tmp_path)
    yield Agent(rt, OfflineProvider(rt))
    rt.close()


async def say(agent, text):
    events = [e async for e in agent.turn(text)]
    assert isinstance(events[-1], Done)
    return events[-1].text, [e for e in events if isinstance(e, ToolCall)]


@pytest.mark.parametrize("phrase, content, due", [
    ("remind me to call mom tomorrow at 6pm", "call mom", "2026-11-23T18:00:00+00:00"),
    ("Remind me to water the plants tomorrow at 9am.", "water the plants", "2026-11-23T09:00:00+00:00"),
    ("please remind me to pay rent on friday at 10", "pay rent", "2026-11-27T10:00:00+00:00"),
    ("remind me to take the bins out tonight", "take the bins out", "2026-11-22T20:00:00+00:00"),
    ("remind me about the dentist in 2 hours", "the dentist", "2026-11-22T16:00:00+00:00"),
    ("set a reminder to renew my passport next week", "renew my passport", "2026-11-29T14:00:00+00:00"),
])
async def test_remind_me(agent, phrase, content, due):
    answer, calls = await say(agent, phrase)
    [r] = reminders.get_upcoming(agent.runtime.store, 30)
    assert (r.memory.content, r.memory.due_at) == (content, due)
    assert calls[0].name == "remember" and answer == f"Okay, I'll remind you to {content} on {r.label[5:-1]} (#1)."


async def test_remind_without_time_asks(agent):
    answer, calls = await say(agent, "remind me to stretch")
    assert calls == [] and "couldn't find a time" in answer
    assert knowledge.count_memories(agent.runtime.store) == 0


async def test_remember_that(agent):
    answer, _ = await say(agent, "remember that my locker code is in the blue notebook")
    memory = knowledge.get_memory(agent.runtime.store, 1)
    assert memory.content == "my locker code is in the blue notebook" and memory.due_at is None
    assert answer == "Okay, I'll remember that my locker code is in the blue notebook (#1)."


async def test_coming_up_lists_and_marks_reminded(agent):
    store = agent.runtime.store
    knowledge.remember(store, "call mom", due_at="2026-11-23T18:00:00+00:00")
    answer, calls = await say(agent, "what's coming up?")
    assert "[DUE Mon Nov 23 18:00] call mom" in answer and "in 1 d" in answer
    assert [c.name for c in calls] == ["update_memory"]
    assert reminders.get_upcoming(store) == []  # mentioned: silent in the next prompt
    again, calls = await say(agent, "what's due")
    assert "call mom" in again and calls == []  # still listed when asked, not re-marked


async def test_done_by_id_and_by_words(agent):
    store = agent.runtime.store
    a = knowledge.remember(store, "call mom", due_at="tomorrow 6pm")
    b = knowledge.remember(store, "pay the electricity bill", due_at="tomorrow 9am")
    await say(agent, f"done with {a.id}")
    await say(agent, "done with electricity bill")
    assert knowledge.get_memory(store, a.id).done_at and knowledge.get_memory(store, b.id).done_at
    answer, _ = await say(agent, "done with 999")
    assert "didn't work" in answer and "999" in answer


async def test_forget(agent):
    m = knowledge.remember(agent.runtime.store, "old note")
    answer, _ = await say(agent, f"forget {m.id}")
    assert "Forgot" in answer and knowledge.count_memories(agent.runtime.store) == 0


async def test_recap_and_fallback(agent):
    answer, calls = await say(agent, "what did we talk about?")
    assert calls[0].name == "recall_recent" and "No episodes found in the last 48 hours." in answer
    answer, calls = await say(agent, "what is the meaning of life?")
    assert answer == NO_MODEL.strip() and calls == []
    assert "ANTHROPIC_API_KEY" in answer and "Ollama" in answer
