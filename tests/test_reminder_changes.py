"""Issue 23: reminders changed from the chat (cancel, move, snooze, change N, rename, undo), the last
change recorded in the store (so undo works from a later command, another process, after a restart,
and brings the reminder back with its id), near misses that act on nothing, reminders relative to an
event. Clock: Sunday 22 Nov 2026 14:00 UTC."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.responders.offline import OfflineResponder
from assistant.tools import execute_tool
from assistant.turn.agent import Agent
from memory import changes, memories, reminders
from memory.changes import UndoneChange
from memory.errors import InvalidInput
from tests.conftest import Cli, make_runtime, present
from tests.test_offline import say

if TYPE_CHECKING:
    from memory.memories import Memory
    from memory.store import Store
    from tests.standins import StandIn


def memory_of(undone: UndoneChange | None) -> Memory:
    """The memory an undo gave back (the test expects one)."""
    assert undone is not None and undone.memory is not None
    return undone.memory


def snapshot(store: Store) -> list[tuple[Any, ...]]:
    rows = store.query("SELECT id, content, due_at, done_at, reminded_at FROM knowledge ORDER BY id")
    return [tuple(r) for r in rows]


def remind(store: Store, content: str, due: str) -> Memory:
    return memories.remember(store, content, due_at=due)


async def test_cancel_by_words_then_undo_brings_it_back_with_its_id(agent: Agent) -> None:
    store = agent.runtime.store
    oven = remind(store, "check the oven", "2026-11-22T18:00:00+00:00")
    remind(store, "call the dentist", "2026-11-27T09:00:00+00:00")
    answer, calls = await say(agent, "cancel the oven reminder")
    assert [c.name for c in calls] == ["forget"] and answer == (
        'Cancelled: check the oven (#1) (say "undo" to put it back).')
    assert [m.content for m in (r.memory for r in reminders.list_open_reminders(store))] == ["call the dentist"]
    answer, _ = await say(agent, "undo")
    assert answer == "Undone: #1 check the oven is back (due Sun Nov 22 18:00)."
    back = memories.get_memory(store, oven.id)
    assert (back.id, back.content, back.due_at, back.created_at) == (oven.id, oven.content, oven.due_at,
                                                                     oven.created_at)
    answer, _ = await say(agent, "undo")
    assert answer == "Nothing to undo: no change is recorded."


async def test_move_keeps_the_day_when_only_a_time_is_given(agent: Agent) -> None:
    store = agent.runtime.store
    dentist = remind(store, "call the dentist", "2026-11-27T09:00:00+00:00")
    answer, _ = await say(agent, "move the dentist call to 10am")
    assert memories.get_memory(store, dentist.id).due_at == "2026-11-27T10:00:00+00:00"
    assert answer == 'Moved: call the dentist to Fri Nov 27 10:00 (#1) (say "undo" to put it back).'
    await say(agent, "reschedule 1 to tomorrow at 7:30am")
    assert memories.get_memory(store, dentist.id).due_at == "2026-11-23T07:30:00+00:00"
    await say(agent, "push the dentist back an hour")
    assert memories.get_memory(store, dentist.id).due_at == "2026-11-23T08:30:00+00:00"
    await say(agent, "undo")
    assert memories.get_memory(store, dentist.id).due_at == "2026-11-23T07:30:00+00:00"


async def test_a_day_said_without_a_time_keeps_the_reminders_time(agent: Agent) -> None:
    """A tester's find: "snooze the dry cleaning to saturday" made Fri 18:00 into Sat 09:00."""
    store = agent.runtime.store  # the clock: Sun Nov 22 14:00 UTC
    cleaning = remind(store, "pick up the dry cleaning", "2026-11-27T18:00:00+00:00")
    await say(agent, "snooze the dry cleaning to saturday")
    assert memories.get_memory(store, cleaning.id).due_at == "2026-11-28T18:00:00+00:00"
    await say(agent, "move the dry cleaning to monday")
    assert memories.get_memory(store, cleaning.id).due_at == "2026-11-23T18:00:00+00:00"
    await say(agent, "move the dry cleaning to friday at 10am")  # a time said stands
    assert memories.get_memory(store, cleaning.id).due_at == "2026-11-27T10:00:00+00:00"
    await say(agent, "snooze the dry cleaning for 2 hours")  # an amount, from its own time
    assert memories.get_memory(store, cleaning.id).due_at == "2026-11-27T12:00:00+00:00"


