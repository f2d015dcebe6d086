"""The app syncs with a calendar server by itself (SPEC F15): at launch, a few seconds after a reminder is made
in the chat, and at its interval; the status bar says how the last sync ended, a failure is said once, and no
key waits. A real Radicale, the real caldav client as the phone, `assistant sync` children as the app runs
them."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.caldav_server import USERS, Phone, Radicale, free_port
from tests.ui_helpers import make_app, notices, settle, sidebar_text, type_and_send, wait_until


@pytest.fixture
def radicale(tmp_path: Path) -> Iterator[Radicale]:
    server = Radicale(tmp_path / "radicale")
    yield server
    server.stop()


def calendar_env(url: str, monkeypatch: pytest.MonkeyPatch, interval: str = "0.1") -> dict[str, Any]:
    """The calendar for the app's settings and for its `assistant sync` children (they read the environment)."""
    env: dict[str, Any] = {"ASSISTANT_CALDAV__URL": url, "ASSISTANT_CALDAV__USERNAME": "alice",
           "ASSISTANT_CALDAV__INTERVAL_MINUTES": interval}
    for name, value in {**env, "ASSISTANT_CALDAV_PASSWORD": USERS["alice"]}.items():
        monkeypatch.setenv(name, value)
    return env


def status(app: object) -> str:
    return str(app.main_screen.status.render())  # type: ignore[attr-defined]


async def test_a_reminder_said_in_the_chat_reaches_the_phone_and_the_phone_s_done_comes_back(
        tmp_path: Path, radicale: Radicale, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path, **calendar_env(radicale.url, monkeypatch))
    phone = Phone(radicale.url, "alice", "Assistant")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await wait_until(pilot, lambda: "calendar synced" in status(app), timeout=30, what="the launch sync")
        assert sorted(t.summary for t in phone.todos()) == ["Call the plumber", "Pay the rent"]
        await type_and_send(pilot, app, "remind me to call the garage tomorrow at 10am")
        took = await wait_until(pilot, lambda: any("garage" in t.summary for t in phone.todos()), timeout=60,
                                what="the reminder on the server")
        assert took < 30
        garage = phone.todo("garage")
        assert garage.due == datetime(2026, 11, 23, 10, 0, tzinfo=UTC) and garage.alarms
        phone.complete(phone.todo("plumber"))
        await wait_until(pilot, lambda: "Call the plumber" not in sidebar_text(app), timeout=60,
                         what="the phone's done in the sidebar (the next interval's sync)")
        app.main_screen.composer.insert("still typing")  # no key waited for any of it
        await settle(pilot, app)
        assert app.main_screen.composer.text == "still typing"


async def test_a_server_down_is_said_once_and_in_the_status_bar(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path, **calendar_env(f"http://127.0.0.1:{free_port()}/", monkeypatch))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await wait_until(pilot, lambda: "server unreachable" in status(app), timeout=30, what="the failure")
        await wait_until(pilot, lambda: any("cannot reach the calendar server" in n for n in notices(app)),
                         timeout=5, what="the notice")
        await type_and_send(pilot, app, "remind me to water the plants tomorrow at 8am")
        await pilot.pause(8)  # a change and an interval later: tried again, not said again
        assert sum("cannot reach the calendar server" in n for n in notices(app)) == 1
