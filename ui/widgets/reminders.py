"""The reminder panel (the sidebar: overdue first, then upcoming; d done, s snooze, enter details,
ctrl+z undo) and its one-line form on narrow terminals. The panel loads and changes reminders
through the reminders service in workers (the blocking calls in threads) and says what changed, and which
dialog it needs, with messages. A reminder comes as fields (assistant.views.ReminderView)."""
from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import ListItem, ListView, Static

from assistant.services import ChangeService, ReminderService
from assistant.views import ReminderDetail, ReminderPage, ReminderView
from memory.errors import InvalidInput
from ui import actions
from ui.failures import ReportsFailures
from ui.messages import StoreChanged
from ui.text import one_line, visible

LETTER_PAUSE = 0.4  # seconds a list letter (d, s) waits for more typing before it acts


class ReminderText(Static):
    """One reminder's lines, wrapped to the width it is given with a hanging indent: the time and
    "overdue 1 min" are kept whole (never "overdue 1" / "min"), and no word is cut in half."""

    def __init__(self, head: str, when: str, relative: str, rule: str) -> None:
        super().__init__(markup=False)
        self.head, self.when, self.relative, self.rule = head, when, relative, rule

    def render(self) -> str:
        width = max(12, self.size.width or 36)
        glue = "\u00a0"  # textwrap breaks only at ASCII spaces: a no-break space keeps a piece whole
        lines = textwrap.wrap(self.head, width, subsequent_indent="  ", break_on_hyphens=False)
        timing = self.when.replace(" ", glue) + (f" · {self.relative.replace(' ', glue)}" if self.relative else "")
        lines += textwrap.wrap(timing, width, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False)
        if self.rule:
            lines += textwrap.wrap(self.rule, width, initial_indent="  ", subsequent_indent="    ",
                                   break_on_hyphens=False)
        return "\n".join(lines).replace(glue, " ")


def badge(reminder: ReminderView) -> tuple[str, str]:
    """The row's badge and what its time line adds after the time. A just-fired one is due ("[DUE NOW]",
    not "overdue ... · now"); an overdue one says so, and by how much after its time; an upcoming one says
    how far off it is ("[in 33 h]": "[DUE]" on a reminder a day away read as due now). The prompt's and
    `reminders`' labels ("[DUE Mon Dec 7 12:00]", SPEC F1) are another thing, and stay."""
    if reminder.due_now:
        return "DUE NOW", ""
    if reminder.status == "overdue":
        return "OVERDUE", reminder.relative
    return reminder.relative, ""


class ReminderItem(ListItem):
    def __init__(self, reminder: ReminderView) -> None:
        self.reminder = reminder
        shown, relative = badge(reminder)
        # A repeating one's rule goes on a line of its own, so the time and "overdue 2 h" never wrap apart.
        super().__init__(ReminderText(f"[{shown}] {visible(reminder.content)}", visible(reminder.when),
                                      relative, visible(reminder.rule or "")), classes=reminder.status)


