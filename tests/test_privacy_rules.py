"""Privacy and correctness rules a newcomer found broken, each through real parts: the real store, the
chat path against the loopback Anthropic stand-in, and `assistant mcp` started by the SDK's own client.

1. A withheld memory's earlier texts (memory_history) and the replies that repeat them are withheld
   as the memory is, on every path (MCP, the chat model's history and tool results).
2. A private memory asked for by its id is shown, marked [Private] (SPEC 5, docs/mcp.md), also when
   all its words are ordinary ones.
3. A question said in a private memory's own words alone, one of them distinctive ("who is my
   therapist?"), names it; a question that shares the word and says more does not.
4. A done reminder is never in an agenda.
5. A secret is masked in the recap's lists as in the briefing, and a masked text masked again is the
   same text (no words eaten, no placeholder doubled).
"""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant.outbound.gate import Gate, asks_about
from assistant.services import Services
from assistant.services.model import responder_for
from memory import episodes, memories, reminders
from memory.sensitive import MASK, redact
from memory.transfer.markdown import write_markdown
from tests.conftest import T0, make_runtime
from tests.mcp_helpers import call, read, server, session
from tests.standins import StandIn, text_reply, tool_reply

if TYPE_CHECKING:
    from assistant.runtime import Runtime

OLD = "my sister's birthday is on March 3"
NEW = "my sister's birthday is on March 5"
THERAPIST = "my therapist is Dr Olsen, sessions on Thursdays at 4pm"


async def run_turn(rt: Runtime, text: str) -> None:
    from assistant.providers.anthropic_provider import AnthropicProvider
    from assistant.turn.agent import Agent

    async for _ in Agent(rt, responder_for(rt, AnthropicProvider("m", max_retries=0))).turn(text):
        pass


def sent(standin: StandIn) -> str:
    return json.dumps(standin.bodies("/v1/messages"), ensure_ascii=False)


async def told_then_made_private_and_edited(rt: Runtime, standin: StandIn) -> int:
    """Said in the chat, echoed in a later reply, then marked private and edited on the Memories screen."""
    standin.script = [tool_reply("remember", {"content": OLD}), text_reply("Noted.")]
    await run_turn(rt, f"remember that {OLD}")
    standin.script = [text_reply(f"You told me that {OLD}.")]
    await run_turn(rt, "what do you know about my family?")
    (memory,) = memories.created_since(rt.store, None)
    services = Services(rt)
    services.memories.set_private(memory.id, True)
    services.memories.edit(memory.id, NEW)
    assert [e.content for e in memories.earlier_texts(rt.store, memory.id)] == [OLD]
    return memory.id


# -- 1. earlier texts ---------------------------------------------------------------------------------

async def test_an_edited_private_memorys_earlier_text_stays_out_of_the_chat_models_requests(
        rt: Runtime, anthropic_standin: StandIn) -> None:
    memory_id = await told_then_made_private_and_edited(rt, anthropic_standin)
    anthropic_standin.requests.clear()
    anthropic_standin.script = [tool_reply("recall", {"query": "family march birthday"}), text_reply("ok")]
    await run_turn(rt, "anything planned in spring?")
    body = sent(anthropic_standin)
    assert "March 3" not in body and "March 5" not in body  # history, the echo, the tool result
    assert f"[private memory #{memory_id}]" in body  # the echo, by the memory's id


async def test_an_edited_private_memorys_earlier_text_stays_out_of_mcp(rt: Runtime, anthropic_standin: StandIn,
                                                                       tmp_path: Path) -> None:
    memory_id = await told_then_made_private_and_edited(rt, anthropic_standin)
    rt.close()
    async with session(server(str(tmp_path / "m.db"))) as s:
        unasked = [await call(s, "recall", query=q, mode="exhaustive") for q in ("what is planned for march", "family")]
        asked = await call(s, "recall", query="sister birthday")
        by_id = await read(s, f"memory://memory/{memory_id}")
    for answer in unasked:
        assert "March 3" not in answer and "March 5" not in answer, answer
    assert f"[private memory #{memory_id}]" in unasked[1]  # the echo, by the memory's id, not left out
    # Asked about by its own words (all of them), the memory is shown marked: not a withheld line.
    assert f"[Private] {NEW}" in asked and "[a private memory, withheld]" not in asked
    assert f"text: [Private] {NEW}" in by_id  # 2. asked for by its id


def test_a_sensitive_memorys_earlier_secret_is_withheld_whole_and_in_pieces(rt: Runtime) -> None:
    memory = memories.remember(rt.store, "the storage unit code is 7390-AX")
    assert memory.sensitive
    Services(rt).memories.edit(memory.id, "I gave up the storage unit in May")
    gate = Gate(rt.store)
    quoted = gate.fragments(gate.text("Earlier: the storage unit code is 7390-AX.", "message #9"))
    assert "7390" not in quoted and f"[secret in memory #{memory.id}]" in quoted
    # Its value alone, where no keyword leads it (an error quoting what the model sent): the last step.
    assert "7390-AX" not in gate.fragments(gate.text("no memory matches 7390-AX", "update_memory error"))


# -- 2. a private memory by its id ----------------------------------------------------------------------

def test_a_private_memory_asked_for_by_its_id_is_shown_marked_even_with_only_ordinary_words(rt: Runtime) -> None:
    from assistant.mcp.server import MemoryTools

    memory = memories.remember(rt.store, NEW, private=True)
    other = memories.remember(rt.store, "my sister is moving to Porto", private=True)
    shown = MemoryTools(rt)._memory_text(str(memory.id))
    assert f"text: [Private] {NEW}" in shown and "withheld" not in shown
    # Another private line in the same request still needs to be about the asked one.
    gate = Gate(rt.store, f"memory #{memory.id}")
    assert gate.text(f"[Private] {other.content}", "x") == "[a private memory, withheld]"


