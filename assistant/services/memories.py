"""The Memories screen's service (SPEC F12): every memory a page at a time, newest first, filtered and
searched; one in full; and its changes (edit, private, pin, forget), each recorded for undo."""
from __future__ import annotations

import contextlib

from assistant.forgetting import forget
from assistant.runtime import Runtime
from assistant.views import EarlierView, LinkedView, MemoryDetail, MemoryPage, MemoryRow, masked, private_marked
from memory import browse, changes, episodes, memories, reminders, secrets, supersession
from memory.errors import NotFound
from memory.memories import Memory
from memory.text import flat
from memory.words import matched_spans


class MemoryService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def _row(self, m: Memory, query: str = "", replaced_by: int | None = None) -> MemoryRow:
        text = flat(masked(m.content, m.sensitive), 400)
        matched = matched_spans(query, text) if query else []
        return MemoryRow(m.id, m.kind, m.tier, self.runtime.clock.short(m.created_at), text, m.private, m.sensitive,
                         m.pinned, m.source, matched, bool(query) and not matched, replaced_by,
                         done=m.done_at is not None and m.recurrence is None)

    def _rows(self, items: list[Memory], query: str = "") -> list[MemoryRow]:
        """Rows of memories in their order, except that a replaced one comes right after what replaced it,
        marked (a replaced value never reads as the current one)."""
        gone = supersession.superseded_by(self.runtime.store, [m.id for m in items])
        by_id = {m.id: m for m in items}
        return [self._row(by_id[i], query, gone.get(i))
                for i in supersession.replaced_after([m.id for m in items], gone)]

    def page(self, filters: browse.MemoryFilter | None = None, after: tuple[str, int] | None = None,
             limit: int = browse.PAGE) -> MemoryPage:
        """A page of every memory, newest first (as quick at the thousandth page of 100,000 as at the first)."""
        items, following = browse.page(self.runtime.store, filters, after, limit)
        return MemoryPage(self._rows(items), following)

    def row(self, memory_id: int, query: str = "") -> MemoryRow | None:
        """One memory's row as it is now (None when it is gone)."""
        try:
            memory = memories.get_memory(self.runtime.store, memory_id)
        except NotFound:
            return None
        return self._rows([memory], query)[0]

    def count(self, filters: browse.MemoryFilter | None = None) -> int:
        return browse.count(self.runtime.store, filters)

    def search(self, query: str, filters: browse.MemoryFilter | None = None, limit: int = 200) -> list[MemoryRow]:
        """Memories for a query, best first: the hybrid search recall uses, over every tier (a look, not
        a use: nothing is counted as used), with the words of the query each one says."""
        query = query.strip()
        if not query:
            return []
        hits = self.runtime.searcher.search(query, limit=limit, mode="exhaustive", types=("memory",), touch=False)
        return self._rows(browse.among(self.runtime.store, [h.id for h in hits], filters), query)

    def detail(self, memory_id: int) -> MemoryDetail:
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
        own = secrets.memory_secret_values(store, memory_id)  # its earlier texts follow its mask
        history = [EarlierView(masked(e.content, e.sensitive, own), e.content, e.sensitive, clock.short(e.replaced_at))
                   for e in memories.earlier_texts(store, memory_id)]
        return MemoryDetail(m.id, m.kind, m.content, masked(m.content, m.sensitive), m.importance, m.private,
                            m.sensitive, m.pinned, m.source, clock.short(m.created_at), clock.short(m.updated_at),
                            clock.short(m.due_at) if m.due_at else None, place.tier, place.retention, place.factors,
                            place.activation_count, clock.short(place.last_accessed) if place.last_accessed else None,
                            place.said_in, title, clock.short(place.said_at) if place.said_at else None,
                            linked(place.supersedes), linked(place.superseded_by),
                            [LinkedView(x.id, x.content, clock.short(x.created_at)) for x in place.summaries],
                            history)

    def edit(self, memory_id: int, content: str) -> Memory | None:
        """New words for a memory, through the one update path (re-indexed and re-embedded, sensitivity
        decided again, the earlier text kept); recorded for undo. None when the words are the same."""
        store = self.runtime.store
        if memories.get_memory(store, memory_id).content == content.strip():
            return None
        with changes.recorded(store, memory_id, "edit"):
            return reminders.update_memory(store, memory_id, content=content)

    def set_private(self, memory_id: int, private: bool) -> Memory:
        with changes.recorded(self.runtime.store, memory_id, "private"):
            return memories.set_private(self.runtime.store, memory_id, private)

    def set_pinned(self, memory_id: int, pinned: bool) -> Memory:
        with changes.recorded(self.runtime.store, memory_id, "pin"):
            return memories.set_pinned(self.runtime.store, memory_id, pinned)

    def forget(self, memory_id: int) -> Memory:
        """Forget any memory the one way (assistant.forgetting); undo brings it back with its id."""
        return forget(self.runtime, memory_id)
