"""Widgets of the main screen: the chat log, the composer, the reminder sidebar and its one-line bar,
the welcome, the status bar and a footer that fits narrow terminals."""
from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Footer, ListItem, ListView, Static, TextArea
from textual.widgets._footer import FooterKey

from assistant.views import ReminderView
from ui import actions
from ui.history import InputHistory
from ui.text import one_line, visible

SHOWN_CHARACTERS = 20_000  # a 1 MB paste is stored whole; laying out all of it would freeze the chat


class UserMessage(Static):
    """What the user sent, shown exactly as typed (no markup, control characters made visible)."""

    def __init__(self, text: str) -> None:
        shown = visible(text[:SHOWN_CHARACTERS])
        if len(text) > SHOWN_CHARACTERS:
            shown += f"\n… {len(text) - SHOWN_CHARACTERS:,} more characters, not shown here (the whole message is saved)"
        super().__init__(shown, markup=False, classes="user-message")


class ToolLine(Static):
    """A line in the chat that is not a message: a tool call, an error, a reminder falling due."""

    def __init__(self, text: str, error: bool = False, reminder: bool = False, hint: bool = False) -> None:
        prefix = "" if reminder or hint else "⚠ " if error else "↳ "
        kind = " error" if error else " reminder" if reminder else ""
        super().__init__(prefix + visible(text), markup=False, classes="tool-line" + kind)


def answer_view(markdown: str | None = None):
    """A model's answer (ui.answer.AnswerView, imported on first use)."""
    from ui.answer import AnswerView

    return AnswerView(markdown)


class PlainAnswer(Static):
    """An answer of the built-in offline mode: it quotes stored text, so it is shown literally."""

    def __init__(self, text: str = "") -> None:
        super().__init__(visible(text), markup=False, classes="answer plain")
        self.text = text

    def append(self, chunk: str) -> None:
        self.text += chunk
        self.update(visible(self.text))


class ChatLog(VerticalScroll):
    """The conversation. Focusable (tab) so it can be scrolled from the keyboard; anchored so that it
    follows new messages until the user scrolls up, and keeps the newest in view on resize."""

    can_focus = True

    def on_mount(self) -> None:
        self.anchor()

    def pin(self) -> None:
        """Back to the newest message, following new ones again."""
        self.anchor()
        self.scroll_end(animate=False, immediate=True)


class Welcome(VerticalScroll):
    """Shown on an empty store, in place of the chat, until the user types: what this is, the model,
    examples, keys. It scrolls on its own, from its first line (the chat is pinned to its last)."""

    can_focus = False

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__(id="welcome")
        self.keymap = keymap or {}
        self.model_line = "Model: connecting…"
        self.body = Static(self._text(), markup=False, id="welcome-text")

    def compose(self):
        yield self.body

    @property
    def text(self) -> str:
        return self._text()

    def update(self, text: str) -> None:
        self.body.update(text)

    def set_model(self, label: str, has_model: bool) -> None:
        if has_model:
            self.model_line = f"Model: {label}, connected."
        else:
            self.model_line = (
                "No model connected: the built-in offline mode keeps reminders and notes, answers questions "
                "from what you told it, lists what is coming up and recaps, but cannot chat. To connect a "
                "model, set ANTHROPIC_API_KEY (Anthropic) or run "
                "`ollama serve` (local, with `ollama pull llama3.2:3b`), then start assistant again.")
        self.update(self._text())

    def _text(self) -> str:
        def k(action_id: str) -> str:
            return actions.key_for(action_id, self.keymap)

        return (
            "Welcome to assistant, a chat assistant that remembers. What you tell it stays in one SQLite file "
            "on this machine; it reminds you on time and recaps what you talked about.\n\n"
            f"{self.model_line}\n\n"
            "Try:\n"
            "  remind me to call the plumber tomorrow at 9am\n"
            "  remember that the boiler code is 4471\n"
            "  what's coming up this week?\n"
            "  what did we talk about yesterday?\n\n"
            f"enter send · {k('newline')} new line · {k('recap')} recap · {k('focus-reminders')} reminders · "
            f"{k('conversations')} conversations · {k('help')} all keys · ctrl+p commands · {k('quit')} quit")


