"""An in-memory copy of the stored vectors, for exact KNN as one matrix product.

sqlite-vec's brute-force KNN takes ~60 ms at 100k vectors on 2 cores; the same exact search as a
float32 matrix-vector product takes a few ms. The copy costs 1.5 KB per vector (150 MB at 100k),
so it is only used for stores at least `min_size` documents large. It follows every change,
including those made by another process, through `vector_log`; a copy that fell behind the kept
log reloads in full.
"""
from __future__ import annotations

import threading
from typing import Any

from memory.schema import DOC_TYPES
from memory.store import VEC_TABLE, Store

CHUNK_DOCS = 40_000


def _as_arrays(rows: list) -> tuple[Any, Any]:
    import numpy as np

    if not rows:
        return np.empty(0, dtype=np.int64), None
    docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return docs, np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)


def stored_vectors(store: Store, doc_ids: list[int]) -> tuple[Any, Any]:
    """(doc ids, float32 matrix) of the stored vectors of these documents; missing ones are skipped.

    One lookup per id: vec0 answers `rowid = ?` from its index (0.1 ms) but `rowid IN (...)` by
    scanning every chunk (40 ms at 100k).
    """
    return _as_arrays([row for doc in doc_ids for row in
                       store.query(f"SELECT rowid, embedding FROM {VEC_TABLE} WHERE rowid = ?", (doc,))])


def vectors_in_range(store: Store, low: int, high: int) -> tuple[Any, Any]:
    """(doc ids, float32 matrix) of the stored vectors with low <= doc id <= high."""
    return _as_arrays(store.query(f"SELECT rowid, embedding FROM {VEC_TABLE} WHERE rowid BETWEEN ? AND ?",
                                  (low, high)))


class VectorCache:
    def __init__(self, store: Store, min_size: int = 20_000) -> None:
        self.store = store
        self.min_size = min_size
        self.lock = threading.Lock()
        self.last_seq = -1
        # Buffers with spare capacity, so a turn's few new vectors are appended without copying.
        self.size = 0
        self.docs: Any = None  # int64 doc ids [:size]
        self.matrix: Any = None  # float32 (capacity, dim), rows [:size] used
        self.live: Any = None  # bool mask [:size]: False once dropped
        self.types: Any = None  # int8 document type codes [:size] (doc id % 4), for type filters
        self.index: dict[int, int] = {}

    def _size_estimate(self) -> int:
        return self.store.one("SELECT (SELECT coalesce(max(id), 0) FROM knowledge) + "
                              "(SELECT coalesce(max(id), 0) FROM messages)")[0]

    def _reload(self) -> None:
        import numpy as np

        self.last_seq = self.store.one("SELECT coalesce(max(seq), 0) FROM vector_log")[0]
        top = self.store.one("SELECT max((SELECT coalesce(max(id), 0) FROM knowledge), "
                             "(SELECT coalesce(max(id), 0) FROM messages), (SELECT coalesce(max(id), 0) FROM episodes), "
                             "(SELECT coalesce(max(id), 0) FROM summaries))")[0] * 4 + 3
        parts_docs, parts_matrix = [], []
        for low in range(0, top + 1, CHUNK_DOCS):
            docs, matrix = vectors_in_range(self.store, low, low + CHUNK_DOCS - 1)
            if matrix is not None:
                parts_docs.append(docs)
                parts_matrix.append(matrix)
        self.size = 0
        self.docs = np.empty(0, dtype=np.int64)
        self.matrix = None
        self.live = np.empty(0, dtype=bool)
        self.index = {}
        if parts_docs:
            self._append(np.concatenate(parts_docs), np.concatenate(parts_matrix))

    def _append(self, docs: Any, matrix: Any) -> None:
        import numpy as np

        needed = self.size + len(docs)
        if self.matrix is None or needed > len(self.matrix):
            capacity = max(1024, needed + needed // 4)
            grown = np.empty((capacity, matrix.shape[1]), dtype=np.float32)
            grown_docs, grown_live = np.empty(capacity, dtype=np.int64), np.zeros(capacity, dtype=bool)
            grown_types = np.empty(capacity, dtype=np.int8)
            if self.matrix is not None:
                grown[:self.size], grown_docs[:self.size] = self.matrix[:self.size], self.docs[:self.size]
                grown_live[:self.size], grown_types[:self.size] = self.live[:self.size], self.types[:self.size]
            self.matrix, self.docs, self.live, self.types = grown, grown_docs, grown_live, grown_types
        self.matrix[self.size:needed] = matrix
        self.docs[self.size:needed] = docs
        self.live[self.size:needed] = True
        self.types[self.size:needed] = docs % 4
        self.index.update({int(d): self.size + i for i, d in enumerate(docs)})
        self.size = needed

    def _catch_up(self) -> None:
        import numpy as np

        floor = self.store.one("SELECT min(seq) FROM vector_log")[0]
        if self.matrix is None or (floor is not None and floor > self.last_seq + 1):
            return self._reload()
        changes = self.store.query("SELECT seq, doc_id, op FROM vector_log WHERE seq > ? ORDER BY seq",
                                   (self.last_seq,))
        if not changes:
            return None
        if any(op == "reset" for _, _, op in changes):
            return self._reload()
        final = {doc: op for _, doc, op in changes}
        self.last_seq = changes[-1][0]
        for doc, op in final.items():
            if op == "drop" and doc in self.index:
                self.live[self.index[doc]] = False
        puts = [doc for doc, op in final.items() if op == "put"]
        for start in range(0, len(puts), 500):
            docs, matrix = stored_vectors(self.store, puts[start:start + 500])
            new_rows = []
            for doc, vector in zip(docs.tolist(), matrix if matrix is not None else [], strict=True):
                if doc in self.index:
                    self.matrix[self.index[doc]] = vector
                    self.live[self.index[doc]] = True
                else:
                    new_rows.append((doc, vector))
            if new_rows:
                self._append(np.array([d for d, _ in new_rows], dtype=np.int64), np.stack([v for _, v in new_rows]))
        return None

    def knn(self, vector: Any, k: int, doc_type: str | None = None) -> list[int] | None:
        """Doc ids of the k nearest vectors, nearest first; None as for knn_scored()."""
        scored = self.knn_scored(vector, k, doc_type)
        return None if scored is None else [d for d, _ in scored]

    def knn_scored(self, vector: Any, k: int, doc_type: str | None = None) -> list[tuple[int, float]] | None:
        """(doc id, cosine similarity) of the k nearest vectors, nearest first; None when the store is
        too small for the copy to pay off (the caller asks sqlite-vec)."""
        import numpy as np

        if self._size_estimate() < self.min_size:
            return None
        with self.lock:
            self._catch_up()
            if self.matrix is None:
                return []
            docs, live = self.docs[:self.size], self.live[:self.size]
            sims = self.matrix[:self.size] @ vector.astype(np.float32)
            valid = live if doc_type is None else live & (self.types[:self.size] == DOC_TYPES[doc_type])
            sims[~valid] = -np.inf
            k = min(k, int(np.count_nonzero(valid)))
            if k <= 0:
                return []
            top = np.argpartition(sims, len(sims) - k)[len(sims) - k:]
            top = top[np.argsort(-sims[top])]
            return [(int(d), float(s)) for d, s in zip(docs[top], sims[top], strict=True)]
