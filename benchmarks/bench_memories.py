"""The Memories screen at 2,000 and 100,000 memories: how long it takes to open (the first page drawn),
to search (typing to hits drawn), to page deep into the list, and what the memories service calls under it cost.

    python benchmarks/bench_memories.py [--sizes 2000,100000] [--runs 20]

The store is the synthetic one of benchmarks/corpus.py (Zipf words, topic-clustered vectors written
directly, so 100k memories take seconds to build rather than the minutes real embedding would); query
vectors come from the real bundled embedder, so a search's time includes embedding the query.

Two levels:
- the memories service (no UI): the first page, a page 50 pages deep (keyset: no offset), the count shown in the
  title, filtered first pages (a rare tier, a common kind, pinned), and search_memories for the corpus's
  queries and for one-word queries;
- the app, headless (Textual's pilot, no terminal): from the screen asked for (what f2 runs) to the list
  drawn with its first page, from a search started (typing starts it 0.15 s after the last key) to the
  list drawn with its hits, twenty page-downs (the list loads a page ahead as it nears its end) and the
  number of widgets on the screen before and after, which must not grow with the store.
Figures go to docs/memories.md.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus  # noqa: E402

from assistant.services.memories import MemoryService  # noqa: E402
from memory.browse import MemoryFilter  # noqa: E402


def ms(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {"p50": round(statistics.median(values) * 1000, 1),
            "p95": round(values[min(len(values) - 1, int(len(values) * 0.95))] * 1000, 1),
            "max": round(values[-1] * 1000, 1)}


def timed(call, runs: int) -> dict[str, float]:
    call()  # the first call of a kind reads its pages of the file; a person opening the screen twice sees this
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return ms(times)


def service_figures(db: Path, queries: list[str], runs: int) -> dict[str, object]:
    rt = corpus.open_runtime(db)
    rt.store.execute("UPDATE knowledge SET pinned = 1 WHERE id % 997 = 0")
    service = MemoryService(rt)
    out: dict[str, object] = {"memories": service.count()}
    out["first_page"] = timed(service.page, runs)
    after = None
    for _ in range(50):
        after = service.page(after=after).after
    out["page_50_deep"] = timed(lambda: service.page(after=after), runs)
    out["count"] = timed(service.count, runs)
    for name, wanted in (("archived", MemoryFilter(tier="archived")), ("facts", MemoryFilter(kind="fact")),
                         ("pinned", MemoryFilter(pinned=True)), ("secret", MemoryFilter(sensitive=True))):
        out[f"first_page_{name}"] = timed(lambda w=wanted: service.page(w), runs)
        out[f"count_{name}"] = timed(lambda w=wanted: service.count(w), max(3, runs // 4))
    rt.searcher.embed_query("warm up")  # the model is loaded once per process, at the app's first key
    searched = []
    for query in queries[:runs]:
        start = time.perf_counter()
        service.search(query)
        searched.append(time.perf_counter() - start)
    out["search_corpus_queries"] = ms(searched)
    words = [q.split()[0] for q in queries[:runs]]
    searched = []
    for word in words:
        start = time.perf_counter()
        service.search(word)
        searched.append(time.perf_counter() - start)
    out["search_one_word"] = ms(searched)
    rt.close()
    return out


async def app_figures(db: Path, words: list[str], runs: int) -> dict[str, object]:
    """The real app, headless: from the key to the list drawn (the first line of the list rendered with
    rows in it), opening and searching, then paging; widgets counted."""
    from assistant.settings import load_settings
    from ui.app import AssistantApp
    from ui.screens.memories import MemoriesScreen
    from ui.widgets.memory_list import MemoryList

    drawn: list[float] = []
    render_line = MemoryList.render_line

    def noted(self: MemoryList, y: int):  # the one hook: when the list draws a line with rows in it
        if self.rows and (not self.rows[0].matched) == (not self.screen.query_text.strip()):
            drawn.append(time.perf_counter())
        return render_line(self, y)

    MemoryList.render_line = noted  # type: ignore[method-assign]
    settings = load_settings(env={"ASSISTANT_DB": str(db), "ASSISTANT_NOW": "2026-11-22T14:00:00Z",
                                  "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_PROVIDER": "offline"})
    app = AssistantApp(settings)
    opened, searched, widgets = [], [], {}

    async def until_drawn(since: float, timeout: float = 30.0) -> float:
        while not [t for t in drawn if t >= since]:
            if time.perf_counter() - since > timeout:
                raise TimeoutError("the list was not drawn")
            await asyncio.sleep(0.001)
        return min(t for t in drawn if t >= since) - since

    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        app.runtime.searcher.embed_query("warm up")  # as after the app's first key
        for word in words[:runs]:
            start = time.perf_counter()
            app.action_memories()  # what f2 runs
            opened.append(await until_drawn(start))
            await pilot.pause(0.3)  # the count in the title, read after the first page
            screen = app.screen
            assert isinstance(screen, MemoriesScreen)
            widgets["open"] = len(list(screen.walk_children()))
            screen.query_text = word  # what typing sets; the search runs TYPING_PAUSE after the last key
            start = time.perf_counter()
            screen.load()
            searched.append(await until_drawn(start))
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
        app.action_memories()
        await pilot.pause(0.3)
        memory_list = app.screen.query_one(MemoryList)
        start = time.perf_counter()
        for _ in range(20):
            await pilot.press("pagedown")
        await app.workers.wait_for_complete()
        paged = time.perf_counter() - start
        widgets["after_20_pages"] = len(list(app.screen.walk_children()))
        loaded = len(memory_list.rows)
        await pilot.press("escape")
    MemoryList.render_line = render_line  # type: ignore[method-assign]
    return {"open_to_drawn": ms(opened), "search_to_drawn": ms(searched), "twenty_page_downs_s": round(paged, 2),
            "rows_loaded_after_20_page_downs": loaded, "widgets": widgets}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2000,100000")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    results = {}
    for n in (int(s) for s in args.sizes.split(",")):
        folder = Path(tempfile.mkdtemp(prefix=f"bench-memories-{n}-"))
        started = time.perf_counter()
        rt, queries, _ = corpus.build(n, path=folder / "bench.db")
        rt.store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rt.close()
        print(f"{n:,} memories built in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        figures = {"service": service_figures(folder / "bench.db", queries, args.runs)}
        words = [q.split()[0] for q in queries]
        figures["app"] = asyncio.run(app_figures(folder / "bench.db", words, max(5, args.runs // 2)))
        results[n] = figures
        print(json.dumps({n: figures}, indent=1), flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
