"""Retrieval quality on long two-person conversations (not a test; the yardstick for memory.search).

    python benchmarks/bench_retrieval.py                 (4 conversations, ~280 questions, ~1 min)
    python benchmarks/bench_retrieval.py --json out.json (also keep the figures)

Each conversation from benchmarks/conversations.py is imported into its own fresh store (one
episode per session, turns as "Speaker: text" messages with their real dates) and embedded with
the bundled model. Every question is then asked of:

- BM25: a plain Okapi BM25 (k1 1.2, b 0.75, Lucene idf) over the same turns, written here, no stemming
- FTS5: the product's keyword arm alone (Searcher without an embedder)
- vectors: exact cosine over the stored turn vectors, nothing else
- hybrid: the product's search (Searcher.search), as `recall --json` and the prompt use it
- recall CLI: what `assistant recall --json --limit 10` returns (reasoned recall for "when" questions)

Reported per question kind: recall@5/@10/@20 (share of a question's evidence turns found in the
top k, averaged) and MRR (first evidence turn, top 20). Printed as Markdown tables.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conversations import KINDS, Conversation, generate_all  # noqa: E402

from assistant.runtime import Runtime  # noqa: E402
from assistant.settings import load_settings  # noqa: E402
from memory import vectors as vector_index  # noqa: E402
from memory.search import Fusion, Searcher  # noqa: E402
from memory.search.embeddings import sync_embeddings  # noqa: E402
from memory.transfer.jsonl_import import import_records  # noqa: E402

DEPTH = 20
ARMS = ("BM25", "FTS5", "vectors", "hybrid")
# A plain English stop list for the baseline (the classic short one; BM25 libraries ship similar).
BM25_STOP = frozenset("""a an and are as at be but by for if in into is it no not of on or such that the their
then there these they this to was will with i me my we our you your he she his her him them what which who
whom when where why how do does did have has had am were been being so just""".split())


class BM25:
    """Okapi BM25 over whitespace-and-punctuation tokens, lowercased, stop words out, no stemming."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tokens = [self.tokenize(d) for d in docs]
        self.lengths = [len(t) for t in self.tokens]
        self.average = sum(self.lengths) / max(1, len(self.lengths))
        self.freqs = [Counter(t) for t in self.tokens]
        df = Counter(w for t in self.tokens for w in set(t))
        n = len(docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return [w for w in re.findall(r"\w+", text.lower()) if w not in BM25_STOP]

    def rank(self, query: str, k: int) -> list[int]:
        scores: list[tuple[float, int]] = []
        words = set(self.tokenize(query))
        for i, freq in enumerate(self.freqs):
            s = 0.0
            for w in words:
                tf = freq.get(w)
                if tf:
                    s += self.idf[w] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.lengths[i]
                                                                          / self.average))
            if s > 0:
                scores.append((s, i))
        scores.sort(key=lambda item: (-item[0], item[1]))
        return [i for _, i in scores[:k]]


def open_runtime(path: Path) -> Runtime:
    return Runtime(load_settings(env={"ASSISTANT_DB": str(path), "ASSISTANT_NOW": "2024-01-01T12:00:00Z",
                                      "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_PROVIDER": "offline"}))


def load(convo: Conversation, path: Path, embedder=None) -> tuple[Runtime, list[int]]:
    """A runtime over a fresh store holding the conversation; returns it and the turns' message ids."""
    rt = open_runtime(path)
    if embedder is not None:
        rt.__dict__["embedder"] = embedder  # share one loaded model across stores
    import_records(rt.store, [json.dumps(r) for r in convo.records()])
    ids = [r[0] for r in rt.store.query("SELECT id FROM messages ORDER BY id")]
    if len(ids) != len(convo.turns):
        raise RuntimeError("the import did not keep every turn")
    if rt.embedder is not None:
        sync_embeddings(rt.store, rt.embedder)
    return rt, ids


