"""The embedding model goes after a quiet while and comes back at the next text (issue 37): unloaded
only when nothing was embedded (nor typed, in the app) for `embedding_unload_minutes`, never with 0,
never while a text is being embedded; the reload gives the same vectors."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from assistant.services.embeddings import EmbeddingService
from memory.search.embeddings import LocalEmbedder
from tests.conftest import make_runtime

if TYPE_CHECKING:
    from numpy.typing import NDArray


def test_unload_lets_the_model_go_and_the_next_text_loads_it_again(tmp_path: Path) -> None:
    embedder = LocalEmbedder(cache_dir=tmp_path)
    assert not embedder.loaded and not embedder.unload()  # never loaded: nothing to let go
    first = embedder.embed(["the boiler code is 4471", "water the plants"])
    assert embedder.loaded and embedder.loads == 1 and embedder.last_load_seconds is not None
    assert not embedder.unload(idle_seconds=3600)  # used a moment ago
    assert embedder.loaded
    assert embedder.unload(idle_seconds=0)
    assert not embedder.loaded and not embedder.unload()
    again = embedder.embed(["the boiler code is 4471", "water the plants"])
    assert embedder.loaded and embedder.loads == 2
    assert np.allclose(first, again, atol=1e-6)


def test_no_unload_while_a_text_is_being_embedded(tmp_path: Path) -> None:
    embedder = LocalEmbedder(cache_dir=tmp_path)
    embedder.load()
    started, release = threading.Event(), threading.Event()
    engine = embedder._engine
    real = engine.embed

    def slow(texts: list[str], batch_size: int = 32) -> Iterator[NDArray[np.float32]]:  # the real model, held
        started.set()
        release.wait(10)
        yield from real(texts, batch_size)

    engine.embed = slow
    worker = threading.Thread(target=embedder.embed, args=(["a long text"],))
    worker.start()
    started.wait(10)
    assert embedder.idle_seconds() == 0 and not embedder.unload(idle_seconds=0)
    release.set()
    worker.join(10)
    assert embedder.unload(idle_seconds=0)


def test_the_service_unloads_after_the_configured_quiet_and_never_with_zero(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled", ASSISTANT_EMBEDDING_UNLOAD_MINUTES="15")
    service = EmbeddingService(rt)
    assert not service.rest(quiet_seconds=10_000)  # never created: nothing to unload
    embedder = rt.embedder
    assert isinstance(embedder, LocalEmbedder)
    embedder.embed(["hello"])
    assert not service.rest(quiet_seconds=60)  # typed a minute ago
    assert embedder.loaded
    embedder._last_used -= 16 * 60  # the last text was embedded 16 minutes ago
    assert service.rest(quiet_seconds=16 * 60) and not embedder.loaded
    never = make_runtime(tmp_path / "never", ASSISTANT_EMBEDDING_MODEL="bundled",
                         ASSISTANT_EMBEDDING_UNLOAD_MINUTES="0")
    kept = never.embedder
    assert isinstance(kept, LocalEmbedder)
    kept.embed(["hello"])
    kept._last_used -= 10 ** 6
    assert not EmbeddingService(never).rest(quiet_seconds=10 ** 6) and kept.loaded
    rt.close()
    never.close()
