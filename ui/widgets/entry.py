"""A message of the chat log kept as text while it is not a widget (ui/widgets/chat_log.py), and how many
of them make a page of the log's window."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from textual.geometry import Size

SHOWN_CHARACTERS = 20_000  # a 1 MB paste is stored whole; laying out all of it would freeze the chat
# A conversation opens with at most this much text laid out (and at least one message): Markdown
# costs about a second per 5,000 characters here, so a reopened conversation of long answers kept the
# app busy for seconds; the rest is mounted as it is scrolled to.
TRANSCRIPT_CHARACTERS = 12_000
NEAR = 1.0  # screens: less than this left beyond the viewport at an end of the window, the next page is mounted
PAGE = 2.0  # screens of entries (estimated) mounted at a time
PAGE_ENTRIES = 40  # at most this many widgets mounted at a time (a page of one-line entries)

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


def next_page(entries: Iterable[Entry], room: Size) -> list[Entry]:
    """The next entries to mount, in the order given: about PAGE screens of them (`room`: the columns
    and lines of one screen)."""
    page: list[Entry] = []
    lines = 0
    for entry in entries:
        page.append(entry)
        lines += entry.lines(room.width)
        if lines >= PAGE * room.height or len(page) >= PAGE_ENTRIES:
            break
    return page


def budget(entries: Iterable[Entry], room: Size) -> int:
    """How many of these entries (in the order given) to lay out at once: the screen and a page
    beyond it, at most TRANSCRIPT_CHARACTERS, at least one (the next pages follow as it is scrolled)."""
    chosen = lines = characters = 0
    for entry in entries:
        if chosen and (lines >= (1 + NEAR) * room.height or characters + len(entry.text) > TRANSCRIPT_CHARACTERS
                       or chosen >= PAGE_ENTRIES):
            break
        chosen += 1
        lines += entry.lines(room.width)
        characters += len(entry.text)
    return chosen
