"""Issue 34: a ChatGPT or Claude data export becomes conversations of their own time (SPEC F13).

Fixtures are written from the documented formats (tests/chat_exports.py): hundreds of conversations with
edited branches, images, tool runs, hidden messages, code, other languages, float and ISO timestamps and
null titles."""
from __future__ import annotations

import json
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memory import episodes
from memory.store import Store
from tests.chat_exports import TOPICS, ChatGPTBuilder, chatgpt_export, claude_export, write_json, write_zip
from tests.conftest import T0, Cli, present

if TYPE_CHECKING:
    from memory.search.embeddings import LocalEmbedder

pytestmark = pytest.mark.usefixtures("keywords_only")  # the embedder has its own test below


def open_store(cli: Cli) -> Store:
    from memory.time.clock import Clock

    return Store(cli.db, Clock(UTC, T0))


def rows(cli: Cli, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with open_store(cli) as store:
        return [tuple(r) for r in store.query(sql, params)]


@pytest.mark.parametrize("kind", ["chatgpt", "claude"])
@pytest.mark.parametrize("packed", ["zip", "json"])
def test_an_export_becomes_episodes_with_their_titles_times_and_messages_in_order(cli: Cli, tmp_path: Path, kind: str,
                                                                                  packed: str) -> None:
    data, expected = chatgpt_export(300) if kind == "chatgpt" else claude_export(200)
    path = write_zip(tmp_path / "export.zip", data, kind) if packed == "zip" else \
        write_json(tmp_path / "conversations.json", data)
    code, out, err = cli("import", str(path), "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["format"] == kind and summary["conversations_added"] == expected.conversations
    assert summary["messages_added"] == expected.messages
    assert summary["skipped"] == expected.skipped  # system, tool, hidden, empty, non-text: each counted
    assert rows(cli, "SELECT count(*) FROM episodes") == [(expected.conversations,)]
    assert rows(cli, "SELECT count(*) FROM messages") == [(expected.messages,)]
    with open_store(cli) as store:
        by_uid = {e["uid"]: e for e in store.query("SELECT * FROM episodes")}
        for item in data:
            uid = f"{kind}:{item['id'] if kind == 'chatgpt' else item['uuid']}"
            if uid not in expected.first_texts:
                assert uid not in by_uid  # a conversation without text is skipped
                continue
            episode = by_uid[uid]
            said = episodes.episode_messages(store, episode["id"])
            assert said[0].content == expected.first_texts[uid] and said[0].role == "user"
            assert [m.role for m in said] == ["user", "assistant"] * (len(said) // 2)
            assert all(a.created_at <= b.created_at for a, b in zip(said, said[1:], strict=False))
            start = item["create_time" if kind == "chatgpt" else "created_at"]
            moment = datetime.fromtimestamp(start, UTC) if isinstance(start, float) else \
                datetime.fromisoformat(start.replace("Z", "+00:00"))
            assert datetime.fromisoformat(episode["started_at"]) == moment
            assert episode["ended_at"] == said[-1].created_at and episode["active"] == 0
            title = expected.titles[uid]
            if title:
                assert episode["title"] == title
            else:  # a null title, or ChatGPT's "New chat", gets one made here from what was said
                assert episode["title"] and episode["title"] != "New chat"
            assert all("OLD BRANCH" not in m.content for m in said)  # only the branch last seen


def test_the_branch_read_is_the_one_last_seen_after_an_edit(cli: Cli, tmp_path: Path) -> None:
    b = ChatGPTBuilder("conv-edit", "Edited", datetime(2024, 5, 1, 8, tzinfo=UTC))
    first = b.text("user", "what wine goes with fish?")
    b.text("assistant", "A white: Albariño or Chablis.")
    b.text("user", "and with lamb?")
    b.text("assistant", "A Rioja.")
    # The person edited the first question; the newer branch is what they saw last.
    edited = b.text("user", "what beer goes with fish?", parent=b.mapping[first]["parent"])
    b.text("assistant", "A wheat beer or a pilsner.", parent=edited)
    code, _, err = cli("import", str(write_json(tmp_path / "c.json", [b.conversation()])))
    assert code == 0, err
    assert [r[0] for r in rows(cli, "SELECT content FROM messages ORDER BY id")] == [
        "what beer goes with fish?", "A wheat beer or a pilsner."]


def test_code_blocks_and_other_languages_are_kept_as_said(cli: Cli, tmp_path: Path) -> None:
    data, _ = chatgpt_export(30)
    cli("import", str(write_json(tmp_path / "c.json", data)))
    texts = {r[0] for r in rows(cli, "SELECT content FROM messages")}
    assert TOPICS[2][2] in texts and "```python\nflat = [x for row in rows for x in row]\n```" in TOPICS[2][2]
    assert {TOPICS[5][1], TOPICS[6][1], TOPICS[4][2]} <= texts
    code, out, _ = cli("recall", "борщ", "--json")  # the keyword index reads them too
    assert code == 0 and any("борщ" in hit["content"] for hit in json.loads(out))


def test_imported_text_takes_the_typed_write_path(cli: Cli, tmp_path: Path) -> None:
    """Dates against the message's own time, the keyword index and the embedding queue, secrets kept out
    of titles: what a typed conversation gets."""
    b = ChatGPTBuilder("conv-dates", "bank password Hunter!Pw77 for online banking", datetime(2024, 3, 2, 10,
                                                                                               tzinfo=UTC))
    b.text("user", "remind me what to bring to the dentist tomorrow")
    b.text("assistant", "Your insurance card.")
    b.text("user", "my online banking password is Hunter!Pw77")
    b.text("assistant", "Please do not share passwords.")
    cli("import", str(write_json(tmp_path / "c.json", [b.conversation()])))
    with open_store(cli) as store:
        said = episodes.episode_messages(store, 1)
        assert said[0].time_refs == [{"text": "tomorrow", "date": "2024-03-03", "granularity": "day"}]
        assert said[2].content == "my online banking password is Hunter!Pw77"  # kept exactly, as typed text is
        episode = episodes.get_episode(store, 1)
        assert "Hunter!Pw77" not in (episode.title or "") + (episode.summary or "")
        assert store.one("SELECT count(*) FROM pending_embeddings WHERE doc_id % 4 = 0")[0] == 4
    code, out, _ = cli("recall", "dentist", "--json")
    assert [hit["content"] for hit in json.loads(out)][:1] == ["remind me what to bring to the dentist tomorrow"]


def test_a_secret_said_to_chatgpt_leaves_the_machine_only_as_a_placeholder(tmp_path: Path) -> None:
    """A password said to ChatGPT in 2023 is sensitive here too: recalled into a prompt, it goes out as a
    placeholder, by the same gate as a typed message."""
    from assistant.outbound.gate import Gate
    from memory.transfer.chat_import import import_chats
    from memory.transfer.chats import read_export
    from tests.conftest import make_runtime

    b = ChatGPTBuilder("conv-secret", None, datetime(2023, 6, 1, 10, tzinfo=UTC))
    b.text("user", "the wifi password at the cabin is Cabin!Wifi42")
    b.text("assistant", "Noted.")
    rt = make_runtime(tmp_path)
    import_chats(rt.store, read_export([b.conversation()], "chatgpt"), "c.json")
    stored = rt.store.one("SELECT id, content FROM messages WHERE role = 'user'")
    sent = Gate(rt.store).message(stored["id"], stored["content"])
    assert "Cabin!Wifi42" not in sent and "[secret" in sent
    rt.close()


def test_reimport_adds_nothing_and_a_grown_conversation_gets_only_its_new_messages(cli: Cli, tmp_path: Path) -> None:
    data, expected = chatgpt_export(120)
    path = write_zip(tmp_path / "export.zip", data)
    cli("import", str(path))
    code, out, _ = cli("import", str(write_json(tmp_path / "conversations.json", data)), "--json")
    again = json.loads(out)
    assert code == 0 and again["conversations_added"] == again["messages_added"] == 0
    assert again["conversations_present"] == expected.conversations
    # A newer export: one conversation went on, one is new.
    grown = next(c for c in data if c["id"].endswith("00000001"))
    b = ChatGPTBuilder(grown["id"], grown["title"], datetime(2023, 1, 11, 5, tzinfo=UTC))
    b.mapping = grown["mapping"]
    b.current = grown["current_node"]
    b.count = 100
    b.clock = datetime(2023, 2, 1, 9, tzinfo=UTC)
    b.text("user", "one more question about the trip")
    b.text("assistant", "Sure.")
    newer = [*data, ChatGPTBuilder("conv-new", "New", datetime(2023, 8, 1, tzinfo=UTC)).conversation()]
    newer[-1] = _with_text(newer[-1])
    newer[data.index(grown)] = b.conversation()
    before = rows(cli, "SELECT id, ended_at FROM episodes WHERE uid = ?", (f"chatgpt:{grown['id']}",))[0]
    code, out, _ = cli("import", str(write_json(tmp_path / "newer.json", newer)), "--json")
    result = json.loads(out)
    assert (result["conversations_added"], result["conversations_grown"], result["messages_added"]) == (1, 1, 4)
    episode_id, ended = rows(cli, "SELECT id, ended_at FROM episodes WHERE uid = ?", (f"chatgpt:{grown['id']}",))[0]
    assert episode_id == before[0] and ended > before[1]
    assert rows(cli, "SELECT content FROM messages WHERE episode_id = ? ORDER BY id DESC LIMIT 2", (episode_id,)) == [
        ("Sure.",), ("one more question about the trip",)]
    # Undo the newer import: the new conversation goes, the grown one loses its new messages and its end.
    code, out, err = cli("import", "--undo-last")
    assert code == 0 and "(#3, ChatGPT export newer.json, Nov 22 14:00): removed 1 conversation, 4 messages." in out
    assert rows(cli, "SELECT id, ended_at FROM episodes WHERE uid = ?", (f"chatgpt:{grown['id']}",)) == [before]
    assert rows(cli, "SELECT count(*) FROM messages") == [(expected.messages,)]


def _with_text(conversation: dict[str, Any]) -> dict[str, Any]:
    b = ChatGPTBuilder(conversation["id"], conversation["title"], datetime(2023, 8, 1, tzinfo=UTC))
    b.text("user", "a brand new question")
    b.text("assistant", "a brand new answer")
    return b.conversation()


def test_dry_run_writes_nothing_and_says_what_would_be_added(cli: Cli, tmp_path: Path) -> None:
    data, expected = claude_export(60)
    path = write_zip(tmp_path / "claude.zip", data, "claude")
    cli("status")  # the store exists, empty
    code, out, err = cli("import", str(path), "--dry-run")
    assert code == 0, err
    assert out.startswith(f"Would add {expected.conversations} conversations from a Claude export "
                          f"({expected.messages} messages)") and "Nothing was written (--dry-run)." in out
    assert rows(cli, "SELECT (SELECT count(*) FROM episodes) + (SELECT count(*) FROM messages) + "
                     "(SELECT count(*) FROM imports)") == [(0,)]


def test_undo_last_removes_the_whole_import_in_one_go(cli: Cli, tmp_path: Path) -> None:
    cli("remember", "the plumber comes on Tuesday")
    cli("chat", "hello there, how are you")
    typed = rows(cli, "SELECT count(*) FROM messages")[0][0]
    data, expected = chatgpt_export(50)
    cli("import", str(write_json(tmp_path / "c.json", data)))
    assert rows(cli, "SELECT count(*) FROM messages")[0][0] == typed + expected.messages
    code, out, _ = cli("import", "--undo-last", "--json")
    undone = json.loads(out)["undone"]
    assert code == 0 and undone["removed"]["conversations"] == expected.conversations
    assert undone["removed"]["messages"] == expected.messages
    assert rows(cli, "SELECT count(*) FROM messages")[0][0] == typed
    assert rows(cli, "SELECT count(*) FROM episodes WHERE uid IS NOT NULL") == [(0,)]
    assert rows(cli, "SELECT count(*) FROM search_index WHERE doc_type = 'message'") == [(typed,)]
    assert rows(cli, "SELECT count(*) FROM knowledge") == [(1,)]  # what was typed stays
    code, _, err = cli("import", "--undo-last")
    assert code == 2 and "no import to undo" in err
    code, out, _ = cli("import", str(write_json(tmp_path / "c.json", data)), "--json")  # not a forget
    assert json.loads(out)["conversations_added"] == expected.conversations


def test_undo_last_of_a_json_lines_import_removes_its_memories(cli: Cli, tmp_path: Path) -> None:
    from tests.conftest import write_jsonl

    path = write_jsonl(tmp_path / "m.jsonl", [
        {"type": "episode", "id": 1, "title": "Old trip", "started_at": "2023-05-01T10:00:00+00:00",
         "ended_at": "2023-05-01T11:00:00+00:00"},
        {"type": "message", "episode_id": 1, "role": "user", "content": "we are in Porto",
         "created_at": "2023-05-01T10:00:00+00:00"},
        {"type": "memory", "kind": "fact", "content": "Porto has the best tarts", "message_ids": [1]},
        {"type": "memory", "content": "call the bank", "due_at": "2026-12-01T09:00:00+00:00"}])
    cli("remember", "my own note")
    assert cli("import", str(path))[0] == 0
    code, out, _ = cli("import", "--undo-last")
    assert code == 0 and out.endswith("removed 1 conversation, 1 message, 2 memories.\n")
    assert rows(cli, "SELECT content FROM knowledge") == [("my own note",)]
    assert rows(cli, "SELECT count(*) FROM episodes") == [(0,)]


@pytest.mark.parametrize("content, why", [
    (json.dumps([{"foo": 1}]), "neither a ChatGPT nor a Claude export"),
    (json.dumps([{"id": "abc", "title": "x", "current_node": "n1"}]), "conversation 1 (id abc): has no mapping"),
    (json.dumps([{"uuid": "u1", "name": "x"}]), "conversation 1 (id u1): has no chat_messages list"),
    ('[{"mapping": {}, "id": "a", "create_time": "yesterday"}]', "the time 'yesterday' is not ISO 8601"),
    ("[1, 2", "is not valid JSON (line 1, column 6"),
    ("[]", "an empty list: no conversations"),
])
def test_a_bad_file_is_one_line_naming_what_and_where_and_nothing_is_written(cli: Cli, tmp_path: Path, content: str,
                                                                             why: str) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(content)
    code, out, err = cli("import", str(path))
    assert code == 2 and why in err and err.count("\n") == 1 and out == ""
    assert rows(cli, "SELECT (SELECT count(*) FROM episodes) + (SELECT count(*) FROM imports)") == [(0,)]


def test_a_zip_without_conversations_json_is_named(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("photo.jpg", b"\xff\xd8")
    code, _, err = cli("import", str(path))
    assert code == 2 and "photos.zip is a ZIP without conversations.json" in err


def test_a_one_line_json_lines_file_is_json_lines_and_a_list_of_records_is_not(cli: Cli, tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"type": "memory", "content": "the attic key is blue"}) + "\n")
    code, out, _ = cli("import", str(one))
    assert code == 0 and "Imported 1 memory" in out
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"type": "memory", "content": "x"}]))
    code, _, err = cli("import", str(listed))
    assert code == 2 and "neither a ChatGPT nor a Claude export" in err


