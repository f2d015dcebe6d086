"""The Memories screen (SPEC F12): every memory newest first, a page at a time, filtered and searched;
and one memory in full, where it is edited, marked private, pinned, forgotten (each undone with ctrl+z)
and its secret revealed (here only). Either hands a conversation to continue back to the app."""
from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static, TextArea

from assistant.services import ChangeService, ConversationService, MemoryService
from assistant.views import MemoryDetail
from memory.browse import MemoryFilter
from memory.errors import InvalidInput, NotFound
from memory.schema import KINDS, TIERS
from ui import actions
from ui.failures import ReportsFailures
from ui.screens.conversations import ConversationScreen
from ui.screens.dialogs import ConfirmScreen
from ui.text import one_line, visible
from ui.widgets.footer import KeyFooter
from ui.widgets.memory_list import FilterBar, MemoryList

TYPING_PAUSE = 0.15  # seconds of no typing before a search runs (each key would otherwise search)
YES_NO = [("any", ""), ("yes", "yes"), ("no", "no")]
FILTERS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("kind", "kind", [("any", "")] + [(k, k) for k in KINDS]),
    ("tier", "tier", [("any", "")] + [(t, t) for t in TIERS]),
    ("private", "private", YES_NO),
    ("sensitive", "secret", YES_NO),
    ("pinned", "pinned", YES_NO),
    ("source", "source", [("any", ""), ("typed", "typed"), ("imported", "imported"), ("MCP", "mcp")]),
]


