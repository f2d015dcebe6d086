"""Forward-only migrations: an older database opens, keeps its rows and its search index."""
from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

from memory import memories
from memory.connection import connect
from memory.schema import MIGRATIONS, SCHEMA_VERSION
from memory.search import Searcher
from memory.store import Store
from memory.time.clock import Clock


def test_schema_2_database_migrates_and_keeps_its_index(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "old.db"
    db = connect(str(path))
    for number, statements in enumerate(MIGRATIONS[:2], start=1):
        for statement in statements:
            assert isinstance(statement, str)  # the early migrations are statements only
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {number}")
    db.execute("INSERT INTO knowledge (kind, content, created_at, updated_at) VALUES "
               "('fact', 'The boiler is in the attic', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')")
    db.execute("INSERT INTO episodes (title, summary, started_at, ended_at, outcome) VALUES "
               "('Boiler', 'Talked about the attic boiler', '2026-01-01T00:00:00+00:00', "
               "'2026-01-01T01:00:00+00:00', 'success')")
    db.close()

    store = Store(path, clock)
    assert store.one("PRAGMA user_version")[0] == SCHEMA_VERSION
    searcher = Searcher(store, None)
    assert [h.type for h in searcher.search("boiler attic", types=("memory",))] == ["memory"]
    assert [h.type for h in searcher.search("boiler attic", types=("episode",))] == ["episode"]
    memories.remember(store, "The attic light is broken")  # new rows are indexed with their type
    assert len(searcher.search("attic", types=("memory",))) == 2
    assert store.one("SELECT count(*) FROM search_index WHERE doc_type = 'memory'")[0] == 2
    store.close()


def test_newer_database_is_refused(tmp_path: Path, clock: Clock) -> None:
    import pytest

    from memory.errors import StoreUnusable

    db = connect(str(tmp_path / "new.db"))
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreUnusable, match="newer version"):
        Store(tmp_path / "new.db", clock)


def test_schema_4_vectors_move_to_the_block_index_without_re_embedding(tmp_path: Path, clock: Clock) -> None:
    """Schema 5 carries the float vectors of the former vec0 table over: no text waits for an
    embedding again, and search finds the same nearest documents as exact cosine does."""
    import numpy as np

    from memory import vectors
    from memory.search.embeddings import pending_count, sync_embeddings

    path = tmp_path / "v4.db"
    db = connect(str(path))
    for number, statements in enumerate(MIGRATIONS[:4], start=1):
        for statement in statements:
            assert isinstance(statement, str)  # the early migrations are statements only
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {number}")
    # What memory.search.embeddings made at schema 4: a vec0 table partitioned by document type.
    db.execute("CREATE VIRTUAL TABLE vec_index USING vec0(doc_type integer partition key, "
               "embedding float[8] distance_metric=cosine)")
    db.execute("INSERT INTO meta(key, value) VALUES ('embedding_model', 'toy:8:typed')")
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(30, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    for i in range(30):
        db.execute("INSERT INTO knowledge (kind, content, created_at, updated_at) VALUES "
                   "('note', ?, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')", (f"note {i}",))
        db.execute("INSERT INTO vec_index(rowid, doc_type, embedding) VALUES (?, 1, ?)",
                   ((i + 1) * 4 + 1, matrix[i].tobytes()))
    db.execute("DELETE FROM pending_embeddings")
    db.close()

    class Toy:  # the embedder that made those vectors; it must not be asked to embed anything
        name = "toy"

        def dimension(self) -> int:
            return 8

        def embed(self, texts: list[str]) -> NoReturn:
            raise AssertionError(f"re-embedded {texts}")

    store = Store(path, clock)
    assert store.one("PRAGMA user_version")[0] == SCHEMA_VERSION == 15
    assert store.one("SELECT 1 FROM sqlite_master WHERE name IN ('vec_index', 'vector_log')") is None
    assert vectors.count(store) == 30 and store.get_meta("embedding_model") == "toy:8:blocks"
    assert sync_embeddings(store, Toy()) == 0 and pending_count(store) == 0
    _, stored = vectors.stored(store, [(i + 1) * 4 + 1 for i in range(30)])
    assert np.allclose(stored, matrix, atol=1e-3)
    query = matrix[7] + 0.1 * rng.normal(size=8).astype(np.float32)
    assert vectors.knn(store, query, 5, 1) == vectors.exact_knn(store, query, 5, 1)
    assert vectors.knn(store, query, 1)[0][0] == 8 * 4 + 1
    store.close()


def test_opening_a_new_store_waits_while_another_process_writes_to_it(tmp_path: Path) -> None:
    """Two processes opening a new store at once: one saw "database is locked" (no busy handler for
    the switch to WAL), one run in six of the two-writers test."""
    import threading

    import sqlean

    from memory.connection import connect

    path = str(tmp_path / "new.db")
    # Another process, first in, writing to the new file before it is in WAL mode (SQLite gives up at
    # once instead of waiting: a switch of journal mode calls no busy handler).
    other = sqlean.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    try:
        conn = connect(path)  # raised OperationalError('database is locked') before
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        release.join()
        other.close()


def test_the_private_and_sensitive_memories_are_read_by_their_index(store: Store) -> None:
    """Issue 37: every request to a model reads them; without the index that read scanned every memory."""
    from memory.memories import SELECT_MEMORY, remember, withheld_candidates

    remember(store, "the gate code is 4471")  # sensitive
    remember(store, "the shelf is blue")
    assert [m.content for m in withheld_candidates(store)] == ["the gate code is 4471"]
    plan = " ".join(str(row[3]) for row in store.query(
        f"EXPLAIN QUERY PLAN {SELECT_MEMORY} WHERE k.private = 1 OR k.sensitive = 1 ORDER BY k.id"))
    assert "USING INDEX knowledge_withheld" in plan


def test_the_tests_fresh_store_is_a_store_migrated_from_scratch(store: Store, tmp_path: Path, clock: Clock) -> None:
    """The `store` fixture (and make_runtime) copy one store migrated at the session's start
    (tests/conftest.py): it must be what opening a new file makes, every table, index and trigger, and no row."""

    def made(s: Store) -> list[tuple[object, ...]]:
        tables = [r[0] for r in s.query("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [tuple(r) for r in s.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")] + \
            [(s.one("PRAGMA user_version")[0], s.one("PRAGMA journal_mode")[0])] + \
            [(t, s.one(f'SELECT count(*) FROM "{t}"')[0]) for t in tables]

    with Store(tmp_path / "scratch.db", clock) as scratch:
        assert made(store) == made(scratch)
    assert os.stat(store.path).st_mode & 0o777 == 0o600
