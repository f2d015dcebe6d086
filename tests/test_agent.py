"""SPEC F7: one turn through the real SDKs against loopback stand-ins, failures, tool errors."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.providers.anthropic_provider import AnthropicProvider
from assistant.providers.ollama_provider import OllamaProvider
from assistant.providers.select import select_provider
from assistant.services.model import responder_for
from assistant.turn.agent import Agent
from assistant.turn.events import Done, Event, Failed, TextDelta, ToolCall, ToolResult
from memory import episodes, reminders
from tests.conftest import T0, make_runtime, offline_note, present
from tests.standins import StandIn, text_reply, tool_reply

if TYPE_CHECKING:
    from assistant.runtime import Runtime


async def collect(agent: Agent, text: str) -> list[Event]:
    return [e async for e in agent.turn(text)]


async def test_anthropic_tool_round_trip_and_next_prompt(anthropic_standin: StandIn, runtime: Runtime) -> None:
    anthropic_standin.script = [
        tool_reply("remember", {"content": "Pay rent", "due_at": "2026-12-01T09:00:00+00:00"}, "Saving that."),
        text_reply("Done, I will remind you."),
    ]
    agent = Agent(runtime, responder_for(runtime, AnthropicProvider("claude-test", max_retries=0)))
    events = await collect(agent, "Please remind me to pay rent on the first")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Saving that.Done, I will remind you."
    call = next(e for e in events if isinstance(e, ToolCall))
    assert call.name == "remember" and call.arguments["due_at"].startswith("2026-12-01")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.is_error and result.summary == "remembered: Pay rent, due Tue Dec 1 09:00"
    done = events[-1]
    assert isinstance(done, Done) and done.rounds == 2 and done.changed == ["reminders"]

    first, second = anthropic_standin.bodies("/v1/messages")
    assert first["stream"] is True and first["model"] == "claude-test"
    assert first["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "update_memory" in first["system"][0]["text"] and "Sunday, November 22, 2026" in first["system"][1]["text"]
    assert {t["name"] for t in first["tools"]} == {"remember", "update_memory", "recall", "recall_recent", "forget"}
    tool_result = second["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_1"
    assert second["messages"][-2]["content"][1]["type"] == "tool_use"
    assert any(r.memory.content == "Pay rent" for r in reminders.get_upcoming(runtime.store, 30))

    # The next turn, four days later, is rebuilt with the new clock and the reminder [DUE ...].
    runtime.clock.fixed = runtime.clock.now().replace(day=26)
    anthropic_standin.requests.clear()
    anthropic_standin.script = [text_reply("Hello!")]
    await collect(agent, "hello again")
    system = anthropic_standin.bodies("/v1/messages")[0]["system"]
    assert system[0]["text"] == first["system"][0]["text"]  # the cached block is byte-identical
    assert "Thursday, November 26, 2026" in system[1]["text"]
    assert "[DUE Tue Dec 1 09:00] Pay rent" in system[1]["text"]
    # Four idle days closed the first conversation: the new one starts without its history, with this
    # turn's block (the clock to the minute) before the message, in the same user message.
    [message] = anthropic_standin.bodies("/v1/messages")[0]["messages"]
    assert message["role"] == "user" and message["content"][1] == {"type": "text", "text": "hello again"}
    assert message["content"][0]["text"].startswith("<turn_context>") and "14:00" in message["content"][0]["text"]
    assert episodes.get_episode(runtime.store, done.episode_id).outcome == "success"


async def test_tool_errors_go_back_to_the_model(anthropic_standin: StandIn, runtime: Runtime) -> None:
    anthropic_standin.script = [
        tool_reply("remember", {"content": "Party", "due_at": "when pigs fly"}),
        tool_reply("update_memory", {"id": 4242, "reminded_at": "now"}, tool_id="toolu_2"),
        tool_reply("nonexistent", {}, tool_id="toolu_3"),
        text_reply("Sorry."),
    ]
    events = await collect(Agent(runtime, responder_for(runtime, AnthropicProvider("m", max_retries=0))), "plan a party")
    errors = [e for e in events if isinstance(e, ToolResult)]
    assert [e.is_error for e in errors] == [True, True, True]
    assert "when pigs fly" in errors[0].content and "4242" in errors[1].content and "unknown tool" in errors[2].content
    assert errors[0].summary.startswith("remember failed: ")  # a model may not say it: the chat shows a line
    sent = anthropic_standin.bodies("/v1/messages")[1]["messages"][-1]["content"][0]
    assert sent["is_error"] is True and "when pigs fly" in sent["content"]
    assert isinstance(events[-1], Done)
    assert runtime.store.one("SELECT count(*) FROM knowledge")[0] == 0


async def test_tool_rounds_are_bounded(anthropic_standin: StandIn, tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_MAX_TOOL_ROUNDS="2")
    anthropic_standin.script = [tool_reply("recall_recent", {})]  # forever
    events = await collect(Agent(rt, responder_for(rt, AnthropicProvider("m", max_retries=0))), "loop")
    assert isinstance(events[-1], Done) and len(anthropic_standin.bodies("/v1/messages")) == 3
    rt.close()


@pytest.mark.parametrize("status, kind, words", [
    (401, "auth", "rejected"), (429, "rate_limit", "rate limiting"), (529, "overloaded", "overloaded"),
    ("drop", "network", "cannot reach"), (500, "model", "failed"),
])
async def test_anthropic_failures_keep_the_message(anthropic_standin: StandIn, runtime: Runtime, status: int | str,
                                                   kind: str, words: str) -> None:
    anthropic_standin.script = [status]
    events = await collect(Agent(runtime, responder_for(runtime, AnthropicProvider("m", max_retries=0))), "zebra message that must survive")
    done, note = events[-1], offline_note(events)
    assert isinstance(done, Done) and done.failure == kind and words in note
    assert "Traceback" not in done.text
    assert "Your message is saved" in done.text  # the offline mode had nothing to act on
    stored = runtime.store.query("SELECT content FROM messages WHERE role = 'user'")
    assert [row[0] for row in stored] == ["zebra message that must survive"]


async def test_anthropic_retries_then_succeeds(anthropic_standin: StandIn, runtime: Runtime) -> None:
    anthropic_standin.script = [529, text_reply("Back again.")]
    provider = AnthropicProvider("m", max_retries=2)
    provider.client = provider.client.with_options(max_retries=2)
    events = await collect(Agent(runtime, responder_for(runtime, provider)), "hi")
    assert isinstance(events[-1], Done) and events[-1].text == "Back again."
    assert len(anthropic_standin.bodies("/v1/messages")) == 2


async def test_ollama_chat_with_tools(ollama_standin: StandIn, runtime: Runtime) -> None:
    ollama_standin.script = [{"tool_calls": [("remember", {"content": "Water plants", "due_at": "tomorrow 9am"})]},
                             "I will remind you."]
    events = await collect(Agent(runtime, responder_for(runtime, OllamaProvider(ollama_standin.url, "stand-in:latest", 5))), "plants")
    assert isinstance(events[-1], Done) and events[-1].text == "I will remind you."
    first, second = ollama_standin.bodies("/api/chat")
    assert first["messages"][0]["role"] == "system" and "Sunday, November 22, 2026" in first["messages"][0]["content"]
    assert first["tools"][0]["function"]["name"] == "remember"
    assert second["messages"][-1]["role"] == "tool" and "Water plants" in second["messages"][-1]["content"]
    [r] = reminders.get_upcoming(runtime.store)
    assert r.memory.due_at == "2026-11-23T09:00:00+00:00"


@pytest.mark.parametrize("script, kind", [(404, "model"), ("drop", "network"), (("sleep", 3, "late"), "timeout")])
async def test_ollama_failures(ollama_standin: StandIn, runtime: Runtime, script: int | str | tuple[str, int, str],
                               kind: str) -> None:
    ollama_standin.script = [script]
    events = await collect(Agent(runtime, responder_for(runtime, OllamaProvider(ollama_standin.url, "stand-in:latest", 1))), "hi")
    assert isinstance(events[-1], Done) and events[-1].failure == kind


async def test_ollama_unreachable(runtime: Runtime) -> None:
    events = await collect(Agent(runtime, responder_for(runtime, OllamaProvider("http://127.0.0.1:9", "x", 2))), "hi")
    assert isinstance(events[-1], Done) and "Ollama is not reachable at http://127.0.0.1:9" in events[-1].text


def chosen(rt: Runtime) -> str:
    """Who answers this runtime's turns, as the model service decides it."""
    return responder_for(rt, select_provider(rt)).name


