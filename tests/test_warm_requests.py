"""SPEC F4 and section 5 (issue 43): the request of one token that has the person's own server read the
conversation between two turns, attacked. Through the real openai and ollama SDKs against the loopback
stand-ins: what it carries (no secret, no private memory, nothing the next turn would not send), where it
never goes (a paid API, a server on the internet, the offline mode), what it leaves behind (nothing
stored, nothing learned of the server), a turn sent while it is still being read, one that never
answers, and a small window."""
from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.providers.base import Tools
from assistant.providers.ollama_provider import OllamaProvider
from assistant.providers.openai_provider import OpenAIProvider
from assistant.services import Services
from assistant.turn.events import Done, Notice
from memory import memories
from tests.conftest import make_runtime, offline_note
from tests.test_model_path import agent_for, chats, collect, model_runtime, responder

if TYPE_CHECKING:
    from tests.standins import StandIn

pytestmark = pytest.mark.slow

SECRETS = ("Xq9-hunter-2277", "Okonkwo", "sertraline", "4417")


def warms(standin: StandIn) -> list[dict[str, Any]]:
    return [b for b in chats(standin) if b.get("max_tokens") == 1]


def turns(standin: StandIn) -> list[dict[str, Any]]:
    return [b for b in chats(standin) if b.get("max_tokens") != 1]


async def test_no_secret_and_no_private_memory_goes_between_turns(tmp_path: Path, openai_standin: StandIn) -> None:
    """A sensitive memory, a private one, a secret in a reminder and a secret said in the conversation:
    none in the request between turns in clear, and that request holds nothing the next turn does not send."""
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "my bank password is Xq9-hunter-2277", kind="fact", sensitive=True, importance=5)
    memories.remember(rt.store, "I see Dr. Okonkwo for my anxiety and take sertraline", kind="fact", private=True,
                      importance=5)
    memories.remember(rt.store, "change the bank password Xq9-hunter-2277 at the branch",
                      due_at=(rt.clock.now() + timedelta(hours=2)).isoformat())
    agent = agent_for(rt)
    openai_standin.script = ["Noted.", "Nothing planned."]
    await collect(agent, "the lockbox code is 4417, keep it safe")
    assert await agent.warm()
    await collect(agent, "what is on for the weekend?")
    warm, turn = warms(openai_standin)[-1], turns(openai_standin)[-1]
    sent = json.dumps(warm)
    assert not [s for s in SECRETS if s in sent], sent
    assert warm["messages"][:-2] == turn["messages"][:-2]
    assert warm["messages"][-1] == {"role": "user", "content": ""}
    rt.close()


async def test_the_empty_message_is_kept_nowhere_and_never_sent_again(tmp_path: Path,
                                                                       openai_standin: StandIn) -> None:
    """Between turns nothing is written (no message, no Why record, no memory touched), and the next
    turn's request has no empty message in it."""
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="decision", importance=5)
    agent = agent_for(rt)
    openai_standin.script = ["Hi.", "It is 1500 euros."]
    await collect(agent, "hello")
    changes = rt.store.conn.total_changes
    assert await agent.warm()
    assert rt.store.conn.total_changes == changes  # nothing written, nothing counted as used
    await collect(agent, "what is the ski trip budget?")
    stored = [r[0] for r in rt.store.query("SELECT content FROM messages ORDER BY id")]
    assert stored == ["hello", "Hi.", "what is the ski trip budget?", "It is 1500 euros."]
    assert rt.store.one("SELECT count(*) FROM turn_records")[0] == 2
    assert not [m for m in turns(openai_standin)[-1]["messages"] if not m["content"]]
    rt.close()


