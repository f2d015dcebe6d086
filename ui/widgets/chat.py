"""The chat pane: the conversation and the message box. It owns what the chat shows (the start, a
conversation continued, a new one) and the turn: a message sent is shown, answered by the model service's
agent as a stream (Markdown for a model, literal text for the offline mode) and, when the turn ends,
the pane says so with a message (StoreChanged). It chooses the model at start-up (StatusNews)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import TextArea

from assistant.input_history import InputHistory
from assistant.services import BriefingService, ConversationService, IncognitoService, ModelService
from assistant.turn.events import Done, Failed, Notice, TextDelta, ToolCall, ToolResult
from assistant.views import DueNotice, MessageView
from memory.errors import DiskFull
from ui import actions
from ui.due_notices import chat_lines
from ui.failures import ReportsFailures
from ui.jobs import TURN_GROUP
from ui.messages import StatusNews, StoreChanged
from ui.text import visible
from ui.widgets.chat_log import ChatLog, PlainAnswer, ToolLine, UserMessage, answer_view, entry_for
from ui.widgets.composer import Composer
from ui.widgets.entry import TRANSCRIPT_CHARACTERS
from ui.widgets.welcome import Welcome
from ui.widgets.working import TurnClock

__all__ = ["TRANSCRIPT_CHARACTERS", "ChatLog", "ChatPane", "PlainAnswer", "ToolLine", "UserMessage", "answer_view"]

# What "Why this answer" is asked about (ChatPane.why_target): an answer's stored id, or one of these.
NO_ANSWER = None  # no answer on screen
UNRECORDED = 0  # an answer with no record (an incognito conversation's)
LATEST = -1  # the latest answer of the conversation shown (a transcript, continued or still open at launch)


class ChatPane(ReportsFailures, Vertical):
    """The chat log and the message box, and the turn between them."""

    busy: reactive[bool] = reactive(False)  # a turn is running (written on the event loop only)

    def __init__(self, model: ModelService, conversations: ConversationService, incognito: IncognitoService,
                 briefing: BriefingService, history: InputHistory, keymap: dict[str, str], *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self.conversations = conversations
        self.incognito = incognito
        self.briefing = briefing
        self.keymap = keymap
        ends = (actions.key_for("chat-top", keymap), actions.key_for("chat-bottom", keymap))
        self.chat_log = ChatLog(ends, id="chat")
        self.composer = Composer(history, keymap=keymap, id="composer")
        self.clock = TurnClock(actions.key_for("focus-composer", keymap), id="turn-clock")
        self.room_poll = 5.0  # seconds between the checks for room after a full disk refused a message
        self.unsent: str | None = None  # the message a full disk refused, waiting for room
        self.waiting: str | None = None  # a message sent while an answer was written, back in the box
        # Seconds between the tries for a model that did not answer at launch: then every 5 minutes.
        self.retry_delays: list[float] = [5, 10, 20, 40, 80, 160, *[300] * 288]
        self.last_answer = ""
        self.saved = False  # the running turn's message is in the store (set on the event loop only)
        self.why_target: int | None = NO_ANSWER  # the answer "Why this answer" is about (see NO_ANSWER)
        # Asked for while a turn runs, "Why this answer" is about that turn's answer: it opens once the answer
        # is recorded (asked at once, it read the previous answer's record).
        self.on_answered: Callable[[int | None, bool], object] | None = None
        # Reminders falling due before the first screen is shown wait for it: a line of theirs in the
        # chat first kept the transcript (or the returning user's hint) from being shown at all.
        self._start_shown = False
        self._before_start: list[ToolLine] = []

    def compose(self) -> ComposeResult:
        yield self.chat_log
        yield self.clock
        yield self.composer

    @property
    def under_the_chat(self) -> list[Widget]:
        """What stands below the chat log, top first: the working line, the briefing card, the message box."""
        return list(self.children)[self.children.index(self.chat_log) + 1:]

    def watch_busy(self, busy: bool) -> None:
        if not busy:  # the turn's answer is written: it may leave the chat log's window like any other
            self.chat_log.written()

    # -- start-up -------------------------------------------------------------------------------

    @work(exclusive=True, group="connect", exit_on_error=False, description="choose the chat model")
    async def connect(self) -> None:
        await asyncio.to_thread(self.model.connect)
        self._show_model()
        if self.model.has_model and not self.busy and self.waiting is None:
            self.warm_server()  # the server reads the system prompt and tools before the first message
        note = self.model.launch_note  # the configured server is down: said once, not left to `status`
        if note:
            self.say(ToolLine(note, hint=True))
        if self.model.may_find_a_model:
            self.find_a_model()

    def _show_model(self) -> None:
        for welcome in self.query(Welcome):
            welcome.set_model(self.model.provider_label, self.model.has_model)
        self.post_message(StatusNews())

    @work(exclusive=True, group="reconnect", exit_on_error=False, description="look for a chat model again")
    async def find_a_model(self) -> None:
        """A model that was down or busy at launch is asked for again, less and less often; the status bar
        switches when one answers."""
        for wait in self.retry_delays:
            await asyncio.sleep(wait)
            if await asyncio.to_thread(self.model.reconnect):
                self._show_model()
                self.app.notify(f"Connected to {self.model.provider_label}: it answers from now on.", timeout=6,
                                markup=False)
                return

    @work(exclusive=True, group="start", exit_on_error=False, description="show the first screen")
    async def load_start(self) -> None:
        """A welcome on an empty store, the conversation still in progress, or a hint for a returning user."""
        def read() -> tuple[bool, list[MessageView]]:
            first = self.conversations.is_first_run()
            return first, [] if first else self.conversations.current_messages()

        try:
            first, messages = await asyncio.to_thread(read)
            await self._show_start(first, messages)
        finally:
            self._start_shown = True
            if self._before_start:
                self.chat_log.add(*self._before_start)
            self._before_start.clear()

    async def _show_start(self, first: bool, messages: list[MessageView]) -> None:
        if first and not self.composer.text and not self.chat_log.children and not self.query(Welcome):
            welcome = Welcome(self.keymap)
            if self.model.agent is not None:
                welcome.set_model(self.model.provider_label, self.model.has_model)
            # In place of the chat (pinned to its last line), the welcome reads from its first.
            self.chat_log.display = False
            await self.mount(welcome, before=self.chat_log)
        elif messages and not self.chat_log.children:
            await self.show_transcript(messages)
        elif not first and not self.chat_log.children:
            keys = {a: actions.key_for(a, self.keymap) for a in ("conversations", "recap", "help")}
            await self.chat_log.add(ToolLine(f"New conversation. {keys['conversations']}: earlier conversations · "
                                               f"{keys['recap']}: recap · {keys['help']}: keys", hint=True))

    # -- what the chat shows --------------------------------------------------------------------

    @property
    def scrolled(self) -> VerticalScroll:
        """What the scroll keys move: the welcome while it stands in place of the chat, else the chat."""
        welcome = self.query(Welcome)
        return welcome.first() if welcome else self.chat_log

    def scroll(self, how: str) -> None:
        """page_up, page_down, home, or end (which follows new messages again)."""
        target = self.scrolled
        if how == "page_up":
            target.scroll_page_up(animate=False)
        elif how == "page_down":
            target.scroll_page_down(animate=False)
        elif how == "home" and target is self.chat_log:
            self.chat_log.to_start()
        elif how == "home":
            target.scroll_home(animate=False)
        elif target is self.chat_log:
            self.chat_log.pin()
        else:
            target.scroll_end(animate=False)

    @on(TextArea.Changed, "#composer")
    async def typed(self, event: TextArea.Changed) -> None:
        if self.composer.text:
            await self.drop_welcome()

    async def drop_welcome(self) -> None:
        """The welcome gives way to the conversation."""
        if self.query(Welcome):
            await self.query(Welcome).remove()
        self.chat_log.display = True
        self.chat_log.pin()

    async def show_transcript(self, messages: list[MessageView]) -> None:
        """Fill the chat with a conversation's messages (continued, or still open at launch)."""
        await self.drop_welcome()
        await self.chat_log.show([entry_for(m) for m in messages])
        answers = [m.content for m in messages if m.role == "assistant"]
        if answers:
            self.last_answer = answers[-1]
            self.why_target = LATEST

    def add_due_reminders(self, notice: DueNotice) -> None:
        """A toast goes away; a line in the chat stays, for whoever was away from the keyboard."""
        self.say(*(ToolLine(line, reminder=True) for line in chat_lines(notice)))

    def say(self, *lines: ToolLine) -> None:
        """Lines of the app's own in the chat; before the first screen is shown, they wait for it."""
        if not self._start_shown:
            self._before_start += lines
            return
        self.chat_log.add(*lines)

    def copy_last_answer(self) -> None:
        if not self.last_answer:
            self.app.notify("No answer to copy yet.", timeout=3)
            return
        self.app.copy_to_clipboard(visible(self.last_answer))  # pasted into a shell, escapes must not act
        self.app.notify(f"Copied the last answer ({len(self.last_answer)} characters).", timeout=3)

    # -- another conversation -------------------------------------------------------------------

    @work(exclusive=True, group="continue", exit_on_error=False, description="continue a conversation")
    async def continue_conversation(self, episode_id: int) -> None:
        if self.busy:
            self.app.notify("Still answering; continue that conversation once the answer is in.", severity="warning")
            return
        messages = await asyncio.to_thread(self.conversations.continue_conversation, episode_id)
        await self.show_transcript(messages)
        self.composer.focus()
        self.app.notify("Continuing this conversation: your next message goes on from here.", timeout=4)

    @work(exclusive=True, group="new-conversation", exit_on_error=False, description="close the conversation")
    async def new_conversation(self) -> None:
        if self.busy:
            self.app.notify("Still answering; start a new conversation once the answer is in.", severity="warning")
            return
        incognito = self.incognito.active
        episode = await asyncio.to_thread(self.conversations.new_conversation)
        await self.chat_log.clear()
        self.last_answer, self.why_target = "", NO_ANSWER
        if incognito:
            self.composer.incognito(False)
            self.post_message(StatusNews())
            self.app.notify("The incognito conversation ended; nothing of it was kept.", timeout=4)
        elif episode is not None:
            self.app.notify(f"Saved “{episode.title}”. New conversation.", timeout=4, markup=False)

    @work(exclusive=True, group="new-conversation", exit_on_error=False, description="start an incognito conversation")
    async def start_incognito(self) -> None:
        """A conversation that reads memory and keeps nothing (the one in progress is saved first); the
        status bar says so until ctrl+n or quitting ends it."""
        if self.busy:
            self.app.notify("Still answering; start it once the answer is in.", severity="warning")
            return
        if self.incognito.active:
            self.app.notify("This is an incognito conversation already; ctrl+n ends it.", timeout=4)
            return
        episode = await asyncio.to_thread(self.incognito.start)
        await self.drop_welcome()
        await self.chat_log.clear()
        self.last_answer, self.why_target = "", NO_ANSWER
        self.composer.incognito(True)
        new = actions.key_for("new-conversation", self.keymap)
        saved = f"Saved “{episode.title}”. " if episode is not None else ""
        await self.chat_log.add(ToolLine(f"{saved}Incognito conversation: memory is read as usual, but nothing you "
                                           f"say here is kept (no message, memory, reminder or history). {new} or "
                                           "quitting ends it.", hint=True))
        self.post_message(StatusNews())
        self.composer.focus()

    # -- the briefing card ------------------------------------------------------------------------

    @work(exclusive=True, group="briefing", exit_on_error=False, description="show the briefing")
    async def show_briefing(self, launch: bool = False) -> None:
        """The day's briefing as a card above the message box: at launch only the first of the day (and
        only a day with something in it); asked for, whenever."""
        from ui.widgets.briefing import BriefingCard

        briefing = await asyncio.to_thread(self.briefing.at_launch if launch else self.briefing.today)
        if briefing is None:
            return
        if briefing.empty:
            self.app.notify(briefing.text(), timeout=4, markup=False)
            return
        await self.dismiss_briefing()
        await self.mount(BriefingCard(briefing), before=self.composer)

    async def dismiss_briefing(self) -> None:
        await self.query("#briefing-card").remove()

    # -- the turn -----------------------------------------------------------------------------

    @on(Composer.Submitted)
    async def send(self, event: Composer.Submitted) -> None:
        event.stop()
        await self.dismiss_briefing()  # the first message takes the briefing away
        if self.busy:
            self.keep_until_answered(event.text)
            return
        self.run_turn(event.text)

    def keep_until_answered(self, text: str) -> None:
        """A message sent while an answer is written: back in the box, and sent when the answer is in
        if the box still holds it then (edited, it waits for enter)."""
        if not self.composer.text.strip():
            self.composer.insert(text)
        self.waiting = text
        self.app.notify("Still answering: your message is back in the box and goes once the answer is in "
                        "(escape stops the answer).", severity="warning", markup=False)

    def send_waiting(self) -> None:
        text, self.waiting = self.waiting, None
        if text is not None and not self.busy and self.composer.text == text:
            self.composer.clear()
            self.run_turn(text)

    def keep_unsent(self, text: str) -> None:
        """A message the disk had no room for: back in the box, sent when there is room (if the box still
        holds it then)."""
        if not self.composer.text.strip():
            self.composer.insert(text)
        self.unsent = text
        self.send_when_room(text)

    @work(exclusive=True, group="unsent", exit_on_error=False, description="send a message once there is room")
    async def send_when_room(self, text: str) -> None:
        while True:
            await asyncio.sleep(self.room_poll)
            if await asyncio.to_thread(self.conversations.can_write, len(text) + 4096):
                break
        if self.composer.text == text and not self.busy:
            self.composer.clear()
            self.run_turn(text)
            self.app.notify("There is room on the disk again: your message was sent.", timeout=5)
        else:
            self.unsent = None
            self.app.notify("There is room on the disk again: messages are saved as before.", timeout=5)

    def stop_turn(self) -> bool:
        """Escape while an answer is written: the turn stops (its request too); the message is kept."""
        if not self.busy:
            return False
        self.workers.cancel_group(self, TURN_GROUP)
        return True

    @work(exclusive=True, group=TURN_GROUP, exit_on_error=False, description="answer a message")
    async def run_turn(self, text: str) -> None:
        self.saved = False  # before busy: a quit that sees this turn busy reads its own message's state
        self.busy = True
        self.clock.start(self.model.model_name)
        started = False  # an event came: the message was saved
        log = self.chat_log
        await self.drop_welcome()
        # A message a full disk refused is on screen already (with the line saying so): tried again, it is
        # shown again only once it is saved.
        retry = self.unsent == text
        if not retry:
            await log.add(UserMessage(text))
        log.pin()  # sending brings you back to the newest message
        answer: Any = None  # an AnswerView or a PlainAnswer
        stream: Any = None
        parts: list[str] = []
        changed: list[str] = []
        answered = False  # the turn ended as turns do (not stopped, not refused by a full disk)

        async def finish() -> None:
            nonlocal answer, stream, parts
            if stream is not None:
                await stream.stop()
                await answer.update(visible("".join(parts)))
            answer, stream, parts = None, None, []

        try:
            async for event in self.model.turn(text):
                if not started and retry:
                    self.unsent = None  # saved at last
                    await log.add(UserMessage(text))
                    log.pin()
                started = self.saved = True
                if isinstance(event, TextDelta):
                    if not parts:
                        self.clock.answering()
                    if answer is None:
                        if self.model.has_model:
                            answer = answer_view()
                            await log.add(answer, live=True)
                            stream = answer.stream()
                        else:
                            answer = PlainAnswer()
                            await log.add(answer, live=True)
                    parts.append(event.text)
                    if stream is not None:
                        await stream.write(visible(event.text))
                    else:
                        answer.append(event.text)
                elif isinstance(event, ToolCall):
                    await finish()
                elif isinstance(event, ToolResult):
                    if event.summary:  # bookkeeping (marking a reminder mentioned) is silent, and so is a
                        # failure the answer itself words (the offline mode's)
                        await log.add(ToolLine(event.summary, error=event.is_error))
                elif isinstance(event, Notice):
                    self.app.notify(event.text, severity="warning", markup=False)
                elif isinstance(event, Failed):
                    await finish()
                    await log.add(ToolLine(event.text, error=True))
                    self.app.notify(event.text, title="Model error", severity="error", timeout=10, markup=False)
                elif isinstance(event, Done):
                    if event.text.strip():
                        self.last_answer = event.text
                    self.why_target = event.message_id or UNRECORDED
                    changed = event.changed
                    answered = True
        except DiskFull:
            await finish()
            if started:
                await log.add(ToolLine("The answer could not be saved: the disk is full.", error=True))
            else:
                if not retry:  # said once in the chat for a message, however often it is tried
                    await log.add(ToolLine("Not saved: the disk is full. Your message is back in the box and "
                                           "is sent when there is room again.", error=True))
                else:
                    self.app.notify("Still not saved: the disk is full. Your message stays in the box and is sent "
                                    "when there is room.", severity="warning", timeout=6, markup=False)
                self.keep_unsent(text)
        except asyncio.CancelledError:
            await finish()
            await log.add(ToolLine("Stopped. Your message is kept in the conversation (up brings it back to the box).",
                                     hint=True))
            raise
        except Exception as exc:  # noqa: BLE001 - keep the app alive; the message is already stored
            self.app.notify(f"Something went wrong: {exc}. Your message is saved.", severity="error", markup=False)
        finally:
            self.clock.stop()
            await finish()
            self.busy = False
            then, self.on_answered = self.on_answered, None
            if then is not None:  # told whether the turn ended with an answer of its own (not stopped, not refused)
                then(self.why_target, answered)
            # What the turn wrote is read again; a reminder it changed is one ctrl+z in the box undoes.
            self.post_message(StoreChanged(by_user="reminders" in changed))
            if self.waiting is not None:
                self.call_later(self.send_waiting)  # after this worker has ended: run_turn is exclusive
            elif answered:
                self.warm_server()

    @work(exclusive=True, group="warm-server", exit_on_error=False,
          description="have the model's server read the conversation")
    async def warm_server(self) -> None:
        """While the person reads the answer and types the next message, the model's server (their own)
        reads the conversation, so the next answer starts sooner (SPEC F4)."""
        await self.model.warm()
