"""SPEC F2: `assistant chat` continues the conversation in progress within the idle gap, as the app
does; `chat --new` starts a new one; a recap line uses the key-word title (issue 23)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from memory import episodes
from memory.store import Store

if TYPE_CHECKING:
    from tests.conftest import Cli


def conversations(db: str) -> list[tuple[int, int, bool]]:
    store = Store(db, read_only=True)
    try:
        return [(c.episode.id, c.messages, c.current) for c in episodes.list_conversations(store)]
    finally:
        store.close()


@pytest.mark.slow
def test_chat_continues_the_conversation_in_progress_and_new_starts_another(cli: Cli) -> None:
    assert cli("chat", "remember that the boiler code is 4471")[0] == 0
    assert cli("chat", "what is the boiler code?", now="2026-11-22T14:10:00+00:00")[0] == 0
    assert conversations(cli.db) == [(1, 4, True)]  # one conversation, two turns
    code, out, _ = cli("chat", "remember that the gate code is 1234", "--new", now="2026-11-22T14:12:00+00:00")
    assert code == 0 and out.startswith("Okay, I'll remember that the gate code is 1234")
    assert conversations(cli.db) == [(2, 2, True), (1, 4, False)]
    code, out, _ = cli("recap", "--json", now="2026-11-22T14:13:00+00:00")
    [closed] = json.loads(out)
    assert closed["title"] == "Boiler code" and closed["outcome"] == "success"
    # Past the idle gap (30 min) the next turn opens a new conversation by itself.
    cli("chat", "remember that the bike is blue", now="2026-11-22T15:00:00+00:00")
    assert [c[0] for c in conversations(cli.db)] == [3, 2, 1]


def test_chat_new_with_nothing_in_progress_just_starts_one(cli: Cli) -> None:
    code, out, _ = cli("chat", "--new", "remind me to call mom tomorrow at 6pm")
    assert code == 0 and "call mom" in out and conversations(cli.db) == [(1, 2, True)]
