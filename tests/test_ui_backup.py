"""The app and the replica (SPEC F16): with a replica set, the app starts the store's replicator when none
runs and stops its own at quit after a last sync, within the quit's budget; killed with -9, it loses nothing a
restore does not bring back. The real litestream binary; the real app in tmux."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from assistant.backup.place import holder, place_of
from tests.test_backup import ASSISTANT, Home, contents, forget_the_machine, needs_litestream, remember_in_process
from tests.ui_helpers import make_app, wait_until


@needs_litestream
async def test_the_app_replicates_while_it_runs_and_stops_its_replicator_at_quit(tmp_path: Path) -> None:
    app = make_app(tmp_path, ASSISTANT_BACKUP__REPLICA=f"file://{tmp_path / 'replica'}")
    place = place_of(app.runtime.settings.db_path())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.services.backup.keeper is not None and app.services.backup.keeper.owns,
                         timeout=30, what="the replicator to start")
        assert holder(place) is not None
        await wait_until(pilot, lambda: any((tmp_path / "replica").rglob("*.ltx")), timeout=30,
                         what="the first copy in the replica")
        began = time.monotonic()
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert time.monotonic() - began < 2.5  # the conversation closed, a last sync, within the quit's budget
    assert app.services.backup.keeper is not None and not app.services.backup.keeper.owns
    pytest.importorskip("fcntl")
    deadline = time.monotonic() + 15  # Litestream's own last sync as it stops, on its own time
    while holder(place) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert holder(place) is None


@needs_litestream
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it in .ci/run)")
def test_the_real_app_killed_with_9_loses_nothing_a_restore_brings_back(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 45's acceptance with the real app in a terminal: a replica set, 350 items written through the CLI,
    the app (whose replicator it started) and its Litestream killed with -9 five seconds after a memory typed
    in the app; the store deleted; a restore into a new home has every item and that last one."""
    replica_folder = tmp_path / "nas" / "assistant"
    home = Home(tmp_path / "old", replica=f"file://{replica_folder}", extra_env={"ASSISTANT_PROVIDER": "offline"})
    home.use_in_process(monkeypatch)
    items = [f"item {n}: written through the CLI" for n in range(350)]
    remember_in_process(items, home.db)
    sock, sess = f"assistant-backup-{os.getpid()}-{tmp_path.name}", "b"
    tmux = ["tmux", "-L", sock]
    env = " ".join(f"{name}={shlex.quote(value)}" for name, value in home.env.items()
                   if name.startswith(("ASSISTANT_", "XDG_", "HOME", "PATH")))
    command = f"env {env} {ASSISTANT} --db {home.db}; echo EXITED-$?; sleep 30"
    subprocess.run([*tmux, "new-session", "-d", "-s", sess, "-x", "120", "-y", "40", command], check=True)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", sess], capture_output=True, text=True).stdout

    def wait_for(text: str, secs: float = 30.0) -> None:
        end = time.time() + secs
        while text not in screen():
            if time.time() > end:
                raise AssertionError(f"{text!r} not on screen:\n{screen()}")
            time.sleep(0.1)

    place = place_of(home.db)
    try:
        wait_for("offline · built-in")
        wait_for_holder = time.time() + 30
        while holder(place) is None and time.time() < wait_for_holder:
            time.sleep(0.1)
        app_pid = holder(place)
        assert app_pid, "the app started no replicator"
        subprocess.run([*tmux, "send-keys", "-t", sess, "-l", "remember that the app wrote this five seconds before"])
        subprocess.run([*tmux, "send-keys", "-t", sess, "Enter"])
        wait_for("I'll remember that the app wrote this")
        time.sleep(5)
        litestream_pid = json.loads(place.status.read_text())["litestream_pid"]
        os.kill(app_pid, signal.SIGKILL)
        os.kill(litestream_pid, signal.SIGKILL)
        wait_for("EXITED-137", secs=10)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    forget_the_machine(home)
    new = Home(tmp_path / "new")
    target = new.root / "memory.db"
    done = new.run("restore", "--from", f"file://{replica_folder}", "--db", str(target))
    assert done.returncode == 0, done.stderr
    assert contents(target) == {*items, "the app wrote this five seconds before"}
