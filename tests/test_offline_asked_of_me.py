"""What a newcomer asks first, offline (no model), through the whole turn: their reminders ("what
reminders do I have?", "what's on my list?") and what the assistant knows about them ("what do you know
about me?"); answers that quote the person's own commands back as facts (a message that asked something
of the assistant is no evidence, only a statement is); and the wording of an incognito conversation,
where nothing is kept. Clock: Sunday 22 Nov 2026 14:00 UTC."""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from assistant.reading import read
from assistant.responders.offline import OfflineResponder
from assistant.services import Services
from assistant.turn.agent import Agent
from memory import memories
from memory.transfer.jsonl_import import import_records
from tests.conftest import last_text, make_runtime
from tests.known_texts import KnownTexts
from tests.test_offline import say
from tests.test_requests import CLOCK


def two_reminders(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "call mom", due_at="2026-11-23T18:00:00+00:00")
    memories.remember(store, "pay rent", due_at="2026-11-27T10:00:00+00:00")


# -- 1. "what reminders do I have?" ------------------------------------------------------------------

@pytest.mark.parametrize("asked", ["what reminders do I have?", "What reminders do I have", "do I have any reminders?",
                                   "list my reminders", "my reminders", "what's on my list?", "what is on my list",
                                   "which reminders have I got?", "what are my reminders?", "any reminders?",
                                   "show me my to-do list", "are there any reminders?", "what's on my to-do list?"])
async def test_the_common_ways_of_asking_for_ones_reminders_list_them(agent: Agent, asked: str) -> None:
    two_reminders(agent)
    answer, _ = await say(agent, asked)
    assert answer.startswith("Coming up:"), answer
    assert "- #1 [DUE Mon Nov 23 18:00] call mom" in answer and "- #2 [DUE Fri Nov 27 10:00] pay rent" in answer


@pytest.mark.parametrize("said", ["what's on tomorrow?", "what's happening this weekend?", "what's planned for Friday?",
                                  "what's on my agenda today?", "anything coming up this week?",
                                  "what have I got on tomorrow?", "what's left to do today?"])
def test_an_agenda_asked_in_its_own_words_is_the_agenda(said: str) -> None:
    assert read(said, CLOCK).action.intent == "upcoming"


@pytest.mark.parametrize("asked", ["what's overdue?", "anything overdue?", "what am I late on?",
                                   "which reminders are overdue?"])
async def test_what_is_overdue_lists_the_late_reminders_only(agent: Agent, asked: str) -> None:
    # A newcomer's: "what's overdue?" got "I don't have anything in memory about that." with two overdue.
    two_reminders(agent)
    memories.remember(agent.runtime.store, "renew the passport", due_at="2026-11-01T09:00:00+00:00", allow_past=True)
    memories.remember(agent.runtime.store, "pay the gas bill", due_at="2026-11-20T09:00:00+00:00", allow_past=True)
    answer, _ = await say(agent, asked)
    assert answer.splitlines() == ["Overdue:", "- #3 [OVERDUE Sun Nov 1 09:00] renew the passport (overdue 21 d)",
                                   "- #4 [OVERDUE Fri Nov 20 09:00] pay the gas bill (overdue 2 d)"], answer


async def test_nothing_overdue_is_said_plainly(agent: Agent) -> None:
    two_reminders(agent)
    assert (await say(agent, "anything overdue?"))[0] == "Nothing is overdue."


async def test_no_reminders_is_said_plainly(agent: Agent) -> None:
    answer, _ = await say(agent, "what reminders do I have?")
    assert answer == "Nothing is due in the next 7 days."


@pytest.mark.parametrize("asked", ["what reminders do I have tomorrow?", "do I have any reminders on Friday?"])
async def test_reminders_of_a_day(agent: Agent, asked: str) -> None:
    two_reminders(agent)
    answer, _ = await say(agent, asked)
    day = "call mom" if "tomorrow" in asked else "pay rent"
    other = "pay rent" if day == "call mom" else "call mom"
    assert day in answer and other not in answer


