"""The app as a person uses it over time: a scripted hour, and what stays resident (not a test).

    python benchmarks/bench_hour.py                      100 turns (an hour), RSS after each turn
    python benchmarks/bench_hour.py --turns 500          ... and RSS after 50 and after 500 turns
    python benchmarks/bench_hour.py --tracemalloc        the Python allocations that grew most
    python benchmarks/bench_hour.py --census             the live objects, by type, that grew from turn 50
    python benchmarks/bench_hour.py --frames --elia      first frame and RSS in tmux, next to Elia
    python benchmarks/bench_hour.py --readme             the table in docs/speed.md from benchmarks/hour.json

The real app (ui.app.AssistantApp, Textual's headless driver through run_test) on a fresh store in
a temporary directory, the built-in offline provider and the real bundled embedder. The clock
starts frozen at 2026-11-22 09:00 UTC and moves 36 s a turn, so 100 turns are one hour; ten
reminders written before the start fall due during that hour (the app announces each). The
script cycles through what the offline mode understands: remembering facts, reminders set and
asked for, questions answered from memory, "what did we talk about"; every 20 turns the recap
(ctrl+r) opens and closes, every 25 the conversations screen (ctrl+o) opens, is searched and
closes, every 40 a new conversation starts (ctrl+n).

RSS is read from /proc/self/status after each turn (the headless driver draws nothing to a
terminal: a real one adds the output buffers, ~1 MB). With --tracemalloc the run is slower and the
figures are Python allocations only (onnxruntime's and SQLite's own memory are not Python objects).

--frames measures the first frame in tmux as benchmarks/bench_scale.py does (the footer drawn), and
the RSS at that moment and 3 s later, for the app and, with --elia, for Elia (pip-installed into a
throwaway venv under /tmp; skipped with a note when it cannot be installed) and a bare Textual app
(a TextArea and a Footer: the floor any Textual app pays), interleaved so that all see the same load.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
STEP = timedelta(seconds=36)  # 100 turns = one hour
ELIA_VENV = Path(tempfile.gettempdir()) / "assistant-bench-elia"

SCRIPT = [
    "remember that the door code at the studio is 4471",
    "remind me to water the plants in 20 minutes",
    "what's coming up",
    "remember that Ana prefers tea over coffee",
    "what does Ana prefer",
    "remind me to call the bank tomorrow at 10am",
    "what did we talk about",
    "remember that the car needs new tyres before winter",
    "when did I mention the tyres",
    "what is the door code",
    "remember that the spare key is under the blue pot",
    "where is the spare key",
    "remind me to buy bread this evening",
    "tell me about the budget for the trip",
]


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def slope(values: list[float], start: int) -> float | None:
    """Least-squares growth per turn of values[start:] (MB a turn), None when too few."""
    ys = values[start:]
    if len(ys) < 10:
        return None
    xs = range(len(ys))
    mean_x, mean_y = statistics.mean(xs), statistics.mean(ys)
    num = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    return round(num / sum((x - mean_x) ** 2 for x in xs), 4)


def dom_widgets(app) -> int:
    """Widgets mounted on every screen of the stack (what Textual lays out and styles)."""
    return sum(1 for screen in app.screen_stack for _ in screen.walk_children(with_self=True))


def alive_widgets() -> int:
    """Widget objects still alive after a collection: more than the DOM holds means removed ones are kept."""
    from textual.widget import Widget

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Widget))


def census() -> dict[str, int]:
    """Live Python objects by type (gc's view, after a collection): objgraph's `typestats`, without objgraph."""
    gc.collect()
    counts: dict[str, int] = {}
    for o in gc.get_objects():
        name = f"{type(o).__module__}.{type(o).__qualname__}"
        counts[name] = counts.get(name, 0) + 1
    return counts


def holders(app) -> dict[str, int]:
    """The sizes of what the app keeps between turns (the caches and lists a turn could add to)."""
    searcher = app.runtime.__dict__.get("searcher")
    chat = app.main_screen.chat
    from memory.search.embeddings import pending_count

    embedder = app.runtime.__dict__.get("embedder")
    return {"notifications": len(app._notifications), "workers": len(app.workers),
            "pending_embeddings": pending_count(app.runtime.store), "embedder_loads": getattr(embedder, "loads", 0),
            "chat_log_entries": len(chat.chat_log.entries), "input_history": len(chat.composer.sent_history),
            "searcher_common_words": len(searcher._common) if searcher else 0,
            "searcher_word_counts": len(searcher._counts) if searcher else 0,
            "screen_stack": len(app.screen_stack), "timers": len(app._timers) if hasattr(app, "_timers") else -1}


async def workers_done(app) -> None:
    """Wait for the app's workers; one replaced by a newer one (exclusive) is cancelled, which is no failure."""
    from textual.worker import WorkerCancelled

    while True:
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def seed_store(db: Path) -> None:
    """Ten reminders falling due within the hour, plus some history to search."""
    from assistant.runtime import Runtime
    from assistant.settings import load_settings
    from memory import memories

    rt = Runtime(load_settings(env=bench_env(db)))
    for i in range(10):
        due = START + timedelta(minutes=5 + 5 * i)
        memories.remember(rt.store, f"reminder {i}: stretch and drink water", due_at=due.isoformat())
    for i in range(200):
        memories.remember(rt.store, f"note {i}: the {['garden', 'budget', 'trip', 'car', 'studio'][i % 5]} "
                                    f"item number {i} was discussed")
    if rt.embedder is not None:  # embedded, as the app's idle time would have done: the hour measures turns, and
        from memory.search.embeddings import sync_embeddings  # a search leaves a backlog (over 32) alone

        sync_embeddings(rt.store, rt.embedder)
    rt.close()


def bench_env(db: Path) -> dict[str, str]:
    chosen = {k: v for k, v in os.environ.items() if k.startswith("ASSISTANT_")}  # e.g. ASSISTANT_EMBEDDING_MODEL
    return {**chosen, "ASSISTANT_DB": str(db), "ASSISTANT_NOW": START.isoformat(), "ASSISTANT_TIMEZONE": "UTC",
            "ASSISTANT_PROVIDER": "offline"}


def bound_arenas_as_the_app_does() -> bool:
    """What the console script does with malloc before the app starts (ui.entry: bound_malloc_arenas,
    fix_mmap_threshold), as far as this checkout has it."""
    try:
        from ui.entry import bound_malloc_arenas
    except ImportError:
        return False
    try:
        from ui.entry import fix_mmap_threshold
    except ImportError:
        pass
    else:
        fix_mmap_threshold()
    return bound_malloc_arenas()


async def scripted_hour(turns: int, trace: bool, count_objects: bool = False) -> dict:
    from assistant.settings import load_settings
    from ui.app import AssistantApp

    tmp = Path(tempfile.mkdtemp(prefix="assistant-hour-"))
    os.environ.update({"XDG_STATE_HOME": str(tmp / "state"), "XDG_CONFIG_HOME": str(tmp / "config"),
                       "XDG_CACHE_HOME": str(tmp / "cache"), "XDG_DATA_HOME": str(tmp / "data")})
    db = tmp / "hour.db"
    seed_store(db)
    app = AssistantApp(load_settings(env=bench_env(db)))
    rss: list[float] = []
    anon: list[float] = []
    widgets_per_turn: list[int] = []  # widgets in the DOM of every screen on the stack
    chat_widgets: list[int] = []  # ... in the chat log alone
    live_widgets: dict[int, int] = {}  # Widget objects alive (gc), every 25 turns: removed widgets still held
    traced: list[float] = []  # Python's own allocations (tracemalloc), MB
    seen: set[str] = set()
    turn_seconds: list[float] = []
    snapshots = {}
    censuses: dict[int, dict[str, int]] = {}
    first_snapshot = 50 if turns > 100 else 10  # past the caches that fill in the first turns
    held: dict[int, dict[str, int]] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await workers_done(app)
        rss_start = rss_mb()
        if trace:
            import tracemalloc

            tracemalloc.start(1)  # the line that allocated: deeper tracebacks made a turn ten times slower
        screen = app.main_screen
        for turn in range(1, turns + 1):
            app.runtime.clock.fixed = START + STEP * turn
            text = SCRIPT[turn % len(SCRIPT)]
            started = time.perf_counter()
            screen.composer.insert(text)
            await pilot.press("enter")
            await pilot.pause()
            while screen.chat.busy:
                await pilot.pause(0.01)
            await workers_done(app)
            await pilot.pause()
            turn_seconds.append(time.perf_counter() - started)
            if turn % 20 == 0:  # the recap, opened and closed
                await pilot.press("ctrl+r")
                await workers_done(app)
                await pilot.pause()
                await pilot.press("escape")
                await pilot.pause()
            if turn % 25 == 0:  # the conversations screen, searched, closed
                await pilot.press("ctrl+o")
                await pilot.pause()
                await workers_done(app)
                for key in "door":
                    await pilot.press(key)
                await pilot.pause(0.3)
                await workers_done(app)
                await pilot.press("escape")
                await pilot.pause()
                await pilot.press("escape")
                await pilot.pause()
            if turn % 40 == 0:  # a new conversation
                await pilot.press("ctrl+n")
                await workers_done(app)
                await pilot.pause()
            seen.update(str(n.message) for n in app._notifications if "stretch" in str(n.message))
            gc.collect()
            rss.append(rss_mb())
            anon.append(rss_mb("RssAnon"))
            widgets_per_turn.append(dom_widgets(app))
            chat_widgets.append(sum(1 for _ in screen.chat.chat_log.walk_children()))
            if turn % 25 == 0 or turn == 1:
                live_widgets[turn] = alive_widgets()
            if trace:
                import tracemalloc

                traced.append(tracemalloc.get_traced_memory()[0] / 2 ** 20)
            if trace and turn in (first_snapshot, turns):
                import tracemalloc

                snapshots[turn] = tracemalloc.take_snapshot()
            if turn % 50 == 0 or turn == turns:
                held[turn] = holders(app)
                if count_objects and (turn == 50 or turn == turns):
                    censuses[turn] = census()
            if turn % 50 == 0:
                log(f"turn {turn}: RSS {rss[-1]:.0f} MB, turn {statistics.median(turn_seconds[-50:]):.2f} s")
        widgets = len(list(app.query("*")))
        chat_children = len(screen.chat.chat_log.children)
        due_lines = len(app.query(".tool-line.reminder"))
        await pilot.press("ctrl+q")
    result = {"turns": turns, "rss_start_mb": round(rss_start, 1), "rss_mb": [round(r, 1) for r in rss],
              "turn_median_s": round(statistics.median(turn_seconds), 3),
              "turn_p95_s": round(sorted(turn_seconds)[int(0.95 * len(turn_seconds)) - 1], 3),
              "widgets_at_end": widgets, "chat_children_at_end": chat_children, "due_lines_in_chat": due_lines,
              "reminders_announced": len(seen),
              "rss_anon_mb": [round(r, 1) for r in anon], "rss_file_mb_at_end": round(rss_mb("RssFile"), 1),
              "widgets_per_turn": widgets_per_turn, "chat_widgets_per_turn": chat_widgets,
              "widget_objects_alive": live_widgets, "threads_at_end": threading.active_count(),
              "rss_slope_mb_per_turn_after_50": slope(rss, 50),
              "traced_mb": [round(t, 2) for t in traced], "traced_slope_mb_per_turn_after_50": slope(traced, 50),
              "heavy_modules": sorted({m.split(".")[0] for m in sys.modules} & {
                  "numpy", "onnxruntime", "tokenizers", "scipy", "sklearn", "fastembed", "markdown_it", "pygments"})}
    result["held"] = held
    if len(censuses) == 2:
        first, last = censuses[50], censuses[turns]
        grown = sorted(((last.get(k, 0) - first.get(k, 0), k) for k in set(first) | set(last)), reverse=True)
        result["objects_grown_from_50"] = [f"{n:+d} {k}" for n, k in grown[:25] if n > 0]
        result["objects_at_end"] = sum(last.values())
        result["objects_at_50"] = sum(first.values())
    for at in (50, 100, 250, 300, 500):
        if len(rss) >= at:
            result[f"rss_after_{at}_mb"] = round(rss[at - 1], 1)
    if trace and len(snapshots) == 2:
        first, last = snapshots[first_snapshot], snapshots[turns]
        growers = last.compare_to(first, "lineno")[:15]
        result["tracemalloc_from_turn"] = first_snapshot
        result["tracemalloc_top"] = [f"{s.size_diff / 1024:+.0f} KiB {s.count_diff:+d} blocks "
                                     f"{s.traceback[0].filename.replace(str(ROOT) + '/', '')}:{s.traceback[0].lineno}"
                                     for s in growers]
    return result


# -- the embedder let go and loaded again ------------------------------------------------------------

def embedder_cycle(rounds: int) -> dict:
    """In one process, as the app uses it: the model loaded by a first query, resident memory then,
    after `unload` (what embedding_unload_minutes does), and after the next query loads it again, with
    the time of that query (load included) next to a warm one. `rounds` unload/reload cycles."""
    from memory.search.embeddings import LocalEmbedder

    gc.collect()
    out: dict = {"rss_before_mb": round(rss_mb(), 1)}
    embedder = LocalEmbedder(cache_dir=Path(tempfile.mkdtemp(prefix="assistant-embedder-")))
    started = time.perf_counter()
    embedder.embed(["what is the door code"])
    out["first_query_s"] = round(time.perf_counter() - started, 3)
    for text in SCRIPT * 3:  # a while of use
        embedder.embed([text])
    started = time.perf_counter()
    embedder.embed(["where is the spare key"])
    out["warm_query_s"] = round(time.perf_counter() - started, 4)
    out["rss_loaded_mb"] = round(rss_mb(), 1)
    reloads, unloaded, loaded = [], [], []
    for _ in range(rounds):
        embedder.unload()
        unloaded.append(round(rss_mb(), 1))
        started = time.perf_counter()
        embedder.embed(["what's coming up"])
        reloads.append(round(time.perf_counter() - started, 3))
        for text in SCRIPT:
            embedder.embed([text])
        loaded.append(round(rss_mb(), 1))
    out.update({"rss_unloaded_mb": unloaded, "reload_query_s": reloads, "rss_reloaded_mb": loaded,
                "loads": embedder.loads})
    return out


# -- a long conversation reopened ------------------------------------------------------------------

WORDS = ("garden budget trip car studio plants bank bread tea coffee tyres winter key door code plumber rent "
         "meeting train ticket dentist sister birthday recipe oven paint shelf kitchen bike repair invoice").split()


def conversation_lines(messages: int, seed: int = 5) -> list[str]:
    """JSON Lines of one closed conversation of `messages` messages (user and Markdown answers of
    realistic lengths: paragraphs, lists, bold, inline code, now and then a code block) and a shorter
    one before it."""
    import random

    rng = random.Random(seed)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."

    def answer() -> str:
        blocks = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            if kind < 0.5:
                blocks.append(" ".join(sentence() for _ in range(rng.randint(1, 4))).replace(
                    rng.choice(WORDS), f"**{rng.choice(WORDS)}**", 1))
            elif kind < 0.8:
                blocks.append("\n".join(f"- {sentence()} `{rng.choice(WORDS)}`" for _ in range(rng.randint(2, 5))))
            elif kind < 0.9:
                blocks.append("```\n" + "\n".join(sentence() for _ in range(rng.randint(2, 6))) + "\n```")
            else:
                blocks.append(f"## {sentence()}")
        return "\n\n".join(blocks)

    start = START - timedelta(days=3)
    lines = [json.dumps({"type": "episode", "id": "short", "title": "Earlier chat", "summary": "short",
                         "outcome": "success", "started_at": (start - timedelta(days=1)).isoformat(),
                         "ended_at": (start - timedelta(days=1, minutes=-5)).isoformat()}),
             json.dumps({"type": "episode", "id": "long", "title": f"A conversation of {messages} messages",
                         "summary": "long", "outcome": "success", "started_at": start.isoformat(),
                         "ended_at": (start + timedelta(minutes=messages)).isoformat()})]
    for i in range(messages):
        role = "user" if i % 2 == 0 else "assistant"
        lines.append(json.dumps({"type": "message", "episode_id": "long", "role": role,
                                 "created_at": (start + timedelta(minutes=i)).isoformat(),
                                 "content": " ".join(sentence() for _ in range(rng.randint(1, 3))) if role == "user"
                                 else answer()}))
    return lines


async def open_long(db: Path, size: tuple[int, int]) -> dict:
    """The app headless on `db`: seconds from ctrl+o to the list, from enter to the reader drawn, from c
    to the chat drawn with the conversation continued; widgets on the screen then, RSS at the end."""
    from assistant.settings import load_settings
    from ui.app import AssistantApp
    from ui.screens.conversations import ConversationScreen, ConversationsScreen

    copy = Path(tempfile.mkdtemp(prefix="assistant-long-run-")) / db.name  # continuing and quitting write
    shutil.copy(db, copy)
    app = AssistantApp(load_settings(env=bench_env(copy)))
    out: dict = {}

    async def until(pilot, predicate, limit: float = 300.0) -> None:
        started = time.perf_counter()
        while not predicate():
            if time.perf_counter() - started > limit:
                raise TimeoutError(str(predicate))
            await asyncio.sleep(0.005)
        # Every message of the screen processed (it is laid out and drawn, headless: to nowhere); the
        # pilot's own pause gives up after 30 s, which the reader of 2,000 messages took before this work.
        await pilot._wait_for_screen(timeout=limit)
        await pilot.pause()

    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        out["rss_before_mb"] = round(rss_mb(), 1)
        started = time.perf_counter()
        app.simulate_key("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConversationsScreen) and app.screen.query("ConversationItem"))
        out["list_s"] = round(time.perf_counter() - started, 3)
        started = time.perf_counter()
        app.simulate_key("enter")
        await until(pilot, lambda: isinstance(app.screen, ConversationScreen) and app.screen.query(".user-message"))
        out["reader_s"] = round(time.perf_counter() - started, 3)
        out["reader_widgets"] = dom_widgets(app)
        out["rss_reader_mb"] = round(rss_mb(), 1)
        started = time.perf_counter()
        app.simulate_key("c")
        chat = app.main_screen.chat.chat_log
        await until(pilot, lambda: app.screen is app.main_screen and chat.query(".user-message"))
        out["continue_s"] = round(time.perf_counter() - started, 3)
        out["chat_widgets"] = sum(1 for _ in chat.walk_children())
        out["widgets"] = dom_widgets(app)
        await app.workers.wait_for_complete()
        gc.collect()
        out["rss_end_mb"] = round(rss_mb(), 1)
        await pilot.press("ctrl+q")
    shutil.rmtree(copy.parent, ignore_errors=True)
    return out


def long_conversations(sizes: list[int], rounds: int, screen: tuple[int, int], home: Path) -> dict:
    """Each size's store built once under `home` (through `assistant import`, embeddings included) and
    reused, then opened in fresh processes, the sizes interleaved round by round so that all see the
    same load."""
    home.mkdir(parents=True, exist_ok=True)
    stores = {}
    for n in sizes:
        source = home / f"long-{n}.jsonl"
        db = home / f"long-{n}.db"
        stores[n] = db
        if db.exists():
            continue
        source.write_text("\n".join(conversation_lines(n)) + "\n")
        env = {**os.environ, "ASSISTANT_DB": str(db),
               "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
               "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache")}
        subprocess.run([sys.executable, "-c", "import sys; from ui.entry import main; sys.exit(main())", "import",
                        str(source)], env=env, check=True, capture_output=True, cwd=ROOT)
    runs: dict[int, list[dict]] = {n: [] for n in sizes}
    for _ in range(rounds):
        for n in sizes:
            done = subprocess.run([sys.executable, __file__, "--open-one", str(stores[n]),
                                   "--size", f"{screen[0]}x{screen[1]}"],
                                  env={**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
                                       "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data"),
                                       "XDG_CACHE_HOME": str(home / "cache")},
                                  capture_output=True, text=True, check=True)
            runs[n].append(json.loads(done.stdout.strip().splitlines()[-1]))
            log(f"{n} messages: {runs[n][-1]}")
    out = {}
    for n, values in runs.items():
        out[str(n)] = {key: statistics.median(v[key] for v in values) for key in values[0]}
        for key in ("list_s", "reader_s", "continue_s"):
            out[str(n)][key.replace("_s", "_max_s")] = max(v[key] for v in values)
    return out


