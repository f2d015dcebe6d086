"""Consolidation overhead with model time excluded, and peak memory (not a test).

    python benchmarks/bench_consolidation.py --n 10000 --new 1000
Builds a store of N memories, marks all but the newest NEW as already consolidated by a previous
run, then runs the pipeline in a fresh process with an instant in-process model and reports wall
time per 1000 new memories and the process's peak RSS. --full reconsiders every memory.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import build, open_runtime


class InstantModel:
    """Answers at once, so the figures are the pipeline's own overhead."""

    name = "instant"

    def check(self) -> None:
        pass

    def summarize(self, texts: list[str]) -> dict:
        return {"summary": f"{len(texts)} notes", "key_facts": [], "decisions": [], "superseded_facts": []}

    def judge(self, newer: str, older: str) -> dict:
        return {"supersedes": False, "confidence": "low", "reason": None}


def run(path: Path, full: bool) -> None:
    from memory.consolidation.pipeline import Consolidator, Options

    rt = open_runtime(path)
    started = time.perf_counter()
    result = Consolidator(rt.store, rt.embedder, InstantModel(), Options()).run(full=full)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": round(seconds, 2), "memories_processed": result.memories_processed,
                      "clusters_found": result.clusters_found, "peak_rss_mb": round(peak_mb)}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--new", type=int, default=1000)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--run", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        return run(Path(args.run), args.full)
    path = Path(tempfile.mkdtemp()) / "bench.db"
    rt, _, _ = build(args.n, path=path)
    # Everything but the newest --new memories was handled by an earlier run (scores and tiers
    # included; its model phases do not matter here), which started at the cut-off.
    from memory.consolidation.pipeline import Consolidator

    cutoff = rt.store.one("SELECT created_at FROM knowledge ORDER BY created_at DESC LIMIT 1 OFFSET ?",
                          (args.new,))[0]
    rt.store.execute("UPDATE knowledge SET updated_at = created_at")
    earlier = Consolidator(rt.store, None, None).run()
    rt.store.execute("UPDATE consolidation_runs SET started_at = ? WHERE id = ?", (cutoff, earlier.run_id))
    new = rt.store.one("SELECT count(*) FROM knowledge WHERE created_at >= ?", (cutoff,))[0]
    rt.close()
    out = subprocess.run([sys.executable, __file__, "--run", str(path), *(["--full"] if args.full else [])],
                         capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    data = json.loads(out)
    considered = args.n if args.full else new
    data.update(memories=args.n, new_memories=considered,
                seconds_per_1000=round(data["seconds"] / max(1, considered) * 1000, 2))
    print(json.dumps(data))


if __name__ == "__main__":
    main()
