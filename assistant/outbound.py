"""What may leave the machine for a model in one turn.

The system prompt is built with these rules section by section; everything else that goes to the
model passes here too: earlier messages of the conversation (an offline answer may have shown the
user a secret or a private memory, on their own screen) and tool results. Secrets are replaced by
where they live ("[secret in message #40]"); a private memory's text becomes "[private memory #7]"
unless the user's message of this turn asks about it.
"""
from __future__ import annotations

import re

from assistant.answers import asked_about
from memory import knowledge
from memory.redact import redact
from memory.store import Store


class Outbound:
    def __init__(self, store: Store, user_text: str) -> None:
        self.withheld = [(m.id, re.compile(re.escape(m.content.strip()), re.I))
                         for m in knowledge.private_memories(store)
                         if m.content.strip() and not asked_about(user_text, m.content)]

    def text(self, text: str, where: str) -> str:
        """`text` as it may be sent: private memories withheld, secrets replaced by where they live."""
        for memory_id, pattern in self.withheld:
            text = pattern.sub(f"[private memory #{memory_id}]", text)
        return redact(text, f"[secret in {where}]")
