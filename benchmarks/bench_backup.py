"""The Litestream replica (SPEC F16): what a kill loses, and what the replicator costs (not a test).

    python benchmarks/bench_backup.py --recovery 5         recovery point over 5 kills -9
    python benchmarks/bench_backup.py --minutes 60         an hour of use, then 10 idle minutes
    python benchmarks/bench_backup.py --readme             the table in docs/backup.md from benchmarks/backup.json

Recovery point: a store with a file:// replica and `assistant backup run` (Litestream its child); a writer
process commits a row every 50 ms holding the time it was written; after 15 s the writer and the
replicator's whole process group are killed with -9 at one instant, the store and everything beside it
deleted, and `assistant restore` brings it back into a new folder. The recovery point is the time of the
kill less the time of the newest row the restore has: what a crash loses.

Cost: a store of 5,000 items (2,000 memories, 3,000 messages, their vectors: a few months of use) and
`assistant backup run` (the app and the notifier run no such process: Litestream is their own child, so
their replicator is litestream alone); every 36 s one offline `assistant chat` turn from the script of
benchmarks/bench_hour.py (100 turns are an hour, as there), then nothing for the idle minutes. Every
10 s: the resident memory and CPU time of `backup run` (Python) and of litestream, from /proc; the LTX
files that appeared in the replica (each counted once, at its size, even if compaction removed it later;
those that carry a new replica's first copy apart). Bytes a day: the hour's uploads (a day with an hour
of use) plus the daily snapshot Litestream makes (a compressed copy of the store).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

ASSISTANT = Path(sys.executable).with_name("assistant")
RESULT = HERE / "backup.json"
FIRST = "0000000000000001-"  # the change files that hold the first snapshot (txid 1) of a new replica
TICK = 0.05


def environment(home: Path, replica: Path | None, **extra: str) -> dict[str, str]:
    config = home / "config.toml"
    config.write_text(f'[backup]\nreplica = "file://{replica}"\n' if replica else "")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "c"), "XDG_DATA_HOME": str(home / "d"),
                "XDG_STATE_HOME": str(home / "s"), "XDG_CACHE_HOME": str(home / "ca"), "ASSISTANT_CONFIG": str(config),
                "ASSISTANT_TIMEZONE": "UTC", **extra})
    return env


def start_replicator(db: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    process = subprocess.Popen([str(ASSISTANT), "backup", "run", "--db", str(db), "--json"], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert process.stdout is not None
    first = json.loads(process.stdout.readline())
    assert first["event"] == "started", first
    return process


def litestream_pid(replicator: subprocess.Popen[str]) -> int:
    children = Path(f"/proc/{replicator.pid}/task/{replicator.pid}/children").read_text().split()
    return int(children[0])


# -- recovery point ------------------------------------------------------------------------------------

WRITER = """
import sys, time
from memory.store import Store
store = Store(sys.argv[1], keep_wal=True)
while True:
    with store.transaction():
        store.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (f"tick {time.time():.3f}", "x"))
    time.sleep(float(sys.argv[2]))
"""


def recovery_run(folder: Path) -> dict[str, float]:
    home, replica = folder / "home", folder / "replica"
    home.mkdir(parents=True)
    env = environment(home, replica, ASSISTANT_EMBEDDING_MODEL="none")
    db = home / "memory.db"
    subprocess.run([str(ASSISTANT), "remember", "the first memory", "--db", str(db)], env=env, check=True,
                   capture_output=True)
    replicator = start_replicator(db, env)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(TICK)], env=env, cwd=ROOT)
    time.sleep(15)
    writer.send_signal(signal.SIGKILL)
    os.killpg(replicator.pid, signal.SIGKILL)
    killed_at = time.time()
    writer.wait()
    replicator.wait()
    for path in home.iterdir():
        if path.name.startswith(("memory.db", ".memory.db")):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    target = folder / "new" / "memory.db"
    target.parent.mkdir()
    started = time.perf_counter()
    subprocess.run([str(ASSISTANT), "restore", "--from", f"file://{replica}", "--db", str(target)],
                   env=environment(folder / "new", None), check=True, capture_output=True)
    restore_s = time.perf_counter() - started
    from memory.store import Store

    with Store(target) as store:
        ticks = [float(row[0].split()[1]) for row in store.query("SELECT key FROM meta WHERE key LIKE 'tick %'")]
    return {"recovery_point_s": round(killed_at - max(ticks), 3), "ticks_restored": len(ticks),
            "restore_s": round(restore_s, 2)}


def recovery(runs: int) -> dict[str, Any]:
    results = []
    for n in range(runs):
        with tempfile.TemporaryDirectory(prefix="bench-backup-") as folder:
            results.append(recovery_run(Path(folder)))
            print(f"run {n + 1}: {results[-1]}", flush=True)
    points = [r["recovery_point_s"] for r in results]
    return {"runs": results, "median_s": statistics.median(points), "max_s": max(points),
            "write_every_s": TICK}


# -- cost over an hour ---------------------------------------------------------------------------------

def proc_sample(pid: int) -> tuple[float, float]:
    """(CPU seconds, resident MB) of one process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:")) / 1024
    return cpu, rss


