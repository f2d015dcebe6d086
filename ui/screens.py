"""Modal screens: recap (ctrl+r), help (f1), snooze (asks when), reminder details."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Markdown, Static

from assistant.session import RecapData, ReminderView


def recap_markdown(data: RecapData) -> str:
    lines = [f"## Conversations (last {data.hours} h)"]
    if data.episodes:
        for e in data.episodes:
            lines.append(f"- **{e.when}** {e.title}" + (f"  \n  {e.summary}" if e.summary else ""))
    else:
        lines.append("_No conversations in the last 48 hours._")
    lines.append("\n## Overdue")
    lines += [f"- {r.content} ({r.when}, {r.relative})" for r in data.overdue] or ["_Nothing overdue._"]
    lines.append("\n## Coming up (7 days)")
    lines += [f"- {r.content} ({r.when}, {r.relative})" for r in data.upcoming] or ["_Nothing coming up._"]
    lines.append("\n## New memories")
    lines += [f"- {m}" for m in data.new_memories] or ["_None._"]
    return "\n".join(lines)


class RecapScreen(ModalScreen[str | None]):
    """Built locally from memory, instantly; 'n' asks the model for a narrative recap."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="recap-close"),
                Binding("n", "narrative", "Narrative recap", id="recap-narrative")]

    def __init__(self, data: RecapData, can_narrate: bool) -> None:
        super().__init__()
        self.data = data
        self.can_narrate = can_narrate

    def compose(self) -> ComposeResult:
        with Vertical(id="recap-box"):
            yield Static("Recap", classes="screen-title")
            with VerticalScroll():
                yield Markdown(recap_markdown(self.data), id="recap-body")
            label = "Ask the model for a narrative recap (n)" if self.can_narrate else "No model configured"
            yield Button(label, id="narrative", disabled=not self.can_narrate)
            yield Static("escape: close", classes="hint")

    def action_narrative(self) -> None:
        if self.can_narrate:
            self.dismiss("narrative")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "narrative":
            self.action_narrative()


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Close"), Binding("f1", "dismiss(None)", "Close")]

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        rows = "\n".join(f"| `{k}` | {d} |" for k, d in self.keys)
        with Vertical(id="help-box"):
            yield Static("Keys", classes="screen-title")
            yield Markdown("| Key | Action |\n|---|---|\n" + rows + "\n\nEvery action is also in the command "
                           "palette (ctrl+p). Rebind keys in `[keymap]` of the config file.")
            yield Static("escape: close", classes="hint")


class SnoozeScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, reminder: ReminderView) -> None:
        super().__init__()
        self.reminder = reminder

    def compose(self) -> ComposeResult:
        with Vertical(id="snooze-box"):
            yield Static(f"Snooze: {self.reminder.content}", classes="screen-title", markup=False)
            yield Input(placeholder="when? e.g. tomorrow at 9am, in 2 hours, friday 10am", id="snooze-when")
            yield Static("enter: snooze · escape: cancel", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)


class DetailScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="detail-box"):
            yield Static("Reminder", classes="screen-title")
            yield Static(self.text, markup=False)
            yield Static("escape: close", classes="hint")
