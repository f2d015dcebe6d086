"""The vector index: exact float vectors for scores, one-bit codes in blocks for the scan.

Why not sqlite-vec's vec0 KNN any more: it is brute force, and measured here (2 cores) a KNN over
100k bit vectors took 14 ms for k=100 and 73 ms for k=400 (its top-k selection costs n x k), over
100k float vectors 90 ms; a store kept for twenty years holds a million documents. The in-memory
float32 copy that replaced it for big stores made every process read every vector before its
first search (150 MB at 100k). This index reads nothing at start and little per search:

- `vectors` (doc_id, slot, embedding): the float32 vector of each document, read by primary key
  for the few hundred candidates a search rescores, and in ranges by consolidation.
- `vector_blocks` (id, doc_type, used, docs, codes): up to BLOCK documents of one type each. A
  code is sqlite-vec's binary quantisation of the vector (`vec_quantize_binary`: one sign bit per
  dimension, little-endian bit order), stored word-major (words x BLOCK uint64) so that numpy
  computes Hamming distances one 64-bit word at a time over contiguous memory. 48 bytes per
  document: a search reads 4.8 MB of codes at 100k documents, 48 MB at 1M, through SQLite (and
  so through the OS page cache every process shares). Blocks are per document type, as the
  partition key of the former vec0 table was: a search for episodes reads the episode blocks only.

A search (knn): the Hamming distance of every code of the wanted types; the `shortlist` nearest
are scored again against the float query (the sum of the query's components signed by the code's
bits: an asymmetric estimate, much closer to the cosine than Hamming is); the `rescore` best of
those get their exact cosine from the float vectors, and the best k of them are returned. On the
realistic conversations (benchmarks/) that finds the exact top 10 (recall@10 1.0); see
benchmarks/bench_scale.py for recall and speed side by side at every size.

A store with at most `rescore` documents of the wanted types is searched exactly.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


BLOCK = 4096  # documents per block: a write rewrites one block (about 230 KB at 384 dimensions)
SHORTLIST = 2000  # nearest codes by Hamming distance, scored again against the float query
RESCORE = 400  # best of those by that score, whose exact cosine is computed from the float vector
DEAD = 0  # doc id of a slot whose document was deleted (no document has id 0: doc = row id * 4 + type)

SCHEMA = [
    # slot = block id * BLOCK + position in the block: where the document's code lives.
    "CREATE TABLE IF NOT EXISTS vectors (doc_id INTEGER PRIMARY KEY, slot INTEGER NOT NULL, "
    "embedding BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vector_blocks (id INTEGER PRIMARY KEY, doc_type INTEGER NOT NULL, "
    "used INTEGER NOT NULL, docs BLOB NOT NULL, codes BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS vector_blocks_type ON vector_blocks(doc_type, id)",
]


def _np():
    import numpy

    return numpy


def words_for(dim: int) -> int:
    return (dim + 63) // 64


def codes_of(matrix: Any) -> np.ndarray:
    """(n, words) uint64 sign-bit codes of the rows of `matrix` (as vec_quantize_binary: bit i of
    byte i // 8 is set when dimension i is positive), padded with zero bits to whole words."""
    np = _np()
    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float32))
    bits = np.packbits(matrix > 0, axis=1, bitorder="little")
    pad = words_for(matrix.shape[1]) * 8 - bits.shape[1]
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    return np.ascontiguousarray(bits).view(np.uint64)


class _Block:
    """One block read for writing: arrays are copies, written back by save()."""

    def __init__(self, block_id: int, doc_type: int, used: int, docs: bytes, codes: bytes) -> None:
        np = _np()
        self.id, self.doc_type, self.used = block_id, doc_type, used
        self.docs = np.frombuffer(docs, dtype=np.int64).copy()
        self.codes = np.frombuffer(codes, dtype=np.uint64).reshape(-1, BLOCK).copy()

    @classmethod
    def new(cls, block_id: int, doc_type: int, words: int) -> _Block:
        np = _np()
        return cls(block_id, doc_type, 0, np.zeros(BLOCK, np.int64).tobytes(),
                   np.zeros((words, BLOCK), np.uint64).tobytes())

    def save(self, db: Any) -> None:
        db.execute("INSERT OR REPLACE INTO vector_blocks (id, doc_type, used, docs, codes) VALUES (?, ?, ?, ?, ?)",
                   (self.id, self.doc_type, self.used, self.docs.tobytes(), self.codes.tobytes()))


