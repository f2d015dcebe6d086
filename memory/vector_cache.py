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


class VectorCache:
    def __init__(self, store: Store, min_size: int = 20_000) -> None:
        self.store = store
        self.min_size = min_size
        self.lock = threading.Lock()
        self.last_seq = -1
        self.docs: Any = None  # int64 doc ids
        self.matrix: Any = None  # float32 (n, dim)
        self.live: Any = None  # bool mask: False once dropped
        self.index: dict[int, int] = {}

    def _size_estimate(self) -> int:
        return self.store.one("SELECT (SELECT coalesce(max(id), 0) FROM knowledge) + "
                              "(SELECT coalesce(max(id), 0) FROM messages)")[0]

    def _rows(self, sql: str, params: tuple) -> tuple[Any, Any]:
        import numpy as np

        rows = self.store.query(sql, params)
        if not rows:
            return np.empty(0, dtype=np.int64), None
        docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return docs, matrix

    def _reload(self) -> None:
        import numpy as np

        self.last_seq = self.store.one("SELECT coalesce(max(seq), 0) FROM vector_log")[0]
        top = self.store.one("SELECT max((SELECT coalesce(max(id), 0) FROM knowledge), "
                             "(SELECT coalesce(max(id), 0) FROM messages), (SELECT coalesce(max(id), 0) FROM episodes), "
                             "(SELECT coalesce(max(id), 0) FROM summaries))")[0] * 4 + 3
        parts_docs, parts_matrix = [], []
        for low in range(0, top + 1, CHUNK_DOCS):
            docs, matrix = self._rows(f"SELECT rowid, embedding FROM {VEC_TABLE} WHERE rowid BETWEEN ? AND ?",
                                      (low, low + CHUNK_DOCS - 1))
            if matrix is not None:
                parts_docs.append(docs)
                parts_matrix.append(matrix)
        self.docs = np.concatenate(parts_docs) if parts_docs else np.empty(0, dtype=np.int64)
        self.matrix = np.concatenate(parts_matrix) if parts_matrix else None
        self.live = np.ones(len(self.docs), dtype=bool)
        self.index = {int(d): i for i, d in enumerate(self.docs)}

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
            chunk = puts[start:start + 500]
            docs, matrix = self._rows(f"SELECT rowid, embedding FROM {VEC_TABLE} WHERE rowid IN "
                                      f"({','.join('?' * len(chunk))})", tuple(chunk))
            new_rows = []
            for doc, vector in zip(docs.tolist(), matrix if matrix is not None else [], strict=True):
                if doc in self.index:
                    self.matrix[self.index[doc]] = vector
                    self.live[self.index[doc]] = True
                else:
                    new_rows.append((doc, vector))
            if new_rows:
                base = len(self.docs)
                self.docs = np.concatenate([self.docs, np.array([d for d, _ in new_rows], dtype=np.int64)])
                self.matrix = np.concatenate([self.matrix, np.stack([v for _, v in new_rows])])
                self.live = np.concatenate([self.live, np.ones(len(new_rows), dtype=bool)])
                self.index.update({d: base + i for i, (d, _) in enumerate(new_rows)})
        return None

    def knn(self, vector: Any, k: int, doc_type: str | None = None) -> list[int] | None:
        """Doc ids of the k nearest vectors (cosine), nearest first; None when the store is too
        small for the copy to pay off (the caller asks sqlite-vec)."""
        import numpy as np

        if self._size_estimate() < self.min_size:
            return None
        with self.lock:
            self._catch_up()
            if self.matrix is None:
                return []
            sims = self.matrix @ vector.astype(np.float32)
            valid = self.live if doc_type is None else self.live & (self.docs % 4 == DOC_TYPES[doc_type])
            sims = np.where(valid, sims, -np.inf)
            k = min(k, int(valid.sum()))
            if k <= 0:
                return []
            top = np.argpartition(-sims, k - 1)[:k]
            top = top[np.argsort(-sims[top])]
            return [int(d) for d in self.docs[top]]
