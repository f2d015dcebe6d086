"""Issue 36: the offline mode on new phrasings of the same needs. A labelled set of questions over one
store (facts said plainly, changes said as people say them, passing mentions that are newer, reminders
that share a word), answered by the whole offline turn; precision and recall of the answer's first
line. Clock: Sunday 22 Nov 2026 14:00 UTC; the store is written in the days before."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from assistant.responders.offline import OfflineResponder
from assistant.turn.agent import Agent
from memory import memories
from tests.conftest import T0, make_runtime
from tests.test_offline import say

# Said plainly ("remember that ...") on Tue Nov 10.
FACTS = ["the gate code is 1234", "the cat's vet is Dr. Lee", "I live in Braga", "the offsite is on Dec 3",
         "the standup is at 9", "my work number is 0161 496 0000", "I drive a 2014 Corolla",
         "Tom's birthday is on March 3", "my gym is PureGym", "Priya Sharma is my new colleague",
         "my licence plate is AB-12-CD", "the boiler service is on Nov 30", "the school pickup is at 3:15",
         "my dentist is Dr Kim", "the wifi password is on the fridge", "my sister lives in Leeds", "I work at Acme",
         "our landlord is Mr Silva", "the book club meets on Thursdays"]
# Newer passing mentions (Sun Nov 15): they share the words but say nothing of the thing asked.
MENTIONS = ["the car wouldn't start this morning", "the gym was packed today", "Tom loved the concert",
            "the boiler made a weird noise", "the cat hated the carrier", "Priya brought cake to the office",
            "the standup ran long again", "the dentist had a new receptionist"]
REMINDERS = [("buy a present for Tom", "2026-12-01T09:00:00+00:00"),
             ("call about the boiler", "2026-11-25T09:00:00+00:00"),
             ("pick up the kids from school", "2026-11-23T15:15:00+00:00"),
             ("renew the car insurance", "2026-11-27T09:00:00+00:00")]
# Said in the chat on Fri Nov 20, without "remember that".
CHANGES = ["heads up, the gate code changed to 5521", "we switched the cat to a new vet, Dr. Ames",
           "moved to Porto last month", "the standup is now at 9:30", "my work number is now 0161 496 0999",
           "the offsite got pushed to the 12th", "the boiler service got pushed back to Dec 4",
           "I switched gyms to The Gym Group", "I work at Globex now", "our landlord is now Mrs Costa",
           "the book club is on Wednesdays now"]

# (question, what the answer's first line must hold; None: nothing in memory answers it)
QUESTIONS = [
    ("what's the gate code?", "5521"), ("gate code?", "5521"), ("what is the code for the gate?", "5521"),
    ("who's the cat's vet?", "Dr. Ames"), ("who is the vet for the cat?", "Dr. Ames"),
    ("where do I live now?", "Porto"), ("where do I live?", "Porto"), ("where am I living these days?", "Porto"),
    ("when is the offsite?", "12th"), ("what date is the offsite?", "12th"),
    ("when is the standup?", "9:30"), ("what time is the standup?", "9:30"),
    ("what's my work number?", "0161 496 0999"), ("work number?", "0161 496 0999"),
    ("what car do I drive?", "2014 Corolla"), ("what do I drive?", "2014 Corolla"),
    ("which gym do I go to?", "The Gym Group"), ("what's my gym?", "The Gym Group"),
    ("when is Tom's birthday?", "March 3"), ("when's Tom's birthday", "March 3"),
    ("when is the boiler service?", "Dec 4"), ("when is the school pickup?", "3:15"),
    ("what's Priya's last name?", "Priya Sharma"), ("what is Priya's surname?", "Priya Sharma"),
    ("who is Priya?", "Priya Sharma"), ("hey, who is Priya?", "Priya Sharma"), ("hi! who's Priya?", "Priya Sharma"),
    ("what's my licence plate?", "AB-12-CD"), ("what's my license plate?", "AB-12-CD"),
    ("who is my dentist?", "Dr Kim"), ("where is the wifi password?", "fridge"),
    ("where does my sister live?", "Leeds"), ("where do I work?", "Globex"), ("who do I work for?", "Globex"),
    ("who is our landlord?", "Mrs Costa"), ("who's the landlord?", "Mrs Costa"),
    ("when does the book club meet?", "Wednesdays"),
    # written after the rules above were tuned on the rest (their first run: see docs/offline.md)
    ("what's the code for the gate now?", "5521"), ("is the gate code still 1234?", "5521"),
    ("what city do I live in?", "Porto"), ("when's the offsite now?", "12th"), ("what time's standup?", "9:30"),
    ("my work number?", "0161 496 0999"), ("what's my car?", "2014 Corolla"),
    ("what kind of car do I have?", "2014 Corolla"), ("which gym am I at?", "The Gym Group"),
    ("what day is Tom's birthday?", "March 3"), ("when's the boiler being serviced?", "Dec 4"),
    ("what's Priya's full name?", "Priya Sharma"), ("tell me about Priya", "Priya Sharma"),
    ("what's the plate number of my car?", "AB-12-CD"), ("who's my dentist?", "Dr Kim"),
    ("where's the wifi password?", "fridge"), ("where does my sister live now?", "Leeds"),
    ("where am I working now?", "Globex"), ("who is the landlord now?", "Mrs Costa"),
    ("what day is book club?", "Wednesdays"),
    ("what's the door code?", None), ("who is my doctor?", None), ("what's Tom's phone number?", None),
    ("when is the dentist appointment?", None), ("where does Priya live?", "Priya Sharma"),  # the memory about her
    ("what's my wife's name?", None),
    # nothing in memory answers these: saying so is right, another thing's value is wrong
    ("what's the alarm code?", None), ("who is Marco?", None), ("when is the wedding?", None),
    ("what's the pharmacy's number?", None), ("where does my brother live?", None),
    ("what's my bank's sort code?", None), ("who's the dog's vet?", None),
]
NOTHING = "I don't have anything in memory about that."


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The store written over the days before, then every question asked in one conversation."""
    import asyncio

    tmp = tmp_path_factory.mktemp("questions")
    rt = make_runtime(tmp, ASSISTANT_NOW=(T0 - timedelta(days=12)).isoformat())
    agent = Agent(rt, OfflineResponder(rt))

    async def run() -> dict[str, str]:
        for fact in FACTS:
            await say(agent, f"remember that {fact}")
        rt.clock.fixed = T0 - timedelta(days=7)
        for mention in MENTIONS:
            memories.remember(rt.store, mention)
        for content, due in REMINDERS:
            memories.remember(rt.store, content, due_at=due)
        rt.clock.fixed = T0 - timedelta(days=2)
        for change in CHANGES:
            answer, calls = await say(agent, change)
            assert [c.name for c in calls] == ["remember"], (change, answer)
        rt.clock.fixed = T0
        answers: dict[str, str] = {}
        for question, _ in QUESTIONS:
            answers[question] = (await say(agent, question))[0]
        return answers

    answers = asyncio.run(run())
    rt.close()
    return answers


