"""Retrieval on real long conversations: LoCoMo-dev, hybrid search next to a plain BM25 in one run.

    python benchmarks/bench_locomo.py                         (5 conversations, 760 questions, ~3 min)
    python benchmarks/bench_locomo.py --index                 (import as `assistant import --index`)
    python benchmarks/bench_locomo.py --ablate "now:" "no carry:carry=0"   (hybrid variants, same stores)
    python benchmarks/bench_locomo.py --misses misses.txt     (every question whose evidence was missed)
    python benchmarks/bench_locomo.py --json out.json         (the figures and one row per question)

The data is ../shared/data/locomo-dev.json (five conversations of LoCoMo, Maharana et al. 2024;
see that folder's README), or --data FILE. Each conversation is imported into its own fresh store
through the path a user's import takes: its sessions and turns are written as a JSON Lines file
(one episode per session, each turn a message "Speaker: text" at the session's time plus ten
seconds per turn, the first speaker as the user and the second as the assistant) and read by the
command behind `assistant import` (assistant.cli.data.cmd_import), with the real bundled embedder.

Every question of categories 1-4 with evidence is then asked of:

- BM25: SQLite FTS5's bm25() over the same turns in a table of their own (the store's tokenizer,
  porter unicode61), the question's words OR-ed: a plain keyword search, no stop list, no fusion
- hybrid: the product's search, `memory.search.Searcher.search(question, limit=10)`, which is what
  `assistant recall QUESTION --limit 10 --json` returns (query embedding included)

and counted per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop) and overall:
hit@5 and hit@10 (an evidence turn among the first k results), recall@10 (the share of the
question's evidence turns among the first ten) and MRR (first evidence turn within the ten).
Latency is per question, in process: the hybrid search with its query embedding, the same search
given the query vector, and the BM25 query.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.cli.data import cmd_import  # noqa: E402
from assistant.runtime import Runtime  # noqa: E402
from assistant.settings import load_settings  # noqa: E402
from memory.search import Fusion, Searcher  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev.json"
FALLBACK_DATA = Path("/work/shared/data/locomo-dev.json")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
LIMIT = 10
SECONDS_PER_TURN = 10
METRICS = ("hit@5", "hit@10", "recall@10", "MRR")


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]  # dia_ids that exist in the conversation
    answer: str


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[tuple[datetime, list[dict]]]  # (when, turns {speaker, dia_id, text})
    questions: list[Question] = field(default_factory=list)

    @property
    def turns(self) -> list[dict]:
        return [t for _, turns in self.sessions for t in turns]

    def records(self) -> Iterator[dict]:
        """JSON Lines records as `assistant import` reads them (memory.transfer.jsonl_import)."""
        for number, (start, turns) in enumerate(self.sessions, start=1):
            end = start + timedelta(seconds=SECONDS_PER_TURN * max(0, len(turns) - 1))
            yield {"type": "episode", "id": f"s{number}", "outcome": "success",
                   "started_at": start.isoformat(), "ended_at": end.isoformat()}
        for number, (start, turns) in enumerate(self.sessions, start=1):
            for index, turn in enumerate(turns):
                yield {"type": "message", "episode_id": f"s{number}",
                       "role": "user" if turn["speaker"] == self.speakers[0] else "assistant",
                       "content": f"{turn['speaker']}: {turn['text']}",
                       "created_at": (start + timedelta(seconds=SECONDS_PER_TURN * index)).isoformat()}


def _session_time(text: str) -> datetime:
    """"1:56 pm on 8 May, 2023" -> an aware datetime (the data gives no zone: UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _evidence_ids(raw: list[str], known: set[str]) -> list[str]:
    """The evidence dia_ids that name a turn; the data has a few typos ("D8:6; D9:17", "D:11:26")."""
    out = []
    for item in raw:
        for part in item.split(";"):
            match = re.fullmatch(r"D:?(\d+):(\d+)", part.strip())
            if match and f"D{match[1]}:{match[2]}" in known:
                out.append(f"D{match[1]}:{match[2]}")
    return list(dict.fromkeys(out))


def load_conversations(path: Path) -> list[Conversation]:
    out = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        sessions = [(_session_time(conv[f"session_{n}_date_time"]), conv[f"session_{n}"]) for n in numbers
                    if conv.get(f"session_{n}")]
        convo = Conversation(sample["sample_id"], (conv["speaker_a"], conv["speaker_b"]), sessions)
        known = {t["dia_id"] for t in convo.turns}
        for qa in sample["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            evidence = _evidence_ids(qa.get("evidence") or [], known)
            if evidence:
                convo.questions.append(Question(qa["question"], qa["category"], evidence, str(qa.get("answer"))))
        out.append(convo)
    return out


def open_runtime(path: Path, embedder) -> Runtime:
    rt = Runtime(load_settings(env={"ASSISTANT_DB": str(path), "ASSISTANT_NOW": "2024-06-01T12:00:00Z",
                                    "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_PROVIDER": "offline"}))
    rt.__dict__["embedder"] = embedder  # one loaded model shared by every store
    return rt


def import_conversation(convo: Conversation, folder: Path, embedder, index: bool,
                        reuse: bool = False) -> tuple[Runtime, dict, float | None]:
    """A runtime over a fresh store holding the conversation, imported by `assistant import`'s own
    command; returns it, {dia_id: message id} and the seconds the import took (None: `reuse` found
    the store of an earlier run, which is then searched as it is)."""
    source, path = folder / f"{convo.sample_id}.jsonl", folder / f"{convo.sample_id}.db"
    seconds = None
    if not (reuse and path.exists()):
        path.unlink(missing_ok=True)
        source.write_text("".join(json.dumps(r) + "\n" for r in convo.records()))
        rt = open_runtime(path, embedder)
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            cmd_import(rt, argparse.Namespace(file=str(source), index=index, json=True))
        seconds = time.perf_counter() - started
    else:
        rt = open_runtime(path, embedder)
    ids = [r[0] for r in rt.store.query("SELECT id FROM messages ORDER BY id")]
    turns = convo.turns
    if len(ids) != len(turns):
        raise RuntimeError(f"{convo.sample_id}: the import kept {len(ids)} of {len(turns)} turns")
    return rt, {t["dia_id"]: ids[i] for i, t in enumerate(turns)}, seconds


class PlainBM25:
    """FTS5 bm25() over the turns in a table of their own, the question's words OR-ed."""

    def __init__(self, texts: list[tuple[int, str]]) -> None:
        self.db = sqlean.connect(":memory:")  # the SQLite (and FTS5) the store runs on
        self.db.execute("CREATE VIRTUAL TABLE turns USING fts5(content, tokenize = 'porter unicode61')")
        self.db.executemany("INSERT INTO turns(rowid, content) VALUES (?, ?)", texts)

    def rank(self, query: str, k: int = LIMIT) -> list[int]:
        words = list(dict.fromkeys(re.findall(r"\w+", query.lower())))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        return [r[0] for r in self.db.execute("SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) "
                                              "LIMIT ?", (match, k))]


def scores(ranked: list[int], evidence: set[int]) -> dict[str, float]:
    first = next((i for i, doc in enumerate(ranked[:LIMIT]) if doc in evidence), None)
    return {"hit@5": float(first is not None and first < 5), "hit@10": float(first is not None),
            "recall@10": len(evidence & set(ranked[:LIMIT])) / len(evidence),
            "MRR": 0.0 if first is None else 1 / (first + 1)}


def summarise(rows: list[dict], arm: str) -> dict[str, dict[str, float]]:
    """{category name or "overall": {metric: mean, "n": count}} for one arm."""
    out = {}
    for category, name in [*CATEGORIES.items(), (None, "overall")]:
        chosen = [r for r in rows if r["arm"] == arm and (category is None or r["category"] == category)]
        if chosen:
            out[name] = {m: sum(r[m] for r in chosen) / len(chosen) for m in METRICS} | {"n": len(chosen)}
    return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))] if ordered else float("nan")


