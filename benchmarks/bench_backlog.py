"""A search while an import's texts wait for their embeddings, and what the import says about them:
this checkout against another commit (issue 46, item 26). Not a test.

    python benchmarks/bench_backlog.py --before REF [--messages 10000] [--conversations 200] [--runs 5]

A ChatGPT export (benchmarks/bench_import.py's generator: a user says one to three sentences, the
assistant two to twelve) is imported once with embeddings off, so every text waits, as after a big
import. Then, on a fresh copy of that store for every run (a search may embed some of what waits, and
the next run must find the same backlog), whole-process `assistant recall` is timed for each side
in turn, the order alternating: CPU (user + system) and peak RSS from wait4. Two floors, this
checkout's: the same store with embeddings off (a keyword search), and the same store with its queue
emptied (a search with nothing waiting: the query embedded, the vectors there are, no backlog).

Then the import itself, with the bundled model, on each side: what it says about the texts it leaves
waiting (the rate and the time), and the rate measured right after on this checkout's store by
embedding the next `--measure` waiting texts in process (sync_embeddings, as `assistant index` does),
so that what was said can be compared with what the machine does under the same load.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_import import make_export  # noqa: E402
from bench_startup import extract  # noqa: E402

ASSISTANT = Path(sys.executable).with_name("assistant")
QUERY = "what can I bake with sourdough discard"


def environment(home: Path, code: Path | None, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ASSISTANT_", "XDG_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"),
               ASSISTANT_PROVIDER="offline", **extra)
    if code:
        env["PYTHONPATH"] = str(code)
    return env


def timed(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """CPU seconds (user + system), peak RSS in MB and wall seconds of one process."""
    began = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} failed: {proc.stderr.read() if proc.stderr else ''}")
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024, "wall_s": wall}


def summary(runs: list[dict[str, float]]) -> dict[str, float]:
    return {f"{key}_median": round(statistics.median(r[key] for r in runs), 2) for key in runs[0]}


def recall(db: Path, pristine: Path, env: dict[str, str]) -> dict[str, float]:
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copy(pristine, db)
    return timed([str(ASSISTANT), "recall", QUERY, "--db", str(db)], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit or branch to compare with")
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--measure", type=int, default=256, help="texts embedded after the import, to compare "
                        "the rate it said with the one measured")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-backlog-"))
    report: dict[str, object] = {"before": args.before, "messages": args.messages, "runs": args.runs,
                                 "load_at_start": os.getloadavg()[0]}
    try:
        before = extract(args.before, folder / "before")
        home = folder / "home"
        home.mkdir()
        export = folder / "export.zip"
        report["export"] = make_export(export, args.conversations, args.messages, datetime.now(UTC))
        pristine = folder / "pristine.db"
        off = environment(home, None, ASSISTANT_EMBEDDING_MODEL="none")
        subprocess.run([str(ASSISTANT), "import", str(export), "--db", str(pristine)], env=off, check=True,
                       capture_output=True)
        emptied = folder / "emptied.db"
        shutil.copy(pristine, emptied)
        subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                        "c.execute('DELETE FROM pending_embeddings'); c.commit()", str(emptied)], check=True)
        waiting = subprocess.run([sys.executable, "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1])"
                                  ".execute('SELECT count(*) FROM pending_embeddings').fetchone()[0])",
                                  str(pristine)], check=True, capture_output=True, text=True).stdout.strip()
        report["texts_waiting"] = int(waiting)
        sides = {"before": environment(home, before), "after": environment(home, None)}
        runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
        for round_ in range(args.runs):
            for side in (list(sides) if round_ % 2 else list(reversed(sides))):
                runs[side].append(recall(folder / f"{side}.db", pristine, sides[side]))
        floors = {"keyword search (embeddings off)": [recall(folder / "kw.db", pristine, off)
                                                      for _ in range(args.runs)],
                  "a search with nothing waiting": [recall(folder / "empty.db", emptied, sides["after"])
                                                    for _ in range(args.runs)]}
        report["recall with the backlog waiting"] = {side: summary(r) for side, r in runs.items()}
        report["floors (this checkout)"] = {name: summary(r) for name, r in floors.items()}
        print(json.dumps(report, indent=1), flush=True)

        report["import"] = {}
        for side, env in sides.items():
            db = folder / f"import-{side}.db"
            began = time.perf_counter()
            done = subprocess.run(["/usr/bin/time", "-f", "%M", str(ASSISTANT), "import", str(export), "--db",
                                   str(db)], env=env, check=True, capture_output=True, text=True)
            lines = done.stderr.strip().splitlines()
            said = [line for line in lines if "waiting for their embeddings" in line]
            report["import"][side] = {"wall_s": round(time.perf_counter() - began, 1),  # type: ignore[index]
                                      "peak_mb": round(int(lines[-1]) / 1024, 1), "said": said[0][:240] if said else ""}
        measure = ("import sys, time; from pathlib import Path; from memory.store import Store; "
                   "from memory.search.embeddings import LocalEmbedder, sync_embeddings; "
                   "e = LocalEmbedder(cache_dir=Path(sys.argv[2])); e.load(); s = Store(sys.argv[1]); "
                   "t = time.perf_counter(); n = sync_embeddings(s, e, limit=int(sys.argv[3])); "
                   "print(n / (time.perf_counter() - t))")
        rate = subprocess.run([sys.executable, "-c", measure, str(folder / "import-after.db"), str(home / "cache"),
                               str(args.measure)], env=sides["after"], check=True, capture_output=True, text=True,
                              cwd=str(ROOT))
        report["import"]["measured_right_after_per_s"] = round(float(rate.stdout.strip()), 1)  # type: ignore[index]
        report["load_at_end"] = os.getloadavg()[0]
        print(json.dumps(report["import"], indent=1), flush=True)
        if args.json:
            args.json.write_text(json.dumps(report, indent=1) + "\n")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
