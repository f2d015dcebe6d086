"""The recap (SPEC F8, ctrl+r): the last hours' conversations, the one in progress, reminders and new
memories, built locally and at once."""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from assistant.runtime import Runtime
from assistant.services.reminders import SIDEBAR_LIMIT, reminder_view
from assistant.views import CurrentView, EpisodeView, RecapData, listed_text, secrets_hidden
from memory import episodes, memories, reminders
from memory.text import flat
from memory.time.instants import to_utc_iso


class RecapService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def _episode_view(self, e: episodes.Episode) -> EpisodeView:
        return EpisodeView(e.id, e.title or "Untitled", e.summary or "", self.runtime.clock.short(e.started_at))

    def current_view(self) -> CurrentView | None:
        current = episodes.in_progress(self.runtime.store)
        if current is None:
            return None
        from assistant.recap import OPENING_WIDTH

        # its opening lines as a reopened conversation shows them: each secret hidden (a newcomer saw "the alarm
        # code got reset to 9902" in clear here, masked in the Conversations reader)
        return CurrentView(current.episode.id, current.title, self.runtime.clock.short(current.episode.started_at),
                           current.messages, [flat(secrets_hidden(m.content), OPENING_WIDTH) for m in current.opening])

    def build(self, hours: int = 48, fill: int = 3) -> RecapData:
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
        open_items = [replace(reminder_view(r, clock), content=listed_text(r.memory, None)) for r in found]
        since = to_utc_iso(clock.now() - timedelta(hours=hours))
        new = memories.created_since(store, since, limit=20, reminders=False, current=True)
        return RecapData(views, [r for r in open_items if r.status == "overdue"],
                         [r for r in open_items if r.status == "due"],
                         [listed_text(m, None) for m in new], hours,
                         self.current_view(), earlier)
