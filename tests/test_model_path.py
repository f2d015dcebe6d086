"""SPEC F7 (issue 31): with the user's own model, nothing asked is lost. Through the real openai SDK
against the loopback stand-in: a model that chats instead of calling a tool, one that did call it
(nothing done twice), an incognito conversation (nothing done at all), a server that refuses a prompt
for its length (retried once smaller, else said), a window the request is fitted to, a server that dies
in the middle of an answer and one that never starts one."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.providers.select import select_provider
from assistant.responders.model import ModelResponder
from assistant.services import Services
from assistant.services.model import responder_for
from assistant.turn.agent import Agent
from assistant.turn.events import Done, Event, Failed, Notice, ToolCall, ToolResult
from memory import memories, reminders
from tests.conftest import Cli, last_text, make_runtime, offline_note, present

if TYPE_CHECKING:
    from assistant.runtime import Runtime
    from memory.memories import Memory
    from tests.known_texts import KnownTexts
    from tests.standins import StandIn

STAMPS = "remind me to buy stamps tomorrow at 10am"


def model_runtime(tmp_path: Path, standin: StandIn, **env: str) -> Runtime:
    standin.models = ["stand-in"]
    return make_runtime(tmp_path, ASSISTANT_PROVIDER="openai", OPENAI_BASE_URL=standin.base,
                        ASSISTANT_MODEL="stand-in", **env)


def agent_for(rt: Runtime) -> Agent:
    return Agent(rt, responder_for(rt, select_provider(rt)))


async def collect(agent: Agent, text: str) -> list[Event]:
    return [e async for e in agent.turn(text)]


def chats(standin: StandIn) -> list[dict[str, Any]]:
    return standin.bodies("/v1/chat/completions")


def responder(agent: Agent) -> ModelResponder:
    """The agent's model responder (these tests have a model)."""
    assert isinstance(agent.responder, ModelResponder)
    return agent.responder


def open_reminders(rt: Runtime) -> list[Memory]:
    return [r.memory for r in reminders.get_upcoming(rt.store, within_days=30)]


