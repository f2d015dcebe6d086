"""The Textual app: it composes the main screen, opens the other screens (recap, conversations, help,
and the dialogs the reminder panel asks for), keeps the theme and the keymap, and decides what a failed
background job means. The panes do the work: the chat pane owns the turn, the reminder panel its list,
the due watcher the notices (see ui/screens/main.py). Nothing here runs SQL or calls a model SDK.

Keys, footer, palette and help all come from the one table in ui/actions.py.
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import BindingType
from textual.command import Provider
from textual.message import Message
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from assistant.errors import explain
from assistant.input_history import InputHistory
from assistant.paths import history_file
from assistant.runtime import Runtime
from assistant.services import Services
from assistant.services.backup import QUIT_BUDGET
from assistant.settings import Settings, SettingsError, save_setting
from memory.connection import DatabaseError, OperationalError
from memory.errors import DiskFull, StoreUnusable
from ui import actions
from ui.commands import ActionCommands
from ui.messages import JobFailed
from ui.screens.conversations import ConversationScreen, ConversationsScreen
from ui.screens.dialogs import DetailScreen, HelpScreen, RecapScreen, SnoozeScreen
from ui.screens.main import MainScreen
from ui.screens.memories import MemoriesScreen, MemoryScreen
from ui.screens.why import WhyScreen
from ui.text import one_line
from ui.widgets.reminders import ReminderPanel

if TYPE_CHECKING:
    from memory.search.embeddings import Embedder

# Seconds between the first frame and the start-up jobs (loading the reminders, the conversation in
# progress, the model): started at once, their threads held the interpreter while the frame was
# finished, and the full first screen showed after 2.2-2.4 s instead of 1.0-1.3 s (2 busy cores).
JOBS_AFTER_FRAME = 0.2
KEEP_REPLICATING_EVERY = 300.0  # seconds: the app takes over replicating when another replicator has ended
NARRATIVE_REQUEST = "Give me a short narrative recap of what we talked about in the last 48 hours."


class AssistantApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "assistant"
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ActionCommands}
    BINDINGS: ClassVar[list[BindingType]] = actions.bindings("app")

    class Notice(Message):
        """A warning from the runtime, said from any thread."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        """`embedder`: one to use instead of the configured one (a test's counting stand-in)."""
        super().__init__()
        self.runtime = Runtime(settings, notice=self.notice_from_anywhere, embedder=embedder)
        self.services = Services(self.runtime)
        self.keymap_settings: dict[str, str] = dict(settings.keymap or {})
        self.history = InputHistory(_history_path())
        self._last_failure = ""
        self._ending = False
        self.exit_line = ""  # the one line printed when the app had to end
        if self.keymap_settings:
            self.set_keymap(self.keymap_settings)
        theme = settings.ui.theme
        if theme and theme in self.available_themes:
            self.theme = theme

    def get_default_screen(self) -> MainScreen:
        self.history.load()
        return MainScreen(self.services, self.history, self.keymap_settings,
                          self.runtime.settings.ui.desktop_notifications)

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    async def on_event(self, event: events.Event) -> None:
        # Every key, on every screen, before a widget takes it (a search box keeps the letters it types):
        # someone is typing, so the idle jobs wait (issue 46: typing in Memories went unseen, and the
        # backlog of an import was embedded under the keys).
        if isinstance(event, events.Key) and self.screen_stack:
            self.main_screen.jobs.input_seen()
        await super().on_event(event)

    def on_ready(self) -> None:
        """The first frame is composed: the main screen's start-up jobs begin a moment later, so that
        its footer and panes are drawn before their threads take the interpreter."""
        if self.is_headless:  # no terminal to finish drawing on (tests, the benchmarks' run_test)
            self.main_screen.start_jobs()
        else:
            self.set_timer(JOBS_AFTER_FRAME, self.main_screen.start_jobs, name="start-up jobs")
        if self.services.backup.enabled:  # a replica is set: one replicator runs while the app does (F16)
            self.set_timer(JOBS_AFTER_FRAME, self._keep_replicating, name="replicator")
            self.set_interval(KEEP_REPLICATING_EVERY, self._keep_replicating, name="replicator")

    @work(thread=True, exclusive=True, group="backup", exit_on_error=False, description="start the replicator")
    def _keep_replicating(self) -> None:
        self.services.backup.keep()

    @property
    def main_screen(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    # The runtime and the services speak from any thread: through messages (post_message is thread-safe).

    def notice_from_anywhere(self, text: str) -> None:
        self.post_message(self.Notice(text))

    def on_assistant_app_notice(self, event: Notice) -> None:
        self.notify(event.text, severity="warning", markup=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.worker_failed(event.worker)

    def on_job_failed(self, event: JobFailed) -> None:
        self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker[object]) -> None:
        """A background job that failed says so: a store that cannot be used ends the app with one
        line (nothing could be saved); anything else (bad input, a model failure) is a notice, with
        the details in the log (see ui/failures.py)."""
        error = worker.error
        path = str(self.runtime.settings.db_path())
        if isinstance(error, DatabaseError) and not isinstance(error, OperationalError):  # not "locked"
            error = StoreUnusable(f"the database {path} cannot be read ({error})", path, "damaged")
        if isinstance(error, StoreUnusable):  # nothing typed could be saved: the one reason to end the app
            if not self._ending:  # several jobs fail on the same store: one line
                self._ending = True
                self.exit_line = f"assistant: {one_line(explain(error), 400)}"
                self.exit(return_code=1, message=self.exit_line)
            return
        logging.getLogger("assistant.ui").error("%s failed", worker.description, exc_info=error)
        text = f"Could not {worker.description}: {one_line(str(error)) or type(error).__name__} (details in the log)"
        if text != self._last_failure:  # a job run every second that keeps failing says it once
            self._last_failure = text
            self.notify(text, severity="error", timeout=8, markup=False)

    def _theme_changed(self, theme: Theme) -> None:
        """A theme picked in the palette is kept for the next launch (config key ui.theme)."""
        name = theme.name
        if name == self.runtime.settings.ui.theme:
            return
        try:
            path = save_setting(self.runtime.settings, "ui", "theme", name)
        except (SettingsError, OSError) as exc:
            self.notify(f"Theme not saved: {exc}", severity="warning", markup=False)
            return
        self.notify(f"Theme {name} saved in {path}", timeout=3, markup=False)

    # -- actions anywhere (one per row of ui/actions.py) ---------------------------------------

    def action_recap(self) -> None:
        self._open_recap()

    @work(exclusive=True, group="recap", exit_on_error=False, description="build the recap")
    async def _open_recap(self) -> None:
        data = await asyncio.to_thread(self.services.recap.build)
        self.push_screen(RecapScreen(data, self.services.model.has_model), self._after_recap)

    def _after_recap(self, result: str | None) -> None:
        if result == "narrative":
            self.main_screen.chat.run_turn(NARRATIVE_REQUEST)

    def action_conversations(self) -> None:
        if isinstance(self.screen, ConversationsScreen):
            return
        if isinstance(self.screen, ConversationScreen):
            self.pop_screen()
            return
        self.push_screen(ConversationsScreen(self.services.conversations), self._after_conversations)

    def _after_conversations(self, episode_id: int | None) -> None:
        if episode_id is None:
            self.main_screen.composer.focus()
            return
        self.main_screen.chat.continue_conversation(episode_id)

    def action_memories(self) -> None:
        if isinstance(self.screen, MemoriesScreen | MemoryScreen):
            return
        services = self.services
        self.push_screen(MemoriesScreen(services.memories, services.changes, services.conversations,
                                        self.keymap_settings), self._after_memories)

    def _after_memories(self, episode_id: int | None) -> None:
        """Back from Memories (or Why): what changed there is read again; a conversation to continue is."""
        self.main_screen.refresh_reminders()
        self._after_conversations(episode_id)

    def action_why_this_answer(self) -> None:
        if self.screen is not self.main_screen:
            return
        chat = self.main_screen.chat
        if chat.busy:
            def when_answered(target: int | None, answered: bool) -> None:
                # Opened on the answer once it is recorded, unless another screen was opened meanwhile (it would
                # open on top of that one); a stopped turn has no answer to explain.
                if not answered:
                    self.notify("No Why this answer: the answer was stopped before it was done.", timeout=4)
                elif self.screen is self.main_screen:
                    self._open_why(target)

            chat.on_answered = when_answered
            self.notify("Why this answer opens once this answer is done.", timeout=3)
            return
        self._open_why(chat.why_target)

    @work(exclusive=True, group="why", exit_on_error=False, description="read what went into the answer")
    async def _open_why(self, target: int | None) -> None:
        if target is None:
            self.notify("No answer on screen yet: ask something first.", timeout=4)
            return
        if target == 0:
            self.notify("This answer has no record: it was given in an incognito conversation, and nothing of "
                        "it is kept.", timeout=6)
            return
        services = self.services
        view = await asyncio.to_thread(services.why.view, None if target < 0 else target)
        if view is None:
            self.notify("This answer has no record: it was given before answers were recorded, or it was "
                        "incognito.", timeout=6)
            return
        why = WhyScreen(view, services.memories, services.changes, services.conversations, self.keymap_settings)

        def after(episode_id: int | None) -> None:
            self._after_memories(episode_id)
            if why.typed:  # typed on the Why screen: in the message box, as typed
                self.call_later(self.main_screen.action_focus_composer, why.typed)

        self.push_screen(why, after)

    def action_incognito(self) -> None:
        if self.screen is self.main_screen:
            self.main_screen.chat.start_incognito()

    def action_briefing(self) -> None:
        if self.screen is self.main_screen:
            self.main_screen.chat.show_briefing()

    def on_reminder_panel_snooze_asked(self, event: ReminderPanel.SnoozeAsked) -> None:
        self.push_screen(SnoozeScreen(event.reminder, event.apply))

    def on_reminder_panel_details_asked(self, event: ReminderPanel.DetailsAsked) -> None:
        self.push_screen(DetailScreen(event.detail, event.edit), event.chosen)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(self.keymap_settings))

    def action_consolidate(self) -> None:
        self.main_screen.jobs.consolidate()

    async def action_quit(self) -> None:
        """Quit at once, whatever a model is doing (SPEC F7): an answer being written stops (the message is
        saved), the conversation closes with its quick title (the model's is owed to the next process
        that has a model), and no thread still waiting on a model holds the process (run_app). An answer
        the app writes alone (no model: milliseconds) is let end first, for at most APP_TURN_SECONDS: what
        it did (a reminder set) is told and kept, and the conversation closes as the exchange it was; a
        model's turn only until its message is saved (at most MODEL_TURN_SECONDS)."""
        chat = self.main_screen.chat
        loop = asyncio.get_running_loop()
        until = loop.time() + (MODEL_TURN_SECONDS if self.services.model.has_model else APP_TURN_SECONDS)
        # A turn just sent is a worker not started yet (ctrl+q in the same breath as enter): waited for too. A
        # model's turn is waited for only until its message is in the store (it was lost 1 time in 4: an
        # attacker's), the app's own until it ends.
        # Enter and ctrl+q read together: the message is a Submitted message still queued when the quit runs
        # (no worker yet): a moment is given for it to become one.
        sent = loop.time() + SENT_SECONDS
        while loop.time() < until:
            if self.main_screen.jobs.answering():
                if self.services.model.has_model and chat.busy and chat.saved:
                    break
            elif loop.time() >= sent:
                break
            await asyncio.sleep(0.02)
        # Still not in the store (another program holds a write): said as the app ends, never silently lost.
        unsaved = self.main_screen.jobs.answering() and not (chat.busy and chat.saved)
        chat.stop_turn()
        try:
            # In a thread of its own: the shared pool's threads may all be waiting on a slow model.
            await _off_the_loop(self._close_for_quit, QUIT_SECONDS)
        except TimeoutError:
            pass  # the store is busy: the conversation is closed at the next launch (its idle gap)
        except DiskFull:  # one line, no traceback: the conversation is closed at the next launch instead
            self.exit_line = ("assistant: the disk is full, so this conversation could not be closed; it is closed "
                              "at the next start. Everything saved before is safe.")
            self.exit(return_code=1, message=self.exit_line)
            return
        try:  # the replicator this app started: a last sync of those writes, within the quit's budget
            await _off_the_loop(self.services.backup.stop_for_quit, QUIT_BUDGET + 0.2)
        except TimeoutError:
            pass  # run_app stops it as the process ends
        if unsaved:
            self.exit_line = ("assistant: your last message was not saved: another program was writing to the memory "
                              "store as you quit. It is in the message box's history: press up at the next start.")
        self.exit(0, message=self.exit_line or None)

    def _close_for_quit(self) -> None:
        self.main_screen.calendar.at_quit()
        self.services.conversations.close_for_quit()
        self.services.due.remember_announced()


APP_TURN_SECONDS = 1.0  # the most quitting waits for an answer the app writes with no model (0.5 s cut it on a
# busy machine: four test workers on two cores lost the answer 1 run in 3)
MODEL_TURN_SECONDS = 0.5  # with a model, the most it waits for the turn's message to be in the store (SPEC F7: quit
# never waits for a model; the whole quit stays under a second)
SENT_SECONDS = 0.1  # how long quitting looks for a message sent with it (enter and ctrl+q read together)
QUIT_SECONDS = 0.5  # the most quitting waits for the store (it takes milliseconds unless another write holds it)


async def _off_the_loop(job: Callable[[], object], seconds: float) -> None:
    """`job` in a new daemon thread, waited for at most `seconds` (TimeoutError); its exception is raised."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def settle(error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(None)

    def run() -> None:
        error: BaseException | None = None
        try:
            job()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting side
            error = exc
        try:
            loop.call_soon_threadsafe(settle, error)
        except RuntimeError:
            pass  # the loop is gone: nobody waits any more

    threading.Thread(target=run, name="quit", daemon=True).start()
    await asyncio.wait_for(asyncio.shield(done), seconds)


def _history_path() -> Path | None:
    try:
        return history_file()
    except OSError:
        return None  # no writable state dir: history for this run only


def run_app(settings: Settings) -> int:
    if sys.stdout.isatty():
        # Textual sizes the screen with shutil.get_terminal_size, which prefers COLUMNS/LINES over the
        # terminal itself; a shell that exported them at another size would pin the app to that size.
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
        # A real terminal that calls itself dumb (TERM=dumb, as editors' shells and CI jobs set it) draws
        # Textual's screen all the same, but rich then takes it for 80x25 whatever its size, and the app
        # went back and forth between the two sizes for ever, "starting…". This process reads it as a
        # plain xterm; NO_COLOR is honoured on its own.
        if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
            os.environ["TERM"] = "xterm"
    app = AssistantApp(settings)
    # An event loop of our own: asyncio.run() would end by joining every thread of its pool, and a worker
    # thread still waiting on a model (a title, a probe, up to its timeout) held the quit for minutes.
    loop = asyncio.new_event_loop()
    try:
        app.run(loop=loop)
    finally:
        app.services.backup.stop_for_quit()  # its own replicator, after a last sync, within the quit's budget
        # A thread of the quit still waiting for another process's write holds the store: the process ends
        # without closing it (SQLite keeps what was committed). It waited up to 10 s twice (an attacker's).
        app.runtime.close(wait=QUIT_SECONDS)
    code = app.return_code or 0
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        # A worker thread still waits on a model or a probe (up to its timeout): the interpreter would
        # join it before exiting. Everything is saved and the store is closed: leave now.
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    loop.close()
    return code
