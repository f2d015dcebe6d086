"""The Textual app: chat, reminder sidebar, recap, help. It shows things and forwards intent to the
assistant Session; SQLite and embedding work runs in thread workers, the model in an async worker."""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from datetime import datetime

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, ListView, Markdown

from assistant.events import Done, Failed, Notice, TextDelta, ToolCall, ToolResult
from assistant.runtime import Runtime
from assistant.session import Session
from memory.errors import InvalidInput
from ui.screens import DetailScreen, HelpScreen, RecapScreen, SnoozeScreen
from ui.widgets import AnswerView, ChatLog, Composer, ReminderSidebar, StatusBar, ToolLine, UserMessage

NARRATIVE_REQUEST = "Give me a short narrative recap of what we talked about in the last 48 hours."


class AssistantApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "assistant"
    BINDINGS = [
        Binding("ctrl+r", "recap", "Recap", id="recap"),
        Binding("ctrl+n", "new_conversation", "New chat", id="new-conversation"),
        Binding("ctrl+b", "toggle_sidebar", "Reminders", id="toggle-sidebar"),
        Binding("ctrl+l", "focus_reminders", "Pick reminder", id="focus-reminders"),
        Binding("ctrl+k", "consolidate", "Consolidate", id="consolidate"),
        Binding("f1", "help", "Help", id="help"),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
    ]
    ACTIONS = {
        "recap": "Show the recap of the last 48 hours",
        "new_conversation": "Close this conversation and start a new one",
        "toggle_sidebar": "Show or hide the reminder sidebar",
        "focus_reminders": "Move to the reminder list (d: done, s: snooze, enter: details)",
        "consolidate": "Consolidate memories now",
        "help": "List every key",
        "quit": "Quit (closes the conversation)",
    }

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.runtime: Runtime = session.runtime
        self._last_check: datetime | None = None
        self._busy = False
        self._consolidation = "idle"
        self._thread = threading.get_ident()
        self.runtime.notice = self.notice_from_anywhere
        if self.runtime.settings.keymap:
            self.set_keymap(self.runtime.settings.keymap)

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="chat-column"):
                yield ChatLog(id="chat")
                yield Composer(id="composer")
            yield ReminderSidebar(id="sidebar")
        yield StatusBar("starting…", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Composer).focus()
        self.refresh_reminders()
        self.connect()
        self.set_interval(60, self.refresh_reminders, name="reminder-refresh")
        self.set_interval(60, self.maybe_consolidate, name="idle-consolidation")
        self._last_input = self.runtime.clock.now()

    def on_key(self) -> None:
        self._last_input = datetime.now(self._last_input.tzinfo)

    @work(thread=True, exclusive=True, group="idle-check", exit_on_error=False, description="idle check")
    def maybe_consolidate(self) -> None:
        """Consolidate in the background when idle long enough or many memories are new (F6 triggers)."""
        idle = (datetime.now(self._last_input.tzinfo) - self._last_input).total_seconds() / 60
        if self._consolidation == "idle" and not self._busy and self.session.consolidation_due(idle):
            self.call_from_thread(self.consolidate)

    def notice_from_anywhere(self, text: str) -> None:
        if threading.get_ident() == self._thread:
            self.notify(text, severity="warning")
        else:
            self.call_from_thread(self.notify, text, severity="warning")

    # -- background work --------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="connect", exit_on_error=False, description="choose the chat model")
    def connect(self) -> None:
        self.session.connect()
        self.call_from_thread(self.update_status)
        self.session.warm_up()  # load the embedder in the background, after the first frame

    @work(thread=True, exclusive=True, group="reminders", exit_on_error=False, description="load reminders")
    def refresh_reminders(self) -> None:
        items = self.session.sidebar_reminders()
        info = self.session.status()
        now = self.runtime.clock.now()
        fresh = []
        if self._last_check is not None:
            fresh = [r for r in items if r.status == "overdue" and self._last_check < datetime.fromisoformat(r.due_at) <= now]
        self._last_check = now
        self.call_from_thread(self._show_reminders, items, fresh, info)

    def _show_reminders(self, items, fresh, info) -> None:
        self.query_one(ReminderSidebar).show(items)
        self._info = info
        self.update_status()
        for r in fresh:
            self.notify(f"{r.content} ({r.when})", title="Reminder due", severity="warning", timeout=30)
            self.bell()

    def update_status(self) -> None:
        info = getattr(self, "_info", {}) or {}
        last = info.get("last_consolidation")
        consolidation = self._consolidation if self._consolidation != "idle" or not last else f"last run {last}"
        self.query_one(StatusBar).update(
            f" {self.session.provider_label}  ·  {_count(info.get('memories', 0), 'memory', 'memories')}"
            f"  ·  consolidation: {consolidation}")

    # -- chat -------------------------------------------------------------------------------

    @on(Composer.Submitted)
    def send(self, event: Composer.Submitted) -> None:
        if self._busy:
            self.notify("Still answering the last message; yours is kept in the input history (up).",
                        severity="warning")
            return
        self.run_turn(event.text)

    @work(exclusive=True, group="turn", exit_on_error=False, description="answer a message")
    async def run_turn(self, text: str) -> None:
        self._busy = True
        chat = self.query_one(ChatLog)
        await chat.mount(UserMessage(text))
        answer: AnswerView | None = None
        stream = None
        parts: list[str] = []

        async def finish() -> None:
            nonlocal answer, stream, parts
            if stream is not None:
                await stream.stop()
                await answer.update("".join(parts))
            answer, stream, parts = None, None, []

        try:
            async for event in self.session.turn(text):
                if isinstance(event, TextDelta):
                    if answer is None:
                        answer = AnswerView()
                        await chat.mount(answer)
                        stream = Markdown.get_stream(answer)
                    parts.append(event.text)
                    await stream.write(event.text)
                    chat.scroll_end(animate=False)
                elif isinstance(event, ToolCall):
                    await finish()
                elif isinstance(event, ToolResult):
                    await chat.mount(ToolLine(event.summary or event.name, error=event.is_error))
                elif isinstance(event, Notice):
                    self.notify(event.text, severity="warning")
                elif isinstance(event, Failed):
                    await finish()
                    await chat.mount(ToolLine(event.text, error=True))
                    self.notify(event.text, title="Model error", severity="error", timeout=10)
                elif isinstance(event, Done) and event.changed:
                    self.refresh_reminders()
        except Exception as exc:  # noqa: BLE001 - keep the app alive; the message is already stored
            self.notify(f"Something went wrong: {exc}. Your message is saved.", severity="error")
        finally:
            await finish()
            chat.scroll_end(animate=False)
            self._busy = False
            self.refresh_reminders()

    # -- actions ----------------------------------------------------------------------------

    def action_recap(self) -> None:
        self._open_recap()

    @work(thread=True, exclusive=True, group="recap", exit_on_error=False, description="build the recap")
    def _open_recap(self) -> None:
        data = self.session.recap()
        self.call_from_thread(self.push_screen, RecapScreen(data, self.session.has_model), self._after_recap)

    def _after_recap(self, result: str | None) -> None:
        if result == "narrative":
            self.run_turn(NARRATIVE_REQUEST)

    async def action_new_conversation(self) -> None:
        episode = await asyncio.to_thread(self.session.new_conversation)
        await self.query_one(ChatLog).remove_children()
        if episode is not None:
            self.notify(f"Saved “{episode.title}”. New conversation.", timeout=4)

    def action_toggle_sidebar(self) -> None:
        sidebar = self.query_one(ReminderSidebar)
        sidebar.display = not sidebar.display

    def action_focus_reminders(self) -> None:
        sidebar = self.query_one(ReminderSidebar)
        sidebar.display = True
        self.query_one("#reminder-list", ListView).focus()

    def action_help(self) -> None:
        keys = []
        for binding in [*self.BINDINGS, *ReminderSidebar.BINDINGS]:
            action = binding.action.removeprefix("app.")
            keys.append((self._keymap_key(binding), self.ACTIONS.get(action, binding.description)))
        keys += [("enter", "Send the message / open the selected reminder"), ("up / down", "Input history"),
                 ("ctrl+p", "Command palette"), ("escape", "Close a screen")]
        self.push_screen(HelpScreen(keys))

    def _keymap_key(self, binding: Binding) -> str:
        return (self.runtime.settings.keymap or {}).get(binding.id or "", binding.key)

    def action_reminder_done(self) -> None:
        reminder = self.query_one(ReminderSidebar).selected
        if reminder is not None:
            self._reminder_change(reminder.id, None)

    def action_reminder_snooze(self) -> None:
        reminder = self.query_one(ReminderSidebar).selected
        if reminder is None:
            return

        def snooze(when: str | None) -> None:
            if when:
                self._reminder_change(reminder.id, when)

        self.push_screen(SnoozeScreen(reminder), snooze)

    @work(thread=True, group="reminder-change", exit_on_error=False, description="change a reminder")
    def _reminder_change(self, memory_id: int, snooze_when: str | None) -> None:
        try:
            if snooze_when is None:
                memory = self.session.mark_done(memory_id)
                text = f"Done: {memory.content}"
            else:
                memory = self.session.snooze(memory_id, snooze_when)
                text = f"Snoozed to {self.runtime.clock.short(memory.due_at)}: {memory.content}"
        except InvalidInput as exc:
            self.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.call_from_thread(self.notify, text, timeout=4)
        self.refresh_reminders()

    @on(ListView.Selected, "#reminder-list")
    def open_reminder(self, event: ListView.Selected) -> None:
        reminder = getattr(event.item, "reminder", None)
        if reminder is not None:
            self._show_reminder(reminder)

    @work(thread=True, group="reminder-detail", exit_on_error=False, description="load a reminder")
    def _show_reminder(self, reminder) -> None:
        try:
            memory = self.session.reminder_detail(reminder.id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.call_from_thread(self.notify, str(exc), severity="warning")
            return
        text = (f"#{memory.id} {memory.content}\n\nDue: {reminder.when} ({reminder.relative})\nKind: {memory.kind}"
                f"\nImportance: {memory.importance}\nCreated: {self.runtime.clock.short(memory.created_at)}"
                "\n\nd: done · s: snooze (in the list)")
        self.call_from_thread(self.push_screen, DetailScreen(text))

    def action_consolidate(self) -> None:
        self.consolidate()

    @work(thread=True, exclusive=True, group="consolidate", exit_on_error=False, description="consolidate")
    def consolidate(self) -> None:
        def progress(done: int, total: int, phase: str) -> None:
            self._consolidation = f"consolidating {done}/{total} ({phase})"
            self.call_from_thread(self.update_status)

        self._consolidation = "consolidating…"
        self.call_from_thread(self.update_status)
        try:
            result = self.session.consolidate(progress)
            note = (f"Consolidated {result.get('memories_processed', 0)} memories: "
                    f"{result.get('summaries_created', 0)} summaries, {result.get('supersessions_detected', 0)} "
                    "supersessions.")
            for message in result.get("messages", []):
                self.call_from_thread(self.notify, message, severity="warning", timeout=8)
            self.call_from_thread(self.notify, note, timeout=6)
        except Exception as exc:  # noqa: BLE001 - a failed run must not take the app down
            self.call_from_thread(self.notify, f"Consolidation failed: {exc}", severity="error")
        finally:
            self._consolidation = "idle"
            self.refresh_reminders()

    async def action_quit(self) -> None:
        # Let an answer in progress finish (and be stored) before the conversation is closed.
        turns = [w for w in self.workers if w.group == "turn" and not w.is_finished]
        if turns:
            self.notify("Finishing the current answer…", timeout=3)
            try:
                await asyncio.wait_for(asyncio.gather(*(w.wait() for w in turns), return_exceptions=True), 15)
            except TimeoutError:
                pass
        try:
            await asyncio.to_thread(self.session.new_conversation)
        finally:
            self.exit(0)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for action, help_text in self.ACTIONS.items():
            yield SystemCommand(help_text.split(" (")[0], help_text, getattr(self, f"action_{action}"))


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def run_app(runtime: Runtime) -> int:
    app = AssistantApp(Session(runtime))
    app.run()
    return app.return_code or 0
