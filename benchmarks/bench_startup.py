"""The start-up of the light commands, this checkout against another commit: whole-process
`assistant reminders` (CPU and wall) and the notifier's resident memory after start.

    python benchmarks/bench_startup.py --before REF [--runs 40] [--json FILE]

REF (a commit or branch) is extracted with `git archive` into a temporary folder and run with this
venv, PYTHONPATH putting it first, so both sides have the same interpreter and dependencies. A private
HOME holds a store with 20 open reminders and a config file (a zone, a [prompt] key, a theme). Each
case runs before and after in turn, the order alternating, after 3 warm-up runs of each, so both see
the same load; the ratio is the median of the paired ratios after / before. Both sides are
compiled to bytecode first.

Cases: a config file with the cache dir kept between runs (a person's shell, day to day); the same
with a new cache dir every run (a first start, or the first after the file changed: whatever a
command keeps there is gone); no config file. The notifier (`assistant notify --json`) is started
with a kept and with a new cache dir; its RSS is read from /proc once it says it started.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSISTANT = Path(sys.executable).with_name("assistant")
CONFIG = 'timezone = "Europe/Berlin"\n[prompt]\nmax_memory_tokens = 5000\n[ui]\ntheme = "nord"\n'


def extract(ref: str, into: Path) -> Path:
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(into)], check=True)
    return into


def environment(home: Path, code: Path | None, config: Path | None, cache: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ASSISTANT_", "XDG_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(cache), ASSISTANT_DB=str(home / "m.db"),
               ASSISTANT_NOW="2026-11-22T14:00:00Z", ASSISTANT_PROVIDER="offline")
    if config:
        env["ASSISTANT_CONFIG"] = str(config)
    if code:
        env["PYTHONPATH"] = str(code)
    return env


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, user + system; wall seconds) of one process."""
    began = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} failed: {proc.stderr.read() if proc.stderr else ''}")
    return usage.ru_utime + usage.ru_stime, wall


def notifier_rss(env: dict[str, str]) -> float:
    proc = subprocess.Popen([str(ASSISTANT), "notify", "--json"], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    started = json.loads(proc.stdout.readline())
    assert started["event"] in ("started", "no_desktop"), started
    time.sleep(0.5)
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    proc.terminate()
    proc.wait(timeout=30)
    return round(rss, 1)


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 4), "p95": round(ordered[round(0.95 * (len(ordered) - 1))], 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit or branch to compare with")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        before = extract(args.before, folder / "before")
        for package in ("memory", "assistant", "ui"):  # both sides run from bytecode (PYTHONDONTWRITEBYTECODE aside)
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / package)], check=True)
        home = folder / "home"
        home.mkdir()
        config = home / "config.toml"
        config.write_text(CONFIG)
        setup = environment(home, None, None, home / "cache")
        for i in range(20):
            subprocess.run([str(ASSISTANT), "remember", f"call number {i}", "--due", f"in {i + 1} days"],
                           env=setup, check=True, capture_output=True)
        sides = {"before": before, "after": None}
        report: dict[str, object] = {"before": args.before, "runs": args.runs, "load": os.getloadavg()}
        cases = {"config file, cache dir kept": (config, False), "config file, new cache dir each run": (config, True),
                 "no config file": (None, False)}
        for case, (config_file, fresh) in cases.items():
            figures: dict[str, dict[str, list[float]]] = {side: {"cpu": [], "wall": []} for side in sides}
            for round_ in range(args.runs + 3):
                order = list(sides) if round_ % 2 else list(reversed(sides))
                for side in order:
                    cache = folder / f"cache-{side}" / (str(round_) if fresh else "kept")
                    cpu, wall = timed([str(ASSISTANT), "reminders"],
                                      environment(home, sides[side], config_file, cache))
                    if round_ >= 3:
                        figures[side]["cpu"].append(cpu)
                        figures[side]["wall"].append(wall)
            ratios = [a / b for a, b in zip(figures["after"]["cpu"], figures["before"]["cpu"], strict=True)]
            figures_of_case: dict[str, object] = {
                side: {kind: summary(values) for kind, values in figures[side].items()} for side in sides}
            figures_of_case["cpu ratio after / before (paired median)"] = round(statistics.median(ratios), 3)
            report[case] = figures_of_case
            print(case, json.dumps(report[case]), flush=True)
        for fresh in (False, True):
            name = f"notifier RSS MB, {'new' if fresh else 'kept'} cache dir"
            rss = {side: notifier_rss(environment(home, sides[side], config, folder / f"rss-{side}-{fresh}"
                                                  / ("new" if fresh else "kept"))) for side in sides}
            if not fresh:  # kept: a second start, after the first one kept what it keeps
                rss = {side: notifier_rss(environment(home, sides[side], config, folder / f"rss-{side}-{fresh}"
                                                      / "kept")) for side in sides}
            report[name] = rss
            print(name, rss, flush=True)
        report["load after"] = os.getloadavg()
        if args.json:
            args.json.write_text(json.dumps(report, indent=1) + "\n")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
