"""A message of the chat log kept as text while it is not a widget (ui/widgets/chat_log.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SHOWN_CHARACTERS = 20_000  # a 1 MB paste is stored whole; laying out all of it would freeze the chat

Kind = Literal["user", "answer", "plain", "line"]


@dataclass
class Entry:
    """One message of the log, kept as text while it is not a widget."""

    kind: Kind  # user: as typed; answer: a model's Markdown; plain: an offline answer, literal; line: a notice
    text: str
    style: str = ""  # lines only: "", "error", "reminder" or "hint"

    @property
    def is_message(self) -> bool:
        return self.kind != "line"

    def lines(self, width: int) -> int:
        """Roughly how many lines it takes at `width` columns (its margin included): for budgets only."""
        width = max(10, width - 4)
        text = self.text[:SHOWN_CHARACTERS]
        rows = sum(1 + len(line) // width for line in text.split("\n"))
        if self.kind == "answer":  # a blank line between Markdown blocks
            rows += text.count("\n\n")
        return rows + (0 if self.kind == "line" else 1)
