"""SPEC F7/F10, issue 26: any OpenAI-compatible endpoint, through the real `openai` SDK against a
loopback stand-in that speaks the wire format (tests.standins.OpenAIHandler): streaming, tool-call
fragments, several calls in one reply, usage, errors in our terms, retries, a server without tools,
the local model's JSON (three ways of asking, one repair), selection, status, doctor and the CLI."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.providers.base import SystemPrompt, ToolSpec
from assistant.providers.local import OpenAILocalModel, local_model, schema_errors
from assistant.providers.openai_provider import OpenAIProvider
from assistant.providers.select import Choice, choose_provider, select_provider
from assistant.services.model import responder_for
from assistant.turn.agent import Agent
from assistant.turn.events import Done, Event, Failed, Notice, TextDelta, ToolCall, ToolResult
from memory import reminders
from memory.errors import MalformedAnswer, ModelUnavailable
from memory.store import Store
from tests.conftest import Cli, make_runtime, offline_note, present

if TYPE_CHECKING:
    from assistant.runtime import Runtime
    from memory.search.embeddings import LocalEmbedder
    from tests.standins import StandIn


async def collect(agent: Agent, text: str) -> list[Event]:
    return [e async for e in agent.turn(text)]


def provider(server: StandIn, model: str = "stand-in", **kw: Any) -> OpenAIProvider:
    kw.setdefault("backoff", 0.01)
    return OpenAIProvider(server.base, model, **kw)


def chats(server: StandIn) -> list[dict[str, Any]]:
    return server.bodies("/v1/chat/completions")


def write_config(tmp_path: Path, text: str, name: str = "config.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# -- chat: streaming, tools, usage ---------------------------------------------------------------

async def test_streamed_turn_sends_the_prompt_and_reports_usage(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.script = ["Hello! Nice to meet you, how can I help today?"]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hello there")
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3 and "".join(deltas) == "Hello! Nice to meet you, how can I help today?"
    done = events[-1]
    assert isinstance(done, Done) and done.failure is None
    assert done.usage == {"input_tokens": 42, "output_tokens": 11}

    [body] = chats(openai_standin)
    assert body["model"] == "stand-in" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True} and body["max_tokens"] == 2048
    system, turn, user = body["messages"]
    assert system["role"] == "system" and "update_memory" in system["content"]
    assert "Sunday, November 22, 2026" in system["content"]  # the memory part: today's date
    assert turn["role"] == "user" and turn["content"].startswith("<turn_context>")  # this turn's block
    assert "14:00" in turn["content"] and "14:00" not in system["content"]  # the clock to the minute
    assert user == {"role": "user", "content": "hello there"}
    assert {t["function"]["name"] for t in body["tools"]} == {"remember", "update_memory", "recall",
                                                              "recall_recent", "forget"}
    assert body["tool_choice"] == "auto" and body["tools"][0]["type"] == "function"


async def test_fragmented_tool_calls_two_in_one_reply(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.script = [
        {"text": "Setting both.", "tool_calls": [
            ("remember", {"content": "Pay rent", "due_at": "2026-12-01T09:00:00+00:00"}),
            ("remember", {"content": "Call the dentist", "due_at": "2026-11-24T10:00:00+00:00"})]},
        "Both are set.",
    ]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))),
                           "remind me to pay rent and call the dentist")
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.id, c.arguments["content"]) for c in calls] == [("call_0", "Pay rent"), ("call_1", "Call the dentist")]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.is_error for r in results] == [False, False]
    assert sorted(r.memory.content for r in reminders.get_upcoming(runtime.store, 30)) == ["Call the dentist",
                                                                                          "Pay rent"]
    assert isinstance(events[-1], Done)
    assert events[-1].text == "Setting both.\n\nBoth are set." and events[-1].rounds == 2
    assert events[-1].usage is not None and events[-1].usage["input_tokens"] == 84  # two calls, summed

    second = chats(openai_standin)[1]["messages"]
    assistant, first_result, second_result = second[-3:]
    assert assistant["role"] == "assistant" and assistant["content"] == "Setting both."
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_0", "call_1"]
    assert json.loads(assistant["tool_calls"][1]["function"]["arguments"])["content"] == "Call the dentist"
    assert first_result["role"] == "tool" and first_result["tool_call_id"] == "call_0"
    assert "Pay rent" in first_result["content"] and second_result["tool_call_id"] == "call_1"


async def test_arguments_that_are_not_json_go_back_as_a_tool_error(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.script = [{"tool_calls": [("remember", '{"content": "Party", "due_at": ')]}, "Sorry about that."]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "plan a party")
    [result] = [e for e in events if isinstance(e, ToolResult)]
    assert result.is_error and "JSON object" in result.content
    sent = chats(openai_standin)[1]["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == '{"content": "Party", "due_at":'
    assert sent[-1]["role"] == "tool" and sent[-1]["content"].startswith("Error:")
    assert isinstance(events[-1], Done) and runtime.store.one("SELECT count(*) FROM knowledge")[0] == 0


async def test_key_from_the_named_variable_and_extra_headers(openai_standin: StandIn, runtime: Runtime,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    openai_standin.key = "sk-or-right"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-one")  # must not be sent to another service
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-right")
    p = provider(openai_standin, key_env="OPENROUTER_API_KEY", headers={"X-Title": "assistant"})
    events = await collect(Agent(runtime, responder_for(runtime, p)), "hi")
    assert isinstance(events[-1], Done) and events[-1].failure is None
    headers = {k.lower(): v for k, v in openai_standin.requests[-1]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-or-right" and headers["x-title"] == "assistant"


async def test_a_local_server_needs_no_key(openai_standin: StandIn, runtime: Runtime) -> None:
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hi")
    assert isinstance(events[-1], Done) and events[-1].failure is None and events[-1].text == "ok"


# -- failures --------------------------------------------------------------------------------------

@pytest.mark.parametrize("script, kind, words", [
    (401, "auth", "needs an API key (401): set OPENAI_API_KEY"),
    (403, "auth", "needs an API key (403): set OPENAI_API_KEY"),
        ((400, "context length exceeded"), "context", "it is longer than its context window"),
        ((400, "response_format is not supported"), "bad_request", "refused the request (400: response_format"),
    ("drop", "network", "closed the connection before answering"),  # it listened: not "not reachable"
    (("break", "Half an ans"), "model", "failed while answering: the model crashed"),
])
async def test_failures_are_one_line_and_keep_the_message(openai_standin: StandIn, runtime: Runtime, script: object,
                                                          kind: str, words: str) -> None:
    openai_standin.script = [script]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin, max_retries=0))),
                           "zebra message that must survive")
    done = events[-1]
    assert isinstance(done, Done) or kind == "model"
    said = " ".join(e.text for e in events if isinstance(e, Notice | Done) or (isinstance(e, Failed) and e.kind))
    assert words in said and "Traceback" not in said
    stored = runtime.store.query("SELECT content FROM messages WHERE role = 'user'")
    assert [row[0] for row in stored] == ["zebra message that must survive"]


async def test_server_not_running_is_said_as_for_ollama(runtime: Runtime) -> None:
    p = OpenAIProvider("http://127.0.0.1:9/v1", "m")
    events = await collect(Agent(runtime, responder_for(runtime, p)), "hi")
    assert "The OpenAI-compatible server is not reachable at http://127.0.0.1:9/v1" in offline_note(events)
    assert isinstance(events[-1], Done) and events[-1].failure == "network"


async def test_wrong_key_names_the_variable(openai_standin: StandIn, runtime: Runtime,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    openai_standin.key = "sk-right"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hi")
    assert isinstance(events[-1], Done) and events[-1].failure == "auth"
    assert "refused the API key in OPENAI_API_KEY (401)" in offline_note(events)
    assert "sk-wrong" not in json.dumps([vars(e) for e in events])


async def test_unknown_model_names_it_and_what_the_server_offers(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.models = ["qwen2.5-7b-instruct", "llama-3.2-3b"]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin, model="gpt-5"))), "hi")
    notice = offline_note(events)
    assert "has no model 'gpt-5' (404); it offers: qwen2.5-7b-instruct, llama-3.2-3b" in notice
    assert isinstance(events[-1], Done) and events[-1].failure == "model"


@pytest.mark.parametrize("status, kind, words", [(429, "rate_limit", "rate limiting requests (429) after 3 tries"),
                                                 (503, "overloaded", "overloaded (503) after 3 tries"),
                                                 (500, "model", "failed (500) after 3 tries")])
async def test_429_and_5xx_are_retried_then_a_notice(openai_standin: StandIn, runtime: Runtime, status: int, kind: str,
                                                     words: str) -> None:
    openai_standin.script = [status]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin, max_retries=2))), "hi")
    assert len(chats(openai_standin)) == 3  # bounded: one try and two retries
    assert words in offline_note(events)
    assert isinstance(events[-1], Done) and events[-1].failure == kind


async def test_retry_then_success(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.script = [429, 502, "Back again."]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin, max_retries=2))), "hi")
    assert isinstance(events[-1], Done) and events[-1].text == "Back again." and events[-1].failure is None
    assert len(chats(openai_standin)) == 3


async def test_timeout(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.script = [("sleep", 3, "late")]
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin, timeout=1))), "hi")
    assert isinstance(events[-1], Done) and events[-1].failure == "timeout"
    assert "did not answer within 1 s" in offline_note(events)


async def test_server_without_usage_or_stream_options(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.usage = False  # llama-cpp-python ignores stream_options: no usage chunk
    events = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hi")
    assert isinstance(events[-1], Done) and events[-1].text == "ok" and events[-1].usage is None


# -- a server without tools --------------------------------------------------------------------------

async def test_without_tools_chat_goes_plain_and_actions_go_through_the_local_intent_layer(openai_standin: StandIn,
                                                                                           runtime: Runtime) -> None:
    openai_standin.tools = False  # llama-server without --jinja: "tools param requires --jinja flag"
    openai_standin.script = ["Why did the scarecrow win an award? He was outstanding in his field."]
    agent = Agent(runtime, responder_for(runtime, provider(openai_standin)))

    first = await collect(agent, "remind me to water the plants tomorrow at 9am")
    notices = [e.text for e in first if isinstance(e, Notice)]
    assert len(notices) == 1 and "cannot use tools" in notices[0] and "tools param requires --jinja" in notices[0]
    [r] = reminders.get_upcoming(runtime.store, 7)
    assert r.memory.content == "water the plants" and r.memory.due_at == "2026-11-23T09:00:00+00:00"
    assert isinstance(first[-1], Done) and "I'll remind you to water the plants" in first[-1].text
    assert len(chats(openai_standin)) == 1  # the refused request only: the action needed no model

    second = await collect(agent, "tell me a joke")
    assert not [e for e in second if isinstance(e, Notice)]  # said once
    assert isinstance(second[-1], Done) and second[-1].text.startswith("Why did the scarecrow")
    body = chats(openai_standin)[-1]
    assert "tools" not in body and "tool_choice" not in body
    assert body["messages"][-1] == {"role": "user", "content": "tell me a joke"}


async def test_a_server_found_without_tools_is_not_offered_them_at_the_next_launch(openai_standin: StandIn,
                                                                                   runtime: Runtime) -> None:
    """Learned at each launch, the first message went out twice (with the tools, then without: what the
    server had read at launch was lost) and the line saying why came back every time (a newcomer's
    session). Kept a week per server and model; after that the tools are offered again."""
    from datetime import timedelta

    openai_standin.tools = False
    openai_standin.script = ["Hello.", "Hi again.", "Hello once more."]
    first = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hello")
    assert [e for e in first if isinstance(e, Notice) and "cannot use tools" in e.text]
    asked = len(chats(openai_standin))
    again = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hello again")
    assert not [e for e in again if isinstance(e, Notice)] and isinstance(again[-1], Done)
    assert len(chats(openai_standin)) == asked + 1 and "tools" not in chats(openai_standin)[-1]
    runtime.clock.fixed = present(runtime.clock.fixed) + timedelta(days=8)
    later = await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), "hello, a week on")
    assert [e for e in later if isinstance(e, Notice) and "cannot use tools" in e.text]


async def test_selected_openai_provider_degrades_by_itself(openai_standin: StandIn, tmp_path: Path) -> None:
    openai_standin.tools = False
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="openai", OPENAI_BASE_URL=openai_standin.base)
    agent = Agent(rt, responder_for(rt, select_provider(rt)))
    events = await collect(agent, "remember that my locker is number 42")
    assert any(isinstance(e, Notice) and "cannot use tools" in e.text for e in events)
    assert rt.store.one("SELECT content FROM knowledge")[0] == "my locker is number 42"
    rt.close()


# -- the local model: titles, summaries, the judge ------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}, "n": {"type": ["number", "null"]},
                                           "tags": {"type": "array", "items": {"type": "string"}}},
          "required": ["title", "tags"]}


def local(server: StandIn, **kw: Any) -> OpenAILocalModel:
    kw.setdefault("backoff", 0.01)
    return OpenAILocalModel(server.base, "stand-in", timeout=5, **kw)


def test_schema_check() -> None:
    assert schema_errors({"title": "x", "tags": ["a"], "n": None}, SCHEMA) == []
    assert schema_errors({"title": 3, "tags": ["a", 2]}, SCHEMA) == ["title should be string",
                                                                     "tags[1] should be string"]
    assert schema_errors({"title": "x"}, SCHEMA) == ["answer lacks tags"]
    assert schema_errors([], SCHEMA) == ["answer should be object"]
    assert schema_errors({"title": "x", "tags": [], "n": True}, SCHEMA) == ["n should be number or null"]


def test_json_schema_where_the_server_reads_it(openai_standin: StandIn) -> None:
    openai_standin.formats = {"json_schema"}  # OpenAI, vLLM, LM Studio
    openai_standin.script = [{"json": {"title": "Trip", "tags": ["ski"]}}]
    assert local(openai_standin).ask("Title it.", "we talked about skiing", SCHEMA) == {"title": "Trip",
                                                                                        "tags": ["ski"]}
    [body] = chats(openai_standin)
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}
    assert body["temperature"] == 0 and not body.get("stream")
    assert body["messages"] == [{"role": "system", "content": "Title it."},
                                {"role": "user", "content": "we talked about skiing"}]


def test_llama_cpp_python_form_after_a_refusal(openai_standin: StandIn) -> None:
    openai_standin.formats = {"json_object"}  # llama-cpp-python: a 500 for json_schema
    openai_standin.script = [{"json": {"title": "Trip", "tags": []}}]
    model = local(openai_standin)
    assert model.ask("Title it.", "skiing", SCHEMA)["title"] == "Trip"
    assert model.ask("Title it.", "skiing", SCHEMA)["title"] == "Trip"
    first, second, third = chats(openai_standin)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert third["response_format"]["type"] == "json_object"  # remembered: no second refusal


def test_prompt_only_server_gets_the_schema_in_the_instructions(openai_standin: StandIn) -> None:
    openai_standin.formats = set()
    openai_standin.script = [{"json": {"title": "Trip", "tags": []}}]
    assert local(openai_standin).ask("Title it.", "skiing", SCHEMA)["title"] == "Trip"
    last = chats(openai_standin)[-1]
    assert "response_format" not in last and json.dumps(SCHEMA) in last["messages"][0]["content"]


def test_one_repair_attempt_tells_the_model_what_was_wrong(openai_standin: StandIn) -> None:
    openai_standin.script = ['Sure! {"title": 5, "tags": []}', {"json": {"title": "Trip", "tags": []}}]
    assert local(openai_standin).ask("Title it.", "skiing", SCHEMA)["title"] == "Trip"
    repair = chats(openai_standin)[1]["messages"]
    assert repair[2] == {"role": "assistant", "content": 'Sure! {"title": 5, "tags": []}'}
    assert repair[3]["role"] == "user" and "title should be string" in repair[3]["content"]


def test_invalid_json_twice_writes_nothing(openai_standin: StandIn, tmp_path: Path, embedder: LocalEmbedder) -> None:
    from assistant.outbound.send import GatedConsolidationModel
    from memory.consolidation.pipeline import Consolidator
    from memory.store import Store
    from memory.transfer.jsonl_import import import_records
    from tests.conftest import T0, make_clock
    from tests.test_consolidation import fixture_records

    store = Store(tmp_path / "c.db", make_clock(T0))
    import_records(store, [json.dumps(r) for r in fixture_records()])
    openai_standin.script = ["not json at all", '{"summary": "half"']
    result = Consolidator(store, embedder, GatedConsolidationModel(store, local(openai_standin))).run(full=True)
    assert result.summaries_created == 0 and any("valid JSON" in e for e in result.errors)
    assert store.one("SELECT count(*) FROM summaries")[0] == 0
    store.close()


def test_consolidation_summaries_through_the_endpoint(openai_standin: StandIn, tmp_path: Path,
                                                      embedder: LocalEmbedder) -> None:
    """The configured endpoint serves consolidation (local_provider = openai) with valid JSON."""
    from assistant.jobs import run_consolidation
    from assistant.runtime import Runtime
    from assistant.settings import load_settings
    from tests.conftest import T0
    from tests.test_consolidation import answer_for, fixture_records

    original = openai_standin.next_response

    def respond() -> Any:
        body = openai_standin.requests[-1]["body"]
        scripted = original()
        if scripted is not None:
            return scripted
        fmt = json.dumps(body.get("response_format", {}))
        return answer_for({"format": json.loads(fmt).get("json_schema", {}).get("schema", {}),
                           "messages": body["messages"]})

    openai_standin.next_response = respond
    config = write_config(tmp_path, f'[openai]\nbase_url = "{openai_standin.base}"\n')
    settings = load_settings(config, env={"ASSISTANT_DB": str(tmp_path / "m.db"), "ASSISTANT_NOW": T0.isoformat(),
                                          "ASSISTANT_TIMEZONE": "UTC"})
    rt = Runtime(settings)
    rt.__dict__["embedder"] = embedder  # the session's loaded embedder, not a second load
    from memory.transfer.jsonl_import import import_records

    import_records(rt.store, [json.dumps(r) for r in fixture_records()])
    result = run_consolidation(rt, full=True)
    assert result["errors"] == [] and result["summaries_created"] == 3 and result["supersessions_detected"] == 1
    bodies = chats(openai_standin)
    assert all(b["model"] == "stand-in" and b["response_format"]["type"] == "json_schema" for b in bodies)
    rt.close()


def test_title_from_the_endpoint_and_check(openai_standin: StandIn, tmp_path: Path) -> None:
    from assistant.turn.titles import title_and_summary
    from memory import episodes

    openai_standin.script = [{"json": {"title": "Ski trip plans", "summary": "We planned a ski trip."}}]
    rt = make_runtime(tmp_path, ASSISTANT_LOCAL_PROVIDER="openai", OPENAI_BASE_URL=openai_standin.base,
                      ASSISTANT_LOCAL_MODEL="stand-in")
    episode = episodes.open_episode(rt.store)
    episodes.add_message(rt.store, episode.id, "user", "let's plan the ski trip")
    episodes.add_message(rt.store, episode.id, "assistant", "Sure, where to?")
    messages = episodes.episode_messages(rt.store, episode.id)
    assert title_and_summary(rt, messages) == ("Ski trip plans", "We planned a ski trip.")
    assert "let's plan the ski trip" in chats(openai_standin)[-1]["messages"][1]["content"]
    rt.close()


def test_a_server_that_lists_a_file_path_and_answers_any_name_works_on_every_path(openai_standin: StandIn,
                                                                                  tmp_path: Path) -> None:
    """llama-cpp-python lists its model by file path and answers any name: the chat sent the configured
    name and worked while consolidation refused it ("has no model 'smollm2-135m'")."""
    path = "/home/me/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    openai_standin.models, openai_standin.any_name = [path], True
    openai_standin.script = [{"json": {"title": "Skiing", "summary": "We planned skiing."}}]
    model = local(openai_standin)
    model.check()
    assert model.ask("x", "y", {"type": "object", "properties": {"title": {"type": "string"}}})["title"] == "Skiing"
    assert chats(openai_standin)[-1]["model"] == "stand-in"  # the configured name, sent as it is
    config = write_config(tmp_path, f'[openai]\nbase_url = "{openai_standin.base}"\nmodel = "smollm2-135m"\n')
    choice = choose_provider(make_runtime(tmp_path, ASSISTANT_CONFIG=config))
    assert choice.problem == "" and "does not list 'smollm2-135m'" in choice.warning and choice.answers


def test_local_model_failures(openai_standin: StandIn) -> None:
    with pytest.raises(ModelUnavailable, match="The OpenAI-compatible server is not reachable at http://127.0.0.1:9"):
        OpenAILocalModel("http://127.0.0.1:9/v1", "m", timeout=2, backoff=0.01).check()
    openai_standin.models = ["qwen"]
    unlisted = local(openai_standin)
    unlisted.check()  # not listed: a warning (status says it), never a refusal
    with pytest.raises(ModelUnavailable, match=r"has no model 'stand-in' \(404\); it offers: qwen"):
        unlisted.ask("x", "y", SCHEMA)  # the server's 404 refuses it, and names what it offers
    openai_standin.models = ["stand-in"]
    openai_standin.script = [500]
    model = local(openai_standin, retries=1, breaker_threshold=3)
    with pytest.raises(ModelUnavailable, match=r"failed \(500\)"):
        model.ask("x", "y", SCHEMA)
    assert len(chats(openai_standin)) == 1 + 2  # (the 404 above) then retried once
    with pytest.raises(ModelUnavailable, match=r"failed \(500\)"):
        model.ask("x", "y", SCHEMA)  # the third failure opens the breaker: no retry
    assert len(chats(openai_standin)) == 1 + 3
    with pytest.raises(ModelUnavailable, match="failed 3 times in a row"):
        model.ask("x", "y", SCHEMA)
    assert len(chats(openai_standin)) == 1 + 3  # the breaker asked nobody
    openai_standin.script = ["nope", "nope"]
    with pytest.raises(MalformedAnswer):
        local(openai_standin).ask("x", "y", SCHEMA)


def test_the_local_model_gets_a_title_request_through_the_gate(openai_standin: StandIn, tmp_path: Path) -> None:
    from assistant.outbound import requests, send
    from assistant.outbound.gate import Gate
    from memory import episodes, memories
    from memory.store import Store
    from tests.conftest import T0, make_clock

    store = Store(tmp_path / "t.db", make_clock(T0))
    memories.remember(store, "my HIV test result is positive", private=True)
    episode = episodes.open_episode(store)
    said = [episodes.add_message(store, episode.id, "user", "my password is hunter2"),
            episodes.add_message(store, episode.id, "assistant", "Noted: my HIV test result is positive\nNEWER: x")]
    openai_standin.script = [{"json": {"title": "t", "summary": "s"}}]
    send.ask_local(local(openai_standin), requests.title(Gate(store), said))
    sent = json.dumps(chats(openai_standin)[-1])
    assert "hunter2" not in sent and "HIV" not in sent and "[private memory #1]" in sent
    with pytest.raises(TypeError):  # a local model is handed only what the outbound requests build
        send.ask_local(local(openai_standin), ("x", "my password is hunter2", SCHEMA))  # type: ignore[arg-type]


# -- selection, status, doctor, CLI -------------------------------------------------------------------

def test_selection_rules(openai_standin: StandIn, ollama_standin: StandIn, tmp_path: Path,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    def chosen(**env: str) -> Choice:
        rt = make_runtime(tmp_path, **env)
        try:
            return choose_provider(rt)
        finally:
            rt.close()

    config = write_config(tmp_path, f'[openai]\nbase_url = "{openai_standin.base}"\n')
    # A configured endpoint that answers comes before Ollama; its model is the first it lists.
    c = chosen(ASSISTANT_CONFIG=config)
    assert (c.name, c.model, c.url, c.answers) == ("openai", "stand-in", openai_standin.base, True)
    assert c.reason == "auto: the endpoint in the config file answers"
    # An endpoint that does not answer: Ollama, saying why.
    dead = write_config(tmp_path, '[openai]\nbase_url = "http://127.0.0.1:9/v1"\n', "dead.toml")
    c = chosen(ASSISTANT_CONFIG=dead)
    assert c.name == "ollama" and "the endpoint at http://127.0.0.1:9/v1 not answering" in c.reason
    # OPENAI_API_KEY or OPENAI_BASE_URL alone select nothing.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert chosen(OPENAI_BASE_URL=openai_standin.base).name == "ollama"
    # ASSISTANT_PROVIDER=openai with the address from OPENAI_BASE_URL.
    c = chosen(ASSISTANT_PROVIDER="openai", OPENAI_BASE_URL=openai_standin.base, ASSISTANT_MODEL="stand-in")
    assert (c.name, c.model, c.reason) == ("openai", "stand-in", "configured")
    # Anthropic with a key comes first.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    assert chosen(ASSISTANT_CONFIG=config).name == "anthropic"
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert chosen(OLLAMA_HOST="http://127.0.0.1:9", ASSISTANT_CONFIG=dead).name == "offline"

    rt = make_runtime(tmp_path, ASSISTANT_CONFIG=config)
    p = select_provider(rt)
    assert isinstance(p, OpenAIProvider) and (p.name, p.model) == ("openai", "stand-in")
    assert local_model(rt).name == "stand-in" and isinstance(local_model(rt), OpenAILocalModel)
    rt.close()


def test_status_and_select_say_the_same(openai_standin: StandIn, tmp_path: Path) -> None:
    from assistant.status import collect_status

    config = write_config(tmp_path, f'[openai]\nbase_url = "{openai_standin.base}"\n')
    rt = make_runtime(tmp_path, ASSISTANT_CONFIG=config)
    line = choose_provider(rt).line()
    assert line == f"openai stand-in at {openai_standin.base}, answers (auto: the endpoint in the config file answers)"
    data = collect_status(rt)
    assert data["provider"] == line and data["models"]["local"] == {
        "provider": "openai", "url": openai_standin.base, "model": "stand-in", "answers": True}
    rt.close()


def test_status_doctor_and_chat_from_the_command_line(openai_standin: StandIn, tmp_path: Path, cli: Cli,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_config(tmp_path, f'[openai]\nbase_url = "{openai_standin.base}"\nmodel = "stand-in"\n')
    monkeypatch.setenv("ASSISTANT_CONFIG", config)
    Store(cli.db).close()  # status and doctor read a store, and create none
    code, out, _ = cli("status")
    assert code == 0 and f"provider: openai stand-in at {openai_standin.base}, answers" in out
    assert f"local model: openai stand-in at {openai_standin.base}, answers" in out
    code, out, _ = cli("doctor")
    assert code == 0 and f"Chat model: openai stand-in at {openai_standin.base}, answers" in out
    code, out, _ = cli("doctor", "--json")
    assert json.loads(out)["models"]["chat"]["offers"] == ["stand-in"]
    openai_standin.script = ["Hi from the endpoint."]
    code, out, _ = cli("chat", "hello")
    assert code == 0 and out.strip() == "Hi from the endpoint."
    openai_standin.models = ["other"]
    code, out, _ = cli("status")
    assert "warning: The OpenAI-compatible server at" in out and "does not list 'stand-in' (it lists other)" in out


def test_status_says_when_the_endpoint_is_down(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSISTANT_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ASSISTANT_MODEL", "qwen")
    Store(cli.db).close()  # status reads a store, and creates none
    code, out, _ = cli("status")
    assert "provider: openai qwen at http://127.0.0.1:9/v1, not answering (configured)" in out


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli.program import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip().startswith("assistant ")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "`assistant` alone (no command) opens the app" in capsys.readouterr().out


# -- settings ---------------------------------------------------------------------------------------------

def test_openai_settings(tmp_path: Path) -> None:
    from assistant.settings import SettingsError, load_settings

    config = write_config(tmp_path, '[openai]\nbase_url = "http://127.0.0.1:1234/v1"\nmodel = "qwen"\n'
                                   'api_key_env = "OPENROUTER_API_KEY"\njson_format = "json_object"\n'
                                   '[openai.headers]\n"HTTP-Referer" = "https://example.org"\n')
    s = load_settings(config, env={"ASSISTANT_LOCAL_PROVIDER": "openai", "ASSISTANT_LOCAL_MODEL": "tiny"})
    assert (s.openai.base_url, s.openai.model, s.openai.api_key_env, s.openai.json_format) == \
        ("http://127.0.0.1:1234/v1", "qwen", "OPENROUTER_API_KEY", "json_object")
    assert s.openai.headers == {"HTTP-Referer": "https://example.org"} and s.endpoint_in_file
    assert (s.local_provider, s.local_model) == ("openai", "tiny")
    s = load_settings(env={"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "ASSISTANT_PROVIDER": "openai"})
    assert s.openai.base_url == "http://127.0.0.1:8080/v1" and s.provider == "openai" and not s.endpoint_in_file
    for text, fragment in [('[openai]\napi_key_env = "sk-abc123-secret"\n', "must name an environment variable"),
                           ('[openai]\njson_format = "xml"\n', "openai.json_format must be one of"),
                           ('[openai]\nbase_url = "ftp://x"\n', "openai.base_url"),
                           ('[openai]\nheaders = "x"\n', "openai.headers must be a table"),
                           ('local_provider = "anthropic"\n', "local_provider must be ollama or openai")]:
        with pytest.raises(SettingsError) as info:
            load_settings(write_config(tmp_path, text), env={})
        assert fragment in str(info.value) and "sk-abc123" not in str(info.value)
    with pytest.raises(SettingsError, match="ASSISTANT_LOCAL_PROVIDER|local_provider"):
        load_settings(env={"ASSISTANT_LOCAL_PROVIDER": "gpt"})


def test_no_setting_can_hold_the_key() -> None:
    import dataclasses

    from assistant.settings import OpenAISettings

    assert "api_key" not in {f.name for f in dataclasses.fields(OpenAISettings)}


# -- reasoned recall through the endpoint ----------------------------------------------------------------

def test_reasoned_recall_through_the_endpoint(openai_standin: StandIn, tmp_path: Path) -> None:
    from assistant.recall.reasoned import reasoned_recall
    from memory.memories import remember

    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="openai", OPENAI_BASE_URL=openai_standin.base)
    remember(rt.store, "Caroline went to the support group on Monday", kind="event")
    openai_standin.script = [json.dumps({"answer": "On Monday.", "confidence": 0.8, "reasoning": "she said so",
                                         "source_refs": ["memory:1"]})]
    from assistant.providers.local import local_model

    answer = reasoned_recall(rt, "When did Caroline go to the support group?", model=local_model(rt))
    assert answer.answer == "On Monday." and answer.model == "stand-in"
    body = chats(openai_standin)[-1]
    assert "tools" not in body and "Caroline" in json.dumps(body["messages"])
    rt.close()


def test_a_real_spec_fits_the_wire() -> None:
    """Our ToolSpec list converts to the function-tool shape every server reads."""
    from assistant.tools import TOOL_SPECS

    assert all(isinstance(t, ToolSpec) and t.parameters["type"] == "object" for t in TOOL_SPECS)
    assert SystemPrompt("a", "b")


def test_example_config_documents_every_key() -> None:
    import dataclasses
    import tomllib
    from pathlib import Path

    from assistant.settings import Settings, load_settings

    path = Path(__file__).resolve().parent.parent / "config.example.toml"
    text = path.read_text()
    data = tomllib.loads(text)
    load_settings(str(path), env={})  # it loads as it is
    for f in dataclasses.fields(Settings):
        if not f.init:  # where the settings came from, the frozen clock: not settable from the file
            continue
        if getattr(Settings(), f.name) is None:  # TOML has no null: a key unset by default is shown commented
            assert f"\n# {f.name} = " in text, f"config.example.toml does not document {f.name}"
            continue
        assert f.name in data, f"config.example.toml does not document {f.name}"
        value = getattr(Settings(), f.name)
        if dataclasses.is_dataclass(value):
            documented = set(data[f.name]) | ({"headers"} if f.name == "openai" else set())  # headers: commented
            assert {g.name for g in dataclasses.fields(value)} <= documented, f.name


async def test_an_empty_answer_when_offered_tools_means_no_tools(openai_standin: StandIn, runtime: Runtime) -> None:
    """llama-cpp-python's chatml-function-calling answers "" with tool_choice auto: the same degradation."""
    openai_standin.script = ["", "Paris is the capital of France.", "", ""]
    agent = Agent(runtime, responder_for(runtime, provider(openai_standin)))
    events = await collect(agent, "What is the capital of France?")
    assert [e.text for e in events if isinstance(e, Notice)][0].startswith("'stand-in' at http://127.0.0.1:")
    assert isinstance(events[-1], Done) and events[-1].text == "Paris is the capital of France."
    first, second = chats(openai_standin)
    assert "tools" in first and "tools" not in second
    await collect(agent, "and of Spain?")
    assert "tools" not in chats(openai_standin)[-1]  # decided once


