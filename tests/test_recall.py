"""SPEC F5 reasoned recall: dates resolved against each memory's own timestamp, answered by the
model with provenance, or composed from the best memory when there is no model."""
from __future__ import annotations

import json

import pytest

from assistant.cli import main
from assistant.recall import reasoned_recall
from memory.records import import_records
from tests.conftest import make_runtime
from tests.standins import text_reply

MEMORIES = [
    {"type": "memory", "kind": "event", "content": "Caroline went to the LGBTQ support group yesterday",
     "created_at": "2023-05-08T13:56:00+00:00"},
    {"type": "memory", "kind": "note", "content": "Bought new hiking boots", "created_at": "2023-06-01T10:00:00+00:00"},
]


@pytest.fixture
def runtime(tmp_path):
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2023-07-01T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in MEMORIES])
    yield rt
    rt.close()


def test_without_a_model_the_best_memory_answers_with_its_resolution(runtime):
    answer = reasoned_recall(runtime, "When did Caroline go to the support group?")
    assert answer.model == "none" and "2023-05-07" in answer.answer
    [resolution] = answer.temporal_resolutions
    assert (resolution.original_text, resolution.resolved_date) == ("yesterday", "2023-05-07")
    assert resolution.memory_timestamp == "2023-05-08T13:56:00+00:00"
    assert answer.sources[0]["content"].startswith("Caroline")


def test_model_answers_with_provenance(anthropic_standin, runtime):
    anthropic_standin.script = [text_reply(json.dumps({
        "answer": "On 7 May 2023.", "confidence": 0.9, "reasoning": "yesterday relative to 8 May", "source_ids": [1]}))]
    answer = reasoned_recall(runtime, "When did Caroline go to the support group?")
    assert (answer.answer, answer.confidence, answer.model) == ("On 7 May 2023.", 0.9, "claude-sonnet-5-5")
    assert [s["id"] for s in answer.sources] == [1]
    body = anthropic_standin.bodies("/v1/messages")[0]
    assert "2023-05-07" in json.dumps(body["system"]) and body["tools"] == []


def test_model_garbage_falls_back_to_composed_answer(anthropic_standin, runtime):
    anthropic_standin.script = [text_reply("I think it was sometime in May?")]
    answer = reasoned_recall(runtime, "When did Caroline go to the support group?")
    assert answer.model == "none" and "2023-05-07" in answer.answer


def test_cli_when_question_is_reasoned_automatically(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    src = tmp_path / "m.jsonl"
    src.write_text("".join(json.dumps(m) + "\n" for m in MEMORIES))
    assert main(["import", str(src), "--db", db]) == 0
    capsys.readouterr()
    assert main(["recall", "when", "did", "Caroline", "go", "to", "the", "support", "group", "--json",
                 "--db", db, "--now", "2023-07-01T12:00:00Z"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"answer", "confidence", "reasoning", "temporal_resolutions", "source_ids"} <= set(data)
    assert data["temporal_resolutions"][0]["resolved_date"] == "2023-05-07"