async def test_snooze_change_n_and_rename(agent: Agent) -> None:
    store = agent.runtime.store
    laundry = remind(store, "take the laundry out", "2026-11-22T13:55:00+00:00")
    answer, _ = await say(agent, "snooze the laundry for 5 minutes")
    assert memories.get_memory(store, laundry.id).due_at == "2026-11-22T14:05:00+00:00"
    assert answer.startswith("Snoozed: take the laundry out to Sun Nov 22 14:05 (#1)")
    await say(agent, "change 1 to tomorrow at 7am")
    assert memories.get_memory(store, laundry.id).due_at == "2026-11-23T07:00:00+00:00"
    answer, _ = await say(agent, "rename 1 to hang the laundry")
    assert memories.get_memory(store, laundry.id).content == "hang the laundry"
    assert answer == 'Renamed #1: hang the laundry, due Mon Nov 23 07:00 (say "undo" to put it back).'
    answer, _ = await say(agent, "undo")
    assert answer == "Undone: #1 take the laundry out has its earlier words back (due Mon Nov 23 07:00)."
    assert memories.get_memory(store, laundry.id).content == "take the laundry out"


async def test_snoozing_a_reminder_not_due_yet_puts_it_off_from_its_own_time(agent: Agent) -> None:
    store = agent.runtime.store
    laundry = remind(store, "take the laundry out", "2026-11-22T14:45:00+00:00")
    answer, _ = await say(agent, "snooze the laundry for 5 minutes")
    assert memories.get_memory(store, laundry.id).due_at == "2026-11-22T14:50:00+00:00"  # not 14:05
    await say(agent, "snooze it until 6pm")
    assert memories.get_memory(store, laundry.id).due_at == "2026-11-22T18:00:00+00:00"


async def test_snooze_that_after_a_reminder_was_named(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "stretch", "2026-11-22T13:00:00+00:00")
    await say(agent, "remind me to check the oven at 2:30pm")
    answer, _ = await say(agent, "snooze that for 10 minutes")
    assert memories.get_memory(store, 2).due_at == "2026-11-22T14:40:00+00:00"  # the one named last, not #1
    assert memories.get_memory(store, 1).due_at == "2026-11-22T13:00:00+00:00"


async def test_an_ambiguous_target_lists_the_candidates_and_changes_nothing(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "call mom", "2026-11-23T18:00:00+00:00")
    remind(store, "call the bank", "2026-11-23T10:00:00+00:00")
    before = snapshot(store)
    for text in ("cancel the call", "move call to 6pm", "snooze call for 5 minutes", "rename call to ring"):
        answer, calls = await say(agent, text)
        assert calls == [] and answer.startswith("Which one did you mean? Say its number (nothing was changed):")
        assert "#1 call mom" in answer and "#2 call the bank" in answer
    assert snapshot(store) == before
    answer, calls = await say(agent, "2")  # one of the numbers offered: the last request acts on it
    assert [c.name for c in calls] == ["update_memory"]
    assert memories.get_memory(store, 2).content == "ring"


async def test_one_reminder_found_by_some_of_the_words_is_offered_alone_and_yes_takes_it(agent: Agent) -> None:
    # A newcomer was asked "Which one did you mean?" with one reminder listed; "yes" was not an answer.
    store = agent.runtime.store
    remind(store, "call the plumber", "2026-11-23T09:00:00+00:00")
    remind(store, "water the plants", "2026-11-23T18:00:00+00:00")
    before = snapshot(store)
    answer, calls = await say(agent, "cancel the plumber reminder, he phoned me back")
    assert calls == [] and answer.startswith('Did you mean this one? Say "yes" or its number'), answer
    assert "#1 call the plumber" in answer and "water the plants" not in answer
    assert snapshot(store) == before
    answer, calls = await say(agent, "yes")
    assert [c.name for c in calls] == ["forget"] and "call the plumber" in answer, answer


