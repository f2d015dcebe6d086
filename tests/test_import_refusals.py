"""An attacker's pass over import (SPEC 5, docs/privacy.md "hostile input", docs/import.md): text that is not
valid Unicode, ids given twice, a zone that names no zone and a ZIP that inflates a thousand times are
each one line on stderr and exit 2, and change nothing: no store file, no `imports` row, no line saying
something was imported. The rules are the JSON Lines reader's, held by memory.transfer.checks for both."""
from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memory.store import Store
from tests.chat_exports import ChatGPTBuilder, write_json, write_zip
from tests.test_import_archives import deflated, raw_zip

if TYPE_CHECKING:
    from tests.conftest import Cli

pytestmark = pytest.mark.usefixtures("keywords_only")


def claude(uuid: str = "c-1", name: str = "Bread", texts: tuple[str, ...] = ("how do I bake bread?",),
           message_ids: tuple[str, ...] | None = None) -> dict[str, Any]:
    ids = message_ids or tuple(f"{uuid}-m{i}" for i in range(len(texts)))
    return {"uuid": uuid, "name": name, "created_at": "2024-03-01T10:00:00Z", "updated_at": "2024-03-01T10:05:00Z",
            "chat_messages": [{"uuid": ident, "sender": "human" if i % 2 == 0 else "assistant", "text": text,
                               "created_at": f"2024-03-01T10:0{i}:00Z"} for i, (ident, text) in
                              enumerate(zip(ids, texts, strict=True))]}


def chatgpt(cid: str = "g-1", title: str = "Trains",
            texts: tuple[str, ...] = ("a train to Sintra?",)) -> dict[str, Any]:
    b = ChatGPTBuilder(cid, title, datetime(2024, 5, 1, 8, tzinfo=UTC))
    for i, text in enumerate(texts):
        b.text("user" if i % 2 == 0 else "assistant", text)
    return b.conversation()


def refused(cli: Cli, path: Path | str, why: str, store_before: bool = False) -> str:
    """Exit 2, one line naming `why`, nothing on stdout (no progress line either); and nothing changed:
    no store where there was none, else no import recorded and nothing added."""
    db = Path(cli.db)
    before = _counts(db) if store_before else None
    code, out, err = cli("import", str(path))
    assert code == 2 and err.count("\n") == 1 and why in err and out == "", err
    assert "unexpected error" not in err and "database error" not in err and "Imported" not in err, err
    if store_before:
        assert _counts(db) == before
    else:
        assert not db.exists() and not Path(f"{db}-wal").exists(), "a refused import created the store"
    return err


def _counts(db: Path) -> tuple[int, ...]:
    with Store(db) as store:
        return tuple(store.one(f"SELECT count(*) FROM {table}")[0]
                     for table in ("imports", "episodes", "messages", "knowledge"))


# -- 1. a lone surrogate in a chat export -------------------------------------------------------------

SURROGATE = "\ud800 lone"


@pytest.mark.parametrize("export", [
    pytest.param(lambda: [claude(name=SURROGATE)], id="claude-name"),
    pytest.param(lambda: [claude(), claude("c-2", texts=("hi", f"reply {SURROGATE}"))], id="claude-text"),
    pytest.param(lambda: [chatgpt(title=SURROGATE)], id="chatgpt-title"),
    pytest.param(lambda: [chatgpt(texts=("hello", f"answer {SURROGATE}"))], id="chatgpt-part"),
])
@pytest.mark.parametrize("packed", ["json", "zip"])
def test_a_lone_surrogate_in_a_chat_export_is_one_line_and_nothing_is_written(
        cli: Cli, tmp_path: Path, export: Callable[[], list[dict[str, Any]]], packed: str) -> None:
    text = json.dumps(export())  # escaped, as any JSON writer keeps a lone surrogate: "\\ud800"
    if packed == "zip":
        path = tmp_path / "export.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("conversations.json", text)
    else:
        path = tmp_path / "conversations.json"
        path.write_text(text)
    err = refused(cli, path, "holds text that is not valid Unicode (a lone surrogate)")
    assert "conversation" in err and "nothing was imported" in err