def _scores(ranked: list[int], evidence: set[int]) -> dict[str, float]:
    out = {f"R@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in (5, 10, 20)}
    first = next((i for i, doc in enumerate(ranked[:DEPTH]) if doc in evidence), None)
    out["MRR"] = 0.0 if first is None else 1 / (first + 1)
    return out


def evaluate(convo: Conversation, rt: Runtime, ids: list[int],
             arms: dict[str, Callable[[str, object], list[int]]] | None = None,
             cli: bool = True) -> list[dict]:
    """One row per (question, arm): the question's kind and its recall/MRR figures."""
    import numpy as np

    key_to_id = {t.key: ids[i] for i, t in enumerate(convo.turns) if t.key}
    contents = [r[0] for r in rt.store.query("SELECT content FROM messages ORDER BY id")]
    bm25 = BM25(contents)
    keyword = Searcher(rt.store, None)
    docs, matrix = vector_index.in_range(rt.store, 0, 2**62, doc_type=0)  # every message's stored vector
    vec_ids = docs // 4

    def messages(hits) -> list[int]:
        return [h.id for h in hits if h.type == "message"]

    default_arms: dict[str, Callable[[str, object], list[int]]] = {
        "BM25": lambda q, v: [ids[i] for i in bm25.rank(q, DEPTH)],
        "FTS5": lambda q, v: messages(keyword.search(q, limit=DEPTH, touch=False)),
        "vectors": lambda q, v: [int(vec_ids[i]) for i in np.argsort(-(matrix @ v))[:DEPTH]],
        "hybrid": lambda q, v: messages(rt.searcher.search(q, limit=DEPTH, vector=searched[q], touch=False)),
    }
    arms = arms or default_arms
    vectors = rt.embedder.embed([q.text for q in convo.questions])
    # The hybrid search embeds the question as Searcher.vector_text gives it (what embed_query does).
    searched = query_vectors(rt.searcher, rt.embedder, [q.text for q in convo.questions])
    results = []
    for question, vector in zip(convo.questions, vectors, strict=True):
        evidence = {key_to_id[k] for k in question.evidence}
        for arm, run in arms.items():
            results.append({"kind": question.kind, "arm": arm, "question": question.text,
                            **_scores(run(question.text, vector), evidence)})
        if cli:
            results.append({"kind": question.kind, "arm": "recall CLI", "question": question.text,
                            **_scores(recall_cli(rt, question.text, searched[question.text]), evidence)})
    return results


def query_vectors(searcher: Searcher, embedder, questions: list[str]) -> dict[str, object]:
    """{question: the vector the searcher's embed_query would give it}, in one batch."""
    texts = [searcher.vector_text(q) for q in questions]
    return dict(zip(questions, embedder.embed(texts), strict=True))


def recall_cli(rt: Runtime, query: str, vector, limit: int = 10) -> list[int]:
    """The message ids `assistant recall QUERY --json --limit 10` returns, in order (commands.cmd_recall),
    and for "when" questions the sources of the reasoned recall (`--reason`, which the agent, the TUI
    and the offline mode switch on by themselves for such questions)."""
    from assistant.recall.reasoned import reasoned_recall
    from memory.time.references import asks_when

    if asks_when(query):
        rt.searcher.embed_query = lambda _text: vector  # the vector is already computed
        try:
            answer = reasoned_recall(rt, query, limit=limit)
        finally:
            del rt.searcher.embed_query
        return [s["id"] for s in answer.sources if s["type"] == "message"]
    return [h.id for h in rt.searcher.search(query, limit=limit, vector=vector, touch=False) if h.type == "message"]


def summarise(results: list[dict]) -> dict[str, dict[str, dict[str, float]]]:
    """{arm: {kind or "all": {metric: mean}}} (each kind's questions weigh equally within it)."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    for arm in dict.fromkeys(r["arm"] for r in results):
        table[arm] = {}
        for kind in (*KINDS, "all"):
            chosen = [r for r in results if r["arm"] == arm and (kind == "all" or r["kind"] == kind)]
            if chosen:
                table[arm][kind] = {m: sum(r[m] for r in chosen) / len(chosen) for m in ("R@5", "R@10", "R@20", "MRR")}
    return table


def markdown(table: dict, counts: dict[str, int]) -> str:
    head = "| | " + " | ".join(f"{k} ({counts[k]})" for k in (*KINDS, "all")) + " |"
    out = []
    for metric in ("R@10", "R@5", "R@20", "MRR"):
        out += [f"**{metric}**" if metric != "MRR" else "**MRR** (top 20)", "", head,
                "| --- " * (len(KINDS) + 2) + "|"]
        for arm, kinds in table.items():
            if arm == "recall CLI" and metric == "R@20":
                continue
            cells = [f"{kinds[k][metric] * (100 if metric != 'MRR' else 1):.{1 if metric != 'MRR' else 3}f}"
                     for k in (*KINDS, "all")]
            out.append(f"| {arm} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def prepared(seed: int = 12, count: int = 4, log=print):
    """Yield (conversation, runtime, message ids) for each conversation, stores built in a temp dir."""
    from memory.search.embeddings import LocalEmbedder

    embedder = LocalEmbedder(cache_dir=Path(tempfile.gettempdir()) / "assistant-bench-embedder")
    with tempfile.TemporaryDirectory() as tmp:
        for number, convo in enumerate(generate_all(seed, count)):
            started = time.perf_counter()
            rt, ids = load(convo, Path(tmp) / f"c{number}.db", embedder)
            try:
                log(f"conversation {number + 1}: {convo.a.name} & {convo.b.name}, {len(convo.turns)} turns, "
                    f"{len(convo.sessions)} sessions, {len(convo.questions)} questions "
                    f"({time.perf_counter() - started:.1f} s to build)")
                yield convo, rt, ids
            finally:
                rt.close()


def run(seed: int = 12, count: int = 4, cli: bool = True, fusion: Fusion | None = None,
        log=print) -> tuple[dict, dict[str, int], list[dict]]:
    results, counts = [], Counter()
    for convo, rt, ids in prepared(seed, count, log):
        if fusion is not None:
            rt.__dict__["searcher"] = Searcher(rt.store, rt.embedder, fusion=fusion)
        results += evaluate(convo, rt, ids, cli=cli)
        counts.update(q.kind for q in convo.questions)
    counts["all"] = sum(counts[k] for k in KINDS)
    return summarise(results), counts, results


def parse_fusion(text: str, base: Fusion | None = None) -> Fusion:
    """"keyword_weight=0.6,carry=0.5" -> Fusion(...), fields typed like the defaults."""
    base = base or Fusion()
    changes = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        current = getattr(base, name)
        changes[name] = type(current)(value)
    return replace(base, **changes)


def ablate(variants: list[tuple[str, Fusion]], seed: int = 12, count: int = 4, log=print) -> str:
    """Hybrid recall@10 and MRR per kind for each fusion variant, over stores built once."""
    results: dict[str, list[dict]] = {name: [] for name, _ in variants}
    counts: Counter = Counter()
    for convo, rt, ids in prepared(seed, count, log):
        counts.update(q.kind for q in convo.questions)
        key_to_id = {t.key: ids[i] for i, t in enumerate(convo.turns) if t.key}
        for name, fusion in variants:
            searcher = Searcher(rt.store, rt.embedder, fusion=fusion)
            vectors = query_vectors(searcher, rt.embedder, [q.text for q in convo.questions])
            for question in convo.questions:
                hits = searcher.search(question.text, limit=DEPTH, vector=vectors[question.text], touch=False)
                ranked = [h.id for h in hits if h.type == "message"]
                results[name].append({"kind": question.kind, "arm": name,
                                      **_scores(ranked, {key_to_id[k] for k in question.evidence})})
    counts["all"] = sum(counts[k] for k in KINDS)
    head = "| variant | " + " | ".join(f"{k} ({counts[k]})" for k in (*KINDS, "all")) + " |"
    lines = ["recall@10 (MRR) of the hybrid search per question kind", "", head, "| --- " * (len(KINDS) + 2) + "|"]
    for name, _ in variants:
        table = summarise(results[name])[name]
        lines.append(f"| {name} | " + " | ".join(f"{table[k]['R@10'] * 100:.1f} ({table[k]['MRR']:.2f})"
                                                  for k in (*KINDS, "all")) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--conversations", type=int, default=4)
    ap.add_argument("--no-cli", action="store_true", help="skip the recall CLI row")
    ap.add_argument("--fusion", default="", help='hybrid settings, e.g. "method=rrf,carry=0" (memory.search.Fusion)')
    ap.add_argument("--ablate", nargs="+", metavar="NAME:SETTINGS",
                    help='compare variants, e.g. "before:method=rrf,carry=0" "now:" (hybrid only)')
    ap.add_argument("--json", type=Path, help="write the summary and per-question rows here")
    args = ap.parse_args()
    log = lambda text: print(text, file=sys.stderr)  # noqa: E731
    if args.ablate:
        variants = [(item.rpartition(":")[0], parse_fusion(item.rpartition(":")[2])) for item in args.ablate]
        print(ablate(variants, args.seed, args.conversations, log))
        return
    fusion = parse_fusion(args.fusion) if args.fusion else None
    table, counts, results = run(args.seed, args.conversations, cli=not args.no_cli, fusion=fusion, log=log)
    print(markdown(table, counts))
    if args.json:
        args.json.write_text(json.dumps({"summary": table, "counts": counts, "questions": results}, indent=1))


if __name__ == "__main__":
    main()