async def test_yes_to_several_offered_changes_nothing(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "call mom", "2026-11-23T18:00:00+00:00")
    remind(store, "call the bank", "2026-11-23T10:00:00+00:00")
    await say(agent, "cancel the call")
    before = snapshot(store)
    answer, calls = await say(agent, "yes")
    assert calls == [] and answer.startswith("Which one did you mean? There are 2 of them"), answer
    assert snapshot(store) == before


async def test_a_number_that_was_not_offered_changes_nothing(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "call mom", "2026-11-23T18:00:00+00:00")
    remind(store, "call the bank", "2026-11-23T10:00:00+00:00")
    remind(store, "water the plants", "2026-11-23T10:00:00+00:00")
    await say(agent, "done with call")
    before = snapshot(store)
    answer, calls = await say(agent, "3")
    assert calls == [] and answer.startswith("Which one did you mean? #3 is not one of these")
    assert snapshot(store) == before
    answer, calls = await say(agent, "the bank one")
    assert [c.name for c in calls] == ["update_memory"] and memories.get_memory(store, 2).done_at


async def test_forget_by_words(agent: Agent) -> None:
    store = agent.runtime.store
    await say(agent, "remember that the wifi password is hunter22")
    answer, calls = await say(agent, "forget the wifi password")  # named by words: shown whole, asked first
    assert calls == [] and answer.startswith('Forget #1 "the wifi password is hunter22"? Say "yes"')
    assert memories.count_memories(store) == 1
    answer, calls = await say(agent, "yes")
    assert [c.name for c in calls] == ["forget"] and answer == 'Forgot #1 (say "undo" to put it back).'
    assert memories.count_memories(store) == 0
    memories.remember(store, "the wifi password at the office is apple")
    memories.remember(store, "the wifi password for guests is pear")
    answer, calls = await say(agent, "forget the wifi password")
    assert calls == [] and answer.startswith("Which one did you mean? Say its number (nothing was forgotten yet):")
    assert "#2 the wifi password at the office is apple" in answer and "#3 the wifi password for guests" in answer
    answer, calls = await say(agent, "#3")
    assert [c.name for c in calls] == ["forget"] and [m.id for m in memories.matching(store, ["wifi"])] == [2]
    answer, calls = await say(agent, "forget the garage code")
    assert calls == [] and answer == 'I have nothing in memory matching "garage code", so nothing was forgotten.'


async def test_forget_by_some_of_its_words_shows_the_whole_memory_and_no_keeps_it(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "my car is a blue golf, plate KX-404, parked on level 3")
    answer, calls = await say(agent, "forget my licence plate")  # only "plate" is in the memory
    assert calls == [] and answer.startswith('Forget #1 "my car is a blue golf, plate KX-404, parked on level 3"?')
    assert "is only part of it: forgetting takes the whole memory" in answer
    answer, calls = await say(agent, "no")
    assert calls == [] and answer == "OK, nothing was changed." and memories.count_memories(store) == 1
    answer, calls = await say(agent, "yes")  # a yes that answers nothing forgets nothing
    assert calls == [] and memories.count_memories(store) == 1


async def test_cancel_by_number_refuses_a_memory_that_is_not_a_reminder(agent: Agent) -> None:
    store = agent.runtime.store
    memories.remember(store, "the boiler code is 4471")
    answer, calls = await say(agent, "cancel 1")
    assert calls == [] and answer == '#1 is a note, not a reminder; to delete it say "forget 1".'
    assert memories.count_memories(store) == 1


@pytest.mark.parametrize("text, expected", [
    ("remnd me to call bob in 10 min", 'Did you mean "remind me to call bob in 10 min"?'),
    ("snoze the laundry", 'Did you mean "snooze the laundry"?'),
    ("cancle the oven reminder", 'Did you mean "cancel the oven reminder"?'),
    ("udno", 'Did you mean "undo"?'),
])
async def test_typos_get_a_short_reply_that_acts_on_nothing(agent: Agent, text: str, expected: str) -> None:
    store = agent.runtime.store
    remind(store, "take the laundry out", "2026-11-22T18:00:00+00:00")
    before = snapshot(store)
    answer, calls = await say(agent, text)
    assert calls == [] and answer.startswith(expected) and "nothing was changed" in answer
    assert "change them (done, cancel, move, snooze, rename, undo)" in answer
    assert "No chat model is configured" not in answer and snapshot(store) == before


