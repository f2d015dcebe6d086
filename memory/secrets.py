"""Where the store's secrets are, for everything that writes or shows stored text (SPEC section 5, F14).

- The classifier's verdict (memory/sensitive/meaning.py) is taken when a text's embedding is computed
  (`judge`, called as the vectors are stored): a memory it flags is marked sensitive then. Before that,
  an exit asks `Opinions`, which reads the stored vector, or embeds the text now: nothing of a text
  leaves before its verdict exists. Only texts the rules find nothing in, that hold a word a secret hangs
  on and a value's shape, are asked about: a few, so an exit embeds a few texts at most.
- `values(store)`: the secret values the store holds (the sensitive memories', their earlier texts', the
  texts that once held one): every exit replaces any whole token equal to one, of any length, and any
  run of 8 characters or 3 words of one (memory.sensitive.withhold_fragments).
- `Outside`: text as it may be written where no model reads it but someone else may: the Markdown and
  ICS exports, CalDAV. (A model and an MCP client get text through the gate, assistant/outbound.)
- The app's own answers (`masked_answer`, which episodes.add_answer stores): what is stored of an answer
  holds "[secret 1 of memory #12]" where it quoted a secret of memory #12 (or of a message of the
  conversation), and `reveal` puts the values back on the person's own screen when asked. The live
  answer, as streamed, showed the value.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memory import vectors
from memory.docs import DOC_SLOTS, DOC_TYPES, doc_id
from memory.errors import EmbedderUnavailable
from memory.store import Store

if TYPE_CHECKING:
    from memory.memories import Memory

SECRET = "[secret]"  # what an export writes where a secret was
# A stored answer's stand-in for a value it quoted: "[secret 1 of memory #12]", "[secret 2 of message #40]".
ANSWER_PLACEHOLDER = re.compile(r"\[secret (\d+) of (memory|message) #(\d+)\]")


# -- the classifier's verdicts ----------------------------------------------------------------------

def usable(embedder: Any) -> bool:
    """Whether `embedder` is the one the classifier was trained on (another model's vectors mean nothing
    to its weights: then the rules alone decide)."""
    from memory.sensitive import meaning

    return embedder is not None and getattr(embedder, "name", None) == meaning.MODEL


def mark_secret(store: Store, memory_ids: list[int]) -> None:
    """Mark memories sensitive, and every value they replaced: the old value of a secret is one too ("the boiler
    code is 3316", which the rules missed, went out in every prompt after "the boiler pin is 2894" replaced it)."""
    ids = list(memory_ids)
    seen: set[int] = set()
    marked: list[int] = []
    with store.transaction():
        while ids:
            seen.update(ids)
            marks = ",".join("?" * len(ids))
            marked += [r[0] for r in store.query(f"SELECT id FROM knowledge WHERE sensitive = 0 AND id IN ({marks})",
                                                 tuple(ids))]
            store.execute(f"UPDATE knowledge SET sensitive = 1 WHERE sensitive = 0 AND id IN ({marks})", tuple(ids))
            ids = [r[0] for r in store.query(f"SELECT memory_id FROM memory_meta WHERE superseded_by IN ({marks})",
                                             tuple(ids)) if r[0] not in seen]
        if marked:
            _mask_answers(store, set(marked))


def _mask_answers(store: Store, memory_ids: set[int]) -> None:
    """The app's answers stored before these memories became secret, each value they quote as the placeholder an
    answer written now holds ("Okay, I'll remember that the boiler code is 3316 (#1)." kept 3316 after "the boiler
    pin is 2894" replaced it and made it a secret: a tester's). Found through the keyword index, then checked."""
    from memory.fts import content_match
    from memory.sensitive import withhold_fragments

    for value in (v for v in values(store) if v.memory_id in memory_ids):
        match = content_match(re.findall(r"\w+", value.value.lower())[:16], every=True)
        if match is None:
            continue
        rows = store.query("SELECT m.id, m.content FROM search_index s JOIN messages m ON s.rowid = m.id * ? + ? "
                           "WHERE search_index MATCH ? AND m.role = 'assistant'",
                           (DOC_SLOTS, DOC_TYPES["message"], match))
        for row in rows:
            masked = withhold_fragments(row["content"], [value.value],
                                        f"[secret {value.number} of memory #{value.memory_id}]")
            if masked != row["content"]:
                store.execute("UPDATE messages SET content = ? WHERE id = ?", (masked, row["id"]))


def judge(store: Store, docs: list[int], texts: list[str], matrix: Any) -> None:
    """The verdict of each memory just embedded (inside the transaction that stores its vector): one the
    classifier flags is marked sensitive. The caller checks the embedder is `usable`."""
    from memory.sensitive import meaning, needs_opinion

    memory_slot = doc_id("memory", 0)
    flagged = [doc // DOC_SLOTS for index, (doc, text) in enumerate(zip(docs, texts, strict=True))
               if doc % DOC_SLOTS == memory_slot and needs_opinion(text) and meaning.flags(matrix[index])]
    if flagged:
        mark_secret(store, flagged)


class Opinions:
    """The classifier's opinion of stored texts at an exit: from a text's stored vector, or from one
    computed now when it has none yet (with `embedder`; without one, or with another model, the rules
    alone decide). Each text is judged once per Opinions."""

    def __init__(self, store: Store | None, embedder: Any = None) -> None:
        self.store = store
        self.embedder = embedder if usable(embedder) else None
        self._said: dict[tuple[int | None, str], bool] = {}

    def flagged(self, text: str, doc: int | None = None) -> bool:
        """Whether the classifier says `text` (stored as document `doc`, if it is) holds a secret the rules
        do not find."""
        from memory.sensitive import meaning, needs_opinion

        if not text or not needs_opinion(text):
            return False
        key = (doc, text)
        if key not in self._said:
            vector = self._stored(doc) if doc is not None else None
            if vector is None and self.embedder is not None:
                try:
                    vector = self.embedder.embed([text])[0]
                except EmbedderUnavailable:  # no model now: the rules alone decide, as without one
                    vector = None
            self._said[key] = vector is not None and meaning.flags(vector)
        return self._said[key]

    def memory(self, memory: Memory) -> bool:
        """Whether a memory holds a secret: marked so, or flagged by the classifier (its verdict pending)."""
        return memory.sensitive or self.flagged(memory.content, doc_id("memory", memory.id))

    def message(self, message_id: int | None, text: str) -> bool:
        return self.flagged(text, doc_id("message", message_id) if message_id else None)

    def _stored(self, doc: int) -> Any:
        if self.store is None or self.store.one("SELECT 1 FROM pending_embeddings WHERE doc_id = ?", (doc,)):
            return None  # not embedded yet, or its text changed since
        _, matrix = vectors.stored(self.store, [doc])
        return None if matrix is None else matrix[0]


# -- the secret values of the store -------------------------------------------------------------------

@dataclass
class SecretValue:
    value: str
    memory_id: int
    number: int  # its place among the memory's values, 1 first (its earliest text's first value)


def memory_values(texts: Iterable[tuple[str, bool]]) -> list[str]:
    """The secret values of a memory's texts (each with whether it held a secret), oldest text first, each
    once: the rules' spans, or what looks like a value in a text marked sensitive that the rules find
    nothing in."""
    found: dict[str, None] = {}
    for text, sensitive in texts:
        found.update((value, None) for value in _secret_values(text, sensitive) if value.strip())
    return list(found)


@lru_cache(maxsize=8192)
def _secret_values(text: str, sensitive: bool) -> tuple[str, ...]:
    """A text's secret values, remembered: every write and every exit asks for those of every sensitive
    memory (500 of them read again took 65 ms a write)."""
    from memory.sensitive import secret_values

    return tuple(secret_values(text, sensitive))


def values(store: Store) -> list[SecretValue]:
    """Every secret value the store's memories hold: the sensitive memories' (their current text and the
    earlier ones), and an earlier text's that held a secret though the memory no longer does. Read again
    only when a private or sensitive memory or an earlier text changed (every write asks: an import of
    thousands of memories too)."""
    stamp = (store.one("SELECT count(*), max(id), max(updated_at), sum(sensitive) FROM knowledge "
                       "WHERE private = 1 OR sensitive = 1"),
             store.one("SELECT count(*), max(id) FROM memory_history"))
    key = (id(store), tuple(stamp[0]), tuple(stamp[1]))
    if _VALUES.get("key") != key:
        _VALUES.clear()
        _VALUES.update(key=key, values=_read_values(store))
    found: list[SecretValue] = _VALUES["values"]
    return found


_VALUES: dict[str, Any] = {}  # the last store's values and the stamp they were read at


def _read_values(store: Store) -> list[SecretValue]:
    # The condition of the partial index knowledge_withheld, word for word, so SQLite reads only those rows.
    current = {r[0]: r[1] for r in store.query("SELECT id, content, sensitive FROM knowledge "
                                               "WHERE private = 1 OR sensitive = 1 ORDER BY id") if r[2]}
    earlier: dict[int, list[tuple[str, bool]]] = {}
    for r in store.query("SELECT h.memory_id, h.content, h.sensitive FROM memory_history h "
                         "JOIN knowledge k ON k.id = h.memory_id WHERE k.sensitive = 1 OR h.sensitive = 1 "
                         "ORDER BY h.id"):
        earlier.setdefault(r[0], []).append((r[1], bool(r[2])))
    found: list[SecretValue] = []
    for memory_id in sorted(set(current) | {i for i, texts in earlier.items() if any(s for _, s in texts)}):
        texts = list(earlier.get(memory_id, []))
        if memory_id in current:
            texts.append((current[memory_id], True))
        found += [SecretValue(v, memory_id, n) for n, v in enumerate(memory_values(texts), start=1)]
    return found


def restates_a_secret(store: Store, text: str) -> bool:
    """Whether `text` says again a secret value a sensitive memory holds ("it's now 7719" after "the gate
    code is 7719"): a restatement of a secret is a secret."""
    return says_again(text, [v.value for v in values(store)])


def says_again(text: str, known: list[str]) -> bool:
    """Whether `text` holds one of the secret values `known`, whole or a run of 8 characters or 3 words of one (as
    the exits withhold them: memory.sensitive.withhold_fragments)."""
    from memory.sensitive import withhold_fragments

    return bool(known) and withhold_fragments(text, known) != text


def changes_a_value(text: str, values: Iterable[str]) -> bool:
    """Whether `text` gives, instead of one of `values` (secrets said just before), a value of its shape: as many
    digits ("oops I mean 2486" after "my PIN is 2468"), or a token that keeps most of it ("GreenOtter2292" after
    "GreenOtter2291"): a correction is a secret too (a re-check found each reaching the model whole)."""
    from memory.sensitive import meaning
    from memory.sensitive.alongside import set_apart
    from memory.sensitive.values import alike, only_digits

    wanted = [v for v in values if v.strip()]
    if not wanted or not text:
        return False
    # digits said as a time or a thing's number ("meet at 1530", "room 214") change no code (a re-check's), nor do
    # digits in groups said so ("[Dec 07 10:15]" of a listing, after the code 6612: a re-check's)
    return any(alike(said, value) for start, end in meaning.candidates(text)
               if not only_digits(said := text[start:end]) or set_apart(text, start) for value in wanted)


def restates(text: str, known: Iterable[str], recent: Iterable[str]) -> bool:
    """Whether `text` says one of the secret values `known` again, or gives one of `recent` (the secrets the person
    said just before) another value of its shape: then what else in it looks like a value is a secret too ("sorry,
    not 2468, it's 2486", "no wait, 3-1-5" after "the locker combo is 3-1-4"). What the text itself gives as a secret
    is no restatement of it ("meet at 1530, the PIN is 4471" said once). The one rule of the gate to a model and of
    the exits (an attacker found "no wait, 3-1-5" masked for the model and whole in the Markdown export and MCP)."""
    from memory.sensitive import find_secrets

    own = {span.value(text) for span in find_secrets(text)}
    return says_again(text, [v for v in known if v not in own]) or \
        changes_a_value(text, [v for v in recent if v not in own])


# -- text written outside, where no model reads it ------------------------------------------------------

@dataclass
class Outside:
    """Stored text as an export or a calendar server may hold it: each secret as the mask. Made once per
    run of an exit (it reads the store's secret values once); memory.transfer.exits.Exit is the face the
    exports and CalDAV use."""

    store: Store
    opinions: Opinions
    known: list[str] = field(default_factory=list)
    mask: str = SECRET
    lately: list[str] = field(default_factory=list)  # what the person wrote as secrets in the last conversations

    @classmethod
    def of(cls, store: Store, embedder: Any = None, mask: str = SECRET) -> Outside:
        """For one run of an exit on `store`; `embedder`: the app's, so a text not embedded yet is judged now."""
        # the store's secret values, and what the person wrote in the last conversations (a re-check's: "also 2207
        # for the porch", the code said the conversation before, was in the Markdown export's message lines)
        lately = said_lately(store)
        return cls(store, Opinions(store, embedder), [v.value for v in values(store)] + lately, mask, lately)

    def text(self, text: str, flagged: bool = False) -> str:
        """Any stored text: the detector's secrets (in a text the classifier flagged and the rules find
        nothing in, what looks like a value), then any whole token, run of 8 characters or 3 words of a
        secret value of the store."""
        from memory.sensitive import is_sensitive, redact, withhold_fragments

        if not text:
            return text
        # a correction of a secret just said is one too: what looks like a value in it goes
        flagged = flagged or bool(self.lately) and restates(text, (), self.lately)
        hidden = redact(text, self.mask, flagged and not is_sensitive(text))
        return withhold_fragments(hidden, self.known, self.mask)

    def masked(self, text: str, sensitive: bool = False) -> str:
        """A text that holds a secret when `sensitive`: its values masked, or the mask alone when none can be
        pointed to (its writer marked it)."""
        shown = self.text(text, sensitive)
        return self.mask if sensitive and shown == text else shown

    def message(self, message_id: int | None, text: str) -> str:
        return self.text(text, self.opinions.message(message_id, text))

    def memory(self, memory: Memory) -> str:
        """A memory's text (marked sensitive, or flagged by the classifier before its verdict was stored)."""
        return self.masked(memory.content, self.opinions.memory(memory))


def secretless_messages(store: Store, messages: list[Any], embedder: Any = None) -> list[Any]:
    """A conversation's messages (memory.episodes.Message) as a title, a summary or its openings may quote them:
    in the person's, each secret the detector finds (what looks like a value in one the classifier flags) and any
    value another of them said or the store holds, as "[secret]" ("for the garden shed it's 6183 these days", which
    the classifier flagged, was the conversation's title, sent in every later prompt; "is 7351 still right?" after
    "my bank PIN is 7351" too)."""
    from memory.sensitive import find_secrets

    outside = Outside.of(store, embedder)
    said = [m for m in messages if m.role == "user" and m.content]
    flags = {id(m): outside.opinions.message(m.id, m.content) for m in said}
    outside.known += [s.value(m.content) for m in said for s in find_secrets(m.content, flags[id(m)])]
    return [replace(m, content=outside.text(m.content, flags[id(m)])) if id(m) in flags else m for m in messages]


# -- the app's own answers --------------------------------------------------------------------------------

def masked_answer(store: Store, episode_id: int | None, text: str) -> str:
    """An answer as stored: each secret value it quotes (of a sensitive memory, or of a message the person
    wrote in this conversation or the last ones: said_lately) as "[secret N of memory #M]" / "[secret N of
    message #M]", any other the detector finds in it as "[secret]"."""
    from memory.sensitive import withhold_fragments

    if not text.strip():
        return text
    stand_ins: list[tuple[str, str]] = [(v.value, f"[secret {v.number} of memory #{v.memory_id}]")
                                        for v in values(store)]
    # what the person wrote, in this conversation and the last ones before it (an attacker's: "also 2207 for the
    # porch", the value said in the conversation before, was echoed by a model and stored)
    said = (said_in(store, episode_id) if episode_id is not None else []) + said_lately_by_message(store,
                                                                                                   besides=episode_id)
    stand_ins += [(value, f"[secret {n} of message #{message_id}]")
                  for message_id, found in said for n, value in enumerate(found, start=1)]
    for value, stand_in in sorted(stand_ins, key=lambda pair: -len(pair[0])):  # the longest value first
        text = withhold_fragments(text, [value], stand_in)
    # A secret it quotes from elsewhere (a message of an earlier conversation, an import): the detector's
    # spans, as "[secret]" (no message of this conversation holds it, so nothing can name it).
    from memory.sensitive import find_secrets

    for span in sorted(find_secrets(text), key=lambda found: -found.start):
        text = f"{text[:span.start]}[secret]{text[span.end:]}"
    return text


def reveal(store: Store, text: str) -> str:
    """A stored answer with its placeholders back to the values they stand for (for the person's own
    screen, when asked); a placeholder whose memory or message is gone stays."""
    if "[secret " not in text:
        return text
    by_memory: dict[int, list[str]] = {}
    by_message: dict[int, list[str]] = {}
    for match in ANSWER_PLACEHOLDER.finditer(text):
        row_id = int(match.group(3))
        if match.group(2) == "memory" and row_id not in by_memory:
            by_memory[row_id] = memory_secret_values(store, row_id)
        elif match.group(2) == "message" and row_id not in by_message:
            by_message[row_id] = _message_values(store, row_id)

    def value(match: re.Match[str]) -> str:
        found = (by_memory if match.group(2) == "memory" else by_message).get(int(match.group(3)), [])
        number = int(match.group(1))
        return found[number - 1] if 0 < number <= len(found) else match.group(0)

    return ANSWER_PLACEHOLDER.sub(value, text)


def revealed(store: Store, text: str) -> str | None:
    """A stored answer with its quoted secrets back (`reveal`), or None when it has none to put back."""
    if "[secret " not in text:
        return None
    shown = reveal(store, text)
    return shown if shown != text else None


def memory_secret_values(store: Store, memory_id: int) -> list[str]:
    """The secret values of one memory's texts, its earliest first (what "[secret 2 of memory #12]" counts)."""
    row = store.one("SELECT content, sensitive FROM knowledge WHERE id = ?", (memory_id,))
    if row is None:
        return []
    history = store.query("SELECT content, sensitive FROM memory_history WHERE memory_id = ? ORDER BY id", (memory_id,))
    texts = [(h[0], bool(h[1])) for h in history]
    return memory_values([*texts, (row[0], True)] if row[1] else texts)


def _message_values(store: Store, message_id: int) -> list[str]:
    row = store.one("SELECT content FROM messages WHERE id = ? AND role = 'user'", (message_id,))
    return [] if row is None else _secrets_of_message(store, message_id, row[0])


def _secrets_of_message(store: Store, message_id: int, text: str, embedder: Any = None) -> list[str]:
    from memory.sensitive import find_secrets

    flagged = Opinions(store, embedder).message(message_id, text)
    found: dict[str, None] = {}
    found.update((span.value(text), None) for span in find_secrets(text, flagged))
    return list(found)


def said_lately(store: Store, conversations: int = 3, limit: int = 60, besides: int | None = None) -> list[str]:
    """The secrets of what the person wrote in the last `conversations` (the one in progress and those before it,
    their last `limit` messages): said again in a later one, a value goes as a placeholder too ("is 7351 still
    right?" days after "my bank PIN is 7351" was said to a model, and kept as no memory, went out whole).
    `besides`: a conversation whose secrets the caller reads already (not read twice)."""
    return [value for _, said in said_lately_by_message(store, conversations, limit, besides) for value in said]


def said_lately_by_message(store: Store, conversations: int = 3, limit: int = 60,
                           besides: int | None = None) -> list[tuple[int, list[str]]]:
    """said_lately's secrets, by the message that said them (newest first)."""
    rows = store.query("SELECT id, content FROM messages WHERE role = 'user' AND episode_id IN "
                       "(SELECT id FROM episodes ORDER BY id DESC LIMIT ?) AND episode_id IS NOT ? "
                       "ORDER BY id DESC LIMIT ?", (conversations, besides, limit))
    return [(r[0], said) for r in rows if (said := _secrets_of_message(store, r[0], r[1]))]


def said_in(store: Store, episode_id: int, embedder: Any = None) -> list[tuple[int, list[str]]]:
    """The secrets of what the person wrote in a conversation (its last 20 messages), by message; `embedder`: the
    app's, so a message not embedded yet gets the classifier's verdict now."""
    rows = store.query("SELECT id, content FROM messages WHERE episode_id = ? AND role = 'user' "
                       "ORDER BY id DESC LIMIT 20", (episode_id,))
    return [(r[0], said) for r in rows if (said := _secrets_of_message(store, r[0], r[1], embedder))]
