"""The main screen: the chat pane, the reminder panel (a one-line bar under 90 columns), the status bar
and the footer, with the due watcher and the idle jobs. It lays them out and routes their messages and
the main keys; each pane owns its own state and work (ui/widgets/, ui/due_watcher.py, ui/jobs.py), the
toasts their place (ui/toasts.py)."""
from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import TextArea

from assistant.input_history import InputHistory
from assistant.services import Services
from ui import actions
from ui.calendar_sync import CalendarSync
from ui.due_watcher import DueWatcher
from ui.failures import ReportsFailures
from ui.jobs import IdleJobs
from ui.messages import StatusNews, StoreChanged
from ui.toasts import place_toasts
from ui.widgets.chat import ChatPane
from ui.widgets.footer import KeyFooter
from ui.widgets.reminders import ReminderBar, ReminderPanel
from ui.widgets.status import StatusBar

NARROW = 90  # columns: below this the sidebar folds into a one-line bar
REFRESH_SECONDS = 60  # the reminders' "in 2 h" and the status are read again this often


class MainScreen(ReportsFailures, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("main")
    AUTO_FOCUS = "#composer"

    def __init__(self, services: Services, history: InputHistory, keymap: dict[str, str],
                 desktop_notifications: bool = False) -> None:
        super().__init__()
        self.keymap = keymap
        self.chat = ChatPane(services.model, services.conversations, services.incognito, services.briefing, history,
                             keymap, id="chat-pane")
        self.composer = self.chat.composer
        self.sidebar = ReminderPanel(services.reminders, services.changes, keymap, id="sidebar")
        self.bar = ReminderBar("", id="reminder-bar", markup=False)
        self.status = StatusBar(services.status, services.incognito, id="status", keymap=keymap)
        self.footer = KeyFooter()
        self.due_watcher = DueWatcher(services.due, desktop_notifications)
        self.jobs = IdleJobs(services.consolidation, services.embeddings, services.conversations)
        self.calendar = CalendarSync(services.calendar)
        self.narrow = False
        self.sidebar_open = True  # wide terminals: the user's choice (ctrl+b)
        self.bar_expanded = False  # narrow terminals: the one-line bar opened into the full list

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="chat-column"):
                yield self.bar
                yield self.chat
            yield self.sidebar
        yield self.status
        yield self.footer
        yield self.due_watcher
        yield self.jobs
        yield self.calendar

    def on_mount(self) -> None:
        self.apply_layout()
        # The jobs start once the first frame is on the terminal (the app's Ready: start_jobs), not
        # after the first refresh: threads started then hold the interpreter lock while they open the
        # store and import the model client, and the frame waited for them (2.2 s against 1.0 s).
        self.set_interval(REFRESH_SECONDS, self.refresh_reminders, name="reminder-refresh")
        # Toasts come and go with no event of their own: each layout of the screen (one follows each) tells.
        self.screen_layout_refresh_signal.subscribe(self, lambda screen: self.place_toasts())

    def start_jobs(self) -> None:
        self.call_after_refresh(self.place_toasts)
        self.chat.load_start()
        self.refresh_reminders()
        self.chat.connect()
        self.due_watcher.announce()
        self.chat.show_briefing(launch=True)
        self.calendar.start()

    def place_toasts(self) -> None:
        """Toasts at the foot of the chat, above what stands under it, and the chat's room for them."""
        place_toasts(self, self.chat.chat_log, self.chat.under_the_chat)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Under a dialog the main screen's keys neither act nor show in its footer.
        return self.app.screen is self

    # -- layout ------------------------------------------------------------------------------------

    @on(events.Resize)
    def apply_layout(self) -> None:
        """Wide: chat and sidebar side by side. Narrow: a one-line bar that ctrl+b opens into the list."""
        self.narrow = self.app.size.width < NARROW
        column = self.query_one("#chat-column")
        if self.narrow:
            self.bar.display = not self.bar_expanded
            self.sidebar.display = self.bar_expanded
            column.display = not self.bar_expanded
            self.sidebar.set_class(True, "-full")
        else:
            self.bar.display = False
            column.display = True
            self.sidebar.display = self.sidebar_open
            self.sidebar.set_class(False, "-full")
        self.footer.narrow = self.narrow
        self.call_after_refresh(self.place_toasts)
        focused = self.focused
        if focused is not None and not all(n.display for n in focused.ancestors_with_self):
            self.composer.focus()  # never leave the keyboard in a hidden widget

    # -- routing -----------------------------------------------------------------------------------

    @on(TextArea.Changed)
    def input_seen(self) -> None:
        # Keys are seen by the app, on every screen (AssistantApp.on_event); a paste into the message box is
        # input too, and the box grows with its text.
        self.jobs.input_seen()
        self.call_after_refresh(self.place_toasts)

    @on(StoreChanged)
    def refresh_reminders(self, event: StoreChanged | None = None) -> None:
        """Read again what shows the store: the panel (and bar), the status, the due timer."""
        if event is not None and event.by_user:
            self.composer.reminder_changed()
        if event is not None:
            self.jobs.embed_after_turn()  # what the turn (or a change) wrote, embedded while it is read
        self.sidebar.refresh_reminders()
        self.status.reload()
        self.due_watcher.reschedule()

    def on_reminder_panel_loaded(self, event: ReminderPanel.Loaded) -> None:
        self.bar.show(event.page, actions.key_for("toggle-sidebar", self.keymap))

    def on_due_watcher_due(self, event: DueWatcher.Due) -> None:
        self.chat.add_due_reminders(event.notice)
        if not event.at_launch:
            self.sidebar.fell_due()
        self.refresh_reminders()

    def on_idle_jobs_server_used(self, event: IdleJobs.ServerUsed) -> None:
        if not self.chat.busy:
            self.chat.warm_server()

    def on_status_news(self, event: StatusNews) -> None:
        self.status.news(event)

    def on_calendar_sync_news(self, event: CalendarSync.News) -> None:
        self.status.calendar = event.status
        if event.notice:
            self.app.notify(event.notice, title="Calendar", severity="warning", timeout=10, markup=False)

    # -- keys ----------------------------------------------------------------------------------------

    async def action_focus_composer(self, typed: str = "") -> None:
        """Back to the message box (with what was typed elsewhere meanwhile); an answer being written
        stops (its request too; the message is kept), and the briefing card goes."""
        self.chat.stop_turn()
        await self.chat.dismiss_briefing()
        if self.narrow and self.bar_expanded:
            self.bar_expanded = False
            self.apply_layout()
        self.composer.focus()
        if typed:
            self.composer.insert(typed)

    def action_toggle_sidebar(self) -> None:
        if self.narrow:
            self.bar_expanded = not self.bar_expanded
            self.apply_layout()
            if self.bar_expanded:
                self.sidebar.focus_first()  # the most urgent reminder, never an old highlight
            else:
                self.composer.focus()
            return
        self.sidebar_open = not self.sidebar_open
        self.apply_layout()

    def action_focus_reminders(self) -> None:
        if self.narrow:
            self.bar_expanded = True
        else:
            self.sidebar_open = True
        self.apply_layout()
        self.sidebar.focus_first()

    def action_chat_scroll(self, how: str) -> None:
        self.chat.scroll(how)

    def action_new_conversation(self) -> None:
        self.chat.new_conversation()

    def action_copy_last_answer(self) -> None:
        self.chat.copy_last_answer()

    def action_undo(self) -> None:
        """ctrl+z undoes the last change to a reminder or a memory recorded in the store (made in the
        list, a dialog, the chat, Memories or another process), from anywhere; the message box keeps
        it for its own text (Composer)."""
        self.sidebar.undo()
