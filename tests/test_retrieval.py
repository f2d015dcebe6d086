"""SPEC F5 retrieval quality: score-aware fusion, the conversational carry, reasoned recall's sources,
and a small run of the conversational benchmark (benchmarks/bench_retrieval.py)."""
from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
import pytest

from assistant.cli.program import main
from assistant.recall.reasoned import reasoned_recall
from memory.search import Fusion, Searcher, query_words
from memory.search.embeddings import LocalEmbedder, sync_embeddings
from memory.transfer.jsonl_import import import_records
from tests.conftest import make_runtime, present

if TYPE_CHECKING:
    from memory.store import Store

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
ACKS = ["haha yes", "Wow!", "omg", "lol", "That's amazing, Mel!", "Totally", "Aww", "No way!", "Right??", "So true",
        "Thanks Mel!", "hahaha", "Love that", "ikr", "Oh nice!", "Yay!", "Same here tbh", "Wait really?"]
SMALL_TALK = ["Did you see the game?", "Work was long today", "I made soup for dinner", "It is raining again"]


def _bench(name: str) -> ModuleType:
    """A module of benchmarks/ (not a package), loaded by path."""
    if name not in sys.modules:
        spec = present(importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        present(spec.loader).exec_module(module)
    return sys.modules[name]


def _chat(store: Store, episodes: list[list[str]]) -> dict[str, int]:
    """Import episodes of "Speaker: text" turns; returns each text's message id."""
    records, minute = [], 0
    for number, turns in enumerate(episodes):
        records.append({"type": "episode", "id": f"e{number}", "title": f"chat {number}", "outcome": "success",
                        "started_at": f"2023-05-{number + 1:02d}T18:00:00Z",
                        "ended_at": f"2023-05-{number + 1:02d}T19:00:00Z"})
        for turn in turns:
            minute += 1
            records.append({"type": "message", "episode_id": f"e{number}", "content": turn,
                            "role": "user" if turn.startswith("Caroline") else "assistant",
                            "created_at": f"2023-05-{number + 1:02d}T18:{minute % 60:02d}:00Z"})
    import_records(store, [json.dumps(r) for r in records])
    return {r[1]: r[0] for r in store.query("SELECT id, content FROM messages")}


def _small_talk_with(*turns: str) -> list[str]:
    """Short turns by Caroline (her name is in most documents) around a passage of substance."""
    chat = []
    for i, ack in enumerate(ACKS):
        chat += [f"Caroline: {ack}", f"Melanie: {SMALL_TALK[i % len(SMALL_TALK)]}"]
    return chat[:21] + list(turns) + chat[21:]


# -- fusion ---------------------------------------------------------------------------------------

def test_top_keyword_hit_is_not_buried_by_turns_matching_only_the_name(store: Store, embedder: LocalEmbedder) -> None:
    ids = _chat(store, [_small_talk_with("Caroline: the yellow kayak was on sale so I grabbed it")])
    kayak = ids["Caroline: the yellow kayak was on sale so I grabbed it"]
    query = "What did Caroline say about the kayak?"
    # In a long chat the vector arm ranks such a question's short turns by the same person first (the
    # name dominates a short text's embedding); a query vector near them plays that part here.
    vector = embedder.embed(["Caroline: omg haha yes"])[0]
    sync_embeddings(store, embedder)  # a search given its vector does not embed the pending texts
    hits = Searcher(store, embedder).search(query, limit=5, vector=vector, touch=False)
    assert hits[0].id == kayak and hits[0].score >= 0.5
    # The same lists under reciprocal-rank fusion (the former way): the turns that share only the
    # name sit high in both lists and bury the one real match, which is what the blend prevents.
    rrf = Searcher(store, embedder, fusion=Fusion(method="rrf", carry=0)).search(query, limit=5, vector=vector,
                                                                                touch=False)
    assert kayak not in [h.id for h in rrf[:3]]


def test_keyword_only_search_keeps_bm25_order(store: Store) -> None:
    from memory import memories

    for text in ["tax return due in April", "tax advisor phone number", "the tax office moved, tax forms online",
                 "April showers", "bought a new bike", "the advisor said April is fine"]:
        memories.remember(store, text)
    hits = Searcher(store, None).search("tax advisor April", limit=10, touch=False)
    match = " OR ".join(f'"{w}"' for w in query_words("tax advisor April"))
    expected = [r[0] // 4 for r in store.query("SELECT rowid FROM search_index WHERE search_index MATCH ? "
                                               "ORDER BY bm25(search_index), rowid", (f"content:({match})",))]
    assert [h.id for h in hits] == expected and len(hits) == 5
    assert hits[0].score == 1.0 and all(a.score >= b.score > 0 for a, b in zip(hits, hits[1:], strict=False))


