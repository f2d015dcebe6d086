"""Conversations for a front end: past ones listed and searched, one read, the one in progress, and
its end (a new conversation, quitting) or another continued. Closing and continuing act on the model
service's agent."""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from assistant.runtime import Runtime
from assistant.services.model import ModelService
from assistant.views import HIDDEN, ConversationView, MessageView, secrets_hidden
from memory import episodes, memories, secrets, turn_records
from memory.errors import DiskFull, InvalidInput
from memory.time.clock import Clock
from memory.time.instants import parse_stored
from memory.words import stems


def conversation_view(c: episodes.Conversation, current_title: str | None, clock: Clock) -> ConversationView:
    e = c.episode
    # The open conversation has no title yet: show the provisional one recaps use.
    title = (current_title if c.current else None) or e.title or "Untitled"
    return ConversationView(e.id, title, clock.short(e.started_at), c.messages, c.current, e.summary or "")


class ConversationService:
    def __init__(self, runtime: Runtime, model: ModelService) -> None:
        self.runtime = runtime
        self.model = model

    def is_first_run(self) -> bool:
        """Nothing stored yet: no message, no memory (the app then shows its welcome)."""
        store = self.runtime.store
        return episodes.message_count(store) == 0 and memories.count_memories(store) == 0

    def find(self, query: str = "", limit: int = 500) -> list[ConversationView]:
        """Past conversations newest first; with a query, those whose messages, title or summary match
        it (hybrid search over the messages, plus a plain substring match on titles)."""
        store, clock = self.runtime.store, self.runtime.clock
        everything = episodes.list_conversations(store, limit=limit)
        current = episodes.in_progress(store)
        title = current.title if current is not None else None
        query = query.strip()
        if not query:
            return [conversation_view(c, title, clock) for c in everything]
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
        return [conversation_view(c, title, clock) for c in everything if c.episode.id in wanted]

    def conversation(self, episode_id: int) -> tuple[ConversationView, list[MessageView]] | None:
        """One conversation and its messages (for the reader), or None when it is gone."""
        found = episodes.list_conversations(self.runtime.store, 1, [episode_id])
        if not found:
            return None
        current = episodes.in_progress(self.runtime.store)
        view = conversation_view(found[0], current.title if current else None, self.runtime.clock)
        return view, self.messages(episode_id)

    def messages(self, episode_id: int) -> list[MessageView]:
        """A conversation's messages; an answer the offline mode wrote (its turn's record says so:
        "offline", OfflineResponder.name) is plain text, as it was shown live. One with no record (imported,
        or older than the records) is a model's."""
        clock, store = self.runtime.clock, self.runtime.store
        said = [m for m in episodes.episode_messages(store, episode_id) if m.role in ("user", "assistant")]
        by = turn_records.responders_of(store, [m.id for m in said if m.role == "assistant"])
        return [_hidden_until_revealed(MessageView(
            m.role, m.content, clock.short(m.created_at), by.get(m.id) == "offline",
            secrets.revealed(store, m.content) if m.role == "assistant" else None)) for m in said]

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
        return self.messages(active.id)

    def continue_conversation(self, episode_id: int) -> list[MessageView]:
        """Make a past conversation the current one; returns its messages for the chat."""
        self.model.agent or self.model.connect()
        assert self.model.agent is not None
        self.model.agent.resume(episode_id)
        return self.messages(episode_id)

    def new_conversation(self) -> episodes.Episode | None:
        """Close the current episode (quick title, summary, outcome) at once; the next message opens a new
        one. The model's title is owed (assistant.turn.titles), written at the app's next idle time. An
        incognito conversation ends here."""
        agent = self.model.agent
        if agent is None:
            return None
        if agent.incognito is not None:
            agent.incognito = None
            return None
        return agent.close_episode()

    def close_for_quit(self) -> episodes.Episode | None:
        """Close the current episode before the process ends: at once, with its quick title (the model's
        is owed, written by the next process that has a model)."""
        agent = self.model.agent
        if agent is None:
            return None
        agent.incognito = None  # an incognito conversation ends with the app: nothing of it stays
        return agent.close_episode()

    def write_owed_titles(self) -> bool:
        """Model-written titles for the closed conversations that owe one (blocking: the local model, up to
        a timeout a title); whether any was owed (the local model was asked). The app calls it when nobody
        waits for an answer: a request to the same local server between two turns would throw away what it
        keeps of the conversation (SPEC F4), which the app then has it read again."""
        from assistant.turn.titles import owed_titles

        if not episodes.needing_titles(self.runtime.store, 1):
            return False
        owed_titles(self.runtime)
        return True

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


def _hidden_until_revealed(message: MessageView) -> MessageView:
    """A message as a reopened conversation shows it: each secret as the Memories screen shows one (HIDDEN),
    the person's own words too, with the text as said kept to reveal (a newcomer read "remember that the
    front door code is 5829" in clear above an answer showing "[secret 1 of memory #3]")."""
    if message.role == "assistant":
        if message.revealed is None:
            return message
        return replace(message, content=secrets.ANSWER_PLACEHOLDER.sub(HIDDEN, message.content))
    shown = secrets_hidden(message.content)
    return message if shown == message.content else replace(message, content=shown, revealed=message.content)
