"""Episodes (one conversation each), their messages, and list_recent (SPEC F2)."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memory import secrets
from memory.errors import InvalidInput, NotFound
from memory.store import Store
from memory.text import flat
from memory.time.clock import Clock
from memory.time.instants import parse_stored, to_utc_iso
from memory.time.references import time_refs_json

MAX_MESSAGE = 2_000_000  # characters: a 1 MB paste is kept whole


@dataclass
class Episode:
    id: int
    title: str | None
    summary: str | None
    outcome: str | None
    started_at: str
    ended_at: str | None
    active: bool = False
    tags: list[str] = field(default_factory=list)
    needs_title: bool = False  # closed with its quick title; a model-written one is owed (schema 11)

    @classmethod
    def from_row(cls, row: Any) -> Episode:
        return cls(id=row["id"], title=row["title"], summary=row["summary"], outcome=row["outcome"],
                   started_at=row["started_at"], ended_at=row["ended_at"], active=bool(row["active"]),
                   tags=json.loads(row["tags"] or "[]"), needs_title=bool(row["needs_title"]))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("needs_title")  # a store's own bookkeeping, not part of the episode's JSON shape
        return data

    def line(self, clock: Clock, title: str | None = None) -> str:
        """The one-line form every list uses (prompt, tools, CLI): "[Nov 22 13:05] Title".

        `title` replaces the stored one as shown (escaped, redacted) by the caller."""
        return f"[{clock.stamp(self.started_at)}] {flat(self.title or 'Untitled' if title is None else title)}"


@dataclass
class Message:
    id: int
    episode_id: int | None
    role: str
    content: str
    created_at: str
    time_refs: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def from_row(cls, row: Any) -> Message:
        refs = row["time_refs"] if "time_refs" in row.keys() else None
        return cls(row["id"], row["episode_id"], row["role"], row["content"], row["created_at"],
                   json.loads(refs) if refs else [])

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def get_episode(store: Store, episode_id: int) -> Episode:
    row = store.one("SELECT * FROM episodes WHERE id = ?", (episode_id,))
    if row is None:
        raise NotFound(f"no episode with id {episode_id}")
    return Episode.from_row(row)


def active_episode(store: Store) -> Episode | None:
    row = store.one("SELECT * FROM episodes WHERE active = 1 ORDER BY id DESC LIMIT 1")
    return Episode.from_row(row) if row else None


OUTCOMES = ("success", "abandoned")
ROLES = ("user", "assistant", "tool", "system")


def _text_or_none(name: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{name} must be text")
    return value


def insert_episode(store: Store, *, title: str | None = None, summary: str | None = None, outcome: str | None = None,
                   active: bool = False, started_at: str | None = None, ended_at: str | None = None,
                   tags: list[str] | None = None, uid: str | None = None, id: int | None = None,  # noqa: A002
                   import_id: int | None = None) -> int:
    """Check and store one episode (every writer: opening a conversation, the imports); returns its id.
    `import_id`: the import that brought it (memory.transfer.imports), so undoing that import removes it."""
    if outcome not in (None, *OUTCOMES):
        raise InvalidInput(f"outcome must be success, abandoned or null, not {outcome!r}")
    tags = tags or []
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise InvalidInput("tags must be a list of text")
    started_at = started_at or store.clock.now_iso()
    if ended_at is not None and parse_stored(ended_at) < parse_stored(started_at):
        raise InvalidInput(f"ends before it starts (ended_at {ended_at}, started_at {started_at})")
    values: dict[str, Any] = {
        "title": _text_or_none("title", title), "summary": _text_or_none("summary", summary), "outcome": outcome,
        "active": int(bool(active) and ended_at is None), "started_at": started_at,
        "ended_at": ended_at, "tags": json.dumps(tags), "uid": uid, "import_id": import_id}
    if id is not None and store.one("SELECT 1 FROM episodes WHERE id = ?", (id,)) is None:
        values["id"] = id
    with store.transaction():
        return store.insert("episodes", values)


@dataclass
class NewMessage:
    """A message about to be stored: `insert_message` (one) and `insert_messages` (an import's batch) check
    and write it through the same code."""

    episode_id: int | None
    role: str
    content: str
    created_at: str | None = None  # default: now
    time_refs: list[dict[str, str]] | None = None  # default: a user's relative dates, resolved at created_at
    uid: str | None = None  # the identity of a message that came from elsewhere (an export's own id)
    id: int | None = None  # kept when free (an import reproduces an export's ids)
    import_id: int | None = None  # the import that brought it


def _message_values(store: Store, new: NewMessage) -> dict[str, Any]:
    """The checked row of one message. A user's relative dates are resolved against when it was written
    ("tomorrow" said on 2024-03-02 is 2024-03-03), unless `time_refs` says them."""
    if new.role not in ROLES:
        raise InvalidInput(f"role must be user, assistant, tool or system, not {new.role!r}")
    if not isinstance(new.content, str):
        raise InvalidInput("content must be text")
    if len(new.content) > MAX_MESSAGE:
        raise InvalidInput(f"the message is too long ({len(new.content)} characters, at most {MAX_MESSAGE})")

    now = new.created_at or store.clock.now_iso()  # one reading of the clock for the row and its dates
    refs = json.dumps(new.time_refs) if new.time_refs else \
        time_refs_json(store.clock, new.content, now) if new.role == "user" else None
    return {"episode_id": new.episode_id, "role": new.role, "content": new.content, "created_at": now,
            "time_refs": refs, "uid": new.uid, "import_id": new.import_id}


def insert_message(store: Store, episode_id: int | None, role: str, content: str, created_at: str | None = None,
                   time_refs: list[dict[str, str]] | None = None, uid: str | None = None,
                   id: int | None = None, import_id: int | None = None,  # noqa: A002
                   placed_later: bool = False) -> Message:
    """Check and store one message (every writer: a turn, the imports); the text is kept exactly as given.
    `placed_later`: one of many written out of time order (an import); the caller calls place_by_time
    once, before it commits."""
    values = _message_values(store, NewMessage(episode_id, role, content, created_at, time_refs, uid, id, import_id))
    if id is not None and store.one("SELECT 1 FROM messages WHERE id = ?", (id,)) is None:
        values["id"] = id
    with store.transaction():
        values["position"] = None if placed_later else _appended_position(store, values["created_at"])
        new_id = _write_messages(store, [values])
        if values["position"] is None and not placed_later:
            place_by_time(store, values["created_at"])
        refs = values["time_refs"]
        return Message(new_id, episode_id, role, content, values["created_at"], json.loads(refs) if refs else [])


def insert_messages(store: Store, messages: list[NewMessage]) -> int:
    """Check and store many messages in one go (an import's batch; inside the caller's transaction, so a
    bad one writes none); each takes its place in time. Returns how many were written."""
    rows = [_message_values(store, new) for new in messages]
    if not rows:
        return 0
    with store.transaction():
        _write_messages(store, rows)
        place_by_time(store, min(row["created_at"] for row in rows))
    return len(rows)


def _write_messages(store: Store, rows: list[dict[str, Any]]) -> int:
    """The one INSERT of the messages table; returns the last row id. A batch goes through sqlite-utils
    (imported here, not at start-up: it pulls in numpy), in the caller's transaction (it nests as a
    savepoint)."""
    if len(rows) == 1:
        return store.insert("messages", rows[0])
    import sqlite_utils

    with store.lock:
        table = sqlite_utils.Database(store.conn, recursive_triggers=False, execute_plugins=False).table("messages")
        table.insert_all(rows, batch_size=500)
        return int(table.last_rowid or 0)


def _appended_position(store: Store, created_at: str) -> int | None:
    """The position of a message written after every other one (a turn typed now): the next number;
    None when it belongs earlier in time (then place_by_time renumbers)."""
    last = store.one("SELECT position, created_at FROM messages WHERE position IS NOT NULL "
                     "ORDER BY position DESC LIMIT 1")
    if last is None:
        return None if store.one("SELECT 1 FROM messages LIMIT 1") else 1
    return last["position"] + 1 if created_at >= last["created_at"] else None


def place_by_time(store: Store, since: str) -> None:
    """Number the messages written at or after `since` by their rank in time (created_at, then id): the
    position SPEC F3 counts in. Cost: the messages from `since` on, so an import of old history goes
    oldest first and renumbers once per batch."""
    with store.transaction():
        before = store.one("SELECT count(*) FROM messages WHERE created_at < ?", (since,))[0]
        store.execute("UPDATE messages SET position = r.p FROM (SELECT id, ? + row_number() OVER "
                      "(ORDER BY created_at, id) AS p FROM messages WHERE created_at >= ?) AS r "
                      "WHERE messages.id = r.id AND messages.position IS NOT r.p", (before, since))


def message_positions(store: Store, message_ids: list[int]) -> dict[int, int]:
    """{message id: its rank in time}, for the messages that exist."""
    ids = sorted({i for i in message_ids if isinstance(i, int)})
    out: dict[int, int] = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        out.update((r[0], r[1]) for r in store.query(
            f"SELECT id, position FROM messages WHERE id IN ({','.join('?' * len(part))}) AND position IS NOT NULL",
            tuple(part)))
    return out


def open_episode(store: Store) -> Episode:
    with store.transaction():
        return get_episode(store, insert_episode(store, active=True))


def add_message(store: Store, episode_id: int | None, role: str, content: str) -> Message:
    """Store one message of the conversation, now."""
    return insert_message(store, episode_id, role, content)


def add_answer(store: Store, episode_id: int | None, text: str) -> Message:
    """Store one answer of the app, now, each secret value it quotes as "[secret 1 of memory #12]"
    (secrets.masked_answer): the one call a turn makes to keep what it said. The live answer showed them."""
    return insert_message(store, episode_id, "assistant", secrets.masked_answer(store, episode_id, text))


def episode_messages(store: Store, episode_id: int) -> list[Message]:
    rows = store.query("SELECT * FROM messages WHERE episode_id = ? ORDER BY id", (episode_id,))
    return [Message.from_row(r) for r in rows]


def last_activity(store: Store, episode_id: int) -> str | None:
    row = store.one("SELECT max(created_at) FROM messages WHERE episode_id = ?", (episode_id,))
    return row[0] if row and row[0] else None


def close_episode(store: Store, episode_id: int, title: str | None, summary: str | None,
                  outcome: str, ended_at: str | None = None, needs_title: bool = False) -> Episode:
    """Close a conversation with a title and summary; `needs_title`: they are the quick ones, and a model's
    are owed (`needing_titles`), written by whichever process next has a model."""
    if outcome not in ("success", "abandoned"):
        raise InvalidInput(f"unknown outcome {outcome!r}")
    title, summary = _without_secrets(store, title), _without_secrets(store, summary)
    with store.transaction():
        get_episode(store, episode_id)
        store.execute("UPDATE episodes SET title = ?, summary = ?, outcome = ?, active = 0, ended_at = ?, "
                      "needs_title = ? WHERE id = ?",
                      (title, summary, outcome, ended_at or store.clock.now_iso(), int(needs_title), episode_id))
        return get_episode(store, episode_id)


def _without_secrets(store: Store, text: str | None) -> str | None:
    """A title or summary as stored: no secret value in it (memory.secrets.Outside), whoever wrote it."""
    return secrets.Outside.of(store).text(text) if text else text


def needing_titles(store: Store, limit: int = 5) -> list[int]:
    """Closed conversations that owe a model-written title, oldest first."""
    return [r[0] for r in store.query("SELECT id FROM episodes WHERE needs_title = 1 AND active = 0 "
                                      "AND ended_at IS NOT NULL ORDER BY id LIMIT ?", (limit,))]


def give_title(store: Store, episode_id: int, title: str, summary: str) -> bool:
    """The model's title for a conversation that owes one; False (nothing written) when it no longer does
    (it was reopened, or another process titled it first)."""
    title, summary = _without_secrets(store, title) or "", _without_secrets(store, summary) or ""
    with store.transaction():
        cursor = store.execute("UPDATE episodes SET title = ?, summary = ?, needs_title = 0 WHERE id = ? "
                               "AND needs_title = 1 AND active = 0", (title, summary, episode_id))
        return cursor.rowcount == 1


def had_real_exchange(messages: list[Message]) -> bool:
    """A real exchange: the user said something and got an answer."""
    roles = {m.role for m in messages}
    return "user" in roles and "assistant" in roles


# Words that say how something was asked, when, or that it was small talk: never what a conversation
# was about.
_SMALL_TALK = re.compile(r"^\W*(hi|hello|hey|thanks|thank you|ok|okay|cool|great|nice|yes|no|yeah|sure|bye|good "
                         r"(morning|afternoon|evening|night))\b[\w\s!.,']{0,25}$", re.I)
# A title is a short phrase a person would write (SPEC F2/F7): the first thing the person said or asked,
# trimmed to its first clause, without the request words around it and the time of a reminder.
# Abbreviations whose dot ends no sentence: "my doctor is Dr. Amelia Hart" is one clause.
_ABBREVIATIONS = ("Dr.", "Mr.", "Mrs.", "Ms.", "Mx.", "St.", "Prof.", "Jr.", "Sr.", "Mt.", "vs.", "etc.", "e.g.",
                  "i.e.", "approx.")
_NOT_AN_ABBREVIATION = "".join(rf"(?<!\b{re.escape(word)})" for word in _ABBREVIATIONS)
_FIRST_CLAUSE = re.compile(rf"(?<=[.!?]){_NOT_AN_ABBREVIATION}\s|[!?;]|\s[-–—]\s|,\s|"
                           r"\s(?:and|but)\s(?=(?:my|our|the|i|we|it|he|she|they)\b)", re.I)
_OPENING_WORDS = re.compile(
    r"^\W*(?:(?:hi|hello|hey|ok|okay|so|oh|btw|by the way|please|pls|quick question|question|assistant)\b[\s,!.:-]*|"
    r"(?:can|could|would|will) you(?: please)?\s+|i(?:'d| would) like you to\s+|i want you to\s+|help me(?: to)?\s+|"
    r"(?:remember|note|fyi|keep in mind|for the record)(?:\s+(?:that|this))?[\s:,-]+|"
    r"(?:remind me|set (?:me )?a reminder|add a reminder)(?:\s+(?:to|about|that))?\s+)+", re.I)
# A question about a thing: its title is the thing ("when is mom's birthday" -> "mom's birthday").
_ASKED_THING = re.compile(r"^(?:what|who|when|where|which)(?:'s|’s|\s+is|\s+are|\s+was|\s+were)\s+(?P<thing>.+)$",
                          re.I)
_DOING = re.compile(r"^(?:i'm|i’m|i am|we're|we are)\s+(?=\w+ing\b)", re.I)
# The time of a reminder at the end of its task ("call the plumber tomorrow at 5pm").
_TIME_AT_END = re.compile(
    r"(?:\s+(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week(?:end)?)|next\s+\w+|"
    r"(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|every\s+.+|at\s+\d[\w:.]*(?:\s*[ap]m)?|at\s+noon|"
    r"in\s+(?:\d+|an?|one|two|three)\s+\w+|by\s+\w+))+$", re.I)
# After "is" of a statement, a value not for a title: a secret's placeholder or a number.
_VALUE_AFTER = re.compile(r"\s+(?:is|are|was|were|=|:)\s+(?=.*(?:\[|\d))", re.I)
TITLE_WORDS = 8
# Words a phrase does not end on: left dangling where a title is cut or a reminder's time was taken off ("My
# doctor is Dr. Amelia Hart at the…", "Is the bank call still on for"). Not "on", "in", "up", "off": they
# end phrasal verbs ("still on", "log in").
_DANGLING = frozenset({"the", "a", "an", "at", "for", "to", "of", "by", "with", "from", "about", "and", "or", "but",
                       "my", "your", "our", "their", "his", "her"})


def _ended(words: list[str]) -> list[str]:
    """`words` without the function words left dangling at their end (a one-word title is kept)."""
    while len(words) > 1 and words[-1].lower().strip(",;:") in _DANGLING:
        words = words[:-1]
    return words


def _phrase_title(texts: list[str]) -> str | None:
    """The first thing said or asked, as a short phrase: "Code to get into the building", "My bike got
    stolen outside the station", "Call the plumber about the sink"; None when nothing is left of it."""
    for text in texts:
        clause = _OPENING_WORDS.sub("", text, count=1)
        clause = _FIRST_CLAUSE.split(clause, maxsplit=1)[0].strip(" ,.:;-")
        asked = _ASKED_THING.match(clause)
        if asked:
            clause = asked.group("thing")
        clause = _DOING.sub("", clause)
        timed = _TIME_AT_END.search(clause)
        if timed:
            clause = " ".join(_ended(clause[:timed.start()].split()))
        value = _VALUE_AFTER.search(clause)
        if value:
            clause = clause[:value.start()]
        words = clause.strip(" ,.:;-?!").split()
        if len(words) > 1 and words[0].lower() in ("the", "a", "an"):
            words = words[1:]  # "Boiler code", as a title is written
        if not words or not any(len(w) > 1 or w.isalnum() for w in words):
            continue
        title = " ".join(words if len(words) <= TITLE_WORDS else _ended(words[:TITLE_WORDS])) + \
            ("…" if len(words) > TITLE_WORDS else "")
        if len(title) > 60:
            title = title[:59].rsplit(" ", 1)[0] + "…"
        return title[:1].upper() + title[1:]
    return None