# -- first frame in tmux ---------------------------------------------------------------------------

def tmux_frame(command: str, marker: str, env: dict[str, str], socket: str) -> dict:
    """Seconds until `marker` shows in a 120x40 tmux pane, RSS then and 3 s later."""
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
    started = time.perf_counter()
    subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command],
                   env=env, check=True)
    first = float("nan")
    try:
        while time.perf_counter() - started < 30:
            screen = subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-t", "app"], capture_output=True,
                                    text=True).stdout
            if marker in screen:
                first = time.perf_counter() - started
                break
            time.sleep(0.02)  # a tighter loop of tmux processes takes the CPU the app needs to draw
        pid = subprocess.run(["tmux", "-L", socket, "list-panes", "-t", "app", "-F", "#{pane_pid}"],
                             capture_output=True, text=True).stdout.strip()
        at_frame = _proc_rss(pid)
        time.sleep(3)
        return {"first_frame_s": round(first, 3), "rss_at_frame_mb": at_frame, "rss_3s_mb": _proc_rss(pid)}
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def _proc_rss(pid: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def elia_command() -> str | None:
    """Elia in a throwaway venv (installed once); None when pip cannot install it."""
    binary = ELIA_VENV / "bin" / "elia"
    if not binary.exists():
        log(f"installing elia-chat into {ELIA_VENV}")
        subprocess.run([sys.executable, "-m", "venv", str(ELIA_VENV)], check=True)
        done = subprocess.run([str(ELIA_VENV / "bin" / "pip"), "install", "-q", "elia-chat"], capture_output=True,
                              text=True)
        if done.returncode != 0 or not binary.exists():
            log(f"elia-chat could not be installed: {done.stderr.strip()[-300:]}")
            return None
    return str(binary)


BARE_TEXTUAL = """
from textual.app import App
from textual.widgets import Footer, Static, TextArea
class Bare(App):
    BINDINGS = [("ctrl+r", "noop", "Recap")]
    def compose(self):
        yield Static("bare"); yield TextArea(); yield Footer()
Bare().run()
"""


def frames(db: Path | None, rounds: int, elia: bool, code: Path | None = None) -> dict:
    home = Path(tempfile.mkdtemp(prefix="assistant-frames-"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "ANTHROPIC_", "OPENAI_"))}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    base.update(TERM="xterm-256color", HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
                XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"),
                XDG_CACHE_HOME=str(home / "cache"), OLLAMA_HOST="http://127.0.0.1:9",
                PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "assistant-bench-pycache"))
    if db is None:
        db = home / "empty.db"
    ours = {**base, "ASSISTANT_DB": str(db), "ASSISTANT_NOW": START.isoformat(), "ASSISTANT_TIMEZONE": "UTC",
            "ASSISTANT_PROVIDER": "offline"}
    bare = home / "bare.py"
    bare.write_text(BARE_TEXTUAL)
    contenders = {"assistant": (f"{Path(sys.executable).parent / 'assistant'}", "Recap", ours),
                  "bare Textual app": (f"{sys.executable} {bare}", "Recap", base)}
    if code is not None:  # another checkout (the code before a change), same interpreter and packages,
        # on its own copy of the store (a newer schema would be refused by older code)
        copy = home / f"other-{db.name}"
        shutil.copy(db, copy)
        contenders[f"assistant ({code})"] = (
            f"{sys.executable} -c 'import sys; sys.path.insert(0, \"{code}\"); from ui.entry import main; "
            "sys.exit(main())'", "Recap", {**ours, "ASSISTANT_DB": str(copy)})
    if elia:
        command = elia_command()
        if command:
            contenders["Elia"] = (command, "Welcome to Elia", base)
    for command, marker, env in contenders.values():  # one warm-up each (files into the page cache)
        tmux_frame(command, marker, env, f"frames{os.getpid()}w")
    runs: dict[str, list[dict]] = {name: [] for name in contenders}
    for i in range(rounds):
        for name, (command, marker, env) in contenders.items():
            runs[name].append(tmux_frame(command, marker, env, f"frames{os.getpid()}{i}"))
            log(f"{name}: {runs[name][-1]}")
    out = {}
    for name, values in runs.items():
        first = sorted(v["first_frame_s"] for v in values)
        out[name] = {"first_frame_median_s": round(statistics.median(first), 3), "first_frame_min_s": first[0],
                     "first_frame_max_s": first[-1],
                     "rss_at_frame_mb": statistics.median(v["rss_at_frame_mb"] or 0 for v in values),
                     "rss_3s_mb": statistics.median(v["rss_3s_mb"] or 0 for v in values)}
    return out


