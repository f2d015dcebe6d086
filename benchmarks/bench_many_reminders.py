"""Many open reminders: what 20,000 cost against 20, for the command line and a chat turn, and the app.

    python benchmarks/bench_many_reminders.py [--runs 7] [--code DIR]      the three ratios (issue 36)
    python benchmarks/bench_many_reminders.py --app [--counts 20,2000,20000] [--size 120x40]

The ratios: whole-process wall time (the median of --runs) of `assistant reminders` (its text, and
`--json`, the window's list), `assistant prompt`, and a chat turn without a model (`assistant chat
"what's coming up?"`, which reads the reminders, and a question answered from memory), each with a
store of 20 open reminders and one of 20,000, in one run, alternating, with the clock frozen at
Sun Nov 22 2026 14:00 UTC. The stores are made by the real CLI (`assistant import`, embeddings
off, so the import takes seconds and nothing is embedded while measuring); both hold the same few
facts and conversations. Two shapes of 20,000:
  spread    the 20 plus 19,980 a third overdue over the last 20 days, the rest over the next 60
            (8,200 fall in the 7-day window: what `--json` must list, whatever the code does)
  calendar  the 20 plus 19,980 over the next five years, after the window (a calendar import)
Printed: one JSON line per store and command, then the table of ratios for docs/offline.md.

--app: the app in tmux with 20, 2,000 and 20,000 (time to the first frame and to a filled sidebar,
resident memory, how long ctrl+q takes), as before issue 36; the real clock there. --code runs another
checkout (its own `ui`, `assistant`, `memory` packages) with this interpreter, to compare.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = "bench-many-reminders"
NOW = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)  # a Sunday
FACTS = ["the gate code is 1234", "the dentist appointment is on Tuesday at 3pm", "my Lisbon flight is on Dec 10",
         "I drive a 2014 Corolla", "Priya Sharma is my new colleague", "the standup is at 9:30",
         "Tom's birthday is on March 3", "the wifi password is on the fridge"]
COMMANDS = {"reminders": ["reminders"], "reminders --json": ["reminders", "--json"],
            "prompt": ["prompt", "--query", "what is the gate code?"],
            "chat: what's coming up?": ["chat", "what's coming up?"],
            "chat: a question": ["chat", "what is the gate code?"]}


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


def cli_store(directory: Path, shape: str, env: dict[str, str]) -> Path:
    """A store of 20 open reminders (shape "small") or 20,000 ("spread", "calendar"), with a few facts
    and a conversation, written by `assistant import`."""
    def record(content: str, due: datetime | None, kind: str = "reminder") -> str:
        return json.dumps({"type": "memory", "content": content, "kind": kind,
                           "due_at": due.isoformat() if due else None,
                           "created_at": (NOW - timedelta(days=30)).isoformat()})

    lines = [record(fact, None, "fact") for fact in FACTS]
    lines.append(json.dumps({"type": "episode", "id": 1, "title": "Planning the week", "summary": "Reminders and "
                             "the dentist", "outcome": "success", "started_at": (NOW - timedelta(days=2)).isoformat(),
                             "ended_at": (NOW - timedelta(days=2, minutes=-20)).isoformat()}))
    lines.append(json.dumps({"type": "message", "episode_id": 1, "role": "user", "content": "what do I have "
                             "this week?", "created_at": (NOW - timedelta(days=2)).isoformat()}))
    # The 20 every store has: 5 overdue in the last two days, 15 over the next six.
    for i in range(20):
        due = NOW - timedelta(hours=6 + 8 * i) if i < 5 else NOW + timedelta(hours=3 + 9 * (i - 5))
        lines.append(record(f"Task {i + 1:02d}", due))
    extra = 19_980 if shape != "small" else 0
    for i in range(extra):
        if shape == "spread":
            third = extra // 3
            due = (NOW - timedelta(seconds=60 + i * 20 * 86400 // third) if i < third else
                   NOW + timedelta(seconds=300 + (i - third) * 60 * 86400 // (extra - third)))
        else:
            due = NOW + timedelta(days=8) + timedelta(seconds=i * 5 * 365 * 86400 // extra)
        lines.append(record(f"Calendar item {i + 1:05d}", due))
    source = directory / f"{shape}.jsonl"
    source.write_text("\n".join(lines) + "\n")
    db = directory / f"{shape}.db"
    subprocess.run([*command(), "import", str(source), "--db", str(db), "--now", NOW.isoformat()], env=env,
                   check=True, stdout=subprocess.DEVNULL, cwd=env["PYTHONPATH"])
    return db


def copy_store(db: Path, to: Path) -> Path:
    """A copy of a store, made by SQLite itself (its write-ahead log included)."""
    import sqlite3

    with sqlite3.connect(db) as source, sqlite3.connect(to) as target:
        source.backup(target)
    return to


def timed(args: list[str], db: Path, env: dict[str, str]) -> float:
    start = time.monotonic()
    subprocess.run([*command(), *args, "--db", str(db), "--now", NOW.isoformat()], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=env["PYTHONPATH"])
    return time.monotonic() - start


def cli_main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-many-cli-") as tmp:
        home = Path(tmp)
        env = isolated_env(home, args.code)
        stores = {shape: cli_store(home, shape, env) for shape in ("small", "spread", "calendar")}
        # A chat turn marks the reminders it names as mentioned, which changes what `prompt` reads: the
        # turns run on a copy of each store, the other commands on the store as imported.
        chats = {shape: copy_store(db, home / f"{shape}-chat.db") for shape, db in stores.items()}

        def store_for(name: str, shape: str) -> Path:
            return chats[shape] if name.startswith("chat") else stores[shape]

        for shape in stores:  # a first run of each: the conversation opened, the bytecode compiled
            for name, argv in COMMANDS.items():
                timed(argv, store_for(name, shape), env)
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for name, argv in COMMANDS.items():
                for shape in stores:
                    times.setdefault((shape, name), []).append(timed(argv, store_for(name, shape), env))
        medians = {key: statistics.median(values) for key, values in times.items()}
        for (shape, name), value in medians.items():
            print(json.dumps({"store": shape, "command": name, "median_s": round(value, 3),
                              "runs": [round(t, 3) for t in times[(shape, name)]]}), flush=True)
    print("\n| command | 20 open | 20,000 spread (ratio) | 20,000 calendar (ratio) |")
    print("|---|---|---|---|")
    for name in COMMANDS:
        small = medians[("small", name)]
        cells = [f"{medians[(shape, name)]:.2f} s (x{medians[(shape, name)] / small:.2f})"
                 for shape in ("spread", "calendar")]
        print(f"| `{name}` | {small:.2f} s | {cells[0]} | {cells[1]} |")


def isolated_env(home: Path, code: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve()), "ASSISTANT_EMBEDDING_MODEL": "none",
           "ASSISTANT_PROVIDER": "offline", "ASSISTANT_CONFIG": str(home / "config.toml"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
           "OLLAMA_HOST": "http://127.0.0.1:9", "PYTHONDONTWRITEBYTECODE": "1"}
    for name in ("ASSISTANT_NOW", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ASSISTANT_TIMEZONE"):
        env.pop(name, None)
    env["TZ"] = "UTC"
    (home / "config.toml").write_text("")
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--app", action="store_true", help="the app in tmux instead of the command line")
    parser.add_argument("--runs", type=int, default=7, help="runs of each command on each store (the median)")
    parser.add_argument("--counts", default="20,2000,20000")
    parser.add_argument("--code", default=str(ROOT), help="the checkout to run (default: this one)")
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--show", action="store_true", help="print the screen as it was 5 s after the sidebar")
    args = parser.parse_args()
    if args.app:
        app_main(args)
    else:
        cli_main(args)


def app_main(args: argparse.Namespace) -> None:
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