class ReminderList(ListView):
    """The list itself. A sentence typed here by mistake changes no reminder and loses no letter: a
    letter key of the list (d, s) acts only when no other printable key follows within LETTER_PAUSE;
    typed on, it goes with the rest to the message box, as every other printable key does at once."""

    def __init__(self, letters: dict[str, str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.letters = letters  # key -> panel action ("d" -> "reminder_done")
        self._pending: tuple[str, str, int] | None = None  # (action, character, reminder id)
        self._pending_timer: Timer | None = None
        # Typing was handed to the message box: every key still on its way here is the box's too (a burst, a
        # paste without bracketed paste: its keys all reach the list before the focus moves), until the list
        # is focused again.
        self._typing = False

    def on_focus(self, event: events.Focus) -> None:
        self._typing = False

    @property
    def panel(self) -> ReminderPanel:
        return self.query_ancestor(ReminderPanel)

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            action = self.letters.get(event.key)
            selected = self.panel.selected_id
            if self._pending is None and action is not None and selected is not None and not self._typing:
                self._pending = (action, event.character, selected)
                self._pending_timer = self.set_timer(LETTER_PAUSE, self._act_pending, name="list-letter")
                return
            typed = (self._take_pending()[1] if self._pending else "") + event.character
            await self._to_the_box(typed)
            return
        if self._pending is not None:
            if event.key == "escape":  # never mind: the letter is dropped
                self._take_pending()
            else:
                self._act_pending()  # the letter was meant: act, then move
        await super()._on_key(event)

    def _take_pending(self) -> tuple[str, str, int]:
        pending, self._pending = self._pending, None
        if self._pending_timer is not None:
            self._pending_timer.stop()
            self._pending_timer = None
        assert pending is not None
        return pending

    async def _to_the_box(self, typed: str) -> None:
        self._typing = True
        await self.app.run_action(("screen", "focus_composer", (typed,)), self)

    def _act_pending(self) -> None:
        if self._pending is None:
            return
        action, character, reminder_id = self._take_pending()
        if self._typing or self.app.focused is not self:
            self.run_worker(self._to_the_box(character))  # typed on elsewhere: a letter, not a list key
            return
        self.panel.act(action, reminder_id)


class ReminderPanel(ReportsFailures, Vertical):
    """The most urgent reminders: overdue first, then upcoming within 7 days, and a count of the rest.
    d: done, s: snooze, enter: details. The highlight is a reminder (by id), not a row.

    It loads and changes reminders itself; the snooze and details dialogs it asks for with a message
    (SnoozeAsked, DetailsAsked), and what they choose comes back to it."""

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("reminders")
    can_focus = False
    _shown: list[ReminderView] | None = None  # what the rows show now; None before the first load

    class Loaded(Message):
        """The reminders as just read (the one-line bar shows them too)."""

        def __init__(self, page: ReminderPage) -> None:
            super().__init__()
            self.page = page
            self.items = page.items

    class SnoozeAsked(Message):
        """Ask when to snooze `reminder` to; `apply(when)` snoozes it, or returns why it could not."""

        def __init__(self, reminder: ReminderView, apply: Callable[[str], Awaitable[str | None]]) -> None:
            super().__init__()
            self.reminder = reminder
            self.apply = apply

    class DetailsAsked(Message):
        """Show `detail`; `edit(id, content, due)` changes it (or returns why not), and `chosen` takes what
        was chosen there ("done", "snooze", "forget"; "edited" once `edit` has done it; or None)."""

        def __init__(self, detail: ReminderDetail, edit: Callable[[int, str | None, str | None],
                     Awaitable[str | None]], chosen: Callable[[str | None], None]) -> None:
            super().__init__()
            self.detail = detail
            self.edit = edit
            self.chosen = chosen

    def __init__(self, reminders: ReminderService, changes: ChangeService, keymap: dict[str, str], *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.reminders = reminders
        self.changes = changes
        self.keymap = keymap
        self.selected_id: int | None = None  # the highlighted reminder, whatever row it is on
        self._items: list[ReminderView] = []

    def compose(self) -> ComposeResult:
        letters = {}
        for row in actions.ACTIONS:
            if row.scope == "reminders" and row.action in ("reminder_done", "reminder_snooze"):
                for key in self.keymap.get(row.id, row.key).split(","):
                    if len(key) == 1:
                        letters[key] = row.action
        yield Static("Reminders", classes="sidebar-title")
        yield ReminderList(letters, id="reminder-list")
        yield Static("", id="reminder-empty")  # "Nothing due in the next 7 days." before what lies beyond them
        yield Static("", id="reminder-more", markup=False)

    # -- loading ------------------------------------------------------------------------------

    # The rows are rebuilt in the message's handler, not in the worker: a worker superseded by a newer
    # read is cancelled, and a rebuild cut off half-way would be taken for what is shown.
    @work(thread=True, exclusive=True, group="reminders", exit_on_error=False, description="load reminders")
    def refresh_reminders(self) -> None:
        self.post_message(self.Loaded(self.reminders.page()))

    async def on_reminder_panel_loaded(self, event: Loaded) -> None:
        await self.show(event.page)  # and the message goes on up, for the one-line bar

    def fell_due(self) -> None:
        """Reminders just fell due: once the due second has passed the rows say "overdue" (not at the
        next minute's refresh)."""
        self.set_timer(1.5, self.refresh_reminders, name="reminder-after-due")

    async def show(self, page: ReminderPage) -> None:
        """Replace the rows; the highlight stays on the same reminder (by id), not the same row: when
        that reminder is gone, on the one now in its place."""
        items = page.items
        lst = self.query_one(ReminderList)
        if not lst.is_mounted or not self.app.is_running:
            return  # a read that finished while the app was closing: nothing to show it in
        more = self.query_one("#reminder-more", Static)
        said = [f"+{page.more:,} more: assistant reminders"] if page.more else []
        said += [page.later_text] if page.later else []  # "and 3 later: next on Mon Dec 7"
        more.update("\n".join(said))
        more.display = bool(said)
        if items == self._shown:
            return  # nothing changed: no flicker, no lost highlight
        self._shown = list(items)
        old_ids = [r.id for r in self._items]
        old_index = old_ids.index(self.selected_id) if self.selected_id in old_ids else (lst.index or 0)
        self._items = list(items)
        ids = [r.id for r in items]
        if self.selected_id not in ids:
            self.selected_id = ids[min(old_index, len(ids) - 1)] if ids else None
        await lst.clear()
        await lst.extend(ReminderItem(r) for r in items)
        lst.display = bool(items)
        if items:
            self._highlight(self.selected_id)
        self.query_one("#reminder-empty", Static).update("" if items else "Nothing due in the next 7 days.")

    def _highlight(self, reminder_id: int | None) -> None:
        lst = self.query_one(ReminderList)
        ids = [r.id for r in self._items]
        if reminder_id in ids:
            lst.index = ids.index(reminder_id)  # ListView scrolls it into view

    def select(self, reminder_id: int) -> None:
        """Highlight this reminder (now if it is shown, else when the list next shows it)."""
        self.selected_id = reminder_id
        self._highlight(reminder_id)

    @on(ReminderList.Highlighted, "#reminder-list")
    def _highlighted(self, event: ReminderList.Highlighted) -> None:
        # Only a row the list shows now counts: a rebuild highlights row 0 for a moment first.
        item = event.item
        if isinstance(item, ReminderItem) and item.parent is not None and item.reminder.id in \
                [r.id for r in self._items] and event.list_view.highlighted_child is item:
            self.selected_id = item.reminder.id

    @property
    def selected(self) -> ReminderView | None:
        return next((r for r in self._items if r.id == self.selected_id), None)

    def focus_first(self) -> None:
        """Arriving in the list: the most urgent row (overdue first), not an old highlight."""
        reminders = self.query_one(ReminderList)
        if not reminders.has_focus and self._items:
            self.select(self._items[0].id)
        reminders.focus()

    # -- changes ------------------------------------------------------------------------------

    def act(self, action: str, reminder_id: int) -> None:
        """A list letter, after its pause: on that reminder, if it is still the highlighted one."""
        reminder = self.selected
        if reminder is None or reminder.id != reminder_id:
            return
        if action == "reminder_done":
            self.mark_done(reminder.id)
        elif action == "reminder_snooze":
            self.snooze(reminder)

    def action_reminder_done(self) -> None:
        reminder = self.selected
        if reminder is not None:
            self.mark_done(reminder.id)

    def action_reminder_snooze(self) -> None:
        reminder = self.selected
        if reminder is not None:
            self.snooze(reminder)

    def changed(self, text: str, undo_hint: bool = True) -> None:
        """A change made from here: say it (and how to undo it); the screen has everything read again."""
        key = actions.key_for("undo", self.keymap)
        self.app.notify(f"{text} {key} to undo." if undo_hint else text, timeout=8, markup=False)
        self.post_message(StoreChanged(by_user=True))

    @work(group="reminder-change", exit_on_error=False, description="mark a reminder done")
    async def mark_done(self, memory_id: int) -> None:
        try:
            change = await asyncio.to_thread(self.reminders.mark_done, memory_id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.app.notify(str(exc), severity="warning", markup=False)
            return
        self.changed(f"Done: {one_line(change.after.content, 60)}.")

    @work(group="reminder-change", exit_on_error=False, description="undo a reminder change")
    async def undo(self) -> None:
        """Put back the last change recorded in the store, wherever it was made (the list, the chat, the CLI)."""
        try:
            undone = await asyncio.to_thread(self.changes.undo_last)
        except InvalidInput as exc:
            self.app.notify(f"Cannot undo: {exc}", severity="warning", markup=False)
            return
        text = one_line(self.changes.undo_text(undone), 160)
        if undone is None:
            self.app.notify(text, timeout=4, markup=False)
            return
        back = undone.memory  # None when what was undone was a memory just made
        if back is not None and back.due_at is not None and back.done_at is None:
            self.select(back.id)  # the highlight goes to the reminder that came back
        self.changed(text, undo_hint=False)

    def snooze(self, reminder: ReminderView) -> None:
        async def apply(when: str) -> str | None:
            try:
                change = await asyncio.to_thread(self.reminders.snooze, reminder.id, when)
            except InvalidInput as exc:
                return str(exc)
            self.changed(f"Snoozed to {change.when}: {one_line(change.after.content, 60)}.")
            return None

        self.post_message(self.SnoozeAsked(reminder, apply))

    @on(ReminderList.Selected, "#reminder-list")
    def open_reminder(self, event: ReminderList.Selected) -> None:
        reminder = self.selected
        if reminder is not None and isinstance(event.item, ReminderItem) and event.item.reminder.id == reminder.id:
            self._show_details(reminder.id)

    @work(group="reminder-detail", exit_on_error=False, description="load a reminder")
    async def _show_details(self, reminder_id: int) -> None:
        try:
            detail = await asyncio.to_thread(self.reminders.detail, reminder_id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.app.notify(str(exc), severity="warning", markup=False)
            return

        def chosen(choice: str | None) -> None:
            if choice == "done":
                self.mark_done(reminder_id)
            elif choice == "snooze":
                self.snooze(detail.reminder)
            elif choice == "forget":
                self.forget(reminder_id)

        self.post_message(self.DetailsAsked(detail, self.edit, chosen))

    async def edit(self, memory_id: int, content: str | None, due: str | None) -> str | None:
        """The details dialog's edit: None when changed, else the reason nothing changed."""
        try:
            change = await asyncio.to_thread(self.reminders.edit, memory_id, content, due)
        except InvalidInput as exc:
            return str(exc)
        self.changed(f"Changed: {one_line(change.after.content, 60)}, due {change.when}.")
        return None

    @work(group="reminder-change", exit_on_error=False, description="forget a reminder")
    async def forget(self, memory_id: int) -> None:
        try:
            memory = await asyncio.to_thread(self.reminders.forget, memory_id)
        except InvalidInput as exc:
            self.app.notify(str(exc), severity="warning", markup=False)
            return
        self.changed(f"Forgot: {one_line(memory.content, 60)}.")


class ReminderBar(Static):
    """The sidebar folded into one line on narrow terminals: "3 reminders · next: plumber in 17 h"."""

    def show(self, page: ReminderPage, expand_key: str) -> None:
        items = page.items
        if not items:
            text = "No reminders in the next 7 days" + (f"; {page.later_text}" if page.later else "")
        else:
            parts = [f"{page.total:,} reminder{'s' if page.total != 1 else ''}"]
            if page.overdue:
                parts.append(f"{page.overdue:,} overdue")
            upcoming = next((r for r in items if r.status == "due"), None)
            if upcoming is not None:
                parts.append(f"next: {one_line(upcoming.content, 40)} {upcoming.relative}")
            text = " · ".join(parts)
        self.update(f"⏰ {text}  ({expand_key})")
