"""Issue 36: days, agendas, due phrases, event dates and the lists' counts, offline. Clock: Sunday 22 Nov
2026 14:00 UTC unless a test moves it."""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.reading.actions import Remind
from assistant.reading.understand import read_message
from assistant.responders.offline import OfflineResponder
from assistant.services.reminders import ReminderService
from assistant.turn.agent import Agent
from memory import memories, reminders
from memory.time.due_phrases import parse_due
from memory.time.instants import UTC
from tests.conftest import T0, Cli, make_runtime
from tests.test_offline import say

if TYPE_CHECKING:
    from memory.memories import Memory
    from memory.store import Store


def remind(store: Store, content: str, due: str) -> Memory:
    return memories.remember(store, content, due_at=due)


def day_store(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "water the plants", "2026-11-22T15:00:00+00:00")  # 1, this afternoon
    remind(store, "call mom", "2026-11-22T19:00:00+00:00")  # 2, tonight
    remind(store, "take the vitamins", "2026-11-22T08:00:00+00:00")  # 3, this morning, still open
    done = remind(store, "book the table", "2026-11-22T12:00:00+00:00")  # 4, done
    reminders.mark_done(store, done.id)
    remind(store, "pay rent", "2026-11-23T09:00:00+00:00")  # 5, tomorrow
    agent.runtime.clock.fixed = agent.runtime.clock.now() - timedelta(days=3)
    memories.remember(store, "dinner with Ana is tonight at 8", kind="fact")  # 6: said Thu, so Thu's night
    memories.remember(store, "the dentist appointment is on Tuesday at 3pm", kind="fact")  # 7
    memories.remember(store, "my Lisbon flight is on Dec 10", kind="fact")  # 8
    memories.remember(store, "we had sushi on Friday", kind="fact")  # 9: a past event, no plan
    agent.runtime.clock.fixed = agent.runtime.clock.now() + timedelta(days=3)


@pytest.mark.parametrize("question", ["what do I still have to do today?", "anything left for today?",
                                      "what's left today?", "anything else?", "what else do I have today?",
                                      "hey, anything left for today?"])
async def test_what_is_left_of_today_is_todays_open_reminders(agent: Agent, question: str) -> None:
    day_store(agent)
    answer, _ = await say(agent, question)
    assert answer == ("Today (Sun Nov 22):\n- #3 [OVERDUE Sun Nov 22 08:00] take the vitamins (overdue 6 h)\n"
                      "- #1 [DUE Sun Nov 22 15:00] water the plants (in 60 min)\n"
                      "- #2 [DUE Sun Nov 22 19:00] call mom (in 5 h)")
    assert "book the table" not in answer and "DONE" not in answer  # done reminders never appear


@pytest.mark.parametrize("question", ["what am I supposed to do tomorrow?", "anything booked for tomorrow?",
                                      "is there something I mustn't miss tomorrow?"])
async def test_a_question_about_a_day_nothing_in_memory_answers_gets_that_days_agenda(agent: Agent,
                                                                                        question: str) -> None:
    # A newcomer's "what am I supposed to do tomorrow?" was "I don't have anything in memory about that."
    day_store(agent)
    answer, _ = await say(agent, question)
    assert answer.startswith("Tomorrow (Mon Nov 23):\n- #5 [DUE Mon Nov 23 09:00] pay rent"), answer


