"""Changes by meaning (issue 42): how well and at what cost a new statement replaces the memory it changes.

    python benchmarks/bench_changes.py [--embedder none] [--sets] [--cost] [--cli 5]

--sets (the default): each labelled set of tests/data written pair by pair through memory.memories.remember
in a fresh store (replaced = the older memory superseded by the newer; look-alikes must replace nothing);
then the calibration set among 80 memories on other subjects (the change must replace its own older memory
and nothing else) and each newer statement alone among them (its older memory never stored: anything it
replaces is wrong).

--cost: the CPU time of remember() with and without the embedder, in a store of the 80 memories and in one
of 2,000 (the embedder loaded and warm; a statement's candidates are embedded once per process, so each
statement is written into a store that has never seen it); an offline chat turn ("remember that ...")
through the service, with and without; and --cli N whole `assistant remember` processes each way (the
embedder's load, about 0.5 s of CPU, is paid by every process that writes a statement).
CPU seconds are reported, not wall time: the machine these were measured on was shared.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory import memories  # noqa: E402
from memory.search.embeddings import LocalEmbedder, bundled_embedder, sync_embeddings  # noqa: E402
from memory.store import Store  # noqa: E402
from memory.time.clock import Clock  # noqa: E402

DATA = ROOT / "tests" / "data"
NOW = "2026-12-06T10:00:00+00:00"
SETS = ("supersession_meaning.tsv", "supersession_blind.tsv", "supersession_blind7.tsv", "supersession_blind8.tsv",
        "supersession_blind9.tsv", "supersession_blind10.tsv", "supersession_blind11.tsv", "supersession_blind12.tsv",
        "supersession_blind13.tsv", "supersession_blind15.tsv", "supersession_blind16.tsv", "supersession_blind17.tsv",
        "supersession_blind18.tsv",
        "supersession.tsv")  # each a round of labelled pairs


def pairs(name: str) -> list[tuple[bool, str, str]]:
    rows = [line.split("\t") for line in (DATA / name).read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    return [(label == "1", older, newer) for label, _, older, newer in rows]


def background() -> list[str]:
    return [line for line in (DATA / "supersession_background.txt").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]


def fresh_store() -> Store:
    clock = Clock(ZoneInfo("UTC"), fixed=datetime.fromisoformat(NOW))
    return Store(Path(tempfile.mkdtemp()) / "m.db", clock)


def links(store: Store) -> dict[int, int]:
    return {r[0]: r[1] for r in store.query("SELECT memory_id, superseded_by FROM memory_meta "
                                            "WHERE superseded_by IS NOT NULL")}


def measure_set(name: str, embedder: LocalEmbedder | None) -> str:
    store = fresh_store()
    replaced = untouched = changes = lookalikes = 0
    for want, older, newer in pairs(name):
        with store.transaction():
            store.execute("DELETE FROM knowledge")
        a = memories.remember(store, older, kind="fact", embedder=embedder)
        b = memories.remember(store, newer, kind="fact", embedder=embedder)
        got = links(store).get(a.id) == b.id
        changes, lookalikes = changes + want, lookalikes + (not want)
        replaced, untouched = replaced + (want and got), untouched + (not want and not got)
    return (f"{name:28} {changes:4} changes, replaced {replaced / changes:.3f}; {lookalikes:4} look-alikes, "
            f"untouched {untouched / lookalikes:.3f}")


def measure_among_others(embedder: LocalEmbedder | None) -> str:
    store = fresh_store()
    for text in background():
        memories.remember(store, text, kind="fact", embedder=None)
    if embedder is not None:
        sync_embeddings(store, embedder)
    last = store.number("SELECT max(id) FROM knowledge")
    replaced = changes = untouched = lookalikes = wrong = written = 0
    for want, older, newer in pairs("supersession_meaning.tsv"):
        for with_older in (True, False):
            with store.transaction():
                store.execute("DELETE FROM knowledge WHERE id > ?", (last,))
                store.execute("UPDATE memory_meta SET superseded_by = NULL")
            a = memories.remember(store, older, kind="fact", embedder=embedder) if with_older else None
            b = memories.remember(store, newer, kind="fact", embedder=embedder)
            gone = {m for m, n in links(store).items() if n == b.id}
            if a is None:
                written += 1
                wrong += bool(gone)
            elif want:
                changes += 1
                replaced += gone == {a.id}
            else:
                lookalikes += 1
                untouched += not gone
    return (f"{'among 80 other memories':28} {changes:4} changes, replaced {replaced / changes:.3f}; {lookalikes:4} "
            f"look-alikes, untouched {untouched / lookalikes:.3f}; {written} statements whose older memory is not "
            f"stored: {wrong} replaced another")


def cpu_per_remember(store_size: int, embedder: LocalEmbedder | None) -> float:
    """Median CPU ms of remember() for the newer statements of the calibration set, in a store holding
    `store_size` memories (the 80 on other subjects, then generated ones) and the statement's older one."""
    store = fresh_store()
    texts = background()
    for n in range(store_size - len(texts)):
        texts.append(f"the locker code for box {n} at the depot is {1000 + n}")
    for text in texts:
        memories.remember(store, text, kind="fact", embedder=None)
    if embedder is not None:
        sync_embeddings(store, embedder)
    last = store.number("SELECT max(id) FROM knowledge")
    times = []
    for _, older, newer in pairs("supersession_meaning.tsv")[:60]:
        with store.transaction():
            store.execute("DELETE FROM knowledge WHERE id > ?", (last,))
        memories.remember(store, older, kind="fact", embedder=embedder)
        began = time.process_time()
        memories.remember(store, newer, kind="fact", embedder=embedder)
        times.append(time.process_time() - began)
    return statistics.median(times) * 1000


