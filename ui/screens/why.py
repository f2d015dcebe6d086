"""Why this answer (SPEC F12): what went into one answer's turn, as recorded when it ran: the prompt's
sections with their tokens (each opened in place), the memories and conversations in it (each opened:
a memory on its Memories screen, a conversation in the reader), what the gate withheld or replaced and
why, what did not fit, the tool calls and their results; for an offline answer, what the reading
understood and that nothing left the machine. A secret is shown as •••• here (the sections are as they
were sent, through the gate; tool calls and the reading have it hidden): only the Memories screen
reveals one."""
from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import ListItem, ListView, Static

from assistant.services import ChangeService, ConversationService, MemoryService
from assistant.views import WhyView, secrets_hidden
from ui import actions
from ui.failures import ReportsFailures
from ui.screens.conversations import ConversationScreen
from ui.screens.memories import MemoryScreen
from ui.text import one_line, visible
from ui.widgets.footer import KeyFooter

SHOWN_CLOSED = 100  # characters of a section or a result shown before it is opened


class WhyItem(ListItem):
    """One line of the record; `opens` says what enter does with it (expand, memory, conversation)."""

    def __init__(self, line: str, opens: str = "", target: int = 0, full: str = "", heading: bool = False) -> None:
        self.line, self.opens, self.target, self.full = line, opens, target, full
        self.expanded = False
        super().__init__(Static(visible(line), markup=False), classes="why-heading" if heading else "why-line",
                         disabled=heading)

    def toggle(self) -> None:
        self.expanded = not self.expanded
        self.query_one(Static).update(visible(f"{self.line}\n{self.full}" if self.expanded else self.line))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def why_items(view: WhyView) -> list[WhyItem]:
    """The record as lines, headings first in each group (only what the record has)."""
    record = view.record
    items: list[WhyItem] = []
    if record.cut:
        items.append(WhyItem("The answer was cut off", heading=True))
        items.append(WhyItem(record.cut))
    if record.sections:
        total = sum(s.tokens for s in record.sections)
        items.append(WhyItem(f"Sections of the prompt, as sent ({total:,} tokens, estimated)", heading=True))
        for s in record.sections:
            items.append(WhyItem(f"{s.label}  ({s.tokens} tokens)  {one_line(s.content, SHOWN_CLOSED)}",
                                 "expand", full=s.content))
    if view.memories:
        items.append(WhyItem(f"Memories in it ({len(view.memories)})", heading=True))
        for m in view.memories:
            line = f"#{m.id} {one_line(m.text, 200)} ({m.when})" if m.when else f"#{m.id} (forgotten since)"
            items.append(WhyItem(line, "memory" if m.when else "", m.id))
    if view.conversations:
        items.append(WhyItem(f"Conversations in it ({len(view.conversations)})", heading=True))
        for c in view.conversations:
            items.append(WhyItem(f"{c.when}  {one_line(c.title, 100)}", "conversation", c.id))
    if record.withheld:
        items.append(WhyItem("Held back or replaced by the gate", heading=True))
        items += [WhyItem(f"{w.what}: {w.why}") for w in record.withheld]
    if record.did_not_fit:
        window = record.context_window
        items.append(WhyItem("Did not fit the model's context window" + (f" ({window:,} tokens)"
                                                                          if window is not None else ""),
                             heading=True))
        items += [WhyItem(d) for d in record.did_not_fit]
    if record.tools:
        items.append(WhyItem(f"Tool calls ({len(record.tools)})", heading=True))
        for t in record.tools:
            by = " (by the app, from your message)" if t.by == "app" else ""
            failed = " failed" if t.is_error else ""
            result = secrets_hidden(t.result)
            arguments = secrets_hidden(_json(t.arguments))
            items.append(WhyItem(f"{t.name}{failed}{by} {one_line(arguments, 80)} → "
                                 f"{one_line(result, SHOWN_CLOSED)}", "expand", full=result))
    if record.reading is not None:
        parts = record.reading.parts()
        understood = ", ".join(f"{k}: {one_line(secrets_hidden(str(v)), 60)}" for k, v in parts.items())
        items.append(WhyItem("What the reading of your message understood", heading=True))
        items.append(WhyItem(understood or "nothing in particular"))
    return items


class WhyScreen(ReportsFailures, Screen[int | None]):
    """One answer's record. Dismisses with the id of a conversation to continue, or None."""

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("why")
    AUTO_FOCUS = "#why-list"

    def __init__(self, view: WhyView, memories: MemoryService, changes: ChangeService,
                 conversations: ConversationService, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.memories = memories
        self.changes = changes
        self.conversations = conversations
        self.view = view
        self.keymap = keymap or {}
        self.typed = ""  # what was typed here: it goes to the message box as the screen closes

    async def on_key(self, event: events.Key) -> None:
        """A key that types closes the screen and goes to the message box, with the rest typed meanwhile (a
        re-check typed five messages here and lost them all: nothing the person types is lost)."""
        if event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            first = not self.typed
            self.typed += event.character
            if first:
                self.dismiss(None)

    @property
    def summary(self) -> str:
        r = self.view.record
        if r.left_the_machine:
            return (f"Answer #{self.view.message_id} by {r.responder} · {r.model}: what is below went "
                    "to the model, through the gate.")
        return (f"Answer #{self.view.message_id} by the offline mode ({r.model}): nothing left this machine.")

    def compose(self) -> ComposeResult:
        with Vertical(id="why-box"):
            yield Static("Why this answer", classes="screen-title")
            yield Static(self.summary, id="why-summary", markup=False)
            yield ListView(*why_items(self.view), id="why-list")
            yield Static("enter: open the highlighted line · escape: back", classes="hint")
        yield KeyFooter()

    @on(ListView.Selected, "#why-list")
    def chosen(self, event: ListView.Selected) -> None:
        item = event.item
        if not isinstance(item, WhyItem):
            return
        if item.opens == "expand":
            item.toggle()
        elif item.opens == "memory":
            memory = MemoryScreen(self.memories, self.changes, self.conversations, item.target, self.keymap)
            self.app.push_screen(memory, self._passed_on)
        elif item.opens == "conversation":
            self._open_conversation(item.target)

    @work(group="why-conversation", exit_on_error=False, description="open a conversation")
    async def _open_conversation(self, episode_id: int) -> None:
        found = await asyncio.to_thread(self.conversations.conversation, episode_id)
        if found is None:
            self.app.notify("That conversation is gone.", timeout=4)
            return
        self.app.push_screen(ConversationScreen(*found), self._passed_on)

    def _passed_on(self, result: int | None) -> None:
        if result is not None:
            self.dismiss(result)

    def action_close(self) -> None:
        self.dismiss(None)