TITLE_READ = 2000  # characters of each message a heuristic title and summary read (see _opening)


def _opening(text: str) -> str:
    """The start of a message, as much as a title and a summary use (its first TITLE_READ characters, cut
    at a space so no word or value is cut in two), on one line. A pasted document of 50 KB cost 50 ms in
    the secret detector and the key words, of which the title used the first phrases."""
    if len(text) > TITLE_READ:
        cut = text[:TITLE_READ]
        text = cut[:max(cut.rfind(" "), cut.rfind("\n"))] if " " in cut or "\n" in cut else cut
    return " ".join(text.split())


def heuristic_title_and_summary(messages: list[Message], store: Store | None = None,
                                embedder: Any = None) -> tuple[str, str]:
    """Title and summary without a model: the title a short phrase from the first thing the user said or
    asked (not small talk), the summary the first things the user said. With `store`, a secret is left out as
    every exit leaves it out (memory.secrets.secretless_messages: the classifier's verdict, the values said
    elsewhere in it or held by the store); without, as the detector's rules find it."""
    # Titles are shown everywhere and sent to models later: never let a pasted secret into one.
    from memory.sensitive import redact  # its patterns are compiled on first use

    if store is not None:
        from memory.secrets import secretless_messages

        messages = secretless_messages(store, messages, embedder)
    user = [redact(_opening(m.content)) for m in messages if m.role == "user" and m.content.strip()]
    if not user:
        return "Empty conversation", "No messages from the user."
    meaningful = [u for u in user if not _SMALL_TALK.match(u)] or user
    title = _phrase_title(meaningful[:12])
    if not title:
        first = re.sub(r"^(hi|hello|hey|please|can you|could you)[,!. ]+", "", meaningful[0], flags=re.I) or user[0]
        words = first.split()
        title = " ".join(words[:8]).rstrip(".,!?;:") + ("..." if len(words) > 8 else "")
        title = title[:1].upper() + title[1:]
    summary = " / ".join(u[:160] for u in meaningful[:3])
    if len(meaningful) > 3:
        summary += f" (+{len(meaningful) - 3} more messages)"
    return title, summary