def _load_block(db: Any, block_id: int) -> _Block:
    row = db.execute("SELECT id, doc_type, used, docs, codes FROM vector_blocks WHERE id = ?", (block_id,)).fetchone()
    return _Block(*row)


def put(db: Any, docs: list[int], matrix: Any) -> None:
    """Store (or replace) the vectors of these documents; inside a transaction.

    `db` is a Store or a raw connection (the schema migration has only the latter). Documents
    already indexed keep their slot; new ones are appended to their type's last block."""
    np = _np()
    if not docs:
        return
    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float32))
    codes = codes_of(matrix)
    words = codes.shape[1]
    slots: dict[int, int] = {}
    for start in range(0, len(docs), 500):
        part = docs[start:start + 500]
        slots.update(db.execute(f"SELECT doc_id, slot FROM vectors WHERE doc_id IN ({','.join('?' * len(part))})",
                                tuple(part)).fetchall())
    blocks: dict[int, _Block] = {}
    open_blocks: dict[int, _Block] = {}  # doc type -> the block new documents go to

    def block(block_id: int) -> _Block:
        if block_id not in blocks:
            blocks[block_id] = _load_block(db, block_id)
        return blocks[block_id]

    def open_block(doc_type: int) -> _Block:
        current = open_blocks.get(doc_type)
        if current is None:
            row = db.execute("SELECT id, used FROM vector_blocks WHERE doc_type = ? ORDER BY id DESC LIMIT 1",
                             (doc_type,)).fetchone()
            if row is not None and row[1] < BLOCK:
                current = block(row[0])
        if current is None or current.used >= BLOCK:
            top = max([*blocks, db.execute("SELECT coalesce(max(id), 0) FROM vector_blocks").fetchone()[0]])
            current = blocks[top + 1] = _Block.new(top + 1, doc_type, words)
        open_blocks[doc_type] = current
        return current

    rows = []
    for index, doc in enumerate(docs):
        doc = int(doc)
        if doc in slots:
            target = block(slots[doc] // BLOCK)
            position = slots[doc] % BLOCK
        else:
            target = open_block(doc % 4)
            position = target.used
            target.used += 1
            target.docs[position] = doc
            slots[doc] = target.id * BLOCK + position
        target.codes[:, position] = codes[index]
        rows.append((doc, slots[doc], matrix[index].tobytes()))
    db.executemany("INSERT OR REPLACE INTO vectors (doc_id, slot, embedding) VALUES (?, ?, ?)", rows)
    for changed in blocks.values():
        changed.save(db)


def drop(db: Any, docs: list[int]) -> None:
    """Remove these documents' vectors (their slots stay, marked dead); inside a transaction."""
    if not docs:
        return
    found: list[tuple[int, int]] = []
    for start in range(0, len(docs), 500):
        part = docs[start:start + 500]
        found += db.execute(f"SELECT doc_id, slot FROM vectors WHERE doc_id IN ({','.join('?' * len(part))})",
                            tuple(part)).fetchall()
    if not found:
        return
    blocks: dict[int, _Block] = {}
    for _, slot in found:
        target = blocks.get(slot // BLOCK) or blocks.setdefault(slot // BLOCK, _load_block(db, slot // BLOCK))
        target.docs[slot % BLOCK] = DEAD
        target.codes[:, slot % BLOCK] = 0
    for changed in blocks.values():
        changed.save(db)
    db.executemany("DELETE FROM vectors WHERE doc_id = ?", [(doc,) for doc, _ in found])


def reset(db: Any) -> None:
    """Forget every vector (a change of embedding model); inside a transaction."""
    db.execute("DELETE FROM vectors")
    db.execute("DELETE FROM vector_blocks")


def count(db: Any) -> int:
    return db.execute("SELECT count(*) FROM vectors").fetchone()[0]


def _as_arrays(rows: list) -> tuple[Any, Any]:
    np = _np()
    if not rows:
        return np.empty(0, dtype=np.int64), None
    docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return docs, np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)


def stored(db: Any, docs: list[int]) -> tuple[Any, Any]:
    """(doc ids, float32 matrix) of the stored vectors of these documents, in doc id order; missing
    ones are skipped."""
    rows: list = []
    for start in range(0, len(docs), 500):
        part = [int(d) for d in docs[start:start + 500]]
        rows += db.execute(f"SELECT doc_id, embedding FROM vectors WHERE doc_id IN ({','.join('?' * len(part))})",
                           tuple(part)).fetchall()
    rows.sort(key=lambda r: r[0])
    return _as_arrays(rows)


def in_range(db: Any, low: int, high: int, doc_type: int | None = None) -> tuple[Any, Any]:
    """(doc ids, float32 matrix) of the stored vectors with low <= doc id <= high (of one type if
    given), in doc id order."""
    if doc_type is None:
        return _as_arrays(db.execute("SELECT doc_id, embedding FROM vectors WHERE doc_id BETWEEN ? AND ? "
                                     "ORDER BY doc_id", (low, high)).fetchall())
    return _as_arrays(db.execute("SELECT doc_id, embedding FROM vectors WHERE doc_id BETWEEN ? AND ? "
                                 "AND doc_id % 4 = ? ORDER BY doc_id", (low, high, doc_type)).fetchall())


# Sign of each bit of a byte (little-endian bit order), for the asymmetric score.
_SIGNS: Any = None


def _byte_tables(query: Any, nbytes: int) -> Any:
    """(nbytes, 256): entry [j, b] is the query's components of byte j signed by the bits of b."""
    global _SIGNS
    np = _np()
    if _SIGNS is None:
        _SIGNS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
                               ).astype(np.float32) * 2 - 1
    padded = np.zeros(nbytes * 8, dtype=np.float32)
    padded[:len(query)] = query
    return padded.reshape(nbytes, 8) @ _SIGNS.T


