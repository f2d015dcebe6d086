"""Repeating rules and relative dates on hostile sizes (issue 22 item 11, issue 20 item 10); not a test.

    python benchmarks/bench_rules.py            # everything (a minute or two)
    python benchmarks/bench_rules.py --quick    # skips the every-second series (minutes before the fix)

What is timed, each in a fresh store with a frozen clock:
- an .ics file with 10 hourly series starting in 1970, imported; then `done` on one of them; then
  the next occurrence of such a series (the arithmetic every due watcher repeats);
- an .ics series that repeats every second through BYMINUTE/BYSECOND lists (refused now);
- a 30 KB rule phrase ("every monday and monday and ... friday");
- a 1.9 MB message (and a 100,000-character memory) of relative dates: what their time_refs hold,
  and whole-process `prompt` and `recall --reason --json` over them.
Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from memory import reminders
from memory.errors import DateParseError, ImportFailed
from memory.store import Store
from memory.time.clock import Clock
from memory.time.zones import zone_from_name
from memory.transfer.ical import import_calendar

NOW = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)


def calendar(events: list[str]) -> str:
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n" + "".join(events) + "END:VCALENDAR\r\n"


def event(uid: str, start: str, rule: str) -> str:
    return (f"BEGIN:VEVENT\r\nUID:{uid}\r\nSUMMARY:series {uid}\r\nDTSTART;TZID=Europe/Berlin:{start}\r\n"
            f"RRULE:{rule}\r\nEND:VEVENT\r\n")


def timed(action):
    started = time.perf_counter()
    try:
        result = action()
    except (ImportFailed, DateParseError, ValueError) as exc:
        result = f"refused: {str(exc)[:80]}"
    return round(time.perf_counter() - started, 3), result


def hourly_1970(folder: Path) -> dict:
    store = Store(folder / "hourly.db", Clock(zone_from_name("Europe/Berlin"), NOW))
    text = calendar([event(f"h{i}", f"197001{i + 1:02d}T0{i % 10}1500", "FREQ=HOURLY") for i in range(10)])
    seconds, result = timed(lambda: import_calendar(store, text))
    first = store.one("SELECT min(id) FROM knowledge")[0]
    done_seconds, done = timed(lambda: reminders.mark_done(store, first))
    from memory.memories import get_memory

    rule = get_memory(store, first).rule
    runs, started = 0, time.perf_counter()
    while runs < 100 and (runs == 0 or time.perf_counter() - started < 5):  # one run when each takes seconds
        rule.next_after(NOW)
        runs += 1
    next_ms = (time.perf_counter() - started) * 1000 / runs
    store.close()
    return {"import_s": seconds, "imported": getattr(result, "imported", result), "done_s": done_seconds,
            "next_due": getattr(done, "due_at", done), "next_after_ms": round(next_ms, 2)}


def every_second(folder: Path) -> dict:
    store = Store(folder / "second.db", Clock(zone_from_name("Europe/Berlin"), NOW))
    minutes, seconds_list = ",".join(map(str, range(60))), ",".join(map(str, range(60)))
    # Begun a week ago: every one of its seconds since then is walked to find the next one.
    text = calendar([event("s", "20261115T150000", f"FREQ=HOURLY;BYMINUTE={minutes};BYSECOND={seconds_list}")])
    took, result = timed(lambda: import_calendar(store, text))
    store.close()
    return {"import_s": took, "result": getattr(result, "imported", result)}


def long_rule_phrase() -> dict:
    from memory.time.rules import parse_recurrence

    phrase = "every monday and " * 1800 + "friday"  # about 30 KB
    took, result = timed(lambda: parse_recurrence(phrase, NOW, UTC))
    return {"chars": len(phrase), "parse_s": took,
            "result": result if isinstance(result, str) else result[0].rule[:60]}


def relative_dates_message(folder: Path) -> dict:
    """A 1.9 MB message and a 100,000-character memory (the longest kept) of relative dates: what
    their time_refs hold, and whole-process `prompt` and `recall --reason` over them."""
    from memory import memories
    from memory.episodes import add_message, open_episode
    from memory.time.references import annotate

    chunk = "yesterday we met, last week I went out, 3 days ago it rained and next friday is the party. "
    text = (chunk * (1_900_000 // len(chunk) + 1))[:1_900_000]
    started = time.perf_counter()
    refs = annotate(text, NOW.replace(tzinfo=None))
    annotate_s = time.perf_counter() - started
    db = folder / "refs.db"
    store = Store(db, Clock(zone_from_name("UTC"), NOW))
    add_message(store, open_episode(store).id, "user", text)
    memories.remember(store, text[:100_000], kind="note")
    stored = store.one("SELECT (SELECT length(time_refs) FROM messages) + (SELECT length(time_refs) FROM knowledge)")[0]
    store.close()
    env = {**os.environ, "ASSISTANT_EMBEDDING_MODEL": "none", "ASSISTANT_TIMEZONE": "UTC",
           "ASSISTANT_PROVIDER": "offline", "HOME": str(folder), "XDG_CONFIG_HOME": str(folder / "config")}
    out = {"message_chars": len(text), "refs": len(refs), "annotate_s": round(annotate_s, 3), "time_refs_bytes": stored}
    for name, args in (("prompt", ["prompt", "--query", "what happened yesterday"]),
                       ("recall_reason", ["recall", "--reason", "--json", "when did it rain"])):
        command = [str(Path(sys.executable).with_name("assistant")), *args, "--db", str(db), "--now", NOW.isoformat()]
        started = time.perf_counter()
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        out[f"{name}_process_s"] = round(time.perf_counter() - started, 2)
        out[f"{name}_exit"], out[f"{name}_output_bytes"] = run.returncode, len(run.stdout)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the every-second series")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        out = {"hourly_1970_x10": hourly_1970(folder), "rule_phrase_30kb": long_rule_phrase(),
               "relative_dates_1_9mb": relative_dates_message(folder)}
        if not args.quick:
            out["every_second_series"] = every_second(folder)
    print(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
