"""SPEC F7 offline provider, phrase by phrase, with a frozen clock (Sunday 22 Nov 2026 14:00 UTC)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.offline.phrases import NO_MODEL
from assistant.responders.offline import OfflineResponder
from assistant.turn.agent import Agent
from assistant.turn.events import Done, ToolCall
from memory import memories, reminders
from tests.conftest import make_runtime, present


async def say(agent: Agent, text: str) -> tuple[str, list[ToolCall]]:
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
    ("remind me to book room 204 tomorrow at 9am", "book room 204", "2026-11-23T09:00:00+00:00"),  # keeps 204
])
async def test_remind_me(agent: Agent, phrase: str, content: str, due: str) -> None:
    answer, calls = await say(agent, phrase)
    [r] = reminders.get_upcoming(agent.runtime.store, 30)
    assert (r.memory.content, r.memory.due_at) == (content, due)
    link = "about" if phrase.startswith("remind me about") else "to"
    said = content.replace("my ", "your ")  # spoken back to the user
    assert calls[0].name == "remember" and answer == f"Okay, I'll remind you {link} {said} on {r.label[5:-1]} (#1)."


@pytest.mark.parametrize("phrase, content, due", [
    ("remind me tomorrow at 8am to water the plants", "water the plants", "2026-11-23T08:00:00+00:00"),
    ("remind me in 10 minutes to check the oven", "check the oven", "2026-11-22T14:10:00+00:00"),
    ("at 5pm remind me to call Bob", "call Bob", "2026-11-22T17:00:00+00:00"),
    ("remind me to call the bank at 12:45", "call the bank", "2026-11-23T12:45:00+00:00"),
])
async def test_time_before_or_after_the_task(agent: Agent, phrase: str, content: str, due: str) -> None:
    answer, _ = await say(agent, phrase)
    [r] = reminders.list_open_reminders(agent.runtime.store, 30)
    assert (r.memory.content, r.memory.due_at) == (content, due) and "remind me" not in r.memory.content
    assert answer.startswith(f"Okay, I'll remind you to {content} on ")


async def test_remind_without_time_asks_when_and_takes_the_next_message(agent: Agent) -> None:
    answer, calls = await say(agent, "remind me to file taxes")
    assert calls == [] and answer == "When should I remind you to file taxes?"
    assert memories.count_memories(agent.runtime.store) == 0
    answer, calls = await say(agent, "tomorrow at 9am")
    [r] = reminders.list_open_reminders(agent.runtime.store)
    assert (r.memory.content, r.memory.due_at) == ("file taxes", "2026-11-23T09:00:00+00:00")
    assert answer == "Okay, I'll remind you to file taxes on Mon Nov 23 09:00 (#1)."


@pytest.mark.parametrize("phrase, impossible, task", [
    ("remind me at 25:00 to sleep", "time of day as 25:00", "sleep"),
    ("remind me to eat at 13pm", "time of day as 13pm", "eat"),
    ("remind me on Feb 30 to pay the gas bill", "date as Feb 30", "pay the gas bill"),
    ("remind me on the 31st of April to renew", "date as 31st of April", "renew"),
])
async def test_a_time_no_day_has_sets_nothing_and_is_asked_again(agent: Agent, phrase: str, impossible: str,
                                                                 task: str) -> None:
    """A newcomer's "remind me at 25:00 to sleep" set "25:00 to sleep" for 9 the next morning (SPEC section 3: an
    impossible time is an error; the CLI refuses it)."""
    answer, calls = await say(agent, phrase)
    assert calls == [] and memories.count_memories(agent.runtime.store) == 0
    assert answer == f"There's no such {impossible}. When should I remind you to {task}?"
    answer, _ = await say(agent, "tomorrow at 9am")
    [r] = reminders.list_open_reminders(agent.runtime.store)
    assert (r.memory.content, r.memory.due_at) == (task, "2026-11-23T09:00:00+00:00")


@pytest.mark.parametrize("reply", ["never mind", "Cancel.", "forget it", "no", "nevermind!"])
async def test_a_question_of_ours_can_be_taken_back(agent: Agent, reply: str) -> None:
    await say(agent, "remind me to water the plants")
    answer, calls = await say(agent, reply)
    assert calls == [] and answer == "OK, nothing was changed."
    assert memories.count_memories(agent.runtime.store) == 0
    answer, _ = await say(agent, "never mind")  # no question pending: an ordinary message
    assert answer != "OK, nothing was changed."


async def test_an_answer_that_is_not_a_time_is_its_own_message(agent: Agent) -> None:
    await say(agent, "remind me to file taxes")
    answer, _ = await say(agent, "remember that the accountant is Mia")
    assert answer.startswith("Okay, I'll remember that the accountant is Mia")
    assert reminders.list_open_reminders(agent.runtime.store) == []


async def test_repeating_reminder_offline(agent: Agent) -> None:
    answer, _ = await say(agent, "remind me to take out the bins every Tuesday at 7pm")
    assert answer == "Okay, I'll remind you to take out the bins every Tue at 19:00, starting Tue Nov 24 19:00 (#1)."
    [r] = reminders.list_open_reminders(agent.runtime.store)
    assert r.label == "[DUE Tue Nov 24 19:00, every Tue]"
    answer, _ = await say(agent, "done with the bins")
    assert answer == ('Done: take out the bins. Next one: Tue Dec 1 19:00 (every Tue, #1) (say "undo" to put it '
                      'back).')


async def test_a_task_said_as_a_statement_is_told_with_that(agent: Agent) -> None:
    """A newcomer's: "Okay, I'll remind you to it's Tom's football night every Thu ..."."""
    answer, _ = await say(agent, "Every Thursday at 7pm remind me it's Tom's football night")
    assert answer.startswith("Okay, I'll remind you that it's Tom's football night every Thu at 19:00"), answer
    [r] = reminders.list_open_reminders(agent.runtime.store)
    assert r.memory.content == "it's Tom's football night"


