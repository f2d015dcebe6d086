"""Storing a ChatGPT or Claude export's conversations as episodes and messages (SPEC F13).

Each conversation is an episode with its own title and times, its messages in order with their own
times, written through the same inserts as a typed conversation (memory.episodes): the keyword index and
the embedding queue follow by trigger, a user's relative dates are resolved against when they were
said, titles and summaries pass the secret detector as a typed conversation's do. Embedding is left to
after the commit (memory.search.embeddings.sync_embeddings, in batches), so what is imported is
searchable by keywords at once.

Idempotent by the export's own ids (episodes.uid "chatgpt:<conversation id>", messages.uid
"chatgpt:<conversation id>:<message id>"): a conversation already here gets only the messages it did
not have. Conversations are written oldest first, a batch per transaction, so Ctrl+C keeps every batch
committed before it, and the next run skips them and goes on.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memory.episodes import (
    Message,
    NewMessage,
    had_real_exchange,
    heuristic_title_and_summary,
    insert_episode,
    insert_messages,
)
from memory.store import Store
from memory.transfer.chats import ChatConversation, ChatExport
from memory.transfer.imports import begin_import, finish_import, record_growth

BATCH_MESSAGES = 2000  # messages per transaction: a second or so of work lost at most on Ctrl+C
# ...and characters: 2,000 pasted texts of 50 KB are 100 MB in one transaction (held in memory, and lost
# whole to a Ctrl+C); a batch ends at whichever comes first.
BATCH_CHARS = 4_000_000

Progress = Callable[[int, int, int], None]  # (conversations done, conversations in all, messages added)


@dataclass
class ChatImportResult:
    format: str
    conversations: int = 0  # in the file, with text
    conversations_added: int = 0
    conversations_grown: int = 0
    conversations_present: int = 0
    messages_added: int = 0
    messages_present: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    dry_run: bool = False
    import_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "conversations": self.conversations,
                "conversations_added": self.conversations_added, "conversations_grown": self.conversations_grown,
                "conversations_present": self.conversations_present, "messages_added": self.messages_added,
                "messages_present": self.messages_present, "skipped": dict(sorted(self.skipped.items())),
                "dry_run": self.dry_run, "import_id": self.import_id}


def _title_and_summary(conversation: ChatConversation) -> tuple[str, str, str]:
    """Title, summary and outcome as a typed conversation gets them when it closes: the heuristic title
    and summary come through the secret detector; the export's own title goes through it too."""
    from memory.sensitive import redact

    said = [Message(0, None, m.role, m.text, m.created_at) for m in conversation.messages]
    title, summary = heuristic_title_and_summary(said)
    if conversation.title:
        title = redact(" ".join(conversation.title.split()))[:200]
    return title, summary, "success" if had_real_exchange(said) else "abandoned"


def import_chats(store: Store, export: ChatExport, source: str, fingerprint: str | None = None,
                 dry_run: bool = False, progress: Progress | None = None,
                 batch_messages: int = BATCH_MESSAGES, batch_chars: int = BATCH_CHARS) -> ChatImportResult:
    """Store the export's conversations (see the module's text); `dry_run` counts what would be added and
    writes nothing. A KeyboardInterrupt leaves the batches committed before it (the import is marked
    interrupted; the next run of the same file continues it)."""
    result = ChatImportResult(export.format, conversations=len(export.conversations), skipped=export.skipped,
                              dry_run=dry_run)
    prefix = f"{export.format}:"
    bound = (prefix, prefix[:-1] + ";")  # every uid of this format sorts between these
    episodes = {r[0]: (r[1], r[2]) for r in store.query(
        "SELECT uid, id, ended_at FROM episodes WHERE uid >= ? AND uid < ?", bound)}
    present = {r[0] for r in store.query("SELECT uid FROM messages WHERE uid >= ? AND uid < ?", bound)}
    # Oldest first: each batch then lands after the one before it in time, and placing its messages in
    # the timeline renumbers only what follows (memory.episodes.place_by_time).
    ordered = sorted(export.conversations, key=lambda c: (c.started_at, c.uid))
    if not dry_run:
        result.import_id = begin_import(store, export.format, source, fingerprint)
    pending: list[tuple[ChatConversation, list[NewMessage]]] = []
    queued: Counter[str] = Counter()  # counts of the batch not yet committed
    queued_chars = 0
    done = 0

    def flush() -> None:
        nonlocal queued_chars
        if not pending:
            return
        if not dry_run:
            with store.transaction():
                _write(store, pending, episodes, result.import_id)
        for name, value in queued.items():
            setattr(result, name, getattr(result, name) + value)
        pending.clear()
        queued.clear()
        queued_chars = 0

    reported = 0

    def report() -> None:
        """Progress, said only of what is committed (or was here already): a failure in the batch in
        hand must never follow a line that called it imported."""
        nonlocal reported
        if progress is not None and done > reported:
            reported = done
            progress(done, len(ordered), result.messages_added)

    try:
        for header in ordered:
            conversation = export.full(header)  # read back from the export's spill, one at a time
            new = [m for m in conversation.messages if m.uid not in present]
            result.messages_present += len(conversation.messages) - len(new)
            known = episodes.get(conversation.uid)
            if known is not None and not new:
                result.conversations_present += 1
            else:
                queued["conversations_added" if known is None else "conversations_grown"] += 1
                queued["messages_added"] += len(new)
                queued_chars += sum(len(m.text) for m in new)
                pending.append((conversation, [NewMessage(None, m.role, m.text, m.created_at, uid=m.uid,
                                                          import_id=result.import_id) for m in new]))
            done += 1
            if queued["messages_added"] >= batch_messages or queued_chars >= batch_chars:
                flush()
            if not pending:
                report()
        flush()
        report()
    except BaseException:
        # What was committed stays, and says so; the batch in hand was rolled back.
        if result.import_id is not None:
            finish_import(store, result.import_id, result.to_json(), status="interrupted")
        raise
    if result.import_id is not None:
        finish_import(store, result.import_id, result.to_json())
    return result


def _write(store: Store, pending: list[tuple[ChatConversation, list[NewMessage]]],
           episodes: dict[str, tuple[int, str | None]], import_id: int | None) -> None:
    """One batch, inside the caller's transaction."""
    messages: list[NewMessage] = []
    for conversation, new in pending:
        known = episodes.get(conversation.uid)
        if known is None:
            title, summary, outcome = _title_and_summary(conversation)
            episode_id = insert_episode(store, title=title, summary=summary, outcome=outcome,
                                        started_at=conversation.started_at, ended_at=conversation.ended_at,
                                        uid=conversation.uid, import_id=import_id)
            episodes[conversation.uid] = (episode_id, conversation.ended_at)
        else:
            episode_id, ended_at = known
            if import_id is not None:
                record_growth(store, import_id, episode_id, ended_at)
            end = max(ended_at or "", conversation.ended_at)
            store.execute("UPDATE episodes SET ended_at = ? WHERE id = ?", (end, episode_id))
            episodes[conversation.uid] = (episode_id, end)
        for message in new:
            message.episode_id = episode_id
        messages += new
    insert_messages(store, messages)