def cost(minutes: float, idle_minutes: float) -> dict[str, Any]:
    from benchmarks.bench_hour import SCRIPT
    from benchmarks.corpus import build

    folder = Path(tempfile.mkdtemp(prefix="bench-backup-"))
    home, replica = folder / "home", folder / "replica"
    home.mkdir()
    db = home / "memory.db"
    rt, _, _ = build(5000, path=db, messages=0.6)
    rt.close()
    env = environment(home, replica, ASSISTANT_PROVIDER="offline")
    store_mb = db.stat().st_size / 1e6
    replicator = start_replicator(db, env)
    child = litestream_pid(replicator)
    seen: dict[str, int] = {}
    samples: list[dict[str, Any]] = []
    began = time.monotonic()

    def sample(phase: str) -> None:
        for path in replica.rglob("*.ltx"):
            if str(path) not in seen:
                try:
                    seen[str(path)] = path.stat().st_size
                except OSError:
                    pass
        first_copy = sum(size for path, size in seen.items() if Path(path).name.startswith(FIRST))
        wrapper_cpu, wrapper_rss = proc_sample(replicator.pid)
        lite_cpu, lite_rss = proc_sample(child)
        samples.append({"t": round(time.monotonic() - began, 1), "phase": phase, "wrapper_cpu_s": wrapper_cpu,
                        "wrapper_rss_mb": round(wrapper_rss, 1), "litestream_cpu_s": lite_cpu,
                        "litestream_rss_mb": round(lite_rss, 1), "uploaded_mb": round(sum(seen.values()) / 1e6, 3),
                        "first_copy_mb": round(first_copy / 1e6, 3)})

    sample("start")
    time.sleep(20)  # the first snapshot of the store
    sample("start")
    snapshot_mb = max(seen.values(), default=0) / 1e6  # the snapshot, one file
    turns, next_turn, next_sample = 0, time.monotonic(), time.monotonic()
    end_busy = time.monotonic() + minutes * 60
    while time.monotonic() < end_busy:
        if time.monotonic() >= next_turn:
            text = SCRIPT[turns % len(SCRIPT)]
            subprocess.run([str(ASSISTANT), "chat", text, "--db", str(db)], env=env, capture_output=True, timeout=120)
            turns += 1
            next_turn += 36
        if time.monotonic() >= next_sample:
            sample("busy")
            next_sample += 10
        time.sleep(0.5)
    busy_end = samples[-1]
    end_idle = time.monotonic() + idle_minutes * 60
    while time.monotonic() < end_idle:
        time.sleep(10)
        sample("idle")
    replicator.send_signal(signal.SIGTERM)
    replicator.wait(60)
    first_busy = next(s for s in samples if s["phase"] == "busy")
    idle = [s for s in samples if s["phase"] == "idle"]

    def cpu_share(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
        span = b["t"] - a["t"]
        return {"wrapper_pct": round(100 * (b["wrapper_cpu_s"] - a["wrapper_cpu_s"]) / span, 3),
                "litestream_pct": round(100 * (b["litestream_cpu_s"] - a["litestream_cpu_s"]) / span, 3)}

    # What the hour's changes cost: every file uploaded during it, less those that carry the first copy of the
    # store (the snapshot and the compactions that merge it in, once per level: a new replica's cost, paid once).
    uploaded_busy = (busy_end["uploaded_mb"] - busy_end["first_copy_mb"]) - \
        (first_busy["uploaded_mb"] - first_busy["first_copy_mb"])
    result = {
        "date": datetime.now(UTC).date().isoformat(), "cores": os.cpu_count(), "minutes": minutes,
        "idle_minutes": idle_minutes, "turns": turns, "store_mb_at_start": round(store_mb, 1),
        "store_mb_at_end": round(db.stat().st_size / 1e6, 1), "first_snapshot_mb": round(snapshot_mb, 2),
        "first_copy_mb_all_levels": samples[-1]["first_copy_mb"],
        "uploaded_mb_during_use": round(uploaded_busy, 3),
        "uploaded_mb_per_hour_of_use": round(uploaded_busy * 60 / minutes, 3),
        "replica_mb_at_end": round(sum(p.stat().st_size for p in replica.rglob("*") if p.is_file()) / 1e6, 2),
        "cpu_busy": cpu_share(first_busy, busy_end), "cpu_idle": cpu_share(idle[0], idle[-1]) if len(idle) > 1 else {},
        "rss_mb_max": {"wrapper": max(s["wrapper_rss_mb"] for s in samples),
                       "litestream": max(s["litestream_rss_mb"] for s in samples)},
        "rss_mb_end": {"wrapper": samples[-1]["wrapper_rss_mb"], "litestream": samples[-1]["litestream_rss_mb"]},
        "samples": samples[::6] + samples[-1:],  # one a minute kept (they were taken every 10 s)
    }
    shutil.rmtree(folder, ignore_errors=True)
    return result


def readme() -> None:
    data = json.loads(RESULT.read_text())
    rec, hour = data.get("recovery"), data.get("cost")
    lines = ["<!-- bench_backup:start -->",
             f"Measured by `benchmarks/bench_backup.py` (2 cores, {data.get('date')}).", "",
             "| what | figure |", "| --- | --- |"]
    if rec:
        lines.append(f"| recovery point after kill -9 (writes every {rec['write_every_s'] * 1000:.0f} ms, "
                     f"{len(rec['runs'])} runs) | median {rec['median_s']:.1f} s, worst {rec['max_s']:.1f} s |")
    if hour:
        use, snapshot = hour["uploaded_mb_per_hour_of_use"], hour["first_snapshot_mb"]
        busy, idle, rss = hour["cpu_busy"], hour["cpu_idle"], hour["rss_mb_max"]
        lines += [
            f"| litestream's memory (the replicator: the app's and the notifier's child), most seen | "
            f"{rss['litestream']:.0f} MB |",
            f"| `assistant backup run`'s own memory (only when run in a terminal) | {rss['wrapper']:.0f} MB |",
            f"| litestream's CPU while used ({hour['turns']} turns in {hour['minutes']:g} min) | "
            f"{busy['litestream_pct']:.2f} % of a core |",
            f"| litestream's CPU idle ({hour['idle_minutes']:g} min, nothing written) | "
            f"{idle.get('litestream_pct', 0):.2f} % of a core |",
            f"| uploaded for an hour of use (store of {hour['store_mb_at_start']:.0f} MB) | {use:.1f} MB |",
            f"| a full copy of that store (a new replica; the daily snapshot) | {snapshot:.1f} MB |",
            f"| bytes a day with an hour of use | about {use + snapshot:.0f} MB |"]
    lines.append("<!-- bench_backup:end -->")
    doc = ROOT / "docs" / "backup.md"
    text = doc.read_text()
    start, end = text.index("<!-- bench_backup:start -->"), text.index("<!-- bench_backup:end -->")
    doc.write_text(text[:start] + "\n".join(lines) + text[end + len("<!-- bench_backup:end -->"):])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recovery", type=int, default=0, help="kills -9 to measure the recovery point over")
    parser.add_argument("--minutes", type=float, default=0, help="minutes of use to measure the cost over")
    parser.add_argument("--idle-minutes", type=float, default=10)
    parser.add_argument("--readme", action="store_true")
    args = parser.parse_args()
    if args.readme:
        readme()
        return
    data = json.loads(RESULT.read_text()) if RESULT.exists() else {}
    data["date"] = datetime.now(UTC).date().isoformat()
    if args.recovery:
        data["recovery"] = recovery(args.recovery)
    if args.minutes:
        data["cost"] = cost(args.minutes, args.idle_minutes)
        print(json.dumps({k: v for k, v in data["cost"].items() if k != "samples"}, indent=1))
    RESULT.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
