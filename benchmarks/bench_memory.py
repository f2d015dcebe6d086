"""Import throughput, hybrid search and prompt assembly latency at N memories (not a test).

    python benchmarks/bench_memory.py --n 10000      (also run with --n 100000)
    python benchmarks/bench_memory.py --n 100000 --messages 0.5 --repeat 5
Query embedding (real bundled model) is timed separately and excluded from search and assembly.
--messages makes that share of the items chat messages (search then also does the conversational
carry); --repeat asks the 60 queries that many times, for a steadier p95 on a busy machine.
--compare "method=rrf,carry=0,depth=50" also times search with those memory.search.Fusion settings
(the former reciprocal-rank fusion), query by query in turn with the default, so that both see the
same machine load: on a shared machine that says more than two runs minutes apart.
"""
from __future__ import annotations

import argparse
import json
import time

from corpus import build

from assistant.prompt.build import preview_prompt


def p95(values: list[float]) -> float:
    return round(sorted(values)[int(len(values) * 0.95) - 1] * 1000, 1)


def median(values: list[float]) -> float:
    return round(sorted(values)[len(values) // 2] * 1000, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--messages", type=float, default=0.0, help="share of the items that are chat messages")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the 60 queries")
    ap.add_argument("--compare", help="Fusion settings to time against the default, e.g. method=rrf,carry=0")
    args = ap.parse_args()
    rt, queries, import_s = build(args.n, messages=args.messages)
    queries = queries * args.repeat
    embed_t, search_t, prompt_t = [], [], []
    vectors = []
    for q in queries:
        t = time.perf_counter()
        vectors.append(rt.embedder.embed([q])[0])
        embed_t.append(time.perf_counter() - t)
    other, other_t = None, []
    if args.compare:
        from dataclasses import replace

        from memory.search import Fusion, Searcher

        settings = dict(item.split("=") for item in args.compare.split(",") if item)
        fusion = replace(Fusion(), **{k: type(getattr(Fusion(), k))(v) for k, v in settings.items()})
        other = Searcher(rt.store, rt.embedder, fusion=fusion)
        other.search(queries[0], vector=vectors[0], touch=False)  # load its copy of the vectors
    rt.searcher.search(queries[0], vector=vectors[0], touch=False)
    for i, (q, v) in enumerate(zip(queries, vectors, strict=True)):
        turns = [(rt.searcher, search_t)] + ([(other, other_t)] if other is not None else [])
        for searcher, times in turns if i % 2 == 0 else turns[::-1]:  # neither always goes first
            t = time.perf_counter()
            searcher.search(q, vector=v, touch=False)
            times.append(time.perf_counter() - t)
    for q, v in zip(queries, vectors, strict=True):
        rt.searcher.embed_query = lambda _text, v=v: v  # the query vector is ready, as in a turn
        t = time.perf_counter()
        preview_prompt(rt, q)
        prompt_t.append(time.perf_counter() - t)
    print(json.dumps({"memories": args.n, "messages": args.messages, "queries": len(queries),
                      "import_items_per_s": round(args.n / import_s),
                      "query_embedding_p95_ms": p95(embed_t), "search_p95_ms": p95(search_t),
                      "prompt_assembly_p95_ms": p95(prompt_t), "search_median_ms": median(search_t),
                      **({"compare": args.compare, "compare_search_p95_ms": p95(other_t),
                          "compare_search_median_ms": median(other_t)} if other is not None else {})}))


if __name__ == "__main__":
    main()