def test_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ollama_standin: StandIn) -> None:
    rt = make_runtime(tmp_path)
    assert chosen(rt) == "ollama"  # reachable stand-in, no key
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-x")
    assert chosen(make_runtime(tmp_path)) == "anthropic"
    assert chosen(make_runtime(tmp_path, ASSISTANT_PROVIDER="offline")) == "offline"
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert chosen(make_runtime(tmp_path, OLLAMA_HOST="http://127.0.0.1:9")) == "offline"
    rt.close()


def test_episode_lifecycle_idle_gap_and_close(tmp_path: Path) -> None:
    from datetime import timedelta

    from assistant.responders.offline import OfflineResponder

    rt = make_runtime(tmp_path)
    agent = Agent(rt, OfflineResponder(rt))
    first = agent.current_episode()
    episodes.add_message(rt.store, first.id, "user", "remind me to call mom tomorrow at 6pm")
    episodes.add_message(rt.store, first.id, "assistant", "Okay.")
    assert agent.current_episode().id == first.id  # still within the gap
    rt.clock.fixed = rt.clock.now() + timedelta(minutes=31)
    second = agent.current_episode()
    assert second.id != first.id
    closed = episodes.get_episode(rt.store, first.id)
    assert closed.outcome == "success" and closed.title == "Call mom"  # its key words, not its first line
    assert closed.ended_at == "2026-11-22T14:00:00+00:00"  # ended at its last activity
    agent.close_episode()
    assert episodes.get_episode(rt.store, second.id).outcome == "abandoned"  # no real exchange
    rt.close()


