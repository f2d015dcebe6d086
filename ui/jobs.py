"""Work the app does in the background around the person: loading the embedding model at the first
key (and letting it go after `embedding_unload_minutes` of quiet, to load it again at the next key),
consolidation (when due by the settings' triggers, or by hand), embedding what a big import
left waiting, and the model-written titles closed conversations owe, while nobody types and no answer
is being written (a title asked of the same local server between two turns would throw away what it
keeps of the conversation: SPEC F4). Progress is said with messages; the state (`running`, the time
of the last key) is written on the event loop only."""
from __future__ import annotations

import asyncio
import time
from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget

from assistant.services import ConsolidationService, ConversationService, EmbeddingService
from ui.failures import ReportsFailures
from ui.messages import StatusNews, StoreChanged

EMBED_IDLE_SECONDS = 10.0  # quiet this long, the app embeds texts a big import left waiting
EMBED_AFTER_TURN = 64  # the most texts embedded as a turn ends (a turn writes two or three; about 0.2 s at most)
# Quiet this long (no key, no answer under way), the app asks the local model for what can wait: the titles
# closed conversations owe, and a consolidation its triggers call for. A request to the same local server
# between two turns would throw away what it keeps of the conversation (SPEC F4).
SIDE_REQUESTS_IDLE_SECONDS = 120.0
TITLES_CHECK_SECONDS = 15.0
CHECK_SECONDS = 60.0  # how often the consolidation triggers, and whether to unload the embedder, are looked at
TURN_GROUP = "turn"  # the worker group of a turn (ui/widgets/chat.py): while one runs, no idle job starts


