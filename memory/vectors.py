"""The vector index: exact float vectors for scores, one-bit codes in blocks for the scan.

Why not sqlite-vec's vec0 KNN any more: it is brute force, and measured here (2 cores) a KNN over
100k bit vectors took 14 ms for k=100 and 73 ms for k=400 (its top-k selection costs n x k), over
100k float vectors 90 ms; a store kept for twenty years holds a million documents. The in-memory
float32 copy that replaced it for big stores made every process read every vector before its
first search (150 MB at 100k). This index reads nothing at start and little per search:

- `vectors` (doc_id, slot, embedding): the float vector of each document (float16), read by primary key
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

import threading
from typing import TYPE_CHECKING, Any

from memory.connection import Row
from memory.docs import DOC_SLOTS

if TYPE_CHECKING:
    import numpy as np


BLOCK = 4096  # documents per block: a write rewrites one block (about 230 KB at 384 dimensions)
SHORTLIST = 1000  # nearest codes by Hamming distance, scored again against the float query
RESCORE = 400  # best of those by that score, whose exact cosine is computed from the float vector
# Vectors are kept as float16: half the file (768 bytes a document at 384 dimensions) and half
# the reads, at a cosine error of about 1e-4, far below what tells two texts apart (the bundled
# int8 model itself agrees with the float32 one to 6e-4).
STORED_DTYPE = "float16"
DEAD = 0  # doc id of a free or deleted slot (no document has id 0: doc = row id * DOC_SLOTS + type)

SCHEMA = [
    # slot = block id * BLOCK + position in the block: where the document's code lives.
    "CREATE TABLE IF NOT EXISTS vectors (doc_id INTEGER PRIMARY KEY, slot INTEGER NOT NULL, "
    "embedding BLOB NOT NULL)",
    # AUTOINCREMENT: a block id is never reused, so (id, version) names one content for good and a
    # process's copy of the codes (CodeCache) can tell what changed since it last looked.
    "CREATE TABLE IF NOT EXISTS vector_blocks (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_type INTEGER NOT NULL, "
    "version INTEGER NOT NULL DEFAULT 1, used INTEGER NOT NULL, docs BLOB NOT NULL, codes BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS vector_blocks_type ON vector_blocks(doc_type, id)",
]


def words_for(dim: int) -> int:
    return (dim + 63) // 64


def codes_of(matrix: Any) -> np.ndarray:
    """(n, words) uint64 sign-bit codes of the rows of `matrix` (as vec_quantize_binary: bit i of
    byte i // 8 is set when dimension i is positive), padded with zero bits to whole words."""
    import numpy as np
    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float32))
    bits = np.packbits(matrix > 0, axis=1, bitorder="little")
    pad = words_for(matrix.shape[1]) * 8 - bits.shape[1]
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    return np.ascontiguousarray(bits).view(np.uint64)


class _Block:
    """One block read for writing: arrays are copies, written back by save()."""

    def __init__(self, block_id: int, doc_type: int, version: int, used: int, docs: bytes, codes: bytes) -> None:
        import numpy as np
        self.id, self.doc_type, self.version, self.used = block_id, doc_type, version, used
        self.docs = np.frombuffer(docs, dtype=np.int64).copy()
        self.codes = np.frombuffer(codes, dtype=np.uint64).reshape(-1, BLOCK).copy()

    @classmethod
    def new(cls, db: Any, doc_type: int, words: int) -> _Block:
        import numpy as np
        docs, codes = np.zeros(BLOCK, np.int64).tobytes(), np.zeros((words, BLOCK), np.uint64).tobytes()
        cursor = db.execute("INSERT INTO vector_blocks (doc_type, version, used, docs, codes) VALUES (?, 0, 0, ?, ?)",
                            (doc_type, docs, codes))
        return cls(cursor.lastrowid, doc_type, 0, 0, docs, codes)

    def save(self, db: Any) -> None:
        db.execute("UPDATE vector_blocks SET version = ?, used = ?, docs = ?, codes = ? WHERE id = ?",
                   (self.version + 1, self.used, self.docs.tobytes(), self.codes.tobytes(), self.id))


def _load_block(db: Any, block_id: int) -> _Block:
    row = db.execute("SELECT id, doc_type, version, used, docs, codes FROM vector_blocks WHERE id = ?",
                     (block_id,)).fetchone()
    return _Block(*row)