def test_title_from_local_model(tmp_path: Path, ollama_standin: StandIn) -> None:
    from assistant.turn.titles import title_and_summary
    from memory.episodes import Message

    rt = make_runtime(tmp_path)
    ollama_standin.script = [{"json": {"title": "Rent reminder", "summary": "Set a rent reminder."}}]
    msgs = [Message(1, 1, "user", "remind me about rent, my token is sk-abcdefghijklmnopqrstuvwx", "t"),
            Message(2, 1, "assistant", "ok", "t")]
    assert title_and_summary(rt, msgs) == ("Rent reminder", "Set a rent reminder.")
    body = ollama_standin.bodies("/api/chat")[0]
    assert body["format"]["required"] == ["title", "summary"]
    assert "sk-abcdefghijklmnopqrstuvwx" not in json.dumps(body)
    ollama_standin.script = ["not json at all"]
    assert title_and_summary(rt, msgs)[0] == "Rent"  # heuristic: the first clause, the secret left out
    rt.close()


def test_a_closed_conversation_owes_its_model_title_until_a_process_with_a_model_writes_it(
        tmp_path: Path, ollama_standin: StandIn) -> None:
    """Quit never waits for a model: the quick title at once, the model's later (SPEC F7)."""
    from assistant.responders.offline import OfflineResponder
    from assistant.turn.titles import owed_titles

    rt = make_runtime(tmp_path, OLLAMA_HOST="http://127.0.0.1:9")
    agent = Agent(rt, OfflineResponder(rt))
    episode = episodes.open_episode(rt.store)
    episodes.add_message(rt.store, episode.id, "user", "remind me to call mom tomorrow at 6pm")
    episodes.add_message(rt.store, episode.id, "assistant", "Okay, I'll remind you to call mom.")
    closed = agent.close_episode()
    assert closed is not None and closed.title == "Call mom" and closed.needs_title
    assert owed_titles(rt) == 1  # no model answers: the quick title stays, still owed
    rt.close()
    rt = make_runtime(tmp_path)  # the next process has one
    ollama_standin.script = [{"json": {"title": "Calling Mom", "summary": "A reminder to call mom."}}]
    assert owed_titles(rt) == 0
    titled = episodes.get_episode(rt.store, closed.id)
    assert (titled.title, titled.summary, titled.needs_title) == ("Calling Mom", "A reminder to call mom.", False)
    assert owed_titles(rt) == 0 and len(ollama_standin.bodies("/api/chat")) == 1  # written once
    rt.close()


