"""How every cost grows with the store, 2k -> 10k -> 100k -> 1M items, beside peers (not a test).

    python benchmarks/bench_scale.py                       all sizes, writes benchmarks/scale.md
    python benchmarks/bench_scale.py --readme              ... and puts the table into docs/speed.md
    python benchmarks/bench_scale.py --sizes 2000,10000    a quick run

Stores are built once under --stores (default /tmp/assistant-bench-stores) and reused by later runs
(fixed seeds, so a rebuilt store is the same store). Building the 1M store takes about 15 minutes.

Stores (benchmarks/corpus.py, seed 7): half memories, half chat messages in episodes of 20 turns,
Zipf words from a 3,000-word vocabulary, plus one reminder per 200 items (due dates from a year ago
to a month ahead, nine in ten done), imported through `assistant import`. Their vectors are
synthetic (topic-clustered unit vectors, inserted directly: embedding a million texts takes about an
hour on 2 cores); queries are embedded by the real bundled model. The realistic conversations
(benchmarks/conversations.py, real embeddings) measure the quantised search's recall.

What is measured, at each size, on the same machine in the same run:
- whole process (`assistant ...` started fresh, median and p95 of --runs runs): `prompt --query`,
  `recall`, `reminders`; peers: `python -c pass` (the interpreter alone) and the `sqlite-utils`
  CLI running the reminders query on the same file;
- in process: hybrid search and prompt assembly (query embedding excluded), query embedding;
- vector search: ours (one-bit codes, rescored) and the peer, raw sqlite-vec exact KNN (a vec0
  float table holding the same vectors), k=10, and the recall@10 of ours against exact;
- the TUI (tmux, the real app): first frame, and resident memory after a few turns and a recap;
- `consolidate --full` end to end with an Ollama stand-in that answers at once, and its peak RSS;
- import throughput and peak RSS, database size per 100k items.
"""
from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import corpus  # noqa: E402

NOW = "2026-11-22T14:00:00+00:00"
SIZES = (2_000, 10_000, 100_000, 1_000_000)
BIN = Path(sys.executable).parent
ASSISTANT = str(BIN / "assistant")
MARKERS = ("<!-- bench_scale:start -->", "<!-- bench_scale:end -->")


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def stats_ms(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values) * 1000, 1), "p95": round(percentile(values, 0.95) * 1000, 1)}


def env_for(db: Path, **extra: str) -> dict[str, str]:
    home = Path(tempfile.gettempdir()) / "assistant-bench-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "ANTHROPIC_", "OLLAMA_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"), ASSISTANT_DB=str(db),
               ASSISTANT_NOW=NOW, ASSISTANT_TIMEZONE="UTC", ASSISTANT_PROVIDER="offline",
               OLLAMA_HOST="http://127.0.0.1:9",
               # Compiled bytecode, as an installed app has, kept out of the repository tree.
               PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "assistant-bench-pycache"))
    env.update(extra)
    return env


