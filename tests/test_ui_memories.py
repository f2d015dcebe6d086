"""SPEC F12 in the app, with the keyboard alone, at 80x24 and 120x40: the Memories screen (paged, filtered,
searched; a memory opened, edited, made private, pinned, forgotten, each undone; a secret masked until
revealed there), Why this answer, an incognito conversation that leaves the store's tables and the input
history as they were, and the briefing card on the first launch of a day only. And the acceptance walk
in the real app in tmux."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from textual.widgets import ListView

from memory import changes, memories
from memory.browse import PAGE
from memory.errors import NotFound
from memory.search.embeddings import pending_count
from memory.store import Store
from memory.transfer.jsonl_import import import_records
from tests.conftest import T0, make_clock, present
from tests.test_backlog import _runtime_with_backlog
from tests.test_why_and_incognito import TABLES
from tests.ui_helpers import make_app, notices, settle, sidebar_text, type_and_send, wait_until
from ui.app import AssistantApp
from ui.screens.dialogs import ConfirmScreen
from ui.screens.memories import MemoriesScreen, MemoryScreen
from ui.screens.why import WhyItem, WhyScreen
from ui.widgets.memory_list import FilterBar, MemoryList

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from ui.app import AssistantApp

SIZES = [(80, 24), (120, 40)]


def listed(app: AssistantApp) -> list[str]:
    return [row.text for row in app.screen.query_one(MemoryList).rows]


def shown(app: AssistantApp, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def open_memories(pilot: Pilot[int], app: AssistantApp) -> MemoriesScreen:
    await pilot.press("f2")
    await wait_until(pilot, lambda: isinstance(app.screen, MemoriesScreen) and app.screen.query_one(MemoryList).rows,
                     what="the Memories screen with its rows")
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, MemoriesScreen)
    return screen


async def search(pilot: Pilot[int], app: AssistantApp, text: str, expect: int) -> None:
    await pilot.press(*text)
    await wait_until(pilot, lambda: len(listed(app)) == expect and isinstance(app.screen, MemoriesScreen)
                     and app.screen.query_text == text, what=f"{text!r}")
    await settle(pilot, app)


# -- the acceptance walk, driven by pilot ---------------------------------------------------------

@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_a_stale_fact_found_by_typing_edited_and_the_next_offline_answer_says_the_new_value(
        tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "remember that the door code is 5829")
        await type_and_send(pilot, app, "remember that the garden gate is blue")
        await open_memories(pilot, app)
        await search(pilot, app, "door", 1)
        assert listed(app) == ["the door code is ••••"]  # a secret, masked in the list
        row = app.screen.query_one(MemoryList).rows[0]
        assert [row.text[a:b] for a, b in row.matched] == ["door"]
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.detail is not None)
        assert "the door code is ••••" in shown(app, "#memory-text") and "5829" not in shown(app, "#memory-text")
        await pilot.press("e")
        await pilot.press("ctrl+u", *"the door code is 7731", "enter")  # ctrl+u: the line, from the cursor back
        await wait_until(pilot, lambda: "Earlier texts" in shown(app, "#memory-text"), what="the edit saved")
        assert isinstance(app.screen, MemoryScreen)
        memory_id = app.screen.memory_id
        assert present(memories.get_memory(app.runtime.store, memory_id)).content == "the door code is 7731"
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        await type_and_send(pilot, app, "what is the door code?")
        answer = app.main_screen.chat.last_answer
        assert "7731" in answer and "5829" not in answer
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, WhyScreen), what="the Why screen")
        why = app.screen
        assert "nothing left this machine" in shown(app, "#why-summary")
        lines = [item.line for item in why.query(WhyItem)]
        assert f"#{memory_id} the door code is •••• (Sun Nov 22 14:00)" in lines
        memory_line = next(i for i, item in enumerate(why.query(WhyItem)) if item.target == memory_id)
        why.query_one("#why-list", ListView).index = memory_line
        await pilot.press("enter")  # a memory listed opens on its Memories screen
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.memory_id == memory_id)


# -- the list: pages, never a widget per memory ----------------------------------------------------

async def test_the_list_is_paged_and_its_widgets_do_not_grow_with_the_store(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    store = Store(app.runtime.settings.db_path(), make_clock(T0))
    # Written as an import writes them (what a store of 1,000 is made of matters not here, its size does):
    # one by one, each new note was read against the others as a possible change of them (36 s).
    import_records(store, [json.dumps({"type": "memory", "kind": "note", "content": f"note number {n} about the garden",
                                       "created_at": (T0 + timedelta(seconds=n)).isoformat()}) for n in range(1000)])
    store.close()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        screen = await open_memories(pilot, app)
        widgets = len(list(screen.walk_children()))
        memory_list = screen.query_one(MemoryList)
        assert len(memory_list.rows) == PAGE and memory_list.more
        assert "1,002 memories" in shown(app, "#memories-title")  # the two seeded reminders too
        assert memory_list.rows[0].text == "note number 999 about the garden"  # newest first
        await pilot.press("pagedown", "pagedown", "pagedown")
        await wait_until(pilot, lambda: len(memory_list.rows) == 2 * PAGE, what="the next page, as the list nears it")
        await settle(pilot, app)
        assert len(memory_list.rows) == 2 * PAGE  # one page ahead, not the store
        assert len(list(screen.walk_children())) == widgets
        texts = [r.text for r in memory_list.rows]
        assert texts == [f"note number {n} about the garden" for n in range(999, 999 - 2 * PAGE, -1)]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_filters_are_reached_and_set_with_the_keyboard(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        memories.remember(app.runtime.store, "the door code is 5829", kind="fact")
        memories.remember(app.runtime.store, "the garden gate is blue", kind="fact")
        await open_memories(pilot, app)
        assert len(listed(app)) == 4
        await pilot.press("tab")  # from the search box to the filters, on the first: kind
        assert present(app.focused).id == "memories-filters"
        await pilot.press("down")  # kind: fact
        await wait_until(pilot, lambda: len(listed(app)) == 2, what="facts only")
        await pilot.press("right", "right", "right", "down")  # tier, private, secret: yes
        await wait_until(pilot, lambda: listed(app) == ["the door code is ••••"], what="secrets only")
        assert "kind: fact  tier: any  private: any  secret: yes" in str(present(app.focused).render())
        await pilot.press("up")  # secret: any again
        await wait_until(pilot, lambda: len(listed(app)) == 2, what="facts again")


# -- one memory: each change undone ------------------------------------------------------------------

async def open_first(pilot: Pilot[int], app: AssistantApp) -> MemoryScreen:
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.detail is not None)
    screen = app.screen
    assert isinstance(screen, MemoryScreen)
    return screen


async def test_private_pin_forget_each_undone_with_ctrl_z_and_a_secret_revealed_only_here(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        memory = memories.remember(app.runtime.store, "the alarm code is 2468", kind="fact")
        await open_memories(pilot, app)
        screen = await open_first(pilot, app)
        assert "2468" not in shown(app, "#memory-text")
        # 80 columns: the footer has no room for this screen's keys, so a line above it says them
        hint = app.screen.query_one("#memory-keys")
        assert "p private · t pin · f forget" in shown(app, "#memory-keys") and hint.region.height == 1
        assert hint.region.bottom <= app.screen.query_one("KeyFooter").region.y
        await pilot.press("r")
        assert "the alarm code is 2468" in shown(app, "#memory-text")
        await pilot.press("r")
        assert "2468" not in shown(app, "#memory-text")
        for key, field, action in (("p", "private", "private"), ("t", "pinned", "pin")):
            def stored(f: str = field) -> object:
                return getattr(memories.get_memory(app.runtime.store, memory.id), f)

            def not_stored(f: str = field) -> bool:
                return not stored(f)

            def on_screen(f: str = field) -> object:
                return screen.detail is not None and getattr(screen.detail, f)

            await pilot.press(key)
            await wait_until(pilot, stored)
            assert present(changes.last_change(app.runtime.store))["action"] == action
            await wait_until(pilot, on_screen)
            await pilot.press("ctrl+z")
            await wait_until(pilot, not_stored)
            await settle(pilot, app)
        await pilot.press("f", "y")  # forget, and yes
        await wait_until(pilot, lambda: isinstance(app.screen, MemoriesScreen), what="back in the list")
        await wait_until(pilot, lambda: "the alarm code is ••••" not in listed(app), what="the row gone")
        await wait_until(pilot, lambda: "2 memories" in shown(app, "#memories-title"), what="the count, one less")
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: "the alarm code is ••••" in listed(app), what="brought back")
        await wait_until(pilot, lambda: "3 memories" in shown(app, "#memories-title"), what="the count again")
        assert not any("2468" in n for n in notices(app))  # the undo's notice masks it as the list does
        assert present(memories.get_memory(app.runtime.store, memory.id)).content == "the alarm code is 2468"
        assert present(app.screen.query_one(MemoryList).selected).id == memory.id
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        assert "2468" not in "\n".join(str(w.render()) for w in app.main_screen.query("Static"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_forget_asks_first_and_a_no_keeps_the_memory(tmp_path: Path, size: tuple[int, int]) -> None:
    """A newcomer pressed f on a memory and it was gone at once. f asks first, with the memory's words (a
    secret masked) and what forgetting takes with it; n, escape or any other key changes nothing; y (or f
    again) forgets it, and the notice says how to bring it back."""
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        memory = memories.remember(app.runtime.store, "the alarm code is 2468", kind="fact")
        await open_memories(pilot, app)
        screen = await open_first(pilot, app)
        last = changes.last_change(app.runtime.store)
        for no in ("n", "escape", "e"):
            await pilot.press("f")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
            asked = "\n".join(str(w.render()) for w in app.screen.query("Static"))
            assert f"Forget memory #{memory.id}?" in asked and "the alarm code is ••••" in asked
            assert "2468" not in asked and "ctrl+z" in asked and "y" in asked
            box = app.screen.query_one("#confirm-box").region
            assert app.screen.region.contains_region(box)  # whole on screen, 80x24 too
            await pilot.press(no)
            await wait_until(pilot, lambda: app.screen is screen, what="back on the memory")
            await settle(pilot, app)
            assert memories.get_memory(app.runtime.store, memory.id).content == "the alarm code is 2468", no
            assert changes.last_change(app.runtime.store) == last  # nothing done, so nothing new to undo
            assert not screen.editing  # the "e" answered the question; it did not open the editor
        await pilot.press("f", "y")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoriesScreen), what="back in the list")
        await wait_until(pilot, lambda: any(f"Forgotten #{memory.id}. ctrl+z brings it back." in n
                                            for n in notices(app)), what="the notice with the undo key")
        with pytest.raises(NotFound):
            memories.get_memory(app.runtime.store, memory.id)


async def test_forget_and_undo_in_a_searched_list_while_an_import_waits_for_its_embeddings(tmp_path: Path) -> None:
    """Issue 46: after forget and ctrl+z in a searched list, "0 found" stood for seconds and the keys typed
    next seemed lost: every search (one per pause in typing) embedded 32 texts of an import's backlog, and
    the app, seeing no key on this screen, embedded the backlog "while nobody typed" beside them. Now a
    search embeds none of a backlog, and a key on any screen counts as someone typing."""
    runtime, embedder, _ = _runtime_with_backlog(tmp_path, ASSISTANT_PROVIDER="offline")
    memories.remember(runtime.store, "the wifi password is on the fridge")
    waiting = pending_count(runtime.store)
    app = AssistantApp(runtime.settings, embedder=embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await open_memories(pilot, app)
        await search(pilot, app, "wifi", 1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.detail is not None)
        await pilot.press("f", "f")  # forget, and the same key again for yes
        await wait_until(pilot, lambda: isinstance(app.screen, MemoriesScreen) and not listed(app), what="forgotten")
        await pilot.pause(1.2)  # a moment of reading
        await pilot.press("ctrl+z", *" pass")
        assert app.main_screen.jobs.idle_for() < 1.0  # the keys were seen: no idle work starts under them
        await wait_until(pilot, lambda: listed(app) == ["the wifi password is on the fridge"]
                         and isinstance(app.screen, MemoriesScreen) and app.screen.query_text == "wifi pass",
                         what="brought back, and the search typed on")
        await settle(pilot, app)
        assert shown(app, "#memories-title") == "Memories · 1 found"
        assert pending_count(runtime.store) >= waiting  # the searches embedded none of the backlog


async def test_an_empty_edit_is_refused_and_keeps_the_text(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        memory = memories.remember(app.runtime.store, "the gym opens at 6", kind="fact")
        await open_memories(pilot, app)
        await open_first(pilot, app)
        await pilot.press("e", "ctrl+a", "ctrl+k", "enter")
        await wait_until(pilot, lambda: shown(app, "#memory-error") != "", what="the error")
        assert shown(app, "#memory-error") == "the memory text is empty"
        assert memories.get_memory(app.runtime.store, memory.id).content == "the gym opens at 6"
        await pilot.press("escape")  # cancels the edit, the screen stays
        assert isinstance(app.screen, MemoryScreen) and not app.screen.editing


# -- Why this answer ------------------------------------------------------------------------------------

async def test_why_says_so_when_there_is_no_answer_or_no_record(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("f3")
        await wait_until(pilot, lambda: any("No answer on screen" in n for n in notices(app)))
        await pilot.press("f4")
        await settle(pilot, app)
        await type_and_send(pilot, app, "what is coming up?")
        await pilot.press("f3")
        await wait_until(pilot, lambda: any("incognito conversation" in n and "no record" in n for n in notices(app)))
        assert app.screen is app.main_screen


# -- incognito ---------------------------------------------------------------------------------------

def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The memory and episode tables, row by row, as the file holds them (another connection)."""
    with Store(path, make_clock(T0)) as store:
        return {t: [tuple(r) for r in store.query(f"SELECT * FROM {t} ORDER BY 1")] for t in TABLES}


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_an_incognito_conversation_leaves_the_tables_and_the_history_file_as_they_were(
        tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path)
    history = Path(os.environ["XDG_STATE_HOME"]) / "assistant" / "input_history.jsonl"
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "remember that the boiler is a Vaillant")
        await pilot.press("ctrl+p", *"Incognito conversation")
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.services.incognito.active, what="incognito")
        await settle(pilot, app)
        before, written = dump(app.runtime.settings.db_path()), history.read_bytes()
        status = app.main_screen.status
        await wait_until(pilot, lambda: "INCOGNITO" in str(status.render()))
        for text in ("what is the boiler?", "remember that the zanzibar key is under the mat",
                     "remind me to call Bob tomorrow at 9", "done with 1", "what is coming up?"):
            await type_and_send(pilot, app, text)
            assert "INCOGNITO" in str(status.render())  # the whole time
        assert "Vaillant" in app.main_screen.chat.last_answer or any(
            "Vaillant" in str(w.render()) for w in app.main_screen.query("PlainAnswer"))
        await pilot.press("up")
        assert app.main_screen.composer.text == "what is coming up?"  # walked through meanwhile
        await pilot.press("ctrl+u")
        assert dump(app.runtime.settings.db_path()) == before and history.read_bytes() == written
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not app.services.incognito.active and "INCOGNITO" not in str(status.render()))
        await settle(pilot, app)
        await pilot.press("up")
        assert app.main_screen.composer.text == "remember that the boiler is a Vaillant"
        assert "Pay the rent" in sidebar_text(app) or size[0] < 90
    assert dump(app.runtime.settings.db_path()) == before and history.read_bytes() == written
    with Store(app.runtime.settings.db_path(), make_clock(T0)) as store:
        assert not memories.matching(store, ["zanzibar", "bob"])