async def test_an_empty_answer_after_tools_worked_is_just_empty(openai_standin: StandIn, runtime: Runtime) -> None:
    openai_standin.script = [{"tool_calls": [("recall_recent", {})]}, "", ""]
    agent = Agent(runtime, responder_for(runtime, provider(openai_standin)))
    events = await collect(agent, "what did we talk about?")
    assert not [e for e in events if isinstance(e, Notice)]
    assert all("tools" in body for body in chats(openai_standin))


def test_local_model_named_late_from_the_list(openai_standin: StandIn) -> None:
    """A probe at start-up that missed a busy server leaves the name empty; check() takes the first listed."""
    model = OpenAILocalModel(openai_standin.base, "", timeout=5)
    model.check()
    assert model.name == "stand-in"


def test_an_endpoint_down_at_start_still_gets_the_message_acted_on(tmp_path: Path, cli: Cli,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """SPEC F7: a configured model that cannot be reached; the offline mode acts and says so (exit 1)."""
    monkeypatch.setenv("ASSISTANT_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    code, out, err = cli("chat", "remind me to call mom tomorrow at 6pm")
    assert code == 1 and "The OpenAI-compatible server is not reachable at http://127.0.0.1:9/v1" in out
    assert "I'll remind you to call mom" in out
    code, out, _ = cli("reminders")
    assert "call mom" in out


async def test_a_secret_corrected_in_the_next_message_goes_as_a_placeholder(openai_standin: StandIn,
                                                                            runtime: Runtime) -> None:
    """An attacker's "wifi password is Tango-Zulu-99" then "oops, I mean Tango-Zulu-98": the correction reached the
    model whole (it holds no keyword; the value it corrects was only a placeholder of the earlier message)."""
    openai_standin.script = ["Noted."]
    for said in ("wifi password is Tango-Zulu-99", "oops, I mean Tango-Zulu-98"):
        await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), said)
    sent = [m["content"] for body in chats(openai_standin) for m in body["messages"] if m["role"] == "user"]
    assert not any("Tango" in m or "-98" in m or "-99" in m for m in sent), sent


