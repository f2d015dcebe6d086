"""`assistant chat` against a model server that cannot answer (SPEC 5: nothing the user typed is ever
lost; a broken server is said in one clear line): a server that lists no model keeps the message as an
unreachable one does, and a turn says its failure once, on a line of its own."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory.store import Store
from tests.conftest import T0_TEXT, make_runtime

if TYPE_CHECKING:
    from tests.conftest import Cli
    from tests.standins import StandIn

DENTIST = "my dentist appointment is on Friday at 3pm, please keep this"
ASSISTANT = Path(sys.executable).with_name("assistant")
DOWN = "http://127.0.0.1:1/v1"  # nothing listens on port 1


def typed(db: str) -> list[str]:
    store = Store(db, read_only=True)
    try:
        return [r[0] for r in store.query("SELECT content FROM messages WHERE role = 'user'")]
    finally:
        store.close()


@pytest.mark.slow
def test_a_server_that_lists_no_model_keeps_the_message(cli: Cli, openai_standin: StandIn,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    openai_standin.models = []
    monkeypatch.setenv("ASSISTANT_PROVIDER", "openai")
    monkeypatch.setenv("ASSISTANT_OPENAI__BASE_URL", openai_standin.base)
    monkeypatch.setenv("ASSISTANT_EMBEDDING_MODEL", "none")
    code, out, err = cli("chat", DENTIST)
    assert code == 1 and "Traceback" not in out + err
    assert typed(cli.db) == [DENTIST]  # kept, as a server that does not answer keeps it
    said = out + err
    assert said.count("lists no model") == 1  # why, in its words, once
    assert "I handled this offline" in out  # answered offline, as when the server does not answer
    code, out, _ = cli("recap")
    assert code == 0 and "dentist" in out.lower()


@pytest.mark.slow
def test_a_server_down_is_said_once_on_its_own_line(tmp_path: Path) -> None:
    """A tester's find: the failure was said three times (a header in the answer, a notice glued to the
    answer's last word, a line at exit)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("ASSISTANT_", "OPENAI"))}
    env.update({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state"),
                "XDG_CACHE_HOME": str(tmp_path / "cache"), "ASSISTANT_TIMEZONE": "UTC",
                "ASSISTANT_PROVIDER": "openai", "ASSISTANT_OPENAI__BASE_URL": DOWN,
                "ASSISTANT_EMBEDDING_MODEL": "none"})
    db = str(tmp_path / "m.db")
    done = subprocess.run([str(ASSISTANT), "--db", db, "--now", T0_TEXT, "chat",
                           "my boss is Tom now"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120, check=False)
    assert done.returncode == 1  # docs/cli.md: a failure of the model exits 1, also when answered offline
    lines = done.stdout.splitlines()
    about = [line for line in lines if "chat model" in line or "not reachable" in line]
    # The answer's opening line says why (stdout), and the process's one status line (stderr); never
    # a third, and each on a line of its own.
    assert len(about) == 2 and sum(line.startswith("assistant:") for line in about) == 1, done.stdout
    assert all(line.startswith(("(", "assistant:", "[")) for line in about), done.stdout
    assert any("Tom" in line and "chat model" not in line for line in lines), done.stdout  # the answer is there
    assert typed(db) == ["my boss is Tom now"]


def test_the_label_of_a_model_server_with_no_model_named_has_no_empty_name(tmp_path: Path) -> None:
    from assistant.services.model import ModelService

    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="openai", ASSISTANT_OPENAI__BASE_URL=DOWN)
    try:
        model = ModelService(rt)
        model.connect()
        model.trouble = "network"
        assert model.provider_label == "openai (not answering)"
    finally:
        rt.close()


def test_a_turn_the_app_answers_alone_leaves_the_model_said_down(tmp_path: Path) -> None:
    """Found with a real model: its server killed, a question said "(not answering)" in the status; then a
    reminder, which the app sets itself for a model without tools, put the plain label back while the
    server was still down. Only a turn that reached the model says it is back."""
    import asyncio

    from assistant.providers.base import Tools
    from assistant.services.model import ModelService
    from assistant.turn.events import Done

    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="openai", ASSISTANT_OPENAI__BASE_URL=DOWN)

    async def say(model: ModelService, text: str) -> Done:
        return [e async for e in model.turn(text) if isinstance(e, Done)][-1]

    try:
        model = ModelService(rt)
        model.connect()
        assert model.agent is not None
        model.agent.responder.provider.capabilities.tools = Tools.NO  # type: ignore[attr-defined]
        assert asyncio.run(say(model, "what should I cook tonight?")).failure == "network"
        assert model.provider_label.endswith("(not answering)")
        done = asyncio.run(say(model, "remind me to call the bank tomorrow at 9am"))
        assert done.failure is None and "reminders" in done.changed  # set by the app, the model untouched
        assert model.provider_label.endswith("(not answering)")
    finally:
        rt.close()