async def test_an_incognito_conversation_is_read_as_its_next_turn_sends_it_and_nothing_is_kept(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """Decided: in an incognito conversation the person's own server reads it between turns too (the next
    turn sends the same to the same server, nothing more), through the gate, and nothing is written."""
    rt = model_runtime(tmp_path, openai_standin)
    services = Services(rt)
    services.model.agent = agent_for(rt)
    services.incognito.start()
    openai_standin.script = ["Noted.", "Fine."]
    [e async for e in services.model.turn("my lockbox code is 4417")]
    changes = rt.store.conn.total_changes
    assert await services.model.warm()
    assert rt.store.conn.total_changes == changes
    [e async for e in services.model.turn("and how are you?")]
    warm, turn = warms(openai_standin)[-1], turns(openai_standin)[-1]
    assert "4417" not in json.dumps(warm) and warm["messages"][:-2] == turn["messages"][:-2]
    assert rt.store.one("SELECT count(*) FROM messages")[0] == 0
    rt.close()


def test_never_to_a_server_on_the_internet_or_a_cloud_model() -> None:
    """A paid API charges for it and keeps no prefix of ours: Ollama's own cloud (ollama.com, or a
    `-cloud` model a local Ollama forwards there), an Ollama or OpenAI-compatible server at an address
    on the internet."""
    assert OllamaProvider("http://127.0.0.1:11434", "llama3.2").capabilities.keeps_prefix
    assert OllamaProvider("http://gpu-box:11434", "llama3.2").capabilities.keeps_prefix
    assert not OllamaProvider("https://ollama.com", "gpt-oss:120b").capabilities.keeps_prefix
    assert not OllamaProvider("https://93.184.216.34:11434", "llama3.2").capabilities.keeps_prefix
    assert not OllamaProvider("http://127.0.0.1:11434", "gpt-oss:120b-cloud").capabilities.keeps_prefix
    assert not OpenAIProvider("http://127.0.0.1:11434/v1", "qwen3-coder:480b-cloud").capabilities.keeps_prefix
    assert not OpenAIProvider("https://openrouter.ai/api/v1", "x").capabilities.keeps_prefix
    assert not OpenAIProvider("http://localhost.example.com/v1", "x").capabilities.keeps_prefix


async def test_an_ollama_on_the_internet_is_not_asked_between_turns(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    from assistant.responders.model import ModelResponder

    provider = OllamaProvider("https://ollama.com", "gpt-oss:120b")
    assert not await ModelResponder(rt, provider).warm([])  # returns before any request: no network here
    rt.close()


async def test_nothing_between_turns_without_a_model_and_no_wait_with_the_model_down(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """The offline mode, chosen or found at launch: no request. A configured server that is down at launch
    keeps its place (it is said once); the read between turns fails at once and silently, and the first
    turn says the server is not reachable and answers offline."""
    offline = Services(make_runtime(tmp_path / "a", ASSISTANT_PROVIDER="offline"))
    offline.model.connect()
    assert not await offline.model.warm()
    offline.runtime.close()
    url = openai_standin.base
    openai_standin.close()  # down at launch
    down = Services(make_runtime(tmp_path / "b", ASSISTANT_PROVIDER="openai", OPENAI_BASE_URL=url,
                                 ASSISTANT_MODEL="stand-in"))
    down.model.connect()
    assert down.model.launch_note
    await asyncio.wait_for(down.model.warm(), 20)
    events = [e async for e in down.model.turn("hello")]
    assert isinstance(events[-1], Done) and "not reachable" in offline_note(events)
    assert not await down.model.warm()  # the last turn failed: nothing until one goes well
    down.runtime.close()


async def test_a_server_refusing_tools_between_turns_is_still_said_at_the_next_turn(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """llama-server without --jinja refuses a request with tools: refused at launch between turns, the
    person is told at the first turn, as when the turn itself met it (what the server is is learned by turns)."""
    openai_standin.tools = False
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    assert await agent.warm()
    openai_standin.script = ["Hello."]
    events = await collect(agent, "hello")
    assert [e for e in events if isinstance(e, Notice) and "without tools" in e.text], events
    assert isinstance(events[-1], Done) and events[-1].text == "Hello."
    assert responder(agent).provider.capabilities.tools is Tools.NO
    rt.close()


async def until_asked_between_turns(standin: StandIn) -> None:
    """Until the server has the request between turns (at most 4 s)."""
    for _ in range(200):
        if warms(standin):
            return
        await asyncio.sleep(0.02)


async def test_a_turn_sent_while_the_server_reads_between_turns_is_answered(tmp_path: Path,
                                                                            openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    openai_standin.script = ["Hi.", "Fine, thanks."]
    await collect(agent, "hello")
    openai_standin.slow_warm = 1.0
    warming = asyncio.create_task(agent.warm())
    await until_asked_between_turns(openai_standin)
    events = await collect(agent, "how are you?")
    assert isinstance(events[-1], Done) and events[-1].text == "Fine, thanks."
    assert await warming
    turn = turns(openai_standin)[-1]
    assert [m["content"] for m in turn["messages"][-3:]][::2] == ["Hi.", "how are you?"]
    assert not [m for m in turn["messages"] if not m["content"]]
    rt.close()


async def test_a_server_that_never_answers_between_turns_keeps_no_turn_waiting(tmp_path: Path,
                                                                               openai_standin: StandIn) -> None:
    """It accepted the request between turns and went quiet: the next turn is answered (a server that
    goes quiet on the turn too is said after first_token_timeout, as any turn), and the next read
    between turns goes out."""
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    openai_standin.script = ["Hi.", "Here."]
    await collect(agent, "hello")
    openai_standin.slow_warm = 60
    hung = asyncio.create_task(agent.warm())
    await until_asked_between_turns(openai_standin)
    events = await asyncio.wait_for(collect(agent, "are you there?"), 20)
    assert isinstance(events[-1], Done) and events[-1].text == "Here."
    hung.cancel()  # the app's worker for it is exclusive: the next one cancels it
    with pytest.raises(asyncio.CancelledError):
        await hung
    openai_standin.slow_warm = 0
    assert await asyncio.wait_for(agent.warm(), 20)
    assert len(warms(openai_standin)) == 2
    rt.close()


async def test_at_a_small_window_what_is_read_between_turns_fits_and_the_next_turn_starts_with_it(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """ASSISTANT_CONTEXT_WINDOW=2048 and a server that refuses a prompt of 2,048 tokens or more: a long
    conversation, read between every two turns; no such request is refused, and each turn begins with
    what was read before it."""
    openai_standin.window = 2048
    rt = model_runtime(tmp_path, openai_standin, ASSISTANT_CONTEXT_WINDOW="2048")
    agent = agent_for(rt)
    for n in range(10):
        openai_standin.script = [f"answer {n} " + "and more words " * 15]
        events = await collect(agent, f"question {n} " + "with many words " * (10 + 2 * n))
        assert isinstance(events[-1], Done) and events[-1].text.startswith(f"answer {n}"), events[-1]
        assert await agent.warm()
    sent = chats(openai_standin)
    assert [b.get("max_tokens") == 1 for b in sent] == [False, True] * 10
    for body in sent:
        size = len(json.dumps(body["messages"]) + json.dumps(body.get("tools") or [])) // 4
        assert size < 2048, size
    for warm, turn in zip(sent[1::2], sent[2::2], strict=False):
        assert turn["messages"][:-2] == warm["messages"][:-2]
    rt.close()


async def test_a_when_question_with_a_long_block_still_starts_with_what_was_read_between_turns(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """At a 2,048-token window, turns fill the history; then a when-question brings a block longer than
    the blocks before it, while the model's rambling answers match it too. Those answers are not dated
    statements (they are in the history) and the block keeps to its budget: the turn sends the history as
    it was read between turns, not a history cut in the turn (which the server would read again whole)."""
    openai_standin.window = 2048
    rt = model_runtime(tmp_path, openai_standin, ASSISTANT_CONTEXT_WINDOW="2048")
    people = ("Anna", "Bilal", "Chen", "Dario", "Esme", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kemi", "Luca",
              "Mira", "Nils", "Oona", "Pavel")
    books = ("Middlemarch", "Dune", "Beloved", "Ulysses", "Emma", "Rebecca", "Solaris", "Kindred", "Persuasion",
             "Stoner", "Gilead", "Possession", "Atonement", "Wolf Hall", "Lolita", "Nostromo")
    for day, (person, book) in enumerate(zip(people, books, strict=True), start=1):
        memories.remember(rt.store, f"at the book club in the library on November {day} {person} brought "
                                    f"{book} and talked about it for an hour", kind="event")
    agent = agent_for(rt)
    questions = [f"tell me something nice about the number {n} " + "please " * 12 for n in range(9)]
    for n, question in enumerate([*questions, "when did the book club meet at the library?"]):
        # A small model's answers ramble about what it saw: they match the when-question too.
        openai_standin.script = [f"answer {n}: the book club at the library met last Tuesday, on 2026-11-{10 + n}, "
                                 + "and the library had books and the club had members " * 6]
        events = await collect(agent, question)
        assert isinstance(events[-1], Done), events[-1]
        assert await agent.warm()
    sent = chats(openai_standin)
    last_warm, when = sent[-3], sent[-2]
    block = when["messages"][-2]["content"]
    assert "brought" in block  # the person's own statements
    assert "answer " not in block  # not the model's own answers: they are in the history it is sent
    assert when["messages"][:-2] == last_warm["messages"][:-2]
    for body in sent:
        assert len(json.dumps(body["messages"]) + json.dumps(body.get("tools") or [])) // 4 < 2048
    rt.close()


async def test_an_ollama_server_takes_the_empty_message(tmp_path: Path, ollama_standin: StandIn) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="ollama", ASSISTANT_MODEL="llama3.2")
    agent = agent_for(rt)
    ollama_standin.script = ["Hi there.", "Good."]
    await collect(agent, "hello")
    assert await agent.warm()
    events = await collect(agent, "how are you?")
    assert isinstance(events[-1], Done) and events[-1].text == "Good."
    sent = ollama_standin.bodies("/api/chat")
    assert [b["options"]["num_predict"] == 1 for b in sent] == [False, True, False]
    assert sent[1]["messages"][-1]["role"] == "user" and not sent[1]["messages"][-1].get("content")
    assert all(m.get("content") for m in sent[2]["messages"])
    rt.close()