def run_measured(argv: list[str], env: dict[str, str], timeout: float = 3600) -> tuple[float, int, str, str]:
    """(wall seconds, peak RSS in MB, stdout, stderr) of one process (wait4 gives its own rusage)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                raise TimeoutError(" ".join(argv))
            time.sleep(0.002)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} exited {proc.returncode}: {stderr[-500:]}")
    return wall, usage.ru_maxrss // 1024, stdout, stderr


# -- stores ------------------------------------------------------------------------------------

def reminder_lines(n: int, seed: int = 11) -> list[str]:
    """One reminder per 200 items: due from a year ago to a month ahead, nine in ten done."""
    rng = random.Random(seed)
    lines = []
    for i in range(max(5, n // 200)):
        day = rng.randint(-365, 30)
        due = f"2026-11-22T{rng.randint(6, 21):02d}:00:00Z"
        from datetime import datetime, timedelta

        due_at = (datetime.fromisoformat(due) + timedelta(days=day)).isoformat()
        done = day < 0 and rng.random() < 0.9
        lines.append(json.dumps({"type": "memory", "kind": "reminder", "content": f"reminder {i}: call about item {i}",
                                 "due_at": due_at, "done_at": due_at if done else None,
                                 "created_at": "2025-11-01T10:00:00Z"}))
    return lines


def build_store(n: int, root: Path) -> dict:
    """The synthetic store of n items (built once); returns its build record."""
    db = root / f"synthetic-{n}.db"
    record_file = root / f"synthetic-{n}.json"
    if db.exists() and record_file.exists():
        return json.loads(record_file.read_text())
    for stale in root.glob(f"synthetic-{n}.*"):
        stale.unlink()
    log(f"building the {n:,}-item store in {db}")
    data = corpus.generate(n, messages=0.5)
    source = root / f"synthetic-{n}.jsonl"
    source.write_text("\n".join(data.lines + reminder_lines(n)) + "\n")
    # Embeddings off for the import: the vectors are synthetic, written below (import embeds otherwise).
    wall, rss, _, _ = run_measured([ASSISTANT, "import", str(source), "--json"],
                                   env_for(db, ASSISTANT_EMBEDDING_MODEL="none"))
    items = len(data.lines) + n // 200
    source.unlink()
    from memory.search.embeddings import ensure_vec_table

    rt = corpus.open_runtime(db)
    ensure_vec_table(rt.store, corpus.FixedDimension(rt.embedder.name))
    started = time.perf_counter()
    corpus.attach_vectors(rt.store, data)
    rt.store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rt.close()
    record = {"items": items, "import_seconds": round(wall, 1), "import_items_per_s": round(items / wall),
              "import_peak_rss_mb": rss, "vectors_seconds": round(time.perf_counter() - started, 1),
              "db_bytes": db.stat().st_size, "queries": data.queries, "seed": data.seed}
    record_file.write_text(json.dumps(record))
    return record


def build_peer(n: int, root: Path) -> Path:
    """The same vectors in a plain sqlite-vec vec0 float table (the exact-KNN peer)."""
    import numpy as np

    from memory import vectors
    from memory.connection import connect

    path = root / f"synthetic-{n}.vec0.db"
    if path.exists():
        return path
    log(f"building the sqlite-vec peer of the {n:,}-item store")
    source = connect(str(root / f"synthetic-{n}.db"), read_only=True)
    peer = connect(str(path.with_suffix(".tmp")))
    peer.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[384] distance_metric=cosine)")
    last = source.execute("SELECT max(doc_id) FROM vectors").fetchone()[0]
    peer.execute("BEGIN")
    for low in range(0, last + 1, 50_000):
        ids, matrix = vectors.in_range(source, low, low + 49_999)
        if matrix is not None:
            peer.executemany("INSERT INTO v(rowid, embedding) VALUES (?, ?)",
                             [(int(d), row.astype(np.float32).tobytes()) for d, row in zip(ids, matrix, strict=True)])
    peer.execute("COMMIT")
    peer.close()
    source.close()
    path.with_suffix(".tmp").rename(path)
    return path


# -- measurements ------------------------------------------------------------------------------

def whole_process(db: Path, queries: list[str], runs: int) -> dict[str, dict[str, float]]:
    """Fresh processes, one after another, each command in turn (so all see the same load)."""
    env = env_for(db)
    sql = ("SELECT k.*, coalesce(m.tier, 'hot') AS tier FROM knowledge k LEFT JOIN memory_meta m ON "
           "m.memory_id = k.id WHERE k.due_at IS NOT NULL AND k.done_at IS NULL AND k.due_at <= "
           "'2026-11-29T14:00:00+00:00' ORDER BY k.due_at, k.id")
    commands: dict[str, Callable[[int], list[str]]] = {
        "python -c pass": lambda i: [sys.executable, "-c", "pass"],
        "prompt": lambda i: [ASSISTANT, "prompt", "--query", queries[i % len(queries)], "--json"],
        "recall": lambda i: [ASSISTANT, "recall", queries[i % len(queries)], "--json"],
        "reminders": lambda i: [ASSISTANT, "reminders", "--json"],
        "sqlite-utils reminders query": lambda i: [str(BIN / "sqlite-utils"), "query", str(db), sql],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # one warm-up each: the first run reads the files from disk
        run_measured(argv(0), env)
    for i in range(runs):
        for name, argv in commands.items():
            times[name].append(run_measured(argv(i + 1), env)[0])
    return {name: stats_ms(values) for name, values in times.items()}


def in_process(db: Path, queries: list[str], rounds: int, profile: Path | None = None) -> dict:
    """Query embedding, hybrid search and prompt assembly (query embedding excluded) in one process, with
    the 1-minute load average before and after; with `profile`, a cProfile of one more round of each
    (search, prompt) written there, its own-time and cumulative tops."""
    from assistant.prompt.build import preview_prompt

    rt = corpus.open_runtime(db)
    load_before = os.getloadavg()[0]
    try:
        embed_t, search_t, prompt_t = [], [], []
        vectors = []
        for q in queries:
            started = time.perf_counter()
            vectors.append(rt.embedder.embed([q])[0])
            embed_t.append(time.perf_counter() - started)
        rt.searcher.search(queries[0], vector=vectors[0], touch=False)  # the process's first search
        for _ in range(rounds):
            for q, v in zip(queries, vectors, strict=True):
                started = time.perf_counter()
                rt.searcher.search(q, vector=v, touch=False)
                search_t.append(time.perf_counter() - started)
        for _ in range(rounds):
            for q, v in zip(queries, vectors, strict=True):
                rt.searcher.embed_query = lambda _text, v=v: v  # the query vector is ready, as in a turn
                started = time.perf_counter()
                preview_prompt(rt, q)
                prompt_t.append(time.perf_counter() - started)
        out: dict = {"query embedding": stats_ms(embed_t), "hybrid search": stats_ms(search_t),
                     "prompt assembly": stats_ms(prompt_t), "load": [round(load_before, 1),
                                                                    round(os.getloadavg()[0], 1)]}
        if profile is not None:
            import cProfile
            import io
            import pstats

            report = io.StringIO()
            for name in ("hybrid search", "prompt assembly"):
                prof = cProfile.Profile()
                for q, v in zip(queries, vectors, strict=True):
                    rt.searcher.embed_query = lambda _text, v=v: v
                    prof.enable()
                    rt.searcher.search(q, vector=v, touch=False) if name == "hybrid search" else preview_prompt(rt, q)
                    prof.disable()
                print(f"# {name}, {len(queries)} queries, {db.name}", file=report)
                for order in ("tottime", "cumulative"):
                    pstats.Stats(prof, stream=report).strip_dirs().sort_stats(order).print_stats(25)
            profile.write_text(report.getvalue())
        return out
    finally:
        rt.close()


def keyword_bound(db: Path, queries: list[str]) -> dict:
    """The bounded keyword side against the exact one, in the hybrid search: recall@10 of the bounded
    search's top 10 against the top 10 of the same search with every query word ranked by BM25 over
    the whole store (no common-word bound, no window), and the time of each (same vectors)."""
    from memory.search.hybrid import Searcher

    rt = corpus.open_runtime(db)
    try:
        vectors = [rt.embedder.embed([q])[0] for q in queries]
        results, times = {}, {}
        for name, options in (("exact", {"common_term_docs": 10 ** 9}), ("bounded", {})):
            searcher = Searcher(rt.store, rt.embedder, **options)
            searcher.codes = rt.searcher.codes
            for q, v in zip(queries, vectors, strict=True):  # the word counts are remembered between searches
                searcher.search(q, vector=v, touch=False)
            results[name], times[name] = [], []
            for q, v in zip(queries, vectors, strict=True):
                started = time.perf_counter()
                hits = searcher.search(q, vector=v, touch=False)
                times[name].append(time.perf_counter() - started)
                results[name].append({(h.type, h.id) for h in hits})
        recall = statistics.mean(len(b & e) / max(1, len(e)) for b, e in zip(results["bounded"], results["exact"],
                                                                             strict=True))
        return {"exact search": stats_ms(times["exact"]), "bounded search": stats_ms(times["bounded"]),
                "recall@10": round(recall, 3)}
    finally:
        rt.close()


def vector_search(db: Path, peer: Path, seed: int, count: int = 40) -> dict:
    """Ours against raw sqlite-vec exact KNN on the same vectors, k=10, queries from the vectors'
    own distribution (a topic centre plus noise, as the stored ones)."""
    import numpy as np

    from memory import vectors
    from memory.connection import connect

    rng = np.random.default_rng(seed + 100)
    centres = corpus.centroids(seed)
    queries = centres[rng.integers(0, len(centres), count)] + 1.2 * rng.normal(size=(count, 384))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    store, vec0 = connect(str(db), read_only=True), connect(str(peer), read_only=True)
    cache = vectors.CodeCache()
    first_started = time.perf_counter()
    vectors.knn(store, queries[0], 10, cache=cache)
    first = time.perf_counter() - first_started
    ours_t, ours_typed_t, peer_t, found = [], [], [], []
    for q in queries:
        started = time.perf_counter()
        ours = vectors.knn(store, q, 10, cache=cache)
        ours_t.append(time.perf_counter() - started)
        started = time.perf_counter()
        vectors.knn(store, q, 10, 1, cache=cache)
        ours_typed_t.append(time.perf_counter() - started)
        started = time.perf_counter()
        exact = vec0.execute("SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = 10 ORDER BY distance",
                             (q.tobytes(),)).fetchall()
        peer_t.append(time.perf_counter() - started)
        tenth = 1 - exact[-1][1] - 1e-5
        found.append(sum(score >= tenth for _, score in ours) / 10)
    store.close()
    vec0.close()
    return {"ours": stats_ms(ours_t), "ours, memories only": stats_ms(ours_typed_t),
            "sqlite-vec exact": stats_ms(peer_t), "first search of a process ms": round(first * 1000, 1),
            "recall@10": round(float(np.mean(found)), 4)}


def realistic_recall(count: int = 4, seed: int = 12) -> dict:
    """Recall@10 of the quantised search against exact cosine on the retrieval benchmark's
    conversations (real embeddings): each conversation's own store, and all of them in one."""
    import numpy as np
    from conversations import generate_all

    from memory import vectors
    from memory.search.embeddings import LocalEmbedder
    from memory.store import Store

    embedder = LocalEmbedder(cache_dir=Path(tempfile.gettempdir()) / "assistant-bench-embedder")
    convos = generate_all(seed, count)
    found: dict[str, list[float]] = {"each conversation": [], "all conversations in one store": []}
    with tempfile.TemporaryDirectory() as tmp:
        merged = Store(Path(tmp) / "all.db")
        next_doc = 1
        all_questions = []
        for number, convo in enumerate(convos):
            texts = [f"{t.speaker}: {t.text}" for t in convo.turns]
            matrix = embedder.embed(texts)
            own = Store(Path(tmp) / f"c{number}.db")
            with own.transaction():
                vectors.put(own, [(i + 1) * 4 for i in range(len(texts))], matrix)
            with merged.transaction():
                vectors.put(merged, [(next_doc + i) * 4 for i in range(len(texts))], matrix)
            next_doc += len(texts)
            questions = embedder.embed([q.text for q in convo.questions])
            all_questions.append(questions)
            found["each conversation"] += _recall(own, questions)
            own.close()
        found["all conversations in one store"] = _recall(merged, np.concatenate(all_questions))
        size = vectors.count(merged)
        merged.close()
    return {name: round(float(np.mean(values)), 4) for name, values in found.items()} | {
        "questions": sum(len(c.questions) for c in convos), "turns in one store": size}