def list_recent(store: Store, limit: int = 10, outcome: str | None = None, hours: float | None = None,
                now: datetime | None = None) -> list[Episode]:
    """Completed episodes, newest started first; abandoned ones only when asked for by outcome."""
    if limit < 1:
        raise InvalidInput("limit must be at least 1")
    clauses, params = ["ended_at IS NOT NULL"], []
    if outcome is None:
        clauses.append("(outcome IS NULL OR outcome != 'abandoned')")
    else:
        clauses.append("outcome = ?")
        params.append(outcome)
    if hours is not None:
        if hours <= 0:
            raise InvalidInput("hours must be positive")
        since = (now or store.clock.now()) - timedelta(hours=hours)
        clauses.append("started_at >= ?")
        params.append(to_utc_iso(since))
    rows = store.query(f"SELECT * FROM episodes WHERE {' AND '.join(clauses)} "
                       "ORDER BY started_at DESC, id DESC LIMIT ?", (*params, limit))
    return [Episode.from_row(r) for r in rows]


def chat_length(store: Store) -> int:
    """The global message count (the timeline's N): the last position in time."""
    return store.number("SELECT coalesce(max(position), 0) FROM messages")


def messages_by_id(store: Store, message_ids: list[int]) -> dict[int, Message]:
    """The messages with these ids (missing ones are left out)."""
    if not message_ids:
        return {}
    rows = store.query(f"SELECT * FROM messages WHERE id IN ({','.join('?' * len(message_ids))})",
                       tuple(message_ids))
    return {r["id"]: Message.from_row(r) for r in rows}


