"""The app with many open reminders: time to the first frame and to a filled sidebar, resident memory,
how long ctrl+q takes, and `assistant reminders`, with 20, 2,000 and 20,000 open reminders.

    python benchmarks/bench_many_reminders.py [--counts 20,2000,20000] [--code DIR] [--size 120x40]

The store is made by the real CLI: a JSON Lines file of N reminders (a third overdue, spread over the
last 20 days; the rest over the next 60) read by `assistant import` (embeddings off, so the import
takes seconds; the app runs with the same setting, so no backlog is embedded while it is measured).
The real app is then started in tmux at the given size with the real clock, and the pane is read
every 50 ms (`tmux capture-pane`): the first frame is the footer drawn, the sidebar is the first
"[OVERDUE]" row drawn. RSS is read from /proc when the sidebar is there and 5 s later (VmHWM: the
peak). Then ctrl+q, and the time until the process has ended.

--code runs another checkout (its own `ui`, `assistant`, `memory` packages) with this interpreter,
to compare a branch before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "bench-many-reminders"


def make_store(directory: Path, count: int, env: dict[str, str]) -> tuple[Path, float]:
    """N reminders through `assistant import`; returns the database and the import's seconds."""
    now = datetime.now(UTC).replace(microsecond=0)
    lines = []
    overdue = count // 3
    for i in range(count):
        if i < overdue:
            due = now - timedelta(seconds=60 + (i * 20 * 86400) // max(1, overdue))
        else:
            due = now + timedelta(seconds=300 + ((i - overdue) * 60 * 86400) // max(1, count - overdue))
        lines.append(json.dumps({"type": "memory", "content": f"Calendar item {i + 1:05d}", "kind": "reminder",
                                 "due_at": due.isoformat(), "created_at": (now - timedelta(days=30)).isoformat()}))
    source = directory / "reminders.jsonl"
    source.write_text("\n".join(lines) + "\n")
    db = directory / "assistant.db"
    start = time.monotonic()
    subprocess.run([*command(), "import", str(source), "--db", str(db)], env=env, check=True,
                   stdout=subprocess.DEVNULL, cwd=env["PYTHONPATH"])
    return db, time.monotonic() - start


def command() -> list[str]:
    return [sys.executable, "-m", "ui.entry"]


def capture() -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True).stdout


def descendants(pid: int) -> list[int]:
    children = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def app_pid() -> int:
    pane = int(subprocess.run(["tmux", "list-panes", "-t", SESSION, "-F", "#{pane_pid}"], capture_output=True,
                              text=True).stdout.split()[0])
    for pid in descendants(pane):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if argv[1:3] == ["-m", "ui.entry"]:  # the app itself, not the shell that started it
            return pid
    return pane


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            values[line.split(":")[0]] = round(int(line.split()[1]) / 1024, 1)
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def wait_for(predicate, timeout: float) -> float | None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.05)
    return None


def run_app(db: Path, env: dict[str, str], size: str, timeout: float) -> dict[str, object]:
    width, height = size.split("x")
    line = " ".join(shlex.quote(part) for part in [*command(), "--db", str(db)])
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.startswith(("ASSISTANT_", "PYTHON")))
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    start = time.monotonic()
    # -m puts the working directory first on sys.path: it must be the checkout measured.
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", width, "-y", height, "-c", env["PYTHONPATH"],
                    f"env {exports} {line}; sleep 30"], check=True)
    result: dict[str, object] = {}
    try:
        result["first_frame_s"] = wait_for(lambda: "^q" in capture() or "Quit" in capture(), timeout)
        sidebar = wait_for(lambda: "[OVERDUE" in capture(), timeout)
        result["sidebar_s"] = None if sidebar is None else round(time.monotonic() - start, 2)
        pid = app_pid()
        result["rss_at_sidebar_mb"] = memory_mb(pid)[0]
        time.sleep(5)
        screen = capture()
        result["rss_after_5s_mb"], result["peak_rss_mb"] = memory_mb(pid)
        result["launch_lines"] = sum("⏰" in row for row in screen.splitlines())  # reminder lines on screen
        quit_start = time.monotonic()
        subprocess.run(["tmux", "send-keys", "-t", SESSION, "C-q"])
        gone = wait_for(lambda: not Path(f"/proc/{pid}").exists() or
                        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z", timeout)
        result["quit_s"] = None if gone is None else round(time.monotonic() - quit_start, 2)
        result["screen"] = screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    if isinstance(result.get("first_frame_s"), float):
        result["first_frame_s"] = round(result["first_frame_s"], 2)  # type: ignore[arg-type]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counts", default="20,2000,20000")
    parser.add_argument("--code", default=str(ROOT), help="the checkout to run (default: this one)")
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--show", action="store_true", help="print the screen as it was 5 s after the sidebar")
    args = parser.parse_args()
    rows = []
    for count in (int(c) for c in args.counts.split(",")):
        with tempfile.TemporaryDirectory(prefix="bench-many-") as tmp:
            home = Path(tmp)
            env = {**os.environ, "PYTHONPATH": str(Path(args.code).resolve()), "ASSISTANT_EMBEDDING_MODEL": "none",
                   "ASSISTANT_PROVIDER": "offline", "ASSISTANT_CONFIG": str(home / "config.toml"),
                   "XDG_DATA_HOME": str(home / "data"), "XDG_STATE_HOME": str(home / "state"),
                   "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache")}
            env.pop("ASSISTANT_NOW", None)
            (home / "config.toml").write_text("")
            db, imported = make_store(home, count, env)
            start = time.monotonic()
            subprocess.run([*command(), "reminders", "--db", str(db)], env=env, check=True,
                           stdout=subprocess.DEVNULL, cwd=env["PYTHONPATH"])
            listing = time.monotonic() - start
            result = run_app(db, env, args.size, args.timeout)
            screen = result.pop("screen", "")
            row = {"reminders": count, "code": args.code, "import_s": round(imported, 2),
                   "cli_reminders_s": round(listing, 2), **result}
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.show:
                print(screen)
    print("\n| reminders | first frame | sidebar | RSS at sidebar | RSS +5 s (peak) | launch lines in chat | ctrl+q |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['reminders']:,} | {r['first_frame_s']} s | {r['sidebar_s']} s | {r['rss_at_sidebar_mb']} MB | "
              f"{r['rss_after_5s_mb']} MB ({r['peak_rss_mb']}) | {r['launch_lines']} | {r['quit_s']} s |")


if __name__ == "__main__":
    main()
