"""Hybrid search (SPEC F5): FTS5 BM25 and sqlite-vec cosine KNN fused by reciprocal rank.

Searches past messages, memories, episode summaries and consolidated summaries. Retrieval modes
filter by tier; returned memories are touched (activation_count + 1, last_accessed = now) in one
batched write per search.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from memory.clock import to_utc_iso
from memory.embeddings import Embedder, EmbedderUnavailable, sync_embeddings
from memory.errors import InvalidInput
from memory.schema import DOC_TYPES, split_doc_id
from memory.store import VEC_TABLE, Store

MODES = {
    "reflexive": ("hot",),
    "standard": ("hot", "warm"),
    "deep": ("hot", "warm", "cold"),
    "exhaustive": ("hot", "warm", "cold", "archived"),
}
RRF_K = 60
# A query word found in more documents than this is left out of the keyword query (unless every word
# is that common): ranking every document that contains "budget" costs ~70 ms at 100k and such a
# word carries little BM25 weight. Checking costs one bounded doclist read per word.
COMMON_TERM_DOCS = 2000
SMALL_TYPES = ("episode", "summary")  # filtering the FTS index by type pays off only for rare types
STOPWORDS = frozenset("""a an and are as at be but by did do does for from had has have how i i'm in is it
its me my of on or our so that the their them then there they this to us was we were what when where
which who why will with you your about can could would should just tell""".split())


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
    """How the keyword and vector rankings become one."""
    method: str = "blend"  # blend | rrf
    keyword_weight: float = 0.5
    keyword_norm: str = "max"  # max | minmax | rank
    vector_norm: str = "minmax"  # raw | max | minmax
    rrf_k: int = 60
    keyword_depth: int = 100
    vector_depth: int = 100
    fill: int = 0  # exact cosines for this many keyword hits the vector arm missed
    carry: float = 1.0
    carry_mode: str = "add"  # add | max
    carry_direction: str = "next"  # next | prev | both
    carry_top: int = 50
    carry_gate: str = "allwords"  # none | vector | question | words | reply | allwords | content
    carry_words: int = 6
    carry_basis: str = "keyword"  # fused | keyword
    carry_source: str = "keyword"  # which ranking's top messages lend: fused | keyword
    carry_strong: float = 0.0  # lend only from hits scoring at least this share of the best


def _rrf(rankings: list[list[int]], k: int) -> dict[int, float]:
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank + 1)
    return fused


def _normalise(scores: dict[int, float], how: str) -> dict[int, float]:
    if not scores:
        return {}
    if how == "rank":
        ordered = sorted(scores, key=lambda d: -scores[d])
        return {d: 1.0 / (1 + i) for i, d in enumerate(ordered)}
    top, bottom = max(scores.values()), min(scores.values())
    if how == "max":
        return {d: s / top if top > 0 else 0.0 for d, s in scores.items()}
    if how == "minmax":
        span = top - bottom
        return {d: (s - bottom) / span if span > 0 else 1.0 for d, s in scores.items()}
    return dict(scores)


class Searcher:
    """Hybrid search over one store; keyword-only (with one notice) when no embedder can load."""

    def __init__(self, store: Store, embedder: Embedder | None,
                 on_notice: Callable[[str], None] | None = None, cache_min_size: int = 20_000,
                 fusion: Fusion | None = None) -> None:
        from memory.vector_cache import VectorCache

        self.fusion = fusion or Fusion()
        self.store = store
        self.vectors = VectorCache(store, cache_min_size)
        self.embedder = embedder
        self.on_notice = on_notice
        self.semantic = embedder is not None
        self._noticed = False

    def _degrade(self, why: str) -> None:
        self.semantic = False
        if not self._noticed and self.on_notice:
            self.on_notice(f"Semantic search is off ({why}); using keyword search only.")
        self._noticed = True

    def embed_query(self, text: str):
        """The query vector, or None when semantic search is unavailable."""
        if not self.semantic or self.embedder is None:
            if self.embedder is None:
                self._degrade("no embedding model configured")
            return None
        try:
            sync_embeddings(self.store, self.embedder)
            return self.embedder.embed([text])[0]
        except EmbedderUnavailable as exc:
            self._degrade(str(exc))
            return None

    def search(self, query: str, limit: int = 10, mode: str = "standard", types: tuple[str, ...] | None = None,
               touch: bool = True, vector=None) -> list[Hit]:
        if mode not in MODES:
            raise InvalidInput(f"unknown mode {mode!r} (one of: {', '.join(MODES)})")
        if limit < 1:
            raise InvalidInput("limit must be at least 1")
        if not query.strip():
            raise InvalidInput("the search text is empty")
        fusion = self.fusion
        # One type: both indexes search only that type's documents (they are partitioned by type).
        only = types[0] if types is not None and len(types) == 1 else None
        keyword = self._fts_scored(query, max(limit * 2, fusion.keyword_depth), only)
        if vector is None:
            vector = self.embed_query(query)
        semantic = self._knn_scored(vector, max(limit * 2, fusion.vector_depth), only) if vector is not None else []
        if fusion.method == "rrf":
            fused = _rrf([[d for d, _ in keyword], [d for d, _ in semantic]], fusion.rrf_k)
        else:
            fused = self._blend(keyword, semantic, vector, fusion)
        if fusion.carry and (types is None or "message" in types):
            self._carry(fused, fusion, vector, dict(semantic))
        ordered = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
        allowed = set(MODES[mode])
        hits = [h for h in self._hydrate([d for d, _ in ordered], dict(ordered))
                if h.tier in allowed and (types is None or h.type in types)][:limit]
        if touch:
            self.touch([h.id for h in hits if h.type == "memory"])
        return hits

    def _blend(self, keyword: list[tuple[int, float]], semantic: list[tuple[int, float]], vector,
               fusion: Fusion) -> dict[int, float]:
        kw = _normalise(dict(keyword), fusion.keyword_norm)
        sims = dict(semantic)
        if vector is not None and fusion.fill:
            missing = [d for d, _ in keyword if d not in sims][:fusion.fill]
            sims.update(self._similarities(vector, missing))
        vec = _normalise(sims, fusion.vector_norm) if vector is not None else {}
        w = fusion.keyword_weight if vector is not None else 1.0
        if not kw:
            w = 0.0
        self._kw = {d: w * v for d, v in kw.items()}
        return {d: w * kw.get(d, 0.0) + (1 - w) * vec.get(d, 0.0) for d in {*kw, *vec}}

    def _carry(self, fused: dict[int, float], fusion: Fusion, vector=None, sims: dict | None = None) -> None:
        """A message lends part of its score to the next turn of its conversation: in a chat the
        answer often shares no word with the question, while the turn before it does."""
        pool = self._kw if fusion.carry_source == "keyword" else fused
        top = sorted((d for d in pool if d % 4 == DOC_TYPES["message"]), key=lambda d: -pool[d])[:fusion.carry_top]
        if not top:
            return
        ids = [d // 4 for d in top]
        marks = ",".join("?" * len(ids))
        pairs = []
        if fusion.carry_direction in ("next", "both"):
            pairs += self.store.query(
                f"SELECT m.id, (SELECT n.id FROM messages n WHERE n.episode_id = m.episode_id AND n.id > m.id "
                f"AND n.role IN ('user', 'assistant') ORDER BY n.id LIMIT 1) FROM messages m WHERE m.id IN ({marks}) "
                "AND m.episode_id IS NOT NULL", tuple(ids))
        if fusion.carry_direction in ("prev", "both"):
            pairs += self.store.query(
                f"SELECT m.id, (SELECT n.id FROM messages n WHERE n.episode_id = m.episode_id AND n.id < m.id "
                f"AND n.role IN ('user', 'assistant') ORDER BY n.id DESC LIMIT 1) FROM messages m "
                f"WHERE m.id IN ({marks}) AND m.episode_id IS NOT NULL", tuple(ids))
        source = {d: fused[d] for d in top}
        if fusion.carry_basis == "keyword":
            source = {d: self._kw.get(d, 0.0) for d in top}
        if fusion.carry_strong:
            best = max(source.values())
            source = {d: v if v >= fusion.carry_strong * best else 0.0 for d, v in source.items()}
        gate: dict[int, float] = {}
        if fusion.carry_gate == "vector" and vector is not None and sims:
            hood = [n * 4 for _, n in pairs if n is not None]
            known = {**sims, **self._similarities(vector, [d for d in hood if d not in sims])}
            bottom, top_sim = min(sims.values()), max(sims.values())
            gate = {d: max(0.0, min(1.0, (known.get(d, bottom) - bottom) / ((top_sim - bottom) or 1))) for d in hood}
        texts: dict[int, str] = {}
        if fusion.carry_gate in ("question", "words", "reply", "allwords", "content"):
            every = list({*ids, *(n for _, n in pairs if n is not None)})
            texts = dict(self.store.query(f"SELECT id, content FROM messages WHERE id IN ({','.join('?' * len(every))})",
                                          tuple(every)))
        for row_id, neighbour in pairs:
            if neighbour is None:
                continue
            factor = 1.0
            if fusion.carry_gate == "vector":
                factor = gate.get(neighbour * 4, 0.0)
            elif fusion.carry_gate == "question":
                factor = 1.0 if "?" in texts[row_id] else 0.0
            elif fusion.carry_gate == "words":
                body = texts[neighbour].split(":", 1)[-1]
                factor = 1.0 if len(re.findall(r"\w+", body)) >= fusion.carry_words else 0.0
            elif fusion.carry_gate == "allwords":
                factor = 1.0 if len(re.findall(r"\w+", texts[neighbour])) >= fusion.carry_words else 0.0
            elif fusion.carry_gate == "content":
                words = [w for w in re.findall(r"\w+", texts[neighbour].lower()) if w not in STOPWORDS]
                factor = 1.0 if len(words) >= fusion.carry_words else 0.0
            elif fusion.carry_gate == "reply":
                factor = 1.0 if texts[row_id].split(":", 1)[0] != texts[neighbour].split(":", 1)[0] else 0.0
            lent = fusion.carry * source[row_id * 4] * factor
            doc = neighbour * 4
            if fusion.carry_mode == "add":
                fused[doc] = fused.get(doc, 0.0) + lent
            else:
                fused[doc] = max(fused.get(doc, 0.0), lent)

    def _is_common(self, word: str) -> bool:
        row = self.store.one("SELECT count(*) FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? LIMIT ?)",
                             (f'content:"{word}"', COMMON_TERM_DOCS + 1))
        return row[0] > COMMON_TERM_DOCS

    def _fts_scored(self, query: str, depth: int, doc_type: str | None = None) -> list[tuple[int, float]]:
        """(doc, BM25 score) best first; FTS5's bm25() is negated so that higher is better."""
        words = query_words(query)
        if not words:
            return []
        rare = [w for w in words if not self._is_common(w)]
        # Only common words: require them all, which keeps the ranked set small.
        match = " OR ".join(f'"{w}"' for w in rare) if rare else " AND ".join(f'"{w}"' for w in words)
        match = f"content:({match})"
        if doc_type in SMALL_TYPES:
            match += f" AND doc_type:{doc_type}"
        if doc_type is not None and doc_type not in SMALL_TYPES:
            depth *= 2  # other types are filtered out after ranking
        rows = self.store.query("SELECT rowid, bm25(search_index) AS rank FROM search_index WHERE search_index "
                                "MATCH ? ORDER BY rank LIMIT ?", (match, depth))
        return [(r[0], -r[1]) for r in rows]

    def _fts(self, query: str, depth: int, doc_type: str | None = None) -> list[int]:
        return [d for d, _ in self._fts_scored(query, depth, doc_type)]

    def _knn_scored(self, vector, depth: int, doc_type: str | None = None) -> list[tuple[int, float]]:
        """(doc, cosine similarity) nearest first."""
        if not self.store.has_vec_table():
            return []
        # Rare types have small sqlite-vec partitions; the in-memory copy pays off for the big ones.
        cached = None if doc_type in SMALL_TYPES else self.vectors.knn_scored(vector, depth, doc_type)
        if cached is not None:
            return cached
        where, params = ("AND doc_type = ?", (DOC_TYPES[doc_type],)) if doc_type else ("", ())
        rows = self.store.query(f"SELECT rowid, distance FROM {VEC_TABLE} WHERE embedding MATCH ? AND k = ? {where} "
                                "ORDER BY distance", (vector.tobytes(), depth, *params))
        return [(r[0], 1.0 - r[1]) for r in rows]

    def _knn(self, vector, depth: int, doc_type: str | None = None) -> list[int]:
        return [d for d, _ in self._knn_scored(vector, depth, doc_type)]

    def _similarities(self, vector, docs: list[int]) -> dict[int, float]:
        """Cosine similarity of the query to these documents (those with a stored vector)."""
        if not docs or not self.store.has_vec_table():
            return {}
        cached = self.vectors.similarities(vector, docs)
        if cached is not None:
            return cached
        out = {}
        blob = vector.tobytes()
        for doc in docs:  # one lookup per id: vec0 answers `rowid = ?` from its index, `IN (...)` by a scan
            row = self.store.one(f"SELECT vec_distance_cosine(embedding, ?) FROM {VEC_TABLE} WHERE rowid = ?",
                                 (blob, doc))
            if row is not None:
                out[doc] = 1.0 - row[0]
        return out

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
                doc = r[0] * 4 + DOC_TYPES[kind]
                found[doc] = Hit(kind, r[0], r[1], r[2], round(scores[doc], 6), r[3], r[4], r[5], r[6])
        return [found[d] for d in docs if d in found]

    def touch(self, memory_ids: list[int]) -> None:
        """activation_count + 1 and last_accessed = now, in one write."""
        if not memory_ids:
            return
        marks = ",".join("?" * len(memory_ids))
        with self.store.transaction():
            self.store.execute(f"UPDATE memory_meta SET activation_count = activation_count + 1, "
                               f"last_accessed = ? WHERE memory_id IN ({marks})",
                               (to_utc_iso(self.store.clock.now()), *memory_ids))
