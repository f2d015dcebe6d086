"""Forward-only migrations: an older database opens, keeps its rows and its search index."""
from __future__ import annotations

from memory import knowledge
from memory.schema import MIGRATIONS, SCHEMA_VERSION
from memory.search import Searcher
from memory.sqlite import connect
from memory.store import Store


def test_schema_2_database_migrates_and_keeps_its_index(tmp_path, clock):
    path = tmp_path / "old.db"
    db = connect(str(path))
    for number, statements in enumerate(MIGRATIONS[:2], start=1):
        for statement in statements:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {number}")
    db.execute("INSERT INTO knowledge (kind, content, created_at, updated_at) VALUES "
               "('fact', 'The boiler is in the attic', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')")
    db.execute("INSERT INTO episodes (title, summary, started_at, ended_at, outcome) VALUES "
               "('Boiler', 'Talked about the attic boiler', '2026-01-01T00:00:00+00:00', "
               "'2026-01-01T01:00:00+00:00', 'success')")
    db.conn.close()

    store = Store(path, clock)
    assert store.one("PRAGMA user_version")[0] == SCHEMA_VERSION
    searcher = Searcher(store, None)
    assert [h.type for h in searcher.search("boiler attic", types=("memory",))] == ["memory"]
    assert [h.type for h in searcher.search("boiler attic", types=("episode",))] == ["episode"]
    knowledge.remember(store, "The attic light is broken")  # new rows are indexed with their type
    assert len(searcher.search("attic", types=("memory",))) == 2
    assert store.one("SELECT count(*) FROM search_index WHERE doc_type = 'memory'")[0] == 2
    store.close()


def test_newer_database_is_refused(tmp_path, clock):
    import pytest

    from memory.errors import StoreError

    db = connect(str(tmp_path / "new.db"))
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.conn.close()
    with pytest.raises(StoreError, match="newer version"):
        Store(tmp_path / "new.db", clock)