@dataclass
class Conversation:
    """An episode as a list row: when, what, how long (message count)."""

    episode: Episode
    messages: int
    last_at: str | None

    @property
    def current(self) -> bool:
        return self.episode.ended_at is None


@dataclass
class InProgress:
    """The open conversation: its episode, size and first user messages (for recaps)."""

    episode: Episode
    messages: int
    opening: list[Message]
    title: str


_CONVERSATION_SELECT = ("SELECT e.*, count(m.id) AS n, max(m.created_at) AS last_at FROM episodes e "
                        "LEFT JOIN messages m ON m.episode_id = e.id")


def list_conversations(store: Store, limit: int = 500, episode_ids: list[int] | None = None) -> list[Conversation]:
    """Every conversation worth browsing (closed ones and the open one), newest started first.

    Unlike list_recent this includes the conversation in progress and abandoned ones: it is the
    user's archive, not the prompt's. Empty open episodes are left out.
    """
    if limit < 1:
        raise InvalidInput("limit must be at least 1")
    where = ""
    params: tuple[int, ...] = ()
    if episode_ids is not None:
        if not episode_ids:
            return []
        where = f" WHERE e.id IN ({','.join('?' * len(episode_ids))})"
        params = tuple(episode_ids)
    rows = store.query(f"{_CONVERSATION_SELECT}{where} GROUP BY e.id "
                       "HAVING n > 0 OR e.ended_at IS NOT NULL "
                       "ORDER BY e.started_at DESC, e.id DESC LIMIT ?", (*params, limit))
    return [Conversation(Episode.from_row(r), r["n"], r["last_at"]) for r in rows]