def _recall(store, queries) -> list[float]:
    from memory import vectors

    out = []
    cache = vectors.CodeCache()
    for q in queries:
        exact = vectors.exact_knn(store, q, 10)
        tenth = exact[-1][1] - 1e-6
        out.append(sum(s >= tenth for _, s in vectors.knn(store, q, 10, cache=cache)) / 10)
    return out


@contextlib.contextmanager
def tmux_app(db: Path, socket: str, size: tuple[int, int] = (120, 40)) -> Iterator[tuple[Callable[[], str], float]]:
    """The real TUI in a private tmux server; yields (screen reader, seconds to the first frame)."""
    env = env_for(db, TERM="xterm-256color")
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
    started = time.perf_counter()
    subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-s", "app", "-x", str(size[0]), "-y", str(size[1]),
                    f"{ASSISTANT} --db {db}"], env=env, check=True)

    def screen() -> str:
        return subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-t", "app"], capture_output=True,
                              text=True).stdout

    first = None
    while time.perf_counter() - started < 30:
        if "Recap" in screen():  # the footer: drawn with the first frame
            first = time.perf_counter() - started
            break
        # Not faster: on 2 cores a tighter loop of tmux processes takes the CPU the app needs to draw.
        time.sleep(0.02)
    try:
        yield screen, first if first is not None else float("nan")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def tui(db: Path, runs: int) -> dict:
    """First frame (median, p95 of `runs` launches) and resident memory after a few turns."""
    first, at_frame, idle = [], [], []
    for i in range(runs):
        with tmux_app(db, f"bench{os.getpid()}{i}") as (_, seconds):
            first.append(seconds)
            pane_pid = _pane_pid(f"bench{os.getpid()}{i}")
            at_frame.append(_rss(pane_pid)["VmRSS"])  # resident memory at the first frame
            time.sleep(3)
            idle.append(_rss(pane_pid)["VmRSS"])  # ... and 3 s later, nothing typed
    with tmux_app(db, f"bench{os.getpid()}rss") as _:
        socket = f"bench{os.getpid()}rss"
        pane_pid = _pane_pid(socket)
        for text in ("what did we talk about last week", "remind me to water the plants tomorrow at 9am",
                     "when did I last mention the budget", "what's coming up", "tell me about the garden",
                     "remember that the spare key is under the blue pot"):
            subprocess.run(["tmux", "-L", socket, "send-keys", "-t", "app", text, "Enter"], check=True)
            time.sleep(2.5)
        for keys in (["C-r"], ["Escape"]):
            subprocess.run(["tmux", "-L", socket, "send-keys", "-t", "app", *keys], check=True)
            time.sleep(1.5)
        field = _rss(pane_pid)
    return {"first frame": stats_ms(first),
            "first frame spread ms": [round(min(first) * 1000), round(max(first) * 1000)],
            "rss_at_first_frame_mb": statistics.median(at_frame), "rss_idle_3s_mb": statistics.median(idle),
            "rss_mb": field.get("VmRSS"), "peak_rss_mb": field.get("VmHWM"),
            "rss_anon_mb": field.get("RssAnon"), "rss_file_mb": field.get("RssFile")}


