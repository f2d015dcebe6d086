"""Issue 23: the offline mode answers with what is current, about the thing asked, for the days asked.
Clock: Sunday 22 Nov 2026 14:00 UTC, moved on where a test needs time to pass."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant.recall.evidence import find_evidence
from assistant.responders.offline import OfflineResponder
from assistant.turn.agent import Agent
from memory import episodes, memories
from tests.conftest import make_runtime
from tests.test_offline import say

if TYPE_CHECKING:
    from assistant.runtime import Runtime


def later(agent: Agent, **delta: float) -> None:
    agent.runtime.clock.fixed = agent.runtime.clock.now() + timedelta(**delta)


async def changed_then_asked(agent: Agent, first: str, then: str, question: str, days: float = 2) -> str:
    """`first` said, `then` said `days` later, then `question` asked (no tool call): the answer."""
    await say(agent, first)
    later(agent, days=days)
    await say(agent, then)
    answer, calls = await say(agent, question)
    assert calls == []
    return answer


# -- newest value first ---------------------------------------------------------------------------

@pytest.mark.parametrize("question", ["what's my door code?", "what is the door code for the building?",
                                      "door code?"])
async def test_a_restated_fact_is_answered_with_the_newest_value_and_what_it_replaced(agent: Agent,
                                                                                      question: str) -> None:
    answer = await changed_then_asked(agent, "remember that the door code for the building is 5829",
                                      "remember that the building door code changed to 7731", question)
    # The newest first; the older one only as older, each with the day it was said.
    assert answer == ("From memory: the building door code changed to 7731 (since Tue Nov 24; older, from Sun Nov 22: "
                      "5829)")


@pytest.mark.parametrize("question", ["what was the old door code?", "what was the previous door code?",
                                      "what was our door code before?"])
async def test_the_value_a_fact_had_before_is_asked_of_the_value_it_replaced(agent: Agent, question: str) -> None:
    """ "What was the old door code?" is the value the current one replaced, with its day; the current one
    follows as what replaced it."""
    answer = await changed_then_asked(agent, "remember that the front door code is 5582",
                                      "the front door code changed, it's 7719 now", question)
    assert answer == ("From memory (you told me Sun Nov 22): the front door code is 5582 (replaced Tue Nov 24: the "
                      "front door code changed, it's 7719 now)")


async def test_the_old_value_leads_even_when_the_current_one_answers_too(agent: Agent) -> None:
    # A tester's: "what was the old alarm code?" led with the current code, the old one only as older
    answer = await changed_then_asked(agent, "remember the house alarm code is 3141",
                                      "remember that the house alarm code changed, it's 9902 now",
                                      "what was the old alarm code?", days=1)
    first = "From memory (you told me Sun Nov 22): the house alarm code is 3141 (replaced Mon Nov 23"
    assert answer.startswith(first), answer


async def test_a_fact_never_restated_has_no_old_value(agent: Agent) -> None:
    await say(agent, "remember that the front door code is 5582")
    answer, _ = await say(agent, "what was the old door code?")
    assert answer.splitlines()[0] == "I don't have anything in memory about that."


async def test_a_restatement_without_a_parsable_value_still_names_the_older_one(agent: Agent) -> None:
    store = agent.runtime.store
    old = memories.remember(store, "the spare key is under the blue flower pot by the door")
    later(agent, days=1)
    new = memories.remember(store, "the spare key is now with the neighbour Ana")
    assert memories.get_memory(store, new.id) and store.one(
        "SELECT superseded_by FROM memory_meta WHERE memory_id = ?", (old.id,))[0] == new.id
    answer, _ = await say(agent, "where is the spare key?")
    assert answer.startswith("From memory: the spare key is now with the neighbour Ana (since Mon Nov 23; older, from "
                             "Sun Nov 22: ")
    assert "5829" not in answer and answer.count("spare key") == 1  # the older one only as older


async def test_the_judges_link_is_followed_too(agent: Agent) -> None:
    """A link made later by consolidation's judge (no change word at all) orders answers the same way."""
    store = agent.runtime.store
    old = memories.remember(store, "we keep the boat at Marina Sul")
    later(agent, days=1)
    new = memories.remember(store, "the boat sits at Porto Norte these days")
    with store.transaction():  # the judge's link in place of the one the write made by meaning, if it did
        store.execute("DELETE FROM edges WHERE edge_type = 'supersedes'")
        store.execute("INSERT INTO edges (source_type, source_id, target_type, target_id, edge_type, weight, reason, "
                      "run_id, created_at) VALUES ('memory', ?, 'memory', ?, 'supersedes', 1.0, 'judge', 'r1', ?)",
                      (new.id, old.id, store.clock.now_iso()))
        store.execute("UPDATE memory_meta SET superseded_by = ? WHERE memory_id = ?", (new.id, old.id))
    answer, _ = await say(agent, "where is the boat?")
    assert answer.startswith("From memory: the boat sits at Porto Norte these days (since Mon Nov 23; older, from Sun "
                             "Nov 22: we keep the boat at Marina Sul")