def test_an_escaped_emoji_in_a_chat_export_is_text(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([claude(name="Bread \U0001F35E", texts=("bake \U0001F35E?",))], ensure_ascii=True))
    code, _, err = cli("import", str(path), "--json")
    assert code == 0, err
    with Store(cli.db) as store:
        assert store.one("SELECT content FROM messages")[0] == "bake \U0001F35E?"


# -- 2. ids twice in a chat export ---------------------------------------------------------------------

@pytest.mark.parametrize("export, named", [
    pytest.param(lambda: [claude("c-1"), claude("c-1", texts=("something else",))], "its id", id="claude-conv"),
    pytest.param(lambda: [claude(texts=("one", "two"), message_ids=("m-1", "m-1"))], "message id 'm-1'",
                 id="claude-message"),
    pytest.param(lambda: [chatgpt("g-1"), chatgpt("g-1", texts=("other",))], "its id", id="chatgpt-conv"),
])
def test_an_id_given_twice_to_different_records_of_a_chat_export_is_refused(
        cli: Cli, tmp_path: Path, export: Callable[[], list[dict[str, Any]]], named: str) -> None:
    err = refused(cli, write_json(tmp_path / "conversations.json", export()), "appears twice in the file")
    assert named in err


def test_a_chatgpt_message_id_on_two_nodes_is_refused(cli: Cli, tmp_path: Path) -> None:
    conversation = chatgpt(texts=("first question", "first answer"))
    nodes = [n for n in conversation["mapping"].values() if n["message"]]
    nodes[1]["message"]["id"] = nodes[0]["message"]["id"]
    err = refused(cli, write_json(tmp_path / "conversations.json", [conversation]), "appears twice in the file")
    assert f"message id {nodes[0]['message']['id']!r}" in err


def test_an_identical_copy_of_a_conversation_is_read_once(cli: Cli, tmp_path: Path) -> None:
    data = [claude("c-1", texts=("one", "two")), claude("c-2"), claude("c-1", texts=("one", "two"))]
    code, out, err = cli("import", str(write_json(tmp_path / "conversations.json", data)), "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["conversations_added"] == 2 and summary["messages_added"] == 3


# -- 3. and 4. JSON Lines: a uid twice, a zone that names none -----------------------------------------

def jsonl(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_two_records_of_one_uid_are_refused_naming_it_and_nothing_is_written(cli: Cli, tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"type": "memory", "uid": "x/memory/1", "content": "the door code is at the desk"},
                 {"type": "memory", "uid": "x/memory/1", "content": "the boiler was serviced in May"})
    err = refused(cli, path, "memory uid 'x/memory/1' appears twice in the file (first on line 1)")
    assert err.startswith("assistant: error: line 2:")


def test_a_record_given_twice_as_it_is_is_read_once(cli: Cli, tmp_path: Path) -> None:
    same = {"type": "memory", "uid": "x/memory/1", "id": 1, "content": "the boiler was serviced in May"}
    code, _, err = cli("import", str(jsonl(tmp_path, same, same)))
    assert code == 0 and "already present" not in err, err
    with Store(cli.db) as store:
        assert store.one("SELECT count(*) FROM knowledge")[0] == 1


def test_an_episode_that_ends_before_it_starts_is_refused_naming_its_line(cli: Cli, tmp_path: Path) -> None:
    cli("remember", "before")
    path = jsonl(tmp_path, {"type": "memory", "content": "the boiler was serviced in May"},
                 {"type": "episode", "id": 1, "title": "Trains", "started_at": "2026-01-01T00:00:00+00:00",
                  "ended_at": "2025-01-01T00:00:00+00:00"})
    err = refused(cli, path, "ends before it starts", store_before=True)
    assert err.startswith("assistant: error: line 2: episode: ") and "2025-01-01" in err, err


def test_an_episode_that_ends_as_it_starts_is_imported(cli: Cli, tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"type": "episode", "id": 1, "title": "Trains", "started_at": "2026-01-01T00:00:00+00:00",
                            "ended_at": "2026-01-01T01:00:00+01:00"})  # the same instant, written in another zone
    assert cli("import", str(path))[0] == 0


