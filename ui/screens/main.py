"""The main screen: the chat pane, the reminder panel (a one-line bar under 90 columns), the status bar
and the footer, with the due watcher and the idle jobs. It lays them out and routes their messages;
each pane owns its own state and work."""
from __future__ import annotations

import time
from typing import ClassVar

from textual import events, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import TextArea

from assistant.input_history import InputHistory
from assistant.service import AssistantService
from assistant.views import MessageView, ReminderView
from ui import actions
from ui.due_watcher import DueWatcher, launch_text
from ui.failures import ReportsFailures
from ui.jobs import IdleJobs
from ui.text import one_line, visible
from ui.widgets.chat import ChatPane
from ui.widgets.footer import KeyFooter, StatusBar
from ui.widgets.reminders import ReminderBar, ReminderPanel

NARROW = 90  # columns: below this the sidebar folds into a one-line bar
TOASTS_AT_ONCE = 3  # due reminders shown as toasts; the rest are counted in one more


class MainScreen(ReportsFailures, Screen):
    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("main")

    def __init__(self, service: AssistantService, history: InputHistory, keymap: dict[str, str]) -> None:
        super().__init__()
        self.service = service
        self.keymap = keymap
        self.chat = ChatPane(service, history, keymap, id="chat-pane")
        self.sidebar = ReminderPanel(service, keymap, id="sidebar")
        self.bar = ReminderBar("", id="reminder-bar", markup=False)
        self.status = StatusBar("starting…", id="status", markup=False)
        self.footer = KeyFooter()
        self.due_watcher = DueWatcher(service)
        self.jobs = IdleJobs(service, idle_for=self.idle_for, busy=lambda: self.chat.busy)
        self.narrow = False
        self.sidebar_open = True  # wide terminals: the user's choice (ctrl+b)
        self.bar_expanded = False  # narrow terminals: the one-line bar opened into the full list
        self._info: dict[str, object] = {}
        self._consolidation = "idle"
        self._last_input = time.monotonic()
        self._text_at_change = ""  # the message box's text when a reminder last changed here
        self._warming = False  # the embedding model is loading or loaded

    @property
    def composer(self):
        return self.chat.composer

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

    def on_mount(self) -> None:
        self.composer.focus()
        self.apply_layout(self.app.size.width)
        # The jobs start once the first frame is on the terminal (the app's Ready: start_jobs), not
        # after the first refresh: threads started then hold the interpreter lock while they open the
        # store and import the model client, and the frame waited for them (2.2 s against 1.0 s).
        self.set_interval(60, self.refresh_reminders, name="reminder-refresh")

    def start_jobs(self) -> None:
        self._place_toasts()
        self.load_start()
        self.refresh_reminders()
        self.connect()
        self.due_watcher.announce()

    def idle_for(self) -> float:
        """Seconds since the last key (read by the idle jobs' workers; written on the event loop)."""
        return time.monotonic() - self._last_input

    def on_key(self, event: events.Key) -> None:
        self._last_input = time.monotonic()
        self.warm_up()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # The message box stops the keys it types (on_key above never sees them): typing is input too.
        self._last_input = time.monotonic()
        self.warm_up()
        self.call_after_refresh(self._place_toasts)  # the message box grows with its text

    def warm_up(self) -> None:
        """At the first key or text typed, load the embedding model in a worker while the message is typed
        (0.3-0.5 s; ~90 MB resident): an app opened to glance at the reminders never holds it, and the
        first turn finds it loaded (a turn sent before it is, waits for the same load)."""
        if not self._warming:
            self._warming = True
            self._load_embedder()

    @work(thread=True, exclusive=True, group="warm-up", exit_on_error=False, description="load the embedding model")
    def _load_embedder(self) -> None:
        self.service.warm_up()

    def on_resize(self, event: events.Resize) -> None:
        self.apply_layout(event.size.width)
        self.call_after_refresh(self._place_toasts)

    def _place_toasts(self) -> None:
        """Toasts stand above the message box (at the bottom, Textual's rack covers it while one types),
        over the chat column."""
        from textual.widgets._toast import ToastRack

        box = self.composer.region
        if not box.height:  # the reminder list fills a narrow screen: above the status bar and footer
            box = Region(0, self.size.height - 2, self.size.width, 0)
        # Over the chat column: beside it, the sidebar's highlighted reminder would be hidden.
        margin = (0, 0, max(1, self.size.height - box.y), 0)
        for rack in self.query(ToastRack):
            if tuple(rack.styles.margin) != margin:
                rack.styles.margin = margin
            if rack.styles.width is None or rack.styles.width.value != box.right:
                rack.styles.width = box.right

    def apply_layout(self, width: int) -> None:
        """Wide: chat and sidebar side by side. Narrow: a one-line bar that ctrl+b opens into the list."""
        self.narrow = width < NARROW
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
        self.call_after_refresh(self._place_toasts)
        focused = self.focused
        if focused is not None and not all(getattr(n, "display", True) for n in focused.ancestors_with_self):
            self.composer.focus()  # never leave the keyboard in a hidden widget

    # -- start-up -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="connect", exit_on_error=False, description="choose the chat model")
    def connect(self) -> None:
        self.service.connect()
        self.app.call_from_thread(self.show_model)

    def show_model(self) -> None:
        self.update_status()
        self.chat.show_model()

    @work(thread=True, exclusive=True, group="start", exit_on_error=False, description="show the first screen")
    def load_start(self) -> None:
        first = self.service.is_first_run()
        messages = [] if first else self.service.current_messages()
        self.app.call_from_thread(self.chat.show_start, first, messages)

    # -- reminders and status -------------------------------------------------------------------

    def refresh_reminders(self) -> None:
        """Reload the panel, the status (memory count) and the due timer."""
        self.sidebar.refresh_reminders()
        self.refresh_status()
        self.due_watcher.reschedule()

    def on_reminder_panel_loaded(self, event: ReminderPanel.Loaded) -> None:
        self.bar.show(event.page, actions.key_for("toggle-sidebar", self.keymap))

    def on_reminder_panel_changed(self, event: ReminderPanel.Changed) -> None:
        self._text_at_change = self.composer.text
        self.due_watcher.reschedule()
        self.refresh_status()

    def on_chat_pane_turn_finished(self, event: ChatPane.TurnFinished) -> None:
        if "reminders" in event.changed:
            self._text_at_change = self.composer.text
        self.refresh_reminders()

    def on_due_watcher_store_changed(self, event: DueWatcher.StoreChanged) -> None:
        self.refresh_reminders()

    def on_due_watcher_due(self, event: DueWatcher.Due) -> None:
        notice = event.notice
        self.chat.add_due_reminders(notice)
        if notice.at_launch:
            self.app.notify(launch_text(notice), title="Reminders due", severity="warning", timeout=20, markup=False)
        else:
            # Once the due second has passed the sidebar says "overdue", not at its next minute.
            self.set_timer(1.5, self.sidebar.refresh_reminders, name="reminder-after-due")
            shown = list(reversed(notice.items[:TOASTS_AT_ONCE]))  # in due order
            for r in shown:
                self.app.notify(f"{one_line(r.content, 120)} (due {r.when})", title="Reminder", severity="warning",
                                timeout=12, markup=False)  # the chat keeps a line of it
            if notice.total > len(shown):
                self.app.notify(f"and {notice.total - len(shown):,} more reminders are due now.", title="Reminder",
                                severity="warning", timeout=30, markup=False)
            if self.service.runtime.settings.ui.desktop_notifications:
                self._desktop(shown)
        self.app.bell()
        self.refresh_reminders()

    @work(thread=True, group="desktop-notify", exit_on_error=False, description="send a desktop notification")
    def _desktop(self, items: list[ReminderView]) -> None:
        from ui.desktop import notify_desktop

        for r in items[:TOASTS_AT_ONCE]:  # claimed in the store first: one per occurrence, with `assistant notify` or not
            self.service.notify_desktop(r, notify_desktop)

    @work(thread=True, exclusive=True, group="status", exit_on_error=False, description="read the status")
    def refresh_status(self) -> None:
        info = self.service.status()
        self.app.call_from_thread(self._show_status, info)

    def _show_status(self, info: dict[str, object]) -> None:
        self._info = info
        self.update_status()

    def on_idle_jobs_progress(self, event: IdleJobs.Progress) -> None:
        self._consolidation = event.state
        self.update_status()

    def on_idle_jobs_finished(self, event: IdleJobs.Finished) -> None:
        if event.error is not None:
            self.app.notify(f"Consolidation failed: {event.error}", severity="error", markup=False)
        else:
            result = event.result or {}
            for message in result.get("messages", []):
                self.app.notify(message, severity="warning", timeout=8, markup=False)
            self.app.notify(f"Consolidated {result.get('memories_processed', 0)} memories: "
                            f"{result.get('summaries_created', 0)} summaries, "
                            f"{result.get('supersessions_detected', 0)} supersessions.", timeout=6, markup=False)
        self.refresh_reminders()

    def update_status(self) -> None:
        info = self._info
        last = info.get("last_consolidation")
        consolidation = self._consolidation if self._consolidation != "idle" or not last else f"last run {last}"
        count = int(info.get("memories", 0) or 0)  # type: ignore[call-overload]
        parts = [self.service.provider_label, f"{count} {'memory' if count == 1 else 'memories'}",
                 f"consolidation: {consolidation}"]
        if info.get("frozen"):
            parts.insert(0, f"⏸ {info['frozen']}")
        self.status.update(" " + "  ·  ".join(parts))

    # -- conversations ----------------------------------------------------------------------------

    def continue_conversation(self, episode_id: int) -> None:
        if self.chat.busy:
            self.app.notify("Still answering; continue that conversation once the answer is in.", severity="warning")
            return
        self._continue(episode_id)

    @work(thread=True, exclusive=True, group="continue", exit_on_error=False, description="continue a conversation")
    def _continue(self, episode_id: int) -> None:
        messages = self.service.continue_conversation(episode_id)
        self.app.call_from_thread(self._continued, messages)

    async def _continued(self, messages: list[MessageView]) -> None:
        await self.chat.show_transcript(messages)
        self.composer.focus()
        self.app.notify("Continuing this conversation: your next message goes on from here.", timeout=4)

    def action_new_conversation(self) -> None:
        if self.chat.busy:
            self.app.notify("Still answering; start a new conversation once the answer is in.", severity="warning")
            return
        self._new_conversation()

    @work(thread=True, exclusive=True, group="new-conversation", exit_on_error=False,
          description="close the conversation")
    def _new_conversation(self) -> None:
        episode = self.service.new_conversation()
        self.app.call_from_thread(self._cleared, episode)

    async def _cleared(self, episode) -> None:
        await self.chat.clear()
        if episode is not None:
            self.app.notify(f"Saved “{episode.title}”. New conversation.", timeout=4, markup=False)

    # -- keys ------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Under a dialog the main screen's keys neither act nor show in its footer.
        return self.app.screen is self

    def action_focus_composer(self) -> None:
        if self.narrow and self.bar_expanded:
            self.bar_expanded = False
            self.apply_layout(self.app.size.width)
        self.composer.focus()

    def action_chat_page_up(self) -> None:
        self.chat.scrolled.scroll_page_up(animate=False)

    def action_chat_page_down(self) -> None:
        self.chat.scrolled.scroll_page_down(animate=False)

    def action_chat_top(self) -> None:
        self.chat.scrolled.scroll_home(animate=False)

    def action_chat_bottom(self) -> None:
        if self.chat.scrolled is self.chat.chat_log:
            self.chat.chat_log.pin()
        else:
            self.chat.scrolled.scroll_end(animate=False)

    def action_copy_last_answer(self) -> None:
        answer = self.chat.last_answer
        if not answer:
            self.app.notify("No answer to copy yet.", timeout=3)
            return
        self.app.copy_to_clipboard(visible(answer))  # pasted into a shell, escapes must not act
        self.app.notify(f"Copied the last answer ({len(answer)} characters).", timeout=3)

    def action_toggle_sidebar(self) -> None:
        if self.narrow:
            self.bar_expanded = not self.bar_expanded
            self.apply_layout(self.app.size.width)
            if self.bar_expanded:
                self.sidebar.focus_first()  # the most urgent reminder, never an old highlight
            else:
                self.composer.focus()
            return
        self.sidebar_open = not self.sidebar_open
        self.apply_layout(self.app.size.width)

    def action_focus_reminders(self) -> None:
        if self.narrow:
            self.bar_expanded = True
        else:
            self.sidebar_open = True
        self.apply_layout(self.app.size.width)
        self.sidebar.focus_first()

    def action_undo(self) -> None:
        """ctrl+z undoes the last reminder change recorded in the store (made in the list, a dialog, the
        chat or another process), from anywhere; in the message box only while it holds no text of its
        own (empty, or as it was at the last reminder change): text being edited keeps its own undo."""
        composer = self.composer
        if composer.has_focus and composer.text and composer.text != self._text_at_change:
            raise SkipAction()
        self.sidebar.undo()
