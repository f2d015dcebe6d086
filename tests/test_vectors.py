"""memory.vectors: the quantised search (one-bit codes, rescored) agrees with exact cosine search."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from memory import vectors
from memory.store import Store

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from memory.search.embeddings import LocalEmbedder
    from memory.time.clock import Clock


def _recall_at_10(store: Store, queries: NDArray[np.float32], doc_type: int | None = None,
                  shortlist: int | None = None, rescore: int | None = None) -> float:
    """Share of the exact top 10 the quantised search returns (ties counted as found)."""
    found: list[float] = []
    for query in queries:
        ranked = vectors.exact_knn(store, query, 10_000, doc_type)
        quantised = vectors.knn(store, query, 10, doc_type, shortlist=shortlist, rescore=rescore)
        tenth = ranked[9][1] - 1e-6
        found.append(sum(score >= tenth for _, score in quantised) / 10)
        assert quantised[0][0] == ranked[0][0]
        # Scores are exact cosines (rescored from the stored vectors), not estimates.
        exact_scores = dict(ranked)
        assert [s for _, s in quantised] == pytest.approx([exact_scores[d] for d, _ in quantised], abs=1e-6)
    return float(np.mean(found))


@pytest.fixture
def clustered(tmp_path: Path, clock: Clock) -> Iterator[tuple[Store, NDArray[np.float32]]]:
    """3,000 vectors in 60 topics (a fixed seed), most of them messages, some memories."""
    rng = np.random.default_rng(15)
    centres = rng.normal(size=(60, 384))
    matrix = centres[rng.integers(0, 60, 3000)] + 1.5 * rng.normal(size=(3000, 384))
    matrix = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
    docs = [(i + 1) * 4 + (1 if i % 5 == 0 else 0) for i in range(3000)]
    store = Store(tmp_path / "v.db", clock)
    with store.transaction():
        vectors.put(store, docs, matrix)
    queries = centres[rng.integers(0, 60, 25)] + 1.5 * rng.normal(size=(25, 384))
    yield store, (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    store.close()


@pytest.mark.slow
def test_quantised_search_finds_the_exact_top_10(clustered: tuple[Store, NDArray[np.float32]]) -> None:
    store, queries = clustered
    assert vectors.count(store) == 3000 and store.one("SELECT count(*) FROM vector_blocks")[0] == 2
    assert _recall_at_10(store, queries) >= 0.98  # 3,000 > RESCORE: the codes decide what is rescored
    assert _recall_at_10(store, queries, doc_type=1) >= 0.98  # the memories' blocks only
    # Tight knobs still keep the nearest; the defaults are there for the rest.
    assert _recall_at_10(store, queries, shortlist=200, rescore=40) >= 0.8


def test_deleted_and_replaced_vectors(clustered: tuple[Store, NDArray[np.float32]]) -> None:
    store, queries = clustered
    cache = vectors.CodeCache()
    nearest = vectors.knn(store, queries[0], 3, cache=cache)
    with store.transaction():
        vectors.drop(store, [nearest[0][0]])
        vectors.put(store, [nearest[1][0]], -queries[0])  # replaced in place: now the farthest
    after = vectors.knn(store, queries[0], 3, cache=cache)  # the cache sees both changes
    assert nearest[0][0] not in [d for d, _ in after] and nearest[1][0] not in [d for d, _ in after]
    assert after[0][0] == nearest[2][0]
    assert vectors.knn(store, -queries[0], 1, cache=cache)[0][0] == nearest[1][0]
    assert vectors.count(store) == 2999


@pytest.mark.slow
def test_realistic_conversation_agrees_with_exact(tmp_path: Path, clock: Clock, embedder: LocalEmbedder) -> None:
    """A conversation of the retrieval benchmark (about 700 turns, real embeddings) and its questions."""
    from tests.test_retrieval import _bench

    convo = _bench("conversations").generate(12, 0)
    texts = [f"{t.speaker}: {t.text}" for t in convo.turns]
    store = Store(tmp_path / "c.db", clock)
    with store.transaction():
        vectors.put(store, [(i + 1) * 4 for i in range(len(texts))], embedder.embed(texts))
    questions = embedder.embed([q.text for q in convo.questions[:40]])
    assert len(texts) > vectors.RESCORE
    assert _recall_at_10(store, questions) >= 0.98
    store.close()
