"""The model path in the app (SPEC F7): a turn shows that the model is working with the seconds elapsed,
escape stops it and keeps the message, quitting never waits for a model, and a model that did not answer
at launch is taken up when it does."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ui_helpers import notices, settle, wait_until
from ui.app import AssistantApp

if TYPE_CHECKING:
    from tests.standins import StandIn


def model_app(tmp_path: Path, standin: StandIn, **env: str) -> AssistantApp:
    from tests.conftest import make_runtime

    rt = make_runtime(tmp_path, **{"ASSISTANT_PROVIDER": "openai", "OPENAI_BASE_URL": standin.base,
                                   "ASSISTANT_MODEL": "/models/SmolLM2-135M-Instruct.Q4_1.gguf", **env})
    rt.close()
    return AssistantApp(rt.settings)


async def test_a_slow_answer_shows_the_model_working_and_escape_stops_it(tmp_path: Path,
                                                                         openai_standin: StandIn) -> None:
    openai_standin.models = ["/models/SmolLM2-135M-Instruct.Q4_1.gguf"]
    openai_standin.script = [("sleep", 8, "too late")]
    app = model_app(tmp_path, openai_standin)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        status = str(app.main_screen.query_one("#status").render())
        assert "SmolLM2-135M-Instruct.Q4_1" in status and "/models/" not in status  # its short name
        app.main_screen.composer.insert("what should I cook tonight?")
        await pilot.press("enter")
        clock = app.main_screen.query_one("#turn-clock")
        await wait_until(pilot, lambda: clock.display and " 1 s" in str(clock.render()), what="the working line")
        assert "is answering" in str(clock.render()) and "escape stops it" in str(clock.render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.main_screen.chat.busy, what="the turn to stop")
        assert not clock.display
        lines = [str(w.render()) for w in app.query("ToolLine")]
        assert any(line.startswith("Stopped. Your message is kept") for line in lines)
        said = app.runtime.store.query("SELECT role, content FROM messages")
        assert [tuple(r) for r in said] == [("user", "what should I cook tonight?")]
        assert app.main_screen.composer.has_focus


async def test_a_model_down_at_launch_is_taken_up_when_it_answers(tmp_path: Path, openai_standin: StandIn) -> None:
    openai_standin.models = ["stand-in"]
    config = tmp_path / "config.toml"
    config.write_text('[openai]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "stand-in"\n')
    app = model_app(tmp_path, openai_standin, ASSISTANT_CONFIG=str(config), ASSISTANT_PROVIDER="",
                    OPENAI_BASE_URL="", ASSISTANT_MODEL="stand-in")
    async with app.run_test(size=(100, 30)) as pilot:
        chat = app.main_screen.chat
        chat.retry_delays = [0.1, 0.1]
        await wait_until(pilot, lambda: app.services.model.agent is not None, what="the first choice")
        assert app.services.model.provider_label.startswith("offline")
        config.write_text(f'[openai]\nbase_url = "{openai_standin.base}"\nmodel = "stand-in"\n')
        app.runtime.settings.openai.base_url = openai_standin.base  # as the next launch would read it
        await wait_until(pilot, lambda: app.services.model.has_model, timeout=10, what="the model to be found")
        await wait_until(pilot, lambda: "openai · stand-in" in str(app.main_screen.query_one("#status").render()),
                         what="the status bar to switch")
        assert any("Connected to openai · stand-in" in n for n in notices(app))


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it in .ci/run)")
def test_quit_does_not_wait_for_a_model_that_is_still_answering(tmp_path: Path, openai_standin: StandIn) -> None:
    """ctrl+q while a model takes 60 s to answer (and the title would ask it again): the app ends at once,
    the message is kept and the conversation closes with its quick title."""
    openai_standin.models = ["stand-in"]
    openai_standin.script = [("sleep", 60, "never seen")] * 3
    exe = Path(sys.executable).parent / "assistant"
    db, now = tmp_path / "m.db", "2026-11-22T14:00:00+00:00"
    sock, sess = f"assistant-quit-{os.getpid()}-{tmp_path.name}", "q"
    tmux = ["tmux", "-L", sock]
    env = (f"ASSISTANT_TIMEZONE=UTC ASSISTANT_PROVIDER=openai OPENAI_BASE_URL={openai_standin.base} "
           f"ASSISTANT_MODEL=stand-in ASSISTANT_LOCAL_PROVIDER=openai HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/c "
           f"XDG_STATE_HOME={tmp_path}/s XDG_CACHE_HOME={tmp_path}/k ASSISTANT_EMBEDDING_MODEL=none")
    cmd = f"env {env} {exe} --db {db} --now {now}; echo EXITED-$?; sleep 30"
    subprocess.run([*tmux, "new-session", "-d", "-s", sess, "-x", "100", "-y", "30", cmd], check=True)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", sess], capture_output=True, text=True).stdout

    def wait_for(text: str, secs: float = 20.0) -> None:
        end = time.time() + secs
        while text not in screen():
            if time.time() > end:
                raise AssertionError(f"{text!r} not on screen:\n{screen()}")
            time.sleep(0.1)

    try:
        wait_for("openai · stand-in")
        subprocess.run([*tmux, "send-keys", "-t", sess, "-l", "plan my week please"])
        wait_for("plan my week please")
        subprocess.run([*tmux, "send-keys", "-t", sess, "Enter"])
        wait_for("is answering")
        subprocess.run([*tmux, "send-keys", "-t", sess, "C-q"])
        wait_for("EXITED-0", secs=10)  # not the 60 s the model would take, nor a title's 30
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    from memory.connection import connect

    kept = connect(str(db))
    assert [tuple(r) for r in kept.execute("SELECT role, content FROM messages")] == [("user", "plan my week please")]
    assert [tuple(r) for r in kept.execute("SELECT active, ended_at IS NOT NULL FROM episodes")] == [(0, 1)]  # closed
    kept.close()


@pytest.mark.parametrize("edited", [False, True], ids=["sent after the answer", "edited: waits for enter"])
async def test_a_message_sent_while_an_answer_is_written_waits_in_the_box(tmp_path: Path, openai_standin: StandIn,
                                                                          edited: bool) -> None:
    openai_standin.models = ["stand-in"]
    openai_standin.script = [("sleep", 2, "first answer"), "second answer"]
    app = model_app(tmp_path, openai_standin, ASSISTANT_MODEL="stand-in")

    def said() -> list[str]:
        return [r[0] for r in app.runtime.store.query("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]

    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        chat = app.main_screen.chat
        chat.composer.insert("tell me a joke number 1")
        await pilot.press("enter")
        await wait_until(pilot, lambda: chat.busy, what="the first answer under way")
        chat.composer.insert("tell me a joke number 2")
        await pilot.press("enter")
        await pilot.pause()
        assert chat.busy and chat.composer.text == "tell me a joke number 2"  # not lost: back in the box
        assert any("goes once the answer is in" in n for n in notices(app))
        if edited:
            chat.composer.insert(" and more")
            await wait_until(pilot, lambda: not chat.busy, timeout=20, what="the first answer")
            await settle(pilot, app)
            assert chat.composer.text == "tell me a joke number 2 and more"  # edited: the person's to send
            assert said() == ["tell me a joke number 1"]
        else:
            await wait_until(pilot, lambda: len(said()) == 2, timeout=20, what="the second message sent")
            assert said() == ["tell me a joke number 1", "tell me a joke number 2"]
            assert chat.composer.text == ""
