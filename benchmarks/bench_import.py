"""A ChatGPT export of 2,000 conversations and 100,000 messages, imported by the real CLI (issue 34).

    python benchmarks/bench_import.py [--conversations 2000] [--messages 100000] [--embed all|N] [--no-app]

Steps, each a separate process as a person would run them, on a fresh store with the bundled embedder:
1. `assistant import export.zip`: the time until it returns (every conversation committed and searchable
   by keywords; a big import leaves embedding to `index` and the app) and its peak RSS.
2. the first `assistant recall` after it (keywords find "sourdough" before anything is embedded);
3. the app's first frame on that store (tmux, as benchmarks/bench_many_reminders.py does it);
4. `assistant index` (or N texts of it, in process, with --embed N): texts embedded per second, peak RSS;
5. "what did I ask about sourdough last spring?" through `assistant recall` and the offline mode: the spring
   conversation is found;
6. the same import again: it adds nothing.
Message lengths follow a chat: a user says one to three sentences, the assistant two to twelve.
Results are printed as JSON and a table, and written to benchmarks/import.json.

    python benchmarks/bench_import.py --long-messages 4000 [--message-kb 47] [--per-conversation 10]

Long messages instead (issue 46: a 189 MB export of 4,000 messages of about 50 KB each, pasted documents
and code): the same ZIP import by the real CLI, messages per second and peak RSS; then the same import
again on a fresh store, stopped with SIGTERM (what `kill` sends) once about half its messages are
committed: its exit status and the status the store records for it ("interrupted", not "running"), and
a rerun that completes it. Written to benchmarks/import_long.json.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = """time people way year day thing man world life hand part child eye woman place work week case point
government company number group problem fact garden bread recipe flour oven trip train hotel museum budget salary
tax invoice laptop battery screen router printer python script function error database query server deploy test
bike chain tyre brake run knee shoulder doctor dentist insurance rent lease landlord contract kitchen paint wall
floor tile window heating boiler plant tomato basil soil water light camera lens photo album song guitar chord
piano lesson course exam essay thesis chapter novel author poem language grammar verb noun word sentence meeting
manager team project deadline plan goal habit sleep coffee tea breakfast dinner lunch salad soup pasta rice""".split()
TOPICS = ["travel", "cooking", "code", "health", "money", "home", "garden", "music", "study", "work", "fitness"]


def sentence(rng: random.Random, topic: str, length: int) -> str:
    words = [rng.choice(WORDS) for _ in range(length)]
    words.insert(rng.randrange(len(words)), topic)
    return " ".join(words).capitalize() + "."


def last_spring(now: datetime) -> datetime:
    """The middle of the latest spring that is over (what "last spring" means today)."""
    year = now.year if now >= datetime(now.year, 6, 1, tzinfo=UTC) else now.year - 1
    return datetime(year, 4, 18, 9, 0, tzinfo=UTC)


def make_export(path: Path, conversations: int, messages: int, now: datetime, seed: int = 3) -> dict[str, int]:
    """A ChatGPT conversations.json (in a ZIP) spread over the last three and a half years; one of them,
    last spring, about sourdough, and two more that mention sourdough at other times."""
    rng = random.Random(seed)
    per = messages // conversations
    start = now - timedelta(days=3.5 * 365)
    step = (now - timedelta(days=7) - start) / conversations
    spring = last_spring(now)
    items = []
    chars = 0
    for number in range(conversations):
        topic = TOPICS[number % len(TOPICS)]
        began = start + step * number + timedelta(minutes=rng.randint(0, 600))
        if number == conversations // 2:
            began = spring
        mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
        parent, clock = "root", began
        for turn in range(per):
            role = "user" if turn % 2 == 0 else "assistant"
            if number == conversations // 2 and turn == 0:
                text = "How long should I proof a rye sourdough loaf in a cold kitchen?"
            elif number in (conversations // 4, 3 * conversations // 4) and turn == 0:
                text = "What can I bake with sourdough discard this week?"
            elif role == "user":
                text = " ".join(sentence(rng, topic, rng.randint(6, 18)) for _ in range(rng.randint(1, 3)))
            else:
                text = " ".join(sentence(rng, topic, rng.randint(8, 22)) for _ in range(rng.randint(2, 12)))
            chars += len(text)
            clock += timedelta(seconds=rng.randint(20, 300))
            node = f"c{number}-m{turn}"
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                "id": node, "author": {"role": role, "name": None, "metadata": {}}, "create_time": clock.timestamp(),
                "update_time": None, "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully", "end_turn": True, "weight": 1.0, "metadata": {},
                "recipient": "all"}}
            mapping[parent]["children"].append(node)
            parent = node
        items.append({"id": f"bench-{number:05d}", "conversation_id": f"bench-{number:05d}",
                      "title": "Rye sourdough" if number == conversations // 2 else f"{topic.title()} {number}",
                      "create_time": began.timestamp(), "update_time": clock.timestamp(), "mapping": mapping,
                      "current_node": parent, "moderation_results": [], "is_archived": False})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps(items))
        archive.writestr("user.json", "{}")
    return {"conversations": conversations, "messages": per * conversations, "characters": chars}


def make_long_export(path: Path, messages: int, kb: int, per: int, now: datetime, seed: int = 5) -> dict[str, int]:
    """A ChatGPT export (ZIP) of `messages` messages of about `kb` KB each, `per` to a conversation: long
    pasted texts, a user's and an assistant's alike. Written conversation by conversation, so the
    benchmark itself does not hold the whole export in memory."""
    rng = random.Random(seed)
    start = now - timedelta(days=2 * 365)
    chars = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("conversations.json", "w", force_zip64=True) as out:
            out.write(b"[")
            for number in range(messages // per):
                topic = TOPICS[number % len(TOPICS)]
                began = start + timedelta(hours=12 * number)
                mapping: dict[str, dict[str, object]] = {
                    "root": {"id": "root", "message": None, "parent": None, "children": []}}
                parent, clock = "root", began
                for turn in range(per):
                    parts, size = [], 0
                    while size < kb * 1024:
                        said = sentence(rng, topic, rng.randint(8, 22))
                        parts.append(said)
                        size += len(said) + 1
                    text = " ".join(parts)
                    chars += len(text)
                    clock += timedelta(seconds=rng.randint(20, 300))
                    node = f"c{number}-m{turn}"
                    mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                        "id": node, "author": {"role": "user" if turn % 2 == 0 else "assistant"},
                        "create_time": clock.timestamp(), "content": {"content_type": "text", "parts": [text]},
                        "recipient": "all", "metadata": {}}}
                    mapping[parent]["children"].append(node)  # type: ignore[attr-defined]
                    parent = node
                item = {"id": f"long-{number:05d}", "title": f"{topic.title()} notes {number}",
                        "create_time": began.timestamp(), "update_time": clock.timestamp(), "mapping": mapping,
                        "current_node": parent}
                out.write((b"," if number else b"") + json.dumps(item).encode())
            out.write(b"]")
        archive.writestr("user.json", "{}")
    return {"conversations": messages // per, "messages": messages // per * per, "characters": chars}


def long_messages(args: argparse.Namespace) -> None:
    """The long-messages run (see the module's text)."""
    import signal
    import sqlite3

    now = datetime.now(UTC).replace(microsecond=0)
    out: dict[str, object] = {"messages": args.long_messages, "message_kb": args.message_kb,
                              "per_conversation": args.per_conversation, "load_average_at_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="bench-import-long-") as tmp:
        home = Path(tmp)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ASSISTANT_PROVIDER": "offline",
               "ASSISTANT_CONFIG": str(home / "config.toml"), "XDG_DATA_HOME": str(home / "data"),
               "XDG_STATE_HOME": str(home / "state"), "XDG_CONFIG_HOME": str(home / "config"),
               "XDG_CACHE_HOME": str(home / "cache"), "ASSISTANT_NOW": now.isoformat(),
               "ASSISTANT_EMBEDDING_MODEL": "none"}  # embedding is measured by the main run
        env.pop("ASSISTANT_DB", None)
        (home / "config.toml").write_text("")
        export = home / "export.zip"
        begun = time.monotonic()
        out["export"] = make_long_export(export, args.long_messages, args.message_kb, args.per_conversation, now)
        out["export_mb"] = round(export.stat().st_size / 2**20, 1)
        with zipfile.ZipFile(export) as archive:
            out["conversations_json_mb"] = round(archive.getinfo("conversations.json").file_size / 2**20, 1)
        out["generate_s"] = round(time.monotonic() - begun, 1)
        print(json.dumps(out), flush=True)

        db = home / "whole.db"
        seconds, peak, stdout, _ = run(["import", str(export), "--db", str(db), "--json"], env)
        summary = json.loads(stdout)
        out["import"] = {"seconds": seconds, "peak_rss_mb": peak, "messages_added": summary["messages_added"],
                         "messages_per_s": round(summary["messages_added"] / seconds, 1)}
        print(json.dumps(out["import"]), flush=True)

        # Stopped half way with SIGTERM, as `kill PID` stops it.
        db = home / "stopped.db"
        command = [sys.executable, "-m", "ui.entry", "import", str(export), "--db", str(db)]
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   cwd=str(ROOT))
        half, committed, begun = args.long_messages // 2, 0, time.monotonic()
        while process.poll() is None and committed < half:
            time.sleep(0.5)
            if db.exists():
                with contextlib.suppress(sqlite3.Error):
                    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as conn:
                        committed = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        stopped_after = round(time.monotonic() - begun, 1)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=600)
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            status = conn.execute("SELECT status FROM imports ORDER BY id DESC LIMIT 1").fetchone()
            kept = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        seconds, _, stdout, _ = run([*command[3:], "--json"], env)
        again = json.loads(stdout)
        out["stopped"] = {"after_s": stopped_after, "messages_committed_when_signalled": committed,
                          "exit_status": process.returncode, "recorded_status": status[0] if status else None,
                          "messages_kept": kept, "said": stderr.strip().splitlines()[-1:] if stderr else [],
                          "rerun_added": again["messages_added"], "rerun_s": seconds,
                          "complete_after_rerun": kept + again["messages_added"] == args.long_messages}
        print(json.dumps(out["stopped"]), flush=True)
    out["load_average_at_end"] = os.getloadavg()[0]
    (ROOT / "benchmarks" / "import_long.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    imp, stop = out["import"], out["stopped"]
    print("\n| long messages | figure |\n|---|---|")
    print(f"| import of {out['conversations_json_mb']} MB | {imp['seconds']} s, "  # type: ignore[index]
          f"{imp['messages_per_s']} messages/s, peak {imp['peak_rss_mb']} MB |")  # type: ignore[index]
    print(f"| SIGTERM half way | exit {stop['exit_status']}, recorded {stop['recorded_status']!r}, "  # type: ignore[index]
          f"rerun adds {stop['rerun_added']} |")  # type: ignore[index]


def run(args: list[str], env: dict[str, str], timeout: float = 3600) -> tuple[float, float, str, str]:
    """(seconds, peak RSS in MB, stdout, stderr) of one CLI process."""
    command = ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "ui.entry", *args]
    start = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, cwd=str(ROOT))
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    lines = done.stderr.strip().splitlines()
    peak = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else 0.0
    return round(seconds, 2), round(peak, 1), done.stdout, "\n".join(lines[:-1])