def test_progress_is_a_line_per_thousand_conversations_without_a_terminal_and_json_is_one_object(
        cli: Cli, tmp_path: Path) -> None:
    data, expected = chatgpt_export(2300, turns=1)
    path = write_json(tmp_path / "c.json", data)
    code, out, err = cli("import", str(path))
    lines = [line for line in err.splitlines() if line.startswith("Read ")]
    assert code == 0 and [line.split(" conversations")[0] for line in lines] == [
        f"Read 1,000 of {expected.conversations:,}", f"Read 2,000 of {expected.conversations:,}",
        f"Read {expected.conversations:,} of {expected.conversations:,}"]
    assert "messages/s" in lines[0]
    code, out, err = cli("import", str(path), "--json")
    assert code == 0 and err == "" and json.loads(out)["conversations_present"] == expected.conversations


def test_imported_conversations_are_of_their_own_time(cli: Cli, tmp_path: Path) -> None:
    """A 2023 trip is old: not in the recap of the last 48 hours, in ESTABLISHED HISTORY of the timeline
    (a message's position is its rank in time), while what was said today is recent."""
    from memory import memories
    from memory.timeline import OLD, RECENT, assign_memories_to_buckets

    for text in ("I booked the dentist", "the dentist is on Friday", "I need new running shoes"):
        cli("chat", text)
    data, _ = chatgpt_export(40, start=datetime(2023, 4, 1, tzinfo=UTC))
    cli("import", str(write_json(tmp_path / "c.json", data)))
    code, out, _ = cli("recap", "--json")
    assert code == 0 and all(not e.get("uid") and e["started_at"] >= "2026" for e in json.loads(out))
    with open_store(cli) as store:
        trip = store.one("SELECT id FROM messages WHERE content LIKE 'plan three days in Lisbon%' "
                         "ORDER BY created_at")[0]
        typed = store.one("SELECT id FROM messages WHERE content = 'I need new running shoes'")[0]
        assert trip > typed  # written later, said long before
        for n in range(12):  # the most important memories (12) are the system prompt's (no buckets there)
            memories.remember(store, f"an important fact number {n}", importance=5)
        old = memories.remember(store, "the Lisbon trip was in May", message_ids=[trip])
        new = memories.remember(store, "needs running shoes", message_ids=[typed])
        mems = [old, new]
        positions = episodes.message_positions(store, [trip, typed])
        buckets = assign_memories_to_buckets(mems, episodes.chat_length(store), positions)
        assert buckets[OLD] == [old] and buckets[RECENT] == [new]
    code, out, _ = cli("prompt", "--query", "Lisbon trip running shoes", "--json")
    timeline = next(s["content"] for s in json.loads(out)["sections"] if s["label"] == "Timeline" and
                    s["place"] == "turn")
    assert timeline.index("[ESTABLISHED HISTORY]") < timeline.index("Lisbon trip") < timeline.index("[RECENT EVENTS]")
    assert timeline.index("[RECENT EVENTS]") < timeline.index("running shoes")