def _scan(db: Any, query_code: Any, doc_type: int | None) -> tuple[list, list, list]:
    """Hamming distance of every live code of the type: (distances, doc ids, code arrays) per block."""
    np = _np()
    words = len(query_code)
    where, params = ("WHERE doc_type = ?", (doc_type,)) if doc_type is not None else ("", ())
    dists, docs, codes = [], [], []
    rows = db.execute(f"SELECT used, docs, codes FROM vector_blocks {where} ORDER BY id", params).fetchall()
    for used, doc_blob, code_blob in rows:
        block_codes = np.frombuffer(code_blob, dtype=np.uint64).reshape(words, -1)[:, :used]
        block_docs = np.frombuffer(doc_blob, dtype=np.int64)[:used]
        distance = np.bitwise_count(block_codes[0] ^ query_code[0]).astype(np.uint16)
        for word in range(1, words):
            distance += np.bitwise_count(block_codes[word] ^ query_code[word])
        distance[block_docs == DEAD] = np.iinfo(np.uint16).max
        dists.append(distance)
        docs.append(block_docs)
        codes.append(block_codes)
    return dists, docs, codes


def knn(db: Any, vector: Any, k: int, doc_type: int | None = None, shortlist: int | None = None,
        rescore: int | None = None) -> list[tuple[int, float]]:
    """(doc id, cosine similarity) of the k nearest stored vectors, nearest first.

    `doc_type` (a DOC_TYPES code) limits the search to one type. `shortlist` and `rescore` (see
    the module docstring) default to SHORTLIST and RESCORE, or 20 and 4 times k when larger."""
    np = _np()
    if k <= 0:
        return []
    query = np.asarray(vector, dtype=np.float32).ravel()
    query_code = codes_of(query)[0]
    rescore = max(rescore or RESCORE, 4 * k)
    shortlist = max(shortlist or SHORTLIST, 20 * k, rescore)
    dists, docs, codes = _scan(db, query_code, doc_type)
    if not dists:
        return []
    distance = np.concatenate(dists)
    all_docs = np.concatenate(docs)
    live = int(np.count_nonzero(all_docs != DEAD))
    if live <= rescore:
        candidates = all_docs[all_docs != DEAD]
    else:
        near = np.argpartition(distance, shortlist)[:shortlist] if len(distance) > shortlist else \
            np.arange(len(distance))
        near = near[all_docs[near] != DEAD]
        # The shortlisted codes, gathered block by block, scored against the float query.
        offsets = np.cumsum([0] + [len(d) for d in dists])
        owner = np.searchsorted(offsets, near, side="right") - 1
        picked = np.empty((len(near), len(query_code)), dtype=np.uint64)
        for index in np.unique(owner):
            mask = owner == index
            picked[mask] = codes[index][:, near[mask] - offsets[index]].T
        as_bytes = picked.view(np.uint8)
        tables = _byte_tables(query, as_bytes.shape[1])
        estimate = tables[np.arange(as_bytes.shape[1]), as_bytes].sum(axis=1)
        best = near[np.argpartition(-estimate, rescore)[:rescore]] if len(near) > rescore else near
        candidates = all_docs[best]
    ids, matrix = stored(db, candidates.tolist())
    if matrix is None:
        return []
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    sims = (matrix @ query) / np.where(norms == 0, 1, norms)
    order = np.lexsort((ids, -sims))[:k]
    return [(int(ids[i]), float(sims[i])) for i in order]


