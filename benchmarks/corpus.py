"""A synthetic memory store for benchmarks: Zipf-distributed words from a 3,000-word vocabulary and
topic-clustered unit vectors (inserted directly, so building 100k rows takes seconds, not the
five minutes real embedding would). Query embedding is measured separately with the real model."""
from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from assistant.runtime import Runtime  # noqa: E402
from assistant.settings import load_settings  # noqa: E402
from memory.embeddings import ensure_vec_table  # noqa: E402
from memory.records import import_records  # noqa: E402
from memory.store import VEC_TABLE  # noqa: E402

TOPICS = 500


class FixedDimension:
    """Stands in for the embedder where only the dimension matters (creating the vec table)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def dimension(self) -> int:
        return 384


def vocabulary(rng: random.Random, size: int = 3000) -> tuple[list[str], list[float]]:
    syllables = ["ka", "lo", "mi", "ren", "tos", "va", "del", "pri", "sun", "gar", "bel", "tor", "nik", "ma"]
    words = sorted({"".join(rng.choices(syllables, k=rng.randint(2, 3))) for _ in range(size * 2)})[:size]
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return words, weights


def open_runtime(path: Path) -> Runtime:
    return Runtime(load_settings(env={"ASSISTANT_DB": str(path), "ASSISTANT_NOW": "2026-11-22T14:00:00Z",
                                      "ASSISTANT_TIMEZONE": "UTC"}))


def build(n: int, seed: int = 7, path: Path | None = None) -> tuple[Runtime, list[str], float]:
    """A runtime over a fresh store with n memories; returns (runtime, query texts, import seconds)."""
    rng = random.Random(seed)
    words, weights = vocabulary(rng)
    rt = open_runtime(path or Path(tempfile.mkdtemp()) / "bench.db")
    topic_words = [rng.choices(words, weights, k=6) for _ in range(TOPICS)]
    lines, topics = [], []
    for _ in range(n):
        topic = rng.randrange(TOPICS)
        topics.append(topic)
        text = " ".join(rng.sample(topic_words[topic], 3) + rng.choices(words, weights, k=7))
        lines.append(json.dumps({"type": "memory", "kind": rng.choice(["fact", "note", "event", "preference"]),
                                 "content": text, "importance": rng.randint(1, 5),
                                 "created_at": f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T10:00:00Z"}))
    started = time.perf_counter()
    import_records(rt.store, lines)
    import_s = time.perf_counter() - started

    ensure_vec_table(rt.store, FixedDimension(rt.embedder.name))
    nprng = np.random.default_rng(seed)
    centroids = nprng.normal(size=(TOPICS, 384)).astype(np.float32)
    ids = [r[0] for r in rt.store.query("SELECT id FROM knowledge ORDER BY id")]
    with rt.store.transaction():
        for start in range(0, n, 5000):
            chunk = ids[start:start + 5000]
            vectors = centroids[topics[start:start + len(chunk)]] + 1.2 * nprng.normal(size=(len(chunk), 384))
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            rt.store.conn.executemany(f"INSERT INTO {VEC_TABLE}(rowid, doc_type, embedding) VALUES (?, 1, ?)",
                                      [(i * 4 + 1, v.astype(np.float32).tobytes()) for i, v in zip(chunk, vectors, strict=True)])
        rt.store.execute("DELETE FROM pending_embeddings")
    queries = [" ".join(rng.choices(topic_words[rng.randrange(TOPICS)], k=2) + rng.choices(words, weights, k=2))
               for _ in range(60)]
    return rt, queries, import_s
