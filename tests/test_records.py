"""SPEC F9: JSON Lines export/import, lossless round trip, all-or-nothing."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memory import episodes, memories, reminders
from memory.errors import ImportFailed
from memory.store import Store
from memory.transfer.jsonl_export import export_records, write_export
from memory.transfer.jsonl_import import import_records

if TYPE_CHECKING:
    from memory.time.clock import Clock


def populate(store: Store) -> None:
    ep = episodes.open_episode(store)
    m1 = episodes.add_message(store, ep.id, "user", "I moved to Lisbon")
    episodes.add_message(store, ep.id, "assistant", "Noted.")
    episodes.close_episode(store, ep.id, "Moving", "Moved to Lisbon", "success")
    a = memories.remember(store, "I live in Lisbon", kind="fact", importance=4, message_ids=[m1.id])
    b = memories.remember(store, "Pay rent", due_at="2026-12-01T09:00:00+00:00")
    memories.forget(store, memories.remember(store, "gap").id)  # ids need not be contiguous
    memories.remember(store, "Bob", kind="person", relation="brother", trust=8, tension=5, private=True)
    reminders.update_memory(store, b.id, reminded_at="now")
    store.execute("INSERT INTO summaries (content, source_ids, source_key, confidence, created_at) "
                  "VALUES ('About Lisbon', ?, ?, 0.9, '2026-11-22T14:00:00+00:00')", (f"[{a.id}]", str(a.id)))
    store.execute("INSERT INTO edges (source_type, source_id, target_type, target_id, edge_type, created_at) "
                  "VALUES ('summary', 1, 'memory', ?, 'consolidates', '2026-11-22T14:00:00+00:00')", (a.id,))


def dump(store: Store) -> list[dict[str, Any]]:
    return list(export_records(store))


def test_round_trip_into_empty_database(store: Store, tmp_path: Path, clock: Clock) -> None:
    populate(store)
    out = io.StringIO()
    count = write_export(store, out)
    target = Store(tmp_path / "copy.db", clock)
    import_records(target, out.getvalue().splitlines())
    assert dump(target) == dump(store) and count == len(dump(store))
    target.close()


def test_where_a_memory_came_from_survives_a_round_trip_and_an_import_is_labelled(store: Store, tmp_path: Path,
                                                                                  clock: Clock) -> None:
    typed = memories.remember(store, "I live in Lisbon", kind="fact")
    store.execute("UPDATE knowledge SET source = 'mcp:claude-desktop', pinned = 1 WHERE id = ?", (typed.id,))
    memories.remember(store, "Pay rent", due_at="2026-12-01T09:00:00+00:00")
    out = io.StringIO()
    write_export(store, out)
    target = Store(tmp_path / "copy.db", clock)
    import_records(target, out.getvalue().splitlines())
    assert [tuple(m) for m in target.query("SELECT source, pinned FROM knowledge ORDER BY id")] == \
        [("mcp:claude-desktop", 1), ("typed", 0)]
    import_records(target, [json.dumps({"type": "memory", "kind": "fact", "content": "Likes skiing"})])
    assert target.one("SELECT source FROM knowledge WHERE content = 'Likes skiing'")[0] == "imported"
    with pytest.raises(ImportFailed):
        import_records(target, [json.dumps({"type": "memory", "content": "x", "source": "gossip"})])
    target.close()


def test_hand_written_file_resolves_its_own_ids(store: Store) -> None:
    lines = [
        json.dumps({"type": "message", "id": "m1", "episode_id": "trip", "role": "user", "content": "Ski?",
                    "created_at": "2026-11-20T10:00:00Z"}),
        json.dumps({"type": "episode", "id": "trip", "title": "Ski", "summary": "Ski plans", "outcome": "success",
                    "started_at": "2026-11-20T10:00:00+00:00", "ended_at": "2026-11-20T10:30:00+00:00"}),
        json.dumps({"type": "memory", "kind": "fact", "content": "Likes skiing"}),
    ]
    counts = import_records(store, lines)
    assert counts["episode"] == 1 and counts["message"] == 1 and counts["memory"] == 1
    msg = store.one("SELECT * FROM messages")
    assert msg["episode_id"] == store.one("SELECT id FROM episodes")[0]
    assert msg["created_at"] == "2026-11-20T10:00:00+00:00"
    mem = store.one("SELECT * FROM knowledge")
    assert mem["importance"] == 3 and mem["created_at"] == "2026-11-22T14:00:00+00:00"


@pytest.mark.parametrize("bad, why", [
    ("{not json", "not valid JSON"),
    (json.dumps({"type": "memory", "kind": "fact", "content": "x", "importance": 9}), "importance"),
    (json.dumps({"type": "memory", "kind": "wish", "content": "x"}), "unknown kind"),
    (json.dumps({"type": "message", "episode_id": "nope", "role": "user", "content": "x"}), "names no episode"),
    (json.dumps({"type": "memory", "content": "x", "due_at": "someday"}), "due_at"),
    (json.dumps({"type": "planet"}), "type must be"),
])
def test_bad_line_rolls_back_everything_and_names_the_line(store: Store, bad: str, why: str) -> None:
    good = json.dumps({"type": "memory", "kind": "fact", "content": "Good one"})
    with pytest.raises(ImportFailed) as info:
        import_records(store, [good, good, bad])
    assert info.value.line == 3 and why in str(info.value)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0


def test_reimporting_the_same_export_adds_nothing(store: Store, tmp_path: Path, clock: Clock) -> None:
    """Issue 13: re-importing doubled everything (knowledge 501 -> 1002 -> 1503)."""
    populate(store)
    lines = [json.dumps(r) for r in export_records(store)]
    target = Store(tmp_path / "copy.db", clock)
    first = import_records(target, lines)
    before = dump(target)
    again = import_records(target, lines)
    assert first["already_present"] == 0 and first["memory"] == 3
    assert again["already_present"] == len([r for r in before if r["type"] != "edge"])
    nothing_new = dict.fromkeys(("episode", "message", "memory", "summary", "tombstone"), 0) | {"edge": again["edge"]}
    assert {k: v for k, v in again.items() if k not in ("already_present", "forgotten")} == nothing_new
    assert dump(target) == before
    # Into the very store it came from: every record is recognised by its own id.
    assert import_records(store, lines)["already_present"] == len(before) - sum(r["type"] == "edge" for r in before)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 3
    target.close()


def test_reimporting_a_hand_written_file_adds_nothing(store: Store) -> None:
    lines = [json.dumps({"type": "memory", "kind": "fact", "content": "Likes skiing"}),
             json.dumps({"type": "memory", "kind": "fact", "content": "Likes skiing"}),  # said twice: kept twice
             json.dumps({"type": "episode", "id": "e", "title": "T", "started_at": "2026-11-20T10:00:00Z"}),
             json.dumps({"type": "message", "episode_id": "e", "role": "user", "content": "hi",
                         "created_at": "2026-11-20T10:00:00Z"})]
    assert import_records(store, lines)["memory"] == 2
    counts = import_records(store, lines)
    assert counts["already_present"] == 4 and counts["memory"] == counts["message"] == counts["episode"] == 0
    assert store.one("SELECT count(*) FROM knowledge")[0] == 2


def test_at_most_one_episode_is_active_after_any_import(store: Store) -> None:
    current = episodes.open_episode(store)
    episodes.add_message(store, current.id, "user", "hello")
    lines = [json.dumps({"type": "episode", "id": i, "title": f"E{i}", "active": True,
                         "started_at": f"2026-11-2{i}T10:00:00Z"}) for i in (1, 2)]
    import_records(store, lines)
    assert [r[0] for r in store.query("SELECT id FROM episodes WHERE active = 1")] == [current.id]
    assert all(r[0] for r in store.query("SELECT ended_at FROM episodes WHERE id != ?", (current.id,)))


def _corrupt_a_page_of(path: Path, table: str) -> None:
    from memory.connection import connect

    db = connect(str(path))
    page = db.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno "
                      "LIMIT 1 OFFSET 3", (table,)).fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with open(path, "r+b") as f:
        f.seek((page - 1) * size + 8)
        f.write(b"\xde\xad\xbe\xef" * (size // 8))


@pytest.mark.slow
def test_a_damaged_store_is_reported_and_every_readable_row_exported(tmp_path: Path, clock: Clock,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: a corrupted database gets a clear message, doctor names it, export salvages the rest."""
    from assistant.cli.program import main

    monkeypatch.setenv("ASSISTANT_EMBEDDING_MODEL", "none")  # 2,000 rows: what is tested is the salvage

    path = tmp_path / "damaged.db"
    with Store(path, clock) as store:
        with store.transaction():
            store.conn.executemany("INSERT INTO knowledge (kind, content, created_at, updated_at) VALUES "
                                   "('note', ?, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')",
                                   [(f"memory number {i} " + "x" * 80,) for i in range(2000)])
    _corrupt_a_page_of(path, "knowledge")
    assert main(["doctor", "--db", str(path)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED" in out and "To recover" in out and str(path) in out
    saved = tmp_path / "saved.jsonl"
    assert main(["export", str(saved), "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert "damaged" in err and "could not read" in err and len(err.strip().splitlines()) == 2
    memories = [json.loads(line) for line in saved.read_text().splitlines() if '"memory"' in line]
    assert 1800 < len(memories) < 2000  # one page of ~40 rows lost, the rest saved
    fresh = tmp_path / "fresh.db"
    assert main(["import", str(saved), "--db", str(fresh)]) == 0
    assert main(["doctor", "--db", str(fresh)]) == 0


def test_a_truncated_or_garbage_file_gives_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli.program import main

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    assert main(["reminders", "--db", str(garbage)]) == 2  # a path that names no store: bad input
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not an SQLite file" in err
    assert main(["doctor", "--db", str(garbage)]) == 1
    out = capsys.readouterr().out
    assert "not an SQLite file" in out and "export" not in out
    assert garbage.read_bytes() == b"this is not a database" * 100

    damaged = tmp_path / "damaged.db"  # a store whose list of tables is overwritten
    assert main(["remember", "x", "--db", str(damaged)]) == 0
    import sqlite3

    with sqlite3.connect(damaged) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(damaged, "r+b") as handle:
        handle.seek(100)
        handle.write(b"\xde\xad" * 1500)
    capsys.readouterr()
    assert main(["reminders", "--db", str(damaged)]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot be read" in err and "assistant doctor" in err
    assert main(["doctor", "--db", str(damaged)]) == 1
    out = capsys.readouterr().out
    assert "cannot be read as a database" in out and "only a backup copy" in out
    assert main(["export", "--db", str(damaged)]) == 1
    assert "nothing in" in capsys.readouterr().err