# -- 3. own words ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("question", ["who is my therapist", "Who's my therapist?", "therapist", "therapist Olsen",
                                      "when do I see Dr Olsen"])
def test_a_question_in_a_private_memorys_own_distinctive_words_asks_about_it(rt: Runtime, question: str) -> None:
    memory = memories.remember(rt.store, THERAPIST, private=True)
    assert asks_about(question, memory)


@pytest.mark.parametrize("question", [
    "what does a physical therapist do for back pain",  # shares the word, says more
    "recommend a good therapist near me",
    "what is on Thursday",  # an ordinary word (a day) the memory has
    "any sessions this week",  # an ordinary word of the memory alone
    "who is my sister",
])
def test_a_question_sharing_a_word_but_not_about_a_private_memory_does_not_ask_about_it(rt: Runtime,
                                                                                        question: str) -> None:
    memory = memories.remember(rt.store, THERAPIST, private=True)
    assert not asks_about(question, memory)
    assert not asks_about(question, memories.remember(rt.store, NEW, private=True))


async def test_mcp_recall_who_is_my_therapist_returns_the_private_memory_marked(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path)
    memories.remember(runtime.store, THERAPIST, private=True)
    runtime.close()
    async with session(server(str(tmp_path / "m.db"))) as s:
        asked = await call(s, "recall", query="who is my therapist")
        unrelated = await call(s, "recall", query="what does a physical therapist do for back pain")
    assert f"[Private] {THERAPIST}" in asked
    assert "Olsen" not in unrelated


# -- 4. the agenda --------------------------------------------------------------------------------------

async def test_a_done_reminder_is_not_in_the_mcp_agenda(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path)
    done = memories.remember(runtime.store, "call mum", due_at=(T0 - timedelta(hours=1)).isoformat())
    memories.remember(runtime.store, "water the plants", due_at=(T0 + timedelta(hours=3)).isoformat())
    reminders.mark_done(runtime.store, done.id)
    assert [r.memory.content for r, _ in reminders.due_between(runtime.store, T0 - timedelta(hours=12),
                                                               T0 + timedelta(hours=9))] == ["water the plants"]
    runtime.close()
    async with session(server(str(tmp_path / "m.db"))) as s:
        agenda = await read(s, "memory://agenda")
    assert "water the plants" in agenda
    assert "call mum" not in agenda and "DONE" not in agenda


# -- 5. masking -----------------------------------------------------------------------------------------

WIFI = "the wifi password is hunter2-Blue"


def test_the_recaps_lists_mask_a_secret_as_the_briefing_does(rt: Runtime) -> None:
    memories.remember(rt.store, WIFI)
    memories.remember(rt.store, "the safe combination is 31-07-44, check it",
                      due_at=(T0 + timedelta(hours=2)).isoformat())
    memories.remember(rt.store, "Ana prefers tea")
    data = Services(rt).recap.build()
    listed = "\n".join([*data.new_memories, *(r.content for r in data.overdue + data.upcoming)])
    assert "hunter2" not in listed and "31-07-44" not in listed
    assert "the wifi password is ••••" in listed and "Ana prefers tea" in listed
    briefing = Services(rt).briefing.today()
    assert "the wifi password is ••••" in [i.text for i in briefing.changed]


def test_the_recaps_conversation_in_progress_hides_a_secret_said_in_it(rt: Runtime) -> None:
    # A newcomer's: ctrl+r showed "> the alarm code got reset to 9902", the Conversations reader "••••"
    episode = episodes.open_episode(rt.store)
    episodes.add_message(rt.store, episode.id, "user", "the alarm code got reset to 9902")
    current = Services(rt).recap.build().current
    assert current is not None and current.opening == ["the alarm code got reset to ••••"]


@pytest.mark.parametrize("text", [
    f"{WIFI} / what is the wifi password?",
    "my pin is 4471 and the door code is 8823, ok?",
    "Password: Qx7-hunter22 / then the bank",
])
@pytest.mark.parametrize("mask", [MASK, "[secret in conversation #2]", "••••", "[secret]"])
def test_a_masked_text_masked_again_is_the_same_text(text: str, mask: str) -> None:
    once = redact(text, mask)
    assert once != text
    for again in (MASK, "[secret in recall result]", "••••", "[secret]"):
        assert redact(once, again) == once


def test_a_summary_made_without_a_model_is_masked_once_in_the_export_and_over_mcp(rt: Runtime, tmp_path: Path) -> None:
    episode = episodes.open_episode(rt.store)
    for role, said in (("user", WIFI), ("assistant", "Saved."), ("user", "what is the wifi password?"),
                       ("assistant", "It is in memory.")):
        episodes.add_message(rt.store, episode.id, role, said)
    title, summary = episodes.heuristic_title_and_summary(episodes.episode_messages(rt.store, episode.id))
    episodes.close_episode(rt.store, episode.id, title, summary, "success")
    assert summary == f"the wifi password is {MASK} / what is the wifi password?"
    write_markdown(rt.store, tmp_path / "export")
    exported = "\n".join(p.read_text() for p in (tmp_path / "export").rglob("*.md"))
    assert summary in exported and f"{MASK} [secret]" not in exported  # the message itself: "is [secret]"
    gate = Gate(rt.store, "what did we talk about")
    assert gate.episode(episode.id, summary) == summary
    assert gate.text(gate.text(summary, "conversation #1"), "recall result") == summary