def exact_knn(db: Any, vector: Any, k: int, doc_type: int | None = None) -> list[tuple[int, float]]:
    """The exact k nearest by cosine, reading every stored vector of the type (for tests and
    benchmarks: the yardstick of knn())."""
    np = _np()
    query = np.asarray(vector, dtype=np.float32).ravel()
    best_ids, best_sims = np.empty(0, np.int64), np.empty(0, np.float32)
    last = db.execute("SELECT coalesce(max(doc_id), 0) FROM vectors").fetchone()[0]
    for low in range(0, last + 1, 40_000):
        ids, matrix = in_range(db, low, low + 39_999)
        if matrix is None:
            continue
        if doc_type is not None:
            keep = ids % 4 == doc_type
            ids, matrix = ids[keep], matrix[keep]
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        sims = (matrix @ query) / np.where(norms == 0, 1, norms)
        best_ids, best_sims = np.concatenate([best_ids, ids]), np.concatenate([best_sims, sims])
        order = np.lexsort((best_ids, -best_sims))[:k]
        best_ids, best_sims = best_ids[order], best_sims[order]
    return [(int(d), float(s)) for d, s in zip(best_ids, best_sims, strict=True)]


def migrate_from_vec0(conn: Any) -> None:
    """Schema 5: the float vectors of the former vec0 table `vec_index` move into this index (no
    re-embedding), the vec0 table and its change log go. Runs inside the migration's transaction."""
    for statement in SCHEMA:
        conn.execute(statement)
    has_vec0 = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_index'").fetchone() is not None
    if has_vec0:
        last = conn.execute("SELECT coalesce(max(rowid), 0) FROM vec_index").fetchone()[0]
        for low in range(0, last + 1, 20_000):
            rows = conn.execute("SELECT rowid, embedding FROM vec_index WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                                (low, low + 19_999)).fetchall()
            if rows:
                ids, matrix = _as_arrays(rows)
                order = _np().argsort(ids % 4, kind="stable")  # fills each type's blocks in doc id order
                put(conn, ids[order].tolist(), matrix[order])
        conn.execute("DROP TABLE vec_index")
        signature = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        if signature is not None:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_model'",
                         (signature[0].removesuffix(":typed") + ":blocks",))
    conn.execute("DROP TABLE IF EXISTS vector_log")