def _pane_pid(socket: str) -> str:
    return subprocess.run(["tmux", "-L", socket, "list-panes", "-t", "app", "-F", "#{pane_pid}"],
                          capture_output=True, text=True).stdout.strip()


def _rss(pid: str) -> dict[str, int]:
    """VmRSS, VmHWM, RssAnon, RssFile of a process, in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return {line.split(":")[0]: int(line.split()[1]) // 1024 for line in status.splitlines()
            if line.startswith(("VmRSS", "VmHWM", "RssAnon", "RssFile"))}


class _OllamaStandIn(http.server.BaseHTTPRequestHandler):
    """Answers at once: one model in /api/tags, a short summary or a 'not superseded' verdict."""

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send({"models": [{"name": "stand-in:latest", "model": "stand-in:latest", "size": 1,
                                "modified_at": "2026-01-01T00:00:00Z", "digest": "0" * 64, "details": {}}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])) or b"{}")
        if "supersedes" in json.dumps(body.get("format")):
            answer = {"supersedes": False, "confidence": 0.1, "reason": "different facts"}
        else:
            answer = {"summary": "A few related notes.", "key_facts": ["one"], "decisions": [], "superseded_facts": []}
        self._send({"model": body.get("model"), "created_at": "2026-11-22T14:00:00Z", "done": True,
                    "message": {"role": "assistant", "content": json.dumps(answer)}})


def consolidate_full(db: Path, root: Path) -> dict:
    """`assistant consolidate --full --json` on a copy of the store, the model a stand-in."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OllamaStandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    copy = root / "consolidate-copy.db"
    try:
        from memory.connection import connect

        source, target = connect(str(db), read_only=True), connect(str(copy))
        source.backup(target)  # a consistent copy, the WAL included
        source.close()
        target.close()
        env = env_for(copy, OLLAMA_HOST=f"http://127.0.0.1:{server.server_address[1]}",
                      ASSISTANT_OLLAMA_MODEL="stand-in:latest")
        wall, rss, out, _ = run_measured([ASSISTANT, "consolidate", "--full", "--json"], env, timeout=3 * 3600)
        result = json.loads(out)
        return {"seconds": round(wall, 1), "peak_rss_mb": rss, "memories": result["memories_processed"],
                "clusters": result["clusters_found"], "summaries": result["summaries_created"]}
    finally:
        server.shutdown()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)


