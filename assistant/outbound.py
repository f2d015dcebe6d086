"""What may leave the machine for a model in one turn.

The system prompt is built with these rules section by section; everything else that goes to the
model passes here too: earlier messages of the conversation (an offline answer may have shown the
user a secret or a private memory, on their own screen) and tool results. Secrets are replaced by
where they live ("[secret in message #40]"); a private memory's text becomes "[private memory #7]"
unless the user's message of this turn asks about it.
"""
from __future__ import annotations

import re
from typing import Any

from assistant.recall.evidence import asked_about
from memory import memories
from memory.sensitive import redact
from memory.store import Store

PRIVATE_MARK = "[Private]"  # how answers and tool results label a private memory they quote


class Outbound:
    def __init__(self, store: Store, user_text: str) -> None:
        private = memories.private_memories(store)
        asked = [m for m in private if m.content.strip() and asked_about(user_text, m.content)]
        self.withheld = [(m.id, re.compile(re.escape(m.content.strip()), re.I))
                         for m in private if m.content.strip() and m not in asked]
        # A line marked [Private] quotes a private memory (perhaps as it read before an edit): it goes
        # only in a turn that asks about a private memory.
        self.marked_lines_pass = bool(asked)
        self.secrets: dict[str, str] = {}  # placeholder -> the secret of the user's message it stands for

    def text(self, text: str, where: str) -> str:
        """`text` as it may be sent: private memories withheld, secrets replaced by where they live."""
        for memory_id, pattern in self.withheld:
            text = pattern.sub(f"[private memory #{memory_id}]", text)
        if not self.marked_lines_pass and PRIVATE_MARK in text:
            text = "\n".join("[a private memory, withheld]" if PRIVATE_MARK in line else line
                             for line in text.split("\n"))
        return redact(text, f"[secret in {where}]")

    def user_message(self, text: str) -> str:
        """The user's message of this turn as sent: each secret becomes "[secret 1 of your message]",
        which `restore` turns back into the value in what the model asks a tool to store."""
        def placeholder(secret: str) -> str:
            name = f"[secret {len(self.secrets) + 1} of your message]"
            self.secrets[name] = secret
            return name

        return redact(text, placeholder)

    def restore(self, value: Any) -> Any:
        """Tool arguments with this turn's placeholders replaced by the secrets they stand for."""
        if isinstance(value, str):
            for name, secret in self.secrets.items():
                value = value.replace(name, secret)
            return value
        if isinstance(value, dict):
            return {k: self.restore(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.restore(v) for v in value]
        return value