def test_titles_never_send_a_private_memory_to_the_local_model(tmp_path: Path, ollama_standin: StandIn) -> None:
    from assistant.turn.titles import title_and_summary
    from memory import memories
    from memory.episodes import Message

    rt = make_runtime(tmp_path)
    memories.remember(rt.store, "my salary is 98765 euros", private=True)
    ollama_standin.script = [{"json": {"title": "Salary", "summary": "Asked about pay."}}]
    msgs = [Message(1, 1, "user", "what is my salary?", "t"),
            Message(2, 1, "assistant", "From memory (you told me Sun Nov 22): [Private] my salary is 98765 euros", "t")]
    title_and_summary(rt, msgs)
    assert "98765" not in json.dumps(ollama_standin.bodies("/api/chat"))
    rt.close()


@pytest.mark.parametrize("status, kind", [(401, "auth"), (429, "rate_limit"), (500, "model"), ("drop", "network")])
async def test_unreachable_model_still_sets_the_reminder_offline(anthropic_standin: StandIn, runtime: Runtime,
                                                                 status: int | str, kind: str) -> None:
    anthropic_standin.script = [status]
    events = await collect(Agent(runtime, responder_for(runtime, AnthropicProvider("m", max_retries=0))),
                           "remind me to buy bread tomorrow at 10am")
    done = events[-1]
    assert isinstance(done, Done) and done.failure == kind
    assert offline_note(events).endswith("I handled this offline.)")  # said once, in the answer
    assert "Okay, I'll remind you to buy bread on Mon Nov 23 10:00 (#1)." in done.text
    [r] = reminders.list_open_reminders(runtime.store)
    assert (r.memory.content, r.memory.due_at) == ("buy bread", "2026-11-23T10:00:00+00:00")
    stored = runtime.store.query("SELECT role, content FROM messages ORDER BY id")
    assert [row[0] for row in stored] == ["user", "assistant"] and stored[1][1] == done.text


async def test_a_failed_tool_in_an_offline_fallback_turn_is_said_once(anthropic_standin: StandIn,
                                                                      runtime: Runtime) -> None:
    """The offline answer words every result, a failure too: the fallback's tool line must not say it again."""
    anthropic_standin.script = [500]
    events = await collect(Agent(runtime, responder_for(runtime, AnthropicProvider("m", max_retries=0))),
                           "forget 999")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.is_error and result.summary == ""
    done = events[-1]
    assert isinstance(done, Done) and done.failure == "model"
    assert "That didn't work: no memory with id 999" in done.text


