"""SPEC F12: a memory's sensitivity is decided again when its text changes, on every edit path (the
Memories screen's edit, `update_memory` from the chat model, MCP and the CLI all take
memory.reminders.update_memory). A secret added marks it, a secret removed unmarks it, a secret value
kept under new words keeps the mark (the laundering guard of tests/test_outbound.py), and the earlier
text keeps its own flag in memory_history.

The attacker's case: MCP `update_memory(3, content="replaced")` of a memory that held a secret left it
marked sensitive."""
from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from assistant.runtime import Runtime
from assistant.services.memories import MemoryService
from assistant.tools import execute_tool
from memory import memories, reminders
from tests.mcp_helpers import ASSISTANT, call, server, server_env, session
from tests.test_mcp import runtime_on

SECRET = "my bank PIN is 4512"
PLAIN = "call the bank about the new card"


def _screen(db: str, memory_id: int, content: str) -> None:
    with runtime_on(db) as rt:
        MemoryService(rt).edit(memory_id, content)  # what the Memories screen's edit calls


def _chat_tool(db: str, memory_id: int, content: str) -> None:
    with runtime_on(db) as rt:
        execute_tool(rt, "update_memory", {"id": memory_id, "content": content})


def _cli(db: str, memory_id: int, content: str) -> None:
    done = subprocess.run([str(ASSISTANT), "update", str(memory_id), "--content", content, "--db", db],
                          capture_output=True, text=True, env=server_env(), timeout=60)
    assert done.returncode == 0, done.stderr


def _mcp(db: str, memory_id: int, content: str) -> None:
    async def edit() -> None:
        async with session(server(db)) as s:
            await call(s, "update_memory", id=memory_id, content=content)

    import anyio

    anyio.run(edit)


PATHS: dict[str, Callable[[str, int, str], None]] = {"memories screen": _screen, "chat tool": _chat_tool,
                                                     "cli": _cli, "mcp": _mcp}
EVERY_PATH = [pytest.param(path, marks=pytest.mark.slow) if path == "cli" else path for path in PATHS]  # cli: a process


def _written(db: str, content: str) -> int:
    with runtime_on(db) as rt:
        return memories.remember(rt.store, content).id


def _state(db: str, memory_id: int) -> tuple[bool, list[tuple[str, bool]]]:
    with runtime_on(db) as rt:
        return (memories.get_memory(rt.store, memory_id).sensitive,
                [(e.content, e.sensitive) for e in memories.earlier_texts(rt.store, memory_id)])


@pytest.mark.parametrize("path", EVERY_PATH)
def test_a_secret_removed_unmarks_it_and_the_earlier_text_keeps_its_flag(tmp_path: Path, path: str) -> None:
    db = str(tmp_path / "m.db")
    memory_id = _written(db, SECRET)
    assert _state(db, memory_id) == (True, [])
    PATHS[path](db, memory_id, "replaced")
    assert _state(db, memory_id) == (False, [(SECRET, True)])


@pytest.mark.parametrize("path", EVERY_PATH)
def test_a_secret_added_marks_it_and_the_earlier_text_keeps_its_flag(tmp_path: Path, path: str) -> None:
    db = str(tmp_path / "m.db")
    memory_id = _written(db, PLAIN)
    assert _state(db, memory_id) == (False, [])
    PATHS[path](db, memory_id, SECRET)
    assert _state(db, memory_id) == (True, [(PLAIN, False)])


def _rt(tmp_path: Path) -> Runtime:
    from assistant.settings import load_settings

    return Runtime(load_settings(env={"ASSISTANT_DB": str(tmp_path / "m.db"), "ASSISTANT_TIMEZONE": "UTC",
                                      "ASSISTANT_NOW": "2026-11-22T10:00:00Z", "ASSISTANT_EMBEDDING_MODEL": "none"}))


@pytest.mark.parametrize(("earlier", "new", "sensitive"), [
    # the secret's value kept under words without a keyword: a model must not launder it by an edit
    ("Bank login password: Qx7-hunter22", "HSBC online: Qx7-hunter22", True),
    ("the door code for the Lisbon flat is 4471", "Lisbon flat: ask Ana, 4471 as before", True),
    ("my bank PIN is 4512", "my bank PIN is in the drawer", False),
    ("my bank PIN is 4512", "my bank PIN is 9931", True),
    ("the wifi password is swordfish-42", "the wifi is in the hall", False),
])
def test_the_decision_follows_the_new_words_and_a_value_they_keep(tmp_path: Path, earlier: str, new: str,
                                                                  sensitive: bool) -> None:
    rt = _rt(tmp_path)
    try:
        memory = memories.remember(rt.store, earlier)
        assert memory.sensitive
        assert reminders.update_memory(rt.store, memory.id, content=new).sensitive is sensitive
        assert [(e.content, e.sensitive) for e in memories.earlier_texts(rt.store, memory.id)] == [(earlier, True)]
    finally:
        rt.close()


def test_a_mark_its_writer_set_stays_when_the_detector_cannot_say_what_the_secret_was(tmp_path: Path) -> None:
    rt = _rt(tmp_path)
    try:
        memory = memories.remember(rt.store, "HSBC: blue canoe", sensitive=True)  # the writer knew
        assert reminders.update_memory(rt.store, memory.id, content="HSBC: see the note").sensitive
        # and the caller may say the new words hold a secret (a value put back from its placeholder)
        plain = memories.remember(rt.store, "a note")
        assert reminders.update_memory(rt.store, plain.id, content="another note", sensitive=True).sensitive
    finally:
        rt.close()
