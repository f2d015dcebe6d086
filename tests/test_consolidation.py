"""SPEC F6 against a loopback Ollama stand-in: retention, tiers, clusters, supersession, idempotency,
failures, crash safety; and the calibration of the clustering threshold for the bundled MiniLM."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.providers.local import LocalModel
from memory.consolidation.options import Options
from memory.consolidation.pipeline import Consolidator, tier_counts
from memory.consolidation.retention import retention, tier_for
from memory.edges import edges_of
from memory.search import Searcher
from memory.time.instants import UTC
from memory.transfer.jsonl_import import import_records
from tests.conftest import T0

if TYPE_CHECKING:
    from assistant.outbound.send import GatedConsolidationModel
    from memory.search.embeddings import LocalEmbedder
    from memory.store import Store
    from tests.standins import StandIn

TOPICS = {
    "sourdough": ["I fed my sourdough starter twice today", "My sourdough loaf came out dense again",
                  "Bought rye flour for my sourdough starter", "The sourdough bread needs a longer bulk ferment"],
    "marathon": ["Ran 18 km today as marathon training", "My marathon training plan has a long run every Sunday",
                 "Shin splints after marathon training this week", "Did marathon pace intervals on the track"],
    "kubernetes": ["We are migrating the billing service to Kubernetes at work",
                   "The Kubernetes migration at work is blocked on the ingress setup",
                   "Wrote Helm charts for the Kubernetes migration at work",
                   "Planning the Kubernetes cutover for the billing service at work"],
}
UNRELATED = ["Buy milk", "My cousin's birthday is in June", "The car needs new winter tyres",
             "I prefer aisle seats on planes"]


def fixture_records() -> list[dict[str, str]]:
    out, day = [], 1
    for notes in TOPICS.values():
        for note in notes:
            out.append({"type": "memory", "kind": "event", "content": note,
                        "created_at": f"2026-11-{day:02d}T10:00:00Z"})
            day += 1
    out += [{"type": "memory", "kind": "note", "content": n, "created_at": "2026-11-15T10:00:00Z"} for n in UNRELATED]
    out += [{"type": "memory", "kind": "fact", "content": "I live in Berlin", "created_at": "2026-01-10T10:00:00Z"},
            {"type": "memory", "kind": "fact", "content": "I moved to Lisbon last month and live there now",
             "created_at": "2026-10-15T10:00:00Z"}]
    return out


@pytest.fixture
def filled(store: Store) -> Store:
    import_records(store, [json.dumps(r) for r in fixture_records()])
    return store


def answer_for(body: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(body).lower()
    if "supersedes" in json.dumps(body.get("format", {})):
        moved = "lisbon" in text and "berlin" in text
        return {"json": {"supersedes": moved, "confidence": "high" if moved else "low", "reason": "moved"}}
    topic = next((t for t in TOPICS if t in text), "misc")
    return {"json": {"summary": f"Notes about {topic}.", "key_facts": [topic], "superseded_facts": [],
                     "decisions": [{"decision": "go on", "rationale": "", "outcome": None, "confidence": "high"}]}}


@pytest.fixture
def smart_ollama(ollama_standin: StandIn) -> StandIn:
    original = ollama_standin.next_response

    def respond() -> Any:
        body = ollama_standin.requests[-1]["body"]
        scripted_reply = original()
        return scripted_reply if scripted_reply is not None else answer_for(body)

    ollama_standin.next_response = respond
    return ollama_standin


def gated(store: Store, local: LocalModel) -> GatedConsolidationModel:
    """The local model as the app hands it to consolidation: behind the outbound gate."""
    from assistant.outbound.send import GatedConsolidationModel

    return GatedConsolidationModel(store, local)


def model(url: str, timeout: float = 5, **kw: int) -> LocalModel:
    return LocalModel(url, "stand-in:latest", timeout=timeout, backoff=0.01, **kw)


@pytest.mark.slow
def test_full_run_clusters_summarises_supersedes_and_deletes_nothing(filled: Store, embedder: LocalEmbedder,
                                                                     smart_ollama: StandIn) -> None:
    before = filled.one("SELECT count(*) FROM knowledge")[0]
    result = Consolidator(filled, embedder, gated(filled, model(smart_ollama.url)), Options()).run(full=True)
    assert result.errors == [] and result.clusters_found == 3 and result.summaries_created == 3
    summaries = [json.loads(r["source_ids"]) for r in filled.query("SELECT source_ids FROM summaries")]
    contents = {r["id"]: r["content"] for r in filled.query("SELECT id, content FROM knowledge")}
    for ids in summaries:  # every cluster is one topic, and no unrelated note joined one
        topics = {t for t, notes in TOPICS.items() for i in ids if contents[i] in notes}
        assert len(topics) == 1 and not any(contents[i] in UNRELATED for i in ids)
    assert result.supersessions_detected == 1
    berlin = filled.one("SELECT id FROM knowledge WHERE content = 'I live in Berlin'")[0]
    assert any(e["edge_type"] == "supersedes" and e["target_id"] == berlin for e in edges_of(filled, berlin))
    assert filled.one("SELECT tier FROM memory_meta WHERE memory_id = ?", (berlin,))[0] == "archived"
    assert filled.one("SELECT count(*) FROM knowledge")[0] == before
    assert any(t["memory_id"] == berlin and t["to_tier"] == "archived" for t in result.tier_transitions)
    searcher = Searcher(filled, embedder)
    assert all(h.id != berlin for h in searcher.search("where do I live", types=("memory",)))
    exhaustive = searcher.search("where do I live", mode="exhaustive", types=("memory",), touch=True)
    assert any(h.id == berlin for h in exhaustive)

    again = Consolidator(filled, embedder, gated(filled, model(smart_ollama.url)), Options()).run(full=True)
    assert again.summaries_created == 0 and again.supersessions_detected == 0
    assert filled.one("SELECT count(*) FROM summaries")[0] == 3
    assert filled.one("SELECT count(*) FROM edges")[0] == 12 + 1
    # The exhaustive search touched Berlin (last_accessed = now), which raises its score to cold; superseded,
    # it stays archived all the same (issue 20: a superseded fact is archived, not cold).
    assert filled.one("SELECT tier FROM memory_meta WHERE memory_id = ?", (berlin,))[0] == "archived"
    assert filled.one("SELECT retention FROM memory_meta WHERE memory_id = ?", (berlin,))[0] >= 0.1


def test_ollama_down_still_scores_and_tiers(filled: Store, embedder: LocalEmbedder) -> None:
    result = Consolidator(filled, embedder, gated(filled, model("http://127.0.0.1:9"))).run(full=True)
    assert any("Ollama is not reachable at http://127.0.0.1:9" in m for m in result.messages)
    assert result.summaries_created == 0 and result.completed_at
    assert filled.one("SELECT count(*) FROM memory_meta WHERE retention IS NULL")[0] == 0
    assert tier_counts(filled)["warm"] >= 1  # the 10-month-old fact is no longer hot


def test_missing_model_named(filled: Store, embedder: LocalEmbedder, ollama_standin: StandIn) -> None:
    """Not listed is a warning (the name is sent as configured); Ollama's 404 then names what to pull."""
    ollama_standin.script = [404] * 20
    m = LocalModel(ollama_standin.url, "llama-nope:1b", timeout=5)
    result = Consolidator(filled, embedder, gated(filled, m)).run(full=True)
    assert any("no model 'llama-nope:1b' (404); it offers: stand-in:latest; run: ollama pull llama-nope:1b" in x
               for x in result.messages + result.errors)


