"""What may leave the machine for a model: the rules of SPEC section 5, kept here once.

A `Gate` is made for one request (a chat turn, a title, a consolidation call) from the store and
the user's message of that turn ("" when there is none). Everything that builds text for a model
asks it:
- a stored memory (`memory`): a sensitive one (decided when it was written) goes out whole as
  "[secret in memory #12]"; a private one as "[private memory #7]" unless the message asks about it
  (its id, or one of its own distinctive words: never a shared ordinary word), then marked [Private];
- any other stored text (`text`: messages, titles, summaries, tool results): quotations of withheld
  memories replaced by their id (whole quotations at word boundaries, never inside other words),
  the detector's secret spans by where they live, this turn's own secrets by their placeholders;
- the user's message of this turn (`user_message`): each secret a numbered placeholder that
  `restore` puts back into what the model asks a tool to store, and `text` takes out again of what
  comes back (a tool result never carries it to the model).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from assistant.conversation import AssistantMessage, Item, ToolResults, UserMessage
from assistant.reading import Reading, mentioned_ids
from assistant.views import PRIVATE_MARK, private_marked
from memory import episodes, memories
from memory.memories import Memory
from memory.secrets import Opinions, restates, reveal, said_in, said_lately
from memory.secrets import values as secret_values
from memory.sensitive import redact, withhold_fragments
from memory.store import Store
from memory.words import asks_by_words, names_word, shares_sign, sign_words


def asks_about(message: str, memory: Memory, ids: frozenset[int] | None = None) -> bool:
    """Whether `message` asks about this memory: its id ("#12", "memory 12"), its own words (one rare
    word or name, or two less common ones: memory.words.asks_by_words), or for a person the name
    ("how is Al" asks about "Al: ...", "will it rain" not about "Will: ...")."""
    if not message.strip():
        return False
    if memory.id in (mentioned_ids(message) if ids is None else ids):
        return True
    if memory.kind == "person":
        name = memory.content.split(":")[0].strip()
        if name and names_word(message, name):
            return True
    return asks_by_words(message, memory.content)


# The stand-ins the gate writes, and why (the Why view says it in these words).
_WITHHELD = [(re.compile(pattern), why) for pattern, why in (
    (r"\[secret in memory #\d+\]", "the memory holds a secret: only its id went"),
    (r"\[private memory #\d+\]", "a private memory this message did not ask about: only its id went"),
    (r"\[secret \d+ of (?:your|an earlier) message\]", "a secret of your message: a numbered placeholder went"),
    (r"\[secret \d+ of (?:memory|message) #\d+\]", "a secret an earlier answer quoted: it was stored as this"),
    (r"\[secret in (?!memory #)[^\]\n]{1,60}\]", "a secret in stored text: replaced"),
    (r"\[private message #\d+\]", "a message that told a private memory: only its id went"),
    (r"\[private conversation #\d+\]", "a title that repeats a private memory: only its id went"),
    (r"\[a private memory, withheld\]", "a line quoting a private memory"),
    (r"\[secret withheld\]", "a piece of a secret, however it was cut or quoted"),
)]


def withheld_in(sent: str) -> list[dict[str, str]]:
    """The placeholders a gate leaves in `sent` (a request as it left), each with why: the Why view."""
    found: dict[str, str] = {}
    for pattern, why in _WITHHELD:
        for match in pattern.finditer(sent):
            found.setdefault(match.group(0), why)
    return [{"what": what, "why": why} for what, why in found.items()]


class _Held:
    """What a gate reads from the store, whatever the message asks: the private and sensitive memories,
    their earlier texts, the secrets of what the person wrote in the last conversations, and (as needed) the
    turns each was told in. Read once per request and shared by the gates of that request (Gate.unasked)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.memories = memories.withheld_candidates(store)  # private or sensitive: few
        self.earlier = memories.withheld_earlier_texts(store)
        self.said_lately = tuple(said_lately(store))
        self._turns: dict[int, list[Any]] = {}

    def turns(self, m: Memory) -> list[Any]:
        if m.id not in self._turns:
            self._turns[m.id] = memories.source_turns(self.store, m)
        return self._turns[m.id]


