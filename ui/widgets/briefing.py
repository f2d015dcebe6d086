"""The briefing card (SPEC F12): the day's briefing in the chat, above the message box. Not a dialog:
it takes no focus, the message box keeps the keyboard and the sidebar stays; escape or the first
message sent takes it away."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from assistant.briefing import Briefing
from ui.text import visible

CARD_LINES = 5  # lines a section shows on the card; `assistant briefing` prints them all


def card_text(briefing: Briefing) -> Text:
    out = Text()
    out.append(f"Briefing for {briefing.label}", style="bold")
    for heading, lines in briefing.sections(CARD_LINES):
        out.append(f"\n{heading}", style="bold")
        for line in lines:
            out.append(f"\n  {visible(line)}")
    out.append("\nescape or your first message closes this", style="dim italic")
    return out


class BriefingCard(Static):
    can_focus = False

    def __init__(self, briefing: Briefing) -> None:
        super().__init__(card_text(briefing), id="briefing-card", markup=False)
        self.briefing = briefing
