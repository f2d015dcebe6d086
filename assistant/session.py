"""What the terminal UI may ask of the assistant: one object, plain data back, no SQL in widgets.

Blocking methods (SQLite, embeddings, the Ollama check) are meant to be called from thread
workers; `turn` is an async iterator for an async worker.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

from assistant.agent import Agent
from assistant.events import Event
from assistant.runtime import Runtime
from memory import episodes, knowledge, reminders
from memory.clock import to_utc_iso
from memory.knowledge import SELECT_MEMORY, Memory


@dataclass
class ReminderView:
    id: int
    content: str
    status: str  # due | overdue
    when: str  # local, "Mon Nov 23 09:00"
    relative: str  # "in 2 h", "overdue 1 d"
    due_at: str


@dataclass
class EpisodeView:
    id: int
    title: str
    summary: str
    when: str


@dataclass
class RecapData:
    episodes: list[EpisodeView]
    overdue: list[ReminderView]
    upcoming: list[ReminderView]
    new_memories: list[str]
    hours: int = 48


class Session:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.agent: Agent | None = None
        self._connecting = threading.Lock()

    # -- start-up ---------------------------------------------------------------------------

    def connect(self) -> str:
        """Pick the provider once (may probe Ollama briefly); returns "provider · model".

        Safe to call from several threads: later callers wait for the first and reuse its agent.
        """
        from assistant.providers.base import ProviderError
        from assistant.providers.offline import OfflineProvider
        from assistant.providers.select import select_provider

        with self._connecting:
            if self.agent is None:
                try:
                    provider = select_provider(self.runtime)
                except ProviderError as exc:
                    self.runtime.notice(f"{exc}; using the offline mode")
                    provider = OfflineProvider(self.runtime)
                self.agent = Agent(self.runtime, provider)
        return self.provider_label

    @property
    def provider_label(self) -> str:
        if self.agent is None:
            return "connecting…"
        return f"{self.agent.provider.name} · {self.agent.provider.model}"

    @property
    def has_model(self) -> bool:
        return self.agent is not None and self.agent.provider.name != "offline"

    def warm_up(self) -> None:
        """Load the embedder and embed the newest waiting texts (a bounded batch, as a search does),
        off the UI thread, so the first turn does not wait for them. Nothing proportional to the
        store is read: a backlog is left to embed_backlog()."""
        self.runtime.searcher.embed_query("warm up")

    def embedding_backlog(self) -> int:
        """How many texts are still waiting for their embeddings (thousands after a big import)."""
        from memory.embeddings import pending_count

        return pending_count(self.runtime.store)

    def embed_backlog(self, limit: int = 256) -> int:
        """Embed up to `limit` waiting texts, newest first, and return how many are still waiting.

        For the app's idle worker: call it from a thread worker while the user is idle, again and
        again until it returns 0 (each call takes about a second at the default limit on 2 cores and
        commits what it did, so stopping between calls loses nothing). Search meanwhile answers
        from the vectors there are plus keywords. Returns 0 at once when embeddings are off."""
        from memory.embeddings import EmbedderUnavailable, pending_count, sync_embeddings

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
        clock = self.runtime.clock
        return ReminderView(r.memory.id, r.memory.content, r.status, clock.short(r.memory.due_at),
                            reminders.relative_time(r.memory.due_at, clock.now(), clock), r.memory.due_at)

    def sidebar_reminders(self, within_days: int = 7) -> list[ReminderView]:
        """Overdue first, then upcoming within the window, mentioned or not."""
        items = reminders.list_open_reminders(self.runtime.store, within_days)
        return [self._view(r) for r in items]

    def reminder_detail(self, memory_id: int) -> Memory:
        return knowledge.get_memory(self.runtime.store, memory_id)

    def recap(self, hours: int = 48) -> RecapData:
        store, clock = self.runtime.store, self.runtime.clock
        items = episodes.list_recent(store, limit=20, hours=hours)
        views = []
        for e in reversed(items):
            local = clock.local(e.started_at)
            views.append(EpisodeView(e.id, e.title or "Untitled", e.summary or "",
                                     f"{local:%a %b} {local.day} {local:%H:%M}"))
        open_items = [self._view(r) for r in reminders.list_open_reminders(store, 7)]
        since = to_utc_iso(clock.now() - timedelta(hours=hours))
        rows = store.query(f"{SELECT_MEMORY} WHERE k.created_at >= ? AND k.due_at IS NULL "
                           "ORDER BY k.created_at DESC LIMIT 20", (since,))
        return RecapData(views, [r for r in open_items if r.status == "overdue"],
                         [r for r in open_items if r.status == "due"], [r["content"] for r in rows], hours)

    def status(self) -> dict[str, object]:
        store = self.runtime.store
        last = store.one("SELECT completed_at FROM consolidation_runs WHERE status = 'completed' "
                         "ORDER BY completed_at DESC LIMIT 1")
        return {"memories": knowledge.count_memories(store),
                "last_consolidation": self.runtime.clock.short(last[0]) if last and last[0] else None}

    # -- writes -----------------------------------------------------------------------------

    def mark_done(self, memory_id: int) -> Memory:
        return knowledge.mark_done(self.runtime.store, memory_id)

    def snooze(self, memory_id: int, when: str) -> Memory:
        return knowledge.snooze(self.runtime.store, memory_id, when)

    def new_conversation(self) -> episodes.Episode | None:
        """Close the current episode (title, summary, outcome); the next message opens a new one."""
        if self.agent is None:
            return None
        return self.agent.close_episode()

    async def turn(self, text: str) -> AsyncIterator[Event]:
        """One turn; a message sent while the app is still starting waits for the model choice."""
        if self.agent is None:
            await asyncio.to_thread(self.connect)
        async for event in self.agent.turn(text):
            yield event

    def consolidation_due(self, idle_minutes: float) -> bool:
        from assistant.consolidate import consolidation_due

        return consolidation_due(self.runtime, idle_minutes)

    def consolidate(self, progress=None) -> dict[str, object]:
        from assistant.consolidate import run_consolidation

        return run_consolidation(self.runtime, progress=progress)