def test_a_lone_surrogate_or_a_duplicate_in_json_lines_creates_no_store(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"memory","content":"a\\ud800"}\n')
    refused(cli, path, "line 1: holds text that is not valid Unicode (a lone surrogate)")


@pytest.mark.parametrize("zone", ["../../etc/passwd", "Mars/Olympus", "/dev/zero", "UTC\nRRULE:FREQ=HOURLY"])
def test_a_repeating_rule_in_a_zone_that_names_none_is_refused_naming_the_record(cli: Cli, tmp_path: Path,
                                                                                 zone: str) -> None:
    cli("remember", "before")
    path = jsonl(tmp_path, {"type": "memory", "kind": "reminder", "content": "water the plants",
                            "due_at": "2026-11-24T09:00:00Z",
                            "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=TU", "start": "2026-11-24T09:00:00",
                                           "zone": zone}})
    err = refused(cli, path, "unknown time zone", store_before=True)
    assert err.startswith("assistant: error: line 1: memory: recurrence")


def test_a_repeating_rule_in_a_known_zone_still_imports_and_exports_with_its_tzid(cli: Cli, tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"type": "memory", "kind": "reminder", "content": "water the plants",
                            "due_at": "2026-11-24T08:00:00Z",
                            "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=TU", "start": "2026-11-24T09:00:00",
                                           "zone": "Europe/Berlin"}})
    assert cli("import", str(path))[0] == 0
    code, out, _ = cli("export", "--ics", "-")
    assert code == 0 and "TZID=Europe/Berlin" in out


# -- 6. a ZIP that inflates far more than text does ----------------------------------------------------

def test_a_conversations_json_that_would_inflate_a_thousand_times_is_refused_from_the_directory(cli: Cli,
                                                                                                tmp_path: Path) -> None:
    body = b"[" + b" " * (8 * 1024 * 1024) + b"]"  # 8 MB of blanks deflate to about 8 KB
    path = raw_zip(tmp_path / "bomb.zip", [("conversations.json", deflated(body), zlib.crc32(body), len(body))])
    assert path.stat().st_size < 64 * 1024
    refused(cli, path, "would inflate")
    assert "more than 100 times" in refused(cli, path, "refused before reading any")


def test_a_large_export_that_compresses_as_text_does_is_read(cli: Cli, tmp_path: Path) -> None:
    # Over the megabyte from which the ratio counts, and repetitive (about 20 times): still an export.
    data = [claude(f"c-{i}", texts=(f"question {i} " * 40, "answer " * 200)) for i in range(600)]
    path = write_zip(tmp_path / "export.zip", data, "claude")
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("conversations.json")
    assert info.file_size > 1024 * 1024 and info.file_size > 10 * info.compress_size
    code, out, err = cli("import", str(path), "--json")
    assert code == 0 and json.loads(out)["conversations_added"] == 600, err


def test_progress_counts_only_what_is_committed(tmp_path: Path) -> None:
    """A batch that fails (here a real trigger refusing its second conversation's message) is never
    reported: the last progress said only what the first batch committed."""
    from memory.time.clock import Clock
    from memory.transfer.chat_import import import_chats
    from memory.transfer.chats import read_export
    from tests.conftest import T0

    export = read_export([claude("c-1", texts=("fine",)), claude("c-2", texts=("also fine",)),
                          claude("c-3", texts=("boom",))], "claude")
    said: list[tuple[int, int, int]] = []
    with Store(tmp_path / "m.db", Clock(UTC, T0)) as store:
        store.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON messages WHEN NEW.content = 'boom' "
                      "BEGIN SELECT RAISE(ABORT, 'refused'); END")
        with pytest.raises(Exception, match="refused"):
            import_chats(store, export, "c.json", batch_messages=2, progress=lambda *a: said.append(a))
        assert store.one("SELECT count(*) FROM messages")[0] == 2
    assert said == [(2, 3, 2)]  # the first batch, committed; never the third conversation