def measure(answers: dict[str, str]) -> dict[str, Any]:
    right = wrong = missed = 0
    mistakes = []
    for question, wanted in QUESTIONS:
        first = answers[question].splitlines()[0]
        if wanted is None:
            ok = first == NOTHING
            wrong += not ok
        elif first == NOTHING:
            ok = False
            missed += 1
        else:
            ok = wanted in first
            right, wrong = right + ok, wrong + (not ok)
        if not ok:
            mistakes.append((question, wanted, first))
    answerable = sum(wanted is not None for _, wanted in QUESTIONS)
    return {"questions": len(QUESTIONS), "precision": right / max(1, right + wrong), "recall": right / answerable,
            "mistakes": mistakes}


def test_the_labelled_questions_are_answered_with_what_is_current_and_defining(asked: dict[str, str]) -> None:
    figures = measure(asked)
    assert figures["precision"] >= 0.95 and figures["recall"] >= 0.9, figures["mistakes"]


@pytest.mark.parametrize("question, newest, older", [
    ("what's the gate code?", "the gate code changed to 5521", "1234"),
    ("who's the cat's vet?", "we switched the cat to a new vet, Dr. Ames", "Dr. Lee"),
    ("where do I live now?", "moved to Porto last month", "Braga"),
    ("when is the offsite?", "the offsite got pushed to the 12th", "on Dec 3"),
    ("what's my work number?", "my work number is now 0161 496 0999", "0161 496 0000"),
])
def test_the_newest_value_leads_and_the_older_one_is_named_as_older_with_both_dates(asked: dict[str, str],
                                                                                    question: str, newest: str,
                                                                                    older: str) -> None:
    first = asked[question].splitlines()[0]
    assert first.startswith(f"From memory: {newest}")
    assert f"(since Fri Nov 20; older, from Tue Nov 10: {older})" in first


