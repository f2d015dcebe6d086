"""The embedding model for a front end: loaded before the first turn needs it, let go after a quiet
while, and the texts a big import left waiting embedded a batch at a time while nobody types."""
from __future__ import annotations

from assistant.runtime import Runtime
from memory.errors import EmbedderUnavailable


class EmbeddingService:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def warm_up(self) -> None:
        """Load the embedder and embed the newest waiting texts (a bounded batch, as a search does),
        off the UI thread, so the first turn does not wait for them. Nothing proportional to the
        store is read: a backlog is left to embed_backlog()."""
        self.runtime.searcher.embed_query("warm up")

    def rest(self, quiet_seconds: float) -> bool:
        """Unload the embedding model when nothing was embedded, and nothing typed (`quiet_seconds`), for
        `embedding_unload_minutes` (0: never); True when it was unloaded. The next text to embed (in the
        app: the next key) loads it again, in about 0.3-0.5 s."""
        idle = self.runtime.settings.embedding_unload_minutes * 60
        return 0 < idle <= quiet_seconds and self.runtime.unload_embedder(idle)

    def backlog(self) -> int:
        """How many texts are still waiting for their embeddings (thousands after a big import)."""
        from memory.search.embeddings import pending_count

        return pending_count(self.runtime.store)

    def embed_backlog(self, limit: int = 256) -> int:
        """Embed up to `limit` waiting texts, newest first, and return how many are still waiting.

        For the app's idle worker: call it from a thread worker while the user is idle, again and
        again until it returns 0 (each call takes about a second at the default limit on 2 cores and
        commits what it did, so stopping between calls loses nothing). Search meanwhile answers
        from the vectors there are plus keywords. Returns 0 at once when embeddings are off."""
        from memory.search.embeddings import pending_count, sync_embeddings

        runtime = self.runtime
        if runtime.embedder is None or runtime.store.read_only:
            return 0
        try:
            sync_embeddings(runtime.store, runtime.embedder, limit=limit)
        except EmbedderUnavailable:
            return 0
        return pending_count(runtime.store)