class Gate:
    """The gate of a request to a model."""

    def __init__(self, store: Store, message: str = "", ids: frozenset[int] | None = None,
                 embedder: Any = None, *, loaded: _Held | None = None) -> None:
        """`embedder`: the app's, so the classifier's opinion of a text not embedded yet is taken now
        (memory.secrets.Opinions); without it a text's stored vector gives it, or the rules alone decide.
        `loaded`: what another gate of the same request read already."""
        self.store = store
        self.asking = message  # the user's message of this request
        self.opinions = Opinions(store, embedder)
        self._held = loaded or _Held(store)
        held, earlier = self._held.memories, self._held.earlier
        # Every text a memory has had, its current one first: an earlier wording (before an edit) is held
        # back wherever the memory is, quoted in a message, a reply, a summary or a tool result.
        texts = {m.id: [m.content, *(e.content for e in reversed(earlier.get(m.id, [])))] for m in held}
        # The secret values of the sensitive memories, for the last step (`fragments`): their values only,
        # never their ordinary words ("my bank password is"); an earlier text's too, and what a memory said
        # before an edit took its secret out (it is no longer held, but what it said before still is).
        self._memory_secrets = [v.value for v in secret_values(store)]
        # The secrets of the stored texts this request carries (their messages'), and of what the person wrote in
        # the last conversations, said again anywhere (a re-check's: "also 2207 for the porch" after "the porch key
        # safe is 2207 then push down" went whole to MCP's recap and recall_recent)
        self._said_secrets: list[str] = list(self._held.said_lately)
        self._recent: list[str] = []  # the secrets of the person's last messages in this conversation
        held_ids = {m.id for m in held}
        once_secret = {i: [e.content for e in texts_before if e.sensitive]
                       for i, texts_before in earlier.items() if i not in held_ids}
        ids = mentioned_ids(message) if ids is None else ids
        self.asked = {m.id for m in held if m.private and not m.sensitive and asks_about(message, m, ids)}
        self._asked_texts = [t for m in held if m.id in self.asked for t in texts[m.id] if t.strip()]
        self._asked_signs = sign_words("\n".join(self._asked_texts))
        self._asked_quotes = memories.quotation_pattern(*self._asked_texts)
        self._placeholder: dict[str, str] = {}
        for m in held:
            if m.sensitive or m.id not in self.asked:
                for t in texts[m.id]:
                    if t.strip():
                        self._placeholder.setdefault(t.strip(), self._stand_in(m))
        for i, said in once_secret.items():
            for t in said:
                self._placeholder.setdefault(t.strip(), f"[secret in memory #{i}]")
        self._folded = {k.casefold(): v for k, v in self._placeholder.items()}
        self._withheld = memories.quotation_pattern(*self._placeholder)
        # The turns a withheld private memory was told in, and their conversations: the user's own
        # words there, the replies and the quick title say it again in other words.
        self.private_messages: dict[int, int] = {}
        self.private_episodes: dict[int, frozenset[str]] = {}  # -> the signs its title must not repeat
        for m in held:
            if m.private and m.id not in self.asked:
                turns = self._held.turns(m)
                words = sign_words("\n".join([*texts[m.id], *(t["content"] for t in turns if t["role"] == "user")]))
                for turn in turns:
                    self.private_messages[turn["id"]] = m.id
                    if turn["episode_id"] is not None:
                        self.private_episodes[turn["episode_id"]] = \
                            self.private_episodes.get(turn["episode_id"], frozenset()) | words
        # A line marked [Private] quotes a private memory (perhaps as it read before an edit): it goes
        # only in a turn that asks about a private memory.
        self.marked_lines_pass = bool(self.asked)
        self.secrets: dict[str, str] = {}  # placeholder -> the secret of the user's message it stands for

    @classmethod
    def for_turn(cls, store: Store, reading: Reading, embedder: Any = None) -> Gate:
        """The gate of a chat turn: the user's message is the one read, and its secrets are numbered
        placeholders from the start (`user_message`)."""
        gate = cls(store, reading.text, reading.ids, embedder)
        active = episodes.active_episode(store)
        if active is not None:  # what the person said just before: a correction of it is a secret too
            gate._recent = [value for _, said in said_in(store, active.id) for value in said]
            gate._said_secrets += gate._recent
        gate.user_message(reading.text)
        return gate

    def unasked(self) -> Gate:
        """The gate of a request no message asks anything of (the system prompt's memory, the same for
        every message): a private memory goes by its id, whatever this one asks."""
        if not (self.asking.strip() or self.secrets):
            return self
        gate = Gate(self.store, loaded=self._held)
        gate.opinions = self.opinions  # the same embedder's opinions, the same request
        return gate

    @staticmethod
    def _stand_in(m: Memory) -> str:
        return f"[secret in memory #{m.id}]" if m.sensitive else f"[private memory #{m.id}]"

    # -- stored memories ---------------------------------------------------------------------

    def listed(self, m: Memory) -> bool:
        """Whether this memory may be mentioned at all: not private, or the message asks about it."""
        return not m.private or m.id in self.asked or asks_about(self.asking, m)

    def allows(self, m: Memory) -> bool:
        """Whether this memory's text may go out: listed, and not sensitive (marked so, or flagged by the
        classifier before its verdict was stored)."""
        return self.listed(m) and not self.opinions.memory(m)

    def memory(self, m: Memory) -> str:
        """The memory's text as it may be sent (a stand-in by id when it may not)."""
        if not self.allows(m):
            return self._stand_in(m) if not self.listed(m) or m.sensitive else f"[secret in memory #{m.id}]"
        text = self.text(m.content, f"memory #{m.id}", own=m.id)
        return private_marked(text, m.private)

    # -- messages and conversations ----------------------------------------------------------

    def message(self, message_id: int | None, text: str) -> str:
        """A stored message as it may be sent: one that told a withheld private memory, by its id."""
        if message_id in self.private_messages:
            return f"[private message #{message_id}]"
        return self.text(text, f"message #{message_id}" if message_id else "this conversation",
                         flagged=self.opinions.message(message_id, text) or self._restates(text))

    def episode(self, episode_id: int, text: str) -> str:
        """A conversation's title or summary as it may be sent: in a conversation where a withheld
        private memory was told, one that repeats its words ("Privately, psychiatrist, sertraline")
        goes by the conversation's id; "Ski Trip Planning" goes as it is."""
        if episode_id in self.private_episodes and shares_sign(text, self.private_episodes[episode_id]):
            return f"[private conversation #{episode_id}]"
        return self.text(text, f"conversation #{episode_id}")

    def stored(self, kind: str, row_id: int, text: str) -> str:
        """A stored message, conversation or summary (a search hit) as it may be sent."""
        if kind == "message":
            return self.message(row_id, text)
        if kind == "episode":
            return self.episode(row_id, text)
        return self.text(text, f"{kind} #{row_id}")

    # -- any stored text ---------------------------------------------------------------------

    def text(self, text: str, where: str, own: int | None = None, flagged: bool = False) -> str:
        """`text` as it may be sent: withheld memories by id, secrets by where they live, this turn's
        secrets by their placeholders. `own`: the memory this text is (it is not withheld from itself);
        `flagged`: the classifier says it holds a secret (what looks like a value in it goes too)."""
        if not text:
            return text
        for placeholder, secret in self.secrets.items():  # also as an error message may spell it: lower-cased
            # Whole only, never inside another word (a PIN 4471 is not taken out of 144712).
            whole = rf"(?<!\w){re.escape(secret)}(?!\w)" if re.match(r"\w", secret[:1]) and \
                re.match(r"\w", secret[-1:]) else re.escape(secret)
            text = re.compile(whole, re.IGNORECASE).sub(lambda _: placeholder, text)  # noqa: B023
        if self._withheld is not None:
            def stand_in(match: re.Match[str]) -> str:
                found = self._placeholder.get(match.group(0).strip()) or \
                    self._folded.get(match.group(0).strip().casefold())
                if found is None:  # matched by the regex's case folding alone ("ſam" for "Sam")
                    return "[a private memory, withheld]"
                return match.group(0) if own is not None and found.endswith(f"#{own}]") else found

            text = self._withheld.sub(stand_in, text)
        if PRIVATE_MARK in text:
            # A line marked [Private] quotes a private memory (perhaps with dates written in): it goes
            # only when it repeats the words of a memory this message asks about, not of another one.
            text = "\n".join(line if PRIVATE_MARK not in line or (self.marked_lines_pass and self._repeats_asked(line))
                             else "[a private memory, withheld]" for line in text.split("\n"))
        mask = f"[secret in {where}]"

        def kept(secret: str) -> str:
            self._said_secrets.append(secret)  # said again later in the request, it goes too (the last step)
            return mask

        text = redact(text, kept, flagged)
        recent = [*self._recent, *self._held.said_lately]
        if recent and not flagged:
            # a line that corrects a secret the person said lately is one too ("no wait, 3-1-5" after "the locker
            # combo is 3-1-4", quoted in a recall_recent result: an attacker's), as in their own messages
            text = "\n".join(redact(line, kept, True) if restates(line, (), recent) else line
                             for line in text.split("\n"))
        return text

    def _repeats_asked(self, line: str) -> bool:
        """Whether a line marked [Private] is about a memory this request asks about (and not another
        private one): it quotes one of its texts, shares a sign with them, or names one by its words
        (a memory of ordinary words only, "my sister's birthday is on March 5", has no sign to share)."""
        return shares_sign(line, self._asked_signs) or \
            (self._asked_quotes is not None and self._asked_quotes.search(line) is not None) or \
            any(asks_by_words(line, t) for t in self._asked_texts)

    # -- the user's message of this turn -----------------------------------------------------

    def user_message(self, text: str) -> str:
        """The user's message of this turn as sent: each secret becomes "[secret 1 of your message]": what the
        detector finds, and in a message the classifier flags or that gives a secret memory's subject a new
        value ("since Monday it's 7720 at the back" after "the back door code is 4411"), what looks like a
        value."""
        def placeholder(secret: str) -> str:
            for name, value in self.secrets.items():
                if value == secret:
                    return name
            name = f"[secret {len(self.secrets) + 1} of your message]"
            self.secrets[name] = secret
            return name

        from memory.replacing import renews_a_secret  # subjects and the supersession rules: read when asked

        return redact(text, placeholder, self.opinions.flagged(text) or self._restates(text)
                      or renews_a_secret(self.store, text, self.opinions.embedder))

    def _restates(self, text: str) -> bool:
        """Whether `text` says a secret value again (a stored one, one of this turn's, or one the person said in
        this conversation) or gives one of the last of these another value of its shape: then what else in it
        looks like a value goes too ("sorry, not 2468, it's 2486" after "my new debit card PIN is 2468", "oops I mean
        2486": each correction went out whole)."""
        return restates(text, (*self.secrets.values(), *self._memory_secrets, *self._said_secrets), self._recent)

    def restore(self, value: Any) -> Any:
        """Tool arguments (and the answer the person reads) with this turn's placeholders replaced by the
        secrets they stand for, and the names stored answers give them ("[secret 1 of message #40]", "[secret
        2 of memory #12]": an earlier turn's, which the model sees in the history) by theirs."""
        if isinstance(value, str):
            for name, secret in self.secrets.items():
                value = value.replace(name, secret)
            return reveal(self.store, value)
        if isinstance(value, dict):
            return {k: self.restore(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.restore(v) for v in value]
        return value

    # -- whole requests ----------------------------------------------------------------------

    def withheld_in(self, sent: str) -> list[dict[str, str]]:
        """What this gate withheld or replaced in `sent` (a request as it left), and why: the Why view."""
        return withheld_in(sent)

    def fragments(self, text: str) -> str:
        """The last step of every request: no run of 8+ characters or 3+ words of a secret value (this
        turn's, restored for a tool; a sensitive memory's) is left anywhere, however it was cut, quoted
        or reformatted on the way (an error message that cut a restored value at 77 characters)."""
        return withhold_fragments(text, [*self.secrets.values(), *self._memory_secrets, *self._said_secrets])

    def conversation(self, items: list[Item]) -> list[Item]:
        """Each item of a conversation as it may be sent: messages, tool calls and tool results, each
        through the last step too."""
        return [self._last_step(item) for item in self._gated(items)]

    def _last_step(self, item: Item) -> Item:
        if isinstance(item, UserMessage):
            return replace(item, text=self.fragments(item.text))
        if isinstance(item, AssistantMessage):
            return replace(item, text=self.fragments(item.text), tool_calls=tuple(
                replace(c, input=self._each_string(c.input, self.fragments)) for c in item.tool_calls))
        return ToolResults(tuple(replace(r, content=self.fragments(r.content)) for r in item.results))

    @classmethod
    def _each_string(cls, value: Any, change: Callable[[str], str]) -> Any:
        if isinstance(value, str):
            return change(value)
        if isinstance(value, dict):
            return {k: cls._each_string(v, change) for k, v in value.items()}
        if isinstance(value, list):
            return [cls._each_string(v, change) for v in value]
        return value

    def _gated(self, items: list[Item]) -> list[Item]:
        out: list[Item] = []
        for item in items:
            if isinstance(item, UserMessage):
                out.append(replace(item, text=self.message(item.message_id, item.text)))
            elif isinstance(item, AssistantMessage):
                out.append(replace(item, text=self.message(item.message_id, item.text), tool_calls=tuple(
                    replace(c, input=self._each_string(c.input, lambda v: self.text(v, "a tool call")))
                    for c in item.tool_calls)))
            else:
                out.append(ToolResults(tuple(replace(r, content=self.text(r.content, f"{r.name} result"), data=None)
                                             for r in item.results)))
        return out



class LocalGate(Gate):
    """The gate where nothing leaves the machine (the offline mode): text passes unchanged, so the
    person's own values still show on their own screen."""

    def __init__(self) -> None:  # noqa: D107 - nothing to load: nothing is withheld
        self.asking = ""
        self.asked: set[int] = set()
        self.private_messages = {}
        self.private_episodes = {}
        self.marked_lines_pass = True
        self.secrets = {}
        self.opinions = Opinions(None)

    @classmethod
    def for_turn(cls, store: Store, reading: Reading, embedder: Any = None) -> Gate:
        return cls()

    def unasked(self) -> Gate:
        return self

    def listed(self, m: Memory) -> bool:
        return True

    def allows(self, m: Memory) -> bool:
        return True

    def memory(self, m: Memory) -> str:
        return m.content

    def message(self, message_id: int | None, text: str) -> str:
        return text

    def episode(self, episode_id: int, text: str) -> str:
        return text

    def stored(self, kind: str, row_id: int, text: str) -> str:
        return text

    def text(self, text: str, where: str, own: int | None = None, flagged: bool = False) -> str:
        return text

    def user_message(self, text: str) -> str:
        return text

    def restore(self, value: Any) -> Any:
        return value

    def conversation(self, items: list[Item]) -> list[Item]:
        return list(items)

    def withheld_in(self, sent: str) -> list[dict[str, str]]:
        """What this gate withheld or replaced in `sent` (a request as it left), and why: the Why view."""
        return withheld_in(sent)

    def fragments(self, text: str) -> str:
        return text


LOCAL_GATE = LocalGate()  # it holds nothing and changes nothing: one serves every local use
