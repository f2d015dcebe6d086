"""`assistant mcp` as another AI tool sees it: how long a tool takes, and how long the server takes to
start, at 2k and 100k items (not a test).

    python benchmarks/bench_mcp.py                  2k and 100k, writes benchmarks/mcp.json
    python benchmarks/bench_mcp.py --docs           ... and puts the table into docs/mcp.md
    python benchmarks/bench_mcp.py --sizes 2000     a quick run

The stores are bench_scale's (benchmarks/corpus.py, seed 7, built once under --stores and reused):
half memories, half chat messages, a reminder per 200 items, synthetic topic vectors. Each run works
on a copy, as it is and with private memories (1 in 100 items) and secrets (1 in 200) added, so a
request also pays what the gate costs with a store that has many of them. The server is the real command
(`assistant mcp`, the bundled embedder) started by the SDK's own client (ClientSession over
stdio_client); every figure is measured at the client, round trip included:
- start to first answer: from spawning the process to the result of the first `upcoming` (initialize
  included), and to the first `recall` (which loads the embedder), each over --starts fresh starts;
- warm tool latency, p50 and p95: `recall` over the corpus's queries (query embedding included) and
  `upcoming` (7 days), in one session.
Goals (issue 32): start to first answer under 1 s; `recall` p95 under 150 ms at 100k.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
import bench_scale  # noqa: E402
import corpus  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp_types import Implementation  # noqa: E402

SIZES = (2_000, 100_000)
WITHHELD = "+withheld"  # the store with 1 private memory per 100 items and 1 secret per 200
MARKERS = ("<!-- bench_mcp:start -->", "<!-- bench_mcp:end -->")


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def ms(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values) * 1000, 1),
            "p95": round(bench_scale.percentile(values, 0.95) * 1000, 1), "n": len(values)}


def working_copy(n: int, stores: Path, work: Path, withheld: bool) -> tuple[Path, list[str]]:
    """A copy of bench_scale's store of n items, `withheld`: with private memories and secrets added (their
    vectors too, as the store's own are made, so no search waits to embed them); returns it and its queries."""
    import numpy as np

    from memory import memories
    from memory import vectors as vector_index

    record = bench_scale.build_store(n, stores)
    db = work / f"mcp-{n}.db"
    for suffix in ("", "-wal", "-shm"):
        (work / f"mcp-{n}.db{suffix}").unlink(missing_ok=True)
    shutil.copy(stores / f"synthetic-{n}.db", db)
    rt = corpus.open_runtime(db)
    rt.store.read_table_list()  # opened once here: a store built by an older version is migrated now, not timed
    if not withheld:
        rt.close()
        return db, record["queries"]
    added = []
    with rt.store.transaction():
        for i in range(n // 100):
            added.append(memories.remember(rt.store, f"private note {i}: therapy session {i} with Dr Vance "
                                                     f"about the anxiety", private=True).id)
        for i in range(n // 200):
            added.append(memories.remember(rt.store, f"the locker {i} PIN is {1000 + i}").id)
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(len(added), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with rt.store.transaction():
        vector_index.put(rt.store, [i * 4 + 1 for i in added], vectors)
        rt.store.execute("DELETE FROM pending_embeddings")
    rt.store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rt.close()
    return db, record["queries"]


def params(db: Path) -> StdioServerParameters:
    env = bench_scale.env_for(db)
    env.pop("ASSISTANT_PROVIDER", None)
    return StdioServerParameters(command=bench_scale.ASSISTANT, args=["mcp"], env=env)


def server_cpu() -> float:
    """CPU seconds (user + system) the server process, this process's one child, has used so far: a
    figure the other work on a shared machine does not inflate as it does the wall time."""
    children = [pid for task in Path("/proc/self/task").iterdir()
                for pid in (task / "children").read_text().split()]
    assert len(children) == 1, children
    fields = Path(f"/proc/{children[0]}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def first_answer(db: Path, tool: str, arguments: dict) -> tuple[float, float]:
    """Seconds from spawning the server to the first result of `tool`: wall, and the server's CPU."""
    started = time.perf_counter()
    with open(os.devnull, "w") as errors:
        async with stdio_client(params(db), errlog=errors) as (read, write), \
                ClientSession(read, write, client_info=Implementation(name="bench", version="1")) as s:
            await s.initialize()
            result = await s.call_tool(tool, arguments)
            took, cpu = time.perf_counter() - started, server_cpu()
            assert not result.is_error, result
    return took, cpu


async def warm(db: Path, queries: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """p50/p95 of recall and upcoming in one session, after one call of each (the embedder loaded)."""
    with open(os.devnull, "w") as errors:
        async with stdio_client(params(db), errlog=errors) as (read, write), \
                ClientSession(read, write, client_info=Implementation(name="bench", version="1")) as s:
            await s.initialize()
            await s.call_tool("recall", {"query": "warm up"})
            await s.call_tool("upcoming", {})
            timings: dict[str, list[float]] = {"recall": [], "upcoming": []}
            cpu: dict[str, list[float]] = {"recall": [], "upcoming": []}
            for _ in range(rounds):
                for query in queries:
                    for tool, arguments in (("recall", {"query": query}), ("upcoming", {})):
                        started, used = time.perf_counter(), server_cpu()
                        result = await s.call_tool(tool, arguments)
                        timings[tool].append(time.perf_counter() - started)
                        cpu[tool].append(server_cpu() - used)
                        assert not result.is_error, result
    out = {name: ms(values) for name, values in timings.items()}
    for name, values in cpu.items():  # clock ticks (10 ms): the mean is the figure, not a percentile
        out[name]["cpu_mean"] = round(statistics.mean(values) * 1000, 1)
    return out


def breakdown(db: Path, queries: list[str]) -> dict[str, float]:
    """Where a call's CPU goes, in this process on the same store (median ms of CPU time): the query's
    embedding, the request's gate, the gate's last pass over an `upcoming` answer, the search itself."""
    from assistant.mcp.server import request_gate
    from assistant.outbound.send import to_mcp_client
    from assistant.tools import REGISTRY, call_tool

    rt = corpus.open_runtime(db)
    rt.searcher.search("warm up", limit=8, touch=False)
    gate = request_gate(rt, {})
    answer = call_tool(rt, REGISTRY["upcoming"], {}, {"gate": gate}).content

    def cpu(work: object) -> float:
        values = []
        for query in queries[:15]:
            started = time.process_time()
            work(query)  # type: ignore[operator]
            values.append(time.process_time() - started)
        return round(statistics.median(values) * 1000, 1)

    out = {"query embedding": cpu(lambda q: rt.searcher.embed_query(q)),
           "hybrid search (embedding included)": cpu(lambda q: rt.searcher.search(q, limit=8, touch=False)),
           "the gate of a request": cpu(lambda q: request_gate(rt, {"query": q})),
           "the gate's last pass over an upcoming answer": cpu(lambda q: to_mcp_client(gate, answer, "x")),
           "upcoming answer size (characters)": len(answer)}
    rt.close()
    return out


def markdown(results: dict) -> str:
    columns = sorted((k for k in results if k[0].isdigit()), key=lambda k: (int(k.split("+")[0]), k))

    def label(key: str) -> str:
        n = int(key.split("+")[0])
        size = f"{n // 1000}k" if n < 1_000_000 else f"{n // 1_000_000}M"
        store = results[key]["store"]
        return f"{size} + {store['private']:,} private, {store['secrets']:,} secrets" if WITHHELD in key else size

    def cell(key: str, section: str, name: str, stat: str) -> str:
        return f"{results[key][section][name][stat]:,.0f} ms"

    out = ["| measured at the client (round trip) | goal | " + " | ".join(label(k) for k in columns) + " |",
           "|---|---|" + "---|" * len(columns)]
    rows = [("start to first answer (`upcoming`), median", "< 1 s", "start", "upcoming", "p50"),
            ("start to first answer (`upcoming`), slowest", "", "start", "upcoming", "max"),
            ("... the server's CPU time to it, median", "", "start", "upcoming", "cpu_p50"),
            ("start to first `recall` (the embedder loaded), median", "", "start", "recall", "p50"),
            ("... the server's CPU time to it, median", "", "start", "recall", "cpu_p50"),
            ("`recall` p50", "", "warm", "recall", "p50"),
            ("`recall` p95", "< 150 ms at 100k", "warm", "recall", "p95"),
            ("`recall`, the server's CPU time per call (mean)", "", "warm", "recall", "cpu_mean"),
            ("`upcoming` p50", "", "warm", "upcoming", "p50"), ("`upcoming` p95", "", "warm", "upcoming", "p95"),
            ("`upcoming`, the server's CPU time per call (mean)", "", "warm", "upcoming", "cpu_mean")]
    for name, goal, section, key, stat in rows:
        out.append(f"| {name} | {goal} | " + " | ".join(cell(k, section, key, stat) for k in columns) + " |")
    for name in results[columns[0]]["breakdown"]:
        unit = "" if "characters" in name else " ms"
        out.append(f"| in process, CPU, median: {name} | | " +
                   " | ".join(f"{results[k]['breakdown'][name]:,g}{unit}" for k in columns) + " |")
    out.append("")
    out.append(f"Stores: bench_scale's synthetic stores as they are, and with 1 private memory per 100 items and 1 "
               f"secret per 200 added; the bundled embedder; {results['machine']}.")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "assistant-bench-stores")
    ap.add_argument("--starts", type=int, default=7, help="fresh server starts per measure")
    ap.add_argument("--queries", type=int, default=40, help="recall queries per round (the corpus has 60)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", type=Path, default=HERE / "mcp.json")
    ap.add_argument("--docs", action="store_true", help="replace the table between the markers in docs/mcp.md")
    args = ap.parse_args()
    args.stores.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    results: dict = {}
    load_before = os.getloadavg()[0]
    try:
        for n, withheld in ((int(size), withheld) for size in args.sizes.split(",") for withheld in (False, True)):
            db, queries = working_copy(n, args.stores, work, withheld)
            key = f"{n}{WITHHELD if withheld else ''}"
            r = results.setdefault(key, {"store": {"private": n // 100 if withheld else 0,
                                                   "secrets": n // 200 if withheld else 0}})
            log(f"{key}: start to first answer")
            firsts: dict[str, list[tuple[float, float]]] = {"upcoming": [], "recall": []}
            for _ in range(args.starts):
                firsts["upcoming"].append(anyio.run(first_answer, db, "upcoming", {}))
                firsts["recall"].append(anyio.run(first_answer, db, "recall", {"query": queries[0]}))
            r["start"] = {k: {**ms([wall for wall, _ in v]), "max": round(max(wall for wall, _ in v) * 1000, 1),
                              "cpu_p50": round(statistics.median(cpu for _, cpu in v) * 1000, 1)}
                          for k, v in firsts.items()}
            log(f"{key}: warm recall and upcoming")
            r["warm"] = anyio.run(warm, db, queries[:args.queries], args.rounds)
            log(f"{key}: where the CPU goes, in process")
            r["breakdown"] = breakdown(db, queries)
            log(json.dumps(r))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["machine"] = bench_scale.machine_line(load_before, os.getloadavg()[0])
    args.json.write_text(json.dumps(results, indent=1) + "\n")
    table = markdown(results)
    print(table)
    if args.docs:
        page = ROOT / "docs" / "mcp.md"
        text = page.read_text()
        start, end = text.index(MARKERS[0]) + len(MARKERS[0]), text.index(MARKERS[1])
        page.write_text(text[:start] + "\n" + table + "\n" + text[end:])


if __name__ == "__main__":
    main()