def cpu_per_turn(embedding: str) -> float:
    """Median CPU ms of an offline chat turn that remembers a change ("remember that ...")."""
    from assistant.runtime import Runtime
    from assistant.services import Services
    from assistant.settings import load_settings

    home = Path(tempfile.mkdtemp())
    (home / "none.toml").write_text("")  # an empty config: nothing of the machine's own
    settings = load_settings(env={"ASSISTANT_DB": str(home / "m.db"), "ASSISTANT_NOW": NOW,
                                  "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_PROVIDER": "offline",
                                  "ASSISTANT_CONFIG": str(home / "none.toml"), "ASSISTANT_EMBEDDING_MODEL": embedding})
    runtime = Runtime(settings)
    service = Services(runtime).model
    service.connect()

    async def run() -> list[float]:
        for text in background()[:20]:
            async for _ in service.turn(f"remember that {text}"):
                pass
        times = []
        for _, older, newer in pairs("supersession_meaning.tsv")[:30]:
            async for _ in service.turn(f"remember that {older}"):
                pass
            began = time.process_time()
            async for _ in service.turn(f"remember that {newer}"):
                pass
            times.append(time.process_time() - began)
        return times

    times = asyncio.run(run())
    runtime.close()
    return statistics.median(times) * 1000


def cpu_per_cli(embedding: str, runs: int) -> tuple[float, float]:
    """Median (CPU s, wall s) of a whole `assistant remember` process writing a change."""
    exe = Path(sys.executable).with_name("assistant")
    home = Path(tempfile.mkdtemp())
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "XDG_"))}, "HOME": str(home),
           "XDG_CACHE_HOME": str(home / "cache"), "ASSISTANT_DB": str(home / "m.db"), "ASSISTANT_NOW": NOW,
           "ASSISTANT_EMBEDDING_MODEL": embedding}
    cpu, wall = [], []
    for n in range(runs):
        subprocess.run([str(exe), "remember", f"the storage unit {n} code is {6000 + n}"], env=env, check=True,
                       capture_output=True)
        began = time.perf_counter()
        proc = subprocess.Popen([str(exe), "remember", f"the storage unit {n} code changed, it's {8000 + n} now"],
                                env=env, stdout=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        wall.append(time.perf_counter() - began)
        cpu.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", choices=("bundled", "none"), default="bundled")
    parser.add_argument("--sets", action="store_true")
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--cli", type=int, default=0, help="whole `assistant remember` processes to time, each way")
    args = parser.parse_args()
    embedder = bundled_embedder() if args.embedder == "bundled" else None
    if args.sets or not args.cost:
        for name in SETS:
            print(measure_set(name, embedder))
        print(measure_among_others(embedder))
    if args.cost:
        if embedder is not None:
            embedder.load()
        for size in (80, 2000):
            print(f"remember() among {size:5} memories: {cpu_per_remember(size, None):6.1f} ms CPU rules alone, "
                  f"{cpu_per_remember(size, embedder):6.1f} ms with meaning (median)")
        print(f"offline turn 'remember that ...': {cpu_per_turn('none'):6.1f} ms CPU rules alone, "
              f"{cpu_per_turn('bundled'):6.1f} ms with meaning (median)")
    if args.cli:
        for embedding in ("none", "bundled"):
            cpu, wall = cpu_per_cli(embedding, args.cli)
            print(f"assistant remember (embedding_model = {embedding}): {cpu:.2f} s CPU, {wall:.2f} s wall (median)")


if __name__ == "__main__":
    main()
