"""Hybrid search (SPEC F5): FTS5 BM25 and sqlite-vec cosine KNN, fused by their scores.

Searches past messages, memories, episode summaries and consolidated summaries. Retrieval modes
filter by tier. A search reads only; `touch=True` (a use: the model's recall, the user's) counts the
returned memories as used (activation_count + 1, last_accessed = now) in one batched write.

How the two rankings become one was chosen on benchmarks/bench_retrieval.py (long two-person
chats with labelled questions) and benchmarks/bench_locomo.py (real ones, LoCoMo); the figures
are in docs/retrieval.md:

- Score-aware fusion. BM25 divided by the best BM25 of the query, blended half and half with the
  cosine similarity min-max scaled over the vector candidates. Reciprocal-rank fusion (k=60), used
  before, counts a document's position whatever its merit: turns that match the query only by a
  word found in most documents (the speaker's name, which FTS5 gives an IDF of ~0) sat mid-rank in
  both lists and outranked the top keyword hit. With scores, such a turn gets ~0 from the keyword
  side: the top keyword hit scores at least 0.5, which a document without keyword merit reaches
  only by being the nearest vector. Without a query vector the order is BM25's; with no keyword
  match it is the vectors'.
- The embedded query leaves out the words found in most documents (vector_text): the keyword side
  gives them no weight already, but in a vector they pull the query toward every short turn that
  says them ("When did Maria meet Jean?" found "John: Wow, Maria! ..." first).
- Messages are then ranked in their conversation (memory.search.context): the turn after a keyword
  hit, the speaker the query names, the turn that says when, a period the query names; and the
  assistant's own echoes of a hit never rank above it.
"""
from __future__ import annotations

import contextlib
import re
import string
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from memory import vectors
from memory.docs import DOC_SLOTS, DOC_TYPES, doc_id, split_doc_id
from memory.errors import DiskFull, EmbedderUnavailable, InvalidInput
from memory.fts import content_match
from memory.search.context import ECHO_FACTOR, Context
from memory.search.embeddings import Embedder, pending_count, sync_embeddings
from memory.store import Store
from memory.time.instants import to_utc_iso

# Set inside `untouched`: searches read and write nothing (no activation, no embedding of waiting texts).
_UNTOUCHED: ContextVar[bool] = ContextVar("untouched", default=False)


# Set inside `cited`: the memories used (counted as used, or, inside `untouched`, that would have been)
# are collected, so a turn can record what its answer showed.
_CITED: ContextVar[list[int] | None] = ContextVar("cited", default=None)


@contextlib.contextmanager
def cited() -> Iterator[list[int]]:
    """The ids of the memories searches inside this block counted as used (Searcher.touch), in order:
    what an answer showed the person (the Why view of an offline answer). Collected inside `untouched`
    too, where nothing is written."""
    found: list[int] = []
    token = _CITED.set(found)
    try:
        yield found
    finally:
        with contextlib.suppress(ValueError):
            _CITED.reset(token)


@contextlib.contextmanager
def untouched() -> Iterator[None]:
    """Searches inside this block (in this task and the threads it starts with asyncio.to_thread, which
    copy its context) change nothing stored: an incognito conversation reads memory as usual and leaves
    every row as it was."""
    token = _UNTOUCHED.set(True)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # closed from another context: that one was never set
            _UNTOUCHED.reset(token)

if TYPE_CHECKING:
    import numpy as np

