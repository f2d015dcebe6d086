"""The bundled embedder with the vectors of fixed texts made ahead: a labelled set's statements, read as
memory.replacing reads them (the text and its values masked), embedded 64 to a model call once a
session per worker. Written statement by statement, each newer statement is embedded alone, a model
call each, and a call costs much the same for 2 short texts as for 100 (the int8 weights are
dequantized at each call: about 0.1 s of CPU), so the labelled sets spent most of their time there.

The vectors are the embedder's own to the last bit: a text's vector does not depend on the batch it is
in (tests/test_replacing.py checks it on a sample of every set). A text not made ahead is embedded when
asked, as the embedder would."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memory import subjects

if TYPE_CHECKING:
    import numpy as np

    from memory.search.embeddings import LocalEmbedder

AHEAD_BATCH = 64  # texts to a model call when made ahead (the working memory grows with it and the longest text)


class KnownTexts:
    """An Embedder: `embedder`'s vectors, of the texts learned ahead from a store of them."""

    def __init__(self, embedder: LocalEmbedder) -> None:
        self.embedder = embedder
        self.name = embedder.name
        self._vectors: dict[str, np.ndarray] = {}

    def dimension(self) -> int:
        return self.embedder.dimension()

    def learn(self, texts: Iterable[str]) -> None:
        """Embed those of `texts` not known yet, 64 to a call (alike lengths together: less padding)."""
        new = sorted({t for t in texts if t not in self._vectors}, key=len)
        if new:
            self._vectors.update(zip(new, self.embedder.embed(new, batch_size=AHEAD_BATCH), strict=True))

    def learn_statements(self, statements: Iterable[str]) -> None:
        """What memory.replacing embeds of each statement: its text as read, and its values masked."""
        said = [subjects.read(s) for s in statements]
        self.learn([s.text for s in said] + [s.masked for s in said])

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return self.embedder.embed(texts)
        self.learn(texts)
        return np.stack([self._vectors[t] for t in texts])