async def test_yes_to_a_suggestion_does_it(agent: Agent) -> None:
    await say(agent, "remnd me to call bob in 10 min")
    answer, calls = await say(agent, "yes")
    assert [c.name for c in calls] == ["remember"]
    assert answer == "Okay, I'll remind you to call bob on Sun Nov 22 14:10 (#1)."


async def test_a_reminder_named_with_nothing_to_do_lists_what_can_be_done(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "check the oven", "2026-11-22T18:00:00+00:00")
    before = snapshot(store)
    answer, calls = await say(agent, "the oven one")
    assert calls == [] and snapshot(store) == before
    assert answer.startswith("What should I do with it?\n- #1 check the oven (DUE Sun Nov 22 18:00)")
    assert '"snooze 1 for 10 minutes"' in answer and '"cancel 1"' in answer


async def test_the_no_model_reply_points_to_what_works(agent: Agent) -> None:
    answer, _ = await say(agent, "I had a long day")
    assert answer.count("\n") == 0  # a statement: one line (issue 46 item 13)
    answer, _ = await say(agent, "write me a poem about autumn")  # the first request it cannot do
    assert "without a chat model" in answer and "change them (done, cancel, move, snooze, rename, undo)" in answer
    answer, _ = await say(agent, "help")
    assert "move the dentist call to 10am" in answer and "undo" in answer


# -- undo recorded in the store -------------------------------------------------------------------

async def test_undo_works_after_a_restart_and_for_every_writer(tmp_path: Path, cli: Cli) -> None:
    """The CLI, the model's tools and the offline mode record the change; any of them undoes it."""
    cli("remember", "call mom", "--due", "2026-11-23T18:00:00+00:00")
    cli("remember", "water the plants", "--due", "every Sunday at 6pm")
    assert cli("forget", "1")[0] == 0
    code, out, _ = cli("undo")
    assert code == 0 and out.strip() == "Undone: #1 call mom is back (due Mon Nov 23 18:00)."
    cli("snooze", "1", "2026-11-24T09:00:00+00:00")
    cli("done", "2")  # a repeating one: this occurrence done, the series moved on
    code, out, _ = cli("undo", "--json")
    undone = json.loads(out)
    assert undone["undone"] == "done" and undone["memory"]["due_at"] == "2026-11-22T18:00:00+00:00"
    assert cli("reminders", "--json")[1].count('"done_at": null') == 2
    cli("update", "1", "--due", "2026-11-30T09:00:00+00:00")
    # A later process, another front end: the chat of the offline mode undoes the CLI's change.
    rt = make_runtime(tmp_path)
    agent = Agent(rt, OfflineResponder(rt))
    answer, _ = await say(agent, "undo")
    assert answer == "Undone: #1 call mom is back at its earlier time (due Tue Nov 24 09:00)."
    # The model's tools record too.
    execute_tool(rt, "update_memory", {"id": 1, "done": True})
    execute_tool(rt, "update_memory", {"id": 1, "reminded_at": "now"})  # bookkeeping: not a change to undo
    assert present(changes.undo_last_change(rt.store)).action == "done"
    execute_tool(rt, "forget", {"id": 2})
    rt.close()
    code, out, _ = cli("undo")
    assert out.strip() == "Undone: #2 water the plants is back (due Sun Nov 22 18:00, every Sun)."
    assert cli("undo")[1].strip() == "Nothing to undo: no change is recorded."


def test_only_the_last_change_is_kept_and_a_failed_change_keeps_the_record(store: Store) -> None:
    a = memories.remember(store, "call mom", due_at="2026-11-23T18:00:00+00:00")
    b = memories.remember(store, "pay rent", due_at="2026-11-27T10:00:00+00:00")
    with changes.recorded(store, a.id, "done"):
        reminders.mark_done(store, a.id)
    with changes.recorded(store, b.id, "snooze"):
        reminders.snooze(store, b.id, "2026-11-28T10:00:00+00:00")
    assert store.one("SELECT count(*) FROM memory_changes")[0] == 1
    with pytest.raises(InvalidInput, match="already done"), changes.recorded(store, a.id, "snooze"):
        reminders.snooze(store, a.id, "2026-11-29T10:00:00+00:00")  # done already: refused
    assert present(changes.last_change(store))["memory_id"] == b.id
    assert memory_of(changes.undo_last_change(store)).due_at == "2026-11-27T10:00:00+00:00"
    assert memories.get_memory(store, a.id).done_at is not None  # the first change was not the last one


