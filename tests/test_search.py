"""SPEC F5: hybrid search with the real bundled embedder, FTS5, RRF, modes, touching."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory import episodes, memories, reminders
from memory.errors import EmbedderUnavailable, InvalidInput
from memory.search import Searcher, query_words
from memory.search.embeddings import LocalEmbedder, pending_count
from tests.conftest import present

if TYPE_CHECKING:
    from memory.store import Store


@pytest.fixture
def filled(store: Store) -> Store:
    ep = episodes.open_episode(store)
    episodes.add_message(store, ep.id, "user", "My daughter Mia starts violin lessons on Thursdays")
    episodes.add_message(store, ep.id, "user", "The quarterly tax filing is due at the end of the month")
    episodes.add_message(store, ep.id, "assistant", "I can help with the tax filing.")
    memories.remember(store, "I am allergic to peanuts", kind="fact", importance=5)
    memories.remember(store, "The car needs new winter tyres", kind="note")
    return store


def test_finds_by_meaning_not_words(filled: Store, embedder: LocalEmbedder) -> None:
    searcher = Searcher(filled, embedder)
    hits = searcher.search("which musical instrument is my kid learning", limit=3)
    assert hits[0].type == "message" and "violin" in hits[0].content
    hits = searcher.search("food that makes me sick", limit=3)
    assert hits[0].type == "memory" and "peanuts" in hits[0].content


def test_finds_exact_words_with_fts_alone(filled: Store) -> None:
    searcher = Searcher(filled, None)
    hits = searcher.search("tyres", limit=5)
    assert [h.content for h in hits] == ["The car needs new winter tyres"]
    assert hits[0].type == "memory" and hits[0].tier == "hot"


@pytest.mark.parametrize("query", ['"', "'", ":", "*", "-- ?!"])
def test_a_search_for_signs_alone_finds_nothing(filled: Store, embedder: LocalEmbedder, query: str) -> None:
    """An attacker's `recall '"'` listed "hello" and "hi again": the vectors' nearest to a quote mark."""
    assert Searcher(filled, embedder).search(query, limit=5) == []


def test_hit_shape(filled: Store, embedder: LocalEmbedder) -> None:
    hit = Searcher(filled, embedder).search("violin", limit=1)[0]
    data = hit.to_json()
    assert {"type", "id", "content", "created_at", "score", "tier", "episode_id"} <= set(data)
    assert data["created_at"].endswith("+00:00") and data["score"] > 0 and data["episode_id"] is not None


def test_embeddings_deferred_then_caught_up(filled: Store, embedder: LocalEmbedder) -> None:
    assert pending_count(filled) == 5  # three messages and two memories, none embedded yet
    Searcher(filled, embedder).search("anything", limit=1)
    assert pending_count(filled) == 0
    reminders.update_memory(filled, 1, content="I am allergic to shellfish")
    assert pending_count(filled) == 1
    hits = Searcher(filled, embedder).search("seafood allergy", limit=1)
    assert "shellfish" in hits[0].content and pending_count(filled) == 0


def test_fallback_notice_once(filled: Store, tmp_path: Path) -> None:
    class Broken(LocalEmbedder):
        def load(self) -> None:
            raise EmbedderUnavailable("the embedding model could not load")

    notices: list[str] = []
    broken = Broken("no-such/model-anywhere", cache_dir=tmp_path)
    searcher = Searcher(filled, broken, on_notice=notices.append)
    assert searcher.search("tyres")[0].content.startswith("The car")
    searcher.search("violin")
    assert len(notices) == 1 and "keyword search only" in notices[0]


def test_modes_filter_tiers_and_touch(filled: Store) -> None:
    filled.execute("UPDATE memory_meta SET tier = 'archived' WHERE memory_id = 1")
    searcher = Searcher(filled, None)
    assert searcher.search("peanuts", mode="standard") == []
    assert filled.one("SELECT activation_count FROM memory_meta WHERE memory_id = 1")[0] == 0  # a search reads
    assert searcher.search("peanuts", mode="exhaustive", touch=True)[0].tier == "archived"
    row = filled.one("SELECT activation_count, last_accessed FROM memory_meta WHERE memory_id = 1")
    assert row[0] == 1 and row[1] == "2026-11-22T14:00:00+00:00"
    with pytest.raises(InvalidInput):
        searcher.search("x", mode="psychic")


def test_query_words_are_never_syntax(filled: Store) -> None:
    assert query_words('what did "we" say AND NOT (peanuts*') == ["say", "not", "peanuts"]
    assert query_words("???") == []
    assert Searcher(filled, None).search('peanuts* AND ("tyres"') != []  # no FTS syntax error


def test_common_words_left_out_unless_all_common(store: Store) -> None:
    for text in ["apple pie", "apple juice", "apple tree", "banana apple bread"]:
        memories.remember(store, text)
    searcher = Searcher(store, None, common_term_docs=2)
    assert [h.content for h in searcher.search("apple banana")] == ["banana apple bread"]
    assert len(searcher.search("apple")) == 4  # every word is common: all of them are required
    assert [h.content for h in searcher.search("apple juice")] == ["apple juice"]


def test_forget_removes_vector(filled: Store, embedder: LocalEmbedder) -> None:
    searcher = Searcher(filled, embedder)
    searcher.search("peanuts")
    assert filled.one("SELECT count(*) FROM vectors WHERE doc_id = ?", (1 * 4 + 1,))[0] == 1
    memories.forget(filled, 1)
    assert filled.one("SELECT count(*) FROM vectors WHERE doc_id = ?", (1 * 4 + 1,))[0] == 0
    assert all("peanuts" not in h.content for h in searcher.search("peanut allergy"))


def test_index_follows_changes_by_any_process(filled: Store, embedder: LocalEmbedder) -> None:
    """Nothing is held in memory between searches: a change made through another connection (as by
    another process) is seen by the next search, a forgotten memory never comes back."""
    from memory import vectors
    from memory.store import Store

    searcher = Searcher(filled, embedder)
    searcher.embed_query("sync")
    memories.forget(filled, 1)
    other = Store(filled.path, filled.clock)
    new = memories.remember(other, "Allergic to peanuts and tree nuts")
    Searcher(other, embedder).embed_query("sync the new text")
    other.close()
    vector = present(searcher.embed_query("nut allergy"))
    assert [d for d, _ in searcher._knn(vector, 1, "memory")] == [new.id * 4 + 1]
    assert 1 * 4 + 1 not in [d for d, _ in searcher._knn(vector, 50)]
    assert searcher._knn(vector, 5) == pytest.approx(vectors.exact_knn(filled, vector, 5))
