"""Issue 46, item 10: a replaced memory looked current. The Memories search listed the old door code first
with no mark, `assistant recall` listed both as "[hot]", the Markdown notes.md listed the old one as a
note. A replaced memory is shown as replaced, after the one that replaced it (SPEC F6, F12, F13)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.runtime import Runtime
from assistant.services.memories import MemoryService
from memory import memories, reminders, supersession
from tests.conftest import make_runtime
from ui.widgets.memory_list import row_text

OLD, NEW = "the building door code is 5829", "the building door code changed to 7731"


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[Runtime]:
    runtime = make_runtime(tmp_path)
    yield runtime
    runtime.close()


def test_ids_of_replaced_memories_come_right_after_what_replaced_them() -> None:
    # 1 replaced by 3, 3 replaced by 5 (a chain), 2 on its own; 9 replaced by a memory not in the list.
    assert supersession.replaced_after([1, 2, 3, 4, 5, 9], {1: 3, 3: 5, 9: 7}) == [2, 4, 5, 3, 1, 9]
    assert supersession.replaced_after([], {}) == []


def test_the_memories_search_lists_a_replaced_memory_after_its_replacement_and_marked(rt: Runtime) -> None:
    old = memories.remember(rt.store, OLD, embedder=None)
    new = memories.remember(rt.store, NEW, embedder=None)
    service = MemoryService(rt)
    rows = service.search("door code")
    assert [(r.id, r.replaced_by) for r in rows] == [(new.id, None), (old.id, new.id)]
    assert f"replaced by #{new.id}" in row_text(rows[1]).plain
    assert "replaced" not in row_text(rows[0]).plain
    page = service.page()  # newest first already: the old one is marked there too
    assert [(r.id, r.replaced_by) for r in page.items] == [(new.id, None), (old.id, new.id)]


def test_recall_lists_a_replaced_memory_after_its_replacement_as_replaced(
        cli: Callable[..., tuple[int, str, str]]) -> None:
    cli("remember", OLD, "--kind", "fact")
    cli("remember", NEW, "--kind", "fact")
    code, out, _ = cli("recall", "door code")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("memory #2 [hot]") and "7731" in lines[0]
    assert lines[1].startswith("memory #1 [replaced by #2]") and "5829" in lines[1]


def test_recall_shows_the_current_memory_before_a_replaced_one_it_found_alone(
        cli: Callable[..., tuple[int, str, str]]) -> None:
    # A newcomer's `recall "where does my brother live"` listed the old Bristol and never the current Cardiff,
    # which shares none of the query's words.
    cli("remember", "my brother Tom lives in Bristol", "--kind", "fact")
    cli("remember", "Tom moved to Cardiff last month", "--kind", "fact")
    code, out, _ = cli("recall", "brother", "--mode", "reflexive")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("memory #2 [hot]") and "Cardiff" in lines[0], out
    assert lines[1].startswith("memory #1 [replaced by #2]") and "Bristol" in lines[1], out


def test_recall_json_says_what_replaced_a_memory(cli: Callable[..., tuple[int, str, str]]) -> None:
    import json

    cli("remember", OLD, "--kind", "fact")
    cli("remember", NEW, "--kind", "fact")
    hits: list[dict[str, Any]] = json.loads(cli("recall", "door code", "--json")[1])
    assert [(h["id"], h.get("replaced_by")) for h in hits] == [(2, None), (1, 2)]


def test_the_markdown_notes_list_a_replaced_memory_after_its_replacement_as_replaced(
        cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    cli("remember", OLD)
    cli("remember", "the bins go out on Tuesdays")
    cli("remember", NEW)
    cli("export", str(tmp_path / "md"), "--markdown")
    notes = [line for line in (tmp_path / "md" / "memories" / "notes.md").read_text().splitlines()
             if line.startswith("- ")]
    assert "door code changed to" in notes[1] and "replaced" not in notes[1]  # the code itself is a [secret]
    assert "door code is" in notes[2] and "replaced by #3" in notes[2]
    assert "Tuesdays" in notes[0]


def test_the_recall_tool_shows_the_current_memory_before_a_replaced_one_it_found_alone(rt: Runtime) -> None:
    from assistant import tools

    old = memories.remember(rt.store, "my brother Tom lives in Bristol", embedder=None)
    new = memories.remember(rt.store, "Tom moved to Cardiff last month", embedder=None)
    assert supersession.superseded_by(rt.store, [old.id]) == {old.id: new.id}
    listed = tools.recall(rt, "brother", mode="reflexive").content.splitlines()
    assert listed[0].startswith(f"- memory #{new.id} ") and "Cardiff" in listed[0], listed


def test_a_reminder_marked_done_is_marked_so_in_the_memories_list(rt: Runtime) -> None:
    # A newcomer's: a done reminder was listed among the others with no mark
    from datetime import timedelta

    due = (rt.clock.now() + timedelta(hours=1)).isoformat()
    done = memories.remember(rt.store, "check the oven", due_at=due)
    memories.remember(rt.store, "call the bank", due_at=due)
    reminders.mark_done(rt.store, done.id)
    rows = {r.id: r for r in MemoryService(rt).page().items}
    assert rows[done.id].done and "done" in row_text(rows[done.id]).plain.split()
    assert not [r for r in rows.values() if r.id != done.id and r.done]
