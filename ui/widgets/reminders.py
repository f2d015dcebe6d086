"""The reminder panel (the sidebar: overdue first, then upcoming; d done, s snooze, enter details,
ctrl+z undo) and its one-line form on narrow terminals. The panel loads and changes reminders
through the service in thread workers and says what changed with messages."""
from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from textual import events, on, work
from textual.actions import SkipAction
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import ListItem, ListView, Static

from assistant.service import AssistantService
from assistant.views import ReminderChange, ReminderView
from memory.errors import InvalidInput
from ui import actions
from ui.failures import ReportsFailures
from ui.text import one_line, visible

UNDO_SECONDS = 10


class ReminderItem(ListItem):
    def __init__(self, reminder: ReminderView) -> None:
        self.reminder = reminder
        badge = "OVERDUE" if reminder.status == "overdue" else "DUE"
        # The label is memory's ("[DUE Tue Nov 24 19:00, every Tue]"): shown as given, badge aside.
        when = reminder.label.strip().removeprefix("[").removesuffix("]").removeprefix(f"{badge} ")
        # A repeating one's rule goes on a line of its own, so the time and "in 2 h" never wrap apart.
        when, _, rule = (when or reminder.when).partition(", ")
        text = f"[{badge}] {visible(reminder.content)}\n  {visible(when)} · {reminder.relative}"
        if rule:
            text += f"\n  {visible(rule)}"
        super().__init__(Static(text, markup=False), classes=reminder.status)


class ReminderList(ListView):
    """The list itself: letters that are not its keys go back to the message box, typed there."""

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character and event.key not in self.screen.active_bindings:
            event.stop()
            event.prevent_default()
            await self.run_action("screen.focus_composer")
            self.screen.query_one("#composer").insert(event.character)
            return
        await super()._on_key(event)