def test_malformed_json_retried_once_then_skipped(filled: Store, embedder: LocalEmbedder,
                                                  smart_ollama: StandIn) -> None:
    smart_ollama.script = ["not json", "still not json", None]  # first cluster fails twice, then the rest work
    result = Consolidator(filled, embedder, gated(filled, model(smart_ollama.url))).run(full=True)
    assert result.summaries_created == 2 and any("valid JSON" in e for e in result.errors)
    rerun = Consolidator(filled, embedder, gated(filled, model(smart_ollama.url))).run(full=True)
    assert rerun.summaries_created == 1  # the skipped cluster is done next time, the others not redone


@pytest.mark.slow
def test_breaker_and_timeouts(filled: Store, embedder: LocalEmbedder, ollama_standin: StandIn) -> None:
    ollama_standin.script = [("sleep", 2, "late")]
    m = model(ollama_standin.url, timeout=0.5, retries=1, breaker_threshold=2)
    started = time.monotonic()
    result = Consolidator(filled, embedder, gated(filled, m)).run(full=True)
    assert result.summaries_created == 0 and result.errors and time.monotonic() - started < 15


def test_sensitive_memories_never_reach_the_consolidation_model(store: Store, embedder: LocalEmbedder,
                                                                smart_ollama: StandIn) -> None:
    notes = [f"Sourdough note {i}: my api key is sk-ant-abcdefghijklmnop{i}qrstuv" for i in range(3)]
    public = ["Sourdough note: the starter is fed at 8", "Sourdough note: the starter likes rye flour",
              "Sourdough note: the starter lives in the fridge"]
    import_records(store, [json.dumps({"type": "memory", "kind": "note", "content": n}) for n in notes + public])
    assert [r[0] for r in store.query("SELECT sensitive FROM knowledge ORDER BY id")] == [1, 1, 1, 0, 0, 0]
    local = gated(store, model(smart_ollama.url))
    Consolidator(store, embedder, local, Options(similarity_threshold=0.3)).run(full=True)
    sent = json.dumps(smart_ollama.bodies("/api/chat"))
    assert "starter" in sent and "sk-ant-abcdefghijklmnop" not in sent and "api key" not in sent


