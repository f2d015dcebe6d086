"""The message box: enter sends, a key starts a new line, up/down walk the history (nothing of an incognito
conversation is written to it), page keys scroll the chat, and ctrl+z is its own only while it holds text
of its own (else it undoes a reminder change)."""
from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea

from assistant.input_history import InputHistory
from ui import actions


class Composer(TextArea):
    """The message box. Enter sends; ctrl+j (or shift+enter) starts a new line; pasted text keeps its
    newlines; up/down walk the history; page keys scroll the chat, so reading never needs a focus change."""

    # These override TextArea's own page and home/end keys: in a message box of a few lines, the
    # chat above is what the user wants to move through.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pageup", "screen.chat_scroll('page_up')", show=False),
        Binding("pagedown", "screen.chat_scroll('page_down')", show=False),
        Binding("ctrl+home", "screen.chat_scroll('home')", show=False),
        Binding("ctrl+end", "screen.chat_scroll('end')", show=False),
        Binding("home", "home", show=False),
        Binding("end", "end", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, history: InputHistory, keymap: dict[str, str] | None = None, *, id: str | None = None) -> None:
        newline = actions.key_for("newline", keymap)
        super().__init__(soft_wrap=True, tab_behavior="focus", show_line_numbers=False, compact=True,
                         highlight_cursor_line=False,
                         placeholder=f"Message (enter send, {newline} new line, f1 keys)", id=id)
        self.newline_keys = set((keymap or {}).get("newline", "ctrl+j,shift+enter").split(","))
        self.input_history = history
        self._position: int | None = None  # the history entry shown, None: the user's own draft
        self._draft = ""
        self._text_at_change = ""  # the text here when a reminder was last changed by the person

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

    def incognito(self, on: bool) -> None:
        """An incognito conversation begins (what is sent can be walked through with up/down but is never
        written) or ends (it is forgotten: the history is what it was before)."""
        if on:
            self.input_history.hold()
        else:
            self.input_history.release()
        self._position, self._draft = None, ""

    def reminder_changed(self) -> None:
        """A reminder was just changed (in the list, a dialog, the chat): until this text is edited,
        ctrl+z here undoes that change."""
        self._text_at_change = self.text

    def action_undo(self) -> None:
        """ctrl+z: the box's own undo while it holds text of its own; when it is empty, or as it was at the
        last change, the key goes on to the screen, which undoes the last change to a reminder or a memory."""
        if not self.text or self.text == self._text_at_change:
            raise SkipAction()
        super().action_undo()

    async def action_home(self) -> None:
        if self.text:
            self.action_cursor_line_start()
        else:
            await self.run_action("screen.chat_scroll('home')")

    async def action_end(self) -> None:
        if self.text:
            self.action_cursor_line_end()
        else:
            await self.run_action("screen.chat_scroll('end')")

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
        if self._position is not None and self._position >= len(self.sent_history):
            self._position = None  # the history shrank under it (an incognito conversation ended)
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
        if event.key == "down" and recalled and self._position is not None:
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
