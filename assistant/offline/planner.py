"""The offline mode's plan for a message, the one entry both responders use: the answer to a question
it asked, else what the reading of the message asks for."""
from __future__ import annotations

from assistant.conversation import Item
from assistant.offline.acts import act
from assistant.offline.dialogue import answer_to_question
from assistant.offline.plan import Plan, Situation, read_action
from assistant.reading import Reading
from assistant.runtime import Runtime


def plan(runtime: Runtime, text: str, conversation: list[Item], situation: Situation,
         reading: Reading | None = None) -> Plan:
    """What the offline mode does for `text`, the last item of `conversation`; `reading` is the turn's
    reading of its message (used when `text` is that message: it was read once, in its own language)."""
    answered = answer_to_question(runtime, text, conversation, situation)
    if answered is not None:
        return answered
    action = reading.action if reading is not None and reading.text == text else read_action(runtime, text)
    return act(runtime, action, text, conversation, situation)
