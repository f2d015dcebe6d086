"""Issue 43: no model call ends without an answer or a line saying why. A server refuses a prompt over
its context window (here the stand-in, as llama-cpp-python at its default 2,048 tokens: a 400 naming the
window when not streamed, an empty stream when streamed): every kind of call is retried once, built again
to fit the window the refusal named, and a request that cannot fit even then is said in one line (the
chat's, the title's, consolidation's, the recall's), with the quick or local answer in its place. The
chat's own cases are in tests/test_model_path.py."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.outbound.send import GatedConsolidationModel
from assistant.providers.local import OpenAILocalModel, local_model
from assistant.runtime import Runtime
from memory import episodes
from memory.errors import RequestTooLong
from memory.memories import remember
from tests.conftest import make_runtime
from tests.standins import StandIn

if TYPE_CHECKING:
    from memory.search.embeddings import LocalEmbedder
    from tests.known_texts import KnownTexts

WINDOW = 2048
LONG = "这次滑雪旅行的预算和住宿安排需要再确认一下" * 30  # 600 characters: a token each, or more


def chats(server: StandIn) -> list[dict[str, Any]]:
    return server.bodies("/v1/chat/completions")


def refusals(server: StandIn) -> int:
    """Requests the window refused (it counts json.dumps characters, 4 a token)."""
    return sum(len(json.dumps(b.get("messages", []))) // 4 >= WINDOW for b in chats(server))


@pytest.fixture
def standin(openai_standin: StandIn) -> StandIn:
    openai_standin.window = WINDOW
    openai_standin.any_name = True
    return openai_standin


def runtime_for(tmp_path: Path, server: StandIn) -> Runtime:
    return make_runtime(tmp_path, ASSISTANT_LOCAL_PROVIDER="openai", OPENAI_BASE_URL=server.base,
                        ASSISTANT_LOCAL_MODEL="stand-in")


def model_for(server: StandIn) -> OpenAILocalModel:
    return OpenAILocalModel(server.base, "stand-in", timeout=5, backoff=0.01)


def test_a_title_request_refused_for_length_is_retried_smaller(tmp_path: Path, standin: StandIn) -> None:
    from assistant.turn.titles import title_and_summary

    rt = runtime_for(tmp_path, standin)
    episode = episodes.open_episode(rt.store)
    for n in range(12):
        episodes.add_message(rt.store, episode.id, "user" if n % 2 == 0 else "assistant", LONG)
    standin.script = [{"json": {"title": "Ski trip budget", "summary": "The budget and where to stay."}}]
    messages = episodes.episode_messages(rt.store, episode.id)
    assert title_and_summary(rt, messages) == ("Ski trip budget", "The budget and where to stay.")
    assert refusals(standin) == 1 and len(chats(standin)) == 2  # refused once, then answered, smaller
    assert chats(standin)[-1]["max_tokens"] <= WINDOW // 4  # room for the answer within the window
    rt.close()


def test_a_title_that_cannot_fit_is_said_and_the_quick_title_stays(tmp_path: Path, standin: StandIn,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    from assistant.turn.titles import title_and_summary

    standin.window = 60  # not even the instructions fit
    rt = runtime_for(tmp_path, standin)
    episode = episodes.open_episode(rt.store)
    episodes.add_message(rt.store, episode.id, "user", "let's plan the ski trip budget")
    episodes.add_message(rt.store, episode.id, "assistant", LONG)
    messages = episodes.episode_messages(rt.store, episode.id)
    with caplog.at_level("WARNING"):
        assert title_and_summary(rt, messages) == episodes.heuristic_title_and_summary(messages)
    said = [r.getMessage() for r in caplog.records if "no title" in r.getMessage()]
    assert len(said) == 1 and "context window (60 tokens)" in said[0] and "\n" not in said[0]
    assert len(chats(standin)) <= 2  # once, then once smaller at most: never a loop
    rt.close()


def test_a_summary_request_refused_for_length_is_retried_smaller(tmp_path: Path, standin: StandIn) -> None:
    rt = runtime_for(tmp_path, standin)
    standin.script = [{"json": {"summary": "Ski trip plans.", "key_facts": [], "decisions": [],
                                "superseded_facts": []}}]
    data = GatedConsolidationModel(rt.store, model_for(standin)).summarize([LONG] * 6)
    assert data["summary"] == "Ski trip plans." and refusals(standin) == 1 and len(chats(standin)) == 2
    rt.close()


def test_a_judgement_refused_for_length_is_retried_smaller(tmp_path: Path, standin: StandIn) -> None:
    rt = runtime_for(tmp_path, standin)
    standin.script = [{"json": {"supersedes": True, "confidence": 0.9, "reason": "restated"}}]
    verdict = GatedConsolidationModel(rt.store, model_for(standin)).judge(LONG * 3, LONG * 3)
    assert verdict["supersedes"] is True and refusals(standin) == 1 and len(chats(standin)) == 2
    rt.close()


def test_a_consolidation_whose_requests_cannot_fit_says_so_once_and_goes_on(tmp_path: Path, standin: StandIn,
                                                                            embedder: LocalEmbedder) -> None:
    """A cluster too long for the window is skipped with a line in the run's messages; the run goes on (a
    later cluster may fit) instead of stopping as for a server that is down."""
    from memory.consolidation.pipeline import Consolidator
    from memory.store import Store
    from memory.transfer.jsonl_import import import_records
    from tests.conftest import T0, make_clock
    from tests.test_consolidation import fixture_records

    standin.window = 60
    store = Store(tmp_path / "c.db", make_clock(T0))
    import_records(store, [json.dumps(r) for r in fixture_records()])
    result = Consolidator(store, embedder, GatedConsolidationModel(store, model_for(standin))).run(full=True)
    skipped = [m for m in result.messages if "context window" in m]
    assert len(skipped) <= 2 and all("\n" not in m for m in skipped) and skipped  # one line a kind of request
    assert sum("cluster" in e for e in result.errors) >= 2  # every cluster was tried, not only the first
    assert result.summaries_created == 0
    store.close()


def test_a_reasoned_recall_refused_for_length_is_retried_with_fewer_statements(tmp_path: Path, standin: StandIn,
                                                                               known_texts: KnownTexts) -> None:
    from assistant.recall.reasoned import reasoned_recall

    rt = runtime_for(tmp_path, standin)
    parts = [f"the ski trip budget, part {n}: {LONG}" for n in range(8)]
    known_texts.learn_statements(parts)  # the bundled model's vectors of them, made ahead
    for part in parts:
        remember(rt.store, part, kind="fact", embedder=known_texts)
    standin.script = [json.dumps({"answer": "1500 euros.", "confidence": 0.8, "reasoning": "said so",
                                  "source_refs": ["memory:1"]})]
    answer = reasoned_recall(rt, "what is the ski trip budget?", model=local_model(rt))
    assert answer.answer == "1500 euros." and refusals(standin) == 1 and len(chats(standin)) == 2
    rt.close()


def test_a_reasoned_recall_that_cannot_fit_says_so_and_is_composed_locally(tmp_path: Path,
                                                                           standin: StandIn) -> None:
    from assistant.recall.reasoned import reasoned_recall

    standin.window = 60
    rt = runtime_for(tmp_path, standin)
    remember(rt.store, "the ski trip budget is 1500 euros", kind="fact")
    answer = reasoned_recall(rt, "what is the ski trip budget?", model=local_model(rt))
    assert "1500 euros" in answer.answer and answer.model == "none"
    assert "could not take them" in answer.reasoning and "context window (60 tokens)" in answer.reasoning
    rt.close()


def test_a_reasoned_recall_the_model_answers_unusably_says_so_and_is_composed_locally(tmp_path: Path,
                                                                                     standin: StandIn) -> None:
    """The real SmolLM2 gave no valid JSON to reasoned recall: the answer was composed without it, and said
    only "composed without a model", as if none had been asked."""
    from assistant.recall.reasoned import reasoned_recall

    rt = runtime_for(tmp_path, standin)
    remember(rt.store, "the ski trip budget is 1500 euros", kind="fact")
    standin.script = ["The budget is big.", "Still not JSON, sorry."]
    answer = reasoned_recall(rt, "what is the ski trip budget?", model=local_model(rt))
    assert "1500 euros" in answer.answer and answer.model == "none"
    assert "the local model gave no usable answer" in answer.reasoning
    rt.close()


def test_the_cli_recall_says_why_the_model_did_not_answer(tmp_path: Path, standin: StandIn,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli.program import main

    standin.window = 60
    db = str(tmp_path / "m.db")
    env = {"ASSISTANT_LOCAL_PROVIDER": "openai", "OPENAI_BASE_URL": standin.base, "ASSISTANT_LOCAL_MODEL": "stand-in"}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        assert main(["remember", "the ski trip budget is 1500 euros", "--db", db]) == 0
        assert main(["recall", "what is the ski trip budget?", "--reason", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "1500 euros" in out and "could not take them" in out


def test_ask_local_tries_once_more_only(standin: StandIn) -> None:
    from assistant.outbound import requests
    from assistant.outbound.gate import LOCAL_GATE
    from assistant.outbound.send import ask_local

    standin.window = 60  # no room for any text: said without a second try
    with pytest.raises(RequestTooLong, match=r"context window \(60 tokens\) even cut to fit"):
        ask_local(model_for(standin), requests.judge(LOCAL_GATE, LONG, LONG))
    assert len(chats(standin)) == 1