def test_embeddings_follow_the_commit_in_batches_while_the_store_stays_usable(
        tmp_path: Path, embedder: LocalEmbedder, capsys: pytest.CaptureFixture[str]) -> None:
    """The rows are committed first (keyword search finds them at once); then the texts are embedded in
    batches, each its own transaction, so another process writes and searches meanwhile."""
    import argparse

    from assistant.cli import data
    from memory.search import Searcher
    from memory.search.embeddings import pending_count, sync_embeddings
    from memory.vectors import count
    from tests.conftest import make_runtime

    runtime = make_runtime(tmp_path)
    # 40 texts: two batches of 32 here, and through the command its first sample of 32 (the rate) and the rest
    data_, expected = chatgpt_export(9)
    path = write_json(tmp_path / "c.json", data_)
    args = argparse.Namespace(file=str(path), index=False, json=True, dry_run=True, undo_last=False)
    assert data.cmd_import(runtime, args) == 0  # a dry run first: nothing to embed, nothing written
    assert pending_count(runtime.store) == 0
    # Keywords find an imported message before anything is embedded.
    args.dry_run = False
    from memory.transfer.chat_import import import_chats
    from memory.transfer.sniff import read_chat_file

    import_chats(runtime.store, present(read_chat_file(path)).export, str(path))
    waiting = pending_count(runtime.store)
    assert waiting == expected.messages + expected.conversations  # each message, each episode's summary
    assert any("acetone" in h.content for h in Searcher(runtime.store, None).search("acetone starter"))
    seen: list[int] = []

    def meanwhile(done: int, total: int) -> None:
        if not seen:  # between two batches: another process writes and reads
            with Store(runtime.store.path) as other:
                other.conn.execute("PRAGMA busy_timeout = 200")
                other.set_meta("written_meanwhile", "yes")
                seen.append(len(Searcher(other, None).search("acetone")))

    assert sync_embeddings(runtime.store, embedder, batch=32, progress=meanwhile) == waiting
    assert seen and seen[0] > 0 and runtime.store.get_meta("written_meanwhile") == "yes"
    assert pending_count(runtime.store) == 0 and count(runtime.store) == waiting
    runtime.close()
    # Through the command: an import of this size is embedded before it returns.
    runtime = make_runtime(tmp_path / "second")
    runtime.__dict__["embedder"] = embedder
    capsys.readouterr()
    assert data.cmd_import(runtime, argparse.Namespace(file=str(path), index=False, json=True)) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["embedded"] == waiting and summary["pending_embeddings"] == 0
    runtime.close()