def test_dry_run_writes_nothing(filled: Store, embedder: LocalEmbedder, smart_ollama: StandIn) -> None:
    result = Consolidator(filled, embedder, gated(filled, model(smart_ollama.url))).run(full=True, dry_run=True)
    assert result.summaries_created == 3 and result.tier_transitions
    assert filled.one("SELECT count(*) FROM summaries")[0] == 0
    assert filled.one("SELECT count(*) FROM consolidation_runs")[0] == 0
    counts = tier_counts(filled)
    assert set(counts) == {"hot", "warm", "cold", "archived"} and counts["hot"] == len(fixture_records())


def _phase(db: Path) -> str | None:
    """The phase the running consolidation has checkpointed, read as another process would."""
    import sqlean

    try:
        conn = sqlean.connect(f"file:{db}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT phase FROM consolidation_runs WHERE status = 'running'").fetchone()
            return row[0] if row else None
        finally:
            conn.close()
    except sqlean.Error:
        return None


@pytest.mark.slow
def test_killed_mid_run_then_resumed(tmp_path: Path, smart_ollama: StandIn) -> None:
    db = tmp_path / "k.db"
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in fixture_records()))
    env = {**os.environ, "OLLAMA_HOST": smart_ollama.url, "ASSISTANT_OLLAMA_MODEL": "stand-in:latest"}
    base = [sys.executable, "-m", "ui.entry"]
    subprocess.run([*base, "import", str(src), "--db", str(db), "--now", T0.isoformat()], env=env, check=True)
    smart_ollama.script = [("sleep", 1.5, None)]  # slow model: the kill lands mid-SUMMARIZE
    proc = subprocess.Popen([*base, "consolidate", "--full", "--db", str(db), "--now", T0.isoformat()], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Kill once the run has checkpointed SUMMARIZE and a summary request is in flight (the stand-in
    # holds each one 1.5 s): polled, not slept.
    deadline = time.time() + 60
    while time.time() < deadline and not (_phase(db) == "SUMMARIZE" and
                                          any(r["path"] == "/api/chat" for r in smart_ollama.requests)):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    smart_ollama.script = []
    out = subprocess.run([*base, "consolidate", "--full", "--json", "--db", str(db), "--now", T0.isoformat()],
                         env=env, capture_output=True, text=True, check=True)
    check = subprocess.run([sys.executable, "-c", f"import sqlean; c = sqlean.connect({str(db)!r}); "
                            "print(c.execute('PRAGMA integrity_check').fetchone()[0], "
                            "c.execute('select count(*) from knowledge').fetchone()[0], "
                            "c.execute('select count(*) from summaries').fetchone()[0], "
                            "c.execute('select count(distinct source_key) from summaries').fetchone()[0], "
                            "c.execute(\"select count(*) from consolidation_runs where status='failed'\")"
                            ".fetchone()[0])"],
                           capture_output=True, text=True)
    ok, memories, summaries, distinct, failed = check.stdout.split()
    assert (ok, int(memories), int(summaries), int(distinct)) == ("ok", len(fixture_records()), 3, 3)
    assert int(failed) == 1 and json.loads(out.stdout)["errors"] == []


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["decision", "fact", "preference", "person", "event", "note", "mood", "x"]),
       age=st.floats(0, 5000), since_access=st.one_of(st.none(), st.floats(0, 5000)),
       count=st.integers(0, 10_000), superseded=st.booleans())
