"""Dialogs over the main screen: the recap (ctrl+r), help (f1), snooze (asks when), one reminder's
details, and a yes-or-no question before forgetting. Stored text is shown literally (Static, markup off,
control characters made visible)."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from assistant.views import RecapData, ReminderDetail, ReminderView
from ui import actions
from ui.text import one_line, visible

CLOSE = Binding("escape", "dismiss(None)", "Close", id="dialog-close")


class Heading(Static):
    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="heading")


class Line(Static):
    """One literal line of stored text (a title, a memory, a reminder)."""

    def __init__(self, text: str, classes: str = "") -> None:
        super().__init__(visible(text), markup=False, classes=f"line {classes}".strip())


class Dialog(ModalScreen[str | None]):
    """Escape closes (None); page keys scroll the dialog's body. A choice closes it with its name."""

    BINDINGS: ClassVar[list[BindingType]] = [CLOSE,
                Binding("pageup", "scroll_body('page_up')", show=False),
                Binding("pagedown", "scroll_body('page_down')", show=False)]

    def action_scroll_body(self, how: str) -> None:
        for body in self.query(VerticalScroll):
            getattr(body, f"scroll_{how}")(animate=False)
            return


class RecapScreen(Dialog):
    """Built locally from memory, instantly; 'n' asks the model for a narrative recap."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("n", "narrative", "Narrative recap", id="recap-narrative")]

    def __init__(self, data: RecapData, can_narrate: bool) -> None:
        super().__init__()
        self.data = data
        self.can_narrate = can_narrate

    def compose(self) -> ComposeResult:
        d = self.data
        with Vertical(id="recap-box", classes="dialog"):
            yield Static("Recap", classes="screen-title")
            with VerticalScroll(id="recap-body"):
                yield Heading(f"Conversations (last {d.hours} h)")
                for e in d.episodes:
                    yield Line(f"{e.when}  {e.title}")
                    if e.summary:
                        yield Line(e.summary, "detail")
                if d.current is not None:
                    c = d.current
                    size = f"{c.messages} message{'s' if c.messages != 1 else ''}"
                    yield Line(f"{c.when}  {c.title}  (current conversation, {size})", "current")
                    for opening in c.opening:
                        yield Line(f"> {opening}", "detail")
                if not d.episodes and d.current is None:
                    yield Line(f"No conversations in the last {d.hours} hours.", "muted")
                if d.earlier:
                    yield Heading("Before that")
                    for e in d.earlier:
                        yield Line(f"{e.when}  {e.title}")
                        if e.summary:
                            yield Line(e.summary, "detail")
                yield Heading("Overdue")
                for r in d.overdue:
                    yield Line(f"{r.content} ({r.when}, {r.relative})", "overdue")
                if not d.overdue:
                    yield Line("Nothing overdue.", "muted")
                yield Heading("Coming up (7 days)")
                for r in d.upcoming:
                    yield Line(f"{r.content} ({r.when}, {r.relative})")
                if not d.upcoming:
                    yield Line("Nothing coming up.", "muted")
                yield Heading("New memories")
                for m in d.new_memories:
                    yield Line(f"- {m}")
                if not d.new_memories:
                    yield Line("None.", "muted")
            label = "Ask the model for a narrative recap (n)" if self.can_narrate else "No model connected"
            yield Button(label, id="narrative", disabled=not self.can_narrate)
            yield Static("escape: close · page up/down: scroll", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#recap-body").focus()

    def action_narrative(self) -> None:
        if self.can_narrate:
            self.dismiss("narrative")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "narrative":
            self.action_narrative()


class HelpScreen(Dialog):
    """Every key, from the one table of actions (with the user's keymap applied); scrolls."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("f1", "dismiss(None)", "Close", show=False)]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}
        self.sections = actions.help_rows(self.keymap)

    @property
    def plain_text(self) -> str:
        return "\n".join(f"{title}\n" + "\n".join(f"  {k}  {d}" for k, d in rows) for title, rows in self.sections)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            yield Static("Keys", classes="screen-title")
            with VerticalScroll(id="help-body"):
                for title, rows in self.sections:
                    yield Heading(title)
                    table = Table(box=None, show_header=False, expand=True, padding=(0, 1, 0, 0))
                    table.add_column("key", style="bold", min_width=8, max_width=20)
                    table.add_column("what", ratio=1)
                    for key, what in rows:
                        table.add_row(Text(key), Text(what))
                    yield Static(table, classes="keys")
                yield Static(Text("Every action is also in the command palette (ctrl+p). Rebind a key by the id "
                                  "shown in config.example.toml under [keymap] in your config file."), classes="hint")
            yield Static("escape: close · page up/down or arrows: scroll", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()


class SnoozeScreen(Dialog):
    """Asks when; a date that cannot be understood is shown inline and the dialog stays open."""

    def __init__(self, reminder: ReminderView, apply: Callable[[str], Awaitable[str | None]]) -> None:
        super().__init__()
        self.reminder = reminder
        self.apply = apply  # returns an error message, or None when snoozed

    def compose(self) -> ComposeResult:
        with Vertical(id="snooze-box", classes="dialog"):
            yield Static(f"Snooze: {one_line(self.reminder.content, 60)}", classes="screen-title", markup=False)
            yield Input(placeholder="when? e.g. tomorrow at 9am, in 2 hours, friday 10am", id="snooze-when")
            yield Static("", id="snooze-error", markup=False)
            yield Static("enter: snooze · escape: cancel", classes="hint")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        when = event.value.strip()
        error = self.query_one("#snooze-error", Static)
        if not when:
            error.update("Type when, e.g. \"tomorrow at 9am\" or \"in 2 hours\".")
            return
        problem = await self.apply(when)
        if problem:
            error.update(problem)
            self.query_one(Input).focus()
            return
        self.dismiss(when)


class DetailScreen(Dialog):
    """One reminder. d, s and f act on it right here (returns "done", "snooze" or "forget"); e edits its
    text and time in place (a time is a phrase, read as everywhere; one that cannot be understood is
    said here and changes nothing)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("d", "dismiss('done')", "Done", id="detail-done"),
                Binding("s", "dismiss('snooze')", "Snooze", id="detail-snooze"),
                Binding("f", "dismiss('forget')", "Forget", id="detail-forget"),
                Binding("e", "edit", "Edit", id="detail-edit")]

    def __init__(self, detail: ReminderDetail,
                 edit: Callable[[int, str | None, str | None], Awaitable[str | None]] | None = None) -> None:
        super().__init__()
        self.detail = detail
        self.content = detail.reminder.content
        self.memory_id = detail.reminder.id
        self.edit = edit  # returns an error message, or None when changed

    @property
    def text(self) -> str:
        d, r = self.detail, self.detail.reminder
        lines = [f"#{r.id} {r.content}", "", f"Due: {r.when} ({r.relative})"]
        if r.rule:
            lines.append(f"Repeats: {r.rule}")
        lines += [f"Kind: {d.kind}", f"Importance: {d.importance}", f"Created: {d.created}"]
        if d.mentioned:
            lines.append(f"Mentioned by the assistant: {d.mentioned}")
        return "\n".join(lines)

    def compose(self) -> ComposeResult:
        with Vertical(id="detail-box", classes="dialog"):
            yield Static("Reminder", classes="screen-title")
            yield Static(visible(self.text), markup=False, id="detail-text")
            with Vertical(id="detail-form"):
                yield Input(self.content, placeholder="what", id="detail-content")
                yield Input(placeholder="new time, e.g. tomorrow at 9am (empty: keep it)", id="detail-when")
                yield Static("", id="detail-error", markup=False)
                yield Static("enter: save · escape: cancel", classes="hint")
            yield Static("d: done · s: snooze · e: edit · f: forget · escape: close", classes="hint",
                         id="detail-keys")

    AUTO_FOCUS = ""  # the letters are the dialog's keys until e opens the fields

    @property
    def editing(self) -> bool:
        return self.has_class("-editing")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the fields are open, letters are typing, not actions.
        return not (self.editing and action in ("dismiss", "edit") and parameters != (None,))

    def action_edit(self) -> None:
        if self.edit is None:
            return
        self.add_class("-editing")
        self.query_one("#detail-content", Input).focus()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.edit is None:
            return
        content = self.query_one("#detail-content", Input).value
        when = self.query_one("#detail-when", Input).value
        error = self.query_one("#detail-error", Static)
        if not content.strip():
            error.update("The reminder needs some words.")
            return
        problem = await self.edit(self.memory_id, content if content != self.content else None, when or None)
        if problem:
            error.update(problem)  # nothing changed; the dialog stays, with what was typed
            return
        self.dismiss("edited")


class ConfirmScreen(Dialog):
    """A question before a change one may not have meant (forgetting a memory), keyboard only: a yes key
    (y, and the key that asked, so that pressing it twice does it) returns "yes"; n, escape or any other key
    closes it and changes nothing (None), so a stray key never acts and never leaves the question up."""

    def __init__(self, title: str, text: str, consequence: str, verb: str, yes_keys: tuple[str, ...] = ("y",)) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.consequence = consequence
        self.verb = verb
        self.yes_keys = tuple(dict.fromkeys(yes_keys))

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(self.title_text, classes="screen-title", markup=False)
            yield Static(visible(self.text), markup=False, id="confirm-text")
            yield Static(self.consequence, markup=False, id="confirm-consequence")
            yield Static(f"{' or '.join(self.yes_keys)}: {self.verb} · n, escape or any other key: keep it",
                         classes="hint", markup=False, id="confirm-keys")

    def on_key(self, event: events.Key) -> None:
        # Before any binding (escape's too): every key answers, and only a yes key says yes.
        event.stop()
        event.prevent_default()
        self.dismiss("yes" if event.key in self.yes_keys else None)