MARKERS = ("<!-- bench_hour:start -->", "<!-- bench_hour:end -->")


def markdown(results: list[dict]) -> str:
    """The short table of docs/speed.md from the last run of each kind in the JSON file (a run labelled
    "before" is left out: those are the figures of docs/footprint.md)."""
    current = [r for r in results if r.get("label") != "before"]

    def last(key: str) -> dict | None:
        return next((r for r in reversed(current) if key in r), None)

    hour, frames_run, long_run, embedder = last("rss_mb"), last("frames"), last("long"), last("embedder")
    lines = ["| figure | goal | assistant | " + ("Elia | bare Textual app |" if frames_run else ""),
             "| --- | --- | --- |" + (" --- | --- |" if frames_run else "")]
    pad = " | | |" if frames_run else " |"
    if frames_run:
        f = frames_run["frames"]
        elia = f.get("Elia")

        def cell(entry: dict | None, key: str, fmt: str) -> str:
            return fmt.format(entry[key]) if entry else "not installed"

        for label, goal, key, fmt in (
                ("first frame, median (min-max)", "<= 0.5 s", None, ""),
                ("RSS at the first frame", "<= 110 MB", "rss_at_frame_mb", "{:.0f} MB"),
                ("RSS 3 s later, nothing typed", "", "rss_3s_mb", "{:.0f} MB")):
            if key is None:
                values = [f"{e['first_frame_median_s']:.2f} s "
                          f"({e['first_frame_min_s']:.2f}-{e['first_frame_max_s']:.2f})" if e else "not installed"
                          for e in (f["assistant"], elia, f["bare Textual app"])]
            else:
                values = [cell(e, key, fmt) for e in (f["assistant"], elia, f["bare Textual app"])]
            lines.append(f"| {label} | {goal} | " + " | ".join(values) + " |")
    if hour:
        rss = hour["rss_mb"]
        lines.append(f"| RSS after the scripted hour (100 turns, embedder loaded) | <= 200 MB | "
                     f"{rss[min(99, len(rss) - 1)]:.0f} MB{pad}")
        if "rss_after_500_mb" in hour:
            lines.append(f"| RSS after 50 / 500 turns | within 10 MB | {hour['rss_after_50_mb']:.0f} / "
                         f"{hour['rss_after_500_mb']:.0f} MB{pad}")
        if hour.get("rss_slope_mb_per_turn_after_50") is not None:
            lines.append(f"| RSS growth per turn after turn 50 (least squares) | 0 | "
                         f"{hour['rss_slope_mb_per_turn_after_50'] * 1000:+.0f} KB{pad}")
        if "widgets_per_turn" in hour:
            widgets, chat = hour["widgets_per_turn"], hour["chat_widgets_per_turn"]
            at = [n for n in (50, 100, len(widgets)) if n <= len(widgets)]
            lines.append(f"| widgets mounted after {' / '.join(map(str, at))} turns (the chat log's) | flat | "
                         + " / ".join(f"{widgets[n - 1]} ({chat[n - 1]})" for n in at) + pad)
        lines.append(f"| a turn of the offline mode in the app, median / p95 | | {hour['turn_median_s']:.2f} / "
                     f"{hour['turn_p95_s']:.2f} s{pad}")
    if long_run:
        sizes = sorted(long_run["long"], key=int)
        for key, label in (("reader_s", "reader"), ("continue_s", "continuing it")):
            lines.append(f"| a conversation of {' / '.join(sizes)} messages reopened: {label}, median | "
                         f"{'<= 0.5 s' if key == 'reader_s' else ''} | "
                         + " / ".join(f"{long_run['long'][n][key]:.2f} s" for n in sizes) + pad)
    if embedder:
        e = embedder["embedder"]
        lines.append(f"| embedder unloaded after the idle minutes: RSS loaded / unloaded, reload (next query) | | "
                     f"{e['rss_loaded_mb']:.0f} / {statistics.median(e['rss_unloaded_mb']):.0f} MB, "
                     f"{statistics.median(e['reload_query_s']):.2f} s{pad}")
    machine = (frames_run or hour or {}).get("machine", "")
    return f"Measured by `benchmarks/bench_hour.py` ({machine}).\n\n" + "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--tracemalloc", action="store_true")
    ap.add_argument("--census", action="store_true", help="count live objects by type at turn 50 and at the end "
                    "(objgraph-style), and report the types that grew")
    ap.add_argument("--frames", action="store_true", help="first frame and RSS in tmux instead of the hour")
    ap.add_argument("--elia", action="store_true", help="with --frames: Elia too")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--code", type=Path, help="with --frames: also another checkout of the app (e.g. the code "
                    "before a change), interleaved")
    ap.add_argument("--db", type=Path, help="with --frames: the store the app opens (default: an empty one)")
    ap.add_argument("--long", default="", help="comma-separated sizes, e.g. 20,2000: reopen a conversation of "
                    "that many messages (conversations screen, reader, continue) instead of the hour")
    ap.add_argument("--size", default="120x40", help="with --long: the terminal size")
    ap.add_argument("--embedder", action="store_true", help="unload and reload the embedder (RSS, reload time) "
                    "instead of the hour")
    ap.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "assistant-bench-long",
                    help="with --long: where the stores are built once and reused")
    ap.add_argument("--no-arena-bound", action="store_true", help="leave glibc's malloc arenas unbounded (the "
                    "app bounds them at start: ui.entry.bound_malloc_arenas)")
    ap.add_argument("--open-one", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, default=HERE / "hour.json", help="append the result here")
    ap.add_argument("--label", default="", help="a label kept with the result (\"before\": not in the table)")
    ap.add_argument("--readme", action="store_true", help="only write the table of the results in --json into "
                    "docs/speed.md (between the bench_hour markers)")
    args = ap.parse_args()
    if args.readme:
        table = markdown(json.loads(args.json.read_text()))
        page = ROOT / "docs" / "speed.md"  # the README keeps only headline figures
        text = page.read_text()
        start, end = text.index(MARKERS[0]) + len(MARKERS[0]), text.index(MARKERS[1])
        page.write_text(text[:start] + "\n" + table + "\n" + text[end:])
        print(table)
        return
    size = tuple(int(v) for v in args.size.split("x"))
    if args.open_one:  # one process of --long
        if not args.no_arena_bound:
            bound_arenas_as_the_app_does()
        print(json.dumps(asyncio.run(open_long(args.open_one, size))))
        return
    arenas_bounded = False if args.no_arena_bound else bound_arenas_as_the_app_does()
    load = os.getloadavg()[0]
    if args.embedder:
        result = {"embedder": embedder_cycle(args.rounds)}
    elif args.long:
        result = {"long": long_conversations([int(n) for n in args.long.split(",")], args.rounds, size,
                                             args.stores),
                  "size": args.size}
    elif args.frames:
        result = {"frames": frames(args.db, args.rounds, args.elia, args.code), "db": str(args.db or "empty")}
    else:
        result = asyncio.run(scripted_hour(args.turns, args.tracemalloc, args.census))
    result["malloc_arenas_bounded"] = arenas_bounded
    if args.label:
        result["label"] = args.label
    result["machine"] = (f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}, "
                         f"1-minute load {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    text = json.dumps(result, indent=1)
    print(text)
    previous = json.loads(args.json.read_text()) if args.json.exists() else []
    args.json.write_text(json.dumps([*previous, result], indent=1))


if __name__ == "__main__":
    main()