def test_a_change_to_any_memory_is_recorded_not_only_a_reminders(store: Store) -> None:
    note = memories.remember(store, "the boiler code is 4471")
    changes.record_change(store, note.id, "forget")
    assert present(changes.last_change(store))["memory_id"] == note.id
    with pytest.raises(InvalidInput, match="unknown change"):
        changes.record_change(store, note.id, "paint")


# -- reminders relative to an event ----------------------------------------------------------------

async def test_relative_to_an_event_with_a_known_date(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "submit the budget report", "2026-12-10T17:00:00+00:00")
    answer, calls = await say(agent, "remind me two days before the budget report is due to review the numbers")
    [r] = [r for r in reminders.list_open_reminders(store, 30) if r.memory.id == 2]
    assert (r.memory.content, r.memory.due_at) == ("review the numbers", "2026-12-08T17:00:00+00:00")
    assert answer.startswith("Okay, I'll remind you to review the numbers on Tue Dec 8 17:00, two days before "
                             "the budget report (#1 submit the budget report, Thu Dec 10 17:00)")


async def test_relative_to_an_event_dated_in_the_message_or_in_a_memory(agent: Agent) -> None:
    store = agent.runtime.store
    await say(agent, "remind me to book a taxi the day before the trip to Rome on Dec 12 at 8am")
    assert (memories.get_memory(store, 1).content, memories.get_memory(store, 1).due_at) == (
        "book a taxi", "2026-12-11T08:00:00+00:00")
    memories.remember(store, "the offsite is on Dec 3 at 9am")
    await say(agent, "remind me a week before the offsite to send the agenda")
    assert (memories.get_memory(store, 3).content, memories.get_memory(store, 3).due_at) == (
        "send the agenda", "2026-11-26T09:00:00+00:00")


async def test_relative_to_an_unknown_event_asks_for_its_date_and_never_stores_the_phrase(agent: Agent) -> None:
    store = agent.runtime.store
    answer, calls = await say(agent, "remind me two days before the budget report is due to review the numbers")
    assert calls == [] and memories.count_memories(store) == 0
    assert answer == ("When is the budget report? Then I'll remind you two days before it to review the numbers.")
    answer, calls = await say(agent, "Dec 10 at 5pm")
    [m] = [memories.get_memory(store, 1)]
    assert (m.content, m.due_at) == ("review the numbers", "2026-12-08T17:00:00+00:00")
    assert "two days before the budget report" in answer


async def test_relative_to_an_event_already_too_close_asks_when(agent: Agent) -> None:
    store = agent.runtime.store
    remind(store, "the budget review", "2026-11-23T10:00:00+00:00")
    answer, calls = await say(agent, "remind me two days before the budget review to check the numbers")
    assert calls == [] and "has already passed" in answer and "When should I remind you to check the numbers?" in answer
    await say(agent, "tonight at 8")
    assert memories.get_memory(store, 2).content == "check the numbers"


def test_the_app_service_records_each_change_so_any_undo_puts_it_back(tmp_path: Path) -> None:
    """The TUI changes reminders through the reminders service: each change is the store's recorded last
    change, so ctrl+z, "undo" in the chat and `assistant undo` all reach it."""
    from assistant.services import Services
    from memory.errors import InvalidInput, NotFound

    services = Services(make_runtime(tmp_path, ASSISTANT_PROVIDER="offline"))
    store = services.runtime.store
    bins = remind(store, "take out the bins", "2026-11-22T18:00:00+00:00")
    services.reminders.mark_done(bins.id)
    assert present(changes.last_change(store))["action"] == "done"
    assert memory_of(services.changes.undo_last()).done_at is None
    services.reminders.snooze(bins.id, "tomorrow at 8am")
    assert memory_of(changes.undo_last_change(store)).due_at == bins.due_at
    services.reminders.edit(bins.id, content="take out the recycling", due="friday at 7am")
    edited = memories.get_memory(store, bins.id)
    assert (edited.content, edited.due_at) == ("take out the recycling", "2026-11-27T07:00:00+00:00")
    with pytest.raises(InvalidInput):  # an impossible time: nothing changes, the record stays
        services.reminders.edit(bins.id, due="tomorrow at 12:99")
    assert memories.get_memory(store, bins.id) == edited and present(changes.last_change(store))["action"] == "edit"
    assert memory_of(services.changes.undo_last()).content == "take out the bins"
    services.reminders.forget(bins.id)
    with pytest.raises(NotFound):
        memories.get_memory(store, bins.id)
    assert memory_of(services.changes.undo_last()).id == bins.id
    assert services.changes.undo_last() is None