def sourdough_export() -> list[dict[str, Any]]:
    data, _ = chatgpt_export(150, start=datetime(2025, 1, 5, tzinfo=UTC), spacing=timedelta(days=4))
    data = [c for c in data if "sourdough" not in json.dumps(c).lower()]
    b = ChatGPTBuilder("conv-sourdough-spring", "Rye loaf", datetime(2026, 4, 18, 9, tzinfo=UTC))
    b.text("user", "how long should I proof a rye sourdough loaf in a cold kitchen?")
    b.text("assistant", "In a cold kitchen (17°C) give it 4 to 6 hours, until it has risen by half.")
    autumn = ChatGPTBuilder("conv-sourdough-autumn", "Sourdough discard", datetime(2025, 10, 2, 9, tzinfo=UTC))
    autumn.text("user", "what can I bake with sourdough discard?")
    autumn.text("assistant", "Crackers, pancakes or waffles.")
    return [*data, b.conversation(), autumn.conversation()]


def test_what_did_i_ask_about_sourdough_last_spring(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34's acceptance question, offline and through `assistant recall`: the spring conversation,
    not the autumn one that says "sourdough" just as well."""
    cli("import", str(write_json(tmp_path / "c.json", sourdough_export())))
    question = "what did I ask about sourdough last spring?"
    code, out, _ = cli("recall", question, "--json")
    hits = json.loads(out)
    spring = rows(cli, "SELECT id FROM episodes WHERE uid = 'chatgpt:conv-sourdough-spring'")[0][0]
    assert code == 0 and hits[0]["type"] == "message" and hits[0]["episode_id"] == spring
    monkeypatch.setenv("ASSISTANT_PROVIDER", "offline")
    code, out, _ = cli("chat", question)
    assert code == 0 and out.startswith('You asked (Sat Apr 18, in "Rye loaf"): how long should I proof a rye '
                                        "sourdough loaf in a cold kitchen?")
    assert "discard" not in out
    code, out, _ = cli("chat", "what did I ask about sourdough?", "--new")
    assert out.startswith("You asked (") and "Rye loaf" in out and "discard" in out  # no period: both


def test_undo_last_of_a_calendar_import(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "cal.ics"
    path.write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:dentist-1\r\n"
                    "DTSTAMP:20261101T100000Z\r\nDTSTART:20261203T090000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n"
                    "END:VCALENDAR\r\n")
    cli("remember", "typed before")
    assert cli("import", str(path))[0] == 0
    assert [r[0] for r in rows(cli, "SELECT content FROM knowledge ORDER BY id")] == ["typed before", "Dentist"]
    code, out, _ = cli("import", "--undo-last")
    assert code == 0 and "calendar cal.ics" in out and out.rstrip().endswith("removed 1 memory.")
    assert rows(cli, "SELECT content FROM knowledge") == [("typed before",)]
    code, _, err = cli("import", str(path), "--dry-run")
    assert code == 2 and "--dry-run" in err


def test_undo_last_undoes_the_last_import_that_added_something_and_says_which(cli: Cli, tmp_path: Path) -> None:
    """Issue 46: after a re-import that added nothing, `import --undo-last` "removed nothing" and left the
    import that had added the conversations in place. It undoes the last import that added something, and
    names it and the ones after it that added nothing."""
    data, expected = chatgpt_export(40)
    path = write_json(tmp_path / "c.json", data)
    assert cli("import", str(path))[0] == 0
    code, out, _ = cli("import", str(path), "--json")
    assert code == 0 and json.loads(out)["messages_added"] == 0  # again: nothing new
    code, out, err = cli("import", "--undo-last")
    assert code == 0, err
    assert f"removed {expected.conversations} conversations, {expected.messages} messages." in out
    assert out.startswith("Undid the last import that added something (#1, ChatGPT export c.json, Nov 22 14:00)")
    assert out.strip().endswith("The import after it (#2) added nothing.")
    assert rows(cli, "SELECT count(*) FROM messages") == [(0,)]
    code, _, err = cli("import", "--undo-last")
    assert code == 2 and "no import to undo" in err


def test_a_reimport_s_progress_agrees_with_its_summary_and_counts_are_said_in_good_english(
        cli: Cli, tmp_path: Path) -> None:
    """Issue 46: a re-import's progress said "Imported 3 of 3 conversations" above a summary of "Imported 0
    conversations ...; 3 already present"; and one thing was counted as many ("1 non-text parts")."""
    b = ChatGPTBuilder("one-conv", "Bread", datetime(2024, 3, 2, 9, tzinfo=UTC))
    b.add("system", {"content_type": "text", "parts": [""]}, hidden=True)
    b.add("user", {"content_type": "multimodal_text", "parts": [
        {"content_type": "image_asset_pointer", "asset_pointer": "file-service://f", "size_bytes": 1, "width": 1,
         "height": 1}, "what bread is this?"]})
    b.text("assistant", "A rye loaf.")
    path = write_json(tmp_path / "one.json", [b.conversation()])
    code, out, err = cli("import", str(path))
    assert code == 0, err
    assert out.strip() == ("Imported 1 conversation from a ChatGPT export (2 messages). "
                           "Skipped: 1 non-text part, 1 system message.")
    assert "1 of 1 conversations" not in err and "Read 1 of 1 conversation: 2 messages added" in err
    code, out, err = cli("import", str(path))
    assert out.startswith("Imported 0 conversations from a ChatGPT export (0 messages); 1 conversation already "
                          "present.")
    assert "Imported" not in err and "Read 1 of 1 conversation: 0 messages added" in err, err


def test_progress_rates_are_counted_in_good_english() -> None:
    from assistant.cli.progress import progress_line

    assert progress_line(1, 1, 1, 1.0, 1.0) == ("Read 1 of 1 conversation: 1 message added (1 conversation/s, "
                                                 "1 message/s)")
    assert progress_line(1000, 2000, 50_000, 2.4, 1234.0) == (
        "Read 1,000 of 2,000 conversations: 50,000 messages added (2 conversations/s, 1,234 messages/s)")


def test_long_messages_are_read_a_conversation_at_a_time_and_committed_in_bounded_batches(
        cli: Cli, tmp_path: Path) -> None:
    """Issue 46: a 189 MB export of long messages (pasted texts of 50 KB) was read whole into memory and
    written 2,000 messages (100 MB) to a transaction. The file is read a conversation at a time (the
    export keeps headers only: the messages wait in its temporary spill), and a transaction ends at
    BATCH_CHARS characters too, so Ctrl+C or a kill loses at most that."""
    import random

    from memory.transfer.chat_import import import_chats
    from memory.transfer.sniff import read_chat_file

    rng = random.Random(4)
    words = "bread oven flour water salt yeast rye crust crumb proof knead fold starter levain".split()
    conversations = []
    for number in range(6):
        b = ChatGPTBuilder(f"long-{number}", f"Pasted {number}", datetime(2024, 1, 1 + number, tzinfo=UTC))
        for turn in range(4):
            pasted = " ".join(rng.choice(words) + str(rng.randrange(1000)) for _ in range(6000))
            b.text("user" if turn % 2 == 0 else "assistant", f"part {number}.{turn} {pasted}")
        conversations.append(b.conversation())
    path = write_zip(tmp_path / "long.zip", conversations)
    chat = read_chat_file(path)
    assert chat is not None and chat.export.spill is not None
    assert len(chat.export.conversations) == 6 and all(not c.messages for c in chat.export.conversations)
    whole = chat.export.full(chat.export.conversations[2])
    assert [m.text[:9] for m in whole.messages] == ["part 2.0 ", "part 2.1 ", "part 2.2 ", "part 2.3 "]
    said: list[tuple[int, int, int]] = []
    with open_store(cli) as store:
        result = import_chats(store, chat.export, str(path), chat.fingerprint, batch_chars=300_000,
                              progress=lambda *a: said.append(a))
        assert result.messages_added == 24
        assert store.one("SELECT count(*) FROM messages")[0] == 24
        assert store.one("SELECT content FROM messages WHERE uid = ?", (whole.messages[0].uid,))[0] == \
            whole.messages[0].text
    # 4 texts of about 55 KB to a conversation: a batch ends after two conversations (over 300,000 characters)
    assert said == [(2, 6, 8), (4, 6, 16), (6, 6, 24)]