class Composer(TextArea):
    """The message box. Enter sends; ctrl+j (or shift+enter) starts a new line; pasted text keeps its
    newlines; up/down walk the history; page keys scroll the chat, so reading never needs a focus change."""

    # These override TextArea's own page and home/end keys: in a message box of a few lines, the
    # chat above is what the user wants to move through.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pageup", "app.chat_page_up", show=False),
        Binding("pagedown", "app.chat_page_down", show=False),
        Binding("ctrl+home", "app.chat_top", show=False),
        Binding("ctrl+end", "app.chat_bottom", show=False),
        Binding("home", "home", show=False),
        Binding("end", "end", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, keymap: dict[str, str] | None = None, **kwargs) -> None:
        newline = actions.key_for("newline", keymap)
        super().__init__(soft_wrap=True, tab_behavior="focus", show_line_numbers=False, compact=True,
                         highlight_cursor_line=False,
                         placeholder=f"Message (enter send, {newline} new line, f1 keys)", **kwargs)
        self.newline_keys = set((keymap or {}).get("newline", "ctrl+j,shift+enter").split(","))
        self.input_history = InputHistory(None)  # the app passes one kept in the state dir
        self._position: int | None = None  # the history entry shown, None: the user's own draft
        self._draft = ""

    @property
    def sent_history(self) -> list[str]:
        return self.input_history.entries

    def action_submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.input_history.append(text)
        self._position, self._draft = None, ""
        self.post_message(self.Submitted(text))
        self.clear()

    def action_home(self) -> None:
        if self.text:
            self.action_cursor_line_start()
        else:
            self.app.action_chat_top()

    def action_end(self) -> None:
        if self.text:
            self.action_cursor_line_end()
        else:
            self.app.action_chat_bottom()

    async def _on_key(self, event: events.Key) -> None:
        # Enter is handled here, in the widget's own key order: a priority binding would run before
        # the characters typed just ahead of it were inserted, and send half a message.
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self.action_submit()
            return
        if event.key in self.newline_keys or event.key == "shift+\r":
            event.prevent_default()
            event.stop()
            self.insert("\n")
            return
        # A recalled entry left as it was is walked past whole, however many lines it has (a recalled
        # 60-line paste took 120 presses to leave). Once edited, up/down only move the cursor in it,
        # so an edit is never thrown away; a draft typed before walking the history comes back below
        # the newest entry.
        recalled = self._position is not None and self.text == self.sent_history[self._position]
        edited = self._position is not None and not recalled and self.text != ""
        if event.key == "up" and not edited and (self.cursor_location[0] == 0 or recalled) and self.sent_history:
            if self._position is None:
                self._draft = self.text
            self._position = len(self.sent_history) - 1 if self._position is None else max(0, self._position - 1)
            self._recall(self.sent_history[self._position])
            event.prevent_default()
            event.stop()
            return
        if event.key == "down" and recalled:
            self._position += 1
            if self._position >= len(self.sent_history):
                self._position = None
                self._recall(self._draft)
            else:
                self._recall(self.sent_history[self._position])
            event.prevent_default()
            event.stop()
            return
        await super()._on_key(event)

    def _recall(self, text: str) -> None:
        """A sent message back in the box, the cursor at its end (where one edits a message, and where
        ctrl+u deletes back from)."""
        self.load_text(text)
        self.move_cursor(self.document.end)


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
            self.app.action_focus_composer()
            self.app.query_one(Composer).insert(event.character)
            return
        await super()._on_key(event)


class ReminderSidebar(VerticalScroll):
    """Overdue first, then upcoming within 7 days. d: done, s: snooze, enter: details."""

    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("reminders")
    can_focus = False
    _shown: list[tuple] | None = None  # what the rows show now; None before the first load

    def compose(self):
        yield Static("Reminders", classes="sidebar-title")
        yield ReminderList(id="reminder-list")
        yield Static("", id="reminder-empty")

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


class KeyFooter(Footer):
    """Textual's footer, thinned out on narrow terminals to the keys marked essential in the table."""

    narrow = reactive(False)

    def watch_narrow(self) -> None:
        self.compact = self.narrow
        if self.is_attached and self._bindings_ready:
            self.call_after_refresh(self.recompose)

    def compose(self):
        if not self._bindings_ready:
            return
        keep = actions.narrow_ids()
        active = self.screen.active_bindings
        # The focused widget's own keys first (d, s while in the list), then the app's, in table order;
        # keys that do not fit the width are left out rather than cut in half (f1 lists them all).
        ordered = sorted(active.values(), key=lambda b: (b[0] is self.app, actions.footer_rank(b[1].id)))
        budget = self.app.size.width - (0 if self.narrow else 14)
        seen: set[str] = set()
        keys = []
        for node, binding, enabled, tooltip in ordered:
            if not binding.show or binding.action in seen:
                continue
            if self.narrow and node is self.app and binding.id not in keep:
                continue
            width = len(self.app.get_key_display(binding)) + len(binding.description) + (2 if self.narrow else 4)
            if width > budget:
                continue
            budget -= width
            seen.add(binding.action)
            keys.append((binding, enabled, tooltip))
        self.styles.grid_size_columns = max(1, len(keys))
        for binding, enabled, tooltip in keys:
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip or binding.tooltip).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and not self.narrow:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, tooltip = palette
                yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                                classes="-command-palette", disabled=not enabled,
                                tooltip=binding.tooltip or binding.description)

    def on_resize(self) -> None:
        if self._bindings_ready:
            self.call_after_refresh(self.recompose)


class StatusBar(Static):
    pass
