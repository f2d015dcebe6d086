"""Import throughput, hybrid search and prompt assembly latency at N memories (not a test).

    python benchmarks/bench_memory.py --n 10000      (also run with --n 100000)
Query embedding (real bundled model) is timed separately and excluded from search and assembly.
"""
from __future__ import annotations

import argparse
import json
import time

from corpus import build

from assistant.prompt import build_prompt


def p95(values: list[float]) -> float:
    return round(sorted(values)[int(len(values) * 0.95) - 1] * 1000, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    args = ap.parse_args()
    rt, queries, import_s = build(args.n)
    embed_t, search_t, prompt_t = [], [], []
    vectors = []
    for q in queries:
        t = time.perf_counter()
        vectors.append(rt.embedder.embed([q])[0])
        embed_t.append(time.perf_counter() - t)
    for q, v in zip(queries, vectors, strict=True):
        t = time.perf_counter()
        rt.searcher.search(q, vector=v, touch=False)
        search_t.append(time.perf_counter() - t)
    for q, v in zip(queries, vectors, strict=True):
        rt.searcher.embed_query = lambda _text, v=v: v  # the query vector is ready, as in a turn
        t = time.perf_counter()
        build_prompt(rt, q)
        prompt_t.append(time.perf_counter() - t)
    print(json.dumps({"memories": args.n, "import_items_per_s": round(args.n / import_s),
                      "query_embedding_p95_ms": p95(embed_t), "search_p95_ms": p95(search_t),
                      "prompt_assembly_p95_ms": p95(prompt_t)}))


if __name__ == "__main__":
    main()
