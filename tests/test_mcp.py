"""`assistant mcp` (issue 32, SPEC F11): the memory and reminders for other AI tools, tested as a client
sees them. The SDK's own client (ClientSession over stdio_client) starts the real command on a store
of the test; what it reads is checked against the gate's rules with a store of secrets and private
memories; writes land in the store labelled with the client and undo as any change; bad input is one
sentence and nothing written; the HTTP transport is loopback only and wants its token."""
from __future__ import annotations

import contextlib
import json
import os
import queue
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from assistant.runtime import Runtime
from assistant.services.changes import ChangeService
from assistant.services.reminders import ReminderService
from assistant.settings import load_settings
from assistant.tools import REGISTRY, TOOL_SPECS
from memory import memories
from memory.store import Store
from memory.time.clock import Clock
from memory.time.instants import UTC
from memory.transfer.jsonl_import import import_records
from tests.conftest import T0, T0_TEXT, Cli, present
from tests.mcp_helpers import ASSISTANT, call, fails, read, server, server_env, session, stdio_session, text

EVERY_TOOL = {"remember", "recall", "recall_recent", "upcoming", "update_memory", "done", "snooze", "forget", "recap"}
READ_TOOLS = {"recall", "recall_recent", "upcoming", "recap"}

PIN = "my bank PIN is 4512"
WIFI = "the wifi password is swordfish-42"
DOOR = "the door code for the Lisbon flat is 4471"
THERAPY = "Therapy on Tuesday with Dr Klein: we talked about my anxiety"
PILLS = "pick up the antidepressant prescription"
SECRET_VALUES = ("4512", "swordfish", "4471")
PRIVATE_WORDS = ("Klein", "anxiety", "antidepressant")


@contextlib.contextmanager
def runtime_on(db: str, now: str = T0_TEXT) -> Iterator[Runtime]:
    """The app's runtime on the same store (what the app, the CLI and the notifier open)."""
    runtime = Runtime(load_settings(env={"ASSISTANT_DB": db, "ASSISTANT_NOW": now, "ASSISTANT_TIMEZONE": "UTC",
                                         "ASSISTANT_EMBEDDING_MODEL": "none"}))
    try:
        yield runtime
    finally:
        runtime.close()