class SearchBox(Input):
    """Typing searches; up/down and the page keys move in the list below; enter opens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "screen.list('move', 1)", show=False), Binding("up", "screen.list('move', -1)", show=False),
        Binding("pagedown", "screen.list('page', 1)", show=False),
        Binding("pageup", "screen.list('page', -1)", show=False)]


class MemoriesScreen(ReportsFailures, Screen[int | None]):
    """Every memory. Dismisses with the id of a conversation to continue, or None."""

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("memories")
    AUTO_FOCUS = "#memories-search"

    def __init__(self, memories: MemoryService, changes: ChangeService, conversations: ConversationService,
                 keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.memories = memories
        self.changes = changes
        self.conversations = conversations
        self.keymap = keymap or {}
        self.query_text = ""
        self.filters = MemoryFilter()
        self.after: tuple[str, int] | None = None  # where the next page starts
        self.generation = 0  # a page read for an older search or filter is not added to a newer list
        self._typing: Timer | None = None
        self.total: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="memories-box"):
            yield Static("Memories", classes="screen-title", id="memories-title", markup=False)
            yield SearchBox(placeholder="Type to search… · tab: the filters (←/→ which one, ↑/↓ its value)",
                            id="memories-search")
            yield FilterBar(FILTERS, id="memories-filters")
            yield MemoryList(id="memory-list")
            yield Static("", id="memories-empty", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.load()

    @property
    def memory_list(self) -> MemoryList:
        return self.query_one(MemoryList)

    # -- what is listed -------------------------------------------------------------------------

    @on(Input.Changed, "#memories-search")
    def typed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        if self._typing is not None:
            self._typing.stop()
        self._typing = self.set_timer(TYPING_PAUSE, self.load, name="search after typing")

    @on(FilterBar.Changed)
    def filtered(self, event: FilterBar.Changed) -> None:
        values = event.values

        def flag(name: str) -> bool | None:
            return {"yes": True, "no": False}.get(values[name])

        self.filters = MemoryFilter(values["kind"] or None, values["tier"] or None, flag("private"),
                                    flag("sensitive"), flag("pinned"), values["source"] or None)
        self.load()

    @work(exclusive=True, group="memories-load", exit_on_error=False, description="list memories")
    async def load(self, select: int | None = None) -> None:
        """The first page (or a search's hits) for what is typed and chosen now; `select`: the memory to
        highlight when it is among them."""
        self.generation += 1
        generation, query, filters = self.generation, self.query_text.strip(), self.filters
        try:
            if query:
                rows = await asyncio.to_thread(self.memories.search, query, filters)
                more, self.after = False, None
            else:
                page = await asyncio.to_thread(self.memories.page, filters)
                rows, more, self.after = page.items, page.after is not None, page.after
        except InvalidInput as exc:
            self.query_one("#memories-empty", Static).update(str(exc))
            return
        if generation != self.generation:
            return
        self.memory_list.show(rows, more)
        if select is not None:
            self.memory_list.select(select)
        empty = "" if rows else ("Nothing matches." if query or filters != MemoryFilter() else
                                 "Nothing remembered yet: say \"remember that …\" in the chat.")
        self.query_one("#memories-empty", Static).update(empty)
        self.query_one("#memories-empty").display = bool(empty)
        if query:
            self._title(f"{len(rows)} found" + (" (the best 200)" if len(rows) >= 200 else ""))
        else:
            self._title("")
            self.count(generation)

    @work(exclusive=True, group="memories-count", exit_on_error=False, description="count memories")
    async def count(self, generation: int) -> None:
        total = await asyncio.to_thread(self.memories.count, self.filters)
        if generation == self.generation:
            self._title(f"{total:,} memor{'y' if total == 1 else 'ies'}, newest first")

    def _title(self, detail: str) -> None:
        self.query_one("#memories-title", Static).update(f"Memories · {detail}" if detail else "Memories")

    @on(MemoryList.NeedMore)
    def need_more(self, event: MemoryList.NeedMore) -> None:
        event.stop()
        if self.after is not None and not self.query_text.strip():
            self.load_more(self.generation, self.after)

    @work(exclusive=True, group="memories-more", exit_on_error=False, description="list more memories")
    async def load_more(self, generation: int, after: tuple[str, int]) -> None:
        page = await asyncio.to_thread(self.memories.page, self.filters, after)
        if generation != self.generation or after != self.after:
            return  # another list is shown now, or this page is in already
        self.after = page.after
        self.memory_list.add_rows(page.items, page.after is not None)

    # -- keys -------------------------------------------------------------------------------------

    def action_list(self, how: str, step: int) -> None:
        getattr(self.memory_list, f"action_{how}")(step)

    @on(Input.Submitted, "#memories-search")
    def submitted(self) -> None:
        self.memory_list.action_open()

    @on(MemoryList.Opened)
    def opened(self, event: MemoryList.Opened) -> None:
        self.app.push_screen(MemoryScreen(self.memories, self.changes, self.conversations, event.row.id, self.keymap),
                             self._after_memory)

    def _after_memory(self, result: int | None) -> None:
        if result is not None:
            self.dismiss(result)
            return
        row = self.memory_list.selected
        if row is not None:
            self.refresh_row(row.id)

    @work(group="memories-row", exit_on_error=False, description="read a memory again")
    async def refresh_row(self, memory_id: int) -> None:
        row = await asyncio.to_thread(self.memories.row, memory_id, self.query_text.strip())
        if row is None:
            self.memory_list.drop(memory_id)
            self._recount()
        else:
            self.memory_list.replace(row)

    def _recount(self) -> None:
        """The title's count after a memory left the list (forgotten)."""
        if self.query_text.strip():
            self._title(f"{len(self.memory_list.rows)} found")
        else:
            self.count(self.generation)

    @work(group="memories-undo", exit_on_error=False, description="undo a change to a memory")
    async def action_undo(self) -> None:
        undone = await asyncio.to_thread(self.changes.undo_last)
        self.app.notify(one_line(self.changes.undo_text(undone), 160), timeout=4, markup=False)
        if undone is not None:
            self.load(select=undone.memory_id)

    def action_close(self) -> None:
        self.dismiss(None)


class MemoryEditor(TextArea):
    """A memory's new words: enter saves, ctrl+j (or shift+enter) starts a new line, escape cancels."""

    class Submitted(Message):
        pass

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self.post_message(self.Submitted())
            return
        if event.key in ("ctrl+j", "shift+enter"):
            event.prevent_default()
            event.stop()
            self.insert("\n")
            return
        await super()._on_key(event)


def detail_text(d: MemoryDetail, revealed: bool) -> Text:
    """One memory in full, as text (stored text made visible, never markup)."""
    marks = " · ".join(m for flag, m in ((d.pinned, "pinned"), (d.private, "private"), (d.sensitive, "secret"))
                       if flag)
    out = Text()
    out.append(f"#{d.id} · {d.kind} · {d.tier}" + (f" · {marks}" if marks else "") + f" · {d.source}\n",
               style="bold")
    out.append(visible(d.content if revealed else d.text) + "\n")
    if d.sensitive:
        out.append("(r hides the secret)\n" if revealed else "(it holds a secret: r reveals it, here only)\n",
                   style="dim")
    out.append("\n")
    if d.said_in is not None:
        out.append(f"Said {d.said_at} in “{visible(one_line(d.said_in_title or 'Untitled', 80))}”: "
                   "enter reads that conversation\n")
    else:
        out.append("Not from a conversation (written directly, imported, or its message is gone)\n")
    changed = f" · changed {d.updated}" if d.updated != d.created else ""
    out.append(f"Remembered {d.created}{changed} · importance {d.importance}" +
               (f" · due {d.due}" if d.due else "") + "\n")
    if d.retention is not None:
        factors = " · ".join(f"{k} {v:.2f}" for k, v in d.factors.items())
        out.append(f"Tier {d.tier} · retention {d.retention:.2f} ({factors})")
    else:
        out.append(f"Tier {d.tier} · not scored yet (consolidation scores it)")
    used = f" · used {d.activation_count} time{'s' if d.activation_count != 1 else ''}"
    out.append(used + (f", last {d.last_accessed}" if d.last_accessed else "") + "\n")
    for heading, items in (("Supersedes (older, replaced by this one)", d.supersedes),
                           ("Superseded by (newer)", d.superseded_by),
                           ("Summaries made from it", d.summaries)):
        if items:
            out.append(f"\n{heading}\n", style="bold")
            for item in items:
                reason = f" — {item.reason}" if item.reason else ""
                out.append(f"  #{item.id} {visible(one_line(item.text, 200))} ({item.when}){reason}\n")
    if d.history:
        out.append("\nEarlier texts (newest first)\n", style="bold")
        for e in d.history:
            out.append(f"  until {e.replaced}: {visible(one_line(e.content if revealed else e.text, 300))}\n")
    return out


class MemoryScreen(ReportsFailures, Screen[int | None]):
    """One memory. Dismisses with the id of a conversation to continue (its reader's c), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [*actions.bindings("memory"),
                                             Binding("pageup", "scroll('page_up')", show=False),
                                             Binding("pagedown", "scroll('page_down')", show=False)]
    AUTO_FOCUS = "#memory-body"

    def __init__(self, memories: MemoryService, changes: ChangeService, conversations: ConversationService,
                 memory_id: int, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.memories = memories
        self.changes = changes
        self.conversations = conversations
        self.memory_id = memory_id
        self.keymap = keymap or {}
        self.detail: MemoryDetail | None = None
        self.revealed = False  # a secret shown: on this screen only, until r again or the screen closes

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-box"):
            yield Static("Memory", classes="screen-title", id="memory-title")
            with VerticalScroll(id="memory-body"):
                yield Static("Loading…", id="memory-text", markup=False)
            # The footer of a narrow terminal has no room past the app's own keys: this screen's are here.
            keys = " · ".join(f"{actions.key_for(f'memory-{name}', self.keymap)} {name}" for name in
                              ("edit", "private", "pin", "forget", "reveal", "undo"))
            yield Static(f"{keys} · esc back", classes="hint", id="memory-keys", markup=False)
            with Vertical(id="memory-form"):
                yield MemoryEditor(id="memory-editor", soft_wrap=True, show_line_numbers=False, compact=True)
                yield Static("", id="memory-error", markup=False)
                yield Static("enter: save (the earlier text is kept) · ctrl+j: new line · escape: cancel",
                             classes="hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.reload()

    @property
    def editing(self) -> bool:
        return self.has_class("-editing")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the text is being edited, letters type; only saving and escape act.
        if self.editing and action in ("edit", "toggle_private", "toggle_pin", "forget", "reveal", "conversation",
                                       "undo"):
            return False
        return True

    @work(exclusive=True, group="memory-read", exit_on_error=False, description="read a memory")
    async def reload(self) -> None:
        try:
            self.detail = await asyncio.to_thread(self.memories.detail, self.memory_id)
        except NotFound:
            self.app.notify(f"Memory #{self.memory_id} is gone (forgotten).", timeout=4, markup=False)
            self.dismiss(None)
            return
        self.show()

    def show(self) -> None:
        if self.detail is None:
            return
        self.query_one("#memory-text", Static).update(detail_text(self.detail, self.revealed))
        self.query_one("#memory-title", Static).update(f"Memory #{self.detail.id}")

    # -- changes, each recorded for undo ---------------------------------------------------------

    def action_edit(self) -> None:
        if self.detail is None:
            return
        self.add_class("-editing")
        editor = self.query_one(MemoryEditor)
        editor.load_text(self.detail.content)  # the real words: editing a secret shows it, here only
        editor.move_cursor(editor.document.end)
        self.set_focus(editor)  # at once: what is typed right after e goes into the box

    @on(MemoryEditor.Submitted)
    async def save(self) -> None:
        text = self.query_one(MemoryEditor).text
        error = self.query_one("#memory-error", Static)
        try:
            changed = await asyncio.to_thread(self.memories.edit, self.memory_id, text)
        except InvalidInput as exc:
            error.update(str(exc))  # nothing changed; the words typed stay in the box
            return
        error.update("")
        self._stop_editing()
        self.app.notify("Saved; the earlier text is kept. ctrl+z undoes it." if changed else "Nothing changed.",
                        timeout=4, markup=False)
        self.reload()

    def _stop_editing(self) -> None:
        self.remove_class("-editing")
        self.query_one("#memory-body").focus()

    @work(group="memory-change", exit_on_error=False, description="change a memory")
    async def action_toggle_private(self) -> None:
        if self.detail is None:
            return
        memory = await asyncio.to_thread(self.memories.set_private, self.memory_id, not self.detail.private)
        self.app.notify(("Marked private: it goes to a model only when a message asks about it."
                         if memory.private else "No longer private.") + " ctrl+z undoes it.", timeout=4)
        self.reload()

    @work(group="memory-change", exit_on_error=False, description="change a memory")
    async def action_toggle_pin(self) -> None:
        if self.detail is None:
            return
        memory = await asyncio.to_thread(self.memories.set_pinned, self.memory_id, not self.detail.pinned)
        self.app.notify(("Pinned: never archived, never outranked by its echoes."
                         if memory.pinned else "Unpinned.") + " ctrl+z undoes it.", timeout=4)
        self.reload()

    def action_forget(self) -> None:
        """Asks first (a newcomer's f took the memory at once): y, or f again, forgets it."""
        if self.detail is None:
            return
        self.app.push_screen(ConfirmScreen(
            f"Forget memory #{self.detail.id}?", one_line(self.detail.text, 300),
            "Its quotations in your conversations, titles and input history go with it. "
            f"{actions.key_for('memory-undo', self.keymap)} brings all of it back.",
            "forget", ("y", actions.key_for("memory-forget", self.keymap))), self._forget_answered)

    def _forget_answered(self, answer: str | None) -> None:
        if answer == "yes":
            self.forget()

    @work(group="memory-change", exit_on_error=False, description="forget a memory")
    async def forget(self) -> None:
        memory = await asyncio.to_thread(self.memories.forget, self.memory_id)
        self.app.notify(f"Forgotten #{memory.id}. ctrl+z brings it back.", timeout=5, markup=False)
        self.dismiss(None)

    @work(group="memory-change", exit_on_error=False, description="undo a change to a memory")
    async def action_undo(self) -> None:
        undone = await asyncio.to_thread(self.changes.undo_last)
        self.app.notify(one_line(self.changes.undo_text(undone), 160), timeout=4, markup=False)
        self.reload()

    def action_reveal(self) -> None:
        if self.detail is not None and (self.detail.sensitive or any(e.sensitive for e in self.detail.history)):
            self.revealed = not self.revealed
            self.show()

    # -- elsewhere ----------------------------------------------------------------------------------

    @work(group="memory-conversation", exit_on_error=False, description="open a conversation")
    async def action_conversation(self) -> None:
        if self.detail is None or self.detail.said_in is None:
            self.app.notify("This memory was not said in a conversation that is still here.", timeout=4)
            return
        found = await asyncio.to_thread(self.conversations.conversation, self.detail.said_in)
        if found is None:
            self.app.notify("That conversation is gone.", timeout=4)
            return
        self.app.push_screen(ConversationScreen(*found), self._after_conversation)

    def _after_conversation(self, result: int | None) -> None:
        if result is not None:
            self.dismiss(result)

    def action_scroll(self, how: str) -> None:
        getattr(self.query_one("#memory-body", VerticalScroll), f"scroll_{how}")(animate=False)

    def action_close(self) -> None:
        if self.editing:
            self.query_one("#memory-error", Static).update("")
            self._stop_editing()
            return
        self.dismiss(None)
