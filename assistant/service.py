"""The assistant as a service for a front end: one object, plain data back (assistant.views), no SQL in widgets.

Blocking methods (SQLite, embeddings, the Ollama check) are meant to be called from thread
workers; `turn` is an async iterator for an async worker.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from assistant.briefing import Briefing, briefing_for_launch, build_briefing
from assistant.desktop import reminder_text
from assistant.errors import ProviderError
from assistant.forgetting import forget
from assistant.jobs import ConsolidationFailed, ConsolidationProcess, consolidation_due
from assistant.notifier import deliver
from assistant.providers.select import Choice, choose_provider, provider_for
from assistant.runtime import Runtime
from assistant.turn.events import Event
from assistant.views import (
    ConversationView,
    CurrentView,
    DueNotice,
    EarlierView,
    EpisodeView,
    LinkedView,
    MemoryDetail,
    MemoryPage,
    MemoryRow,
    MessageView,
    RecapData,
    ReminderChange,
    ReminderDetail,
    ReminderPage,
    ReminderView,
    StatusView,
    WhyView,
    listed_text,
    masked,
    private_marked,
)
from memory import browse, changes, episodes, memories, reminders, supersession, turn_records
from memory.connection import folder_writable
from memory.consolidation.runs import last_completed_run
from memory.errors import DiskFull, EmbedderUnavailable, InvalidInput, NotFound, StoreUnusable
from memory.memories import Memory
from memory.schema import SCHEMA_VERSION
from memory.store import check_file
from memory.text import flat
from memory.time.instants import parse_stored, to_utc_iso
from memory.words import matched_spans, stems

if TYPE_CHECKING:  # the agent (pydantic, the providers) is imported when a model is chosen, after the first frame
    from assistant.providers.base import Provider
    from assistant.responder import Responder
    from assistant.turn.agent import Agent
    from memory.consolidation.pipeline import Progress


def responder_for(runtime: Runtime, provider: Provider | None) -> Responder:
    """What answers turns: the chat model through the gate, or the offline mode when there is none."""
    if provider is None:
        from assistant.offline.responder import OfflineResponder

        return OfflineResponder(runtime)
    from assistant.turn.model import ModelResponder

    return ModelResponder(runtime, provider)

def _ids(value: object) -> list[int]:
    """The ids a Why record lists (it is JSON: anything else in it is left out)."""
    return [i for i in value if isinstance(i, int)] if isinstance(value, list) else []


def check_launch(path: str) -> None:
    """What the app needs before its first frame, read from the file's header without opening it:
    a store it can write (it saves every message typed) and not from a newer version."""


    version = check_file(path)
    if version is None:
        return
    if version > SCHEMA_VERSION:
        raise StoreUnusable(f"the database {path} is from a newer version of assistant (schema {version} > "
                            f"{SCHEMA_VERSION})", path, "newer")
    if not os.stat(path).st_mode & stat.S_IWUSR or not folder_writable(path):  # as Store reads it
        raise StoreUnusable(f"the database {path} is read-only, and the app saves everything you type", path,
                            "read_only")


SIDEBAR_LIMIT = 50  # reminders a sidebar shows; the rest are counted (a calendar import holds thousands)
DUE_NAMED = 20  # reminders read per announcement; the rest are counted
ANNOUNCED_KEY = "announced_until"  # store meta: reminders due up to this instant have been announced
FIRST_LAUNCH_LOOKBACK = timedelta(days=30)  # a store never opened by the app: announce what fell due lately


class AssistantService:
    def __init__(self, runtime: Runtime, defer: Callable[[Callable[[], object]], None] | None = None) -> None:
        self.runtime = runtime
        self.agent: Agent | None = None
        self.choice: Choice | None = None  # why the responder is the one it is
        # How slow follow-up work (model titles of closed conversations) is run; the TUI passes a
        # background runner so that closing a conversation never delays the next answer.
        self.defer = defer
        self._connecting = threading.Lock()
        self._announcing = threading.Lock()
        self.announced_until: datetime | None = None  # this process's own mark (see take_due_reminders)
        self._consolidation: ConsolidationProcess | None = None  # the one running, to stop at quit
        self._closing = False

    # -- start-up ---------------------------------------------------------------------------

    def connect(self, strict: bool = False) -> str:
        """Pick the responder once (may probe servers briefly); returns "provider · model". A configured
        model that cannot work is said and the offline mode answers instead, unless `strict` (the CLI's
        `chat`), which raises the ProviderError.

        Safe to call from several threads: later callers wait for the first and reuse its agent.
        """

        with self._connecting:
            if self.agent is None:

                self.choice = choose_provider(self.runtime)
                try:
                    provider = provider_for(self.runtime, self.choice)
                except ProviderError as exc:
                    if strict:
                        raise
                    self.runtime.notice(f"{exc}; using the offline mode")
                    provider = None
                from assistant.turn.agent import Agent

                self.agent = Agent(self.runtime, responder_for(self.runtime, provider), defer=self.defer)
        return self.provider_label

    @property
    def may_find_a_model(self) -> bool:
        """Offline only because nothing answered at launch (not by choice): worth asking again."""
        return (self.agent is not None and self.agent.responder.local and self.choice is not None
                and self.choice.reason.startswith("auto"))

    def reconnect(self) -> bool:
        """Ask again for a model (one that was down or busy at launch); True when one answers now: the
        next turn is its."""

        choice = choose_provider(self.runtime)
        if choice.name == "offline" or self.agent is None:
            return False
        try:
            provider = provider_for(self.runtime, choice)
        except ProviderError:
            return False
        self.choice = choice
        self.agent.responder = responder_for(self.runtime, provider)
        return True

    @property
    def provider_label(self) -> str:
        if self.agent is None:
            return "connecting…"
        return f"{self.agent.responder.name} · {self.agent.responder.model}"

    @property
    def model_name(self) -> str:
        """The model as a person names it ("the model" before one is chosen)."""
        return self.agent.responder.model if self.agent is not None and self.has_model else "The model"

    @property
    def has_model(self) -> bool:
        return self.agent is not None and not self.agent.responder.local

    def warm_up(self) -> None:
        """Load the embedder and embed the newest waiting texts (a bounded batch, as a search does),
        off the UI thread, so the first turn does not wait for them. Nothing proportional to the
        store is read: a backlog is left to embed_backlog()."""
        self.runtime.searcher.embed_query("warm up")

    def rest_embedder(self, quiet_seconds: float) -> bool:
        """Unload the embedding model when nothing was embedded, and nothing typed (`quiet_seconds`), for
        `embedding_unload_minutes` (0: never); True when it was unloaded. The next text to embed (in the
        app: the next key) loads it again, in about 0.3-0.5 s."""
        idle = self.runtime.settings.embedding_unload_minutes * 60
        return 0 < idle <= quiet_seconds and self.runtime.unload_embedder(idle)

    def embedding_backlog(self) -> int:
        """How many texts are still waiting for their embeddings (thousands after a big import)."""
        from memory.search.embeddings import pending_count

        return pending_count(self.runtime.store)

    def embed_backlog(self, limit: int = 256) -> int:
        """Embed up to `limit` waiting texts, newest first, and return how many are still waiting.

        For the app's idle worker: call it from a thread worker while the user is idle, again and
        again until it returns 0 (each call takes about a second at the default limit on 2 cores and
        commits what it did, so stopping between calls loses nothing). Search meanwhile answers
        from the vectors there are plus keywords. Returns 0 at once when embeddings are off."""
        from memory.search.embeddings import pending_count, sync_embeddings

        runtime = self.runtime
        if runtime.embedder is None or runtime.store.read_only:
            return 0
        try:
            sync_embeddings(runtime.store, runtime.embedder, limit=limit)
        except EmbedderUnavailable:
            return 0
        return pending_count(runtime.store)

    # -- reads ------------------------------------------------------------------------------

    def _view(self, r: reminders.Reminder) -> ReminderView:
        """The one place a reminder becomes what the front ends show, field by field."""
        clock, memory = self.runtime.clock, r.memory
        relative = reminders.relative_time(r.due_at, clock.now(), clock)
        rule = memory.rule
        return ReminderView(memory.id, memory.content, r.status, clock.short(r.due_at), relative, r.due_at,
                            rule.describe() if rule else None,
                            due_now=relative == "now")  # relative_time's own "now": one rule for both

    def _change(self, before: Memory, after: Memory) -> ReminderChange:
        return ReminderChange(before, after, self.runtime.clock.short(after.due_at) if after.due_at else "")

    def sidebar_reminders(self, within_days: int = 7, limit: int = SIDEBAR_LIMIT) -> ReminderPage:
        """The most urgent open reminders of the window (overdue first, mentioned or not), how many
        there are in all, and how many lie beyond it with the next one's day: as quick with 20,000 open
        reminders as with 20."""
        store, clock = self.runtime.store, self.runtime.clock
        items, total, overdue = reminders.urgent_open_reminders(store, within_days, limit)
        later = reminders.beyond_window(store, within_days)
        return ReminderPage([self._view(r) for r in items], total, overdue, later.count,
                            clock.day(later.next_due_at) if later.next_due_at else "", later.next_due_at)

    def reminder_detail(self, memory_id: int) -> ReminderDetail:
        """One reminder as it is now (done or forgotten elsewhere: NotFound / InvalidInput)."""
        clock = self.runtime.clock
        memory = memories.get_memory(self.runtime.store, memory_id)
        if memory.due_at is None or memory.done_at is not None:
            raise InvalidInput(f"#{memory_id} is not an open reminder any more")
        status, label = reminders.label_for(memory, clock.now(), clock)
        return ReminderDetail(self._view(reminders.Reminder(memory, status, label)), memory.kind, memory.importance,
                              clock.short(memory.created_at),
                              clock.short(memory.reminded_at) if memory.reminded_at else None)

    def _episode_view(self, e: episodes.Episode) -> EpisodeView:
        return EpisodeView(e.id, e.title or "Untitled", e.summary or "", self.runtime.clock.short(e.started_at))

    def current_view(self) -> CurrentView | None:
        current = episodes.in_progress(self.runtime.store)
        if current is None:
            return None
        from assistant.recap import OPENING_WIDTH

        return CurrentView(current.episode.id, current.title, self.runtime.clock.short(current.episode.started_at),
                           current.messages, [flat(m.content, OPENING_WIDTH) for m in current.opening])

    def recap(self, hours: int = 48, fill: int = 3) -> RecapData:
        """The last `hours`: closed conversations, the one in progress, reminders, new memories.

        When the window holds fewer than `fill` conversations, the latest ones before it are added
        as "earlier", so a recap after a quiet weekend is not empty.
        """
        store, clock = self.runtime.store, self.runtime.clock
        items = episodes.list_recent(store, limit=20, hours=hours)
        views = [self._episode_view(e) for e in reversed(items)]
        earlier: list[EpisodeView] = []
        if len(items) < fill:
            shown = {e.id for e in items}
            older = [e for e in episodes.list_recent(store, limit=fill + len(items)) if e.id not in shown]
            earlier = [self._episode_view(e) for e in reversed(older[:fill - len(items)])]
        # Its lists show each memory as every list does but the Memories screen: a secret masked.
        found, _, _ = reminders.urgent_open_reminders(store, 7, SIDEBAR_LIMIT)
        open_items = [replace(self._view(r), content=listed_text(r.memory, None)) for r in found]
        since = to_utc_iso(clock.now() - timedelta(hours=hours))
        new = memories.created_since(store, since, limit=20, reminders=False)
        return RecapData(views, [r for r in open_items if r.status == "overdue"],
                         [r for r in open_items if r.status == "due"],
                         [listed_text(m, None) for m in new], hours,
                         self.current_view(), earlier)

    def is_first_run(self) -> bool:
        """Nothing stored yet: no message, no memory (the app then shows its welcome)."""
        store = self.runtime.store
        return episodes.message_count(store) == 0 and memories.count_memories(store) == 0

    # -- conversations ----------------------------------------------------------------------

    def _conversation_view(self, c: episodes.Conversation, current_title: str | None) -> ConversationView:
        e = c.episode
        # The open conversation has no title yet: show the provisional one recaps use.
        title = (current_title if c.current else None) or e.title or "Untitled"
        return ConversationView(e.id, title, self.runtime.clock.short(e.started_at), c.messages, c.current,
                                e.summary or "")

    def conversations(self, query: str = "", limit: int = 500) -> list[ConversationView]:
        """Past conversations newest first; with a query, those whose messages, title or summary match
        it (hybrid search over the messages, plus a plain substring match on titles)."""
        store = self.runtime.store
        everything = episodes.list_conversations(store, limit=limit)
        current = episodes.in_progress(store)
        title = current.title if current is not None else None
        query = query.strip()
        if not query:
            return [self._conversation_view(c, title) for c in everything]
        wanted: set[int] = set()
        try:
            hits = self.runtime.searcher.search(query, limit=100, mode="exhaustive", types=("message", "episode"),
                                                touch=False)
        except InvalidInput:
            hits = []

        words = stems(query)
        for h in hits:
            # A filter box is read word by word: the vector side also returns neighbours that share
            # nothing with the words typed ("dentist" listed every conversation), so a hit must share one.
            if words & stems(h.content) or not words:
                episode = h.episode_id if h.type == "message" else h.id
                if episode is not None:
                    wanted.add(episode)
        needle = query.lower()
        for c in everything:
            text = f"{c.episode.title or ''} {c.episode.summary or ''}".lower()
            if needle in text:
                wanted.add(c.episode.id)
        return [self._conversation_view(c, title) for c in everything if c.episode.id in wanted]

    def conversation_messages(self, episode_id: int) -> list[MessageView]:
        """A conversation's messages; an answer the offline mode wrote (its turn's record says so:
        "offline", OfflineResponder.name) is plain text, as it was shown live. One with no record (imported,
        or older than the records) is a model's."""
        clock, store = self.runtime.clock, self.runtime.store
        said = [m for m in episodes.episode_messages(store, episode_id) if m.role in ("user", "assistant")]
        by = turn_records.responders_of(store, [m.id for m in said if m.role == "assistant"])
        return [MessageView(m.role, m.content, clock.short(m.created_at), by.get(m.id) == "offline")
                for m in said]

    def current_messages(self) -> list[MessageView]:
        """The open conversation's messages when it is still going (not past the idle gap), else none."""
        store = self.runtime.store
        active = episodes.active_episode(store)
        if active is None:
            return []
        last = episodes.last_activity(store, active.id)
        gap = timedelta(minutes=self.runtime.settings.idle_gap_minutes)
        if last is None or self.runtime.clock.now() - parse_stored(last) > gap:
            return []
        return self.conversation_messages(active.id)

    def continue_conversation(self, episode_id: int) -> list[MessageView]:
        """Make a past conversation the current one; returns its messages for the chat."""
        self.agent or self.connect()
        assert self.agent is not None
        self.agent.resume(episode_id)
        return self.conversation_messages(episode_id)

    # -- reminders: notices -----------------------------------------------------------------

    def data_version(self) -> int:
        """Changes when another process (the CLI, a second window) commits to the store."""
        return self.runtime.store.data_version()

    def next_due_after(self, moment: datetime) -> datetime | None:
        return reminders.next_due_after(self.runtime.store, moment)

    def seconds_until(self, moment: datetime) -> float:
        """How long until `moment` (0 or less: it has come), for a timer. A running clock is read to
        the microsecond here: its now() has whole seconds, and a timer set from it fires up to a
        second late. A frozen clock is read as it is (a test moves it)."""
        clock = self.runtime.clock
        now = clock.now() if clock.fixed else datetime.now(UTC)
        return (moment - now).total_seconds()

    def take_due_reminders(self) -> DueNotice:
        """Reminders that fell due since this process last announced (the latest DUE_NAMED, latest
        first, and how many in all), marked as announced now.

        At the first call (launch) the mark comes from the store, so what fell due while the app was
        closed is announced once, and a relaunch does not repeat it.
        """
        store, clock = self.runtime.store, self.runtime.clock
        with self._announcing:
            now = clock.now()
            at_launch = self.announced_until is None
            since = self.announced_until
            if since is None:
                stored = store.get_meta(ANNOUNCED_KEY)
                since = parse_stored(stored) if stored else now - FIRST_LAUNCH_LOOKBACK
                since = min(since, now)  # a mark from the future (an earlier frozen clock) announces nothing new
            items, total = reminders.fell_due_latest(store, since, now, DUE_NAMED) if since < now else ([], 0)
            self.announced_until = max(since, now)
            if at_launch or items:
                store.set_meta(ANNOUNCED_KEY, to_utc_iso(now))
        return DueNotice([self._view(r) for r in items], total, at_launch)

    def notify_desktop(self, reminder: ReminderView, send: Callable[[str, str], bool]) -> bool:
        """The desktop notification of a reminder that fell due, through `send`, unless another process
        (`assistant notify`, another window) has raised it: the store records each occurrence once, and
        a failed send gives the record back. True when this process showed it."""

        title, body = reminder_text(reminder.content, reminder.when)
        return deliver(self.runtime.store, reminder.id, reminder.due_at, title, body, send, f"app {os.getpid()}")

    def remember_announced(self) -> None:
        """Store this process's mark (at quit), so the next launch starts from here."""
        if self.announced_until is not None:
            self.runtime.store.set_meta(ANNOUNCED_KEY, to_utc_iso(self.announced_until))

    def status(self) -> StatusView:
        store = self.runtime.store
        last = last_completed_run(store)
        clock = self.runtime.clock
        return StatusView(self.provider_label, memories.count_memories(store),
                          clock.short(last.completed_at) if last and last.completed_at else None,
                          # Shown in the status bar so that nobody writes test times into a real store by accident.
                          clock.short(clock.fixed) if clock.fixed else None)

    # -- writes -----------------------------------------------------------------------------

    # Every change made here is recorded in the store (memory.changes), so ctrl+z, "undo" in the
    # chat and `assistant undo` put back the last one, wherever it was made.

    def mark_done(self, memory_id: int) -> ReminderChange:
        store = self.runtime.store
        with changes.recorded(store, memory_id, "done"):
            before = memories.get_memory(store, memory_id)
            return self._change(before, reminders.mark_done(store, memory_id))

    def snooze(self, memory_id: int, when: str) -> ReminderChange:
        store = self.runtime.store
        with changes.recorded(store, memory_id, "snooze"):
            before = memories.get_memory(store, memory_id)
            return self._change(before, reminders.snooze(store, memory_id, when))

    def edit_reminder(self, memory_id: int, content: str | None = None, due: str | None = None) -> ReminderChange:
        """New text and/or a new due phrase (resolved as everywhere: memory.time.schedule); a phrase that
        cannot be understood raises InvalidInput and changes nothing."""
        content = content if content and content.strip() else None
        due = due.strip() if due and due.strip() else None
        if content is None and due is None:
            raise InvalidInput("nothing to change: give a new text or a new time")
        store = self.runtime.store
        action = "edit" if content and due else "move" if due else "rename"
        with changes.recorded(store, memory_id, action):
            before = memories.get_memory(store, memory_id)
            return self._change(before, reminders.update_memory(store, memory_id, content=content, due_at=due,
                                                                allow_past=False))

    def forget_reminder(self, memory_id: int) -> Memory:
        """Delete a reminder the one way every front end forgets (assistant.forgetting); the change is
        recorded, so undo brings it back with its id."""

        return forget(self.runtime, memory_id)

    def undo_last_change(self) -> changes.UndoneChange | None:
        """Put back the last recorded reminder change, made here or anywhere (the chat, the CLI)."""
        return changes.undo_last_change(self.runtime.store)

    def undo_text(self, undone: changes.UndoneChange | None) -> str:
        from assistant.tools import undo_text

        return undo_text(self.runtime, undone, mask=True)  # a notice: a secret masked, as the lists show it

    def can_write(self, size: int = 0) -> bool:
        """Whether a write of about `size` characters finds room on the disk now (after one was refused,
        the app sends the message it kept once it does): a real write, then taken back."""

        store = self.runtime.store
        try:
            store.set_meta("room_check", "." * size)
            with store.transaction():
                store.execute("DELETE FROM meta WHERE key = 'room_check'")
        except DiskFull:
            return False
        return True

    # -- incognito and why ----------------------------------------------------------------------

    @property
    def incognito(self) -> bool:
        return self.agent is not None and self.agent.incognito is not None

    def start_incognito(self) -> episodes.Episode | None:
        """An incognito conversation: memory is read as usual, nothing of it is stored (no message,
        title, memory, Why or undo record, no activation). The conversation in progress is closed first."""
        if self.agent is None:
            self.connect()
        assert self.agent is not None
        closed = self.agent.close_episode()
        self.agent.incognito = []
        return closed

    def end_incognito(self) -> None:
        """Leave it: what was said in it is gone with this process's memory of it."""
        if self.agent is not None:
            self.agent.incognito = None

    def why(self, message_id: int | None = None) -> dict[str, object] | None:
        """What went into an answer (the latest of the conversation in progress when no id is given), as
        recorded when its turn ran; None when there is no record (an incognito or older answer)."""

        store = self.runtime.store
        if message_id is None:
            active = episodes.active_episode(store)
            found = turn_records.latest(store, active.id if active else None)
        else:
            record = turn_records.get(store, message_id)
            found = (message_id, record) if record is not None else None
        return None if found is None else {"message_id": found[0], **found[1]}

    def why_view(self, message_id: int | None = None) -> WhyView | None:
        """`why` with the memories and conversations it names read as they are now, for the Why screen
        (a secret masked, as everywhere but the Memories screen)."""
        record = self.why(message_id)
        if record is None:
            return None
        ids = _ids(record.get("memories"))
        store = self.runtime.store
        found = {m.id: m for m in memories.memories_by_id(store, ids)}
        clock = self.runtime.clock
        # Read as they are now: one whose text was changed after the answer says so (its earlier texts
        # are on its own screen), so the line is not taken for what the answer was given.
        answer_id = int(str(record["message_id"]))
        answered = episodes.messages_by_id(store, [answer_id]).get(answer_id)
        changed = memories.edited_since(store, ids, answered.created_at) if answered is not None else set()

        def when(m: Memory) -> str:
            said = clock.short(m.created_at)
            return f"{said}; its text was changed after this answer" if m.id in changed else said

        shown = [LinkedView(i, private_marked(masked(found[i].content, found[i].sensitive), found[i].private),
                            when(found[i])) if i in found else LinkedView(i, "", "") for i in ids]
        episode_ids = _ids(record.get("conversations"))
        talks = {c.episode.id: self._conversation_view(c, None)
                 for c in episodes.list_conversations(self.runtime.store, len(episode_ids) or 1, episode_ids)}
        return WhyView(int(str(record["message_id"])), record, shown, [talks[i] for i in episode_ids if i in talks])

    # -- the Memories screen --------------------------------------------------------------------

    def _memory_row(self, m: Memory, query: str = "", replaced_by: int | None = None) -> MemoryRow:
        text = flat(masked(m.content, m.sensitive), 400)
        matched = matched_spans(query, text) if query else []
        return MemoryRow(m.id, m.kind, m.tier, self.runtime.clock.short(m.created_at), text, m.private, m.sensitive,
                         m.pinned, m.source, matched, bool(query) and not matched, replaced_by)

    def _memory_rows(self, items: list[Memory], query: str = "") -> list[MemoryRow]:
        """Rows of memories in their order, except that a replaced one comes right after what replaced it,
        marked (a replaced value never reads as the current one)."""
        gone = supersession.superseded_by(self.runtime.store, [m.id for m in items])
        by_id = {m.id: m for m in items}
        order = supersession.replaced_after([m.id for m in items], gone)
        return [self._memory_row(by_id[i], query, gone.get(i)) for i in order]

    def memory_page(self, filters: browse.MemoryFilter | None = None, after: tuple[str, int] | None = None,
                    limit: int = browse.PAGE) -> MemoryPage:
        """A page of every memory, newest first (as quick at the thousandth page of 100,000 as at the first)."""
        items, following = browse.page(self.runtime.store, filters, after, limit)
        return MemoryPage(self._memory_rows(items), following)

    def memory_row(self, memory_id: int, query: str = "") -> MemoryRow | None:
        """One memory's row as it is now (None when it is gone)."""
        try:
            memory = memories.get_memory(self.runtime.store, memory_id)
        except NotFound:
            return None
        return self._memory_rows([memory], query)[0]

    def memory_count(self, filters: browse.MemoryFilter | None = None) -> int:
        return browse.count(self.runtime.store, filters)

    def search_memories(self, query: str, filters: browse.MemoryFilter | None = None,
                        limit: int = 200) -> list[MemoryRow]:
        """Memories for a query, best first: the hybrid search recall uses, over every tier (a look, not
        a use: nothing is counted as used), with the words of the query each one says."""
        query = query.strip()
        if not query:
            return []
        hits = self.runtime.searcher.search(query, limit=limit, mode="exhaustive", types=("memory",), touch=False)
        return self._memory_rows(browse.among(self.runtime.store, [h.id for h in hits], filters), query)

    def memory_detail(self, memory_id: int) -> MemoryDetail:
        """One memory in full (NotFound when it is gone)."""
        store, clock = self.runtime.store, self.runtime.clock
        m = memories.get_memory(store, memory_id)
        place = browse.standing(store, memory_id)

        def linked(items: list[browse.Linked]) -> list[LinkedView]:
            return [LinkedView(x.id, private_marked(masked(x.content, x.sensitive), x.private),
                               clock.short(x.created_at), x.reason) for x in items]

        title = None
        if place.said_in is not None:
            with contextlib.suppress(NotFound):
                title = episodes.get_episode(store, place.said_in).title
            if title is None:
                current = episodes.in_progress(store)
                title = current.title if current and current.episode.id == place.said_in else "Untitled"
        history = [EarlierView(masked(e.content, e.sensitive), e.content, e.sensitive, clock.short(e.replaced_at))
                   for e in memories.earlier_texts(store, memory_id)]
        return MemoryDetail(m.id, m.kind, m.content, masked(m.content, m.sensitive), m.importance, m.private,
                            m.sensitive, m.pinned, m.source, clock.short(m.created_at), clock.short(m.updated_at),
                            clock.short(m.due_at) if m.due_at else None, place.tier, place.retention, place.factors,
                            place.activation_count, clock.short(place.last_accessed) if place.last_accessed else None,
                            place.said_in, title, clock.short(place.said_at) if place.said_at else None,
                            linked(place.supersedes), linked(place.superseded_by),
                            [LinkedView(x.id, x.content, clock.short(x.created_at)) for x in place.summaries],
                            history)

    def edit_memory(self, memory_id: int, content: str) -> Memory | None:
        """New words for a memory, through the one update path (re-indexed and re-embedded, sensitivity
        decided again, the earlier text kept); recorded for undo. None when the words are the same."""
        store = self.runtime.store
        if memories.get_memory(store, memory_id).content == content.strip():
            return None
        with changes.recorded(store, memory_id, "edit"):
            return reminders.update_memory(store, memory_id, content=content)

    def set_memory_private(self, memory_id: int, private: bool) -> Memory:
        with changes.recorded(self.runtime.store, memory_id, "private"):
            return memories.set_private(self.runtime.store, memory_id, private)

    def set_memory_pinned(self, memory_id: int, pinned: bool) -> Memory:
        with changes.recorded(self.runtime.store, memory_id, "pin"):
            return memories.set_pinned(self.runtime.store, memory_id, pinned)

    def forget_memory(self, memory_id: int) -> Memory:
        """Forget any memory the one way (assistant.forgetting); undo brings it back with its id."""

        return forget(self.runtime, memory_id)

    def conversation(self, episode_id: int) -> tuple[ConversationView, list[MessageView]] | None:
        """One conversation and its messages (for the reader), or None when it is gone."""
        found = episodes.list_conversations(self.runtime.store, 1, [episode_id])
        if not found:
            return None
        current = episodes.in_progress(self.runtime.store)
        view = self._conversation_view(found[0], current.title if current else None)
        return view, self.conversation_messages(episode_id)

    # -- the briefing ---------------------------------------------------------------------------

    def briefing(self) -> Briefing:

        return build_briefing(self.runtime.store, self.runtime.clock)

    def launch_briefing(self) -> Briefing | None:
        """The briefing at the app's launch: only the first launch of a day, only when the day has
        something in it (the day is marked in the store either way)."""

        return briefing_for_launch(self.runtime.store, self.runtime.clock)

    def new_conversation(self) -> episodes.Episode | None:
        """Close the current episode (quick title, summary, outcome) at once; the next message opens a new
        one. With a background runner the model's title follows (otherwise it is owed: `owed_titles`).
        An incognito conversation ends here."""
        if self.agent is None:
            return None
        if self.agent.incognito is not None:
            self.agent.incognito = None
            return None
        return self.agent.close_episode()

    def close_for_quit(self) -> episodes.Episode | None:
        """Close the current episode before the process ends: at once, with its quick title (the model's
        is owed, written by the next process that has a model)."""
        if self.agent is None:
            return None
        self.agent.incognito = None  # an incognito conversation ends with the app: nothing of it stays
        return self.agent.close_episode()

    def owed_titles(self) -> int:
        """Write the model titles closed conversations owe (idle time); how many are still owed."""
        from assistant.turn.titles import owed_titles

        return owed_titles(self.runtime)

    async def turn(self, text: str) -> AsyncIterator[Event]:
        """One turn; a message sent while the app is still starting waits for the model choice."""
        if self.agent is None:
            await asyncio.to_thread(self.connect)
        assert self.agent is not None
        async for event in self.agent.turn(text):
            yield event

    def consolidation_due(self, idle_minutes: float) -> bool:

        return consolidation_due(self.runtime, idle_minutes)

    def consolidate(self, progress: Progress | None = None) -> dict[str, object]:
        """Consolidate now, in a process of its own (assistant.jobs.ConsolidationProcess): scipy and the
        memory the run takes leave with it. Blocking: call it from a thread."""

        job = ConsolidationProcess(self.runtime.settings)
        self._consolidation = job
        try:
            if self._closing:
                raise ConsolidationFailed("the app is closing")
            return job.run(progress)
        finally:
            self._consolidation = None

    def stop_consolidation(self) -> None:
        """The app is closing: a consolidation under way ends now (the store stays intact) and none starts."""
        self._closing = True
        job = self._consolidation
        if job is not None:
            job.stop()
