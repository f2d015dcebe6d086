"""Benchmarks (not tests): import throughput, hybrid search and prompt assembly latency at N memories.

    python benchmarks/bench_memory.py --n 10000
Query embedding is timed separately from search and prompt assembly.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.prompt import build_prompt  # noqa: E402
from assistant.runtime import Runtime  # noqa: E402
from assistant.settings import load_settings  # noqa: E402
from memory.embeddings import sync_embeddings  # noqa: E402
from memory.records import import_records  # noqa: E402

WORDS = ("garden tomato guitar marathon sourdough kubernetes rent dentist passport lisbon berlin budget ski "
         "coffee tea meeting report invoice train flight cousin birthday violin school doctor car tyres").split()


def p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95) - 1] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    rt = Runtime(load_settings(env={"ASSISTANT_DB": str(tmp / "b.db"), "ASSISTANT_NOW": "2026-11-22T14:00:00Z",
                                    "ASSISTANT_TIMEZONE": "UTC"}))
    rng = random.Random(7)
    lines = [json.dumps({"type": "memory", "kind": rng.choice(["fact", "note", "event", "preference"]),
                         "content": " ".join(rng.choices(WORDS, k=8)), "importance": rng.randint(1, 5),
                         "created_at": f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T10:00:00Z"})
             for _ in range(args.n)]
    t = time.perf_counter()
    import_records(rt.store, lines)
    import_s = time.perf_counter() - t
    t = time.perf_counter()
    sync_embeddings(rt.store, rt.embedder)
    embed_s = time.perf_counter() - t
    queries = [" ".join(rng.choices(WORDS, k=4)) for _ in range(args.queries)]
    embed_t, search_t, prompt_t = [], [], []
    for q in queries:
        t = time.perf_counter()
        vector = rt.embedder.embed([q])[0]
        embed_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        rt.searcher.search(q, vector=vector, touch=False)
        search_t.append(time.perf_counter() - t)
    original = rt.searcher.embed_query
    for q, vector in zip(queries, (rt.embedder.embed([q])[0] for q in queries), strict=True):
        rt.searcher.embed_query = lambda _text, v=vector: v  # exclude query embedding from assembly time
        t = time.perf_counter()
        build_prompt(rt, q)
        prompt_t.append(time.perf_counter() - t)
    rt.searcher.embed_query = original
    print(json.dumps({"memories": args.n, "import_items_per_s": round(args.n / import_s),
                      "embed_backlog_items_per_s": round(args.n / embed_s),
                      "query_embedding_p95_ms": round(p95(embed_t), 1), "search_p95_ms": round(p95(search_t), 1),
                      "prompt_assembly_p95_ms": round(p95(prompt_t), 1)}, indent=1))


if __name__ == "__main__":
    main()