async def test_unreachable_model_answers_a_question_from_memory(runtime: Runtime,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from memory import memories

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-sent-anywhere")
    memories.remember(runtime.store, "the boiler code is 4471")
    provider = AnthropicProvider("m", max_retries=0)
    provider.client = provider.client.with_options(base_url="http://127.0.0.1:9")  # nothing listens there
    events = await collect(Agent(runtime, responder_for(runtime, provider)), "what is the boiler code?")
    assert isinstance(events[-1], Done) and events[-1].failure == "network"
    assert "From memory (you told me Sun Nov 22): the boiler code is 4471" in events[-1].text


async def test_a_model_that_fails_after_acting_is_not_repeated_offline(anthropic_standin: StandIn,
                                                                       runtime: Runtime) -> None:
    anthropic_standin.script = [tool_reply("remember", {"content": "Pay rent", "due_at": "2026-12-01T09:00:00+00:00"}),
                                500]
    events = await collect(Agent(runtime, responder_for(runtime, AnthropicProvider("m", max_retries=0))), "remind me to pay rent on the 1st")
    assert isinstance(events[-1], Failed) and events[-1].kind == "model"
    assert len(reminders.list_open_reminders(runtime.store, 30)) == 1  # set once, by the model


def test_tool_schemas_and_validation_come_from_the_signatures(runtime: Runtime) -> None:
    """One registry of typed functions: the schema offered and the checks applied are the same thing."""
    from assistant.errors import ToolError
    from assistant.tools import TOOL_SPECS, execute_tool

    specs = {t.name: t.parameters for t in TOOL_SPECS}
    assert specs["remember"]["required"] == ["content"]
    assert specs["remember"]["properties"]["importance"] == {
        "default": 3, "description": "1 trivial ... 5 essential; default 3.", "maximum": 5, "minimum": 1,
        "type": "integer"}
    assert "reminder" in specs["remember"]["properties"]["kind"]["anyOf"][0]["enum"]
    outcome = execute_tool(runtime, "remember", {"content": "Pay rent", "importance": "4", "extra": "ignored"})
    assert present(outcome.data)["importance"] == 4 and outcome.changed == "memories"  # "4" from a small model is fine
    refused: list[tuple[dict[str, Any], str]] = [({"content": "x", "importance": 9}, "importance"), ({}, "content"),
                                                 ({"content": "x", "kind": "wish"}, "kind")]
    for args, words in refused:
        with pytest.raises(ToolError) as info:
            execute_tool(runtime, "remember", args)
        assert words in str(info.value) and "bad arguments for remember" in str(info.value)
    with pytest.raises(ToolError, match="has already passed"):
        execute_tool(runtime, "remember", {"content": "x", "due_at": "2020-01-01T09:00:00Z"})
    # A conventional time of today that has passed is due at once, with the usual note (issue 22).
    outcome = execute_tool(runtime, "remember", {"content": "lock the car", "due_at": "this morning"})
    assert present(outcome.data)["due_at"] == "2026-11-22T09:00:00+00:00"
    assert "Note: Sun Nov 22 09:00 has already passed, so this reminder is overdue" in outcome.content
    assert "has already passed" in outcome.summary
    moved = execute_tool(runtime, "update_memory", {"id": present(outcome.data)["id"], "due_at": "today at noon"})
    assert present(moved.data)["due_at"] == "2026-11-22T12:00:00+00:00" and "has already passed" in moved.content
    with pytest.raises(ToolError, match="has already passed"):
        execute_tool(runtime, "update_memory", {"id": present(outcome.data)["id"], "due_at": "yesterday at 3pm"})
    # What a confused model sends: never an exception out of the turn, always a message back to it.
    confused: list[tuple[str, dict[str, Any]]] = [
        ("update_memory", {"id": 10**23, "done": True}), ("remember", {"content": "x", "importance": 1e400}),
        ("forget", {"id": -(10**30)}), ("recall", {"query": "x", "limit": 10**30})]
    for name, args in confused:
        with pytest.raises(ToolError):
            execute_tool(runtime, name, args)


def test_consolidate_from_the_command_line_writes_the_titles_owed(tmp_path: Path, ollama_standin: StandIn,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An attacker's closed conversations kept their quick titles through 15 `chat` turns and a `consolidate`:
    only the app's idle time wrote them (SPEC F7: the next process with a model, the CLI included)."""
    from assistant.cli.program import main

    db = tmp_path / "m.db"
    rt = make_runtime(tmp_path)
    episode = episodes.open_episode(rt.store)
    episodes.add_message(rt.store, episode.id, "user", "remind me to call mom tomorrow at 6pm")
    episodes.close_episode(rt.store, episode.id, "Call mom", "", "success")
    rt.store.execute("UPDATE episodes SET needs_title = 1 WHERE id = ?", (episode.id,))
    rt.close()
    monkeypatch.setenv("OLLAMA_HOST", ollama_standin.url)
    ollama_standin.script = [{"json": {"title": "Calling Mom", "summary": "A reminder to call mom."}}]
    assert main(["consolidate", "--db", str(db), "--now", T0.isoformat()]) == 0
    rt = make_runtime(tmp_path)
    titled = episodes.get_episode(rt.store, episode.id)
    assert (titled.title, titled.needs_title) == ("Calling Mom", False)
    rt.close()

