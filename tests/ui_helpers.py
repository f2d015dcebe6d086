"""Helpers of the UI tests: a seeded app at a frozen clock, settling, polling (never sleeping)."""
from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Protocol

from assistant.briefing import SHOWN_KEY
from memory import memories
from memory.transfer.jsonl_import import import_records
from tests.conftest import make_runtime
from ui.app import AssistantApp
from ui.widgets.reminders import ReminderList

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot

EPISODE = {"type": "episode", "id": "e1", "title": "Ski Trip Planning", "summary": "Budget for Breckenridge",
           "outcome": "success", "started_at": "2026-11-22T11:00:00+00:00", "ended_at": "2026-11-22T11:30:00+00:00"}
SKI_MESSAGES = [
    {"type": "message", "episode_id": "e1", "role": "user", "created_at": "2026-11-22T11:00:00+00:00",
     "content": "The Breckenridge lift pass costs 289 dollars a day"},
    {"type": "message", "episode_id": "e1", "role": "assistant", "created_at": "2026-11-22T11:01:00+00:00",
     "content": "Noted: lift passes at **289 dollars** a day."}]


class SnapCompare(Protocol):
    """pytest-textual-snapshot's `snap_compare` fixture (the plugin has no type information): compares a
    screenshot of the app with the one kept in tests/__snapshots__."""

    def __call__(self, app: str | PurePath | App[Any], press: Iterable[str] = (),
                 terminal_size: tuple[int, int] = (80, 24),
                 run_before: Callable[[Pilot[Any]], Awaitable[None] | None] | None = None) -> bool: ...


def make_app(tmp_path: Path, seed: bool = True, messages: bool = False, briefing: bool = False,
             **env: str) -> AssistantApp:
    """An app over a store seeded with two reminders and a conversation. `briefing`: the day's briefing card
    shows at launch (by default this launch is not the day's first, so the card is not in the way)."""
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="offline", **env)
    if seed:
        memories.remember(rt.store, "Call the plumber", due_at="2026-11-23T10:00:00+00:00")
        memories.remember(rt.store, "Pay the rent", due_at="2026-11-21T09:00:00+00:00")
        import_records(rt.store, [json.dumps(EPISODE), *(json.dumps(m) for m in (SKI_MESSAGES if messages else []))])
    if not briefing:
        rt.store.set_meta(SHOWN_KEY, rt.clock.local(rt.clock.now()).date().isoformat())
    rt.close()
    return AssistantApp(rt.settings)


async def settle(pilot: Pilot[int], app: App[Any]) -> None:
    await pilot.pause()
    # A letter typed in the reminder list waits LETTER_PAUSE for more typing before it acts.
    for lst in app.query(ReminderList):
        if lst._pending is not None:
            def acted(lst: ReminderList = lst) -> bool:
                return lst._pending is None

            await wait_until(pilot, acted, what="the list letter to act")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot: Pilot[int], predicate: Callable[[], object], timeout: float = 5.0, what: str = "") -> float:
    """Poll `predicate` while the app runs; returns the seconds it took. Fails after `timeout`."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await pilot.pause(0.02)
    return time.monotonic() - start


def sidebar_text(app: AssistantApp) -> str:
    """The reminder rows as shown (rows still being mounted count as empty)."""
    return "\n".join(str(static.render()) for item in app.query("ReminderItem") for static in item.query("Static"))


def notices(app: AssistantApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def type_and_send(pilot: Pilot[int], app: AssistantApp, text: str) -> None:
    app.main_screen.composer.insert(text)
    await pilot.press("enter")
    await settle(pilot, app)


class Tmux:
    """The real `assistant` in a tmux session of a private server, driven as a person would: keys sent,
    the screen read (the tmux tests of a file share it instead of each writing its own polling)."""

    def __init__(self, name: str, command: str, size: tuple[int, int] = (100, 30)) -> None:
        import subprocess

        self.tmux, self.session = ["tmux", "-L", name], "q"
        subprocess.run([*self.tmux, "new-session", "-d", "-s", self.session, "-x", str(size[0]), "-y",
                        str(size[1]), command], check=True)

    def screen(self) -> str:
        import subprocess

        return subprocess.run([*self.tmux, "capture-pane", "-p", "-t", self.session], capture_output=True,
                              text=True).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        import subprocess

        subprocess.run([*self.tmux, "send-keys", "-t", self.session, *(["-l"] if literal else []), *keys], check=True)

    def wait_for(self, text: str, secs: float = 30.0) -> float:
        """Seconds until `text` is on the screen (AssertionError with the screen after `secs`)."""
        start = time.monotonic()
        while text not in self.screen():
            if time.monotonic() - start > secs:
                raise AssertionError(f"{text!r} not on screen:\n{self.screen()}")
            time.sleep(0.05)
        return time.monotonic() - start

    def kill(self) -> None:
        import subprocess

        subprocess.run([*self.tmux, "kill-server"], capture_output=True)