def first_frame(db: Path, env: dict[str, str], timeout: float = 60) -> float | None:
    """Seconds from starting the app in tmux (a private server) to its footer on screen."""
    import shlex

    tmux = ["tmux", "-L", "bench-import"]
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()
                       if k.startswith(("ASSISTANT_", "PYTHON", "XDG_")))
    line = f"env {exports} {shlex.quote(sys.executable)} -m ui.entry --db {shlex.quote(str(db))}; sleep 30"
    subprocess.run([*tmux, "kill-server"], capture_output=True)  # one left by an interrupted run
    time.sleep(0.5)
    start = time.monotonic()
    subprocess.run([*tmux, "new-session", "-d", "-s", "app", "-x", "120", "-y", "40", "-c", str(ROOT), line],
                   check=True)
    try:
        while time.monotonic() - start < timeout:
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", "app"], capture_output=True, text=True).stdout
            if "^q" in screen or "Quit" in screen:
                return round(time.monotonic() - start, 2)
            time.sleep(0.05)
        return None
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--embed", default="all", help="all (assistant index) or a number of texts to embed")
    parser.add_argument("--no-app", action="store_true", help="skip the app's first frame (no tmux)")
    parser.add_argument("--long-messages", type=int, default=0, help="run the long-messages import instead: "
                        "this many messages")
    parser.add_argument("--message-kb", type=int, default=47, help="with --long-messages: KB per message")
    parser.add_argument("--per-conversation", type=int, default=10, help="with --long-messages: messages per "
                        "conversation")
    args = parser.parse_args()
    if args.long_messages:
        long_messages(args)
        return
    now = datetime.now(UTC).replace(microsecond=0)
    out: dict[str, object] = {"conversations": args.conversations, "messages": args.messages,
                              "load_average_at_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        home = Path(tmp)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ASSISTANT_PROVIDER": "offline",
               "ASSISTANT_CONFIG": str(home / "config.toml"), "XDG_DATA_HOME": str(home / "data"),
               "XDG_STATE_HOME": str(home / "state"), "XDG_CONFIG_HOME": str(home / "config"),
               "XDG_CACHE_HOME": str(home / "cache"), "ASSISTANT_NOW": now.isoformat()}
        for name in ("ASSISTANT_EMBEDDING_MODEL", "ASSISTANT_DB"):
            env.pop(name, None)
        (home / "config.toml").write_text("")
        export, db = home / "export.zip", home / "memory.db"
        start = time.monotonic()
        out["export"] = make_export(export, args.conversations, args.messages, now)
        out["export_mb"] = round(export.stat().st_size / 2**20, 1)
        out["generate_s"] = round(time.monotonic() - start, 1)
        print(json.dumps(out), flush=True)

        seconds, peak, stdout, stderr = run(["import", str(export), "--db", str(db), "--json"], env)
        summary = json.loads(stdout)
        out["import"] = {"searchable_by_keywords_s": seconds, "peak_rss_mb": peak,
                         "messages_added": summary["messages_added"],
                         "conversations_added": summary["conversations_added"],
                         "messages_per_s": round(summary["messages_added"] / seconds),
                         "pending_embeddings": summary.get("pending_embeddings")}
        print(json.dumps(out["import"]), flush=True)

        seconds, peak, stdout, _ = run(["recall", "sourdough", "--db", str(db), "--json"], env)
        hits = json.loads(stdout)
        out["first_recall"] = {"seconds": seconds, "peak_rss_mb": peak,
                               "found_sourdough": any("sourdough" in h["content"].lower() for h in hits)}
        print(json.dumps(out["first_recall"]), flush=True)
        if not args.no_app:
            out["first_app_frame_s"] = first_frame(db, env)
            print(json.dumps({"first_app_frame_s": out["first_app_frame_s"]}), flush=True)

        if args.embed == "all":
            seconds, peak, stdout, _ = run(["index", "--db", str(db), "--json"], env, timeout=6 * 3600)
            embedded = json.loads(stdout)["embedded"]
        else:
            from memory.search.embeddings import LocalEmbedder, sync_embeddings
            from memory.store import Store

            embedder = LocalEmbedder(cache_dir=home / "cache")
            embedder.load()
            import resource

            with Store(db) as store:
                begun, cpu = time.monotonic(), time.process_time()
                embedded = sync_embeddings(store, embedder, limit=int(args.embed))
                seconds, cpu = round(time.monotonic() - begun, 2), time.process_time() - cpu
                peak = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
            # On a shared machine the wall clock says how busy it was: the CPU time the two onnxruntime
            # threads took says what an idle two-core machine would do.
            out["embedding_cpu_s"] = round(cpu, 1)
            out["embedding_idle_estimate_per_s"] = round(embedded / (cpu / 2))
        out["embedding"] = {"texts": embedded, "seconds": seconds, "texts_per_s": round(embedded / seconds),
                            "peak_rss_mb": peak, "all": args.embed == "all"}
        print(json.dumps(out["embedding"]), flush=True)

        question = "what did I ask about sourdough last spring?"
        seconds, _, stdout, _ = run(["recall", question, "--db", str(db), "--json"], env)
        hits = json.loads(stdout)
        lookup = ("import sys; from memory.store import Store; s = Store(sys.argv[1]); "
                  "print(s.one(\"SELECT id FROM episodes WHERE title = 'Rye sourdough'\")[0])")
        spring = subprocess.run([sys.executable, "-c", lookup, str(db)], capture_output=True, text=True, env=env,
                                cwd=str(ROOT)).stdout.strip()
        first = hits[0] if hits else {}
        out["sourdough_recall"] = {"seconds": seconds, "first_hit_in_spring_conversation": str(
            first.get("id") if first.get("type") == "episode" else first.get("episode_id")) == spring,
                                   "first_hit": str(first.get("content"))[:100]}
        seconds, _, stdout, _ = run(["chat", question, "--db", str(db)], env)
        out["sourdough_offline"] = {"seconds": seconds, "answer": stdout.strip()[:160],
                                    "found": bool(re.match(r"You asked \(\w+ \w+ \d+.*Rye sourdough", stdout))}
        print(json.dumps({k: out[k] for k in ("sourdough_recall", "sourdough_offline")}), flush=True)

        seconds, peak, stdout, _ = run(["import", str(export), "--db", str(db), "--json"], env)
        again = json.loads(stdout)
        out["reimport"] = {"seconds": seconds, "conversations_added": again["conversations_added"],
                           "messages_added": again["messages_added"]}
        print(json.dumps(out["reimport"]), flush=True)
    out["load_average_at_end"] = os.getloadavg()[0]
    (ROOT / "benchmarks" / "import.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    imp, emb = out["import"], out["embedding"]
    print("\n| step | figure | goal |\n|---|---|---|")
    print(f"| import (searchable by keywords) | {imp['searchable_by_keywords_s']} s, "  # type: ignore[index]
          f"{imp['messages_per_s']:,} messages/s, peak {imp['peak_rss_mb']} MB | < 60 s |")  # type: ignore[index]
    print(f"| first recall after it | {out['first_recall']['seconds']} s |  |")  # type: ignore[index]
    print(f"| first app frame after it | {out.get('first_app_frame_s')} s | < 0.5 s |")
    print(f"| embedding | {emb['texts_per_s']} texts/s ({emb['texts']:,} in {emb['seconds']} s), "  # type: ignore[index]
          f"peak {emb['peak_rss_mb']} MB | >= 300/s |")  # type: ignore[index]
    print(f"| re-import | adds {out['reimport']['messages_added']} in {out['reimport']['seconds']} s | 0 |")  # type: ignore[index]


if __name__ == "__main__":
    main()
