"""A big import leaves thousands of texts waiting for embeddings: search never waits for them
(issue 13, item 9), `assistant index` and `import --index` embed them, the app does it while idle."""
from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from assistant.cli import conversations, data
from assistant.services.embeddings import EmbeddingService
from memory import vectors
from memory.search import EMBED_PER_SEARCH
from memory.search.embeddings import pending_count
from tests.conftest import make_runtime, write_jsonl

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from assistant.runtime import Runtime

BACKLOG = 20_000


class CountingEmbedder:
    """Stands in for the model (which embeds about 300 short texts a second on 2 cores): counts
    every text it is given, so a test can say how much work a call did without timing it."""

    name = "counting"

    def __init__(self) -> None:
        self.texts = 0
        self.rng = np.random.default_rng(0)

    def dimension(self) -> int:
        return 16

    def embed(self, texts: list[str]) -> NDArray[np.float32]:
        self.texts += len(texts)
        out = self.rng.normal(size=(len(texts), 16)).astype(np.float32)
        unit: NDArray[np.float32] = out / np.linalg.norm(out, axis=1, keepdims=True)
        return unit


def _runtime_with_backlog(tmp_path: Path, **env: str) -> tuple[Runtime, CountingEmbedder, list[str]]:
    runtime = make_runtime(tmp_path, **env)
    runtime.__dict__["embedder"] = embedder = CountingEmbedder()
    notices: list[str] = []
    runtime.notice = notices.append
    store = runtime.store
    store.execute("INSERT INTO episodes (title, started_at, ended_at, outcome) VALUES "
                  "('imported', '2026-01-01T00:00:00+00:00', '2026-01-01T01:00:00+00:00', 'success')")
    with store.transaction():  # as a big import leaves it: every text written, none embedded
        store.executemany("INSERT INTO messages (episode_id, role, content, created_at) VALUES (1, 'user', ?, ?)",
                          [(f"message {i} about the harbour festival" if i == 7 else f"message {i} about nothing",
                            "2026-01-01T00:00:00+00:00") for i in range(BACKLOG)])
    assert pending_count(store) == BACKLOG
    return runtime, embedder, notices


def test_recall_answers_at_once_with_20k_texts_waiting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runtime, embedder, notices = _runtime_with_backlog(tmp_path)
    args = argparse.Namespace(query=["harbour", "festival"], mode="standard", limit=5, reason=False, json=True)
    assert conversations.cmd_recall(runtime, args) == 0
    hits = json.loads(capsys.readouterr().out)
    # Answered from what there is: the keyword index finds the text no vector exists for yet.
    assert hits[0]["content"] == "message 7 about the harbour festival"
    # The search embedded the query and nothing of the backlog (issue 46: a recall meanwhile embedded a
    # batch of 32 long texts, 6.4 s of CPU and a 683 MB peak, where a keyword search costs 0.2 s).
    assert embedder.texts == 1
    assert pending_count(runtime.store) == BACKLOG
    assert len(notices) == 1 and f"{BACKLOG:,} texts are still waiting" in notices[0]
    assert "assistant index" in notices[0]
    # A second search in the same process does the same and does not repeat the notice.
    runtime.searcher.search("festival")
    assert embedder.texts == 2 and len(notices) == 1
    runtime.close()