# -- the briefing card ---------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_the_briefing_shows_on_the_first_launch_of_a_day_only_and_never_takes_the_keyboard(
        tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path, briefing=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await wait_until(pilot, lambda: app.main_screen.query("#briefing-card"), what="the card")
        card = shown(app, "#briefing-card")
        assert card.startswith("Briefing for Sun Nov 22") and "Overdue (1)" in card and "Pay the rent" in card
        assert app.focused is app.main_screen.composer  # not a dialog
        assert app.screen is app.main_screen
        if size[0] >= 90:
            assert app.main_screen.sidebar.display and "Pay the rent" in sidebar_text(app)
        await pilot.press(*"hello")
        assert app.main_screen.composer.text == "hello"  # typing goes to the message box
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.main_screen.query("#briefing-card"), what="escape dismissed it")
        assert app.main_screen.composer.text == "hello"
    again = make_app(tmp_path, seed=False, briefing=True)  # the second launch that day
    async with again.run_test(size=size) as pilot:
        await settle(pilot, again)
        assert not again.main_screen.query("#briefing-card")
        await pilot.press("ctrl+p", *"Briefing")  # asked for: shown, whatever the day
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: again.main_screen.query("#briefing-card"), what="the card asked for")
        await type_and_send(pilot, again, "what is coming up?")
        assert not again.main_screen.query("#briefing-card")  # the first message dismissed it