async def test_a_model_that_chats_instead_of_acting_loses_nothing(tmp_path: Path, openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = ["When you're about to buy stamps tomorrow, please remember that it's a reminder."]
    events = await collect(agent_for(rt), STAMPS)
    stored = open_reminders(rt)
    assert [m.content for m in stored] == ["buy stamps"] and present(stored[0].due_at).startswith("2026-11-23T10:00")
    call = next(e for e in events if isinstance(e, ToolCall))
    assert call.id.startswith("app_") and call.name == "remember"  # carried out by the app, after the answer
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.is_error and "done by the app from your message" in result.summary
    assert isinstance(events[-1], Done) and "reminders" in events[-1].changed
    # The next turn's request tells the model what the app did, so it does not say otherwise.
    openai_standin.script = ["Noted."]
    await collect(agent_for(rt), "thanks")
    history = json.dumps(chats(openai_standin)[-1]["messages"])
    assert "buy stamps" in history and "remember" in history
    rt.close()


async def test_a_reminder_at_a_time_no_day_has_is_said_when_the_model_sets_nothing(tmp_path: Path,
                                                                                     openai_standin: StandIn) -> None:
    """An attacker's: with a model, "remind me to call Bob tomorrow at 25:00" ended with the model's words alone,
    nothing stored and nothing said (offline, the app asks for the time again)."""
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = ["Sure, I'll remind you to call Bob."]
    events = await collect(agent_for(rt), "remind me to call Bob tomorrow at 25:00")
    assert open_reminders(rt) == [] and not any(isinstance(e, ToolCall) for e in events)
    answer = last_text(events)
    assert answer.startswith("Sure, I'll remind you to call Bob.") and \
        "No reminder was set: There's no such time of day as 25:00." in answer
    rt.close()


async def test_what_the_model_did_itself_is_not_done_again(tmp_path: Path, openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = [{"tool_calls": [("remember", {"content": "buy stamps",
                                                           "due_at": "tomorrow at 10am"})]}, "Done."]
    agent = agent_for(rt)
    events = await collect(agent, STAMPS)
    assert [m.content for m in open_reminders(rt)] == ["buy stamps"]  # once
    assert present(responder(agent).fitted).tokens > 500  # the request's size is counted with no window known too
    assert not any(isinstance(e, ToolCall) and e.id.startswith("app_") for e in events)
    rt.close()


async def test_a_remember_the_model_chatted_past_is_kept(tmp_path: Path, openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = ["That's a great locker number!"]
    await collect(agent_for(rt), "remember that my gym locker is number 112")
    assert [m.content for m in memories.matching(rt.store, ["locker"])] == ["my gym locker is number 112"]
    rt.close()


async def test_an_incognito_conversation_is_never_acted_on_after_the_answer(tmp_path: Path,
                                                                            openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    services = Services(rt)
    services.model.agent = agent_for(rt)
    services.incognito.start()
    openai_standin.script = ["Sure!"]
    events = [e async for e in services.model.turn(STAMPS)]
    assert open_reminders(rt) == [] and not any(isinstance(e, ToolCall) for e in events)
    assert rt.store.one("SELECT count(*) FROM messages")[0] == 0
    rt.close()


async def test_a_refusal_for_length_is_retried_once_smaller(tmp_path: Path, openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    for n in range(6):  # a conversation in progress: the retry has history to leave out
        openai_standin.script = [f"answer {n} " + "and more words " * 20]
        await collect(agent, f"tell me about topic {n} " + "with many words " * 20)
    before = len(chats(openai_standin))
    openai_standin.script = [(400, "Requested tokens (2155) exceed context window of 2048"), "Paris."]
    events = await collect(agent, "what is the capital of France?")
    sent = chats(openai_standin)[before:]
    assert len(sent) == 2 and isinstance(events[-1], Done) and events[-1].text == "Paris."
    assert len(json.dumps(sent[1])) < len(json.dumps(sent[0]))  # the second request is smaller
    assert sent[1]["messages"][-1]["content"] == "what is the capital of France?"  # the message always goes
    rt.close()


async def test_a_second_refusal_for_length_is_said_plainly_and_the_message_kept(tmp_path: Path,
                                                                                openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = [(400, "Requested tokens (2155) exceed context window of 2048")]
    events = await collect(agent_for(rt), STAMPS)
    done = events[-1]
    assert isinstance(done, Done) and done.failure == "context"
    assert "longer than its context window" in done.text and "--n_ctx" in done.text
    assert done.text.count("I handled this offline") == 1  # said once, before the action, not after it too
    assert len(chats(openai_standin)) == 2  # once, then once smaller: never a loop
    said = [r[0] for r in rt.store.query("SELECT content FROM messages WHERE role = 'user'")]
    assert said == [STAMPS]
    assert [m.content for m in open_reminders(rt)] == ["buy stamps"]  # the app's own reading acted
    rt.close()


async def test_a_configured_window_fits_the_request_oldest_history_first(tmp_path: Path,
                                                                         openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin, ASSISTANT_CONTEXT_WINDOW="1024")
    agent = agent_for(rt)
    for n in range(12):
        openai_standin.script = [f"answer {n} " + "and more words " * 30]
        await collect(agent, f"question {n} " + "with many words " * 30)
    openai_standin.script = ["ok"]
    await collect(agent, "the last question")
    body = chats(openai_standin)[-1]
    fitted = responder(agent).fitted
    assert fitted is not None and fitted.tokens <= 1024 and fitted.dropped  # something had to go
    said = [m["content"] for m in body["messages"] if m["role"] == "user"]
    assert said[-1] == "the last question" and "question 0 " not in json.dumps(said)  # the oldest went first
    assert body["max_tokens"] <= 1024 // 4  # room kept for the answer, within the window
    rt.close()


async def test_a_models_which_one_is_no_question_of_the_offline_mode_without_tools(tmp_path: Path,
                                                                                    openai_standin: StandIn) -> None:
    """A server without tools hands the answers to the offline mode's own questions to the offline mode:
    a model's answer worded like one of them ("Which one did you mean?") is not one, and "2" after it
    goes to the model, changing nothing."""
    openai_standin.tools = False
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "call the dentist", due_at="2026-11-27T09:00:00+00:00")
    memories.remember(rt.store, "pay the dentist bill", due_at="2026-11-28T09:00:00+00:00")
    agent = agent_for(rt)
    openai_standin.script = ["Which one did you mean? Say its number (nothing was changed):\n"
                             "- #1 call the dentist (DUE Fri Nov 27 09:00)\n"
                             "- #2 pay the dentist bill (DUE Sat Nov 28 09:00)"]
    await collect(agent, "cancel the dentist")
    openai_standin.script = ["Sure, noted."]
    events = await collect(agent, "2")
    assert [m.content for m in open_reminders(rt)] == ["call the dentist", "pay the dentist bill"]
    assert not any(isinstance(e, ToolCall) for e in events)
    assert isinstance(events[-1], Done) and events[-1].text == "Sure, noted."
    rt.close()


async def test_without_tools_yes_to_the_offline_modes_forget_question_forgets(tmp_path: Path,
                                                                              openai_standin: StandIn) -> None:
    """A server without tools: "forget the gym locker" is the offline mode's to answer, and so is the "yes"
    to its question ("Forget #1 ...?"), whichever question it asked."""
    openai_standin.tools = False
    rt = model_runtime(tmp_path, openai_standin)
    locker = memories.remember(rt.store, "my gym locker is number 112", kind="fact")
    agent = agent_for(rt)
    events = await collect(agent, "forget the gym locker")
    assert isinstance(events[-1], Done) and f"Forget #{locker.id}" in events[-1].text
    openai_standin.script = ["Done!"]  # the model, were it asked
    events = await collect(agent, "yes")
    assert memories.matching(rt.store, ["locker"]) == []
    assert isinstance(events[-1], Done | Failed) and "Done!" not in events[-1].text
    rt.close()


async def test_the_window_is_learned_again_after_the_server_failed(tmp_path: Path, openai_standin: StandIn) -> None:
    """A server that failed may come back as another (restarted with a smaller context): what it can take
    is asked again before the next request, not kept from before."""
    openai_standin.context_length = 8192
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    openai_standin.script = ["ok"]
    await collect(agent, "hello")
    assert responder(agent).window() == 8192
    openai_standin.context_length = 2048
    openai_standin.script = [500, 500, 500]  # every attempt of the turn fails
    events = await collect(agent, "hello again")
    assert isinstance(events[-1], Done) and events[-1].failure == "model"
    openai_standin.script = ["ok"]
    await collect(agent, "and again")
    assert responder(agent).window() == 2048 and chats(openai_standin)[-1]["max_tokens"] <= 2048 // 4
    rt.close()


async def test_a_server_that_dies_mid_answer_is_one_line_and_the_message_acted_on(tmp_path: Path,
                                                                                  openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = [("break", "When you are about to")]
    events = await collect(agent_for(rt), STAMPS)
    said = [e.text for e in events if isinstance(e, Failed | Notice)]
    assert len(said) == 1 and "\n" not in said[0]  # one line naming the cause
    assert [m.content for m in open_reminders(rt)] == ["buy stamps"]  # the app's own reading acted
    assert [r[0] for r in rt.store.query("SELECT content FROM messages WHERE role = 'user'")] == [STAMPS]
    rt.close()


@pytest.mark.slow
async def test_an_answer_that_never_starts_is_a_failure_within_the_timeout(tmp_path: Path,
                                                                           openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin, ASSISTANT_FIRST_TOKEN_TIMEOUT="2")
    openai_standin.script = [("sleep", 6, "too late")]
    events = await collect(agent_for(rt), "what should I cook tonight?")
    assert "sent no answer within 2 s" in offline_note(events)  # said once, on the answer's first line
    assert not [e for e in events if isinstance(e, Failed)]
    said = [r[0] for r in rt.store.query("SELECT content FROM messages WHERE role = 'user'")]
    assert said == ["what should I cook tonight?"]
    rt.close()


# -- SPEC F4: a prompt a server can reuse ----------------------------------------------------------------

def shared_messages(earlier: list[dict[str, Any]], later: list[dict[str, Any]]) -> int:
    """How many messages two requests share from their start (a server re-reads what follows)."""
    count = 0
    for a, b in zip(earlier, later, strict=False):
        if a != b:
            break
        count += 1
    return count


async def test_turn_two_shares_turn_ones_request_up_to_the_previous_answer(tmp_path: Path,
                                                                           openai_standin: StandIn) -> None:
    """The system prompt stays byte for byte the same (the clock moved three minutes, the questions differ);
    this turn's block is a message of its own just before the newest one, and never kept in the history."""
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "my sister Anna's birthday is on March 5", kind="fact", importance=2)
    for n in range(12):  # the most important ones (12) are the system prompt's Timeline, whatever is asked
        memories.remember(rt.store, f"important fact number {n}", kind="fact", importance=5)
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="decision", importance=2)
    agent = agent_for(rt)
    asked = ["when is Anna's birthday?", "and the ski trip budget?", "thanks!"]
    for n, text in enumerate(asked):
        openai_standin.script = [f"answer {n}"]
        await collect(agent, text)
        fixed = present(rt.clock.fixed)
        rt.clock.fixed = fixed.replace(minute=fixed.minute + 3)
    first, second, third = (body["messages"] for body in chats(openai_standin))
    assert [m["role"] for m in first] == ["system", "user", "user"]
    assert first[1]["content"].startswith("<turn_context>\n") and "March 5" in first[1]["content"]
    assert "March 5" not in first[0]["content"] and "</memory_context>" in first[0]["content"]
    assert first[2]["content"] == asked[0]
    assert second[:2] == [first[0], first[2]] and second[2] == {"role": "assistant", "content": "answer 0"}
    assert second[3]["content"].startswith("<turn_context>\n") and second[4]["content"] == asked[1]
    assert shared_messages(second, third) == 3 and third[3:5] == [second[4], {"role": "assistant",
                                                                              "content": "answer 1"}]
    assert sum("<turn_context>" in m["content"] for m in third) == 1  # earlier turns' blocks are not kept
    rt.close()


async def test_between_turns_the_server_reads_the_conversation_as_the_next_turn_sends_it(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """After a turn the app has the person's own server read the conversation (one token asked): the next
    turn's request is that request's messages, then its block and its message, so a server that keeps the
    last request's tokens reads only those two (SPEC F4)."""
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="decision")
    agent = agent_for(rt)
    openai_standin.script = [{"tool_calls": [("remember", {"content": "my cat is called Miso"})], "text": ""},
                             "Noted.", "It is 1500 euros."]
    await collect(agent, "remember that my cat is called Miso")
    assert await agent.warm()
    await collect(agent, "what is the ski trip budget?")
    turn_one, warm, turn_two = chats(openai_standin)[1:]  # the first turn made two requests (a tool round)
    assert warm["max_tokens"] == 1
    assert warm["tools"] == turn_two["tools"]
    # Everything the next turn sends before its block: the system prompt built after the turn's change.
    assert turn_two["messages"][:-2] == warm["messages"][:-2]
    assert "Noted." in warm["messages"][-3]["content"]
    # Then its block as far as it was known: its framing and the clock, before an empty message. The
    # next turn's block reads the same up to the minute, and goes on with what its message brings up.
    block, empty = warm["messages"][-2:]
    assert empty == {"role": "user", "content": ""} and block["role"] == "user"
    assert block["content"].startswith("<turn_context>\n") and "## Current Time\n" in block["content"]
    known = block["content"][:block["content"].index("## Current Time\n") + len("## Current Time\n")]
    assert turn_two["messages"][-2]["content"].startswith(known)
    assert turn_two["messages"][-1]["content"] == "what is the ski trip budget?"
    assert sum("<turn_context>" in m["content"] for m in turn_two["messages"]) == 1
    assert turn_one["messages"][1]["content"].startswith("<turn_context>")  # the first turn's block: gone since
    rt.close()


async def test_before_the_first_message_the_server_reads_the_system_prompt_and_tools(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """At launch (no conversation yet) the person's own server reads what the first turn will send before
    its message: the system prompt, the tools and the block's framing; asked the same minute about nothing
    the memory holds, the first turn then differs from it only by its message."""
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="decision")
    agent = agent_for(rt)
    assert await agent.warm()
    openai_standin.script = ["Hello."]
    await collect(agent, "hello")
    warm, turn = chats(openai_standin)
    assert warm["max_tokens"] == 1 and warm["tools"] == turn["tools"]
    assert warm["messages"][:-1] == turn["messages"][:-1]
    assert warm["messages"][-1] == {"role": "user", "content": ""} and turn["messages"][-1]["content"] == "hello"
    rt.close()


async def test_what_is_read_between_turns_passes_the_gate(tmp_path: Path, openai_standin: StandIn) -> None:
    """The request between turns is a model request like any: a secret said in the conversation goes as the
    next turn sends it, masked."""
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    openai_standin.script = ["Noted."]
    await collect(agent, "my bank card PIN is 4417, keep it safe")
    assert await agent.warm()
    warm = chats(openai_standin)[-1]
    assert warm["max_tokens"] == 1 and "4417" not in json.dumps(warm)
    rt.close()


async def test_nothing_is_read_between_turns_by_a_server_that_is_not_the_persons_own(
        tmp_path: Path, anthropic_standin: StandIn) -> None:
    """A paid API would charge for it, and keeps its own cache: no request between turns."""
    from assistant.providers.anthropic_provider import AnthropicProvider
    from assistant.providers.openai_provider import OpenAIProvider
    from tests.standins import text_reply

    rt = make_runtime(tmp_path)
    agent = Agent(rt, responder_for(rt, AnthropicProvider("claude-test", max_retries=0)))
    anthropic_standin.script = [text_reply("Hello.")]
    await collect(agent, "hello")
    assert not await agent.warm()
    assert len(anthropic_standin.bodies("/v1/messages")) == 1
    assert not OpenAIProvider("https://api.openai.com/v1", "gpt-4o").capabilities.keeps_prefix
    assert OpenAIProvider("http://192.168.1.20:8080/v1", "qwen").capabilities.keeps_prefix
    rt.close()


async def test_a_server_that_fails_between_turns_is_said_at_the_next_turn_only(tmp_path: Path,
                                                                              openai_standin: StandIn) -> None:
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    openai_standin.script = ["Hi."]
    await collect(agent, "hello")
    openai_standin.close()
    assert await agent.warm()  # asked; its failure is no one's business yet, and raises nothing
    events = await collect(agent, "are you there?")
    assert "not reachable" in offline_note(events)
    rt.close()


async def test_an_ollama_server_reads_the_conversation_between_turns(tmp_path: Path,
                                                                      ollama_standin: StandIn) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="ollama", ASSISTANT_MODEL="llama3.2")
    agent = agent_for(rt)
    ollama_standin.script = ["Hi there."]
    await collect(agent, "hello")
    assert await agent.warm()
    await collect(agent, "how are you?")
    turn_two, warm = ollama_standin.bodies("/api/chat")[-1], ollama_standin.bodies("/api/chat")[-2]
    assert warm["options"]["num_predict"] == 1
    assert turn_two["messages"][:-2] == warm["messages"][:-2]
    assert warm["messages"][-2]["content"].startswith("<turn_context>") and not warm["messages"][-1].get("content")
    rt.close()


async def test_a_long_conversation_at_a_small_window_keeps_where_its_history_starts(tmp_path: Path,
                                                                                    openai_standin: StandIn) -> None:
    """At a 2,048-token window the history must be cut: it is cut once in a while, to half its room, not by
    one message every turn (each such cut makes the server read the whole conversation again)."""
    rt = model_runtime(tmp_path, openai_standin, ASSISTANT_CONTEXT_WINDOW="2048")
    agent = agent_for(rt)
    for n in range(12):
        openai_standin.script = [f"answer {n} " + "and more words " * 12]
        await collect(agent, f"question {n} " + "with many words " * 12)
    sent = [body["messages"] for body in chats(openai_standin)]
    assert all(responder(agent).fitted is not None and len(json.dumps(m)) / 3.2 < 2048 for m in sent)
    cuts = [n for n in range(1, len(sent)) if shared_messages(sent[n - 1], sent[n]) < len(sent[n - 1]) - 2]
    # One message a turn would be a cut at every turn.
    assert present(responder(agent).fitted).dropped and 1 <= len(cuts) <= 4, cuts
    rt.close()


async def test_with_reads_between_turns_a_history_cut_comes_between_turns(tmp_path: Path,
                                                                         openai_standin: StandIn) -> None:
    """At a 2,048-token window the history is cut now and then; read between turns with room to spare, the
    cut is made there, while the person types, and every turn's request begins with what was read before it."""
    rt = model_runtime(tmp_path, openai_standin, ASSISTANT_CONTEXT_WINDOW="2048")
    agent = agent_for(rt)
    for n in range(12):  # each message longer than the one before: the last one is no measure of the next
        openai_standin.script = [f"answer {n} " + "and more words " * 12]
        await collect(agent, f"question {n} " + "with many words " * (8 + 3 * n))
        assert await agent.warm()
    sent = chats(openai_standin)
    turns, warms = sent[0::2], sent[1::2]
    assert all(w["max_tokens"] == 1 for w in warms) and not any(t["max_tokens"] == 1 for t in turns)
    for warm, turn in zip(warms, turns[1:], strict=False):
        assert turn["messages"][:-2] == warm["messages"][:-2]
    cuts = [n for n in range(1, len(warms)) if shared_messages(warms[n - 1]["messages"], warms[n]["messages"]) < 2]
    assert cuts, "the conversation outgrew the window: it was cut, between turns"
    rt.close()


async def test_anthropic_caches_the_system_prompt_and_the_history_and_sends_the_turn_as_its_own_block(
        tmp_path: Path, anthropic_standin: StandIn) -> None:
    from assistant.providers.anthropic_provider import AnthropicProvider
    from tests.standins import text_reply

    rt = make_runtime(tmp_path)
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="decision")
    agent = Agent(rt, responder_for(rt, AnthropicProvider("claude-test", max_retries=0)))
    anthropic_standin.script = [text_reply("It is 1500 euros.")]
    await collect(agent, "what is the ski trip budget?")
    anthropic_standin.script = [text_reply("You're welcome.")]
    await collect(agent, "thanks")
    first, second = anthropic_standin.bodies("/v1/messages")
    assert [b.get("cache_control") for b in second["system"]] == [{"type": "ephemeral"}] * 2
    assert second["system"] == first["system"]
    newest = second["messages"][-1]["content"]
    assert newest[0]["text"].startswith("<turn_context>") and newest[1]["text"] == "thanks"
    assert second["messages"][-2]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # after the history
    assert second["messages"][0]["content"] == "what is the ski trip budget?"  # its block went with its turn
    rt.close()


# -- never a silent no-answer (issue 43), a cut answer, a server swapped (issue 46) ------------------------

def stored_answers(rt: Runtime) -> list[str]:
    return [r[0] for r in rt.store.query("SELECT content FROM messages WHERE role = 'assistant' ORDER BY id")]


async def test_a_streamed_request_refused_for_length_in_silence_is_retried_smaller(tmp_path: Path,
                                                                                   openai_standin: StandIn,
                                                                                   known_texts: KnownTexts) -> None:
    """llama-cpp-python refuses a streamed request over its window (2,048 by default, which it does not
    report) with a stream that ends at once, empty: the turn is retried once, fitted to a smaller window."""
    openai_standin.window = 2048
    openai_standin.any_name = True
    rt = model_runtime(tmp_path, openai_standin)
    details = [f"the ski trip detail number {n} is something worth keeping" for n in range(30)]
    known_texts.learn_statements(details)  # the bundled model's vectors of them, made ahead
    for detail in details:
        memories.remember(rt.store, detail, kind="fact", importance=5)
    agent = agent_for(rt)
    for n in range(6):  # a conversation long enough to be over the window
        openai_standin.script = [f"answer {n} " + "and more words " * 30]
        await collect(agent, f"tell me about the ski trip, part {n} " + "with many words " * 30)
    openai_standin.script = ["Paris."]
    events = await collect(agent, "what is the capital of France?")
    done = events[-1]
    assert isinstance(done, Done) and done.text == "Paris." and done.failure is None
    assert stored_answers(rt)[-1] == "Paris."
    rt.close()


async def test_a_request_too_long_even_when_cut_is_said_and_answered_offline(tmp_path: Path,
                                                                             openai_standin: StandIn) -> None:
    openai_standin.window = 300  # not even the instructions fit
    openai_standin.any_name = True
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "the ski trip budget is 1500 euros", kind="decision")
    events = await collect(agent_for(rt), "what is the ski trip budget?")
    done = events[-1]
    assert isinstance(done, Done) and done.failure == "context" and not [e for e in events if isinstance(e, Failed)]
    assert "context window" in offline_note(events) and "1500 euros" in done.text  # answered offline, from memory
    assert stored_answers(rt) == [done.text]
    rt.close()


async def test_an_answer_cut_after_its_first_word_is_said_and_stored_as_cut(tmp_path: Path,
                                                                            openai_standin: StandIn) -> None:
    """The server dies after the first word: said at once in one line (not as "not reachable": it answered),
    and the word is stored marked as cut, not as the whole answer."""
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = [("cut", "This")]
    events = await collect(agent_for(rt), "tell me a long story about a lighthouse")
    failed = [e for e in events if isinstance(e, Failed)]
    assert len(failed) == 1 and "\n" not in failed[0].text and "not reachable" not in failed[0].text
    assert "cut off" in failed[0].text or "stopped" in failed[0].text
    [answer] = stored_answers(rt)
    assert answer.startswith("This") and answer != "This" and "cut off" in answer
    rt.close()


async def test_a_different_server_on_the_same_url_is_learned_again(tmp_path: Path, openai_standin: StandIn) -> None:
    """The model was taken from the server's list; another server comes up on the same URL with another
    model: after the failed request the app asks again and the next turn is the new model's."""
    openai_standin.models = ["model-a"]
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="openai", OPENAI_BASE_URL=openai_standin.base)
    agent = agent_for(rt)
    openai_standin.script = ["from a"]
    await collect(agent, "hello")
    assert agent.responder.model == "model-a"
    openai_standin.models = ["model-b"]  # swapped: "model-a" is now a 404
    openai_standin.script = ["from b"]
    events = await collect(agent, "hello again")
    assert [e.text for e in events if isinstance(e, Notice | Failed)] == [
        f"The OpenAI-compatible server at {openai_standin.base} no longer serves 'model-a': 'model-b' answers "
        "from now on"]
    assert last_text(events) == "from b" and agent.responder.model == "model-b"
    events = await collect(agent, "and again")
    assert last_text(events) == "from b" and chats(openai_standin)[-1]["model"] == "model-b"
    rt.close()