@pytest.mark.parametrize("correction", ["oops I mean 2486", "actually the new one is 2469", "2486"])
async def test_a_pin_corrected_in_the_next_message_goes_as_a_placeholder(openai_standin: StandIn, runtime: Runtime,
                                                                         correction: str) -> None:
    """A re-check: after "my PIN is 2468", each of these went to the model whole (no keyword, no 8 characters
    in common with the value before)."""
    openai_standin.script = ["Noted."]
    for said in ("my PIN is 2468", correction):
        await collect(Agent(runtime, responder_for(runtime, provider(openai_standin))), said)
    sent = [m["content"] for body in chats(openai_standin) for m in body["messages"] if m["role"] == "user"]
    new = correction.split()[-1]
    assert not any("2468" in m or new in m for m in sent), sent


async def test_a_secret_said_in_an_earlier_conversation_goes_as_a_placeholder_when_said_again(
        openai_standin: StandIn, runtime: Runtime) -> None:
    """A re-check: "my bank PIN is 7351" said to a model (kept as no memory), then days later in a new conversation
    "is 7351 still right?" went out whole, and became that conversation's title."""
    openai_standin.script = ["Noted."]
    agent = Agent(runtime, responder_for(runtime, provider(openai_standin)))
    await collect(agent, "my bank PIN is 7351")
    agent.close_episode()
    again = Agent(runtime, responder_for(runtime, provider(openai_standin)))
    await collect(again, "is 7351 still right?")
    sent = [m["content"] for body in chats(openai_standin) for m in body["messages"] if m["role"] == "user"]
    assert not any("7351" in m for m in sent), sent
    closed = present(again.close_episode())
    assert "7351" not in f"{closed.title} {closed.summary}"
