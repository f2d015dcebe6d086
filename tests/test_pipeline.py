"""A turn is one pipeline (SPEC 1): the message is read once, the gate is always there, and a responder
answers: a model responder that builds the prompt and calls the model through the gate, or the offline
responder that needs no prompt and searches memory once."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from assistant.conversation import AssistantMessage, Item, ToolOutput, ToolResults, ToolUse, UserMessage
from assistant.outbound.gate import LOCAL_GATE, Gate, LocalGate
from assistant.reading import read
from assistant.responders.offline import OfflineResponder
from assistant.services.model import responder_for
from assistant.turn.agent import Agent
from assistant.turn.events import Done
from memory import memories
from tests.standins import StandIn, text_reply

if TYPE_CHECKING:
    from assistant.reading.actions import Action
    from assistant.runtime import Runtime
    from memory.search.hybrid import Hit
    from memory.store import Store


class Counted:
    """The runtime's own searcher, with its hybrid searches counted (lookups by id or date are not searches)."""

    def __init__(self, runtime: Runtime) -> None:
        self.calls: list[str] = []
        searcher = runtime.searcher
        real = searcher.search

        def search(query: str, *args: Any, **kwargs: Any) -> list[Hit]:
            self.calls.append(query)
            return real(query, *args, **kwargs)

        searcher.search = search  # type: ignore[method-assign]  # the runtime's own searcher, counted


def activations(store: Store) -> dict[int, int]:
    return {r[0]: r[1] for r in store.query("SELECT memory_id, activation_count FROM memory_meta")}


def seed(store: Store) -> None:
    memories.remember(store, "the building door code is 5829", kind="fact")
    memories.remember(store, "Sara moved to Lisbon last month", kind="fact")
    memories.remember(store, "the ski trip budget is 1500 euros", kind="fact")
    memories.remember(store, "our 1:1 is every Thursday at 10", kind="fact")
    memories.remember(store, "Priya Sharma is my new colleague", kind="fact")
    memories.remember(store, "Tom's birthday is on March 3", kind="fact")
    memories.remember(store, "buy a present for Tom", due_at="2026-12-01T09:00:00+00:00")
    memories.remember(store, "the door code changed to 7731", kind="fact")


@pytest.mark.parametrize("question", ["what is the building door code?", "where does Sara live now?",
                                      "when did Sara move to Lisbon?", "when is our 1:1?", "what is the budget",
                                      "what's Priya's last name?", "hey, who is Priya?", "when is Tom's birthday?",
                                      "what's the door code?", "where do I live?"])
async def test_an_offline_question_searches_memory_once_and_builds_no_prompt(rt: Runtime, question: str) -> None:
    seed(rt.store)
    counted = Counted(rt)
    events = [e async for e in Agent(rt, OfflineResponder(rt)).turn(question)]
    assert isinstance(events[-1], Done) and events[-1].text
    assert len(counted.calls) == 1, counted.calls


@pytest.mark.parametrize("message", ["what do I still have to do today?", "what's coming up?",
                                     "what do I have on Tuesday?",
                                     "the gate code changed to 5521", "remind me two days before Tom's birthday to "
                                     "buy a card"])
async def test_agendas_changes_and_event_dates_make_no_hybrid_search(rt: Runtime, message: str) -> None:
    """Lookups by date or keyword over reminders and plans are not searches: an agenda, a change said
    without "remember that" and a reminder relative to an event search nothing."""
    seed(rt.store)
    counted = Counted(rt)
    events = [e async for e in Agent(rt, OfflineResponder(rt)).turn(message)]
    assert isinstance(events[-1], Done) and events[-1].text
    assert counted.calls == []


@pytest.mark.parametrize("message", ["anything else?", "do I have any trips planned?"])
async def test_an_agenda_that_lists_nothing_searches_memory_once(rt: Runtime, message: str) -> None:
    """An agenda with nothing to list asks memory once, by meaning ('where are we going camping?' is
    answered by the stored trip), never more."""
    seed(rt.store)
    counted = Counted(rt)
    events = [e async for e in Agent(rt, OfflineResponder(rt)).turn(message)]
    assert isinstance(events[-1], Done) and events[-1].text
    assert len(counted.calls) <= 1, counted.calls


