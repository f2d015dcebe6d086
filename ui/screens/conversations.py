"""The Conversations screen (past conversations, filtered by what was said) and one conversation read
back; either can hand a conversation to continue back to the app."""
from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, ListItem, ListView, Static

from assistant.services import ConversationService
from assistant.views import ConversationView, MessageView
from ui import actions
from ui.failures import ReportsFailures
from ui.screens.dialogs import Line
from ui.text import one_line
from ui.widgets.chat_log import ChatLog, entry_for
from ui.widgets.footer import KeyFooter


class ConversationItem(ListItem):
    def __init__(self, view: ConversationView) -> None:
        self.view = view
        size = f"{view.messages} message{'s' if view.messages != 1 else ''}"
        mark = " · current" if view.current else ""
        super().__init__(Static(f"{view.when}  {one_line(view.title, 70)}\n  {size}{mark}", markup=False),
                         classes="current" if view.current else "")


class FilterInput(Input):
    """The filter box: typing filters, up/down move in the list below, enter opens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "screen.move(1)", show=False), Binding("up", "screen.move(-1)", show=False),
        Binding("pagedown", "screen.move(10)", show=False), Binding("pageup", "screen.move(-10)", show=False)]


class ConversationsScreen(ReportsFailures, Screen[int | None]):
    """Past conversations, newest first, filtered by hybrid search over what was said.

    Dismisses with the id of a conversation to continue, or None.
    """

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("conversations")

    def __init__(self, conversations: ConversationService) -> None:
        super().__init__()
        self.conversations = conversations
        self.query_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="conversations-box"):
            yield Static("Conversations", classes="screen-title")
            yield FilterInput(placeholder="Type to search what was said…", id="conversation-filter")
            yield ListView(id="conversation-list")
            yield Static("Loading…", id="conversation-empty", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(FilterInput).focus()
        self.load("")

    @on(Input.Changed, "#conversation-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self.load(event.value)

    @work(exclusive=True, group="conversation-search", exit_on_error=False, description="search conversations")
    async def load(self, query: str) -> None:
        items = await asyncio.to_thread(self.conversations.find, query)
        if query != self.query_text:
            return  # an older search finishing late
        lst = self.query_one(ListView)
        await lst.clear()
        await lst.extend(ConversationItem(v) for v in items)
        if items:
            lst.index = 0
        empty = "" if items else ("Nothing matches." if query.strip() else "No conversations yet.")
        self.query_one("#conversation-empty", Static).update(empty)

    @property
    def selected(self) -> ConversationView | None:
        item = self.query_one(ListView).highlighted_child
        return item.view if isinstance(item, ConversationItem) else None

    def action_move(self, step: int) -> None:
        lst = self.query_one(ListView)
        if len(lst.children):
            lst.index = max(0, min(len(lst.children) - 1, (lst.index or 0) + step))

    @on(Input.Submitted, "#conversation-filter")
    def submitted(self) -> None:
        self.read()

    @on(ListView.Selected, "#conversation-list")
    def chosen(self) -> None:
        self.read()

    def read(self) -> None:
        view = self.selected
        if view is not None:
            self._open(view)

    @work(group="conversation-open", exit_on_error=False, description="load a conversation")
    async def _open(self, view: ConversationView) -> None:
        messages = await asyncio.to_thread(self.conversations.messages, view.id)
        self.app.push_screen(ConversationScreen(view, messages), self._after_read)

    def _after_read(self, result: int | None) -> None:
        if result is not None:
            self.dismiss(result)

    def action_continue_conversation(self) -> None:
        view = self.selected
        if view is not None:
            self.dismiss(view.id)

    def action_close(self) -> None:
        self.dismiss(None)


class ConversationScreen(Screen[int | None]):
    """One past conversation, read-only; c continues it (dismisses with its id)."""

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("reader")

    def __init__(self, view: ConversationView, messages: list[MessageView]) -> None:
        super().__init__()
        self.view = view
        self.messages = messages
        self.body = ChatLog(id="reader-body")
        self.revealed = False  # the secrets its messages hold, shown: here only, until r again

    def compose(self) -> ComposeResult:
        size = f"{len(self.messages)} message{'s' if len(self.messages) != 1 else ''}"
        with Vertical(id="reader-box"):
            yield Static(f"{self.view.when}  {one_line(self.view.title, 80)}  ({size}, read-only)",
                         classes="screen-title", markup=False)
            yield self.body
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.body.focus()
        if self.messages:  # a long conversation lays out one screenful; the rest as it is scrolled to
            await self.body.show([entry_for(m) for m in self.messages],
                                 at_start=True)
        else:
            await self.body.mount(Line(self.view.summary or "This conversation has no stored messages.", "muted"))

    async def action_reveal(self) -> None:
        """Show the secrets its messages hold (hidden, or stored as placeholders), or hide them again."""
        if not any(m.revealed for m in self.messages):
            self.notify("Nothing to reveal: no message here holds a secret.", timeout=3)
            return
        self.revealed = not self.revealed
        shown = [replace(m, content=m.revealed) if self.revealed and m.revealed else m for m in self.messages]
        await self.body.show([entry_for(m) for m in shown], at_start=True)

    def action_continue_conversation(self) -> None:
        self.dismiss(self.view.id)

    def action_close(self) -> None:
        self.dismiss(None)
