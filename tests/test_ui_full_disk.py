"""A full disk in the app (SPEC 5, data): a message the disk has no room for is said as not saved and stays
in the message box; it is sent once there is room; quitting on a full disk is one line and exit 1."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_full_disk import fill, fill_disk, room, small_disk  # noqa: F401 - a fixture
from tests.ui_helpers import make_app, notices, settle, wait_until


async def test_a_message_the_disk_has_no_room_for_stays_in_the_box_and_is_sent_when_there_is(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    text = "remember that the long list is " + "milk eggs bread " * 12_000
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        chat = app.main_screen.chat
        chat.room_poll = 0.1
        fill(app.runtime.store)
        chat.composer.insert(text)
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Not saved: the disk is full." in str(w.render())
                                            for w in app.query("ToolLine")), what="the line saying so")
        assert chat.composer.text == text  # back in the box, whole
        assert app.runtime.store.one("SELECT count(*) FROM messages WHERE role = 'user'")[0] == 0
        room(app.runtime.store)
        await wait_until(pilot, lambda: app.runtime.store.one(
            "SELECT count(*) FROM messages WHERE role = 'user'")[0] == 1, timeout=10, what="the message sent")
        await settle(pilot, app)
        assert chat.composer.text == ""
        assert any("your message was sent" in n for n in notices(app))
        # said once (counted among the log's entries: a line far above the view is not a widget)
        assert sum("Not saved" in e.text for e in chat.chat_log.entries) == 1


async def test_on_a_small_disk_that_was_full_at_launch_a_message_is_sent_once_room_is_made(small_disk: Path,  # noqa: F811
                                                                                           tmp_path: Path) -> None:
    """Issue 46: on a volume under 4 MB the app took the disk for full for ever: after room was made it
    never wrote again, and each enter showed the message once more with no answer and no notice."""
    app = make_app(tmp_path, ASSISTANT_DB=str(small_disk / "m.db"))
    filler = fill_disk(small_disk)  # full before the app starts: its store opens for reading
    text = "remember that the bike lock code is 3719"
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot, app)
        chat = app.main_screen.chat
        chat.room_poll = 0.2
        chat.composer.insert(text)
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Not saved: the disk is full." in e.text for e in chat.chat_log.entries),
                         what="the line saying so")
        assert chat.composer.text == text
        await pilot.press("enter")  # again, still full: said, and the message is not shown twice
        await wait_until(pilot, lambda: any(n.startswith("Still not saved") for n in notices(app)), what="a notice")
        assert chat.composer.text == text
        assert sum(e.text == text for e in chat.chat_log.entries) == 1
        filler.unlink()
        await wait_until(pilot, lambda: app.runtime.store.one("SELECT count(*) FROM messages WHERE role = 'user'")[0]
                         == 1, timeout=10, what="the message sent once there is room")
        await settle(pilot, app)
        assert any("your message was sent" in n for n in notices(app))
        # Shown again once saved, right above its answer (the first showing stays, with the line saying so).
        texts = [e.text for e in chat.chat_log.entries]
        assert chat.composer.text == "" and texts.count(text) == 2 and texts[-3] == text  # then the action, the answer
        assert "bike lock code is 3719" in app.runtime.store.one("SELECT group_concat(content) FROM knowledge")[0]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it in .ci/run)")
def test_quitting_on_a_full_disk_is_one_line_and_exit_1(small_disk: Path) -> None:  # noqa: F811
    exe = Path(sys.executable).parent / "assistant"
    db = small_disk / "m.db"
    env = {**os.environ, "ASSISTANT_NOW": "2026-11-22T14:00:00Z", "ASSISTANT_TIMEZONE": "UTC"}
    subprocess.run([str(exe), "remember", "the gate code is 5521", "--db", str(db)], env=env, check=True,
                   capture_output=True)
    sock = f"assistant-full-{os.getpid()}"
    tmux = ["tmux", "-L", sock]
    cmd = (f"env ASSISTANT_NOW=2026-11-22T14:00:00Z ASSISTANT_TIMEZONE=UTC ASSISTANT_PROVIDER=offline "
           f"ASSISTANT_EMBEDDING_MODEL=none {exe} --db {db}; echo EXITED-$?; sleep 30")

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "f"], capture_output=True, text=True).stdout

    def wait_for(text: str, secs: float = 20.0) -> str:
        end = time.time() + secs
        while text not in (shown := screen()):
            if time.time() > end:
                raise AssertionError(f"{text!r} not on screen:\n{shown}")
            time.sleep(0.2)
        return shown

    with (small_disk / "filler").open("wb") as filler:  # full before the app starts: no write finds room
        try:
            while True:
                filler.write(b"\0" * 65536)
        except OSError:
            pass
    subprocess.run([*tmux, "new-session", "-d", "-s", "f", "-x", "100", "-y", "30", cmd], check=True)
    try:
        wait_for("offline")
        wait_for("1 memory")  # reads work: the memory is counted
        subprocess.run([*tmux, "send-keys", "-t", "f", "-l", "remember that the bike lock code is 3719"])
        wait_for("bike lock code is 3719")
        subprocess.run([*tmux, "send-keys", "-t", "f", "Enter"])
        wait_for("Not saved: the disk is full")
        subprocess.run([*tmux, "send-keys", "-t", "f", "C-q"])
        shown = wait_for("EXITED-", secs=10)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    assert "EXITED-1" in shown and "the disk is full" in shown and "Traceback" not in shown
