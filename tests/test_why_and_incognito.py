"""SPEC F12: what went into an answer is recorded when its turn ran (the Why view), and an incognito
conversation reads memory as usual and leaves nothing behind: no row in the memory and episode tables
changes, and nothing it said is in the store's files or the log."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.providers.anthropic_provider import AnthropicProvider
from assistant.services import Services
from assistant.services.model import responder_for
from assistant.turn.events import Done, ToolResult
from memory import changes, memories
from memory.turn_records import Withheld
from tests.standins import StandIn, text_reply, tool_reply

if TYPE_CHECKING:
    from assistant.providers.base import Provider
    from assistant.runtime import Runtime
    from assistant.turn.events import Event
    from memory.store import Store


def service_with(rt: Runtime, provider: Provider | None = None) -> Services:
    from assistant.turn.agent import Agent

    services = Services(rt)
    services.model.agent = Agent(rt, responder_for(rt, provider))
    return services


async def say(services: Services, text: str) -> list[Event]:
    return [event async for event in services.model.turn(text)]


async def test_a_model_answers_record_says_what_went_in_and_what_the_gate_held_back(rt: Runtime,
                                                                                    anthropic_standin: StandIn) -> None:
    budget = memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="fact")
    secret = memories.remember(rt.store, "the ski locker code is 4471", kind="fact")
    anthropic_standin.script = [tool_reply("recall", {"query": "ski"}), text_reply("It is 1500 euros.")]
    events = await say(service_with(rt, AnthropicProvider("m", max_retries=0)), "what is the ski trip budget?")
    done = events[-1]
    assert isinstance(done, Done)
    found = service_with(rt).why.record(done.message_id)
    assert found is not None
    why = found[1]
    assert why.responder == "anthropic" and why.left_the_machine is True
    labels = {s.label: s for s in why.sections}
    assert "Current Time" in labels and all(s.tokens > 0 for s in why.sections)
    assert budget.id in why.memories
    assert Withheld(f"[secret in memory #{secret.id}]", "the memory holds a secret: only its id went") in why.withheld
    assert "4471" not in str(why.sections)  # as it was sent
    [call] = why.tools
    assert call.name == "recall" and call.by == "model" and "1500 euros" in call.result
    latest = service_with(rt).why.record()
    assert latest is not None and latest[0] == done.message_id  # the latest answer of the conversation


async def test_an_offline_answers_record_says_what_the_reading_understood_and_that_nothing_left(rt: Runtime) -> None:
    events = await say(service_with(rt), "remind me to call the bank tomorrow at 10am")
    assert isinstance(events[-1], Done)
    found = service_with(rt).why.record(events[-1].message_id)
    assert found is not None
    why = found[1]
    assert why.left_the_machine is False and why.responder == "offline" and why.reading is not None
    assert why.reading.intent == "remind" and why.reading.content == "call the bank"
    assert why.reading.due == "2026-11-23T10:00:00+00:00" and why.tools[0].name == "remember"


async def test_forget_takes_a_memory_out_of_the_records_that_quote_it_and_undo_puts_it_back(rt: Runtime) -> None:
    from assistant.forgetting import forget

    services = service_with(rt)
    events = await say(services, "remember that the garage door is painted sage green")
    assert isinstance(events[-1], Done)
    answer = events[-1].message_id
    memory = memories.get_memory(rt.store, 1)
    assert memory.content in str(services.why.record(answer))
    forget(rt, memory.id)
    assert memory.content not in str(services.why.record(answer)) and "[forgotten]" in str(services.why.record(answer))
    changes.undo_last_change(rt.store)
    assert memory.content in str(services.why.record(answer))


TABLES = ("knowledge", "memory_meta", "messages", "episodes", "turn_records", "memory_changes", "summaries",
          "edges", "pending_embeddings")


def tables(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    return {t: [tuple(r) for r in store.query(f"SELECT * FROM {t} ORDER BY 1")] for t in TABLES} | {
        "search_index": [tuple(r) for r in store.query("SELECT rowid, content FROM search_index ORDER BY rowid")]}


async def test_an_incognito_conversation_changes_no_row_and_leaves_nothing_in_the_files(rt: Runtime,
                                                                                        anthropic_standin: StandIn,
                                                                                        tmp_path: Path) -> None:
    word = "zanzibarquokka"
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="fact")
    reminder = memories.remember(rt.store, "call the plumber", due_at="2026-11-22T15:00:00+00:00")
    services = service_with(rt, AnthropicProvider("m", max_retries=0))
    await say(services, "hello")  # an ordinary conversation before it, closed when incognito starts
    services.incognito.start()
    before = tables(rt.store)
    anthropic_standin.script = [
        tool_reply("recall", {"query": "ski budget"}),
        tool_reply("update_memory", {"id": reminder.id, "reminded_at": "now"}, tool_id="toolu_2"),
        text_reply("It is 1500 euros."),
        tool_reply("remember", {"content": f"the {word} is blue"}), text_reply("Noted."),
        text_reply("Sure.")]
    events = await say(services, f"what is the ski budget? and {word}")
    assert isinstance(events[-1], Done) and "1500 euros" in events[-1].text and services.incognito.active
    events = await say(services, f"remember that the {word} is blue")
    refused = [e for e in events if isinstance(e, ToolResult) and e.is_error]
    assert refused and "incognito conversation" in refused[0].content
    events = await say(services, f"remind me to feed the {word} tomorrow at 9")  # the app acts on nothing either
    assert not [e for e in events if isinstance(e, ToolResult)]
    # The model saw the conversation so far (it is kept in this process only).
    assert "what is the ski budget?" in str(anthropic_standin.bodies("/v1/messages")[-1]["messages"])
    assert tables(rt.store) == before
    services.incognito.end()
    assert not services.incognito.active
    rt.store.close()
    for path in Path(tmp_path).rglob("*"):
        if path.is_file():
            assert word.encode() not in path.read_bytes(), path


async def test_offline_incognito_refuses_to_remember_with_one_sentence(rt: Runtime) -> None:
    services = service_with(rt)
    services.incognito.start()
    events = await say(services, "remember that my locker is 112")
    # one sentence, naming no key: the status bar names the key of the app's keymap (issue 46)
    assert isinstance(events[-1], Done)
    assert events[-1].text == ("That didn't work: nothing is stored in an incognito conversation, so nothing can be "
                               "remembered, set or changed.")
    assert rt.store.one("SELECT count(*) FROM knowledge")[0] == 0
    assert rt.store.one("SELECT count(*) FROM messages")[0] == 0
    # said once: the answer words the refusal, so the tool's result carries no line of its own for the chat
    failed = [e for e in events if isinstance(e, ToolResult) and e.is_error]
    assert len(failed) == 1 and failed[0].summary == "" and events[-1].text.count("nothing is stored") == 1


async def test_an_undo_notice_masks_a_secret_as_the_lists_do(rt: Runtime) -> None:
    services = service_with(rt)
    memory = memories.remember(rt.store, "the door code is 5829", kind="note")
    assert memory.sensitive
    services.memories.edit(memory.id, "the door code is 7731")
    shown = services.changes.undo_text(services.changes.undo_last())
    assert "5829" not in shown and shown.startswith(f"Undone: #{memory.id} ")
    services.memories.edit(memory.id, "the door code is 7731")
    from assistant.tools import undo_text

    assert "5829" in undo_text(rt, changes.undo_last_change(rt.store))  # the chat's "undo" says it as said


# -- records written before the record was a typed class still read ---------------------------------------

OLD_OFFLINE = {"responder": "offline", "model": "built-in", "left_the_machine": False, "memories": [7],
               "reading": {"intent": "remind", "recap": False, "asks_when": False, "ids": [],
                           "content": "call the bank", "when": "tomorrow at 10am", "due": "2026-11-23T10:00:00+00:00"},
               "tools": [{"name": "remember", "arguments": {"content": "call the bank"}, "result": "Remembered #1",
                          "is_error": False, "by": "model"}]}
OLD_MODEL = {"responder": "anthropic", "model": "m", "left_the_machine": True,
             "sections": [{"label": "Current Time", "tokens": 12, "content": "Sunday"}], "instructions_tokens": 900,
             "memories": [1, 2], "conversations": [3],
             "withheld": [{"what": "[secret in memory #2]", "why": "a secret"}],
             "did_not_fit": ["Timeline"], "context_window": 200000,
             "reading": {"intent": "question", "recap": False, "asks_when": False, "ids": [2], "statement": False,
                         "content": "what is the code?"},
             "tools": [{"name": "recall", "arguments": "not json", "result": "Error: bad", "is_error": True,
                        "by": "model"}]}


def _old_record(rt: Runtime, data: object) -> int:
    from memory import episodes

    episode = episodes.open_episode(rt.store)
    episodes.add_message(rt.store, episode.id, "user", "remind me to call the bank tomorrow at 10am")
    answer = episodes.add_message(rt.store, episode.id, "assistant", "Okay.")
    rt.store.execute("INSERT INTO turn_records (message_id, episode_id, data, created_at) VALUES (?, ?, ?, ?)",
                     (answer.id, episode.id, json.dumps(data), "2026-11-22T14:00:00+00:00"))
    return answer.id


def test_a_record_in_the_old_dict_shape_reads_as_the_typed_record(rt: Runtime) -> None:
    from memory import turn_records

    offline = turn_records.get(rt.store, _old_record(rt, OLD_OFFLINE))
    assert offline is not None and offline.responder == "offline" and offline.memories == (7,)
    assert offline.reading is not None and offline.reading.due == "2026-11-23T10:00:00+00:00"
    assert offline.reading.statement is None  # recorded before the verdict was: read again when asked
    assert offline.tools[0].arguments == {"content": "call the bank"} and offline.sections == ()
    model = turn_records.get(rt.store, _old_record(rt, OLD_MODEL))
    assert model is not None and model.sections[0].label == "Current Time" and model.context_window == 200000
    assert model.withheld == (Withheld("[secret in memory #2]", "a secret"),) and model.did_not_fit == ("Timeline",)
    assert model.tools[0].arguments == "not json" and model.tools[0].is_error


def test_a_record_that_does_not_validate_reads_as_none(rt: Runtime) -> None:
    from memory import turn_records

    answer = _old_record(rt, {"responder": "offline", "left_the_machine": "perhaps"})
    assert turn_records.get(rt.store, answer) is None and service_with(rt).why.record(answer) is None


def test_a_new_record_round_trips(rt: Runtime) -> None:
    from memory import turn_records
    from memory.turn_records import ReadingRecord, Section, ToolCallRecord, TurnRecord

    answer = _old_record(rt, OLD_OFFLINE)
    record = TurnRecord("openai", "smollm2", True, ReadingRecord("remind", ids=(4,), statement=False, target=4),
                        (ToolCallRecord("forget", {"id": 4}, "Forgot #4", by="app"),), memories=(4,),
                        sections=(Section("Reminders", 5, "- #4 call"),), context_window=2048)
    turn_records.record(rt.store, answer, None, record)
    assert turn_records.get(rt.store, answer) == record
