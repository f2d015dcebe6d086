"""A synthetic memory store for benchmarks: Zipf-distributed words from a 3,000-word vocabulary and
topic-clustered unit vectors (inserted directly, so building 100k rows takes seconds, not the
five minutes real embedding would). Query embedding is measured separately with the real model."""
from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from assistant.runtime import Runtime  # noqa: E402
from assistant.settings import load_settings  # noqa: E402
from memory import vectors as vector_index  # noqa: E402
from memory.search.embeddings import ensure_vec_table  # noqa: E402
from memory.transfer.jsonl_import import import_records  # noqa: E402

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


@dataclass
class Corpus:
    """The import records of a synthetic store and what its vectors and queries are made from."""
    lines: list[str]
    topics: list[int]  # topic of each memory, in order
    message_topics: list[int]  # topic of each message, in order
    queries: list[str]
    seed: int


def generate(n: int, seed: int = 7, messages: float = 0.0) -> Corpus:
    """n items as JSON Lines; `messages` is the share of chat messages (episodes of 20 turns)."""
    rng = random.Random(seed)
    words, weights = vocabulary(rng)
    topic_words = [rng.choices(words, weights, k=6) for _ in range(TOPICS)]
    lines, topics = [], []
    n_messages = int(n * messages)
    for _ in range(n - n_messages):
        topic = rng.randrange(TOPICS)
        topics.append(topic)
        text = " ".join(rng.sample(topic_words[topic], 3) + rng.choices(words, weights, k=7))
        lines.append(json.dumps({"type": "memory", "kind": rng.choice(["fact", "note", "event", "preference"]),
                                 "content": text, "importance": rng.randint(1, 5),
                                 "created_at": f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T10:00:00Z"}))
    # Messages from their own generator, so the memories above do not depend on the share.
    chat_rng, message_topics = random.Random(seed + 1), []
    for i in range(n_messages):
        if i % 20 == 0:
            lines.append(json.dumps({"type": "episode", "id": f"e{i}", "title": f"chat {i // 20}", "outcome": "success",
                                     "started_at": "2026-06-01T10:00:00Z", "ended_at": "2026-06-01T11:00:00Z"}))
        topic = chat_rng.randrange(TOPICS)
        message_topics.append(topic)
        filler = chat_rng.choices(words, weights, k=chat_rng.randint(1, 10))  # short and long turns
        text = " ".join(chat_rng.sample(topic_words[topic], 2) + filler)
        lines.append(json.dumps({"type": "message", "episode_id": f"e{i - i % 20}", "content": text,
                                 "role": "user" if i % 2 == 0 else "assistant", "created_at": "2026-06-01T10:00:00Z"}))
    queries = [" ".join(rng.choices(topic_words[rng.randrange(TOPICS)], k=2) + rng.choices(words, weights, k=2))
               for _ in range(60)]
    return Corpus(lines, topics, message_topics, queries, seed)


def centroids(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(TOPICS, 384)).astype(np.float32)


def attach_vectors(store, corpus: Corpus) -> None:
    """Topic-clustered unit vectors for every memory and message (inserted directly: no embedding).
    Memories beyond the corpus's own (reminders added by a benchmark) get random topics."""
    nprng = np.random.default_rng(corpus.seed)
    centres = nprng.normal(size=(TOPICS, 384)).astype(np.float32)
    ids = [r[0] for r in store.query("SELECT id FROM knowledge ORDER BY id")]
    message_ids = [r[0] for r in store.query("SELECT id FROM messages ORDER BY id")]
    topics = corpus.topics + [int(t) for t in np.random.default_rng(corpus.seed + 2).integers(
        0, TOPICS, max(0, len(ids) - len(corpus.topics)))]
    with store.transaction():
        for kind, row_ids, row_topics in ((1, ids, topics), (0, message_ids, corpus.message_topics)):
            for start in range(0, len(row_ids), 5000):
                chunk = row_ids[start:start + 5000]
                vectors = centres[row_topics[start:start + len(chunk)]] + 1.2 * nprng.normal(size=(len(chunk), 384))
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                vector_index.put(store, [i * 4 + kind for i in chunk], vectors.astype(np.float32))
        store.execute("DELETE FROM pending_embeddings")


def build(n: int, seed: int = 7, path: Path | None = None,
          messages: float = 0.0) -> tuple[Runtime, list[str], float]:
    """A runtime over a fresh store with n items; returns (runtime, query texts, import seconds).

    `messages` is the share of the n items that are chat messages (episodes of 20 turns) rather
    than memories, so that what search does for messages (the conversational carry) is timed too;
    the memories and queries are the same whatever the share."""
    corpus = generate(n, seed, messages)
    rt = open_runtime(path or Path(tempfile.mkdtemp()) / "bench.db")
    started = time.perf_counter()
    import_records(rt.store, corpus.lines)
    import_s = time.perf_counter() - started
    ensure_vec_table(rt.store, FixedDimension(rt.embedder.name))
    attach_vectors(rt.store, corpus)
    return rt, corpus.queries, import_s