def message_ids(hits) -> list[int]:
    return [h.id for h in hits if h.type == "message"]


def evaluate(convo: Conversation, rt: Runtime, dia: dict[str, int], timings: dict[str, list[float]],
             variants: list[tuple[str, Fusion]], detail: list[dict]) -> list[dict]:
    rows = []
    contents = dict(rt.store.query("SELECT id, content FROM messages"))
    bm25 = PlainBM25(list(contents.items()))
    searcher = rt.searcher
    for question in convo.questions:
        evidence = {dia[d] for d in question.evidence}
        started = time.perf_counter()
        baseline = bm25.rank(question.text)
        timings["BM25"].append(time.perf_counter() - started)
        started = time.perf_counter()
        hybrid = message_ids(searcher.search(question.text, limit=LIMIT, touch=False))
        timings["hybrid (query embedding included)"].append(time.perf_counter() - started)
        vector = searcher.embed_query(question.text)
        started = time.perf_counter()
        searcher.search(question.text, limit=LIMIT, touch=False, vector=vector)
        timings["hybrid (given the query vector)"].append(time.perf_counter() - started)
        ranked = {"BM25": baseline, "hybrid": hybrid}
        embedded = {searcher.vector_text(question.text): vector}
        for name, fusion in variants:
            other = Searcher(rt.store, rt.embedder, fusion=fusion)
            other.codes = searcher.codes
            text = other.vector_text(question.text)  # a variant may embed the question otherwise
            if text not in embedded:
                embedded[text] = rt.embedder.embed([text])[0]
            ranked[name] = message_ids(other.search(question.text, limit=LIMIT, touch=False, vector=embedded[text]))
        for arm, ids in ranked.items():
            rows.append({"conversation": convo.sample_id, "category": question.category, "arm": arm,
                         "question": question.text, **scores(ids, evidence)})
        if not evidence & set(hybrid):
            by_id = {v: k for k, v in dia.items()}
            detail.append({"conversation": convo.sample_id, "category": question.category, "question": question.text,
                           "answer": question.answer,
                           "evidence": [(d, contents[dia[d]]) for d in question.evidence],
                           "hybrid": [(by_id.get(i), contents.get(i, "")) for i in hybrid],
                           "bm25_found": bool(evidence & set(baseline))})
    return rows