async def test_no_card_on_a_day_with_nothing_in_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, seed=False, briefing=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert not app.main_screen.query("#briefing-card")
        await pilot.press("f5")
        await wait_until(pilot, lambda: any("Nothing is due today" in n for n in notices(app)))
        assert not app.main_screen.query("#briefing-card")


# -- the real app in tmux: the acceptance walk ----------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it in .ci/run)")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_acceptance_walk_in_tmux(tmp_path: Path, size: tuple[int, int]) -> None:
    exe = Path(sys.executable).parent / "assistant"
    db, now = tmp_path / "m.db", "2026-11-22T14:00:00+00:00"
    env = f"ASSISTANT_TIMEZONE=UTC ASSISTANT_PROVIDER=offline XDG_STATE_HOME={tmp_path}/state"
    subprocess.run([str(exe), "chat", "remember that the door code is 5829", "--db", str(db), "--now", now],
                   check=True, capture_output=True)
    sock = f"assistant-memories-{os.getpid()}-{tmp_path.name}"
    tmux = ["tmux", "-L", sock]
    sess = "first"
    launch = f"{env} {exe} --db {db} --now {now}; echo EXITED-$?; sleep 20"

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", sess], capture_output=True, text=True).stdout

    def wait_for(text: str, secs: float = 20.0) -> str:
        end = time.time() + secs
        while time.time() < end:
            shot = screen()
            if text in shot:
                return shot
            time.sleep(0.2)
        raise AssertionError(f"{text!r} not on screen:\n{shot}")

    def keys(*names: str, literal: str = "") -> None:
        """Keys by name, then text typed as it is."""
        if names:
            subprocess.run([*tmux, "send-keys", "-t", sess, *names], check=True)
        if literal:
            subprocess.run([*tmux, "send-keys", "-t", sess, "-l", literal], check=True)

    subprocess.run([*tmux, "new-session", "-d", "-s", sess, "-x", str(size[0]), "-y", str(size[1]), launch],
                   check=True)
    try:
        wait_for("Briefing for Sun Nov 22")  # the first launch of the day
        keys("Escape")
        # As a person would, the next key once the card is gone: an escape sent together with F2's own
        # escape sequence was, on a loaded machine, read with it, and "door" then went nowhere.
        gone_by = time.time() + 20
        while "Briefing for" in screen() and time.time() < gone_by:
            time.sleep(0.2)
        keys("F2")
        # The Memories screen's own line: the chat shows the conversation so far with the code hidden too now
        wait_for("Memories · 1 memory")
        wait_for("the door code is ••••")
        keys(literal="door")
        wait_for("1 found")
        keys("Enter")
        wait_for("Memory #1")
        keys("e")
        wait_for("escape: cancel")
        # A person types once the box shows the cursor and sees what they typed before pressing enter: on a
        # loaded machine the keyboard reached the box after the first keys, and enter saved an empty text.
        for _ in range(5):
            time.sleep(0.3)
            keys("C-u", literal="the door code is 7731")
            try:
                wait_for("the door code is 7731", secs=4)
                break
            except AssertionError:
                continue
        keys("Enter")
        wait_for("Earlier texts")
        keys("Escape")
        keys("Escape")
        wait_for("Message (enter")
        keys(literal="what is the door code?")
        wait_for("door code?")
        keys("Enter")
        wait_for("From memory (you told me Sun Nov 22): the door code is 7731")
        keys("F3")
        wait_for("#1 the door code is ••••")
        keys("Escape")
        keys("C-q")
        wait_for("EXITED-0")
        sess = "second"  # the second launch that day, beside the first one's ended session
        subprocess.run([*tmux, "new-session", "-d", "-s", sess, "-x", str(size[0]), "-y", str(size[1]), launch],
                       check=True)
        wait_for("Message (enter")
        time.sleep(1.5)  # what the launch shows is on screen by now
        assert "Briefing for" not in screen()  # never on the second launch that day
        keys("C-q")
        wait_for("EXITED-0")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