@pytest.mark.slow
def test_index_embeds_the_backlog_and_the_app_does_it_in_steps(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    runtime, embedder, _ = _runtime_with_backlog(tmp_path)
    session = EmbeddingService(runtime)
    assert session.backlog() == BACKLOG
    assert session.embed_backlog(limit=500) == BACKLOG - 500  # one idle step: bounded, then it returns
    assert embedder.texts == 500
    assert data.cmd_index(runtime, argparse.Namespace(json=True)) == 0
    assert json.loads(capsys.readouterr().out) == {"embedded": BACKLOG - 500, "pending": 0}
    assert pending_count(runtime.store) == 0 and vectors.count(runtime.store) == BACKLOG
    assert session.embed_backlog() == 0
    runtime.close()


def test_import_with_index_embeds_what_it_imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runtime = make_runtime(tmp_path)
    runtime.__dict__["embedder"] = CountingEmbedder()
    source = write_jsonl(tmp_path / "in.jsonl", [{"type": "memory", "content": f"note {i}"} for i in range(300)])
    args = argparse.Namespace(file=str(source), index=True, json=True)
    assert data.cmd_import(runtime, args) == 0
    assert json.loads(capsys.readouterr().out)["imported"]["memory"] == 300
    assert pending_count(runtime.store) == 0 and vectors.count(runtime.store) == 300
    runtime.close()


def test_import_embeds_what_it_imported_without_being_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runtime = make_runtime(tmp_path)
    runtime.__dict__["embedder"] = embedder = CountingEmbedder()
    source = write_jsonl(tmp_path / "in.jsonl", [{"type": "memory", "content": f"note {i}"} for i in range(300)])
    assert data.cmd_import(runtime, argparse.Namespace(file=str(source), index=False, json=False)) == 0
    assert "waiting for their embeddings" not in capsys.readouterr().err
    assert embedder.texts == 300 and pending_count(runtime.store) == 0 and vectors.count(runtime.store) == 300
    runtime.close()


class UnloadableEmbedder(CountingEmbedder):
    """A model that cannot load (a configured name fastembed cannot fetch, a damaged file)."""

    def embed(self, texts: list[str]) -> np.ndarray:
        from memory.errors import EmbedderUnavailable

        raise EmbedderUnavailable("the embedding model 'counting' could not load: no such file")


def test_an_import_stands_when_the_model_cannot_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runtime = make_runtime(tmp_path)
    runtime.__dict__["embedder"] = UnloadableEmbedder()
    source = write_jsonl(tmp_path / "in.jsonl", [{"type": "memory", "content": f"note {i}"} for i in range(300)])
    assert data.cmd_import(runtime, argparse.Namespace(file=str(source), index=False, json=True)) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["imported"]["memory"] == 300
    assert "could not be embedded" in err and "300 texts are waiting for their embeddings" in err
    assert pending_count(runtime.store) == 300
    runtime.close()


def test_a_few_texts_waiting_are_embedded_by_the_search_and_not_worth_a_notice(tmp_path: Path) -> None:
    """A turn's own new texts (a few) are embedded by the next search; one more than EMBED_PER_SEARCH is
    a backlog, left whole to the app's idle time and `assistant index`, and said once."""
    runtime, embedder, notices = _runtime_with_backlog(tmp_path)
    runtime.store.execute("DELETE FROM messages WHERE id > ?", (EMBED_PER_SEARCH,))
    runtime.searcher.search("festival")
    assert pending_count(runtime.store) == 0 and notices == [] and embedder.texts == EMBED_PER_SEARCH + 1
    with runtime.store.transaction():
        runtime.store.executemany("INSERT INTO messages (episode_id, role, content, created_at) "
                                  "VALUES (1, 'user', ?, ?)", [(f"later message {i}", "2026-01-02T00:00:00+00:00")
                                                               for i in range(EMBED_PER_SEARCH + 1)])
    runtime.searcher.search("festival")
    assert pending_count(runtime.store) == EMBED_PER_SEARCH + 1 and len(notices) == 1
    assert embedder.texts == EMBED_PER_SEARCH + 2  # the query only
    runtime.close()


class SteadyEmbedder(CountingEmbedder):
    """A model that takes 20 ms a text (50 a second at most, less on a busy machine), as the bundled one
    takes 40-80 ms a long chat message."""

    def embed(self, texts: list[str]) -> np.ndarray:
        time.sleep(0.02 * len(texts))
        return super().embed(texts)


def test_a_big_import_says_the_rate_measured_here_and_the_time_it_takes(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 46: after 10,000 chat messages, the import said "about 300 a second" where the machine did 13.
    It embeds a first sample, and says the rate that sample measured and how long the rest takes."""
    runtime = make_runtime(tmp_path)
    runtime.__dict__["embedder"] = embedder = SteadyEmbedder()
    source = write_jsonl(tmp_path / "in.jsonl", [{"type": "memory", "content": f"note {i}"} for i in range(3000)])
    assert data.cmd_import(runtime, argparse.Namespace(file=str(source), index=False, json=True)) == 0
    err = capsys.readouterr().err
    left = pending_count(runtime.store)
    assert embedder.texts == 3000 - left and 0 < embedder.texts < 3000  # a sample, not the 60 s the rest take
    said = re.search(r"([\d,]+) texts are waiting for their embeddings \(about (\d+) min for ([\d,]+) texts, "
                     r"(\d+) a second here\)", err)
    assert said, err
    assert int(said[1].replace(",", "")) == left == int(said[3].replace(",", ""))
    minutes, rate = int(said[2]), int(said[4])
    assert 1 <= rate <= 60 and "300 a second" not in err  # 50 a second, the rest a little shorter
    assert abs(minutes - left / rate / 60) <= 1
    runtime.close()