MODES = {
    "reflexive": ("hot",),
    "standard": ("hot", "warm"),
    "deep": ("hot", "warm", "cold"),
    "exhaustive": ("hot", "warm", "cold", "archived"),
}
# A query word found in more documents than this is left out of the keyword query (unless every word
# is that common): ranking every document that contains "budget" costs ~70 ms at 100k and such a
# word carries little BM25 weight. Checking costs one bounded doclist read per word. The bound also
# bounds the cost of ranking, whatever the size of the store: bm25() costs about 2 us a matching
# document, so a query of four rare words ranks at most 4,000 (2,000 left prompt assembly at 100k
# with a p95 of 22 ms, 1,000 with 17 ms, same machine and queries).
COMMON_TERM_DOCS = 1000
COMMON_TERM_TTL = 600.0  # seconds a word's "common or not" is remembered
EVERYWHERE_MIN_DOCS = 50  # below this, no word is judged to be everywhere
COMMON_WINDOW = 200_000  # a query of common words only looks for keyword matches among the newest rows
SMALL_TYPES = ("episode", "summary")  # filtering the FTS index by type pays off only for rare types
# Texts a search embeds before it answers: the few a turn leaves waiting (its own new messages), and only
# when no more than this wait. More is a backlog (an import, a while with the model off), and a search
# embeds none of it: it answers from the vectors there are plus FTS, at the cost of a search with nothing
# waiting, and says how many wait. A backlog is embedded in the app's idle time or by `assistant index`:
# a batch of 32 long chat messages costs ~2 s of CPU and ~600 MB at its peak (issue 46: a recall with
# 10,000 imported messages waiting took 6.4 s of CPU and 683 MB, where it now takes a search's).
EMBED_PER_SEARCH = 32
PINNED_CHECKED = 500  # pinned memories an echo is compared with (a person pins a handful; this bounds a search)
# In the order of the partial index on pinned memories (created_at): ordered by id, SQLite walked every
# memory backwards looking for the pinned ones (110 ms a search at a million).
PINNED_SQL = "SELECT id, content FROM knowledge WHERE pinned = 1 ORDER BY created_at DESC, id DESC LIMIT ?"
STOPWORDS = frozenset("""a an and are as at be but by did do does for from had has have how i i'm in is it
its me my of on or our so that the their them then there they this to us was we were what when where
which who why will with you your about can could would should just tell""".split())


ScoreOf = Callable[[list[int]], dict[int, float]]


@dataclass
class Hit:
    type: str  # message | memory | episode | summary
    id: int
    content: str
    created_at: str
    score: float
    tier: str
    episode_id: int | None = None
    importance: int | None = None
    kind: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.type != "message":
            data.pop("episode_id")
        return data


def query_words(text: str) -> list[str]:
    """The meaningful words of a query (\\w+ only, so user text never becomes FTS syntax)."""
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS]
    if not words:
        words = re.findall(r"\w+", text.lower())
    return list(dict.fromkeys(words))[:32]


@dataclass(frozen=True)
class Fusion:
    """How the keyword and vector rankings become one (see the module docstring for why)."""
    method: str = "blend"  # blend (score-aware) | rrf (reciprocal rank, the former way; for comparison)
    keyword_weight: float = 0.5  # share of the blend that is BM25; the rest is cosine
    # Candidates per arm, whatever the limit, so that `recall --limit 10` ranks as the prompt does:
    # 50 lost 4 points on single-hop questions, 200 gained nothing.
    depth: int = 100
    carry: float = 1.0  # share of a message's keyword score lent to the next turn of its episode
    carry_sources: int = 20  # how many of the best keyword hits lend (at least 2 x limit; 10 did as well)
    carry_min_words: int = 6
    # No vector candidate as similar as this: the query is about nothing stored, as far as vectors
    # tell, and the vector arm finds nothing. Without a floor, min-max scaling made the least bad of
    # unrelated texts look like a hit ("xylophone" listed every memory). MiniLM gives unrelated short
    # texts up to ~0.28 ("xylophone" / "what is my dentist's name?") and most related ones 0.4 and up.
    min_cosine: float = 0.3
    # When the best candidate reaches min_cosine, the others count down to this: with the people's
    # names out of the embedded query (`everywhere`) the evidence of a question often sits at 0.2-0.3,
    # and cutting it at 0.3 cost LoCoMo 1.9 points at hit@10 (0.1: every one of the 100 candidates).
    keep_cosine: float = 0.1
    # A query word found in more than this share of the documents is left out of the text that is
    # embedded (Searcher.vector_text): in a chat, the two people's names. 0.2 and 0.35 did alike.
    everywhere: float = 0.2
    # Messages ranked in their conversation (memory.search.context; each with its ablation row in
    # docs/retrieval.md): how many of the best message candidates are adjusted there, then
    context_candidates: int = 50
    speaker_boost: float = 0.5  # weight added to a turn written "Name: ..." whose name the query says
    when_boost: float = 1.0  # weight added to a turn that says when, for a "when" question
    when_around: float = 0.5  # share of a best turn's score lent to such a turn up to two turns away
    when_sources: int = 10  # how many of the best turns lend it
    period_lift: float = 1.0  # share of the best score added to the messages of a period the query names
    period_after_days: int = 7  # days after a named period whose conversations may still tell of it
    question_penalty: float = 0.2  # weight taken from a turn that ends by asking


