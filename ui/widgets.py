"""Widgets of the main screen: the chat log, the composer, the reminder sidebar, the status bar."""
from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import ListItem, ListView, Markdown, Static, TextArea

from assistant.session import ReminderView


class UserMessage(Static):
    """What the user sent, shown exactly as typed (no markup)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="user-message")


class ToolLine(Static):
    def __init__(self, text: str, error: bool = False) -> None:
        super().__init__(("⚠ " if error else "↳ ") + text, markup=False,
                         classes="tool-line error" if error else "tool-line")


class AnswerView(Markdown):
    """An assistant answer, streamed in batches and finished with a full update."""

    DEFAULT_CLASSES = "answer"


class ChatLog(VerticalScroll):
    can_focus = False


class Composer(TextArea):
    """The input: Enter sends, pasted text keeps its newlines, up/down walk the history."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, tab_behavior="focus", show_line_numbers=False, compact=True,
                         highlight_cursor_line=False, placeholder="Message (Enter to send, ctrl+r recap, f1 help)",
                         **kwargs)
        self.sent_history: list[str] = []
        self._position: int | None = None

    def action_submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.sent_history.append(text)
        self._position = None
        self.post_message(self.Submitted(text))
        self.clear()

    async def _on_key(self, event: events.Key) -> None:
        # Enter is handled here, in the widget's own key order: a priority binding would run before
        # the characters typed just ahead of it were inserted, and send half a message.
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self.action_submit()
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self.sent_history:
            self._position = len(self.sent_history) - 1 if self._position is None else max(0, self._position - 1)
            self.load_text(self.sent_history[self._position])
            event.prevent_default()
            event.stop()
            return
        if event.key == "down" and self._position is not None and self.cursor_location[0] == self.document.line_count - 1:
            self._position += 1
            if self._position >= len(self.sent_history):
                self._position = None
                self.clear()
            else:
                self.load_text(self.sent_history[self._position])
            event.prevent_default()
            event.stop()
            return
        await super()._on_key(event)


class ReminderItem(ListItem):
    def __init__(self, reminder: ReminderView) -> None:
        self.reminder = reminder
        badge = "OVERDUE" if reminder.status == "overdue" else "DUE"
        text = f"[{badge}] {reminder.content}\n  {reminder.when} · {reminder.relative}"
        super().__init__(Static(text, markup=False), classes=reminder.status)


class ReminderSidebar(VerticalScroll):
    """Overdue first, then upcoming within 7 days. d: done, s: snooze, enter: details."""

    BINDINGS = [
        Binding("d", "app.reminder_done", "Done", id="reminder-done"),
        Binding("s", "app.reminder_snooze", "Snooze", id="reminder-snooze"),
    ]

    def compose(self):
        yield Static("Reminders", classes="sidebar-title")
        yield ListView(id="reminder-list")
        yield Static("", id="reminder-empty")

    def show(self, items: list[ReminderView]) -> None:
        lst = self.query_one(ListView)
        index = lst.index
        lst.clear()
        lst.extend(ReminderItem(r) for r in items)
        if items:
            lst.index = min(index or 0, len(items) - 1)
        self.query_one("#reminder-empty", Static).update("" if items else "Nothing due in the next 7 days.")

    @property
    def selected(self) -> ReminderView | None:
        lst = self.query_one(ListView)
        item = lst.highlighted_child
        return item.reminder if isinstance(item, ReminderItem) else None


class StatusBar(Static):
    pass
