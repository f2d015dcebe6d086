"""Messages ranked in their conversation: what a turn's neighbours, its date, its speaker and its form say.

The fused keyword and vector scores (memory.search.hybrid) judge each text alone. In a chat the
answer often shares few words with the question while the turn before it does, a "when" question
is answered by the turn that says when, a question names the day or the person it is about, and a
turn that only asks something seldom holds an answer. This stage takes the best message
candidates of a search and adjusts their scores with what two small queries can tell. Each rule
was measured on benchmarks/bench_locomo.py (real conversations) and benchmarks/bench_retrieval.py
(synthetic ones); docs/retrieval.md has each one's ablation row.

- Carry: each of the best keyword-matching turns lends its keyword score to the next turn of its
  conversation, the answer to what it asked ("What dance were you doing?" -> "A contemporary
  piece called 'Finding Freedom'"). Never across conversations, never into a turn of fewer than
  `carry_min_words` words ("haha yes" holds no answer).
- Speaker: a turn written "Name: text" (a transcript, as imported chats are) by a person the
  query names weighs more: the evidence of "What did Melanie paint?" is Melanie's turn nine times
  in ten.
- When: for a question about when something happened, a turn that says when (a relative date, a
  weekday, a month, a duration) weighs more, and the best turns lend a share of their score to
  such a turn up to two turns away ("something not so great happened yesterday..." comes two turns
  before "A car ran a red light and hit us").
- A named period: a query that names a day, a month or a year ("on October 13, 2023", "in March")
  draws in the messages of the conversations held then, and ranks them first by their own score.
- Questions: a turn that ends by asking weighs less (a quarter of the turns, an eighth of the
  evidence).
- Echoes: the assistant's own messages that quote another hit word for word ("From memory (you
  told me ...): X") score just below what they quote (settle_echoes). An answer is stored with
  "[secret 1 of memory #12]" where it quoted a secret value: read with the value back, it quotes
  the memory as it did when it was said (`echoes`).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from memory.docs import doc_id, split_doc_id
from memory.secrets import reveal
from memory.store import Store
from memory.time.instants import to_utc_iso
from memory.time.references import asks_when, mentions_time, named_periods

NEIGHBOUR_SPAN = 8  # row ids searched on each side of a turn for its neighbours in the same conversation
PERIOD_CANDIDATES = 400  # messages a named period draws in at most (the newest of them)
MAX_PERIOD_RANGES = 40  # a period without a year is looked for in each year of the store, up to this many
ECHO_FACTOR = 0.99  # an echo's score: just below what it quotes


@dataclass
class Turn:
    id: int
    episode: int | None
    role: str
    content: str

    @property
    def doc(self) -> int:
        return doc_id("message", self.id)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


_SPEAKER = re.compile(r"^\s*(\w[\w .'-]{0,40}?):\s")


def speaker(text: str) -> str | None:
    """Who says a turn written "Name: text" (a transcript's form), lower-cased; None otherwise."""
    match = _SPEAKER.match(text)
    return match[1].lower() if match else None


_ANNOTATION = re.compile(r"\[[^\]]*\]")  # "[Sun Nov 8]", "[Private]": added when a memory is shown


def quotes(echo: str, quoted: str, min_words: int = 3) -> bool:
    """Whether `echo` holds `quoted` word for word (case, punctuation and shown annotations aside)."""
    needle = _words(_ANNOTATION.sub(" ", quoted))
    if len(needle) < min_words:
        return False
    return f" {' '.join(needle)} " in f" {' '.join(_words(_ANNOTATION.sub(' ', echo)))} "


class Context:
    """One search's message candidates in their conversations. `fused` (doc -> score) is adjusted in
    place; `keyword` is the keyword part of each score; `score_of(docs)` gives the score documents
    no arm found would have from their stored vectors (0 without vectors)."""

    def __init__(self, store: Store, fusion: Any, fused: dict[int, float], keyword: dict[int, float],
                 score_of: Callable[[list[int]], dict[int, float]]) -> None:
        self.store, self.fusion, self.fused, self.keyword, self.score_of = store, fusion, fused, keyword, score_of
        self.turns: dict[int, Turn] = {}  # message id -> row
        self.by_episode: dict[int, list[Turn]] = {}
        self.position: dict[int, tuple[int, int]] = {}  # message id -> (episode, index in by_episode)
        self._said: dict[int, str] = {}  # assistant message id -> its text with its secrets back (`echoes`)

    def messages(self, count: int) -> list[int]:
        """The best `count` message documents by their current score."""
        docs = [d for d in self.fused if split_doc_id(d)[0] == "message"]
        return sorted(docs, key=lambda d: (-self.fused[d], d))[:count]

    def read(self, ids: list[int], neighbours: bool = False) -> None:
        """The rows of these messages (and of the turns around them in their conversation)."""
        wanted = [i for i in dict.fromkeys(ids) if neighbours or i not in self.turns]
        if not wanted:
            return
        marks = ",".join("?" * len(wanted))
        if neighbours:
            rows = self.store.query(
                "SELECT DISTINCT x.id, x.episode_id, x.role, x.content FROM messages m JOIN messages x "
                f"ON x.id BETWEEN m.id - {NEIGHBOUR_SPAN} AND m.id + {NEIGHBOUR_SPAN} AND x.episode_id = m.episode_id "
                f"AND x.role IN ('user', 'assistant') WHERE m.id IN ({marks})", tuple(wanted))
        else:
            rows = self.store.query(f"SELECT id, episode_id, role, content FROM messages WHERE id IN ({marks})",
                                    tuple(wanted))
        for r in rows:
            self.turns[r[0]] = Turn(r[0], r[1], r[2], r[3])
        self.by_episode = {}
        for turn in sorted(self.turns.values(), key=lambda t: t.id):
            if turn.episode is not None:
                self.by_episode.setdefault(turn.episode, []).append(turn)
        self.position = {t.id: (e, i) for e, turns in self.by_episode.items() for i, t in enumerate(turns)}

    def neighbour(self, message_id: int, step: int) -> Turn | None:
        """The turn `step` turns after (before, when negative) this one in its conversation, if read."""
        where = self.position.get(message_id)
        if where is None:
            return None
        turns, index = self.by_episode[where[0]], where[1] + step
        return turns[index] if 0 <= index < len(turns) else None

    def rerank(self, query: str, limit: int) -> None:
        f = self.fusion
        count = max(f.context_candidates, limit * 3)
        pool = self.messages(count)
        lifted: dict[int, float] = {}  # the period's turns and what the lift added to each
        if f.period_lift:
            drawn, period = self._named_period(query)
            pool += drawn
            lift = f.period_lift * max(self.fused.values(), default=0.0)
            for d in period:
                self.fused[d] += lift
                lifted[d] = lift
        when = bool(f.when_boost or f.when_around) and asks_when(query)
        self.read([split_doc_id(d)[1] for d in pool], neighbours=True)
        if f.carry:
            self._carry()
        named = set(_words(query)) if f.speaker_boost else set()
        for d in self.messages(count):
            turn = self.turns.get(split_doc_id(d)[1])
            if turn is None:
                continue
            if named and speaker(turn.content) in named:
                self.fused[d] *= 1 + f.speaker_boost
            if when and mentions_time(turn.content):
                self.fused[d] *= 1 + f.when_boost
            if f.question_penalty and turn.content.rstrip().endswith("?"):
                # Not on a period's lift: a question of the period that shares the query's words ("what
                # did I ask about sourdough last spring?") stays above the period's turns that share none.
                lift = lifted.get(d, 0.0)
                self.fused[d] = (self.fused[d] - lift) * (1 - f.question_penalty) + lift
        if when and f.when_around:
            self._when_around(self.messages(f.when_sources))

    def _carry(self) -> None:
        """The next turn after each of the best keyword hits gets that hit's keyword score added."""
        f = self.fusion
        sources = sorted((d for d in self.keyword if split_doc_id(d)[0] == "message" and self.keyword[d] > 0),
                         key=lambda d: -self.keyword[d])[:f.carry_sources]
        self.read([split_doc_id(d)[1] for d in sources if split_doc_id(d)[1] not in self.position], neighbours=True)
        lent: dict[int, float] = {}
        for source in sources:
            after = self.neighbour(split_doc_id(source)[1], 1)
            if after is not None and len(_words(after.content)) >= f.carry_min_words:
                lent[after.doc] = lent.get(after.doc, 0.0) + f.carry * self.keyword[source]
        for receiver, amount in lent.items():
            self.fused[receiver] = self.fused.get(receiver, 0.0) + amount

    def _when_around(self, sources: list[int]) -> None:
        """For a "when" question: the turns up to two away from the best ones that say when get a
        share of their score (half of it two turns away); each takes the largest it is offered."""
        lent: dict[int, float] = {}
        for source in sources:
            for step in (-2, -1, 1, 2):
                other = self.neighbour(split_doc_id(source)[1], step)
                if other is not None and mentions_time(other.content):
                    share = self.fusion.when_around * self.fused[source] / abs(step)
                    lent[other.doc] = max(lent.get(other.doc, 0.0), share)
        for receiver, amount in lent.items():
            self.fused[receiver] = self.fused.get(receiver, 0.0) + amount

    def _named_period(self, query: str) -> tuple[list[int], list[int]]:
        """The messages of the conversations held in a period the query names: drawn in as candidates
        (scored by their vectors); rerank adds the best score of the search to each, so that they come
        first in their own order. Returns the documents drawn in, and all of the period's."""
        periods = named_periods(query, self.store.clock.local(self.store.clock.now()).date())
        if not periods:
            return [], []
        span = self.store.one("SELECT min(started_at), max(started_at) FROM episodes")
        if span[0] is None:
            return [], []
        clock, after = self.store.clock, timedelta(days=self.fusion.period_after_days)
        first, last = clock.local(span[0]).year, clock.local(span[1]).year
        ranges = []
        for period in periods:
            for year in ([period.year] if period.year else range(first, last + 1)):
                start, end = (moment.replace(tzinfo=clock.zone) for moment in period.start_and_end(year))
                # A conversation of the day before may already speak of the day; one of the days after
                # may tell of it ("last Friday").
                ranges.append((to_utc_iso(start - timedelta(days=1)), to_utc_iso(end + after)))
        if not ranges or len(ranges) > MAX_PERIOD_RANGES:
            return [], []
        where = " OR ".join("(e.started_at >= ? AND e.started_at < ?)" for _ in ranges)
        rows = self.store.query(f"SELECT m.id FROM episodes e JOIN messages m ON m.episode_id = e.id WHERE ({where}) "
                                f"AND m.role IN ('user', 'assistant') ORDER BY m.id DESC LIMIT {PERIOD_CANDIDATES}",
                                tuple(v for pair in ranges for v in pair))
        docs = [doc_id("message", r[0]) for r in rows]
        # The search's own hits said in the period count too, however many turns the period holds (a
        # year of imported history holds more than the newest PERIOD_CANDIDATES).
        found = [split_doc_id(d)[1] for d in self.fused if split_doc_id(d)[0] == "message"]
        if found:
            marks = ",".join("?" * len(found))
            docs += [doc_id("message", r[0]) for r in self.store.query(
                f"SELECT m.id FROM episodes e JOIN messages m ON m.episode_id = e.id WHERE m.id IN ({marks}) "
                f"AND ({where})", (*found, *(v for pair in ranges for v in pair)))]
            docs = list(dict.fromkeys(docs))
        new = [d for d in docs if d not in self.fused]
        self.fused.update(self.score_of(new))
        return new, docs

    def settle_echoes(self, texts: dict[int, str]) -> None:
        """Each assistant message among these documents that quotes another of them word for word
        scores just below the lowest-scored one it quotes (`texts`: each document's whole text)."""
        self.read([split_doc_id(d)[1] for d in texts if split_doc_id(d)[0] == "message"])
        for d in texts:
            kind, row_id = split_doc_id(d)
            if kind != "message" or row_id not in self.turns or self.turns[row_id].role != "assistant":
                continue
            quoted = [self.fused[o] for o, other in texts.items() if o != d and self.echoes(row_id, other)]
            if quoted:
                self.fused[d] = min(self.fused[d], min(quoted) * ECHO_FACTOR)

    def echoes(self, message_id: int, text: str) -> bool:
        """Whether this assistant message (read) quotes `text` word for word. Its stored placeholders of
        secrets ("[secret 1 of memory #12]") are read as the values they stood for: the answer said the
        value, and compared as stored it quoted no secret memory at all (both of a secret code's answers
        ranked above the code). Only compared here: the hit's content stays as stored."""
        said = self._said.get(message_id)
        if said is None:
            said = self._said[message_id] = reveal(self.store, self.turns[message_id].content)
        return quotes(said, text)