class IdleJobs(ReportsFailures, Widget):
    """Not drawn; lives on the main screen for its timers and workers. The screen tells it of every key
    (`input_seen`); an answer being written is a running worker of the turn group."""

    DEFAULT_CSS = "IdleJobs { display: none; }"

    class Finished(Message):
        def __init__(self, result: dict[str, Any] | None, error: str | None = None) -> None:
            super().__init__()
            self.result = result
            self.error = error

    class ConsolidationDue(Message):
        pass

    class ServerUsed(Message):
        """A job asked the local model (titles, a consolidation): what its server kept of the
        conversation is gone, and is to be read again before the next message (SPEC F4)."""

    def __init__(self, consolidation: ConsolidationService, embeddings: EmbeddingService,
                 conversations: ConversationService, embed_idle_seconds: float = EMBED_IDLE_SECONDS) -> None:
        super().__init__()
        self.consolidation = consolidation
        self.embeddings = embeddings
        self.conversations = conversations
        self.embed_idle_seconds = embed_idle_seconds
        self.titles_idle_seconds = SIDE_REQUESTS_IDLE_SECONDS
        self.running = False  # a consolidation is under way
        self._last_input = time.monotonic()
        self._warming = False  # the embedding model is loading or loaded
        self._titles_tried: float | None = None  # the quiet stretch (its first moment) titles were written in

    def on_mount(self) -> None:
        self.set_interval(CHECK_SECONDS, self.maybe_consolidate, name="idle-consolidation")
        self.set_interval(CHECK_SECONDS, self.maybe_unload_embedder, name="idle-unload")
        self.set_interval(self.embed_idle_seconds, self.embed_while_idle, name="idle-embedding")
        self.set_interval(TITLES_CHECK_SECONDS, self.titles_while_idle, name="idle-titles")

    def on_unmount(self) -> None:
        self.consolidation.stop()  # the child process goes with the app

    def idle_for(self) -> float:
        """Seconds since the last key (read by the workers; written on the event loop)."""
        return time.monotonic() - self._last_input

    def input_seen(self) -> None:
        """A key or typed text. At the first, the embedding model loads in a worker while the message is
        typed (0.3-0.5 s; ~90 MB resident): an app opened to glance at the reminders never holds it, and
        the first turn finds it loaded (a turn sent before it is, waits for the same load)."""
        self._last_input = time.monotonic()
        if not self._warming:
            self._warming = True
            self._load_embedder()

    @work(exclusive=True, group="warm-up", exit_on_error=False, description="load the embedding model")
    async def _load_embedder(self) -> None:
        await asyncio.to_thread(self.embeddings.warm_up)

    def maybe_unload_embedder(self) -> None:
        """After a quiet while the embedding model goes (~50 MB given back); the next key loads it again."""
        if self._warming and not self.running and not self.answering():
            self._unload_embedder(self.idle_for())

    @work(exclusive=True, group="unload", exit_on_error=False, description="unload the embedding model")
    async def _unload_embedder(self, quiet_seconds: float) -> None:
        if await asyncio.to_thread(self.embeddings.rest, quiet_seconds):
            self._warming = False

    def answering(self) -> bool:
        return any(w.group == TURN_GROUP and not w.is_finished for w in self.app.workers)

    # -- consolidation ------------------------------------------------------------------------

    def maybe_consolidate(self) -> None:
        """Consolidate in the background when idle long enough or many memories are new (F6 triggers),
        never between two turns (SIDE_REQUESTS_IDLE_SECONDS)."""
        if not self.running and not self.answering() and self.idle_for() >= self.titles_idle_seconds:
            self._check_consolidation(self.idle_for() / 60)

    @work(thread=True, exclusive=True, group="idle-check", exit_on_error=False,
          description="check whether to consolidate")
    def _check_consolidation(self, idle_minutes: float) -> None:
        if self.consolidation.due(idle_minutes):
            self.post_message(self.ConsolidationDue())

    def on_idle_jobs_consolidation_due(self, event: ConsolidationDue) -> None:
        event.stop()
        if not self.answering():
            self.consolidate()

    def consolidate(self) -> None:
        if self.running:
            return
        self.running = True
        self.post_message(StatusNews("consolidating…"))
        self._consolidate()

    @work(thread=True, exclusive=True, group="consolidate", exit_on_error=False, description="consolidate")
    def _consolidate(self) -> None:
        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(StatusNews(f"consolidating {done}/{total} ({phase})"))

        try:
            result = self.consolidation.run(progress)
        except Exception as exc:  # noqa: BLE001 - a failed run must not take the app down
            self.post_message(self.Finished(None, str(exc)))
        else:
            self.post_message(self.Finished(result))

    def on_idle_jobs_finished(self, event: Finished) -> None:
        event.stop()
        self.running = False
        if event.error is not None:
            self.app.notify(f"Consolidation failed: {event.error}", severity="error", markup=False)
        else:
            result = event.result or {}
            for message in result.get("messages", []):
                self.app.notify(message, severity="warning", timeout=8, markup=False)
            self.app.notify(f"Consolidated {result.get('memories_processed', 0)} memories: "
                            f"{result.get('summaries_created', 0)} summaries, "
                            f"{result.get('supersessions_detected', 0)} supersessions.", timeout=6, markup=False)
        self.post_message(StatusNews("idle"))
        self.post_message(StoreChanged())
        self.post_message(self.ServerUsed())

    # -- the titles closed conversations owe --------------------------------------------------

    def titles_while_idle(self) -> None:
        """Once in each quiet stretch (no key for `titles_idle_seconds`, no answer being written): the
        model-written titles the closed conversations owe."""
        if self.answering() or self.idle_for() < self.titles_idle_seconds or self._titles_tried == self._last_input:
            return
        self._titles_tried = self._last_input
        self._write_titles()

    @work(thread=True, exclusive=True, group="idle-titles", exit_on_error=False,
          description="write the titles of closed conversations")
    def _write_titles(self) -> None:
        if self.conversations.write_owed_titles():
            self.post_message(self.ServerUsed())

    # -- embedding an import's backlog ----------------------------------------------------------

    def embed_while_idle(self) -> None:
        """After a big import thousands of texts wait for their embeddings (search finds them by keywords
        meanwhile): embed them a batch at a time (about a second each) while nobody types or waits for
        an answer, and stop at the first key."""
        if not self.answering() and self.idle_for() >= self.embed_idle_seconds:
            self._embed_backlog()

    def embed_after_turn(self) -> None:
        """What a turn wrote (the message, the answer, a memory) is embedded as soon as it ends, while the answer
        is read: a newcomer typing turn after turn with no 10 s of quiet had 53 texts waiting, search by
        keywords only, and a notice over the chat. Only once the model is loaded (a key loaded it)."""
        if self._warming and not self.answering():
            self._embed_new()

    @work(thread=True, exclusive=True, group="idle-embed", exit_on_error=False, description="embed new texts")
    def _embed_new(self) -> None:
        self.embeddings.embed_backlog(limit=EMBED_AFTER_TURN)

    @work(thread=True, exclusive=True, group="idle-embed", exit_on_error=False, description="embed waiting texts")
    def _embed_backlog(self) -> None:
        waiting = None
        # A turn starts with a key, which the idle clock sees: the loop stops before the next batch.
        while self.idle_for() >= self.embed_idle_seconds and self.app.is_running:
            left = self.embeddings.embed_backlog()
            if left == 0 or (waiting is not None and left >= waiting):  # done, or no progress: stop
                break
            waiting = left