def test_vector_only_search_keeps_cosine_order(store: Store, embedder: LocalEmbedder) -> None:
    from memory import memories

    texts = ["The car needs new winter tyres", "My daughter starts violin lessons", "Allergic to peanuts",
             "The quarterly tax filing is due", "Oil change every 10,000 km"]
    for text in texts:
        memories.remember(store, text)
    query = "vehicle maintenance"  # no word of it is indexed: the keyword arm is empty
    hits = Searcher(store, embedder).search(query, limit=5, touch=False)
    similarity = embedder.embed(texts) @ embedder.embed([query])[0]
    # Cosine order, and texts below the floor are no match at all (peanuts, violin).
    expected = [texts[i] for i in np.argsort(-similarity) if similarity[i] >= Fusion().min_cosine]
    assert [h.content for h in hits] == expected and expected[0] == "The car needs new winter tyres"
    assert "Allergic to peanuts" not in expected and len(expected) < len(texts)
    assert hits[0].score == 1.0 and hits[-1].score == (0.0 if len(hits) > 1 else 1.0)  # min-max over the candidates


def test_a_query_about_nothing_stored_finds_nothing(store: Store, embedder: LocalEmbedder) -> None:
    from memory import memories

    for text in ("the boiler code is 4471", "buy bread and milk", "Sara moved to Lisbon last month",
                 "what is my dentist's name?"):
        memories.remember(store, text)
    assert Searcher(store, embedder).search("xylophone", touch=False) == []
    assert [h.content for h in Searcher(store, embedder).search("where does Sara live", touch=False)] == [
        "Sara moved to Lisbon last month"]


# -- conversational carry -------------------------------------------------------------------------

SHOWCASE = [
    "Caroline: We had our showcase yesterday!!",
    "Melanie: What dance were you doing?",
    "Caroline: A contemporary piece called Finding Freedom, I was so nervous but nailed it",
    "Melanie: Wow! that's amazing",
    "Caroline: dance class is the best part of my week",
    "Melanie: haha yes",  # an acknowledgment: holds no answer, gets no carry
    "Melanie: Work was long today",
]
NEXT_DAY = [
    "Melanie: Morning Caro",
    "Caroline: I watched a dance competition on TV last night",  # last turn of its episode
]
LATER = [
    "Melanie: Anyway my sister finally found a new apartment downtown",  # first turn of the next one
    "Caroline: oh nice, which street is it on?",
]


def test_the_turn_after_a_keyword_hit_rises(store: Store) -> None:
    ids = _chat(store, [_small_talk_with(*SHOWCASE), NEXT_DAY, LATER])
    answer = ids[SHOWCASE[2]]
    query = "What dance did Caroline perform?"
    carry_only = Fusion(speaker_boost=0, question_penalty=0)  # the other rules of memory.search.context off
    plain = {h.id: h.score for h in Searcher(store, None, fusion=replace(carry_only, carry=0)).search(
        query, limit=60, touch=False)}
    assert plain.get(answer, 0.0) < 0.05  # shares only the name with the question, a word of ~no weight
    hits = Searcher(store, None, fusion=carry_only).search(query, limit=20, touch=False)
    order = [h.id for h in hits]
    question = ids[SHOWCASE[1]]
    assert order.index(answer) == order.index(question) + 1  # right after the turn that asked
    assert hits[order.index(answer)].score == pytest.approx(plain[question] + plain.get(answer, 0.0))
    # With every rule on, Caroline's answer (she is named) comes before Melanie's question (it only asks).
    order = [h.id for h in Searcher(store, None).search(query, limit=20, touch=False)]
    assert order.index(answer) < order.index(question)


