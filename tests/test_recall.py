"""SPEC F5 reasoned recall: dates resolved against each memory's own timestamp, answered by the
model with provenance, or composed from the best memory when there is no model."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant.cli.program import main
from assistant.providers.local import local_model
from assistant.recall.reasoned import reasoned_recall
from memory.transfer.jsonl_import import import_records
from tests.conftest import make_runtime

if TYPE_CHECKING:
    from assistant.runtime import Runtime
    from tests.standins import StandIn

MEMORIES = [
    {"type": "memory", "kind": "event", "content": "Caroline went to the LGBTQ support group yesterday",
     "created_at": "2023-05-08T13:56:00+00:00"},
    {"type": "memory", "kind": "note", "content": "Bought new hiking boots", "created_at": "2023-06-01T10:00:00+00:00"},
]


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2023-07-01T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in MEMORIES])
    yield rt
    rt.close()


def test_without_a_model_the_best_memory_answers_with_its_resolution(runtime: Runtime) -> None:
    answer = reasoned_recall(runtime, "When did Caroline go to the support group?", model=None)
    assert answer.model == "none"
    assert answer.answer == ("From memory (you told me Mon May 8): Caroline went to the LGBTQ support group "
                             "yesterday. That was on Sun May 7.")
    [resolution] = answer.temporal_resolutions
    assert (resolution.original_text, resolution.resolved_date, resolution.granularity) == ("yesterday", "2023-05-07",
                                                                                            "day")
    assert resolution.memory_timestamp == "2023-05-08T13:56:00+00:00"
    assert (resolution.source_type, resolution.source_id, resolution.memory_id) == ("memory", 1, 1)
    assert answer.sources[0]["content"].startswith("Caroline")


def test_granularity_is_never_a_made_up_day(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-22T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in [
        {"type": "memory", "content": "Sara moved to Lisbon last month", "created_at": "2026-11-12T09:00:00+00:00"},
        {"type": "memory", "content": "We started the garden project last week", "created_at": "2026-11-12T09:00:00+00:00"},
        {"type": "memory", "content": "I quit smoking a year ago", "created_at": "2023-03-01T09:00:00+00:00"}]])
    assert reasoned_recall(rt, "when did Sara move to Lisbon?").answer.endswith("That was in October 2026.")
    assert reasoned_recall(rt, "when did we start the garden project?").answer.endswith(
        "That was in the week of Nov 2.")
    answer = reasoned_recall(rt, "when did I quit smoking?")
    assert answer.answer.endswith("That was in 2022.")
    assert [(r.resolved_date, r.granularity) for r in answer.temporal_resolutions] == [("2022", "year")]
    rt.close()


def test_sources_are_named_by_type_and_the_question_is_never_its_answer(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-22T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in [
        {"type": "episode", "id": "e", "started_at": "2026-11-20T10:00:00Z"},
        {"type": "message", "episode_id": "e", "role": "user", "content": "when is my sister's birthday?",
         "created_at": "2026-11-20T10:00:00Z"},
        {"type": "message", "episode_id": "e", "role": "user", "content": "My sister's birthday was yesterday!",
         "created_at": "2026-11-21T10:00:00Z"},
        {"type": "memory", "content": "my sister's birthday is March 3", "created_at": "2026-11-21T11:00:00Z"}]])
    answer = reasoned_recall(rt, "when is my sister's birthday")
    assert answer.answer == "From memory (you told me Sat Nov 21): my sister's birthday is March 3."
    assert all("?" not in s["content"] for s in answer.sources)
    [resolution] = answer.temporal_resolutions
    assert (resolution.source_type, resolution.source_id, resolution.memory_id) == ("message", 2, None)
    assert answer.to_json()["source_ids"] == [1] and sorted(answer.to_json()["source_refs"]) == ["memory:1", "message:2"]
    rt.close()


def test_reasoned_recall_keeps_every_source_it_ranks(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path)
    import_records(rt.store, [json.dumps({"type": "memory", "content": f"hiking trip number {i} was great"})
                              for i in range(12)])
    assert len(reasoned_recall(rt, "when was the hiking trip?", limit=10).sources) == 10
    rt.close()


def test_the_local_model_answers_with_provenance(ollama_standin: StandIn, tmp_path: Path) -> None:
    """SPEC F6: the local model (Ollama's here, the endpoint's in test_openai) writes the answer."""
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2023-07-01T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in MEMORIES])
    ollama_standin.script = [{"json": {"answer": "On 7 May 2023.", "confidence": 0.9,
                                       "reasoning": "yesterday relative to 8 May", "source_refs": ["memory:1"]}}]
    answer = reasoned_recall(rt, "When did Caroline go to the support group?", model=local_model(rt))
    assert (answer.answer, answer.confidence, answer.model) == ("On 7 May 2023.", 0.9, "llama3.2:3b")
    assert [s["id"] for s in answer.sources] == [1]
    sent = json.loads(ollama_standin.bodies("/api/chat")[0]["messages"][1]["content"])
    assert sent["question"].startswith("When did Caroline") and "2023-05-07" in json.dumps(sent["resolved_dates"])
    rt.close()


def test_model_garbage_falls_back_to_composed_answer(ollama_standin: StandIn, tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2023-07-01T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in MEMORIES])
    ollama_standin.script = ["I think it was sometime in May?"]
    answer = reasoned_recall(rt, "When did Caroline go to the support group?", model=local_model(rt, retries=0))
    rt.close()
    assert answer.model == "none" and answer.answer.endswith("That was on Sun May 7.")


def test_cli_recall_json_is_one_shape_and_reasoning_is_opt_in(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "r.db")
    src = tmp_path / "m.jsonl"
    src.write_text("".join(json.dumps(m) + "\n" for m in MEMORIES))
    assert main(["import", str(src), "--db", db]) == 0
    capsys.readouterr()
    query = ["recall", "when", "did", "Caroline", "go", "to", "the", "support", "group", "--json",
             "--db", db, "--now", "2023-07-01T12:00:00Z"]
    assert main(query) == 0
    hits = json.loads(capsys.readouterr().out)  # one shape: a list of hits, whatever the question
    assert isinstance(hits, list) and hits[0]["type"] == "memory" and hits[0]["content"].startswith("Caroline")
    assert main([*query, "--reason"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"answer", "confidence", "reasoning", "temporal_resolutions", "source_ids"} <= set(data)
    assert data["temporal_resolutions"][0]["resolved_date"] == "2023-05-07"


def test_the_composed_answer_is_never_the_assistants_own_words(tmp_path: Path) -> None:
    """recall --reason once answered with the offline help text, which quotes "when did Sara move?"."""
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-22T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in [
        {"type": "episode", "id": "e", "started_at": "2026-11-20T10:00:00Z"},
        {"type": "message", "episode_id": "e", "role": "assistant", "created_at": "2026-11-20T10:00:00Z",
         "content": 'Offline I understand questions such as "when did Sara move?" tomorrow.'},
        {"type": "memory", "content": "Sara moved to Lisbon last month", "created_at": "2026-11-12T09:00:00+00:00"}]])
    answer = reasoned_recall(rt, "when did Sara move")
    assert answer.answer == "From memory (you told me Thu Nov 12): Sara moved to Lisbon last month. That was in " \
                            "October 2026."
    rt.close()


def test_a_statement_stored_without_dates_is_resolved_by_its_tense_at_recall(tmp_path: Path) -> None:
    """Rows written before dates were kept beside the text are resolved at recall the same way."""
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-30T12:00:00+00:00")
    import_records(rt.store, [json.dumps(m) for m in [
        {"type": "memory", "content": "I have the offsite with Priya on Thursday",
         "created_at": "2026-11-23T09:00:00Z"},
        {"type": "memory", "content": "We had sushi with Marco on Friday", "created_at": "2026-11-23T09:00:00Z"}]])
    rt.store.execute("UPDATE knowledge SET time_refs = NULL")
    offsite = reasoned_recall(rt, "when is the offsite with Priya?")
    assert [r.resolved_date for r in offsite.temporal_resolutions if r.source_id == 1] == ["2026-11-26"]
    sushi = reasoned_recall(rt, "when did we have sushi with Marco?")
    assert [r.resolved_date for r in sushi.temporal_resolutions if r.source_id == 2] == ["2026-11-20"]
    assert sushi.answer.endswith("That was on Fri Nov 20.")
    rt.close()


def test_a_date_still_ahead_is_told_in_the_present(tmp_path: Path) -> None:
    """A newcomer asked on Tuesday when the dentist is: "That was on Fri Nov 27." for this Friday."""
    from memory.memories import remember

    rt = make_runtime(tmp_path, ASSISTANT_NOW="2026-11-24T12:00:00+00:00")
    remember(rt.store, "the dentist is on Friday at 3pm")
    answer = reasoned_recall(rt, "when is the dentist?", model=None).answer
    assert answer.endswith("That is on Fri Nov 27."), answer
    rt.close()