def _rrf(ranking: list[int], k: int = 60) -> dict[int, float]:
    """Reciprocal rank fusion's share of each document; 60 is the k of its paper (Cormack et al., 2009)."""
    return {doc: 1.0 / (k + rank + 1) for rank, doc in enumerate(ranking)}


def _scaled_to_best(scores: list[tuple[int, float]]) -> dict[int, float]:
    """BM25 over the query's best BM25: the top keyword hit is 1, a word-of-no-weight match ~0."""
    best = max((s for _, s in scores), default=0.0)
    if best <= 0:  # no weight at all: keep BM25's order
        return {d: 1.0 / (1 + i) for i, (d, _) in enumerate(scores)}
    return {d: s / best for d, s in scores}


def _min_max(scores: list[tuple[int, float]]) -> dict[int, float]:
    """Cosines spread over [0, 1] among the candidates: raw MiniLM cosines of related and unrelated
    turns differ by ~0.2, too little to weigh against BM25 as they are (raw: -2 points)."""
    if not scores:
        return {}
    top, bottom = max(s for _, s in scores), min(s for _, s in scores)
    span = top - bottom
    return {d: (s - bottom) / span if span > 0 else 1.0 for d, s in scores}


class Searcher:
    """Hybrid search over one store; keyword-only (with one notice) when no embedder can load."""

    def __init__(self, store: Store, embedder: Embedder | None,
                 on_notice: Callable[[str], None] | None = None, fusion: Fusion | None = None,
                 on_backlog: Callable[[int], None] | None = None,
                 embed_per_search: int = EMBED_PER_SEARCH, common_term_docs: int = COMMON_TERM_DOCS,
                 common_window: int = COMMON_WINDOW) -> None:
        """`common_term_docs` and `common_window` bound the keyword side (see their constants); a
        benchmark raises them to compare the bounded search with the exact one."""
        self.fusion = fusion or Fusion()
        self.store = store
        self.embedder = embedder
        self.on_notice = on_notice  # a sentence for the user: semantic search is off, and why
        self.on_backlog = on_backlog  # how many texts wait for their embeddings (said once per searcher)
        self.semantic = embedder is not None
        self.embed_per_search = embed_per_search
        self.common_term_docs = common_term_docs
        self.common_window = common_window
        self.codes = vectors.CodeCache()  # the vector codes, kept between searches (48 bytes a document)
        self.pending = 0  # texts still waiting for an embedding after the last query was embedded
        self._noticed = False
        self._backlog_noticed = False
        self._common: dict[str, tuple[bool, float]] = {}  # word -> (common?, when checked)
        self._counts: dict[tuple[str, int], tuple[int, float]] = {}  # (word, ceiling) -> (documents, when)
        self._documents: tuple[int, float] | None = None  # (documents in the index, when counted)

    def _degrade(self, why: str) -> None:
        self.semantic = False
        if not self._noticed and self.on_notice:
            self.on_notice(f"Semantic search is off ({why}); using keyword search only.")
        self._noticed = True

    def embed_query(self, text: str) -> np.ndarray | None:
        """The query vector, or None when semantic search is unavailable."""
        if not self.semantic or self.embedder is None:
            if self.embedder is None:
                self._degrade("no embedding model configured")
            return None
        try:
            if not _UNTOUCHED.get():
                waiting = pending_count(self.store)
                few = waiting if waiting <= self.embed_per_search else 0  # a backlog: none of it
                with contextlib.suppress(DiskFull):  # bookkeeping: a search answers on a full disk too
                    sync_embeddings(self.store, self.embedder, limit=few)
            vector: np.ndarray = self.embedder.embed([self.vector_text(text)])[0]
        except EmbedderUnavailable as exc:
            self._degrade(str(exc))
            return None
        self.pending = pending_count(self.store)
        # A few texts waiting (the turns just said) are the next search's or idle moment's batch: said
        # only when there are more than that, as after an import, so a newcomer is not told of three.
        if self.pending > self.embed_per_search and not self._backlog_noticed and self.on_backlog:
            self.on_backlog(self.pending)
            self._backlog_noticed = True
        return vector

    def vector_text(self, text: str) -> str:
        """The query as it is embedded: without the words found in more than `everywhere` of the
        documents (in a chat, the names of the two people). Such a word tells no text apart, yet it
        pulls the query's vector toward every short turn that says it ("Wow, Maria!"); the keyword
        arm gives it no weight for the same reason (IDF ~0)."""
        share = self.fusion.everywhere
        words = [w for w in query_words(text) if len(w) > 1]
        if not share or not words:
            return text
        total = self._document_count()
        if total < EVERYWHERE_MIN_DOCS:
            return text
        ceiling = int(share * total)
        everywhere = [w for w in words if self._documents_with(w, ceiling) > ceiling]
        if not everywhere or len(everywhere) == len(words):
            return text
        pattern = r"\b(?:" + "|".join(re.escape(w) for w in everywhere) + r")(?:'s|’s)?\b"
        return " ".join(re.sub(pattern, " ", text, flags=re.I).split()) or text

    def _document_count(self) -> int:
        """About how many documents the index holds (the largest row id of each table: no scan)."""
        now = time.monotonic()
        if self._documents is None or now - self._documents[1] >= COMMON_TERM_TTL:
            tables = ("messages", "knowledge", "episodes", "summaries")
            total = sum(self.store.one(f"SELECT coalesce(max(id), 0) FROM {table}")[0] for table in tables)
            self._documents = (total, now)
        return self._documents[0]

    def _documents_with(self, word: str, ceiling: int) -> int:
        """How many documents hold `word`, counted up to ceiling + 1 (remembered a while)."""
        now = time.monotonic()
        known = self._counts.get((word, ceiling))
        if known is not None and now - known[1] < COMMON_TERM_TTL:
            return known[0]
        count = self.store.number("SELECT count(*) FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? "
                                  "LIMIT ?)", (f'content:"{word}"', ceiling + 1))
        if len(self._counts) > 10_000:
            self._counts.clear()
        self._counts[(word, ceiling)] = (count, now)
        return count

    def search(self, query: str, limit: int = 10, mode: str = "standard", types: tuple[str, ...] | None = None,
               touch: bool = False, vector: np.ndarray | None = None) -> list[Hit]:
        if mode not in MODES:
            raise InvalidInput(f"unknown mode {mode!r} (one of: {', '.join(MODES)})")
        if limit < 1:
            raise InvalidInput("limit must be at least 1")
        if not query.strip():
            raise InvalidInput("the search text is empty")
        if not query.strip(string.punctuation + string.whitespace):
            return []  # '"', ":", "*": nothing to look for (the vectors' nearest to a quote mark were noise)
        depth = max(limit * 2, self.fusion.depth)
        # One type: both indexes search only that type's documents (they are partitioned by type).
        only = types[0] if types is not None and len(types) == 1 else None
        keyword = self._fts(query, depth, only)
        if vector is None:
            vector = self.embed_query(query)
        semantic = self._knn(vector, depth, only) if vector is not None else []
        fused, lent, score_of, weak = self._fuse(keyword, semantic, vector)
        context = None
        if types is None or "message" in types:
            fusion = replace(self.fusion, carry_sources=max(self.fusion.carry_sources, limit * 2))
            context = Context(self.store, fusion, fused, lent, score_of)
            context.rerank(query, limit)
        ordered = [d for d, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))
                   if (types is None or split_doc_id(d)[0] in types) and d not in weak]
        # Read the rows of the best candidates only, a batch at a time (some may be in a tier this mode
        # leaves out): reading all 200-odd candidates took a fifth of a search at 100k. Twice as many as
        # asked for (10 more at least), so that an echo of a hit can be ranked below what it quotes.
        wanted = max(limit * 2, limit + 10) if context is not None else limit
        allowed, start, batch = set(MODES[mode]), 0, limit * 2
        hits: list[Hit] = []
        while len(hits) < wanted and start < len(ordered):
            hits += [h for h in self._hydrate(ordered[start:start + batch], fused) if h.tier in allowed]
            start, batch = start + batch, batch * 2
        if context is not None:
            hits = self._settle_echoes(context, hits)
            if types is None or "memory" in types:
                hits = self._pinned_above_echoes(context, hits)
        hits = hits[:limit]
        if touch:
            self.touch([h.id for h in hits if h.type == "memory"])
        return hits

    def _fuse(self, keyword: list[tuple[int, float]], semantic: list[tuple[int, float]],
              vector: np.ndarray | None = None) -> tuple[dict[int, float], dict[int, float], ScoreOf, set[int]]:
        """(fused score per document, the keyword part of it, the score documents no arm found
        would get from their stored vectors (scaled as the vector candidates were), the documents
        only a vector below min_cosine found)."""
        nothing: ScoreOf = lambda docs: dict.fromkeys(docs, 0.0)  # noqa: E731
        if self.fusion.method == "rrf":
            kw, vec = _rrf([d for d, _ in keyword]), _rrf([d for d, _ in semantic])
            return {d: kw.get(d, 0.0) + vec.get(d, 0.0) for d in {*kw, *vec}}, kw, nothing, set()
        # No vector candidate reaches min_cosine: the query is about nothing stored, as far as vectors
        # tell. Otherwise every candidate down to keep_cosine counts.
        floor = self.fusion.min_cosine
        if semantic and semantic[0][1] >= floor:
            floor = min(floor, self.fusion.keep_cosine)
        kept = [(d, c) for d, c in semantic if c >= floor]
        kw, vec = _scaled_to_best(keyword), _min_max(kept)
        # A memory, summary or episode only a vector below min_cosine found is as likely noise as a
        # match: it is shown only when something else lent it a score. Turns of a conversation are
        # kept: their neighbours and speaker judge them too (hiding them cost the synthetic
        # conversations 3.6 points of recall@10).
        weak = {d for d, c in kept if c < self.fusion.min_cosine and d not in kw and split_doc_id(d)[0] != "message"}
        # One arm empty (no embedder, no vector yet, or no word of the query indexed): the other's order.
        weight = 1.0 if not vec else 0.0 if not kw else self.fusion.keyword_weight
        kw = {d: weight * s for d, s in kw.items()}
        fused = {d: kw.get(d, 0.0) + (1 - weight) * vec.get(d, 0.0) for d in {*kw, *vec}}
        if vector is None or not kept or weight == 1.0:
            return fused, kw, nothing, weak
        top, bottom = kept[0][1], kept[-1][1]

        def score_of(docs: list[int]) -> dict[int, float]:
            """Stored vectors' cosines, on the candidates' scale (0 below the floor or without a vector)."""
            out = dict.fromkeys(docs, 0.0)
            if docs:
                ids, sims = vectors.cosines(self.store, docs, vector)
                for d, c in zip(ids, sims, strict=True):
                    if c >= floor:
                        out[d] = (1 - weight) * (min(1.0, (c - bottom) / (top - bottom)) if top > bottom else 1.0)
            return out

        return fused, kw, score_of, weak

    def _settle_echoes(self, context: Context, hits: list[Hit]) -> list[Hit]:
        """The assistant's messages that quote another hit ("From memory ...: X") rank below it."""
        context.settle_echoes({doc_id(h.type, h.id): h.content for h in hits})
        for h in hits:
            h.score = round(context.fused[doc_id(h.type, h.id)], 6)
        return sorted(hits, key=lambda h: (-context.fused[doc_id(h.type, h.id)], doc_id(h.type, h.id)))

    def _pinned_above_echoes(self, context: Context, hits: list[Hit]) -> list[Hit]:
        """A pinned memory is never outranked by its own echoes: an assistant message among the hits that
        quotes a pinned memory word for word brings that memory in just above it, whatever its tier or
        its own rank (settle_echoes already keeps an echo below a quoted memory that is among the hits)."""
        echoes = [h for h in hits if h.type == "message" and (turn := context.turns.get(h.id)) is not None
                  and turn.role == "assistant"]
        if not echoes:
            return hits
        pinned = self.store.query(PINNED_SQL, (PINNED_CHECKED,))
        if not pinned:
            return hits
        shown = {h.id: h for h in hits if h.type == "memory"}
        above: dict[int, float] = {}  # pinned memory id -> the best score of an echo of it
        for echo in echoes:
            for memory_id, content in pinned:
                if context.echoes(echo.id, content):
                    above[memory_id] = max(above.get(memory_id, 0.0), echo.score)
        missing = {doc_id("memory", i): s for i, s in above.items() if i not in shown}
        for found in self._hydrate(list(missing), missing) if missing else []:
            shown[found.id] = found
            hits.append(found)
        for memory_id, echo_score in above.items():
            lifted = shown.get(memory_id)
            if lifted is not None and lifted.score <= echo_score:
                lifted.score = round(echo_score / ECHO_FACTOR + 1e-6, 6)
        return sorted(hits, key=lambda h: (-h.score, doc_id(h.type, h.id)))

    def _is_common(self, word: str) -> bool:
        # Remembered for a while: a prompt asks the same words three times (memories, episodes,
        # summaries), and a word's document count moves slowly.
        now = time.monotonic()
        known = self._common.get(word)
        if known is not None and now - known[1] < COMMON_TERM_TTL:
            return known[0]
        documents = self.store.number("SELECT count(*) FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? "
                                      "LIMIT ?)", (f'content:"{word}"', self.common_term_docs + 1))
        if len(self._common) > 10_000:
            self._common.clear()
        common = documents > self.common_term_docs
        self._common[word] = (common, now)
        return common

    def _fts(self, query: str, depth: int, doc_type: str | None = None) -> list[tuple[int, float]]:
        """(doc, BM25) best first; FTS5's bm25() is negated so that higher is better."""
        words = query_words(query)
        if not words:
            return []
        rare = [w for w in words if not self._is_common(w)]
        # Rare words: any of them, ranked by BM25 (their lists are short, see COMMON_TERM_DOCS).
        # Only common words: every one of them is required, and the newest such documents (among
        # the newest COMMON_WINDOW rows of each kind) are the keyword hits, scored alike. Ranking
        # them by bm25() makes FTS5 count the documents of each word first, which reads its whole
        # list: 20 ms at 100k, up to 540 ms at 1M; reading from the newest end stops after `depth`
        # matches (under a millisecond). Such words carry little BM25 weight, so little order is
        # lost; the vector arm still searches the whole history.
        match = content_match(rare) if rare else content_match(words, every=True)
        if match is None:
            return []
        if doc_type in SMALL_TYPES:
            match += f" AND doc_type:{doc_type}"
        if doc_type is not None and doc_type not in SMALL_TYPES:
            depth *= 2  # other types are filtered out after ranking
        if not rare:
            # One rowid bound serves both big kinds (doc = row id * DOC_SLOTS + type): below the newest
            # COMMON_WINDOW rows of the kind with fewer rows, so neither kind loses its newest.
            kinds = {"message": "messages", "memory": "knowledge"}
            tables = [kinds[doc_type]] if doc_type in kinds else list(kinds.values())
            newest = min(self.store.one(f"SELECT coalesce(max(id), 0) FROM {table}")[0] for table in tables)
            rows = self.store.query("SELECT rowid FROM search_index WHERE search_index MATCH ? AND rowid > ? "
                                    "ORDER BY rowid DESC LIMIT ?",
                                    (match, (newest - self.common_window) * DOC_SLOTS, depth))
            return [(r[0], 1.0) for r in rows]
        rows = self.store.query("SELECT rowid, bm25(search_index) AS rank FROM search_index WHERE search_index "
                                "MATCH ? ORDER BY rank LIMIT ?", (match, depth))
        return [(r[0], -r[1]) for r in rows]

    def _knn(self, vector: np.ndarray, depth: int, doc_type: str | None = None) -> list[tuple[int, float]]:
        """(doc, cosine similarity) nearest first (memory.vectors: one-bit codes, rescored)."""
        return vectors.knn(self.store, vector, depth, DOC_TYPES[doc_type] if doc_type else None, cache=self.codes)

    def _hydrate(self, docs: list[int], scores: dict[int, float]) -> list[Hit]:
        by_type: dict[str, list[int]] = {name: [] for name in DOC_TYPES}
        for doc in docs:
            kind, row_id = split_doc_id(doc)
            by_type[kind].append(row_id)
        found: dict[int, Hit] = {}
        queries = {
            "message": "SELECT id, content, created_at, 'hot' AS tier, episode_id, NULL AS importance, "
                       "NULL AS kind FROM messages WHERE id IN ({})",
            "memory": "SELECT k.id, k.content, k.created_at, coalesce(m.tier, 'hot') AS tier, NULL, k.importance, "
                      "k.kind FROM knowledge k LEFT JOIN memory_meta m ON m.memory_id = k.id WHERE k.id IN ({})",
            "episode": "SELECT id, coalesce(title, '') || ': ' || coalesce(summary, ''), started_at, 'hot', NULL, "
                       "NULL, NULL FROM episodes WHERE id IN ({})",
            "summary": "SELECT id, content, created_at, tier, NULL, NULL, NULL FROM summaries WHERE id IN ({})",
        }
        for kind, ids in by_type.items():
            if not ids:
                continue
            rows = self.store.query(queries[kind].format(",".join("?" * len(ids))), tuple(ids))
            for r in rows:
                doc = doc_id(kind, r[0])
                found[doc] = Hit(kind, r[0], r[1], r[2], round(scores[doc], 6), r[3], r[4], r[5], r[6])
        return [found[d] for d in docs if d in found]

    def touch(self, memory_ids: list[int]) -> None:
        """activation_count + 1 and last_accessed = now, in one write (none in a read-only store, none
        inside `untouched`)."""
        collected = _CITED.get()
        if collected is not None:
            collected.extend(i for i in memory_ids if i not in collected)
        if not memory_ids or self.store.read_only or _UNTOUCHED.get():
            return
        marks = ",".join("?" * len(memory_ids))
        with self.store.bookkeeping():
            self.store.execute(f"UPDATE memory_meta SET activation_count = activation_count + 1, "
                               f"last_accessed = ? WHERE memory_id IN ({marks})",
                               (to_utc_iso(self.store.clock.now()), *memory_ids))