async def test_an_offline_request_searches_nothing_and_touches_no_memory(rt: Runtime) -> None:
    seed(rt.store)
    before = activations(rt.store)
    counted = Counted(rt)
    events = [e async for e in Agent(rt, OfflineResponder(rt)).turn("remind me to call the bank tomorrow at 10am")]
    assert isinstance(events[-1], Done) and "remind you to call the bank" in events[-1].text
    assert counted.calls == []
    # No prompt was sent, so no memory on a timeline counts as used.
    assert {k: v for k, v in activations(rt.store).items() if k in before} == before


async def test_a_model_turn_touches_the_memories_its_prompt_sent(rt: Runtime, anthropic_standin: StandIn) -> None:
    from assistant.providers.anthropic_provider import AnthropicProvider

    seed(rt.store)
    anthropic_standin.script = [text_reply("Noted.")]
    events = [e async for e in Agent(rt, responder_for(rt, AnthropicProvider("m", max_retries=0)))
              .turn("how is the ski trip budget looking?")]
    assert isinstance(events[-1], Done)
    sent = anthropic_standin.bodies("/v1/messages")[0]
    newest = sent["messages"][-1]["content"]  # this turn's block comes just before the message (SPEC F4)
    assert newest[0]["text"].startswith("<turn_context>")
    # A store this small is the system prompt's Timeline whole (its most important memories): sent there.
    assert "1500 euros" in json.dumps(sent["system"])
    budget = rt.store.one("SELECT id FROM knowledge WHERE content LIKE '%ski trip budget%'")[0]
    assert activations(rt.store)[budget] == 1


async def test_the_message_is_read_once_per_turn(rt: Runtime, anthropic_standin: StandIn,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.providers.anthropic_provider import AnthropicProvider
    from assistant.reading import understand

    seed(rt.store)
    seen: list[str] = []
    real = understand.read_message

    def read_message(text: str, *a: Any) -> Action:
        seen.append(text)
        return real(text, *a)

    monkeypatch.setattr(understand, "read_message", read_message)
    monkeypatch.setattr("assistant.reading.read_message", understand.read_message)
    anthropic_standin.script = [text_reply("It is 5829.")]
    [e async for e in Agent(rt, responder_for(rt, AnthropicProvider("m", max_retries=0)))
     .turn("what is the building door code?")]
    [e async for e in Agent(rt, OfflineResponder(rt)).turn("what is the building door code?")]
    assert seen == ["what is the building door code?"] * 2


def test_the_responder_makes_the_gate(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.providers.anthropic_provider import AnthropicProvider

    reading = read("what is my gym locker pin?", rt.clock)
    assert OfflineResponder(rt).gate_for(rt.store, reading) is LOCAL_GATE
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-unused")
    gate = responder_for(rt, AnthropicProvider("m", max_retries=0)).gate_for(rt.store, reading)
    assert isinstance(gate, Gate) and not isinstance(gate, LocalGate)


def test_the_local_gate_passes_everything_unchanged(rt: Runtime) -> None:
    secret = memories.remember(rt.store, "my bank password is Hunter2!x9", kind="fact")
    private = memories.remember(rt.store, "I see Dr. Klein on Tuesdays", kind="fact", private=True)
    assert secret.sensitive
    items: list[Item] = [UserMessage("my pin is 4471", 1),
                         AssistantMessage("ok", (ToolUse("t", "remember", {"c": "4471"}),)),
                         ToolResults((ToolOutput("t", "remember", "Remembered #1: my pin is 4471"),))]
    assert LOCAL_GATE.conversation(items) == items
    assert LOCAL_GATE.memory(secret) == secret.content and LOCAL_GATE.memory(private) == private.content
    assert LOCAL_GATE.text("my bank password is Hunter2!x9", "x") == "my bank password is Hunter2!x9"
    # The model's gate holds both back.
    gate = Gate.for_turn(rt.store, read("what time is it?", rt.clock))
    assert gate.memory(secret) == f"[secret in memory #{secret.id}]"
    assert gate.memory(private) == f"[private memory #{private.id}]"


def test_a_turns_gate_numbers_the_secrets_of_its_message_from_the_start(rt: Runtime) -> None:
    gate = Gate.for_turn(rt.store, read("remember my bank password is Hunter2!x9", rt.clock))
    [sent] = gate.conversation([UserMessage("remember my bank password is Hunter2!x9", 1)])
    assert isinstance(sent, UserMessage)
    assert "Hunter2!x9" not in sent.text and "[secret 1 of your message]" in sent.text
    assert gate.restore({"content": sent.text}) == {"content": "remember my bank password is Hunter2!x9"}