def put(db: Any, docs: list[int], matrix: Any) -> None:
    """Store (or replace) the vectors of these documents; inside a transaction.

    `db` is a Store or a raw connection (the schema migration has only the latter). Documents
    already indexed keep their slot; new ones are appended to their type's last block."""
    import numpy as np
    if not docs:
        return
    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float32))
    codes = codes_of(matrix)
    stored_form = matrix.astype(np.float16)
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
            current = _Block.new(db, doc_type, words)
            blocks[current.id] = current
        open_blocks[doc_type] = current
        return current

    rows = []
    for index, doc in enumerate(docs):
        doc = int(doc)
        if doc in slots:
            target = block(slots[doc] // BLOCK)
            position = slots[doc] % BLOCK
        else:
            target = open_block(doc % DOC_SLOTS)
            position = target.used
            target.used += 1
            target.docs[position] = doc
            slots[doc] = target.id * BLOCK + position
        target.codes[:, position] = codes[index]
        rows.append((doc, slots[doc], stored_form[index].tobytes()))
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
    return int(db.execute("SELECT count(*) FROM vectors").fetchone()[0])


def _as_arrays(rows: list[Row]) -> tuple[Any, Any]:
    import numpy as np
    if not rows:
        return np.empty(0, dtype=np.int64), None
    docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return docs, np.frombuffer(b"".join(r[1] for r in rows), dtype=STORED_DTYPE).reshape(len(rows), -1
                                                                                        ).astype(np.float32)


def stored(db: Any, docs: list[int]) -> tuple[Any, Any]:
    """(doc ids, float32 matrix) of the stored vectors of these documents, in doc id order; missing
    ones are skipped."""
    rows: list[Row] = []
    for start in range(0, len(docs), 500):
        part = [int(d) for d in docs[start:start + 500]]
        rows += db.execute(f"SELECT doc_id, embedding FROM vectors WHERE doc_id IN ({','.join('?' * len(part))})",
                           tuple(part)).fetchall()
    rows.sort(key=lambda r: r[0])
    return _as_arrays(rows)


def cosines(db: Any, docs: list[int], vector: Any) -> tuple[list[int], list[float]]:
    """(doc ids, cosine similarity to `vector`) of these documents' stored vectors (those without
    one are left out), in doc id order."""
    import numpy as np
    ids, matrix = stored(db, docs)
    if matrix is None:
        return [], []
    query = np.asarray(vector, dtype=np.float32).ravel()
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    return ids.tolist(), ((matrix @ query) / np.where(norms == 0, 1, norms)).tolist()


def in_range(db: Any, low: int, high: int, doc_type: int | None = None) -> tuple[Any, Any]:
    """(doc ids, float32 matrix) of the stored vectors with low <= doc id <= high (of one type if
    given), in doc id order."""
    if doc_type is None:
        return _as_arrays(db.execute("SELECT doc_id, embedding FROM vectors WHERE doc_id BETWEEN ? AND ? "
                                     "ORDER BY doc_id", (low, high)).fetchall())
    return _as_arrays(db.execute("SELECT doc_id, embedding FROM vectors WHERE doc_id BETWEEN ? AND ? "
                                 f"AND doc_id % {DOC_SLOTS} = ? ORDER BY doc_id", (low, high, doc_type)).fetchall())


# Sign of each bit of a byte (little-endian bit order), for the asymmetric score.
_SIGNS: Any = None


def _byte_tables(query: Any, nbytes: int) -> Any:
    """(nbytes, 256): entry [j, b] is the query's components of byte j signed by the bits of b."""
    global _SIGNS
    import numpy as np
    if _SIGNS is None:
        _SIGNS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
                               ).astype(np.float32) * 2 - 1
    padded = np.zeros(nbytes * 8, dtype=np.float32)
    padded[:len(query)] = query
    return padded.reshape(nbytes, 8) @ _SIGNS.T