async def open_why_after(pilot: Pilot[int], app: AssistantApp, said: str) -> None:
    """`said` sent, then the Why screen of its answer opened (f3)."""
    await settle(pilot, app)
    await type_and_send(pilot, app, said)
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(app.screen, WhyScreen), what="the Why screen")


async def test_the_why_of_an_offline_remember_lists_its_tool_call_with_the_secret_hidden(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_why_after(pilot, app, "remember that the alarm code is 2468")
        lines = [item.line for item in app.screen.query(WhyItem)]
        assert "Tool calls (1)" in lines and "What the reading of your message understood" in lines
        call = next(line for line in lines if line.startswith("remember "))
        assert "the alarm code is [secret]" in call and "2468" not in "\n".join(lines)  # as the record keeps it


async def test_the_filters_take_a_second_line_when_their_values_do_not_fit_80_columns(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await open_memories(pilot, app)
        bar = app.screen.query_one(FilterBar)
        assert bar.region.height == 1  # "any" everywhere fits one line
        kinds, sources = bar.fields[0][2], bar.fields[5][2]
        bar.chosen[0] = [shown for shown, _ in kinds].index("preference")
        bar.chosen[5] = [shown for shown, _ in sources].index("imported")
        bar.refresh(layout=True)
        await settle(pilot, app)
        lines = str(bar.render()).split("\n")
        assert bar.region.height == len(lines) == 2 and all(len(line) <= bar.region.width for line in lines)
        assert lines[0].startswith("kind: preference") and "source: imported" in lines[1]
        await pilot.click(FilterBar, offset=(lines[1].index("source") + 1, 1))  # a click on the second line
        assert bar.field == 5 and bar.values["source"] == "mcp"


def test_a_rows_columns_never_run_into_each_other() -> None:
    """An attacker's Memories screen read "fact      archivedsecret replaced by #26": the tier filled its column."""
    from assistant.views import MemoryRow
    from ui.widgets.memory_list import row_text

    row = MemoryRow(3, "preference", "archived", "Mon Dec 7 01:00", "the locker code is ••••", False, True, False,
                    "typed", replaced_by=26)
    assert "preference archived secret replaced by #26 the locker code" in " ".join(row_text(row).plain.split())
    assert "preferencearchived" not in row_text(row).plain and "archivedsecret" not in row_text(row).plain


def test_a_narrow_row_leaves_its_text_the_room() -> None:
    """A newcomer at 80x24: about 38 columns were left for a memory's text; without the weekday and the tier
    (the filters and the opened memory still say it), the text starts at column 24."""
    from assistant.views import MemoryRow
    from ui.widgets.memory_list import row_text

    row = MemoryRow(3, "preference", "archived", "Mon Dec 7 01:00", "my sister Ines is a midwife at St Mary's",
                    False, False, False, "typed")
    narrow = row_text(row, narrow=True).plain
    assert narrow.startswith("Dec 7 01:00  preference ") and "archived" not in narrow
    assert narrow.index("my sister") <= 24 < row_text(row).plain.index("my sister")


async def test_what_is_typed_on_the_why_screen_goes_to_the_message_box(tmp_path: Path) -> None:
    """A re-check typed five messages on the Why screen and lost them all (enter only opened the highlighted line)."""
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_why_after(pilot, app, "remember that the gym is on Elm Street")
        await pilot.press(*"hello there")
        await wait_until(pilot, lambda: app.screen is app.main_screen, what="back to the chat")
        await wait_until(pilot, lambda: app.main_screen.composer.text == "hello there", what="the typed text")
        assert app.focused is app.main_screen.composer