def table(summary: dict[str, dict[str, dict[str, float]]], arms: list[str], metrics=METRICS) -> str:
    names = [*CATEGORIES.values(), "overall"]
    counts = next(iter(summary.values()))
    head = "| arm | metric | " + " | ".join(f"{n} ({int(counts[n]['n'])})" for n in names) + " |"
    lines = [head, "| --- | --- |" + " --- |" * len(names)]
    for arm in arms:
        for metric in metrics:
            cells = [f"{summary[arm][n][metric] * (100 if metric != 'MRR' else 1):.{1 if metric != 'MRR' else 3}f}"
                     for n in names]
            lines.append(f"| {arm} | {metric} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ablation_table(summary: dict[str, dict[str, dict[str, float]]], arms: list[str]) -> str:
    names = [*CATEGORIES.values(), "overall"]
    lines = ["hit@5 / hit@10 per category (MRR overall)", "",
             "| variant | " + " | ".join(names) + " | MRR |", "| --- |" + " --- |" * (len(names) + 1)]
    for arm in arms:
        s = summary[arm]
        lines.append(f"| {arm} | " + " | ".join(f"{s[n]['hit@5'] * 100:.1f} / {s[n]['hit@10'] * 100:.1f}"
                                                 for n in names) + f" | {s['overall']['MRR']:.3f} |")
    return "\n".join(lines)


def run(data: Path, index: bool, variants: list[tuple[str, Fusion]], only: list[str] | None,
        log: Callable[[str], None], stores: Path | None = None) -> tuple[dict, dict, list[dict], list[dict], dict]:
    from memory.search.embeddings import LocalEmbedder, pending_count

    conversations = [c for c in load_conversations(data) if not only or c.sample_id in only]
    rows: list[dict] = []
    detail: list[dict] = []
    timings: dict[str, list[float]] = {"BM25": [], "hybrid (query embedding included)": [],
                                       "hybrid (given the query vector)": []}
    imports: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        embedder = LocalEmbedder(cache_dir=Path(tmp) / "embedder")
        embedder.load()
        if stores is not None:
            stores.mkdir(parents=True, exist_ok=True)
        for convo in conversations:
            folder = stores or Path(tmp)
            rt, dia, seconds = import_conversation(convo, folder, embedder, index, reuse=stores is not None)
            try:
                waiting = pending_count(rt.store)
                if seconds is not None:
                    imports[convo.sample_id] = seconds
                log(f"{convo.sample_id}: {len(convo.turns)} turns in {len(convo.sessions)} sessions "
                    + (f"imported in {seconds:.1f} s" if seconds is not None else "(the store of an earlier run)")
                    + f" ({waiting} texts not embedded after the import), {len(convo.questions)} questions")
                rows += evaluate(convo, rt, dia, timings, variants, detail)
            finally:
                rt.close()
    arms = ["BM25", "hybrid", *(name for name, _ in variants)]
    return {arm: summarise(rows, arm) for arm in arms}, timings, rows, detail, imports


def write_misses(path: Path, detail: list[dict]) -> None:
    out = []
    for d in detail:
        out.append(f"## [{CATEGORIES[d['category']]}] {d['conversation']}: {d['question']}  (answer: {d['answer']}; "
                   f"BM25 {'found it' if d['bm25_found'] else 'missed too'})")
        out += [f"   evidence {dia}: {text}" for dia, text in d["evidence"]]
        out += [f"   {rank + 1:2}. {dia}: {text[:160]}" for rank, (dia, text) in enumerate(d["hybrid"])]
        out.append("")
    path.write_text("\n".join(out))


def parse_fusion(text: str, base: Fusion | None = None) -> Fusion:
    """"carry=0,keyword_weight=0.6" -> Fusion(...), each value typed like the default."""
    base = base or Fusion()
    changes = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        current = getattr(base, name)
        changes[name] = (value.lower() in ("1", "true", "yes")) if isinstance(current, bool) else type(current)(value)
    return replace(base, **changes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA if DATA.exists() else FALLBACK_DATA)
    ap.add_argument("--index", action="store_true", help="import with --index (as `assistant import --index`)")
    ap.add_argument("--only", nargs="+", metavar="SAMPLE_ID", help="only these conversations (e.g. conv-26)")
    ap.add_argument("--ablate", nargs="+", default=[], metavar="NAME:SETTINGS",
                    help='hybrid variants over the same stores, e.g. "no carry:carry=0" (memory.search.Fusion)')
    ap.add_argument("--misses", type=Path, help="write the questions the hybrid search missed, with its top ten")
    ap.add_argument("--json", type=Path, help="write the summary and one row per question here")
    ap.add_argument("--stores", type=Path, help="keep the stores in this folder and reuse them on the next run "
                    "(no import then: for trying ranking variants quickly)")
    args = ap.parse_args()
    log = lambda text: print(text, file=sys.stderr)  # noqa: E731
    variants = [(item.rpartition(":")[0], parse_fusion(item.rpartition(":")[2])) for item in args.ablate]
    summary, timings, rows, detail, imports = run(args.data, args.index, variants, args.only, log, args.stores)
    arms = list(summary)
    print(table(summary, ["BM25", "hybrid"]))
    print()
    gap = {n: (summary["hybrid"][n]["hit@5"] - summary["BM25"][n]["hit@5"],
               summary["hybrid"][n]["hit@10"] - summary["BM25"][n]["hit@10"]) for n in summary["hybrid"]}
    print("hybrid over BM25, points at hit@5 / hit@10: " + ", ".join(f"{n} {a * 100:+.1f} / {b * 100:+.1f}"
                                                                       for n, (a, b) in gap.items()))
    print()
    if variants:
        print(ablation_table(summary, arms[1:]))
        print()
    for name, values in timings.items():
        print(f"latency, {name}: p50 {statistics.median(values) * 1000:.1f} ms, "
              f"p95 {percentile(values, 0.95) * 1000:.1f} ms ({len(values)} searches)")
    if imports:
        print(f"import ({'--index' if args.index else 'plain'}): {sum(imports.values()):.1f} s for "
              f"{len(imports)} conversations ({', '.join(f'{k} {v:.1f} s' for k, v in imports.items())})")
    if args.misses:
        write_misses(args.misses, detail)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "imports": imports,
                                         "latency_ms": {k: {"p50": statistics.median(v) * 1000,
                                                            "p95": percentile(v, 0.95) * 1000}
                                                        for k, v in timings.items()},
                                         "questions": rows}, indent=1))


if __name__ == "__main__":
    main()