class ReminderPanel(ReportsFailures, VerticalScroll):
    """Overdue first, then upcoming within 7 days. d: done, s: snooze, enter: details."""

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("reminders")
    can_focus = False
    _shown: list[tuple] | None = None  # what the rows show now; None before the first load

    class Loaded(Message):
        """The reminders as just read (the one-line bar shows them too)."""

        def __init__(self, items: list[ReminderView]) -> None:
            super().__init__()
            self.items = items

    class Changed(Message):
        """A reminder was done, snoozed or put back from here: its next due instant may have moved."""

    def __init__(self, service: AssistantService, keymap: dict[str, str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.service = service
        self.keymap = keymap
        self._undo: ReminderChange | None = None
        self._undo_until = 0.0

    def compose(self):
        yield Static("Reminders", classes="sidebar-title")
        yield ReminderList(id="reminder-list")
        yield Static("", id="reminder-empty")

    # -- loading ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="reminders", exit_on_error=False, description="load reminders")
    def refresh_reminders(self) -> None:
        self.post_message(self.Loaded(self.service.sidebar_reminders()))

    async def on_reminder_panel_loaded(self, event: Loaded) -> None:
        await self.show(event.items)  # and the message goes on up, for the one-line bar

    async def show(self, items: list[ReminderView]) -> None:
        """Replace the rows; the highlight stays on the same reminder (by id), not the same row."""
        lst = self.query_one(ReminderList)
        shown = [(r.id, r.content, r.status, r.when, r.relative, r.label) for r in items]
        if shown == self._shown:
            return  # nothing changed: no flicker, no lost highlight
        self._shown = shown
        selected = self.selected
        index = lst.index
        await lst.clear()
        await lst.extend(ReminderItem(r) for r in items)
        if items:
            ids = [r.id for r in items]
            if selected is not None and selected.id in ids:
                lst.index = ids.index(selected.id)
            else:
                lst.index = min(index or 0, len(items) - 1)
        self.query_one("#reminder-empty", Static).update("" if items else "Nothing due in the next 7 days.")

    @property
    def selected(self) -> ReminderView | None:
        lst = self.query_one(ReminderList)
        item = lst.highlighted_child
        return item.reminder if isinstance(item, ReminderItem) else None

    def focus_first(self) -> None:
        """Arriving in the list: the most urgent row (overdue first), not an old highlight."""
        reminders = self.query_one(ReminderList)
        if not reminders.has_focus and len(reminders.children):
            reminders.index = 0
        reminders.focus()

    # -- changes ------------------------------------------------------------------------------

    def action_reminder_done(self) -> None:
        reminder = self.selected
        if reminder is not None:
            self.mark_done(reminder.id)

    @work(thread=True, group="reminder-change", exit_on_error=False, description="mark a reminder done")
    def mark_done(self, memory_id: int) -> None:
        try:
            change = self.service.mark_done(memory_id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.app.call_from_thread(self.app.notify, str(exc), severity="warning", markup=False)
            return
        self.app.call_from_thread(self.offer_undo, change, f"Done: {one_line(change.after.content, 60)}.")

    def offer_undo(self, change: ReminderChange, text: str) -> None:
        self._undo = change
        self._undo_until = time.monotonic() + UNDO_SECONDS
        key = actions.key_for("undo", self.keymap)
        self.app.notify(f"{text} {key} to undo.", timeout=UNDO_SECONDS, markup=False)
        self.refresh_reminders()
        self.post_message(self.Changed())

    def undo(self) -> None:
        """Put back the last done or snooze made here, within UNDO_SECONDS; else the key is not ours."""
        if self._undo is None or time.monotonic() > self._undo_until:
            self._undo = None
            raise SkipAction()  # let the message box have ctrl+z for its own undo
        change, self._undo = self._undo, None
        self._put_back(change)

    @work(thread=True, group="reminder-change", exit_on_error=False, description="undo a reminder change")
    def _put_back(self, change: ReminderChange) -> None:
        try:
            memory = self.service.undo(change)
        except InvalidInput as exc:
            self.app.call_from_thread(self.app.notify, f"Cannot undo: {exc}", severity="warning", markup=False)
            return
        self.app.call_from_thread(self.app.notify, f"Undone: {one_line(memory.content, 60)} is back.", timeout=4,
                                  markup=False)
        self.refresh_reminders()
        self.post_message(self.Changed())

    def action_reminder_snooze(self) -> None:
        reminder = self.selected
        if reminder is not None:
            self.snooze(reminder)

    def snooze(self, reminder: ReminderView) -> None:
        from ui.screens.dialogs import SnoozeScreen

        async def apply(when: str) -> str | None:
            try:
                change = await asyncio.to_thread(self.service.snooze, reminder.id, when)
            except InvalidInput as exc:
                return str(exc)
            clock = self.service.runtime.clock
            self.offer_undo(change, f"Snoozed to {clock.short(change.after.due_at)}: "
                                    f"{one_line(change.after.content, 60)}.")
            return None

        self.app.push_screen(SnoozeScreen(reminder, apply))

    @on(ReminderList.Selected, "#reminder-list")
    def open_reminder(self, event: ReminderList.Selected) -> None:
        reminder = getattr(event.item, "reminder", None)
        if reminder is not None:
            self._show_details(reminder)

    @work(thread=True, group="reminder-detail", exit_on_error=False, description="load a reminder")
    def _show_details(self, reminder: ReminderView) -> None:
        from ui.screens.dialogs import DetailScreen

        try:
            memory = self.service.reminder_detail(reminder.id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.app.call_from_thread(self.app.notify, str(exc), severity="warning", markup=False)
            return
        clock = self.service.runtime.clock
        label = reminder.label or reminder.when
        text = (f"#{memory.id} {memory.content}\n\nDue: {label} ({reminder.relative})\nKind: {memory.kind}"
                f"\nImportance: {memory.importance}\nCreated: {clock.short(memory.created_at)}"
                + (f"\nMentioned by the assistant: {clock.short(memory.reminded_at)}" if memory.reminded_at else ""))

        def after(choice: str | None) -> None:
            if choice == "done":
                self.mark_done(reminder.id)
            elif choice == "snooze":
                self.snooze(reminder)

        self.app.call_from_thread(self.app.push_screen, DetailScreen(text), after)


class ReminderBar(Static):
    """The sidebar folded into one line on narrow terminals: "3 reminders · next: plumber in 17 h"."""

    def show(self, items: list[ReminderView], expand_key: str) -> None:
        if not items:
            text = "No reminders in the next 7 days"
        else:
            overdue = sum(1 for r in items if r.status == "overdue")
            parts = [f"{len(items)} reminder{'s' if len(items) != 1 else ''}"]
            if overdue:
                parts.append(f"{overdue} overdue")
            upcoming = next((r for r in items if r.status == "due"), None)
            if upcoming is not None:
                parts.append(f"next: {one_line(upcoming.content, 40)} {upcoming.relative}")
            text = " · ".join(parts)
        self.update(f"⏰ {text}  ({expand_key})")
