"""SPEC F12 and F9: `assistant chat --incognito MESSAGE` is one turn that reads memory and writes nothing,
not even the close of the conversation in progress; and the input history of an incognito conversation
stays in the process."""
from __future__ import annotations

import json
import re
from pathlib import Path

from assistant.input_history import InputHistory
from memory import memories
from memory.store import Store
from tests.conftest import Cli, make_clock
from tests.test_why_and_incognito import tables


def test_an_incognito_chat_answers_from_memory_and_writes_nothing(cli: Cli) -> None:
    assert cli("remember", "the ski trip budget is 1500 euros", "--kind", "fact")[0] == 0
    assert cli("chat", "hello there")[0] == 0  # a conversation in progress, left as it is
    with Store(cli.db, make_clock("2026-11-22T14:00:00+00:00")) as store:
        before = tables(store)
    code, out, err = cli("chat", "what is the ski trip budget?", "--incognito")
    assert code == 0 and "1500 euros" in out and "nothing of this turn was kept" in err
    code, out, _ = cli("chat", "remember that the zanzibar code is blue", "--incognito")
    assert code == 0 and "incognito conversation" in out
    events = json.loads(cli("chat", "remind me to call Bob tomorrow at 9", "--incognito", "--json")[1])
    assert events[-1]["type"] == "done" and events[-1]["message_id"] == 0
    with Store(cli.db, make_clock("2026-11-22T14:00:00+00:00")) as store:
        assert tables(store) == before
        assert store.one("SELECT count(*) FROM episodes WHERE active = 1")[0] == 1
        assert [m.content for m in memories.matching(store, ["zanzibar", "bob"])] == []


def test_incognito_with_new_is_refused(cli: Cli) -> None:
    code, out, err = cli("chat", "hi", "--incognito", "--new")
    assert code == 2 and out == "" and "--incognito writes nothing" in err


def test_the_input_history_keeps_nothing_of_an_incognito_conversation(tmp_path: Path) -> None:
    path = tmp_path / "history"
    history = InputHistory(path)
    history.append("before")
    written = path.read_bytes()
    history.hold()
    history.append("said in incognito")
    assert history.entries == ["before", "said in incognito"]  # up/down still walk through it meanwhile
    for n in range(600):  # past the limit: the file is never rewritten with it
        history.append(f"more {n}")
    history.drop_quoting("nothing quoted")
    assert path.read_bytes() == written
    history.release()
    assert history.entries == ["before"] and InputHistory(path).load() == ["before"]
    history.append("after")
    assert InputHistory(path).load() == ["before", "after"]


def test_an_incognito_refusal_is_one_sentence_that_names_no_key_of_the_app(cli: Cli) -> None:
    """Issue 46: `chat --incognito "remember that ..."` answered "That didn't work: This is an incognito
    conversation: nothing is stored, ...; start a new conversation (ctrl+n) to leave it.": the app's key,
    in a terminal that has no app, and two sentences run into one."""
    assert cli("remember", "the ski trip budget is 1500 euros")[0] == 0
    code, out, err = cli("chat", "remember that the locker code is blue", "--incognito")
    answer = out.strip()
    assert code == 0 and "incognito conversation" in answer
    assert "ctrl+" not in answer.lower() and "ctrl+" not in err.lower()
    assert answer.count(". ") == 0 and answer.endswith(".")  # one sentence
    assert not re.search(r": [A-Z]", answer), answer  # no sentence run on after a colon