async def test_remember_that(agent: Agent) -> None:
    answer, _ = await say(agent, "remember that my locker code is in the blue notebook")
    memory = memories.get_memory(agent.runtime.store, 1)
    assert memory.content == "my locker code is in the blue notebook" and memory.due_at is None
    assert answer == "Okay, I'll remember that my locker code is in the blue notebook (#1)."


@pytest.mark.parametrize("said, kept", [("I'm allergic to penicillin, remember that", "I'm allergic to penicillin"),
                                        ("my locker is 112 - remember that please", "my locker is 112"),
                                        ("the spare key is with Doug. Please remember this.",
                                         "the spare key is with Doug")])
async def test_remember_said_after_what_to_keep_keeps_it(agent: Agent, said: str, kept: str) -> None:
    """A newcomer's: "I'm allergic to penicillin, remember that" was noted only, and told to say "remember that"."""
    answer, _ = await say(agent, said)
    assert answer == f"Okay, I'll remember that {kept} (#1).", answer
    assert memories.get_memory(agent.runtime.store, 1).content == kept


async def test_a_code_reset_said_plainly_is_kept_and_answers(agent: Agent) -> None:
    """A newcomer's: "the alarm code got reset to 9024" after "the alarm code at home is 5561" (both said plainly)
    was only noted, and "what's the alarm code?" answered 5561."""
    await say(agent, "the alarm code at home is 5561")
    answer, _ = await say(agent, "the alarm code got reset to 9024")
    assert answer.startswith("Okay, I'll remember that the alarm code got reset to 9024")
    answer, _ = await say(agent, "what's the alarm code?")
    assert answer.splitlines()[0].endswith("the alarm code got reset to 9024"), answer


@pytest.mark.parametrize("said", ["remember my flight to Lisbon is on Friday at 7am",
                                  "remember that my holiday in Rome starts on Friday",
                                  "remember my upcoming trip to Oslo is booked for next week"])
async def test_remember_of_a_trip_keeps_it_and_asks_nothing(agent: Agent, said: str) -> None:
    # A tester's: "remember my flight to Lisbon is on Friday at 7am" was read as "any trips on Friday?", kept nothing
    answer, _ = await say(agent, said)
    assert answer.startswith("Okay, I'll remember that "), answer
    assert memories.get_memory(agent.runtime.store, 1).content == said.split(" ", 1)[1].removeprefix("that ")