# -- the table ---------------------------------------------------------------------------------

def _growth(values: list[float | None]) -> str:
    """x(100k / 2k) -> x(1M / 2k), from the first, the 100k and the 1M figures."""
    first = values[0]
    if not first:
        return ""
    parts = [f"x{v / first:.2f}" if v else "-" for v in values[2:4]]
    return " -> ".join(parts)


def markdown(results: dict, sizes: list[int], machine: str) -> str:
    def label(n: int) -> str:
        return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"

    head = "| figure (median / p95 unless said) | goal | " + " | ".join(label(n) for n in sizes) + \
        " | growth 2k -> 100k -> 1M |"
    lines = [head, "|" + " --- |" * (len(sizes) + 3)]

    def row(name: str, goal: str, cell: Callable[[dict], str], value: Callable[[dict], float | None]) -> None:
        cells, values = [], []
        for n in sizes:
            r = results.get(str(n), {})
            try:
                cells.append(cell(r))
                values.append(value(r))
            except (KeyError, TypeError):
                cells.append("-")
                values.append(None)
        lines.append(f"| {name} | {goal} | " + " | ".join(cells) + f" | {_growth(values) if len(sizes) >= 3 else ''} |")

    def mp(section: str, key: str) -> Callable[[dict], str]:
        return lambda r: f"{r[section][key]['median']:,.0f} / {r[section][key]['p95']:,.0f} ms"

    def mp1(section: str, key: str) -> Callable[[dict], str]:
        return lambda r: f"{r[section][key]['median']:.1f} / {r[section][key]['p95']:.1f} ms"

    def ratio(r: dict) -> float:
        return r["process"]["reminders"]["median"] / r["process"]["sqlite-utils reminders query"]["median"]

    def med(section: str, key: str) -> Callable[[dict], float]:
        return lambda r: r[section][key]["median"]

    def p95(section: str, key: str) -> Callable[[dict], float]:
        return lambda r: r[section][key]["p95"]

    row("`assistant prompt --query` (whole process)", "<= 0.8 s; 100k <= 1.3 x 2k", mp("process", "prompt"),
        med("process", "prompt"))
    row("`assistant recall` (whole process)", "<= 0.8 s; 100k <= 1.3 x 2k", mp("process", "recall"),
        med("process", "recall"))
    row("`assistant reminders` (whole process)", "<= 150 ms at 100k; < 0.6 x sqlite-utils",
        lambda r: f"{mp('process', 'reminders')(r)} (x{ratio(r):.2f})", med("process", "reminders"))
    row("peer: `sqlite-utils query` (same reminders SQL)", "", mp("process", "sqlite-utils reminders query"),
        med("process", "sqlite-utils reminders query"))
    row("peer: `python -c pass`", "", mp("process", "python -c pass"), med("process", "python -c pass"))
    row("prompt assembly, in process (query embedding excluded)", "p95 <= 15 ms at 100k, <= 30 at 1M",
        mp1("inproc", "prompt assembly"), p95("inproc", "prompt assembly"))
    row("hybrid search, in process", "p95 <= 25 ms at 100k, <= 50 at 1M", mp1("inproc", "hybrid search"),
        p95("inproc", "hybrid search"))
    row("1-minute load average during those two rows (before / after)", "quiet: < 1",
        lambda r: f"{r['inproc']['load'][0]:.1f} / {r['inproc']['load'][1]:.1f}", lambda r: None)
    row("hybrid search with the exact keyword side (every word by BM25)", "", mp1("keyword", "exact search"),
        p95("keyword", "exact search"))
    row("recall@10 of the bounded hybrid search vs that exact one", "", lambda r: f"{r['keyword']['recall@10']:.3f}",
        lambda r: r["keyword"]["recall@10"])
    row("query embedding, in process", "", mp1("inproc", "query embedding"), med("inproc", "query embedding"))
    row("vector KNN k=10, ours (codes + rescoring), all types", "", mp1("knn", "ours"), med("knn", "ours"))
    row("vector KNN k=10, ours, memories only", "", mp1("knn", "ours, memories only"),
        med("knn", "ours, memories only"))
    row("peer: sqlite-vec exact KNN k=10 (vec0, same vectors)", "", mp1("knn", "sqlite-vec exact"),
        med("knn", "sqlite-vec exact"))
    row("recall@10 of ours vs exact (synthetic vectors)", "", lambda r: f"{r['knn']['recall@10']:.3f}",
        lambda r: r["knn"]["recall@10"])
    row("first vector search of a process (reads the codes)", "",
        lambda r: f"{r['knn']['first search of a process ms']:.1f} ms",
        lambda r: r["knn"]["first search of a process ms"])
    row("TUI first frame (tmux, real app)", "<= 0.5 s", mp("tui", "first frame"), med("tui", "first frame"))
    row("TUI resident memory at the first frame / 3 s later, nothing typed", "<= 110 MB",
        lambda r: f"{r['tui']['rss_at_first_frame_mb']:.0f} / {r['tui']['rss_idle_3s_mb']:.0f} MB",
        lambda r: r["tui"]["rss_idle_3s_mb"])
    row("TUI resident memory after 6 turns and a recap", "<= 250 MB at 100k, <= 400 at 1M",
        lambda r: f"{r['tui']['rss_mb']} MB (anon {r['tui']['rss_anon_mb']}, file {r['tui']['rss_file_mb']})",
        lambda r: r["tui"]["rss_mb"])
    row("`consolidate --full` (stand-in model), time", "<= 5 min at 100k",
        lambda r: f"{r['consolidate']['seconds']:,.1f} s", lambda r: r["consolidate"]["seconds"])
    row("`consolidate --full`, peak RSS", "flat", lambda r: f"{r['consolidate']['peak_rss_mb']} MB",
        lambda r: r["consolidate"]["peak_rss_mb"])
    row("`assistant import` throughput", "", lambda r: f"{r['build']['import_items_per_s']:,} items/s",
        lambda r: r["build"]["import_items_per_s"])
    row("`assistant import`, peak RSS", "", lambda r: f"{r['build']['import_peak_rss_mb']:,} MB",
        lambda r: r["build"]["import_peak_rss_mb"])
    row("database size per 100k items", "",
        lambda r: f"{r['build']['db_bytes'] / r['build']['items'] * 1e5 / 1e6:,.0f} MB",
        lambda r: r["build"]["db_bytes"] / r["build"]["items"])
    out = [f"Measured {machine}.", "", *lines]
    if "realistic_recall" in results:
        rr = results["realistic_recall"]
        out += ["", f"Recall@10 of the quantised vector search against exact cosine on the realistic conversations "
                f"(benchmarks/conversations.py, real embeddings, {rr['questions']} questions): "
                f"{rr['each conversation']:.3f} in each conversation's own store, "
                f"{rr['all conversations in one store']:.3f} with all {rr['turns in one store']:,} turns in one store."]
    return "\n".join(out)


