"""`assistant sync` (SPEC F15) against a real Radicale on 127.0.0.1: a first sync of N reminders, syncs with
nothing changed, a sync after a few changes on the phone, and what each costs in requests and memory.

    python benchmarks/bench_caldav.py [--reminders 500] [--quiet-runs 5] [--out benchmarks/caldav.json]

Each sync is a whole `assistant sync --json` process, as the app and the notifier run it: its wall time (start-up,
settings and the caldav client's import included), the time the sync itself took and the HTTP requests it
made (both from its own --json), and its peak RSS. The issue's bar: the no-change sync of 500 under a fifth
of the first sync, and under 1 s on a quiet machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.caldav_server import USERS, Phone, Radicale  # noqa: E402

ASSISTANT = Path(sys.executable).with_name("assistant")
TIME = "/usr/bin/time"  # GNU time: the child's own peak RSS (%M)
NOW = "2026-12-06T10:00:00+00:00"


def sync(db: str, env: dict[str, str]) -> dict[str, Any]:
    """One `assistant sync --json` process (under /usr/bin/time for its own peak RSS)."""
    started = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%M", str(ASSISTANT), "sync", "--json", "--db", db, "--now", NOW], env=env,
                          capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"sync failed: {done.stderr}")
    result = json.loads(done.stdout)
    peak_kb = int(done.stderr.strip().splitlines()[-1])
    return {"wall_s": round(wall, 3), "sync_s": result["seconds"], "requests": result["requests"],
            "sent": result["sent"], "fetched": result["fetched"],
            "changed_here": len(result["changed_here"]), "peak_rss_mb": round(peak_kb / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reminders", type=int, default=500)
    parser.add_argument("--quiet-runs", type=int, default=5)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        server = Radicale(folder / "radicale")
        try:
            env = {**os.environ, "ASSISTANT_CALDAV__URL": server.url, "ASSISTANT_CALDAV__USERNAME": "alice",
                   "ASSISTANT_CALDAV_PASSWORD": USERS["alice"], "ASSISTANT_CALDAV__CALENDAR": "Bench",
                   "XDG_CACHE_HOME": str(folder / "cache"), "XDG_STATE_HOME": str(folder / "state"),
                   "XDG_CONFIG_HOME": str(folder / "config"), "ASSISTANT_TIMEZONE": "UTC"}
            db = str(folder / "bench.db")
            from memory.memories import remember
            from memory.store import Store
            from memory.time.clock import Clock

            start = datetime.fromisoformat(NOW)
            with Store(db, Clock(UTC, start)) as store, store.transaction():
                for i in range(args.reminders):
                    due = start + timedelta(hours=3 * i + 1)
                    if i % 10 == 0:
                        remember(store, f"weekly chore {i}", due_at="every tuesday at 7pm")
                    else:
                        remember(store, f"errand number {i}: call, buy or book something", due_at=due)
            first = sync(db, env)
            quiet = [sync(db, env) for _ in range(args.quiet_runs)]
            phone = Phone(server.url, "alice", "Bench")
            todos = phone.todos()
            for todo in todos[:5]:
                phone.edit(todo, summary=todo.summary + " (edited on the phone)")
            after_phone = sync(db, env)
            quiet_after = sync(db, env)
        finally:
            server.stop()
    best = min(quiet, key=lambda r: r["wall_s"])
    walls = sorted(r["wall_s"] for r in quiet)
    report = {
        "reminders": args.reminders, "first_sync": first, "no_change_syncs": quiet, "no_change_best": best,
        "no_change_median_wall_s": walls[len(walls) // 2],
        "no_change_over_first": round(walls[len(walls) // 2] / first["wall_s"], 3),
        "five_changed_on_the_phone": after_phone, "then_no_change": quiet_after,
        "machine": {"cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)},
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