async def test_coming_up_lists_and_marks_reminded(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "call mom", due_at="2026-11-23T18:00:00+00:00")
    answer, calls = await say(agent, "what's coming up?")
    assert "[DUE Mon Nov 23 18:00] call mom" in answer and "in 28 h" in answer
    assert [c.name for c in calls] == ["update_memory"]
    assert reminders.get_upcoming(store) == []  # mentioned: silent in the next prompt
    again, calls = await say(agent, "what's due")
    assert "call mom" in again and calls == []  # still listed when asked, not re-marked


async def test_done_by_id_and_by_words(agent: Agent) -> None:
    store = agent.runtime.store
    a = memories.remember(store, "call mom", due_at="tomorrow 6pm")
    b = memories.remember(store, "pay the electricity bill", due_at="tomorrow 9am")
    await say(agent, f"done with {a.id}")
    await say(agent, "done with electricity bill")
    assert memories.get_memory(store, a.id).done_at and memories.get_memory(store, b.id).done_at
    answer, _ = await say(agent, "done with 999")
    assert "didn't work" in answer and "999" in answer


async def test_done_by_words_acts_only_on_one_clear_match(agent: Agent) -> None:
    """ "done with call the plumber" (already done) once completed "call mom": now it asks."""
    store = agent.runtime.store
    plumber = memories.remember(store, "call the plumber", due_at="tomorrow 6pm")
    mom = memories.remember(store, "call mom", due_at="tomorrow 7pm")
    sis = memories.remember(store, "call my sister", due_at="tomorrow 8pm")
    reminders.mark_done(store, plumber.id)
    answer, calls = await say(agent, "done with call the plumber")
    assert calls == [] and answer.startswith("Which one did you mean?") and f"#{mom.id} call mom" in answer
    answer, calls = await say(agent, "done with call")
    assert calls == [] and f"#{mom.id}" in answer and f"#{sis.id}" in answer
    assert memories.get_memory(store, mom.id).done_at is None and memories.get_memory(store, sis.id).done_at is None
    answer, calls = await say(agent, "done with the dentist")
    assert calls == [] and "couldn't find an open reminder" in answer


async def test_forget(agent: Agent) -> None:
    m = memories.remember(agent.runtime.store, "old note")
    answer, _ = await say(agent, f"forget {m.id}")
    assert "Forgot" in answer and memories.count_memories(agent.runtime.store) == 0


async def test_recap(agent: Agent) -> None:
    answer, calls = await say(agent, "what did we talk about?")
    assert calls[0].name == "recall_recent"


async def test_help_and_chat_say_how_to_connect_a_model(agent: Agent) -> None:
    answer, calls = await say(agent, "help")
    assert answer == NO_MODEL.replace("{model}", "llama3.2:3b") and calls == []
    answer, _ = await say(agent, "hello")
    assert "ANTHROPIC_API_KEY" in answer and "ollama serve" in answer
    answer, _ = await say(agent, "I had a long day")
    # a statement: one line (issue 46), which says it is no memory
    assert answer == 'Noted in this conversation; to keep it as a memory, say "remember that ...".'
    answer, _ = await say(agent, "write me a poem about the sea")
    assert "without a chat model" in answer and "remember that" in answer


@pytest.mark.parametrize("question", [
    "what is the boiler code?", "What's the boiler code", "do you remember the boiler code?",
    "boiler code?", "remind me of the boiler code",
])
async def test_a_fact_is_answered_from_memory_however_it_is_asked(agent: Agent, question: str) -> None:
    await say(agent, "remember that the boiler code is 4471")
    await say(agent, "remember that the gate code for the side door is 1234")
    await say(agent, "what is the boiler code?")  # an earlier question must never be the answer
    answer, calls = await say(agent, question)
    assert calls == [] and answer == "From memory (you told me Sun Nov 22): the boiler code is 4471"


async def test_statements_rank_above_questions_and_small_talk(agent: Agent) -> None:
    store = agent.runtime.store
    await say(agent, "when is my sister's birthday?")
    await say(agent, "ok thanks")
    memories.remember(store, "my sister's birthday is March 3", kind="fact")
    answer, _ = await say(agent, "when is my sister's birthday?")
    assert answer == "From memory (you told me Sun Nov 22): my sister's birthday is March 3. That is Wed Mar 3 2027."