def machine_line(load_before: float, load_after: float) -> str:
    cores = os.cpu_count()
    return (f"on {cores} cores, Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}; 1-minute load average "
            f"{load_before:.1f} before and {load_after:.1f} after (other work shared the machine)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--stores", type=Path, default=Path(tempfile.gettempdir()) / "assistant-bench-stores")
    ap.add_argument("--runs", type=int, default=10, help="whole-process runs per command")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the 60 queries in process")
    ap.add_argument("--tui-runs", type=int, default=5)
    ap.add_argument("--consolidate-max", type=int, default=100_000, help="largest store to consolidate")
    ap.add_argument("--skip", default="",
                    help="comma-separated: process,inproc,keyword,knn,tui,consolidate,realistic")
    ap.add_argument("--profile", type=Path, help="a folder: write a cProfile of search and prompt assembly at "
                    "each size there (profile-N.txt)")
    ap.add_argument("--out", type=Path, default=HERE / "scale.md")
    ap.add_argument("--json", type=Path, default=HERE / "scale.json")
    ap.add_argument("--readme", action="store_true", help="replace the table between the markers in docs/speed.md")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    skip = set(args.skip.split(","))
    args.stores.mkdir(parents=True, exist_ok=True)
    results: dict = json.loads(args.json.read_text()) if args.json.exists() else {}
    load_before = os.getloadavg()[0]
    for n in sizes:
        record = build_store(n, args.stores)
        db = args.stores / f"synthetic-{n}.db"
        r = results.setdefault(str(n), {})
        r["build"] = {k: v for k, v in record.items() if k != "queries"}
        queries = record["queries"]
        if "process" not in skip:
            log(f"{n:,}: whole-process commands")
            r["process"] = whole_process(db, queries[:20], args.runs)
        if "inproc" not in skip:
            log(f"{n:,}: search and prompt in process")
            r["inproc"] = in_process(db, queries, args.rounds,
                                     args.profile / f"profile-{n}.txt" if args.profile else None)
        if "keyword" not in skip:
            log(f"{n:,}: the bounded keyword side against the exact one")
            r["keyword"] = keyword_bound(db, queries)
        if "knn" not in skip:
            log(f"{n:,}: vector search against sqlite-vec")
            r["knn"] = vector_search(db, build_peer(n, args.stores), record["seed"])
        if "tui" not in skip and shutil.which("tmux"):
            log(f"{n:,}: the TUI")
            r["tui"] = tui(db, args.tui_runs)
        if "consolidate" not in skip and n <= args.consolidate_max:
            log(f"{n:,}: consolidate --full")
            r["consolidate"] = consolidate_full(db, args.stores)
        args.json.write_text(json.dumps(results, indent=1))
    if "realistic" not in skip:
        log("recall on the realistic conversations")
        results["realistic_recall"] = realistic_recall()
    results["machine"] = machine_line(load_before, os.getloadavg()[0])
    args.json.write_text(json.dumps(results, indent=1))
    table = markdown(results, sorted(int(k) for k in results if k.isdigit()), results["machine"])
    args.out.write_text(table + "\n")
    print(table)
    if args.readme:
        page = ROOT / "docs" / "speed.md"  # the README keeps only headline figures
        text = page.read_text()
        start, end = text.index(MARKERS[0]) + len(MARKERS[0]), text.index(MARKERS[1])
        page.write_text(text[:start] + "\n" + table + "\n" + text[end:])


if __name__ == "__main__":
    main()