def rows(db: str) -> list[tuple[Any, ...]]:
    """Every memory and the undo record, as stored (a write that failed must leave them as they were)."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM knowledge ORDER BY id").fetchall() + \
            conn.execute("SELECT * FROM memory_changes").fetchall()


# -- the acceptance journey --------------------------------------------------------------------------------

@pytest.mark.slow  # end to end: the real command over stdio
async def test_a_fresh_client_remembers_recalls_and_sets_a_reminder_the_app_shows(tmp_path: Path) -> None:
    """Issue 32's acceptance, with the bundled embedder (the app's own hybrid search and ranking), on a
    store that also holds a secret and a private memory the client never receives."""
    db = str(tmp_path / "m.db")
    with runtime_on(db) as rt:
        memories.remember(rt.store, PIN)
        memories.remember(rt.store, THERAPY, private=True)
    said: list[str] = []
    async with stdio_session(server(db, ASSISTANT_EMBEDDING_MODEL="bundled")) as s:
        listed = await s.list_tools()
        assert {t.name for t in listed.tools} == EVERY_TOOL
        said.append(await call(s, "remember", content="my passport expires on 2027-03-14"))
        found = await call(s, "recall", query="when does my passport expire")
        said.append(found)
        assert "my passport expires on 2027-03-14" in found.splitlines()[0]  # the best hit
        said.append(await call(s, "remember", content="call the bank", due_at="tomorrow at 10"))
        coming = await call(s, "upcoming")
        said.append(coming)
        assert "[DUE Mon Nov 23 10:00] call the bank (in 20 h)" in coming
    for answer in said:
        assert not any(v in answer for v in SECRET_VALUES + PRIVATE_WORDS), answer
    # The app's sidebar reads the same store (the running app: test_ui_mcp.py).
    with runtime_on(db) as rt:
        page = ReminderService(rt).page()
        assert [(r.content, r.when) for r in page.items] == [("call the bank", "Mon Nov 23 10:00")]
        bank = memories.get_memory(rt.store, page.items[0].id)
        assert bank.source == "mcp:test-client" and bank.kind == "reminder"


async def test_the_tools_are_the_registrys_own_with_the_chat_tools_schemas(tmp_path: Path) -> None:
    """One implementation: each MCP tool is a registry tool, and a tool the chat model also has takes
    the very same arguments."""
    async with session(server(str(tmp_path / "m.db"))) as s:
        listed = {t.name: t for t in (await s.list_tools()).tools}
    assert set(listed) == set(REGISTRY) == EVERY_TOOL
    chat = {spec.name: spec for spec in TOOL_SPECS}
    assert set(chat) == {"remember", "update_memory", "recall", "recall_recent", "forget"}  # unchanged for the model
    for name, spec in chat.items():
        mcp_schema = listed[name].input_schema
        assert set(mcp_schema["properties"]) == set(spec.parameters["properties"]), name
        assert set(mcp_schema.get("required", [])) == set(spec.parameters.get("required", [])), name
        assert listed[name].description == spec.description
    assert present(listed["recall"].annotations).read_only_hint
    assert not present(listed["remember"].annotations).read_only_hint


# -- the gate ---------------------------------------------------------------------------------------------

def seed_secrets_and_private(db: str) -> dict[str, int]:
    """Secrets, private memories and a conversation that quotes them, yesterday and today."""
    with runtime_on(db) as rt:
        store = rt.store
        ids = {"pin": memories.remember(store, PIN).id, "wifi": memories.remember(store, WIFI).id,
               "door": memories.remember(store, DOOR, due_at="2026-11-22T18:00:00Z").id,
               "therapy": memories.remember(store, THERAPY, private=True).id,
               "pills": memories.remember(store, PILLS, private=True, due_at="2026-11-23T09:00:00Z").id,
               "plumber": memories.remember(store, "call the plumber", due_at="2026-11-22T10:00:00Z",
                                            allow_past=True).id,
               "lisbon": memories.remember(store, "Sara moved to Lisbon last month").id}
        assert all(memories.get_memory(store, ids[k]).sensitive for k in ("pin", "wifi", "door"))
        episode = {"type": "episode", "id": "e1", "title": "Wifi and therapy", "outcome": "success",
                   "summary": f"We noted that {WIFI} and that {THERAPY}.",
                   "started_at": "2026-11-21T10:00:00+00:00", "ended_at": "2026-11-21T10:30:00+00:00"}
        said = [{"type": "message", "episode_id": "e1", "role": "user", "content": text_,
                 "created_at": f"2026-11-21T10:0{i}:00+00:00"} for i, text_ in enumerate((WIFI, THERAPY, PIN))]
        import_records(store, [json.dumps(r) for r in (episode, *said)])
    return ids


async def test_no_tool_resource_or_prompt_gives_a_secret_or_an_unasked_private_memory(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    ids = seed_secrets_and_private(db)
    unasked: list[str] = []
    async with session(server(db)) as s:
        for query in ("what do you know about me", "wifi", "Lisbon", "bank", "door code", "Tuesday", "session"):
            for mode in ("standard", "exhaustive"):
                unasked.append(await call(s, "recall", query=query, mode=mode, limit=30))
        unasked.append(await call(s, "recall_recent", hours=72))
        unasked.append(await call(s, "upcoming", days=30))
        unasked.append(await call(s, "recap", period="48h"))
        unasked.append(await call(s, "recap", period="today"))
        unasked.append(await read(s, "memory://agenda"))
        prompt = await s.get_prompt("recap", {"period": "48h"})
        unasked.append("\n".join(m.content.text for m in prompt.messages))  # type: ignore[union-attr]
        for key in ("pin", "wifi", "door", "plumber", "lisbon"):
            unasked.append(await read(s, f"memory://memory/{ids[key]}"))
        # Writes answer too: about a secret, by its id only.
        unasked.append(await call(s, "update_memory", id=ids["door"], reminded_at="now"))
        unasked.append(await call(s, "snooze", id=ids["door"], due_at="tomorrow at 9am"))
        unasked.append(await call(s, "done", id=ids["door"]))
        unasked.append(await call(s, "remember", content="my locker combination is 12-34-56"))
        unasked.append(await call(s, "forget", id=ids["wifi"]))
        asked_pin = await call(s, "recall", query="what is my bank PIN")
        # Asked about by its own words or by its id, a private memory is shown, marked; a secret never.
        asked_klein = await call(s, "recall", query="how did the session with Dr Klein go")
        asked_id = await read(s, f"memory://memory/{ids['therapy']}")
        asked_pills = await call(s, "update_memory", id=ids["pills"], reminded_at="now")
    everything = "\n".join(unasked)
    for value in (*SECRET_VALUES, "12-34-56", *PRIVATE_WORDS):
        assert value not in everything, value
    assert f"[secret in memory #{ids['door']}]" in everything and f"[private memory #{ids['pills']}]" in everything
    assert "Sara moved to Lisbon" in everything and "call the plumber" in everything  # not a blanket refusal
    assert "4512" not in asked_pin and f"[secret in memory #{ids['pin']}]" in asked_pin
    assert "[Private] Therapy on Tuesday with Dr Klein" in asked_klein and "4512" not in asked_klein
    assert "Dr Klein" in asked_id and "private" in asked_id
    assert PILLS in asked_pills


async def test_read_only_offers_no_writing_tool_and_writes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    ids = seed_secrets_and_private(db)
    before = rows(db)
    async with session(server(db, "--read-only")) as s:
        assert {t.name for t in (await s.list_tools()).tools} == READ_TOOLS
        for tool, arguments in (("remember", {"content": "x"}), ("forget", {"id": ids["lisbon"]}),
                                ("done", {"id": ids["plumber"]})):
            result = await s.call_tool(tool, arguments)
            assert result.is_error and "Unknown tool" in text(result)
        await call(s, "recall", query="Lisbon")  # a read does not even count as a use
        await call(s, "upcoming")
    assert rows(db) == before


# -- writes: the one insert, labelled, undoable, seen by the app and the notifier ---------------------------------

async def test_writes_are_labelled_with_the_client_and_undo_as_any_change(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    async with session(server(db), client="Claude Desktop") as s:
        made = await call(s, "remember", content="water the plants", due_at="every Tuesday at 7pm", importance=4)
        note = await call(s, "remember", content="Ana prefers tea", kind="preference", private=True)
        plants_id = int(made.split("#")[1].split(":")[0])
        moved = await call(s, "snooze", id=plants_id, due_at="in 2 hours")
        assert "Snoozed" in moved and "Sun Nov 22 16:00" in moved
        done = await call(s, "done", id=plants_id)
        # The snoozed occurrence (Tue Nov 24) is the one done: the series moves on to the next Tuesday.
        assert "this occurrence done" in done and "due Tue Dec 1 19:00, every Tue" in done
    with runtime_on(db) as rt:
        plants = memories.get_memory(rt.store, plants_id)
        assert plants.source == "mcp:Claude-Desktop" and plants.importance == 4 and plants.rule is not None
        tea = memories.get_memory(rt.store, int(note.split("#")[1].split(":")[0]))
        assert (tea.kind, tea.private, tea.source) == ("preference", True, "mcp:Claude-Desktop")
        # ctrl+z in the app calls this: the last change, made by the other tool, comes back.
        undone = ChangeService(rt).undo_last()
        assert undone is not None and undone.action == "done" and undone.memory is not None
        assert undone.memory.due_at == "2026-11-22T16:00:00+00:00"  # as the snooze left it
    async with session(server(db), client="Claude Desktop") as s:
        made = await call(s, "remember", content="buy oat milk")
    with runtime_on(db) as rt:
        milk = int(made.split("#")[1].split(":")[0])
        undone = ChangeService(rt).undo_last()  # what the tool just added goes again
        assert undone is not None and (undone.action, undone.memory, undone.memory_id) == ("remember", None, milk)
        assert [m.content for m in memories.created_since(rt.store, None)] == ["Ana prefers tea", "water the plants"]


@pytest.mark.slow
async def test_a_reminder_made_through_mcp_is_picked_up_by_the_notifier(tmp_path: Path) -> None:
    """`assistant notify` (another process, no desktop here) finds the reminder when it falls due."""
    db = str(tmp_path / "m.db")
    async with session(server(db)) as s:
        await call(s, "remember", content="call the bank", due_at="tomorrow at 10")
    later = (T0 + timedelta(hours=21)).isoformat()  # Mon 11:00: due an hour ago
    env = server_env(ASSISTANT_NOW=later, DBUS_SESSION_BUS_ADDRESS=f"unix:path={tmp_path / 'no-bus'}")
    proc = subprocess.Popen([str(ASSISTANT), "notify", "--db", db, "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stdout is not None
        events = []
        for line in proc.stdout:
            events.append(json.loads(line))
            if events[-1]["event"] == "started":
                break
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert {"event": "not_shown", "id": 1, "due_at": "2026-11-23T10:00:00+00:00"} in events


@pytest.mark.slow
async def test_a_reminder_made_through_mcp_reaches_the_desktop_through_the_notifier(tmp_path: Path) -> None:
    """The same with a desktop: a private session bus and a notification server (tests/desktop_bus.py)."""
    from tests.desktop_bus import SessionBus, missing

    reason = missing()
    if reason:  # .ci/run installs them
        pytest.skip(reason)
    db = str(tmp_path / "m.db")
    async with session(server(db)) as s:
        await call(s, "remember", content="call the bank", due_at="tomorrow at 10")
    bus = SessionBus(tmp_path / "bus")
    later = (T0 + timedelta(hours=21)).isoformat()
    proc = subprocess.Popen([str(ASSISTANT), "notify", "--db", db, "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
                            env=server_env(ASSISTANT_NOW=later, DBUS_SESSION_BUS_ADDRESS=bus.address))
    try:
        assert proc.stdout is not None
        events = [json.loads(proc.stdout.readline()) for _ in range(2)]  # what it notified at start, then "started"
        assert {"event": "notified", "id": 1, "due_at": "2026-11-23T10:00:00+00:00"} in events
        shown = [n for n in bus.notifications() if n.title == "Reminder"]
        assert [n.body for n in shown] == ["call the bank (due Mon Nov 23 10:00)"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        bus.close()


@pytest.mark.slow
async def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    """The server and the CLI write the same store at the same time (WAL, one writer waits for the other)."""
    db = str(tmp_path / "m.db")
    with runtime_on(db):
        pass  # the store exists before both start
    cli_errors: list[str] = []

    def cli_writer() -> None:
        for i in range(12):
            done = subprocess.run([str(ASSISTANT), "remember", f"cli note {i}", "--db", db, "--now", T0_TEXT],
                                  capture_output=True, text=True, timeout=60, env=server_env())
            if done.returncode != 0:
                cli_errors.append(done.stderr)

    writer = threading.Thread(target=cli_writer)
    written = 0
    async with session(server(db)) as s:
        writer.start()
        while writer.is_alive() or written < 40:  # the server writes for as long as the CLI does
            await call(s, "remember", content=f"mcp note {written}")
            written += 1
            if written % 10 == 0:
                await call(s, "upcoming")
        await anyio.to_thread.run_sync(writer.join)
    assert cli_errors == []
    with sqlite3.connect(db) as conn:
        contents = [r[0] for r in conn.execute("SELECT content FROM knowledge")]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(contents) == sorted([f"cli note {i}" for i in range(12)] + [f"mcp note {i}" for i in range(written)])


# -- bad input ---------------------------------------------------------------------------------------------

async def test_bad_input_is_one_sentence_and_changes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    ids = seed_secrets_and_private(db)
    before = rows(db)
    async with session(server(db)) as s:
        assert "no memory with id 999" in await fails(s, "update_memory", id=999, content="x")
        assert "no memory with id 999" in await fails(s, "done", id=999)
        assert "no memory with id 999" in await fails(s, "snooze", id=999, due_at="tomorrow")
        assert "no memory with id 999" in await fails(s, "forget", id=999)
        assert "could not understand the date" in await fails(s, "remember", content="x", due_at="the day after never")
        assert "could not understand the date" in await fails(s, "snooze", id=ids["plumber"], due_at="blorp o'clock")
        assert "passed" in await fails(s, "remember", content="x", due_at="2020-01-01T09:00:00Z")
        assert "too long" in await fails(s, "remember", content="x" * 100_001)
        assert "empty" in await fails(s, "remember", content="   ")
        assert "not a reminder" in await fails(s, "snooze", id=ids["lisbon"], due_at="tomorrow")
        assert "content" in await fails(s, "remember")  # a missing argument: named, in one line
        assert "importance" in await fails(s, "remember", content="x", importance=9)
        assert "kind" in await fails(s, "remember", content="x", kind="gossip")
        assert "id" in await fails(s, "done", id="twelve")
        assert "Unknown tool" in await fails(s, "delete_everything")
        from mcp import MCPError

        for uri in ("memory://memory/999", "memory://memory/abc", "memory://memory/-1"):
            with pytest.raises(MCPError):
                await s.read_resource(uri)
        assert "call the plumber" in await call(s, "upcoming")  # still serving
    assert rows(db) == before


async def test_an_id_no_row_can_have_is_the_same_plain_line_for_mcp_the_chat_tools_and_the_cli(tmp_path: Path,
                                                                                               cli: Cli) -> None:
    # 10**30 once reached SQLite: "invalid arguments (OverflowError: Python int too large to convert to
    # SQLite INTEGER)" over MCP and to the chat model, while the CLI said "no such id".
    from assistant.errors import ToolError
    from assistant.tools import execute_tool

    db = str(tmp_path / "m.db")
    seed_secrets_and_private(db)
    before = rows(db)
    lines = {value: f"no such id: {value} (ids are whole numbers from 1)" for value in (10**30, 0, -(10**30))}
    async with session(server(db)) as s:
        for value, line in lines.items():
            assert await fails(s, "update_memory", id=value, content="replaced") == line
            assert await fails(s, "forget", id=value) == line
            assert await fails(s, "done", id=value) == line
            assert await fails(s, "snooze", id=value, due_at="tomorrow") == line
    with runtime_on(db) as rt:
        for value, line in lines.items():
            for name, args in (("update_memory", {"id": value, "content": "replaced"}), ("forget", {"id": value})):
                with pytest.raises(ToolError) as info:
                    execute_tool(rt, name, args)
                assert str(info.value) == line
    for value, line in lines.items():
        for command in (["forget", str(value)], ["update", str(value), "--content", "replaced"]):
            code, _, err = cli(*command, db=db)  # the CLI in this process (tests/conftest.py)
            assert (code, err) == (2, f"assistant: error: {line}\n")
    assert rows(db) == before


@pytest.mark.slow
async def test_a_bad_prompt_argument_is_one_message_naming_the_choices_and_no_traceback(tmp_path: Path) -> None:
    from mcp import MCPError

    from assistant import paths

    db = str(tmp_path / "m.db")
    seed_secrets_and_private(db)
    errlog = tmp_path / "stderr.txt"
    async with stdio_session(server(db), errlog=errlog) as s:
        with pytest.raises(MCPError) as info:
            await s.get_prompt("recap", {"period": "evil"})
        said = info.value.error.message
        assert "period" in said and "'today'" in said and "'48h'" in said and "rendering" not in said, said
        assert "\n" not in said
        assert (await s.get_prompt("recap", {"period": "today"})).messages  # still serving
    log = paths.log_dir() / "assistant.log"
    written = (log.read_text(encoding="utf-8") if log.exists() else "") + errlog.read_text(encoding="utf-8")
    assert "Traceback" not in written and "Error rendering" not in written


@pytest.mark.slow
def test_a_malformed_line_is_answered_and_the_server_keeps_serving(tmp_path: Path) -> None:
    """Raw JSON-RPC on the wire, as a client writes it: a line that is not JSON, and JSON that is not a
    message, each get the error JSON-RPC 2.0 asks for; the session goes on. Nothing but protocol
    reaches stdout (a notice goes to stderr)."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    proc = subprocess.Popen([str(ASSISTANT), "mcp", "--db", str(tmp_path / "m.db")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server_env())
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()  # type: ignore

    def exchange(line: str) -> dict[str, Any]:
        proc.stdin.write(line + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        try:
            answer: dict[str, Any] = json.loads(lines.get(timeout=60))  # a line that is not JSON fails here
        except queue.Empty:
            raise AssertionError(f"no answer to {line!r}") from None
        assert answer["jsonrpc"] == "2.0"
        return answer

    try:
        assert exchange("this is not json") == {"jsonrpc": "2.0", "id": None,
                                                "error": {"code": -32700, "message": "Parse error"}}
        invalid = exchange(json.dumps({"jsonrpc": "2.0", "id": 7, "method": 5}))
        assert (invalid["id"], invalid["error"]["code"]) == (7, -32600)
        assert exchange(json.dumps(initialize))["result"]["serverInfo"]["name"] == "assistant"
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        assert exchange('{"half": ')["error"]["code"] == -32700
        found = exchange(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                     "params": {"name": "recall", "arguments": {"query": "anything"}}}))
        assert found["id"] == 2 and found["result"]["content"][0]["text"] == "Nothing found."
        listed = exchange(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        assert {t["name"] for t in listed["result"]["tools"]} == EVERY_TOOL
        proc.stdin.close()  # the client goes: the server ends, with nothing more on stdout
        assert proc.wait(timeout=30) == 0
        assert lines.empty()
        assert "Semantic search is off" in proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("make", ["newer", "damaged", "read_only"])
def test_a_store_that_cannot_be_used_is_one_line_and_exit_1_at_start(tmp_path: Path, make: str) -> None:
    db = tmp_path / "m.db"
    Store(str(db), Clock(UTC, T0)).close()
    if make == "newer":
        with sqlite3.connect(db) as conn:
            conn.execute("PRAGMA user_version = 999")
    elif make == "damaged":
        data = bytearray(db.read_bytes())
        data[100:] = b"\xff" * (len(data) - 100)
        db.write_bytes(bytes(data))
    else:
        db.chmod(0o400)
    done = subprocess.run([str(ASSISTANT), "mcp", "--db", str(db)], input="", capture_output=True, text=True,
                          timeout=60, env=server_env())
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("assistant: "), done.stderr
    if make == "read_only":  # --read-only serves it
        assert "--read-only" in done.stderr or "read-only" in done.stderr
    db.chmod(0o600)


# -- HTTP --------------------------------------------------------------------------------------------------

class HttpServer:
    """`assistant mcp --http 127.0.0.1:0` in a process of its own; the URL and token it prints."""

    def __init__(self, db: str, *args: str, **env: str) -> None:
        self.proc = subprocess.Popen([str(ASSISTANT), "mcp", "--db", db, "--http", "127.0.0.1:0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     text=True, env=server_env(**env))
        assert self.proc.stdout is not None
        first, second = self.proc.stdout.readline(), self.proc.stdout.readline()
        assert first.startswith("assistant mcp: serving http://127.0.0.1:"), (first, present(self.proc.stderr).read())
        self.url = first.split()[-1]
        self.token = second.split()[2]
        self.where = second

    def stop(self) -> int:
        self.proc.terminate()
        return self.proc.wait(timeout=30)


@pytest.mark.slow
def test_http_refuses_a_request_without_the_token_and_serves_one_with_it(tmp_path: Path) -> None:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    db = str(tmp_path / "m.db")
    http = HttpServer(db)
    try:
        token_file = Path(os.environ["XDG_STATE_HOME"]) / "assistant" / "mcp-token"
        assert token_file.read_text().strip() == http.token and str(token_file) in http.where
        assert token_file.stat().st_mode & 0o777 == 0o600
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
        headers = {"Accept": "application/json, text/event-stream"}
        for auth in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": http.token}):
            refused = httpx2.post(http.url, json=initialize, headers={**headers, **auth})
            assert refused.status_code == 401
        bad_host = httpx2.post(http.url, json=initialize, headers={**headers, "Host": "evil.example:80",
                                                                   "Authorization": f"Bearer {http.token}"})
        assert bad_host.status_code in (400, 403, 421)  # DNS rebinding: only this address's own names

        async def use() -> tuple[set[str], str]:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {http.token}"}) as client, \
                    streamable_http_client(http.url, http_client=client) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                names = {t.name for t in (await s.list_tools()).tools}
                return names, text(await s.call_tool("remember", {"content": "over http"}))

        names, made = anyio.run(use)
        assert names == EVERY_TOOL and made.startswith("Remembered #1")
    finally:
        http.stop()
    # A token set in the config is used as it is, and no file is needed for it.
    config = tmp_path / "config.toml"
    config.write_text('mcp_token = "my-own-token-123"\n')
    again = HttpServer(db, "--config", str(config))
    try:
        assert again.token == "my-own-token-123" and "mcp_token setting" in again.where
    finally:
        again.stop()


@pytest.mark.slow
@pytest.mark.parametrize("address", ["0.0.0.0:8765", "192.168.1.20:8765", "[::]:8765", "example.com:8765",
                                     "8.8.8.8:53", "127.0.0.1:99999", "nonsense"])
def test_http_refuses_an_address_off_the_loopback(tmp_path: Path, address: str) -> None:
    done = subprocess.run([str(ASSISTANT), "mcp", "--db", str(tmp_path / "m.db"), "--http", address],
                          capture_output=True, text=True, timeout=60, env=server_env())
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "--http" in done.stderr
    assert not (tmp_path / "m.db").exists()


@pytest.mark.parametrize(("text_", "host", "port"), [("8765", "127.0.0.1", 8765), ("localhost:80", "127.0.0.1", 80),
                                                     ("[::1]:8765", "::1", 8765), ("127.0.0.2:1", "127.0.0.2", 1)])
def test_loopback_addresses_are_read(text_: str, host: str, port: int) -> None:
    from assistant.mcp.address import listen_address

    address = listen_address(text_)
    assert (address.host, address.port) == (host, port)


def test_reminders_lines_of_the_agenda_are_todays(tmp_path: Path) -> None:
    """The agenda: what is overdue from before today, each occurrence due today, yesterday's talks."""
    from assistant.outbound.gate import Gate
    from assistant.recap import agenda_text

    db = str(tmp_path / "m.db")
    ids = seed_secrets_and_private(db)
    with runtime_on(db, now="2026-11-22T17:00:00+00:00") as rt:
        memories.remember(rt.store, "stretch", due_at="every day at 19:00")
        memories.remember(rt.store, "renew the lease", due_at="2026-11-20T09:00:00Z", allow_past=True)
        agenda = agenda_text(rt, Gate(rt.store))
    overdue, today, talks = agenda.split("\n\n")[1:]
    assert "renew the lease" in overdue and "plumber" not in overdue  # the plumber was due today
    assert f"#{ids['plumber']} [OVERDUE Sun Nov 22 10:00] call the plumber" in today
    assert "[DUE Sun Nov 22 19:00, every day] stretch (in 2 h)" in today
    assert f"[DUE Sun Nov 22 18:00] [secret in memory #{ids['door']}]" in today
    assert "Wifi and therapy" in talks and "swordfish" not in talks and "Klein" not in talks


# -- stored escape sequences (issue 46) ---------------------------------------------------------------------

async def test_stored_escape_sequences_reach_no_client_raw_from_tools_resources_or_the_prompt(
        tmp_path: Path) -> None:
    """Issue 46: MCP results carried stored ESC, BEL and an OSC 52 clipboard write to the client as raw bytes
    (a client that prints them runs them); the CLI and the app show them as symbols, and so does MCP."""
    from memory.text import CONTROL

    db = str(tmp_path / "m.db")
    hostile = "pay rent \x1b]52;c;cm0gLXJmIH4=\x07 now\x1b[2J\x9b31m \u202eevil"
    with runtime_on(db) as rt:
        memory_id = memories.remember(rt.store, hostile, due_at="2026-11-22T16:00:00Z").id
        import_records(rt.store, [json.dumps(r) for r in (
            {"type": "episode", "id": "e1", "title": "Rent \x1b[31mtalk\x07", "outcome": "success",
             "summary": "about rent \x1b]0;title\x07", "started_at": "2026-11-21T10:00:00+00:00",
             "ended_at": "2026-11-21T10:30:00+00:00"},
            {"type": "message", "episode_id": "e1", "role": "user", "content": "rent is due \x1b[5m",
             "created_at": "2026-11-21T10:00:00+00:00"})])
    said: list[str] = []
    async with session(server(db)) as s:
        said.append(await call(s, "recall", query="pay rent now", mode="exhaustive"))
        said.append(await call(s, "recall_recent", hours=72))
        said.append(await call(s, "upcoming"))
        said.append(await call(s, "recap", period="48h"))
        said.append(await read(s, f"memory://memory/{memory_id}"))
        said.append(await read(s, "memory://agenda"))
        prompt = await s.get_prompt("recap", {"period": "48h"})
        said.append("\n".join(m.content.text for m in prompt.messages))  # type: ignore[union-attr]
        said.append(await call(s, "update_memory", id=memory_id, content=hostile + " again"))
        said.append(text(await s.call_tool("snooze", {"id": memory_id, "due_at": "when \x1b[2J pigs fly"})))
    everything = "\n".join(said)
    assert "pay rent" in everything and "Rent" in everything and "rent is due" in everything
    assert not CONTROL.search(everything), repr(CONTROL.search(everything))
    assert "␛]52;c;cm0gLXJmIH4=␇" in everything  # shown, as the CLI shows it


async def test_read_only_leaves_the_file_as_it_was_even_when_a_search_wants_embeddings(tmp_path: Path) -> None:
    """Issue 46: `assistant mcp --read-only` wrote to the store (the embeddings a search makes of waiting
    texts, and a metadata row). Read-only means the file does not change: a recall that finds texts without
    their embedding answers from what exists (keywords) and writes nothing."""
    db = str(tmp_path / "m.db")
    with runtime_on(db) as rt:  # embeddings off: every text waits for its embedding
        memories.remember(rt.store, "the spare key is under the blue flower pot")
        memories.remember(rt.store, "Sara moved to Lisbon last month")
        assert rt.store.one("SELECT count(*) FROM pending_embeddings")[0] == 2
    before = (Path(db).read_bytes(), os.stat(db).st_mtime_ns)
    watcher = sqlite3.connect(db)
    version = watcher.execute("PRAGMA data_version").fetchone()[0]
    try:
        async with session(server(db, "--read-only", ASSISTANT_EMBEDDING_MODEL="bundled")) as s:
            found = await call(s, "recall", query="where is the spare key")
            assert "blue flower pot" in found
            await call(s, "recall", query="Lisbon", mode="exhaustive")
            await call(s, "upcoming")
            await read(s, "memory://agenda")
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == version  # no other connection committed
        assert watcher.execute("SELECT count(*) FROM pending_embeddings").fetchone()[0] == 2
    finally:
        watcher.close()
    assert (Path(db).read_bytes(), os.stat(db).st_mtime_ns) == before