# -- answers that fit the question ------------------------------------------------------------------

async def karolina(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "my manager is Karolina and our 1:1 is every Thursday")
    memories.remember(store, "prepare notes for the 1:1 with Karolina", due_at="2026-11-26T14:00:00+00:00")
    memories.remember(store, "email Karolina", due_at="2026-11-23T10:00:00+00:00")
    memories.remember(store, "check the oven", due_at="2026-11-22T18:00:00+00:00")
    await say(agent, "the oven one")  # a stored message that shares "one" with "one-on-one"


async def test_when_about_a_reminder_gives_its_due_day_and_time(agent: Agent) -> None:
    await karolina(agent)
    answer, _ = await say(agent, "when is the 1:1 with Karolina?")
    assert "Reminder #2, prepare notes for the 1:1 with Karolina: due Thu Nov 26 14:00 (in 4 d)." in answer
    assert "email Karolina" not in answer


@pytest.mark.parametrize("question", ["when is my one-on-one?", "when is my 1:1?", "when do I meet Karolina?",
                                      "When's my 1-on-1"])
async def test_when_about_a_repeating_fact_gives_the_rule(agent: Agent, question: str) -> None:
    await karolina(agent)
    answer, _ = await say(agent, question)
    first = answer.splitlines()[0]
    assert first == ("From memory (you told me Sun Nov 22): my manager is Karolina and our 1:1 is every Thursday. "
                     "That is every Thu; the next one is Thu Nov 26.")
    assert "prepare notes for the 1:1 with Karolina: due Thu Nov 26 14:00" in answer
    assert "oven" not in answer and "email Karolina" not in answer


async def test_when_did_questions_still_get_reasoned_dates(agent: Agent) -> None:
    await say(agent, "remember that Sara moved to Lisbon last week")
    memories.remember(agent.runtime.store, "visit Sara in Lisbon", due_at="2026-12-20T10:00:00+00:00")
    answer, _ = await say(agent, "when did Sara move to Lisbon?")
    assert answer.startswith("From memory (you told me Sun Nov 22): Sara moved to Lisbon last week.")
    assert "the week of" in answer


async def test_a_question_about_a_thing_ranks_the_thing_above_a_reminder_sharing_a_word(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "pay the car insurance", due_at="2026-11-27T09:00:00+00:00")
    memories.remember(store, "I drive a blue 2015 Honda Civic")
    memories.remember(store, "my car is parked on level 3")
    answer, _ = await say(agent, "what car do I drive?")
    assert answer.splitlines()[0] == "From memory (you told me Sun Nov 22): I drive a blue 2015 Honda Civic"
    assert "pay the car insurance" not in answer.splitlines()[0]


async def test_the_assistants_own_echo_never_outranks_the_memory(agent: Agent) -> None:
    """A reply quoting the memory ("From memory (...): the boiler code is 4471") is never the answer,
    and in the evidence handed to reasoning it ranks below the memory it quotes."""
    await say(agent, "remember that the boiler code is 4471")
    for _ in range(3):
        await say(agent, "what is the boiler code?")
    answer, _ = await say(agent, "boiler code?")
    assert answer == "From memory (you told me Sun Nov 22): the boiler code is 4471"
    found = find_evidence(agent.runtime, "the boiler code", strict=False)
    assert (found[0].type, found[0].content) == ("memory", "the boiler code is 4471")
    own = [i for i, e in enumerate(found) if e.role == "assistant"]
    assert all(i > 0 for i in own) and all(not found[j].role == "assistant" for j in range(min(own or [0])))


# -- day scope ------------------------------------------------------------------------------------

async def test_what_did_we_talk_about_yesterday_lists_yesterdays_conversations_only(agent: Agent) -> None:
    rt = agent.runtime
    rt.clock.fixed = rt.clock.now() - timedelta(days=2)  # Friday
    await say(agent, "remember that the plumber is called Ana")
    agent.close_episode()
    later(agent, days=1)  # Saturday
    await say(agent, "remember that the ski pass costs 289 dollars")
    await say(agent, "remind me to book the ski lessons on monday at 9am")
    agent.close_episode()
    later(agent, days=1)  # Sunday, today
    await say(agent, "remember that the boiler code is 4471")
    answer, calls = await say(agent, "what did we talk about yesterday?")
    assert calls == [] and answer.startswith("What we talked about yesterday (Sat Nov 21):\n- [Nov 21 14:00] ")
    assert "Ski pass" in answer and "plumber" not in answer.lower() and "boiler" not in answer.lower()
    answer, _ = await say(agent, "what did we talk about today?")
    assert "(current conversation) Boiler code" in answer and "Ski" not in answer
    answer, _ = await say(agent, "what did we talk about last week?")
    assert answer == "We didn't talk last week (Mon Nov 9 - Sun Nov 15)."
    answer, _ = await say(agent, "what did we talk about on Friday?")
    assert "Plumber" in answer and "Ski" not in answer


