"""SPEC F8: the Textual app driven by pilot, snapshots at a fixed clock and size, and the real
`assistant` in tmux. Interactions have their own files: test_ui_keys.py, test_ui_reminders.py,
test_ui_conversations.py."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memory import episodes
from tests.ui_helpers import SnapCompare, make_app, settle, sidebar_text, wait_until
from ui.app import AssistantApp
from ui.screens.dialogs import HelpScreen, RecapScreen, SnoozeScreen
from ui.widgets.composer import Composer

if TYPE_CHECKING:
    from textual.pilot import Pilot
    from textual.screen import Screen


async def test_offline_reminder_appears_in_sidebar(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert "[OVERDUE] Pay the rent" in sidebar_text(app) and "in 20 h" in sidebar_text(app)
        composer = app.query_one(Composer)
        composer.insert("remind me to water the plants tomorrow at 9am")
        await pilot.press("enter")
        await settle(pilot, app)
        assert "[in 19 h] water the plants\n  Mon Nov 23 09:00" in sidebar_text(app)
        assert any("remembered: water the plants" in str(w.render()) for w in app.query("ToolLine"))


async def test_multiline_paste_kept_and_history(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(Composer)
        composer.insert("first line\nsecond line")
        await pilot.press("enter")
        await settle(pilot, app)
        stored = app.runtime.store.one("SELECT content FROM messages WHERE role = 'user'")[0]
        assert stored == "first line\nsecond line"
        await pilot.press("up")
        assert composer.text == "first line\nsecond line"


async def test_ctrl_r_recap_and_escape(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+r")
        await settle(pilot, app)
        assert isinstance(app.screen, RecapScreen)
        assert "Ski Trip Planning" in recap_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecapScreen)


async def test_done_and_snooze_from_sidebar(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+l")
        await pilot.press("d")  # first item: the overdue rent
        await settle(pilot, app)
        assert "Pay the rent" not in sidebar_text(app)
        await pilot.press("s")  # a lone list letter acts after a short pause with no more typing
        await wait_until(pilot, lambda: isinstance(app.screen, SnoozeScreen))
        await pilot.press(*"friday 10am")
        await pilot.press("enter")
        await settle(pilot, app)
        assert "Call the plumber\n  Fri Nov 27 10:00" in sidebar_text(app)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, SnoozeScreen))
        await pilot.press(*"when pigs fly", "enter")
        await settle(pilot, app)
        assert "Fri Nov 27 10:00" in sidebar_text(app)  # bad date: nothing changed ...
        assert isinstance(app.screen, SnoozeScreen)  # ... and the dialog stays, saying why
        assert "when pigs fly" in str(app.screen.query_one("#snooze-error").render())


async def test_ctrl_n_closes_episode_and_help(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.query_one(Composer).insert("remember that I like tea")
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("ctrl+n")
        await settle(pilot, app)
        recent = episodes.list_recent(app.runtime.store)
        assert recent[0].title == "I like tea" and recent[0].outcome == "success"  # a phrase (issue 46 item 12)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def quiet(pilot: Pilot[int]) -> None:
    """No toasts in a snapshot: they come from parallel workers in any order, and fade on a timer; and a
    steady cursor, not one caught in either half of its blink."""
    app = pilot.app
    assert isinstance(app, AssistantApp)
    for widget in (app.main_screen.composer, app.focused):
        if widget is not None and hasattr(widget, "cursor_blink"):
            widget.cursor_blink = False
    pilot.app.clear_notifications()
    def visible_screens() -> Iterator[Screen[Any]]:
        for screen in reversed(pilot.app.screen_stack):  # a modal shows the screen below it
            yield screen
            if not screen.is_modal:
                return

    await wait_until(pilot, lambda: not any(s.query("Toast") for s in visible_screens()), what="toasts gone")
    await pilot.pause()


def recap_text(app: AssistantApp) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query("#recap-body Static"))


@pytest.mark.parametrize("keys", [(), ("ctrl+r",), ("f1",)], ids=["main", "recap", "help"])
def test_snapshot(tmp_path: Path, snap_compare: SnapCompare, keys: tuple[str, ...]) -> None:
    async def before(pilot: Pilot[int]) -> None:
        await settle(pilot, pilot.app)
        await quiet(pilot)
        await pilot.press(*keys)
        await settle(pilot, pilot.app)
        await quiet(pilot)
    assert snap_compare(make_app(tmp_path), run_before=before, terminal_size=(100, 30))


def test_snapshot_welcome(tmp_path: Path, snap_compare: SnapCompare) -> None:
    """An empty store: what this is, the model (none), examples and keys, before anything is typed."""
    async def before(pilot: Pilot[int]) -> None:
        await settle(pilot, pilot.app)
        await quiet(pilot)
    assert snap_compare(make_app(tmp_path, seed=False), run_before=before, terminal_size=(100, 30))


def test_snapshot_conversations(tmp_path: Path, snap_compare: SnapCompare) -> None:
    async def before(pilot: Pilot[int]) -> None:
        await settle(pilot, pilot.app)
        await quiet(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot, pilot.app)
        await quiet(pilot)
    assert snap_compare(make_app(tmp_path, messages=True), run_before=before, terminal_size=(100, 30))


def test_snapshot_collapsed_sidebar(tmp_path: Path, snap_compare: SnapCompare) -> None:
    """Under 90 columns the sidebar is one line and the footer keeps what fits."""
    async def before(pilot: Pilot[int]) -> None:
        await settle(pilot, pilot.app)
        await quiet(pilot)
    assert snap_compare(make_app(tmp_path), run_before=before, terminal_size=(80, 24))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it in .ci/run)")
@pytest.mark.parametrize("term", ["", "TERM=dumb"])  # tmux sets its own TERM in the pane; dumb is asked for
def test_real_app_in_tmux(tmp_path: Path, term: str) -> None:
    exe = Path(sys.executable).parent / "assistant"
    db, now = tmp_path / "m.db", "2026-11-22T14:00:00+00:00"
    subprocess.run([str(exe), "remember", "Call the plumber", "--due", "2026-11-23T10:00:00Z", "--db", str(db),
                    "--now", now], check=True, capture_output=True)
    sock, sess = f"assistant-test-{os.getpid()}-{tmp_path.name}", "t"  # unique across concurrent runs
    tmux = ["tmux", "-L", sock]
    cmd = f"env {term} ASSISTANT_TIMEZONE=UTC {exe} --db {db} --now {now}; echo EXITED-$?; sleep 20"
    subprocess.run([*tmux, "new-session", "-d", "-s", sess, "-x", "120", "-y", "40", cmd], check=True)

    def wait_for(text: str, secs: float = 20.0) -> str:
        end = time.time() + secs
        while time.time() < end:
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", sess], capture_output=True, text=True).stdout
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} not on screen:\n{screen}")

    try:
        wait_for("Call the plumber")
        subprocess.run([*tmux, "send-keys", "-t", sess, "-l", "remind me to water the plants tomorrow at 9am"])
        wait_for("water the plants")  # as a person would: see the text typed, then press Enter
        subprocess.run([*tmux, "send-keys", "-t", sess, "Enter"])
        wait_for("[in 19 h] water the plants")
        subprocess.run([*tmux, "send-keys", "-t", sess, "C-q"])
        wait_for("EXITED-0")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    out = subprocess.run([str(exe), "recap", "--json", "--db", str(db), "--now", now], capture_output=True, text=True)
    assert [e["title"] for e in json.loads(out.stdout)] == ["Water the plants"]


@pytest.mark.slow
async def test_huge_paste_and_control_characters_are_kept(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    text = "\x1b[31mred\x1b[0m \x07 [b]not markup[/b]\n" + "lorem ipsum " * 90_000  # about 1 MB
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.query_one(Composer).insert(text)
        await pilot.press("enter")
        await settle(pilot, app)
        stored = app.runtime.store.one("SELECT content FROM messages WHERE role = 'user'")[0]
        assert stored == text
        assert app.query(".answer")  # the turn completed and answered
        shown = str(app.query_one("UserMessage").render())
        assert "\x1b" not in shown and "\x07" not in shown  # never emitted to the terminal ...
        assert shown.startswith("␛[31mred␛[0m ␇ [b]not markup[/b]")  # ... but shown, like markup, as typed


async def test_message_sent_before_the_model_is_chosen_is_answered(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        app.services.model.agent = None  # as if the start-up worker had not finished yet
        app.query_one(Composer).insert("remember that the spare key is under the pot")
        await pilot.press("enter")
        await settle(pilot, app)
        stored = [r[0] for r in app.runtime.store.query("SELECT role FROM messages ORDER BY id")]
        assert stored == ["user", "assistant"]
        assert app.runtime.store.one("SELECT content FROM knowledge WHERE kind = 'note'")[0] == \
            "the spare key is under the pot"


async def test_reminders_due_before_the_first_screen_wait_for_it(tmp_path: Path) -> None:
    """Which came first was a race: a due line in the chat before the first screen was shown kept the
    returning user's hint (or the transcript of a conversation in progress) from being shown at all."""
    from assistant.views import DueNotice

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        chat = app.main_screen.chat
        await chat.chat_log.clear()
        chat._start_shown = False  # as at launch, before load_start has read the store
        due = app.services.due.take_due_reminders() or DueNotice([], 1, at_launch=True)
        chat.add_due_reminders(DueNotice(due.items, max(due.total, 1), at_launch=True))
        await pilot.pause()
        assert chat.chat_log.entries == []  # held back
        chat.load_start()
        await settle(pilot, app)
        texts = [e.text for e in chat.chat_log.entries]
        assert texts[0].startswith("New conversation.") and texts[1].startswith("⏰"), texts