def test_the_carry_never_crosses_conversations_nor_lifts_acknowledgments(store: Store) -> None:
    ids = _chat(store, [_small_talk_with(*SHOWCASE), NEXT_DAY, LATER])
    order = [h.id for h in Searcher(store, None).search("What dance did Caroline perform?", limit=20, touch=False)]
    assert ids[NEXT_DAY[1]] in order  # a keyword hit, the last turn of its episode...
    assert ids[LATER[0]] not in order  # ...lends nothing to the first turn of the next episode
    assert ids[SHOWCASE[4]] in order and ids["Melanie: haha yes"] not in order


def test_the_carry_lifts_the_answer_in_hybrid_search(store: Store, embedder: LocalEmbedder) -> None:
    ids = _chat(store, [_small_talk_with(*SHOWCASE[:4]), NEXT_DAY, LATER])
    answer = ids[SHOWCASE[2]]
    query = "What dance did Caroline perform?"
    before = [h.id for h in Searcher(store, embedder, fusion=Fusion(carry=0)).search(query, limit=30, touch=False)]
    after = [h.id for h in Searcher(store, embedder).search(query, limit=30, touch=False)]
    assert after.index(answer) < before.index(answer) and after.index(answer) < 3


# -- reasoned recall ------------------------------------------------------------------------------

def test_reasoned_recall_without_a_model_keeps_every_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_NOW="2023-07-01T12:00:00+00:00")
    memories = [{"type": "memory", "kind": "event", "content": f"Caroline went to the support group ({n})",
                 "created_at": f"2023-05-{n + 1:02d}T13:00:00+00:00"} for n in range(12)]
    import_records(rt.store, [json.dumps(m) for m in memories])
    answer = reasoned_recall(rt, "When did Caroline go to the support group?", limit=10)
    assert answer.model == "none" and len(answer.sources) == 10
    ranked = rt.searcher.search("When did Caroline go to the support group?", limit=10, touch=False)
    assert [s["id"] for s in answer.sources] == [h.id for h in ranked]
    rt.close()
    assert main(["recall", "when did Caroline go to the support group", "--limit", "10", "--json", "--reason",
                 "--db", str(tmp_path / "m.db"), "--now", "2023-07-01T12:00:00Z"]) == 0
    assert len(json.loads(capsys.readouterr().out)["source_ids"]) == 10


# -- the benchmark, small -------------------------------------------------------------------------

def test_conversations_are_long_dated_and_labelled() -> None:
    conversations = _bench("conversations")
    convo = conversations.generate(12, 0)
    sessions = {t.key: t.session for t in convo.turns if t.key}
    assert len(convo.turns) >= 300 and len(convo.sessions) >= 15 and len(convo.questions) >= 60
    assert {q.kind for q in convo.questions} == set(conversations.KINDS)
    assert all(k in sessions for q in convo.questions for k in q.evidence)
    assert all(len({sessions[k] for k in q.evidence}) == 2 for q in convo.questions if q.kind == "multi")
    assert convo.sessions == sorted(convo.sessions) and (convo.sessions[-1] - convo.sessions[0]).days > 90
    assert [t.created_at for t in convo.turns] == sorted(t.created_at for t in convo.turns)
    assert conversations.generate(12, 0).turns == convo.turns  # one seed, one conversation


@pytest.mark.slow
def test_hybrid_beats_plain_bm25_on_a_long_conversation(tmp_path: Path, embedder: LocalEmbedder) -> None:
    bench, conversations = _bench("bench_retrieval"), _bench("conversations")
    convo = conversations.generate(12, 0)
    rt, ids = bench.load(convo, tmp_path / "bench.db", embedder)
    try:
        results = bench.evaluate(convo, rt, ids, cli=False)
    finally:
        rt.close()
    table = bench.summarise(results)
    hybrid, bm25 = table["hybrid"]["all"]["R@10"], table["BM25"]["all"]["R@10"]
    assert hybrid >= bm25 + 0.08, (hybrid, bm25)
    assert table["hybrid"]["all"]["R@10"] >= table["FTS5"]["all"]["R@10"]
    assert table["hybrid"]["all"]["R@10"] >= table["vectors"]["all"]["R@10"]