async def test_a_day_agenda_never_takes_the_place_of_a_memory_near_the_question(tmp_path: Path) -> None:
    # The attacker's: "who is my dentist? I have a checkup tomorrow" lost the dentist, offered as the closest, to
    # tomorrow's agenda; a question about a past day got the coming one's.
    rt = make_runtime(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled")
    try:
        agent = Agent(rt, OfflineResponder(rt))
        memories.remember(rt.store, "My dentist is Dr Patel", kind="fact")
        remind(rt.store, "pay rent", "2026-11-23T09:00:00+00:00")
        answer, _ = await say(agent, "who is my dentist? I have a checkup tomorrow")
        assert "Dr Patel" in answer and "pay rent" not in answer, answer
        answer, _ = await say(agent, "what did I do on Monday?")
        assert "pay rent" not in answer, answer
    finally:
        rt.close()


async def test_a_question_about_a_day_that_memory_answers_is_answered_from_memory(agent: Agent) -> None:
    day_store(agent)
    answer, _ = await say(agent, "when is the dentist appointment on Tuesday?")
    assert "dentist appointment is on Tuesday" in answer.splitlines()[0], answer


@pytest.mark.parametrize("question, first, absent", [
    ("what's on tonight?", "Tonight (Sun Nov 22):\n- #2 [DUE Sun Nov 22 19:00] call mom", "water"),
    ("what do I have this afternoon?", "This afternoon (Sun Nov 22):\n- #1 [DUE Sun Nov 22 15:00] water the plants",
     "call mom"),
    ("anything this morning?", "This morning (Sun Nov 22):\n- #3 [OVERDUE Sun Nov 22 08:00] take the vitamins",
     "water"),
])
async def test_parts_of_the_day(agent: Agent, question: str, first: str, absent: str) -> None:
    day_store(agent)
    answer, _ = await say(agent, question)
    assert answer.startswith(first) and absent not in answer


async def test_a_day_is_the_users_local_day(tmp_path: Path) -> None:
    """In Tokyo (UTC+9) it is already Monday 23:00 at 14:00 UTC Sunday... no: 23:00 Sunday local; a
    reminder at 15:30 UTC is Monday 00:30 there, not today."""
    rt = make_runtime(tmp_path, ASSISTANT_TIMEZONE="Asia/Tokyo")
    agent = Agent(rt, OfflineResponder(rt))
    remind(rt.store, "late call", "2026-11-22T14:30:00+00:00")  # Sun 23:30 in Tokyo
    remind(rt.store, "early call", "2026-11-22T15:30:00+00:00")  # Mon 00:30 in Tokyo
    answer, _ = await say(agent, "what do I still have to do today?")
    assert answer.startswith("Today (Sun Nov 22):") and "late call" in answer and "early call" not in answer
    rt.close()


async def test_agendas_include_the_plans_said_with_a_date(agent: Agent) -> None:
    day_store(agent)
    answer, _ = await say(agent, "what do I have on Tuesday?")
    assert answer == ("On Tuesday (Tue Nov 24):\n- #7 [PLAN Tue Nov 24 15:00] the dentist appointment is on Tuesday "
                      "at 3pm (you told me Thu Nov 19)")
    answer, _ = await say(agent, "what's coming up this week?")
    assert "#7 [PLAN Tue Nov 24 15:00] the dentist appointment" in answer and "#5 [DUE Mon Nov 23 09:00] pay rent" in \
        answer and "sushi" not in answer and "book the table" not in answer
    answer, _ = await say(agent, "what do I have on Thursday?")
    assert answer == "Nothing is due on Thursday (Thu Nov 26)."  # "tonight" said on Thu Nov 19 was that night


@pytest.mark.parametrize("question, heading", [("where am I going in December?", "Trips in December:"),
                                               ("do I have any trips planned?", "Trips planned:"),
                                               ("any flights coming up?", "Trips planned:")])
async def test_trips_planned(agent: Agent, question: str, heading: str) -> None:
    day_store(agent)
    answer, _ = await say(agent, question)
    assert answer == f"{heading}\n- #8 [PLAN Thu Dec 10] my Lisbon flight is on Dec 10 (you told me Thu Nov 19)"


async def test_a_trip_asked_by_its_place_is_that_trip_or_none(agent: Agent) -> None:
    # A newcomer's: "when's my flight to Paris?" was answered with the Lisbon flight, the only trip stored
    day_store(agent)
    answer, _ = await say(agent, "when's my flight to Paris?")
    assert answer.startswith("I have no trip to Paris planned in memory.") and "Lisbon" not in answer.splitlines()[0]
    answer, _ = await say(agent, "when's my flight to Lisbon?")
    assert answer == "Trips planned:\n- #8 [PLAN Thu Dec 10] my Lisbon flight is on Dec 10 (you told me Thu Nov 19)"


async def test_no_trips(agent: Agent) -> None:
    answer, _ = await say(agent, "do I have any trips planned?")
    assert answer == "I have no trips planned in memory."


async def test_a_plan_that_moved_is_on_its_new_day_only(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "the offsite is on Dec 3", kind="fact")
    agent.runtime.clock.fixed = agent.runtime.clock.now() + timedelta(hours=1)
    await say(agent, "the offsite got pushed to the 12th")
    answer, _ = await say(agent, "what do I have on Dec 3?")
    assert answer == "Nothing is due on Thu Dec 3."
    answer, _ = await say(agent, "what do I have on Dec 12?")
    assert answer.startswith("On Sat Dec 12:\n- #2 [PLAN Sat Dec 12] the offsite got pushed to the 12th")


# -- what lies beyond a list's window --------------------------------------------------------------------

async def test_a_reminder_moved_out_of_the_window_never_vanishes(agent: Agent, cli: Cli) -> None:
    store = agent.runtime.store
    for n, day in enumerate((22, 23, 24, 25, 26), start=1):
        remind(store, f"task {n}", f"2026-11-{day}T18:00:00+00:00")
    remind(store, "renew the passport", "2026-12-07T09:00:00+00:00")
    remind(store, "call the dentist", "2026-11-24T10:00:00+00:00")
    answer, _ = await say(agent, "move 7 to 11 days from now")
    assert "Dec 3" in answer
    answer, _ = await say(agent, "what's coming up?")
    assert answer.endswith("and 2 later: next on Thu Dec 3") and "call the dentist" not in answer
    page = ReminderService(agent.runtime).page()
    assert (len(page.items), page.later, page.next_later, page.later_text) == (5, 2, "Thu Dec 3",
                                                                               "and 2 later: next on Thu Dec 3")
    assert page.next_later_at == "2026-12-03T14:00:00+00:00"


def test_the_reminders_text_counts_the_rest_and_json_stays_the_window(cli: Cli) -> None:
    for n in range(60):
        cli("remember", f"task {n}", "--due", f"2026-11-{23 + n % 5}T{8 + n // 5:02d}:00:00+00:00")
    cli("remember", "renew the passport", "--due", "2026-12-07T09:00:00+00:00")
    code, out, _ = cli("reminders")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 52
    assert lines[-2] == "… 10 more due in the next 7 days (assistant reminders --json lists every one)"
    assert lines[-1] == "and 1 later: next on Mon Dec 7"
    code, out, _ = cli("reminders", "--json")
    listed = json.loads(out)
    assert isinstance(listed, list) and len(listed) == 60 and "renew the passport" not in out
    code, out, _ = cli("reminders", "--within-days", "30", "--json")
    assert len(json.loads(out)) == 61 and "renew the passport" in out


def test_an_empty_window_still_says_what_comes_later(cli: Cli) -> None:
    cli("remember", "renew the passport", "--due", "2026-12-07T09:00:00+00:00")
    assert cli("reminders")[1] == "Nothing due in the next 7 days.\nand 1 later: next on Mon Dec 7\n"


def test_counts_come_from_the_index_not_the_rows(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts of a list (how many in the window, how many beyond it) read the partial index of open due
    dates and never a row: in the program SQLite runs for each count the lists make, the table is only ever
    sought lazily and no column of it is read."""
    for n in range(30):
        memories.remember(store, f"task {n}", due_at=f"2026-{11 + n // 20}-{1 + n % 20:02d}T09:00:00+00:00")
    ran: list[tuple[str, tuple[Any, ...]]] = []
    real = store.one

    def one(sql: str, params: tuple[Any, ...] = ()) -> Any:
        ran.append((sql, params))
        return real(sql, params)

    monkeypatch.setattr(store, "one", one)
    later = reminders.beyond_window(store, 7)
    _, total, late = reminders.urgent_open_reminders(store, 7, 5)
    assert (later.count, later.next_due_at, total, late) == (10, "2026-12-01T09:00:00+00:00", 20, 20)
    table = real("SELECT rootpage FROM sqlite_master WHERE name = 'knowledge'")[0]
    counts = [(sql, params) for sql, params in ran if "count(" in sql]
    assert len(counts) == 2
    for sql, params in counts:
        program = [tuple(r) for r in store.query(f"EXPLAIN {sql}", params)]
        cursors = {r[2] for r in program if r[1] == "OpenRead" and r[3] == table}
        assert cursors and not [r for r in program if r[1] in ("Column", "Rowid") and r[2] in cursors], program


# -- due phrases ---------------------------------------------------------------------------------------------

WEDNESDAY = T0 - timedelta(days=4)  # Wed Nov 18 14:00 UTC


@pytest.mark.parametrize("phrase, now, due", [
    ("this weekend", WEDNESDAY, "2026-11-21T09:00"), ("the weekend", WEDNESDAY, "2026-11-21T09:00"),
    ("this weekend at 10am", WEDNESDAY, "2026-11-21T10:00"), ("next weekend", WEDNESDAY, "2026-11-28T09:00"),
    ("next weekend", T0, "2026-11-28T09:00"),  # said on a Sunday: the coming one, as agendas read it
    ("this weekend", T0 - timedelta(days=1, hours=6), "2026-11-21T09:00"),  # Saturday 08:00
    ("this weekend", T0 - timedelta(days=1), "2026-11-22T09:00"),  # Saturday 14:00: Sunday
    ("end of the month", WEDNESDAY, "2026-11-30T09:00"), ("by the end of the month", WEDNESDAY, "2026-11-30T09:00"),
    ("end of next month", WEDNESDAY, "2026-12-31T09:00"), ("start of next month", WEDNESDAY, "2026-12-01T09:00"),
    ("end of the week", WEDNESDAY, "2026-11-20T09:00"), ("the 12th", WEDNESDAY, "2026-12-12T09:00"),
    ("the 30th", WEDNESDAY, "2026-11-30T09:00"), ("on the 1st", WEDNESDAY, "2026-12-01T09:00"),
])
def test_due_phrases(phrase: str, now: datetime, due: str) -> None:
    assert parse_due(phrase, now, UTC).isoformat().startswith(due)


def test_the_cli_takes_the_same_phrases(cli: Cli) -> None:
    code, out, err = cli("remember", "wash the Skoda", "--due", "this weekend", "--json",
                         now=WEDNESDAY.isoformat())
    assert code == 0 and json.loads(out)["due_at"] == "2026-11-21T09:00:00+00:00"
    code, out, err = cli("remember", "pay the card", "--due", "end of the month", "--json", now=WEDNESDAY.isoformat())
    assert code == 0 and json.loads(out)["due_at"] == "2026-11-30T09:00:00+00:00"


def test_remind_me_this_weekend_reads_the_task_and_the_day() -> None:
    action = read_message("remind me this weekend to wash the Skoda", WEDNESDAY, UTC)
    assert isinstance(action, Remind)
    assert (action.intent, action.content, action.due.isoformat()) == ("remind", "wash the Skoda",
                                                                        "2026-11-21T09:00:00+00:00")


# -- a reminder relative to an event whose date a memory states ----------------------------------------------

async def test_the_events_date_comes_from_the_memory_that_states_it(agent: Agent) -> None:
    memories.remember(agent.runtime.store, "my Lisbon flight is on Dec 10 at 7:05", kind="fact")
    answer, calls = await say(agent, "remind me to check in online two days before my Lisbon flight")
    assert [c.name for c in calls] == ["remember"]
    assert answer == ("Okay, I'll remind you to check in online on Tue Dec 8 07:05, two days before your Lisbon "
                      "flight (Thu Dec 10 07:05, as you told me Sun Nov 22) (#2).")


async def test_a_moved_event_gives_its_new_date(agent: Agent) -> None:
    memories.remember(agent.runtime.store, "the offsite is on Dec 3", kind="fact")
    agent.runtime.clock.fixed = agent.runtime.clock.now() + timedelta(hours=1)
    await say(agent, "the offsite got pushed to the 12th")
    answer, _ = await say(agent, "remind me a day before the offsite to book the train")
    assert "on Fri Dec 11 09:00, a day before the offsite (Sat Dec 12" in answer


async def test_several_dates_for_an_event_are_asked_about_and_the_choice_is_read(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "the Lisbon trip is on Dec 10", kind="fact")
    memories.remember(store, "Ana's Lisbon trip is on Jan 5", kind="fact")
    answer, calls = await say(agent, "remind me two days before the Lisbon trip to pack")
    assert calls == [] and memories.count_memories(store) == 2
    assert answer.splitlines()[0].startswith("When is the Lisbon trip? I have more than one date for it")
    answer, calls = await say(agent, "the second")
    assert [c.name for c in calls] == ["remember"]
    assert memories.get_memory(store, 3).due_at == "2027-01-03T09:00:00+00:00"


async def test_no_date_for_the_event_asks_for_it(agent: Agent) -> None:
    answer, calls = await say(agent, "remind me to check in online two days before my Lisbon flight")
    assert calls == [] and answer.startswith("When is your Lisbon flight?")


# -- short answers to our own question ------------------------------------------------------------------------

async def listed_two(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "call mom", "2026-11-23T18:00:00+00:00")
    remind(store, "call the bank", "2026-11-23T10:00:00+00:00")
    answer, _ = await say(agent, "cancel the call")
    assert answer.startswith("Which one did you mean?")


# Listed soonest first: #2 call the bank (10:00), then #1 call mom (18:00). A number is an id offered
# ("2" is #2), else a place in the list.
@pytest.mark.parametrize("said, left", [("both", []), ("both of them", []), ("the second", ["call the bank"]),
                                        ("2", ["call mom"]), ("the first one", ["call mom"]),
                                        ("#1", ["call the bank"]), ("the last one", ["call the bank"])])
async def test_a_short_answer_is_read_against_the_question(agent: Agent, said: str, left: list[str]) -> None:
    await listed_two(agent)
    answer, calls = await say(agent, said)
    assert calls and all(c.name == "forget" for c in calls)
    assert [r.memory.content for r in reminders.list_open_reminders(agent.runtime.store, 30)] == left


@pytest.mark.parametrize("said", ["neither", "none of them"])
async def test_neither_changes_nothing(agent: Agent, said: str) -> None:
    await listed_two(agent)
    answer, calls = await say(agent, said)
    assert calls == [] and answer == "OK, nothing was changed."
    assert len(reminders.list_open_reminders(agent.runtime.store, 30)) == 2


async def test_both_of_three_is_asked_again(agent: Agent) -> None:
    await listed_two(agent)
    remind(agent.runtime.store, "call the plumber", "2026-11-24T10:00:00+00:00")
    await say(agent, "cancel the call")
    answer, calls = await say(agent, "both")
    assert calls == [] and answer.startswith("Which one did you mean? There are 3 of them")


async def test_a_number_not_among_the_ids_is_the_place_in_the_list(agent: Agent) -> None:
    store = agent.runtime.store
    for n in range(12):
        memories.remember(store, f"note {n}")
    remind(store, "call mom", "2026-11-23T18:00:00+00:00")  # 13
    remind(store, "call the bank", "2026-11-23T10:00:00+00:00")  # 14
    await say(agent, "done with call")
    answer, calls = await say(agent, "2")  # the second listed: #13 (the bank, #14, is sooner)
    assert [c.arguments for c in calls] == [{"id": 13, "done": True}]


async def test_asked_again_the_answer_carries_out_the_first_request(agent: Agent) -> None:
    """After "both" of three was asked about again, "the first and the last" cancels those two: the request is
    the one that asked first ("cancel the call"), never a guess."""
    await listed_two(agent)
    remind(agent.runtime.store, "call the plumber", "2026-11-24T10:00:00+00:00")
    await say(agent, "cancel the call")
    await say(agent, "both")
    answer, calls = await say(agent, "the first and the last")
    assert [c.name for c in calls] == ["forget", "forget"]
    assert [r.memory.content for r in reminders.list_open_reminders(agent.runtime.store, 30)] == ["call mom"]