def test_a_defining_memory_outranks_a_newer_passing_mention(asked: dict[str, str]) -> None:
    first = asked["what car do I drive?"].splitlines()[0]
    assert first == "From memory (you told me Tue Nov 10): I drive a 2014 Corolla"
    assert "wouldn't start" not in asked["what car do I drive?"]
    assert "packed" not in asked["which gym do I go to?"]


def test_when_uses_the_date_said_for_the_event_not_a_reminder_that_shares_a_word(asked: dict[str, str]) -> None:
    assert asked["when is Tom's birthday?"] == ("From memory (you told me Tue Nov 10): Tom's birthday is on March 3. "
                                                "That is Wed Mar 3 2027.")
    assert asked["when is the boiler service?"].startswith(
        "From memory: the boiler service got pushed back to Dec 4 (since Fri Nov 20; older, from Tue Nov 10: on Nov "
        "30). That is Fri Dec 4.")
    assert asked["when is the school pickup?"].startswith("From memory (you told me Tue Nov 10): the school pickup is "
                                                          "at 3:15")


def test_a_greeting_does_not_hide_the_question(asked: dict[str, str]) -> None:
    assert asked["hey, who is Priya?"] == asked["who is Priya?"]
    assert asked["who is Priya?"].startswith("From memory (you told me Tue Nov 10): Priya Sharma is my new colleague")


# -- statements of change, said without "remember that" ------------------------------------------------

@pytest.mark.parametrize("said", ["the new season starts on Friday", "now I remember", "now I remember where the "
                                  "keys are", "we moved the sofa to the living room", "the car wouldn't start",
                                  "I changed my mind", "I'm moving to Berlin next year"])
async def test_near_misses_are_not_kept_as_changes(agent: Agent, said: str) -> None:
    await say(agent, "remember that I live in Braga")
    answer, calls = await say(agent, said)
    assert calls == [] and memories.count_memories(agent.runtime.store) == 1


async def test_a_change_said_in_another_language_is_kept_and_supersedes(agent: Agent) -> None:
    await say(agent, "remember that el código de la puerta es 5829")
    agent.runtime.clock.fixed = agent.runtime.clock.now() + timedelta(days=1)
    answer, calls = await say(agent, "el código de la puerta cambió a 7731")
    assert [c.name for c in calls] == ["remember"]
    assert answer == ("Okay, I'll remember that el código de la puerta cambió a 7731 (#2); it replaces #1 from Sun Nov "
                      "22 (el código de la puerta es 5829).")


async def test_the_door_code_changed_its_now(agent: Agent) -> None:
    await say(agent, "remember that the door code is 5829")
    agent.runtime.clock.fixed = agent.runtime.clock.now() + timedelta(days=1)
    answer, calls = await say(agent, "the door code changed, it's now 7730")
    assert [c.name for c in calls] == ["remember"] and "it replaces #1" in answer
    answer, _ = await say(agent, "what's the door code?")
    assert answer == ("From memory: the door code changed, it's now 7730 (since Mon Nov 23; older, from Sun Nov 22: "
                      "5829)")