# -- undo of any change, every word back (issue 35) ---------------------------------------------------

def _dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row undo must put back as it was (the vectors are re-embedded, not compared)."""
    return {table: [tuple(r) for r in store.query(f"SELECT * FROM {table} ORDER BY 1")]
            for table in ("knowledge", "messages", "episodes", "summaries", "edges", "memory_meta",
                          "reminder_completions")}


async def test_undo_of_a_forget_puts_back_every_word_in_every_place(agent: Agent) -> None:
    """A newcomer forgot a reminder named in the offline mode's "Which one" list: undo brought the
    reminder back but the list still read "- #2 [forgotten] (reminder, Mon Nov 23)"."""
    store = agent.runtime.store
    await say(agent, "remind me to renew the passport for the Lisbon trip tomorrow at 9am")
    await say(agent, "remind me to renew the passport photos tomorrow at 10am")
    answer, _ = await say(agent, "cancel the passport reminder")
    assert answer.startswith("Which one did you mean?")
    target = memories.get_memory(store, 1)
    # A summary made from it and a link to it: both go with it, both come back.
    store.execute("INSERT INTO summaries (content, source_ids, source_key, created_at) VALUES ('About the trip', "
                  "'[1, 2]', '1,2', '2026-11-22T14:00:00+00:00')")
    store.execute("UPDATE memory_meta SET consolidated_into = 1, activation_count = 4 WHERE memory_id IN (1, 2)")
    store.execute("INSERT INTO edges (source_type, source_id, target_type, target_id, edge_type, created_at) "
                  "VALUES ('memory', 2, 'memory', 1, 'references', '2026-11-22T14:00:00+00:00')")
    store.execute("UPDATE episodes SET title = 'renew the passport for the Lisbon trip' WHERE id = 1")
    before = _dump(store)
    await say(agent, "forget 1")
    listed = [m[0] for m in store.query("SELECT content FROM messages WHERE content LIKE 'Which one%'")]
    assert "[forgotten]" in listed[0] and "renew the passport for the Lisbon trip" not in listed[0]
    assert store.one("SELECT count(*) FROM summaries")[0] == 0
    answer, _ = await say(agent, "undo")
    assert answer.startswith(f"Undone: #1 {target.content} is back")
    after = _dump(store)
    # The turns of this conversation since the forget are new rows; everything that was is as it was.
    after["messages"] = after["messages"][:len(before["messages"])]
    after["episodes"] = [e for e in after["episodes"] if e[0] in {b[0] for b in before["episodes"]}]
    restored = [r for r in after["knowledge"] if r[0] == 1][0]
    was = [r for r in before["knowledge"] if r[0] == 1][0]
    updated = list(store.one("SELECT * FROM knowledge WHERE id = 1").keys()).index("updated_at")
    assert restored[:updated] + restored[updated + 1:] == was[:updated] + was[updated + 1:]
    for table in ("messages", "summaries", "edges", "memory_meta", "reminder_completions"):
        assert after[table] == before[table], table
    assert store.one("SELECT count(*) FROM forgotten")[0] == 0


def test_a_forgotten_note_comes_back_with_its_id_until_the_next_change(store: Store) -> None:
    note = memories.remember(store, "my car is a blue Skoda, plate KL-4471")
    other = memories.remember(store, "the gym opens at 6")
    with changes.recorded(store, note.id, "forget"):
        forgotten = memories.forget(store, note.id)
        changes.keep_with_change(store, forgotten.rows)
    undone = changes.undo_last_change(store)
    assert undone is not None and undone.memory == note
    with changes.recorded(store, note.id, "forget"):
        memories.forget(store, note.id)
    with changes.recorded(store, other.id, "edit"):
        store.execute("UPDATE knowledge SET content = 'the gym opens at 7' WHERE id = ?", (other.id,))
    assert memory_of(changes.undo_last_change(store)).content == "the gym opens at 6"  # the next change replaced it
    assert changes.undo_last_change(store) is None
    assert store.one("SELECT count(*) FROM knowledge WHERE id = ?", (note.id,))[0] == 0


def test_undo_of_a_memory_just_made_takes_it_away_without_a_tombstone(store: Store) -> None:
    made = memories.remember(store, "call the bank tomorrow at 10", due_at="2026-11-23T10:00:00+00:00")
    changes.record_change(store, made.id, "remember")
    undone = changes.undo_last_change(store)
    assert undone is not None and undone.memory is None and undone.memory_id == made.id
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0
    assert store.one("SELECT count(*) FROM forgotten")[0] == 0  # it never was: an import may bring it again
    assert store.one("SELECT count(*) FROM search_index WHERE rowid = ?", (made.id * 4 + 1,))[0] == 0


def test_a_record_written_before_schema_10_is_still_undone(store: Store) -> None:
    bins = memories.remember(store, "take out the bins", due_at="2026-11-23T19:00:00+00:00")
    row = store.one("SELECT * FROM knowledge WHERE id = ?", (bins.id,))
    old = dict(zip(row.keys(), tuple(row), strict=True)) | {"_scrubbed": {"messages": [], "episodes": []}}
    store.execute("INSERT INTO memory_changes (memory_id, action, before, created_at) VALUES (?, 'done', ?, ?)",
                  (bins.id, json.dumps(old), "2026-11-22T14:00:00+00:00"))
    reminders.mark_done(store, bins.id)
    assert memory_of(changes.undo_last_change(store)).done_at is None


# -- a question is data kept with the answer that asked it, never read back from words ---------------------

async def test_a_models_answer_that_asks_which_one_is_not_taken_as_the_apps_question(tmp_path: Path,
                                                                                    anthropic_standin: StandIn) -> None:
    """A model may word its answer as the offline mode words its own question; "2" after it, answered
    offline because the model then failed, is read as a message of its own: nothing is cancelled."""
    from assistant.providers.anthropic_provider import AnthropicProvider
    from assistant.services.model import responder_for
    from tests.standins import text_reply

    rt = make_runtime(tmp_path)
    remind(rt.store, "call the dentist", "2026-11-27T09:00:00+00:00")
    remind(rt.store, "pay the dentist bill", "2026-11-28T09:00:00+00:00")
    agent = Agent(rt, responder_for(rt, AnthropicProvider("m", max_retries=0)))
    anthropic_standin.script = [text_reply("Which one did you mean? Say its number (nothing was changed):\n"
                                           "- #1 call the dentist (DUE Fri Nov 27 09:00)\n"
                                           "- #2 pay the dentist bill (DUE Sat Nov 28 09:00)")]
    await say(agent, "cancel the dentist")
    before = snapshot(rt.store)
    anthropic_standin.script = [500]  # the model fails: the offline mode answers "2"
    answer, calls = await say(agent, "2")
    assert calls == [] and snapshot(rt.store) == before
    assert "I couldn't reach the chat model" in answer
    rt.close()


async def test_the_offline_modes_question_reworded_is_still_answered(agent: Agent) -> None:
    """What a "which one?" offers is kept with the answer that asked it: the answer is read from that,
    whatever the question's words were."""
    store = agent.runtime.store
    remind(store, "call mom", "2026-11-23T18:00:00+00:00")
    remind(store, "call the bank", "2026-11-23T10:00:00+00:00")
    await say(agent, "done with call")
    store.execute("UPDATE messages SET content = 'Two reminders match; pick one.' WHERE role = 'assistant'")
    answer, calls = await say(agent, "the second")  # as offered: the bank (due first), then mom
    assert [c.name for c in calls] == ["update_memory"] and memories.get_memory(store, 1).done_at