async def test_what_do_i_have_tomorrow_lists_tomorrows_reminders_only(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "water the plants", due_at="2026-11-22T18:00:00+00:00")
    memories.remember(store, "call mom", due_at="2026-11-23T09:00:00+00:00")
    memories.remember(store, "buy bread", due_at="2026-11-23T23:30:00+00:00")
    memories.remember(store, "pay rent", due_at="2026-11-27T10:00:00+00:00")
    memories.remember(store, "take out the bins", due_at="every Saturday at 8am")
    answer, _ = await say(agent, "what do I have tomorrow?")
    assert answer == ("Tomorrow (Mon Nov 23):\n- #2 [DUE Mon Nov 23 09:00] call mom (in 19 h)\n"
                      "- #3 [DUE Mon Nov 23 23:30] buy bread (in 34 h)")
    answer, _ = await say(agent, "what do I have on Friday?")
    assert answer == "On Friday (Fri Nov 27):\n- #4 [DUE Fri Nov 27 10:00] pay rent (in 5 d)"
    answer, _ = await say(agent, "anything next weekend?")  # said on a Sunday: the coming one
    assert answer == ("Next weekend (Sat Nov 28 - Sun Nov 29):\n"
                      "- #5 [DUE Sat Nov 28 08:00, every Sat] take out the bins (in 6 d)")
    answer, _ = await say(agent, "what do I have on Dec 5?")  # a later occurrence of the series
    assert answer == "On Sat Dec 5:\n- #5 [DUE Sat Dec 5 08:00, every Sat] take out the bins (in 13 d)"
    answer, _ = await say(agent, "what's on today?")
    assert answer.startswith("Today (Sun Nov 22):\n- #1 [DUE Sun Nov 22 18:00] water the plants")
    answer, _ = await say(agent, "what do I have on Tuesday?")
    assert answer == "Nothing is due on Tuesday (Tue Nov 24)."


async def test_day_boundaries_are_the_users_local_midnights(tmp_path: Path) -> None:
    """In Tokyo (UTC+9) "tomorrow" said at 23:00 local is the next local day, whatever UTC says."""
    rt = make_runtime(tmp_path, ASSISTANT_TIMEZONE="Asia/Tokyo", ASSISTANT_NOW="2026-11-22T14:00:00+00:00")
    agent = Agent(rt, OfflineResponder(rt))
    memories.remember(rt.store, "early call", due_at="2026-11-22T15:30:00+00:00")  # Mon 00:30 in Tokyo
    memories.remember(rt.store, "late call", due_at="2026-11-23T14:30:00+00:00")  # Mon 23:30 in Tokyo
    memories.remember(rt.store, "next day", due_at="2026-11-23T15:30:00+00:00")  # Tue 00:30 in Tokyo
    answer, _ = await say(agent, "what do I have tomorrow?")
    assert answer.startswith("Tomorrow (Mon Nov 23):") and "early call" in answer and "late call" in answer
    assert "next day" not in answer
    rt.close()


async def test_recap_of_a_day_includes_the_conversation_in_progress_but_not_the_asking(agent: Agent) -> None:
    answer, _ = await say(agent, "what did we talk about today?")
    assert answer == "We didn't talk today (Sun Nov 22)."
    assert episodes.active_episode(agent.runtime.store) is not None


def test_a_recaps_new_memories_leave_out_what_was_replaced_since(runtime: Runtime) -> None:
    """A newcomer's recap listed "I live at 14 Elm Road" beside "I moved to 3 Harbour Lane", which replaced it,
    as if both were current (the Memories screen and the export mark it)."""
    from assistant.recap import recap_text
    from assistant.services import Services
    from memory import memories, supersession

    old = memories.remember(runtime.store, "I live at 14 Elm Road, Bristol")
    new = memories.remember(runtime.store, "I moved to 3 Harbour Lane, Cardiff")
    assert supersession.superseded_by(runtime.store, [old.id]) == {old.id: new.id}
    listed = Services(runtime).recap.build().new_memories
    assert any("Harbour Lane" in m for m in listed) and not any("Elm Road" in m for m in listed)
    assert "Harbour Lane" in recap_text(runtime) and "Elm Road" not in recap_text(runtime)