@pytest.mark.parametrize(("owner", "asked"), [("me", set()), ("llamacpp", {"/props"})])
async def test_the_window_is_asked_only_where_the_server_says_it_keeps_it(tmp_path: Path, openai_standin: StandIn,
                                                                          owner: str, asked: set[str]) -> None:
    """An OpenAI-compatible server is asked for its window by the paths of the kind it says it is (its
    /v1/models), never by Ollama's or LM Studio's, whose 404s fill its log with errors."""
    openai_standin.owned_by = owner
    rt = model_runtime(tmp_path, openai_standin)
    openai_standin.script = ["ok"]
    await collect(agent_for(rt), "hello")
    probed = {r["path"] for r in openai_standin.requests} - {"/v1/models", "/v1/chat/completions"}
    assert probed == asked
    rt.close()


def test_status_names_a_model_by_its_short_name(tmp_path: Path, openai_standin: StandIn,
                                                monkeypatch: pytest.MonkeyPatch, cli: Cli) -> None:
    """Issue 46: `assistant status` named a llama-cpp-python model by its whole .gguf path, where the status
    bar says its short name."""
    path = "/home/me/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    openai_standin.models = [path]
    monkeypatch.setenv("ASSISTANT_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_standin.base)
    assert cli("remember", "the ski trip budget is 1500 euros")[0] == 0
    code, out, _ = cli("status")
    assert code == 0 and "openai SmolLM2-135M-Instruct.Q4_1 at" in out and "/home/me/models" not in out
    code, out, _ = cli("status", "--json")
    assert json.loads(out)["models"]["chat"]["model"] == path  # the data keeps the name as the server gives it


async def test_an_exchange_answered_offline_while_the_model_was_down_is_not_in_its_history(
        tmp_path: Path, openai_standin: StandIn) -> None:
    """The offline mode's answer to a turn the model could not take says so ("I couldn't reach the chat
    model"); shown that in its history once it is back, a small model said it too, reachable as it was (a
    newcomer's session). The exchange stays stored and on screen; the model's history leaves it out."""
    rt = model_runtime(tmp_path, openai_standin)
    agent = agent_for(rt)
    openai_standin.script = ["Hello.", 401, "Noted."]
    await collect(agent, "hi")
    down = await collect(agent, "my favourite colour is green")
    assert "couldn't reach the chat model" in offline_note(down)
    await collect(agent, "what colour do I like?")
    last = chats(openai_standin)[-1]["messages"]
    sent = json.dumps(last)
    assert "couldn't reach" not in sent and "handled this offline" not in sent
    roles = [m["role"] for m in last if not m["content"].startswith("<turn_context>")]
    assert roles == ["system", "user", "assistant", "user"] and last[-1]["content"] == "what colour do I like?"
    stored = [r[0] for r in rt.store.query("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    assert stored == ["hi", "my favourite colour is green", "what colour do I like?"]
    rt.close()