def test_retention_bounds_and_tiers(kind: str, age: float, since_access: float | None, count: int,
                                    superseded: bool) -> None:
    now = datetime(2026, 11, 22, tzinfo=UTC)
    accessed = None if since_access is None else now - timedelta(days=since_access)
    score = retention(kind, now - timedelta(days=age), accessed, count, superseded, now)
    assert all(0.0 <= v <= 1.0 for v in score.values())
    plain = retention(kind, now - timedelta(days=age), accessed, count, False, now)["overall"]
    assert score["overall"] == pytest.approx(plain * (0.2 if superseded else 1))
    tier = tier_for(score["overall"])
    assert tier == ("hot" if score["overall"] >= 0.6 else "warm" if score["overall"] >= 0.3
                    else "cold" if score["overall"] >= 0.1 else "archived")


def test_retention_formula_example() -> None:
    now = datetime(2026, 11, 22, tzinfo=UTC)
    s = retention("fact", now - timedelta(days=30), None, 20, False, now)
    assert s["recency"] == pytest.approx(0.5) and s["activation"] == pytest.approx(1.0)
    assert s["overall"] == pytest.approx(0.4 * 0.5 + 0.2 + 0.4 * 0.9)


# -- calibration of the clustering threshold for the bundled MiniLM ---------------------------

CALIBRATION = {
    "garden": ["Planted tomatoes in the garden", "The garden tomatoes need watering every evening",
               "Slugs are eating my garden lettuce", "Built a raised bed for the vegetable garden"],
    "guitar": ["Practised guitar chords for an hour", "Bought new strings for my acoustic guitar",
               "Learning a fingerpicking pattern on guitar", "My guitar teacher says to slow down"],
    "move": ["We are moving flats at the end of the month", "Booked a van for moving day",
             "Packing boxes for the flat move", "Need to tell the bank our new address after the move"],
    "diet": ["Trying to eat less sugar this month", "Cut sugar from my morning coffee",
             "Sugar cravings are worst in the afternoon", "Swapped dessert for fruit to cut sugar"],
    "sourdough": TOPICS["sourdough"], "marathon": TOPICS["marathon"], "kubernetes": TOPICS["kubernetes"],
}
NEAR_MISSES = ["Watched a documentary about Roman gardens", "The guitar shop is closed on Mondays",
               "Moving pictures festival starts Friday", "Sugar prices went up at the shop",
               "I met a marathon runner at a party", "Read an article about bread history"]