class _TypeCodes:
    """The codes of one document type's blocks side by side: block i fills columns
    [i * BLOCK, (i + 1) * BLOCK) of one (words, capacity) array, so a scan is a few numpy calls
    over contiguous memory whatever the number of blocks."""

    def __init__(self, words: int) -> None:
        import numpy as np
        self.words = words
        self.ids: list[int] = []
        self.versions: list[int] = []
        self.codes = np.zeros((words, 0), dtype=np.uint64)
        self.docs = np.zeros(0, dtype=np.int64)
        self.end = 0  # columns in use: every block is full but the last
        self.dead = np.zeros(0, dtype=np.int64)  # columns below `end` whose document was deleted

    @property
    def size(self) -> int:
        return len(self.ids) * BLOCK

    def settle(self, last_used: int) -> None:
        import numpy as np
        self.end = (len(self.ids) - 1) * BLOCK + last_used if self.ids else 0
        self.dead = np.flatnonzero(self.docs[:self.end] == DEAD)

    def grow(self, blocks: int) -> None:
        import numpy as np
        if blocks * BLOCK <= self.codes.shape[1]:
            return
        capacity = max(blocks, len(self.ids) + len(self.ids) // 4 + 1) * BLOCK
        codes = np.zeros((self.words, capacity), dtype=np.uint64)
        docs = np.zeros(capacity, dtype=np.int64)
        codes[:, :self.size], docs[:self.size] = self.codes[:, :self.size], self.docs[:self.size]
        self.codes, self.docs = codes, docs


class CodeCache:
    """One process's copy of the codes (48 bytes a document), refreshed block by block.

    Each search asks SQLite for the (id, version) of the blocks it needs and reads again only
    the blocks another write changed: a search costs a scan of memory, not a read of 48 MB at 1M
    documents. The first search of a process reads the codes once (about 2 ms at 100k)."""

    def __init__(self) -> None:

        self.lock = threading.Lock()
        self.types: dict[int, _TypeCodes] = {}

    def refresh(self, db: Any, doc_type: int) -> _TypeCodes | None:
        import numpy as np
        rows = db.execute("SELECT id, version, used FROM vector_blocks WHERE doc_type = ? ORDER BY id",
                          (doc_type,)).fetchall()
        if not rows:
            self.types.pop(doc_type, None)
            return None
        ids = [r[0] for r in rows]
        current = self.types.get(doc_type)
        if current is None or ids[:len(current.ids)] != current.ids:  # blocks went away: a new model
            current = None
        changed = [i for i, (block_id, version, _) in enumerate(rows)
                   if current is None or i >= len(current.ids) or current.versions[i] != version]
        if not changed:
            return current
        position = {block_id: i for i, block_id in enumerate(ids)}
        for start in range(0, len(changed), 64):
            wanted = [ids[i] for i in changed[start:start + 64]]
            for block_id, version, docs, codes in db.execute(
                    f"SELECT id, version, docs, codes FROM vector_blocks WHERE id IN ({','.join('?' * len(wanted))})",
                    tuple(wanted)).fetchall():
                block_codes = np.frombuffer(codes, dtype=np.uint64).reshape(-1, BLOCK)
                if current is None or current.words != block_codes.shape[0]:
                    current = _TypeCodes(block_codes.shape[0])
                current.grow(len(ids))
                if len(current.ids) < len(ids):
                    current.ids += ids[len(current.ids):]
                    current.versions += [-1] * (len(ids) - len(current.versions))
                i = position[block_id]
                current.codes[:, i * BLOCK:(i + 1) * BLOCK] = block_codes
                current.docs[i * BLOCK:(i + 1) * BLOCK] = np.frombuffer(docs, dtype=np.int64)
                current.versions[i] = version
        assert current is not None  # `changed` is not empty, so a block was read
        current.settle(rows[-1][2])
        self.types[doc_type] = current
        return current


def _nearest(distance: Any, count: int, far: int) -> Any:
    """Positions of the `count` smallest distances (ties at the boundary cut arbitrarily), never a
    `far` one. A histogram of the small integer distances finds the boundary: at 1M documents
    that takes a fifth of the time of np.argpartition."""
    import numpy as np
    histogram = np.cumsum(np.bincount(distance, minlength=far + 1)[:far])
    if histogram[-1] <= count:
        return np.flatnonzero(distance < far)
    boundary = int(np.searchsorted(histogram, count))  # the first distance reaching `count`
    near = np.flatnonzero(distance < boundary)
    return np.concatenate([near, np.flatnonzero(distance == boundary)[:count - len(near)]])


def _hamming(codes: Any, query_code: Any) -> Any:
    """Hamming distance of each column of `codes` (words x n) to the query's code, as uint16."""
    import numpy as np
    n = codes.shape[1]
    word, bits, distance = np.empty(n, np.uint64), np.empty(n, np.uint8), np.empty(n, np.uint16)
    for index in range(len(query_code)):  # in place: no temporary arrays per word
        np.bitwise_xor(codes[index], query_code[index], out=word)
        np.bitwise_count(word, out=bits)
        if index == 0:
            distance[:] = bits
        else:
            np.add(distance, bits, out=distance)
    return distance


def knn(db: Any, vector: Any, k: int, doc_type: int | None = None, shortlist: int | None = None,
        rescore: int | None = None, cache: CodeCache | None = None) -> list[tuple[int, float]]:
    """(doc id, cosine similarity) of the k nearest stored vectors, nearest first.

    `doc_type` (a DOC_TYPES code) limits the search to one type. `shortlist` and `rescore` (see
    the module docstring) default to SHORTLIST and RESCORE, or 10 and 4 times k when larger.
    `cache` keeps the codes between calls (a Searcher has one); without it they are read anew."""
    import numpy as np
    if k <= 0:
        return []
    query = np.asarray(vector, dtype=np.float32).ravel()
    query_code = codes_of(query)[0]
    rescore = max(rescore or RESCORE, 4 * k)
    shortlist = max(shortlist or SHORTLIST, 10 * k, rescore)
    cache = cache or CodeCache()
    with cache.lock:
        types = [t for t in (cache.refresh(db, code) for code in ((doc_type,) if doc_type is not None else range(4)))
                 if t is not None and t.end]
        if not types:
            return []
        if sum(t.end - len(t.dead) for t in types) <= rescore:  # a small store (or type) is searched exactly
            candidates = np.concatenate([t.docs[:t.end][t.docs[:t.end] != DEAD] for t in types])
        else:
            far = len(query_code) * 64 + 1  # farther than any code
            distances = []
            for t in types:
                distance = _hamming(t.codes[:, :t.end], query_code)
                distance[t.dead] = far  # deleted documents
                distances.append(distance)
            distance = distances[0] if len(distances) == 1 else np.concatenate(distances)
            near = _nearest(distance, shortlist, far)
            # The shortlisted codes, gathered type by type, scored against the float query itself
            # (asymmetric): the sum of its components, each signed by the code's bit, by byte tables.
            offsets = np.cumsum([0] + [t.end for t in types])
            owner = np.searchsorted(offsets, near, side="right") - 1
            picked = np.empty((len(near), len(query_code)), dtype=np.uint64)
            docs = np.empty(len(near), dtype=np.int64)
            for index, t in enumerate(types):
                mask = owner == index
                local = near[mask] - offsets[index]
                picked[mask], docs[mask] = t.codes[:, local].T, t.docs[local]
            as_bytes = picked.view(np.uint8)
            tables = _byte_tables(query, as_bytes.shape[1])
            estimate = tables[np.arange(as_bytes.shape[1]), as_bytes].sum(axis=1)
            candidates = docs[np.argpartition(-estimate, rescore)[:rescore]] if len(docs) > rescore else docs
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
    import numpy as np
    query = np.asarray(vector, dtype=np.float32).ravel()
    best_ids, best_sims = np.empty(0, np.int64), np.empty(0, np.float32)
    last = db.execute("SELECT coalesce(max(doc_id), 0) FROM vectors").fetchone()[0]
    for low in range(0, last + 1, 40_000):
        ids, matrix = in_range(db, low, low + 39_999)
        if matrix is None:
            continue
        if doc_type is not None:
            keep = ids % DOC_SLOTS == doc_type
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
                import numpy as np
                ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                order = np.argsort(ids % DOC_SLOTS, kind="stable")  # fills each type's blocks in doc id order
                put(conn, ids[order].tolist(), matrix[order])
        conn.execute("DROP TABLE vec_index")
        signature = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        if signature is not None:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_model'",
                         (signature[0].removesuffix(":typed") + ":blocks",))
    conn.execute("DROP TABLE IF EXISTS vector_log")
