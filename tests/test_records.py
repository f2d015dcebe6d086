"""SPEC F9: JSON Lines export/import, lossless round trip, all-or-nothing."""
from __future__ import annotations

import io
import json

import pytest

from memory import episodes, knowledge
from memory.errors import ImportFailed
from memory.records import export_records, import_records, write_export
from memory.store import Store


def populate(store):
    ep = episodes.open_episode(store)
    m1 = episodes.add_message(store, ep.id, "user", "I moved to Lisbon")
    episodes.add_message(store, ep.id, "assistant", "Noted.")
    episodes.close_episode(store, ep.id, "Moving", "Moved to Lisbon", "success")
    a = knowledge.remember(store, "I live in Lisbon", kind="fact", importance=4, message_ids=[m1.id])
    b = knowledge.remember(store, "Pay rent", due_at="2026-12-01T09:00:00+00:00")
    knowledge.forget(store, knowledge.remember(store, "gap").id)  # ids need not be contiguous
    knowledge.remember(store, "Bob", kind="person", relation="brother", trust=8, tension=5, private=True)
    knowledge.update_memory(store, b.id, reminded_at="now")
    store.execute("INSERT INTO summaries (content, source_ids, source_key, confidence, created_at) "
                  "VALUES ('About Lisbon', ?, ?, 0.9, '2026-11-22T14:00:00+00:00')", (f"[{a.id}]", str(a.id)))
    store.execute("INSERT INTO edges (source_type, source_id, target_type, target_id, edge_type, created_at) "
                  "VALUES ('summary', 1, 'memory', ?, 'consolidates', '2026-11-22T14:00:00+00:00')", (a.id,))


def dump(store) -> list[dict]:
    return list(export_records(store))


def test_round_trip_into_empty_database(store, tmp_path, clock):
    populate(store)
    out = io.StringIO()
    count = write_export(store, out)
    target = Store(tmp_path / "copy.db", clock)
    import_records(target, out.getvalue().splitlines())
    assert dump(target) == dump(store) and count == len(dump(store))
    target.close()


def test_hand_written_file_resolves_its_own_ids(store):
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
def test_bad_line_rolls_back_everything_and_names_the_line(store, bad, why):
    good = json.dumps({"type": "memory", "kind": "fact", "content": "Good one"})
    with pytest.raises(ImportFailed) as info:
        import_records(store, [good, good, bad])
    assert info.value.line == 3 and why in str(info.value)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0