def pair_scores(embedder: LocalEmbedder, threshold: float) -> tuple[float, float]:
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering

    texts = [t for notes in CALIBRATION.values() for t in notes] + NEAR_MISSES + UNRELATED
    truth = [k for k, notes in CALIBRATION.items() for _ in notes]
    truth += [f"u{i}" for i in range(len(NEAR_MISSES + UNRELATED))]
    labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                     distance_threshold=1 - threshold).fit_predict(np.asarray(embedder.embed(texts)))
    sizes = {label: list(labels).count(label) for label in set(labels)}
    kept = [label if 3 <= sizes[label] <= 20 else -1 - i for i, label in enumerate(labels)]
    tp = fp = fn = 0
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            same_truth, same_pred = truth[i] == truth[j], kept[i] == kept[j]
            tp += same_truth and same_pred
            fp += same_pred and not same_truth
            fn += same_truth and not same_pred
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


@pytest.mark.slow
def test_calibrated_threshold(embedder: LocalEmbedder) -> None:
    from assistant.settings import ConsolidationSettings

    threshold = ConsolidationSettings().similarity_threshold
    precision, recall = pair_scores(embedder, threshold)
    table = {t: pair_scores(embedder, t) for t in (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.85)}
    print(f"\nthreshold {threshold}: pair precision {precision:.2f}, recall {recall:.2f}")
    print("  " + ", ".join(f"{t}: P {p:.2f} R {r:.2f}" for t, (p, r) in table.items()))
    assert precision >= 0.85 and recall >= 0.55  # measured: P 0.86, R 0.57 (precision first: be conservative)
    assert table[0.85][1] < 0.2  # the design documents' 0.85 clusters almost nothing with this embedder


def test_triggers(tmp_path: Path) -> None:
    from assistant.jobs import consolidation_due
    from memory import memories
    from tests.conftest import make_runtime

    rt = make_runtime(tmp_path, ASSISTANT_CONSOLIDATION__MEMORY_THRESHOLD="3")
    assert not consolidation_due(rt, idle_minutes=60)  # nothing to consolidate
    memories.remember(rt.store, "one")
    assert consolidation_due(rt, idle_minutes=31) and not consolidation_due(rt, idle_minutes=5)
    memories.remember(rt.store, "two")
    memories.remember(rt.store, "three")
    assert consolidation_due(rt, idle_minutes=0)  # memory threshold reached
    rt.store.execute("INSERT INTO consolidation_runs (id, started_at, phase, status) "
                     "VALUES ('r', '2026-11-22T13:00:00+00:00', 'PERSIST', 'completed')")
    assert not consolidation_due(rt, idle_minutes=600)  # min interval of 24 h
    rt.close()


@pytest.mark.slow
def test_neighbour_pass_stays_small_when_every_memory_is_alike(store: Store, embedder: LocalEmbedder) -> None:
    """Issue 13: 3,000 self-similar memories took 856 MB at peak (every pair above the floor was listed)."""
    import tracemalloc

    import numpy as np

    from memory import vectors
    from memory.search.embeddings import ensure_vec_table

    base = embedder.embed([f"Note {i} about the sourdough bakery on Main Street" for i in range(30)])
    rng = np.random.default_rng(7)
    store.execute("BEGIN")
    rows = [(f"sourdough bakery note {i}", T0.isoformat()) for i in range(3000)]
    store.conn.executemany("INSERT INTO knowledge (kind, content, created_at, updated_at) VALUES ('note', ?, ?, ?)",
                           [(c, t, t) for c, t in rows])
    store.execute("DELETE FROM pending_embeddings")
    store.execute("COMMIT")
    ensure_vec_table(store, embedder)
    matrix = base[np.arange(1, 3001) % 30] + rng.normal(0, 0.01, (3000, base.shape[1])).astype(np.float32)
    with store.transaction():  # one write for all: each vectors.put() call rewrites a block of codes
        vectors.put(store, [memory_id * 4 + 1 for memory_id in range(1, 3001)],
                    matrix / np.linalg.norm(matrix, axis=1, keepdims=True))
    consolidator = Consolidator(store, embedder, None, Options())
    tracemalloc.start()
    neighbours = consolidator.neighbours(list(range(1, 3001)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert all(len(found) == Options().neighbours for found in neighbours.values())
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.0f} MB"