def in_progress(store: Store, opening: int = 3, min_messages: int = 1) -> InProgress | None:
    """The open conversation with at least `min_messages` messages, with its first user lines.

    The title is provisional (the heuristic one); the real title is given when it closes.
    """
    active = active_episode(store)
    if active is None:
        return None
    count = store.one("SELECT count(*) FROM messages WHERE episode_id = ?", (active.id,))[0]
    if count < max(1, min_messages):
        return None
    rows = store.query("SELECT * FROM messages WHERE episode_id = ? AND role = 'user' ORDER BY id LIMIT ?",
                       (active.id, max(1, opening)))
    first = [Message.from_row(r) for r in rows]
    title, _ = heuristic_title_and_summary(first, store)
    return InProgress(active, count, first, title)


def conversations_between(store: Store, start: datetime, end: datetime) -> list[Conversation]:
    """Conversations with something said in [start, end), closed or in progress, oldest first; the
    message count is of what was said in the span. Abandoned ones (no real exchange) are left out."""
    lo, hi = to_utc_iso(start), to_utc_iso(end)
    rows = store.query(
        "SELECT e.*, (SELECT count(*) FROM messages m WHERE m.episode_id = e.id AND m.created_at >= ? "
        "AND m.created_at < ?) AS n, (SELECT max(created_at) FROM messages m WHERE m.episode_id = e.id) AS last_at "
        "FROM episodes e WHERE e.started_at < ? AND (e.ended_at IS NULL OR e.ended_at >= ?) "
        "AND (e.outcome IS NULL OR e.outcome != 'abandoned') ORDER BY e.started_at, e.id", (lo, hi, hi, lo))
    return [Conversation(Episode.from_row(r), r["n"], r["last_at"]) for r in rows if r["n"]]


def message_count(store: Store) -> int:
    """How many messages the store holds (0 on a first run)."""
    return store.number("SELECT count(*) FROM messages")


def reopen_episode(store: Store, episode_id: int) -> Episode:
    """Make a closed conversation the open one again (continue it); it gets a new title when it closes."""
    with store.transaction():
        get_episode(store, episode_id)
        store.execute("UPDATE episodes SET active = 0 WHERE active = 1 AND id != ?", (episode_id,))
        store.execute("UPDATE episodes SET active = 1, ended_at = NULL, outcome = NULL, needs_title = 0 WHERE id = ?",
                      (episode_id,))
        return get_episode(store, episode_id)
