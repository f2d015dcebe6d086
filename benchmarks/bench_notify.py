"""The background notifier with the app closed: its resident memory and how late a notification comes.

    python benchmarks/bench_notify.py [--reminders 20] [--cycles 604800]

Real parts, as in tests/test_notify.py: a private D-Bus session bus (dbus-daemon) with python-dbusmock's
notification server, which logs each Notify call with its time.

1. `assistant notify` runs as its own process. Its RSS is read from /proc after start; then N
   reminders are written by the CLI (each its own process), due two seconds apart, and the delay of
   each is the time the server logged its Notify call minus its due instant. RSS again at the end.
2. The same watch loop (assistant.notifier.Notifier) in a process of its own runs `--cycles` polls
   back to back (604,800 = a week of once-a-second polls) while another connection writes a
   reminder due at once every 10 ms (each one a round of the loop and a Notify call, far more than
   a week brings); its RSS after an hour, a day and a week worth of polls says whether anything
   grows with time.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.desktop_bus import SessionBus, missing  # noqa: E402

ASSISTANT = Path(sys.executable).with_name("assistant")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmRSS")


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise RuntimeError(f"timed out waiting for {what}")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def delays(bus: SessionBus, folder: Path, count: int) -> dict:
    db = str(folder / "delay.db")
    proc = subprocess.Popen([str(ASSISTANT), "notify", "--db", db, "--json"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    started = json.loads(proc.stdout.readline())
    assert started["event"] in ("started", "no_desktop"), started
    rss_start = rss_mb(proc.pid)
    first = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=8)
    due = {f"bench reminder {i:02d}": first + timedelta(seconds=2 * i) for i in range(count)}
    for text, when in due.items():  # written while earlier ones fall due, as a person would
        subprocess.run([str(ASSISTANT), "remember", text, "--due", when.isoformat(), "--allow-past", "--db", db],
                       check=True, capture_output=True)
    last = max(due.values()).timestamp()
    wait_until(lambda: time.time() > last and all(any(t in n.body for n in bus.notifications()) for t in due),
               last - time.time() + 30, "every reminder on the bus")
    arrived = {text: [n for n in bus.notifications() if text in n.body] for text in due}
    late = [arrived[text][0].time - when.timestamp() for text, when in due.items()]
    rss_end = rss_mb(proc.pid)
    proc.terminate()
    proc.wait(timeout=30)
    return {"reminders": count, "shown_once": all(len(v) == 1 for v in arrived.values()),
            "delay_p50_s": round(percentile(late, 0.5), 3), "delay_p95_s": round(percentile(late, 0.95), 3),
            "delay_max_s": round(max(late), 3), "delay_min_s": round(min(late), 3),
            "rss_after_start_mb": rss_start, "rss_after_run_mb": rss_end}


LOOP = r"""
import json, os, sys, threading, time
from datetime import UTC, datetime
from assistant.notifier import Notifier
from assistant.runtime import Runtime
from assistant.settings import load_settings
from memory import memories
from memory.store import Store

def rss():
    for line in open(f"/proc/{os.getpid()}/status"):
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)

db, checkpoints = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
runtime = Runtime(load_settings(overrides={"db": db}))
notifier = Notifier(runtime.store, runtime.clock, lambda event, text: None, poll=0.0)
stop, done = threading.Event(), threading.Event()
writes = [0]

def writer():
    with Store(db) as other:  # another connection: its commits are what data_version reports
        while not done.wait(0.01):
            memories.remember(other, f"loop reminder {writes[0]}", due_at=datetime.now(UTC).replace(microsecond=0))
            writes[0] += 1

notifier.run(stop, cycles=0)  # start: the first round and the imports
report = {"rss_after_start_mb": rss(), "checkpoints": []}
threading.Thread(target=writer, daemon=True).start()
began = time.monotonic()
for cycles in checkpoints:
    notifier.run(stop, cycles=cycles)
    report["checkpoints"].append({"cycles": cycles, "rss_mb": rss(), "seconds": round(time.monotonic() - began, 1),
                                  "writes": writes[0]})
done.set()
print(json.dumps(report))
"""


def long_poll(bus: SessionBus, folder: Path, cycles: int) -> dict:
    checkpoints = sorted({c for c in (3600, 86_400, cycles) if c <= cycles})
    done = subprocess.run([sys.executable, "-c", LOOP, str(folder / "loop.db"), ",".join(map(str, checkpoints))],
                          capture_output=True, text=True, check=True, env={**os.environ})
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["notifications"] = sum("loop reminder" in n.body for n in bus.notifications())
    return report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reminders", type=int, default=20)
    ap.add_argument("--cycles", type=int, default=604_800, help="polls of the long run (604,800 = a week at 1/s)")
    args = ap.parse_args()
    reason = missing()
    if reason:
        sys.exit(f"bench_notify: {reason}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bus = SessionBus(folder / "bus")
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        os.environ.setdefault("XDG_DATA_HOME", str(folder / "data"))  # no log lands in the real state dir
        os.environ["XDG_STATE_HOME"] = str(folder / "state")
        try:
            result = {"closed_app": delays(bus, folder, args.reminders),
                      "long_poll": long_poll(bus, folder, args.cycles)}
        finally:
            bus.close()
    load = os.getloadavg()[0]
    result["machine"] = {"cores": os.cpu_count(), "python": sys.version.split()[0], "load_1min": round(load, 2)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