@pytest.mark.parametrize("said", ["what's on my shopping list?", "do I have any reminders about the dentist?",
                                  "remind me what's on my list", "what reminders did Priya want?",
                                  # a newcomer's: something else asked of a day ("Nothing is due tomorrow")
                                  "what's the weather like tomorrow?", "what's the traffic like on Friday?",
                                  "what's for dinner tonight?"])
def test_other_questions_about_lists_and_reminders_are_not_the_agenda(said: str) -> None:
    assert read(said, CLOCK).action.intent != "upcoming"


@pytest.mark.parametrize("asked", ["what do you know about me?", "what have you remembered?",
                                   "What do you remember about me", "what do you know?", "what's in your memory?",
                                   "what have you got on me?",
                                   "tell me what you know about me", "show me my memories", "what are my memories?"])
async def test_what_do_you_know_about_me_lists_the_most_important_memories_with_dates(agent: Agent, asked: str) -> None:
    store, clock = agent.runtime.store, agent.runtime.clock
    clock.fixed = clock.now() - timedelta(days=5)
    memories.remember(store, "my sister's birthday is on March 3")
    clock.fixed = clock.now() + timedelta(days=1)
    memories.remember(store, "I prefer tea over coffee", importance=5)
    memories.remember(store, "the gate code is 4417")  # a secret: masked in the list
    memories.remember(store, "my therapist is Dr Ruiz", private=True)
    memories.remember(store, "call mom", due_at="2026-11-23T18:00:00+00:00")  # a reminder: not a thing known
    clock.fixed = clock.now() + timedelta(days=4)
    answer, calls = await say(agent, asked)
    lines = answer.splitlines()
    assert lines[0] == "What I know about you, the most important first, then the newest:", answer
    assert lines[1] == "- #2 I prefer tea over coffee (you told me Wed Nov 18)"
    assert "- #4 [Private] my therapist is Dr Ruiz (you told me Wed Nov 18)" in lines
    assert "- #3 the gate code is •••• (you told me Wed Nov 18)" in lines
    assert "- #1 my sister's birthday is on March 3 (you told me Tue Nov 17)" in lines
    assert "4417" not in answer and "call mom" not in answer and calls == []


async def test_what_do_you_know_about_me_with_nothing_kept(agent: Agent) -> None:
    answer, _ = await say(agent, "what do you know about me?")
    assert answer.startswith("I don't know anything about you yet.")


async def test_a_long_memory_is_listed_in_short_and_the_rest_counted(agent: Agent, known_texts: KnownTexts) -> None:
    store = agent.runtime.store
    facts = [f"fact number {n} " + "word " * 60 for n in range(14)]
    known_texts.learn_statements(facts)  # the bundled model's vectors of them, made ahead
    for fact in facts:
        memories.remember(store, fact, embedder=known_texts)
    answer, _ = await say(agent, "what do you know about me?")
    lines = answer.splitlines()
    assert len(lines) == 1 + 10 + 1 and lines[-1].startswith("… 4 more")
    assert all(len(line) < 200 for line in lines)


@pytest.mark.parametrize("said", ["what do you know about Priya?", "what do you remember about our trip to Rome?",
                                  "what do you know about taxes in Portugal?"])
def test_questions_about_other_things_stay_questions(said: str) -> None:
    assert read(said, CLOCK).action.intent == "question"


# -- 2. a command is no evidence of a fact ---------------------------------------------------------

async def test_a_forget_command_is_not_quoted_back_as_the_fact_it_forgot(agent: Agent) -> None:
    await say(agent, "remember that my sister's birthday is on March 3")
    await say(agent, "forget the sister's birthday")
    answer, calls = await say(agent, "yes")
    assert [c.name for c in calls] == ["forget"]
    answer, _ = await say(agent, "when is my sister's birthday?")
    assert "forget" not in answer and answer == "I don't have anything in memory about that."


