"""`assistant chat` against a model server that cannot answer (SPEC 5: nothing the user typed is ever
lost; a broken server is said in one clear line): a server that lists no model keeps the message as an
unreachable one does, and a turn says its failure once, on a line of its own."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from memory.store import Store

if TYPE_CHECKING:
    from tests.conftest import Cli
    from tests.standins import StandIn

DENTIST = "my dentist appointment is on Friday at 3pm, please keep this"


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
    assert "lists no model" in said  # why, in its words
    assert "I handled this offline" in out  # answered offline, as when the server does not answer
    code, out, _ = cli("recap")
    assert code == 0 and "dentist" in out.lower()
