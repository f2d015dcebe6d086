"""SPEC F1/F4: a question about a reminder reaches the model with the reminder's due time.

Found by hand with a real 135M model: "remind me to call the bank tomorrow at 9am", then "what's
coming up this week?" (the app lists it and marks it mentioned), then "what time is the bank call?".
The Reminders section leaves a mentioned reminder out (no nagging, F1), and the when-question's dated
statements give the reminder's text alone ("memory #1, written Sun Dec 6: call the bank"), so no part of
the prompt says 09:00: the model can only guess.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant.prompt.build import preview_prompt
from memory import memories
from memory.reminders import update_memory
from tests.test_model_path import agent_for, chats, collect, model_runtime
from tests.test_prompt import runtime_for

if TYPE_CHECKING:
    from tests.standins import StandIn


def test_a_when_question_about_a_mentioned_reminder_carries_its_due_time(tmp_path: Path) -> None:
    rt = runtime_for(tmp_path)  # Sun Nov 22 2026, 15:00 in Berlin
    reminder = memories.remember(rt.store, "call the bank", due_at="2026-11-23T09:00:00+01:00", kind="reminder")
    asked = "what time is the bank call?"
    assert "Mon Nov 23 09:00" in preview_prompt(rt, asked).text  # before it is mentioned: its Reminders line
    update_memory(rt.store, reminder.id, reminded_at="now")  # what the app does once it has listed it
    assert "09:00" in preview_prompt(rt, asked).text
    rt.close()


@pytest.mark.slow
async def test_what_reaches_the_model_of_an_asked_reminder_is_gated(tmp_path: Path,
                                                                    openai_standin: StandIn) -> None:
    """Through the real openai SDK to a stand-in that records every request: a mentioned reminder comes back
    for the question that asks about it, with its due time; the bank PIN the same words bring up stays
    masked, and a private reminder the message does not ask about never comes back."""
    rt = model_runtime(tmp_path, openai_standin)
    memories.remember(rt.store, "the bank PIN is 4471", kind="fact")
    call = memories.remember(rt.store, "call the bank about the mortgage", due_at="2026-11-23T09:00:00+00:00",
                             kind="reminder")
    private = memories.remember(rt.store, "refill the sertraline prescription", due_at="2026-11-23T10:00:00+00:00",
                                kind="reminder", private=True)
    for memory in (call, private):
        update_memory(rt.store, memory.id, reminded_at="now")
    openai_standin.script = ["At nine."]
    await collect(agent_for(rt), "what time is the bank call?")
    sent = json.dumps(chats(openai_standin))
    assert "Mon Nov 23 09:00" in sent and "call the bank" in sent
    assert "4471" not in sent and "sertraline" not in sent
    rt.close()

