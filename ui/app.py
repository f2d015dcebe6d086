"""The Textual app: chat, reminder sidebar, recap, conversations, help. It shows things and forwards
intent to the assistant AssistantService; SQLite and embedding work runs in thread workers, the model in an
async worker, and nothing here runs SQL or calls a model SDK.

Keys, footer, palette and help all come from the one table in ui/actions.py.
"""
from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, ClassVar

from textual import events, on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import TextArea
from textual.worker import Worker, WorkerState

from assistant.errors import explain
from assistant.paths import history_file
from assistant.runtime import Runtime
from assistant.service import AssistantService
from assistant.settings import SettingsError, save_setting
from assistant.turn.events import Done, Failed, Notice, TextDelta, ToolCall, ToolResult
from assistant.views import MessageView, ReminderChange, ReminderView
from memory.errors import InvalidInput, StoreUnusable
from ui import actions
from ui.history import InputHistory
from ui.screens import ConversationScreen, ConversationsScreen, DetailScreen, HelpScreen, RecapScreen, SnoozeScreen
from ui.text import one_line, visible
from ui.widgets import (
    ChatLog,
    Composer,
    KeyFooter,
    PlainAnswer,
    ReminderBar,
    ReminderList,
    ReminderSidebar,
    StatusBar,
    ToolLine,
    UserMessage,
    Welcome,
    answer_view,
)

NARRATIVE_REQUEST = "Give me a short narrative recap of what we talked about in the last 48 hours."
NARROW = 90  # columns: below this the sidebar folds into a one-line bar
UNDO_SECONDS = 10
EMBED_IDLE_SECONDS = 10.0  # quiet this long, the app embeds texts a big import left waiting
POLL_SECONDS = 1.0  # how often the store is asked whether another process changed it
TRANSCRIPT_LIMIT = 200  # messages shown when a conversation is continued ...
# ... and at most this much text: laying out Markdown costs about a second per 5,000 characters here,
# so a conversation of long answers reopened at launch kept the app busy for 15 s.
TRANSCRIPT_CHARACTERS = 12_000
# Actions about the main screen's chat and sidebar: off (and out of the footer) on the other screens.
MAIN_SCREEN_ONLY = frozenset({"toggle_sidebar", "focus_reminders", "new_conversation", "chat_page_up",
                              "chat_page_down", "chat_top", "chat_bottom", "reminder_done", "reminder_snooze"})


class ActionCommands(Provider):
    """The command palette: one entry per row of the action table, with its real description."""

    def _entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        keymap = getattr(app, "keymap_settings", {})
        out = []
        for a in actions.palette_actions():
            key = keymap.get(a.id, a.key)
            help_text = a.description + (f"  ({key.replace(',', ' / ')})" if key else "")
            out.append((a.label, help_text, partial(app.run_action, a.action)))
        return out

    async def discover(self) -> Hits:
        for label, help_text, command in self._entries():
            yield DiscoveryHit(label, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, command in self._entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), command, help=help_text)


class AssistantApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "assistant"
    COMMANDS: ClassVar[set] = {ActionCommands}
    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("app")

    def __init__(self, session: AssistantService) -> None:
        super().__init__()
        self.session = session
        self.runtime: Runtime = session.runtime
        self.keymap_settings: dict[str, str] = dict(self.runtime.settings.keymap or {})
        self._busy = False
        self._consolidation = "idle"
        self._thread = threading.get_ident()
        self._info: dict[str, object] = {}
        self._items: list[ReminderView] = []
        self._last_answer = ""
        self._undo: ReminderChange | None = None
        self._undo_until = 0.0
        self._due_timer: Timer | None = None
        self._next_due: datetime | None = None
        self._data_version: int | None = None
        self._polling = False
        self._last_failure = ""
        self._ending = False
        self.exit_line = ""  # the one line printed when the app had to end
        self.narrow = False
        self.sidebar_open = True  # wide terminals: the user's choice (ctrl+b)
        self.bar_expanded = False  # narrow terminals: the one-line bar opened into the full list
        self.history = InputHistory(_history_path())
        self.runtime.notice = self.notice_from_anywhere
        session.defer = self.in_background
        if session.agent is not None:
            session.agent.defer = self.in_background
        if self.keymap_settings:
            self.set_keymap(self.keymap_settings)
        theme = self.runtime.settings.ui.theme
        if theme and theme in self.available_themes:
            self.theme = theme

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.history.load()
        self.chat = ChatLog(id="chat")
        self.composer = Composer(keymap=self.keymap_settings, id="composer")
        self.composer.input_history = self.history
        self.sidebar = ReminderSidebar(id="sidebar")
        self.bar = ReminderBar("", id="reminder-bar", markup=False)
        self.footer = KeyFooter()
        with Horizontal(id="main"):
            with Vertical(id="chat-column"):
                yield self.bar
                yield self.chat
                yield self.composer
            yield self.sidebar
        yield StatusBar("starting…", id="status", markup=False)
        yield self.footer

    def on_mount(self) -> None:
        self.composer.focus()
        self._apply_layout(self.size.width)
        # The jobs start once the first frame is drawn: threads started earlier hold the interpreter
        # lock while they open the store and import the model client, and the first frame waits.
        self.call_after_refresh(self._start_jobs)
        self.set_interval(60, self.refresh_reminders, name="reminder-refresh")
        self.set_interval(60, self.maybe_consolidate, name="idle-consolidation")
        self.set_interval(EMBED_IDLE_SECONDS, self.embed_while_idle, name="idle-embedding")
        self.set_interval(POLL_SECONDS, self._poll_tick, name="store-watch")
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self._last_input = time.monotonic()

    def _start_jobs(self) -> None:
        self.load_start()
        self.refresh_reminders()
        self.connect()
        self.announce_due()

    def on_key(self, event: events.Key) -> None:
        self._last_input = time.monotonic()

    def on_resize(self, event: events.Resize) -> None:
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
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
        focused = self.screen.focused if self.screen is self.main_screen else None
        if focused is not None and not all(getattr(n, "display", True) for n in focused.ancestors_with_self):
            self.composer.focus()  # never leave the keyboard in a hidden widget

    @property
    def main_screen(self):
        return self.screen_stack[0]

    def in_background(self, job: Callable[[], None]) -> None:
        """Run slow follow-up work (a model-written title) in a thread worker; callable from any thread."""
        def start() -> None:
            self.run_worker(job, thread=True, group="background", exit_on_error=False,
                            description="finish a background task")

        if threading.get_ident() == self._thread:
            start()
        else:
            self.call_from_thread(start)

    def notice_from_anywhere(self, text: str) -> None:
        if threading.get_ident() == self._thread:
            self.notify(text, severity="warning", markup=False)
        else:
            self.call_from_thread(self.notify, text, severity="warning", markup=False)

    def say(self, text: str, **kwargs) -> None:
        """A notice with stored text in it: never read as markup."""
        self.notify(text, markup=False, **kwargs)

    # -- start-up ---------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A background job that failed says so: a store that cannot be used ends the app with one
        line (nothing could be saved); anything else (bad input, a model failure) is a notice, with
        the details in the log."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        from memory.connection import DatabaseError, OperationalError

        path = str(self.runtime.settings.db_path())
        if isinstance(error, DatabaseError) and not isinstance(error, OperationalError):  # not "locked"
            error = StoreUnusable(f"the database {path} cannot be read ({error})", path, "damaged")
        if isinstance(error, StoreUnusable):  # nothing typed could be saved: the one reason to end the app
            if not self._ending:  # several jobs fail on the same store: one line
                self._ending = True
                self.exit_line = f"assistant: {one_line(explain(error), 400)}"
                self.exit(return_code=1, message=self.exit_line)
            return
        import logging

        logging.getLogger("assistant.ui").error("%s failed", event.worker.description, exc_info=error)
        text = f"Could not {event.worker.description}: {one_line(str(error)) or type(error).__name__} (details in the log)"
        if text != self._last_failure:  # a job run every second that keeps failing says it once
            self._last_failure = text
            self.say(text, severity="error", timeout=8)

    @work(thread=True, exclusive=True, group="connect", exit_on_error=False, description="choose the chat model")
    def connect(self) -> None:
        self.session.connect()
        self.call_from_thread(self.update_status)
        self.session.warm_up()  # load the embedder in the background, after the first frame

    @work(thread=True, exclusive=True, group="start", exit_on_error=False, description="show the first screen")
    def load_start(self) -> None:
        first = self.session.is_first_run()
        messages = [] if first else self.session.current_messages()
        self.call_from_thread(self._show_start, first, messages)

    async def _show_start(self, first: bool, messages: list[MessageView]) -> None:
        if first and not self.composer.text and not self.chat.children and not self.main_screen.query(Welcome):
            welcome = Welcome(self.keymap_settings)
            if self.session.agent is not None:
                welcome.set_model(self.session.provider_label, self.session.has_model)
            # In place of the chat (pinned to its last line), the welcome reads from its first.
            self.chat.display = False
            await self.query_one("#chat-column").mount(welcome, before=self.chat)
        elif messages and not self.chat.children:
            await self.show_transcript(messages)
        elif not first and not self.chat.children:
            # A returning user starts a new conversation: say where the earlier ones are.
            keys = {a: actions.key_for(a, self.keymap_settings) for a in ("conversations", "recap", "help")}
            await self.chat.mount(ToolLine(f"New conversation. {keys['conversations']}: earlier conversations · "
                                           f"{keys['recap']}: recap · {keys['help']}: keys", hint=True))

    @work(thread=True, exclusive=True, group="idle-check", exit_on_error=False, description="check whether to consolidate")
    def maybe_consolidate(self) -> None:
        """Consolidate in the background when idle long enough or many memories are new (F6 triggers)."""
        idle = (time.monotonic() - self._last_input) / 60
        if self._consolidation == "idle" and not self._busy and self.session.consolidation_due(idle):
            self.call_from_thread(self.consolidate)

    @work(thread=True, exclusive=True, group="idle-embed", exit_on_error=False, description="embed waiting texts")
    def embed_while_idle(self) -> None:
        """After a big import thousands of texts wait for their embeddings (search finds them by keywords
        meanwhile): embed them a batch at a time (about a second each) while nobody types or waits for
        an answer, and stop at the first key."""
        def idle() -> bool:
            return not self._busy and time.monotonic() - self._last_input >= EMBED_IDLE_SECONDS

        waiting = None
        while idle() and self.is_running:
            left = self.session.embed_backlog()
            if left == 0 or (waiting is not None and left >= waiting):  # done, or no progress: stop
                break
            waiting = left

    def _theme_changed(self, theme) -> None:
        """A theme picked in the palette is kept for the next launch (config key ui.theme)."""
        name = getattr(theme, "name", str(theme))
        if name == self.runtime.settings.ui.theme:
            return
        try:
            path = save_setting(self.runtime.settings, "ui", "theme", name)
        except (SettingsError, OSError) as exc:
            self.say(f"Theme not saved: {exc}", severity="warning")
            return
        self.say(f"Theme {name} saved in {path}", timeout=3)

    # -- reminders: sidebar, on-time notices, changes by other processes -------------------

    @work(thread=True, exclusive=True, group="reminders", exit_on_error=False, description="load reminders")
    def refresh_reminders(self) -> None:
        items = self.session.sidebar_reminders()
        info = self.session.status()
        # A reminder may have been added or moved (by a turn, a snooze, another process): reschedule.
        moment = self.session.announced_until
        next_due = self.session.next_due_after(moment) if moment is not None else None
        self.call_from_thread(self._show_reminders, items, info, next_due, moment is not None)

    async def _show_reminders(self, items: list[ReminderView], info: dict[str, object], next_due: datetime | None,
                              known: bool) -> None:
        self._items = items
        self._info = info
        if known:
            self._schedule(next_due)
        await self.sidebar.show(items)
        self.bar.show(items, actions.key_for("toggle-sidebar", self.keymap_settings))
        self.update_status()

    def _poll_tick(self) -> None:
        if not self._polling:
            self._polling = True
            self.watch_store()

    @work(thread=True, group="store-watch", exit_on_error=False, description="check the store for changes")
    def watch_store(self) -> None:
        """Each second: did another process commit (PRAGMA data_version), or has the next due instant
        passed on the clock (a frozen clock moved by a test, a machine back from sleep)?"""
        try:
            version = self.session.data_version()
            changed = self._data_version is not None and version != self._data_version
            self._data_version = version
            due = self._next_due is not None and self.runtime.clock.now() >= self._next_due
            if changed:
                self.call_from_thread(self.refresh_reminders)
            if changed or due:
                self._announce_now()
        finally:
            self._polling = False

    @work(thread=True, exclusive=True, group="announce", exit_on_error=False, description="announce reminders")
    def announce_due(self) -> None:
        self._announce_now()

    def _announce_now(self) -> None:
        """In a worker thread: announce what fell due since the last announcement, schedule the next."""
        if self._data_version is None:
            self._data_version = self.session.data_version()  # the baseline of the change watch
        items, at_launch = self.session.take_due_reminders()
        moment = self.session.announced_until
        next_due = self.session.next_due_after(moment) if moment is not None else None
        self.call_from_thread(self._after_announce, items, at_launch, next_due)

    def _after_announce(self, items: list[ReminderView], at_launch: bool, next_due: datetime | None) -> None:
        self._schedule(next_due)
        if not items:
            return
        # A toast goes away; a line in the chat stays, for whoever was away from the keyboard.
        when = "fell due while the app was closed" if at_launch else "is due"
        self.chat.mount_all([ToolLine(f"⏰ {one_line(r.content, 120)} {when} ({r.when})", reminder=True)
                             for r in items[:10]])
        if at_launch:
            names = "; ".join(f"{one_line(r.content, 50)} ({r.when})" for r in items[:5])
            more = f"; and {len(items) - 5} more" if len(items) > 5 else ""
            self.say(f"While the app was closed, {len(items)} reminder{'s' if len(items) != 1 else ''} "
                     f"fell due: {names}{more}.", title="Reminders due", severity="warning", timeout=20)
        else:
            # Once the due second has passed the sidebar says "overdue", not at its next minute.
            self.set_timer(1.5, self.refresh_reminders, name="reminder-after-due")
            for r in items[:3]:
                self.say(f"{one_line(r.content, 120)} (due {r.when})", title="Reminder", severity="warning",
                         timeout=12)  # the chat keeps a line of it
            if len(items) > 3:
                self.say(f"and {len(items) - 3} more reminders are due now.", title="Reminder", severity="warning",
                         timeout=30)
            if self.runtime.settings.ui.desktop_notifications:
                self._desktop(items)
        self.bell()
        self.refresh_reminders()

    @work(thread=True, group="desktop-notify", exit_on_error=False, description="send a desktop notification")
    def _desktop(self, items: list[ReminderView]) -> None:
        from ui.desktop import notify_desktop

        for r in items[:3]:  # claimed in the store first: one per occurrence, with `assistant notify` or not
            self.session.notify_desktop(r, notify_desktop)

    def _schedule(self, next_due: datetime | None) -> None:
        """One timer for the next due instant (not a poll each minute), so a notice comes on time."""
        if self._due_timer is not None:
            self._due_timer.stop()
            self._due_timer = None
        self._next_due = next_due
        if next_due is None:
            return
        # The app's clock has whole seconds (stored instants do too): measure the wait with the real
        # time when the clock runs, or the notice comes up to a second late. A hair late rather than
        # early, since early means a second round.
        clock = self.runtime.clock
        now = clock.now() if clock.fixed else datetime.now(UTC)
        delay = max(0.0, (next_due - now).total_seconds()) + 0.05
        self._due_timer = self.set_timer(min(delay, 86_400), self.announce_due, name="reminder-due")

    # -- status -----------------------------------------------------------------------------

    def update_status(self) -> None:
        info = self._info or {}
        last = info.get("last_consolidation")
        consolidation = self._consolidation if self._consolidation != "idle" or not last else f"last run {last}"
        parts = [self.session.provider_label, _count(int(info.get("memories", 0) or 0), "memory", "memories"),
                 f"consolidation: {consolidation}"]
        if info.get("frozen"):
            parts.insert(0, f"⏸ {info['frozen']}")
        self.query_one(StatusBar).update(" " + "  ·  ".join(parts))
        for welcome in self.main_screen.query(Welcome):
            if self.session.agent is not None:
                welcome.set_model(self.session.provider_label, self.session.has_model)

    # -- chat -------------------------------------------------------------------------------

    @on(TextArea.Changed, "#composer")
    async def typed(self, event: TextArea.Changed) -> None:
        if self.composer.text:
            await self._drop_welcome()

    async def _drop_welcome(self) -> None:
        """The welcome gives way to the conversation."""
        if self.main_screen.query(Welcome):
            await self.main_screen.query(Welcome).remove()
        self.chat.display = True
        self.chat.pin()

    @on(Composer.Submitted)
    def send(self, event: Composer.Submitted) -> None:
        if self._busy:
            self.say("Still answering the last message; yours is kept in the input history (up).",
                     severity="warning")
            return
        self.run_turn(event.text)

    @work(exclusive=True, group="turn", exit_on_error=False, description="answer a message")
    async def run_turn(self, text: str) -> None:
        self._busy = True
        chat = self.chat
        await self._drop_welcome()
        await chat.mount(UserMessage(text))
        chat.pin()  # sending brings you back to the newest message
        answer: Any = None  # an AnswerView or a PlainAnswer
        stream = None
        parts: list[str] = []

        async def finish() -> None:
            nonlocal answer, stream, parts
            if stream is not None:
                await stream.stop()
                await answer.update(visible("".join(parts)))
            answer, stream, parts = None, None, []

        try:
            async for event in self.session.turn(text):
                if isinstance(event, TextDelta):
                    if answer is None:
                        if self.session.has_model:
                            answer = answer_view()
                            await chat.mount(answer)
                            stream = answer.stream()
                        else:
                            answer = PlainAnswer()
                            await chat.mount(answer)
                    parts.append(event.text)
                    if stream is not None:
                        await stream.write(visible(event.text))
                    else:
                        answer.append(event.text)
                elif isinstance(event, ToolCall):
                    await finish()
                elif isinstance(event, ToolResult):
                    if event.summary or event.is_error:  # bookkeeping (marking a reminder mentioned) is silent
                        await chat.mount(ToolLine(event.summary or event.name, error=event.is_error))
                elif isinstance(event, Notice):
                    self.say(event.text, severity="warning")
                elif isinstance(event, Failed):
                    await finish()
                    await chat.mount(ToolLine(event.text, error=True))
                    self.say(event.text, title="Model error", severity="error", timeout=10)
                elif isinstance(event, Done):
                    if event.text.strip():
                        self._last_answer = event.text
                    if event.changed:
                        self.refresh_reminders()
        except Exception as exc:  # noqa: BLE001 - keep the app alive; the message is already stored
            self.say(f"Something went wrong: {exc}. Your message is saved.", severity="error")
        finally:
            await finish()
            self._busy = False
            self.refresh_reminders()

    async def show_transcript(self, messages: list[MessageView]) -> None:
        """Fill the chat with a conversation's messages (continued, or still open at launch)."""
        await self._drop_welcome()
        await self.chat.remove_children()
        shown, size = [], 0
        for m in reversed(messages[-TRANSCRIPT_LIMIT:]):
            if shown and size + len(m.content) > TRANSCRIPT_CHARACTERS:
                break
            shown.insert(0, m)
            size += len(m.content)
        widgets = []
        if len(messages) > len(shown):
            widgets.append(ToolLine(f"{len(messages) - len(shown)} earlier messages: read them in Conversations "
                                    f"({actions.key_for('conversations', self.keymap_settings)})"))
        for m in shown:
            widgets.append(UserMessage(m.content) if m.role == "user" else answer_view(m.content))
        await self.chat.mount_all(widgets)
        answers = [m.content for m in messages if m.role == "assistant"]
        if answers:
            self._last_answer = answers[-1]
        self.chat.pin()

    # -- actions (one per row of ui/actions.py) ---------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action in MAIN_SCREEN_ONLY and self.screen is not self.main_screen)

    def action_focus_composer(self) -> None:
        if self.narrow and self.bar_expanded:
            self.bar_expanded = False
            self._apply_layout(self.size.width)
        self.composer.focus()

    def _scrolled(self):
        """What the scroll keys move: the welcome while it stands in place of the chat, else the chat."""
        welcome = self.main_screen.query(Welcome)
        return welcome.first() if welcome else self.chat

    def action_chat_page_up(self) -> None:
        self._scrolled().scroll_page_up(animate=False)

    def action_chat_page_down(self) -> None:
        self._scrolled().scroll_page_down(animate=False)

    def action_chat_top(self) -> None:
        self._scrolled().scroll_home(animate=False)

    def action_chat_bottom(self) -> None:
        if self.main_screen.query(Welcome):
            self._scrolled().scroll_end(animate=False)
        else:
            self.chat.pin()

    def action_copy_last_answer(self) -> None:
        if not self._last_answer:
            self.say("No answer to copy yet.", timeout=3)
            return
        self.copy_to_clipboard(visible(self._last_answer))  # pasted into a shell, escapes must not act
        self.say(f"Copied the last answer ({len(self._last_answer)} characters).", timeout=3)

    def action_recap(self) -> None:
        self._open_recap()

    @work(thread=True, exclusive=True, group="recap", exit_on_error=False, description="build the recap")
    def _open_recap(self) -> None:
        data = self.session.recap()
        self.call_from_thread(self.push_screen, RecapScreen(data, self.session.has_model), self._after_recap)

    def _after_recap(self, result: str | None) -> None:
        if result == "narrative":
            self.run_turn(NARRATIVE_REQUEST)

    def action_conversations(self) -> None:
        if isinstance(self.screen, ConversationsScreen):
            return
        if isinstance(self.screen, ConversationScreen):
            self.pop_screen()
            return
        self.push_screen(ConversationsScreen(), self._after_conversations)

    def _after_conversations(self, episode_id: int | None) -> None:
        if episode_id is None:
            self.composer.focus()
            return
        if self._busy:
            self.say("Still answering; continue that conversation once the answer is in.", severity="warning")
            return
        self._continue(episode_id)

    @work(thread=True, exclusive=True, group="continue", exit_on_error=False, description="continue a conversation")
    def _continue(self, episode_id: int) -> None:
        messages = self.session.continue_conversation(episode_id)
        self.call_from_thread(self._continued, messages)

    async def _continued(self, messages: list[MessageView]) -> None:
        await self.show_transcript(messages)
        self.composer.focus()
        self.say("Continuing this conversation: your next message goes on from here.", timeout=4)

    def action_new_conversation(self) -> None:
        if self._busy:
            self.say("Still answering; start a new conversation once the answer is in.", severity="warning")
            return
        self._new_conversation()

    @work(thread=True, exclusive=True, group="new-conversation", exit_on_error=False,
          description="close the conversation")
    def _new_conversation(self) -> None:
        episode = self.session.new_conversation()
        self.call_from_thread(self._cleared, episode)

    async def _cleared(self, episode) -> None:
        await self.chat.remove_children()
        self._last_answer = ""
        if episode is not None:
            self.say(f"Saved “{episode.title}”. New conversation.", timeout=4)

    def action_toggle_sidebar(self) -> None:
        if self.narrow:
            self.bar_expanded = not self.bar_expanded
            self._apply_layout(self.size.width)
            if self.bar_expanded:
                self.query_one(ReminderList).focus()
            else:
                self.composer.focus()
            return
        self.sidebar_open = not self.sidebar_open
        self._apply_layout(self.size.width)

    def action_focus_reminders(self) -> None:
        if self.narrow:
            self.bar_expanded = True
        else:
            self.sidebar_open = True
        self._apply_layout(self.size.width)
        reminders = self.query_one(ReminderList)
        if not reminders.has_focus and len(reminders.children):
            reminders.index = 0  # arriving in the list: the most urgent row (overdue first), not an old highlight
        reminders.focus()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(self.keymap_settings))

    def action_reminder_done(self) -> None:
        reminder = self.sidebar.selected
        if reminder is not None:
            self._reminder_done(reminder.id)

    @work(thread=True, group="reminder-change", exit_on_error=False, description="mark a reminder done")
    def _reminder_done(self, memory_id: int) -> None:
        try:
            change = self.session.mark_done(memory_id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.call_from_thread(self.say, str(exc), severity="warning")
            return
        self.call_from_thread(self._offer_undo, change, f"Done: {one_line(change.after.content, 60)}.")
        self.refresh_reminders()

    def _offer_undo(self, change: ReminderChange, text: str) -> None:
        self._undo = change
        self._undo_until = time.monotonic() + UNDO_SECONDS
        key = actions.key_for("undo", self.keymap_settings)
        self.say(f"{text} {key} to undo.", timeout=UNDO_SECONDS)

    def action_undo(self) -> None:
        if self._undo is None or time.monotonic() > self._undo_until:
            self._undo = None
            raise SkipAction()  # let the message box have ctrl+z for its own undo
        change, self._undo = self._undo, None
        self._undo_change(change)

    @work(thread=True, group="reminder-change", exit_on_error=False, description="undo a reminder change")
    def _undo_change(self, change: ReminderChange) -> None:
        try:
            memory = self.session.undo(change)
        except InvalidInput as exc:
            self.call_from_thread(self.say, f"Cannot undo: {exc}", severity="warning")
            return
        self.call_from_thread(self.say, f"Undone: {one_line(memory.content, 60)} is back.", timeout=4)
        self.refresh_reminders()

    def action_reminder_snooze(self) -> None:
        reminder = self.sidebar.selected
        if reminder is not None:
            self._snooze(reminder)

    def _snooze(self, reminder: ReminderView) -> None:
        async def apply(when: str) -> str | None:
            try:
                change = await asyncio.to_thread(self.session.snooze, reminder.id, when)
            except InvalidInput as exc:
                return str(exc)
            self._offer_undo(change, f"Snoozed to {self.runtime.clock.short(change.after.due_at)}: "
                                     f"{one_line(change.after.content, 60)}.")
            self.refresh_reminders()
            return None

        self.push_screen(SnoozeScreen(reminder, apply))

    @on(ReminderList.Selected, "#reminder-list")
    def open_reminder(self, event: ReminderList.Selected) -> None:
        reminder = getattr(event.item, "reminder", None)
        if reminder is not None:
            self._show_reminder(reminder)

    @work(thread=True, group="reminder-detail", exit_on_error=False, description="load a reminder")
    def _show_reminder(self, reminder: ReminderView) -> None:
        try:
            memory = self.session.reminder_detail(reminder.id)
        except InvalidInput as exc:  # done or forgotten elsewhere meanwhile
            self.call_from_thread(self.say, str(exc), severity="warning")
            return
        label = reminder.label or reminder.when
        text = (f"#{memory.id} {memory.content}\n\nDue: {label} ({reminder.relative})\nKind: {memory.kind}"
                f"\nImportance: {memory.importance}\nCreated: {self.runtime.clock.short(memory.created_at)}"
                + (f"\nMentioned by the assistant: {self.runtime.clock.short(memory.reminded_at)}"
                   if memory.reminded_at else ""))

        def after(choice: str | None) -> None:
            if choice == "done":
                self._reminder_done(reminder.id)
            elif choice == "snooze":
                self._snooze(reminder)

        self.call_from_thread(self.push_screen, DetailScreen(text), after)

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
                self.call_from_thread(self.say, message, severity="warning", timeout=8)
            self.call_from_thread(self.say, note, timeout=6)
        except Exception as exc:  # noqa: BLE001 - a failed run must not take the app down
            self.call_from_thread(self.say, f"Consolidation failed: {exc}", severity="error")
        finally:
            self._consolidation = "idle"
            self.refresh_reminders()

    async def action_quit(self) -> None:
        # Let an answer in progress finish (and be stored) before the conversation is closed.
        turns = [w for w in self.workers if w.group == "turn" and not w.is_finished]
        if turns:
            self.say("Finishing the current answer…", timeout=3)
            try:
                await asyncio.wait_for(asyncio.gather(*(w.wait() for w in turns), return_exceptions=True), 15)
            except TimeoutError:
                pass
        try:
            await asyncio.to_thread(self.session.close_for_quit)
            await asyncio.to_thread(self.session.remember_announced)
        finally:
            self.exit(0)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _history_path():
    try:
        return history_file()
    except OSError:
        return None  # no writable state dir: history for this run only


def run_app(runtime: Runtime) -> int:
    if sys.stdout.isatty():
        # Textual sizes the screen with shutil.get_terminal_size, which prefers COLUMNS/LINES over the
        # terminal itself; a shell that exported them at another size would pin the app to that size.
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
    app = AssistantApp(AssistantService(runtime))
    app.run()
    return app.return_code or 0