async def test_a_request_the_offline_mode_could_not_do_is_not_quoted_back(agent: Agent) -> None:
    await say(agent, "tell me a joke number 1")
    answer, _ = await say(agent, "tell me a joke number 3")
    assert "joke number 1" not in answer
    await say(agent, "write me a poem about the sea")
    answer, _ = await say(agent, "what about the sea?")
    assert "poem" not in answer


@pytest.mark.parametrize("command", ["remind me to buy a birthday card for my sister tomorrow at 9",
                                     "snooze the sister birthday card", "done with the sister birthday card",
                                     "undo", "cancel the sister birthday card"])
async def test_commands_are_never_evidence(agent: Agent, command: str) -> None:
    await say(agent, command)
    store = agent.runtime.store
    for m in memories.memories_by_id(store, list(range(1, 5))):
        memories.forget(store, m.id)  # only the messages are left to find
    answer, _ = await say(agent, "what about my sister's birthday card?")
    assert command not in answer


async def test_a_statement_made_in_the_chat_is_still_found(agent: Agent) -> None:
    answer, calls = await say(agent, "my sister's birthday is on March 3")
    assert calls == []  # said, not kept as a memory: only the message holds it
    answer, _ = await say(agent, "when is my sister's birthday?")
    assert answer.startswith("From memory (you said Sun Nov 22): my sister's birthday is on March 3."), answer


async def test_an_imported_command_is_no_evidence_either(agent: Agent) -> None:
    """Messages with no turn of ours (imported, or older than the records) are read with the same reading."""
    lines = [json.dumps({"type": "episode", "id": "e1", "title": "old", "summary": "", "outcome": "success",
                         "started_at": "2026-11-20T09:00:00+00:00", "ended_at": "2026-11-20T10:00:00+00:00"})]
    for i, (role, text) in enumerate([("user", "forget my brother's birthday"), ("assistant", "ok"),
                                      ("user", "my brother's birthday is on July 9"), ("assistant", "noted")]):
        lines.append(json.dumps({"type": "message", "episode_id": "e1", "role": role, "content": text,
                                 "created_at": f"2026-11-20T09:0{i}:00+00:00"}))
    import_records(agent.runtime.store, lines)
    answer, _ = await say(agent, "when is my brother's birthday?")
    assert answer.startswith("From memory (you said Fri Nov 20): my brother's birthday is on July 9."), answer


@pytest.mark.parametrize(("said", "statement"), [
    ("my sister's birthday is on March 3", True), ("the car wouldn't start this morning", True),
    ("the gate code changed to 5521", True), ("book club is on Thursday", True), ("order arrived today", True),
    ("forget the sister's birthday", False), ("tell me a joke number 1", False), ("write me a poem", False),
    ("please translate this into French", False), ("let's plan a trip", False), ("remind me to call mom at 5", False),
    ("remember that the gate code is 1234", False), ("undo", False), ("when is it?", False), ("thanks!", False),
    ("done with 3", False), ("snooze it", False), ("what reminders do I have", False), ("hi", False),
])
def test_the_reading_says_which_messages_state_something(said: str, statement: bool) -> None:
    assert read(said, CLOCK).statement is statement


# -- 3. incognito: nothing is kept ----------------------------------------------------------------

async def test_an_incognito_chat_message_is_not_said_to_be_kept(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    services = Services(rt)
    services.model.agent = Agent(rt, OfflineResponder(rt))
    ordinary = last_text([e async for e in services.model.turn("write me a poem about the sea")])
    assert "your message is kept" in ordinary
    services.incognito.start()
    answer = last_text([e async for e in services.model.turn("write me a poem about the sea")])
    assert "your message is kept" not in answer and "saved" not in answer
    assert answer.startswith("I'm running without a chat model, so I can't chat about that. This is an incognito "
                             "conversation: nothing of it is kept.")
    rt.close()