async def test_when_question_is_told_at_the_precision_it_was_said(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-12T10:00:00+00:00")
    agent = Agent(rt, OfflineResponder(rt))
    await say(agent, "remember that Sara moved to Lisbon last month")
    rt.clock.fixed = rt.clock.now().replace(day=22)
    answer, _ = await say(agent, "when did Sara move to Lisbon?")
    assert answer == ("From memory (you told me Thu Nov 12): Sara moved to Lisbon last month. "
                      "That was in October 2026.")
    answer, _ = await say(agent, "where does Sara live?")
    assert answer == "From memory (you told me Thu Nov 12): Sara moved to Lisbon last month [October 2026]"
    rt.close()


async def test_a_question_with_no_answer_says_so_plainly(agent: Agent) -> None:
    await say(agent, "remember that the boiler code is 4471")
    answer, calls = await say(agent, "what is my dentist's phone number?")
    assert calls == [] and answer == "I don't have anything in memory about that."


async def test_forget_really_forgets(agent: Agent) -> None:
    """'forget 12' left the value answerable from the stored "remember that ..." message."""
    await say(agent, "remember that the bike lock combination is 2580")
    await say(agent, "what is the bike lock combination?")
    answer, _ = await say(agent, "forget 1")
    assert answer.startswith("Forgot #1")
    answer, _ = await say(agent, "what is the bike lock combination?")
    assert "2580" not in answer and answer == "I don't have anything in memory about that."
    texts = [r[0] for r in agent.runtime.store.query("SELECT content FROM messages ORDER BY id")]
    assert not any("2580" in t for t in texts)
    assert texts[0] == "remember that [forgotten]"  # the message stays, its secret does not


@pytest.mark.parametrize("said", ["done with the oven and the soup", "tick off the oven and the soup",
                                  "done with the soup, the oven"])
async def test_a_request_naming_several_reminders_acts_on_each(agent: Agent, said: str) -> None:
    # A newcomer's: "done with the oven and the soup" got "Which one did you mean?" of the two it named.
    store = agent.runtime.store
    oven = memories.remember(store, "check the oven", due_at="tomorrow 7pm")
    soup = memories.remember(store, "stir the soup", due_at="tomorrow 8pm")
    bins = memories.remember(store, "put the bins out", due_at="tomorrow 9pm")
    answer, calls = await say(agent, said)
    assert len(calls) == 2, answer
    assert memories.get_memory(store, oven.id).done_at and memories.get_memory(store, soup.id).done_at
    assert not memories.get_memory(store, bins.id).done_at


async def test_several_named_with_one_unclear_changes_nothing_and_asks(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "check the oven", due_at="tomorrow 7pm")
    memories.remember(store, "call the bank", due_at="tomorrow 8pm")
    memories.remember(store, "call the dentist", due_at="tomorrow 9pm")
    answer, calls = await say(agent, "done with the oven and the call")
    assert calls == [] and answer.startswith("Which one did you mean?"), answer
    assert store.number("SELECT count(*) FROM knowledge WHERE done_at IS NOT NULL") == 0


async def test_a_bare_number_answers_which_one(agent: Agent) -> None:
    store = agent.runtime.store
    mom = memories.remember(store, "call mom", due_at="tomorrow 7pm")
    memories.remember(store, "call the bank", due_at="tomorrow 8pm")
    answer, _ = await say(agent, "done with call")
    assert answer.startswith("Which one did you mean?")
    answer, calls = await say(agent, f"#{mom.id}")
    assert [c.name for c in calls] == ["update_memory"] and memories.get_memory(store, mom.id).done_at


@pytest.mark.parametrize("text, reply", [
    ("hello, how are you?", "Hi!"), ("thanks!", "You're welcome."), ("thank you so much", "You're welcome."),
])
async def test_small_talk_gets_small_talk(agent: Agent, text: str, reply: str) -> None:
    answer, calls = await say(agent, text)
    assert calls == [] and answer.startswith(reply)


async def test_the_confirmation_speaks_to_the_user(agent: Agent) -> None:
    answer, _ = await say(agent, "remind me to stretch my legs in 10 minutes")
    assert answer.startswith("Okay, I'll remind you to stretch your legs on ")
    assert memories.get_memory(agent.runtime.store, 1).content == "stretch my legs"  # stored as said


async def test_an_empty_recap_says_so_plainly(agent: Agent) -> None:
    answer, _ = await say(agent, "what did we talk about?")
    assert answer == "We haven't talked in the last 48 hours."


async def test_tonight_said_late_is_kept_and_due_at_once_as_everywhere(tmp_path: Path) -> None:
    """Issue 22 item 4: the app (offline mode) refused "tonight" at 22:50 while the CLI kept it."""
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-22T22:50:00+00:00")
    agent = Agent(rt, OfflineResponder(rt))
    answer, calls = await say(agent, "remind me tonight to lock the car")
    stored = memories.get_memory(rt.store, 1)
    assert stored.content == "lock the car" and stored.due_at == "2026-11-22T20:00:00+00:00"
    assert "overdue" in answer
    rt.close()


async def test_an_answer_we_cannot_read_as_a_time_asks_again_and_keeps_the_task(agent: Agent) -> None:
    """A newcomer answered "after work" to "When should I remind you to buy milk?" and lost the task."""
    await say(agent, "remind me to buy milk")
    answer, calls = await say(agent, "after work")
    assert not calls and '"after work"' in answer and "When should I remind you to buy milk?" in answer
    answer, calls = await say(agent, "at 6pm")
    assert [c.name for c in calls] == ["remember"] and "buy milk" in answer
    assert memories.get_memory(agent.runtime.store, 1).content == "buy milk"


async def test_a_new_reminder_sent_while_we_ask_when_is_its_own_request(agent: Agent) -> None:
    """A newcomer sent "remind me to call the vet tomorrow at 10am" after "When should I remind you to
    water the plants at 25pm?": the vet's time was taken for the plants and the vet was lost."""
    await say(agent, "remind me to file taxes")
    answer, _ = await say(agent, "remind me to call the vet tomorrow at 10am")
    [r] = reminders.list_open_reminders(agent.runtime.store)
    assert (r.memory.content, r.memory.due_at) == ("call the vet", "2026-11-23T10:00:00+00:00")
    assert "call the vet" in answer


async def test_remind_me_with_only_a_time_still_answers_when(agent: Agent) -> None:
    await say(agent, "remind me to file taxes")
    await say(agent, "remind me tomorrow at 9am")
    [r] = reminders.list_open_reminders(agent.runtime.store)
    assert (r.memory.content, r.memory.due_at) == ("file taxes", "2026-11-23T09:00:00+00:00")


@pytest.mark.parametrize("phrase", ["remember that", "Remember this!", "note that"])
async def test_remember_with_nothing_after_it_keeps_nothing(agent: Agent, phrase: str) -> None:
    """A newcomer typed "remember that" alone and got "Okay, I'll remember that that (#22)."."""
    answer, calls = await say(agent, phrase)
    assert calls == [] and memories.count_memories(agent.runtime.store) == 0
    assert "remember that that" not in answer


@pytest.mark.parametrize("text, kept", [
    ("oh and by the way my bank card PIN is 3141, don't let me forget it", "my bank card PIN is 3141"),
    ("my passport number is 533380006, don't let me forget that", "my passport number is 533380006"),
    ("the spare key is with Mrs Ellis. Don't let me forget!", "the spare key is with Mrs Ellis"),
])
async def test_a_statement_followed_by_dont_let_me_forget_is_kept(agent: Agent, text: str, kept: str) -> None:
    """The newcomer's "... PIN is 3141, don't let me forget it" was read as a reminder "to it" with no time:
    "When should I remind you to it?", and nothing was kept."""
    answer, _ = await say(agent, text)
    assert "remind you" not in answer
    [memory] = memories.created_since(agent.runtime.store, None)
    assert kept in memory.content and "forget" not in memory.content


@pytest.mark.parametrize(("asked", "due"), [("remind me in 15 minutes", "2026-11-22T14:15:00+00:00"),
                                            ("remind me in an hour", "2026-11-22T15:00:00+00:00"),  # was "hour", Dec 22
                                            ("remind me tomorrow", "2026-11-23T09:00:00+00:00"),
                                            ("remind me tomorrow at 9", "2026-11-23T09:00:00+00:00"),
                                            ("remind me at 5pm", "2026-11-22T17:00:00+00:00")])
async def test_a_reminder_with_a_time_and_nothing_to_do_asks_what_and_takes_the_answer(agent: Agent, asked: str,
                                                                                       due: str) -> None:
    # "remind me in 15 minutes" set a reminder "to in"; "remind me tomorrow at 9" one "to tomorrow".
    answer, calls = await say(agent, asked)
    assert calls == [] and answer.startswith("What should I remind you about on "), answer
    answer, calls = await say(agent, "to take the bread out")
    [reminder] = reminders.list_open_reminders(agent.runtime.store, within_days=2)
    assert (reminder.memory.content, reminder.due_at) == ("take the bread out", due), answer


async def test_a_reminder_some_minutes_before_the_thing_itself_is_before_it(agent: Agent) -> None:
    # A newcomer's "remind me about the team meeting 15 minutes before" was read as 15 minutes before now.
    await say(agent, "remind me about the team meeting tomorrow at 10:30")
    answer, calls = await say(agent, "remind me about the team meeting 15 minutes before")
    assert [c.name for c in calls] == ["remember"], answer
    dues = sorted(r.due_at for r in reminders.list_open_reminders(agent.runtime.store, within_days=2))
    assert dues == ["2026-11-23T10:15:00+00:00", "2026-11-23T10:30:00+00:00"]


async def test_a_turns_record_holds_no_secret_value(agent: Agent) -> None:
    """An attacker found "the storage locker combo is 3141" in the Why record of the turn that kept it (SPEC F14:
    the app's own stored words hold no secret value); the memory itself keeps it, the record shows "[secret]"."""
    from memory import turn_records

    await say(agent, "remember that the storage locker combo is 3141")
    await say(agent, "remind me at 25:00 to change the wifi password from Admin123x to Zebra-Tango-44")
    records = [present(turn_records.get(agent.runtime.store, r[0]))
               for r in agent.runtime.store.query("SELECT message_id FROM turn_records ORDER BY message_id")]
    quoted = json.dumps([[r.reading, r.tools] for r in records], default=str)
    assert "storage locker combo is [secret]" in quoted
    assert "3141" not in quoted and "Admin123x" not in quoted and "Zebra-Tango-44" not in quoted
    asked = present(records[-1].asked)
    assert "Zebra-Tango-44" in asked.request  # what the question asked is kept as said: the answer carries it out


async def test_a_turns_record_holds_no_value_only_the_classifier_finds(tmp_path: Path) -> None:
    """A re-check found "for the garden shed it's 6183 these days" (the classifier's) as said in the Why record."""
    from assistant.responders.offline import OfflineResponder
    from memory import turn_records

    rt = make_runtime(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled")
    try:
        agent = Agent(rt, OfflineResponder(rt))
        await say(agent, "remember that for the garden shed it's 6183 these days")
        records = [present(turn_records.get(rt.store, r[0]))
                   for r in rt.store.query("SELECT message_id FROM turn_records")]
        quoted = json.dumps([[r.reading, r.tools] for r in records], default=str)
        assert "garden shed" in quoted and "6183" not in quoted, quoted
    finally:
        rt.close()



@pytest.mark.parametrize("said", ["I took the laundry out", "just took the laundry out!"])
async def test_a_reminder_said_done_in_the_past_is_offered_to_mark_done(agent: Agent, said: str) -> None:
    """A newcomer's "I took the laundry out" with "take the laundry out" open got "Noted", the reminder left open."""
    await say(agent, "remind me to take the laundry out at 6pm")
    await say(agent, "remind me to call the bank tomorrow at 10am")
    answer, calls = await say(agent, said)
    assert calls == [] and answer.startswith('Did you mean "done with 1" (#1 take the laundry out)?'), answer
    answer, calls = await say(agent, "yes")
    assert [c.name for c in calls] == ["update_memory"]
    assert [r.memory.content for r in reminders.list_open_reminders(agent.runtime.store)] == ["call the bank"]


async def test_a_repeating_reminder_done_today_is_not_offered_again_for_next_time(agent: Agent) -> None:
    # A newcomer's: "done with the bins", then "I've put the bins out" offered next week's bins
    await say(agent, "remind me to put the bins out every day at 6pm")
    await say(agent, "done with the bins")
    answer, _ = await say(agent, "I've put the bins out")
    assert not answer.startswith("Did you mean"), answer


@pytest.mark.parametrize("said", ["I took the bins out", "the laundry is out", "I called mum"])
async def test_a_statement_about_another_thing_is_no_done(agent: Agent, said: str) -> None:
    await say(agent, "remind me to take the laundry out at 6pm")
    answer, calls = await say(agent, said)
    assert calls == [] and not answer.startswith("Did you mean"), answer
