"""The consolidation run (SPEC F6): SCAN -> CLUSTER -> SUMMARIZE -> SUPERSESSION -> TIER -> PERSIST.

Each phase and each cluster is checkpointed in consolidation_runs. Summaries are keyed by their
sorted source ids and edges are unique, so a run killed anywhere and run again creates no
duplicates, and a rerun over unchanged memories creates nothing. Originals are never deleted.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory.consolidation.options import Options
from memory.consolidation.protocol import ConsolidationModel, confidence_value
from memory.consolidation.retention import retention, tier_for
from memory.consolidation.runs import last_completed_run
from memory.docs import DOC_SLOTS, DOC_TYPES, doc_id, split_doc_id
from memory.edges import insert_edge, mark_superseded
from memory.errors import MalformedAnswer, ModelUnavailable, RequestTooLong
from memory.search.embeddings import Embedder, sync_embeddings
from memory.store import Store
from memory.summaries import NewSummary, insert_summary
from memory.time.instants import parse_stored, to_utc_iso
from memory.vectors import in_range as vectors_in_range
from memory.vectors import stored as stored_vectors

CLUSTER_KINDS = ("fact", "preference", "event", "person", "decision", "note")
JUDGE_KINDS = ("fact", "preference", "person", "decision")
# Clustering works on at most this many memories at once: memory stays bounded, and average linkage
# costs the square of it (2,000: 0.18 s a batch, 41 s of a full run at 100k items; 500: 6 s in all).
BATCH_NODES = 500
# Memories whose neighbours are found in one pass over the stored vectors: each pass reads every
# memory's vector (8,000 a pass: 7 passes at 50k memories instead of 25).
NEIGHBOUR_BATCH = 8000
NEIGHBOUR_CACHE = 20_000  # neighbour lists kept between phases (a full run at 100k would not fit)
CHUNK_DOCS = 20_000  # doc ids (about 5,000 memories) read per step of that pass
QUERY_BLOCK = 256  # memories compared with a chunk at once
JUDGE_NEIGHBOURS = 1  # nearest older neighbours of a memory that the model judges for supersession


@dataclass
class RunResult:
    run_id: str
    started_at: str
    completed_at: str | None = None
    phase: str = "SCAN"
    memories_processed: int = 0
    clusters_found: int = 0
    summaries_created: int = 0
    supersessions_detected: int = 0
    tier_transitions: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


Progress = Callable[[int, int, str], None]


class Consolidator:
    def __init__(self, store: Store, embedder: Embedder | None, model: ConsolidationModel | None,
                 options: Options | None = None, progress: Progress | None = None) -> None:
        self.store, self.embedder, self.model = store, embedder, model
        self.options = options or Options()
        self.progress = progress or (lambda done, total, phase: None)
        self.superseded_now: set[int] = set()  # judged superseded in this run (also in a dry run)
        self._neighbour_cache: dict[int, list[tuple[int, float]]] = {}

    # -- bookkeeping --------------------------------------------------------------------------

    def _checkpoint(self, result: RunResult, phase: str, **state: Any) -> None:
        result.phase = phase
        if result.dry_run:
            return
        with self.store.transaction():
            self.store.execute(
                "UPDATE consolidation_runs SET phase = ?, checkpoint = ?, counts = ?, errors = ? WHERE id = ?",
                (phase, json.dumps(state), json.dumps(self._counts(result)), json.dumps(result.errors), result.run_id))

    @staticmethod
    def _counts(result: RunResult) -> dict[str, int]:
        return {"memories_processed": result.memories_processed, "clusters_found": result.clusters_found,
                "summaries_created": result.summaries_created,
                "supersessions_detected": result.supersessions_detected,
                "tier_transitions": len(result.tier_transitions)}

    def last_completed_start(self) -> str | None:
        last = last_completed_run(self.store)
        return last.started_at if last else None

    # -- phases -------------------------------------------------------------------------------

    def run(self, full: bool = False, dry_run: bool = False) -> RunResult:
        now = self.store.clock.now()
        result = RunResult(str(uuid.uuid4()), to_utc_iso(now), dry_run=dry_run)
        since = None if full else self.last_completed_start()
        if not dry_run:
            with self.store.transaction():
                # A run that died mid-way is marked failed; its finished clusters stay, the rest is redone.
                self.store.execute("UPDATE consolidation_runs SET status = 'failed', errors = json_insert(errors, "
                                   "'$[#]', 'interrupted') WHERE status = 'running'")
                self.store.execute("INSERT INTO consolidation_runs (id, started_at, phase, full) VALUES (?,?,?,?)",
                                   (result.run_id, result.started_at, "SCAN", int(full)))
        try:
            scores = self.scan(now, dry_run)
            result.memories_processed = len(scores)
            self._checkpoint(result, "CLUSTER")
            model_ok = self._model_ready(result)
            clusters = self.cluster(since) if self.embedder is not None else []
            result.clusters_found = len(clusters)
            self._checkpoint(result, "SUMMARIZE", clusters=len(clusters))
            if model_ok:
                self.summarize(clusters, result, now)
                self._checkpoint(result, "SUPERSESSION")
                self.supersession(since, result, now)
            self._checkpoint(result, "TIER")
            scores.update(self.scan(now, dry_run, only=self.superseded_now))  # superseded: x 0.2
            result.tier_transitions = self.tier(result, now, scores)
            result.phase = "PERSIST"
            result.completed_at = to_utc_iso(self.store.clock.now())
            if not dry_run:
                with self.store.transaction():
                    self.store.execute("UPDATE consolidation_runs SET status = 'completed', phase = 'PERSIST', "
                                       "completed_at = ?, counts = ?, errors = ? WHERE id = ?",
                                       (result.completed_at, json.dumps(self._counts(result)),
                                        json.dumps(result.errors), result.run_id))
        except BaseException as exc:
            if not dry_run:
                result.errors.append(f"{type(exc).__name__}: {exc}")
                with self.store.transaction():
                    self.store.execute("UPDATE consolidation_runs SET status = 'failed', errors = ? WHERE id = ?",
                                       (json.dumps(result.errors), result.run_id))
            raise
        return result

    def _model_ready(self, result: RunResult) -> bool:
        if self.model is None:
            result.messages.append("No local model configured: summaries and supersession were skipped.")
            return False
        try:
            self.model.check()
            return True
        except ModelUnavailable as exc:
            result.messages.append(str(exc))
            result.errors.append(str(exc))
            return False

    def scan(self, now: datetime, dry_run: bool, only: set[int] | None = None) -> dict[int, float]:
        """Retention of every memory, or of `only` (written unless dry_run); {memory id: overall score}."""
        sql = ("SELECT k.id, k.kind, k.created_at, m.last_accessed, m.activation_count, m.superseded_by "
               "FROM knowledge k JOIN memory_meta m ON m.memory_id = k.id")
        if only is not None:
            sql += f" WHERE k.id IN ({','.join(map(str, sorted(only))) or 'NULL'})"
        updates = []
        stamp = to_utc_iso(now)
        for r in self.store.query(sql):
            superseded = r["superseded_by"] is not None or r["id"] in self.superseded_now
            score = retention(r["kind"], parse_stored(r["created_at"]),
                              parse_stored(r["last_accessed"]) if r["last_accessed"] else None,
                              r["activation_count"], superseded, now)
            updates.append((score["overall"], score["recency"], score["activation"], score["importance"],
                            stamp, r["id"]))
        if not dry_run:
            with self.store.transaction():
                self.store.conn.executemany("UPDATE memory_meta SET retention = ?, recency = ?, activation = ?, "
                                            "importance_factor = ?, scored_at = ? WHERE memory_id = ?", updates)
        self.progress(len(updates), len(updates), "scan")
        return {u[-1]: u[0] for u in updates}

    def _vectors(self, ids: list[int]) -> dict[int, Any]:
        docs, matrix = stored_vectors(self.store, [doc_id("memory", i) for i in ids])
        rows = matrix if matrix is not None else []
        return {split_doc_id(int(doc))[1]: vector for doc, vector in zip(docs, rows, strict=True)}

    def _batch_neighbours(self, vectors: dict[int, Any], k: int, floor: float) -> dict[int, list[tuple[int, float]]]:
        """Up to k most similar memories (similarity >= floor) of each given one, most similar first.

        One pass over the stored vectors in chunks: a matrix product per chunk instead of one KNN
        query per memory, never more than one chunk of vectors in memory (no all-pairs matrix of
        the store). The running top k of every memory is kept in two small arrays and merged with
        each chunk's best in numpy: a store of near-identical memories (every pair above the floor)
        costs what any other store does, in time and in memory.
        """
        import numpy as np

        if not vectors:
            return {}
        ids = np.fromiter(vectors, dtype=np.int64, count=len(vectors))
        queries = np.stack([vectors[i] for i in ids.tolist()]).astype(np.float32)
        best_sims = np.full((len(ids), k), -np.inf, dtype=np.float32)
        best_ids = np.zeros((len(ids), k), dtype=np.int64)
        last_doc = doc_id("memory", self.store.one("SELECT coalesce(max(id), 0) FROM knowledge")[0])
        for low in range(0, last_doc + 1, CHUNK_DOCS):
            docs, matrix = vectors_in_range(self.store, low, low + CHUNK_DOCS - 1, DOC_TYPES["memory"])
            if matrix is None:
                continue
            chunk_ids = docs // DOC_SLOTS  # ascending (row ids of an array of doc ids)
            width = min(k, len(chunk_ids))
            for start in range(0, len(ids), QUERY_BLOCK):
                rows = slice(start, start + QUERY_BLOCK)
                sims = queries[rows] @ matrix.T
                # A memory is not its own neighbour.
                own = np.searchsorted(chunk_ids, ids[rows]).clip(max=len(chunk_ids) - 1)
                mine = np.flatnonzero(chunk_ids[own] == ids[rows])
                sims[mine, own[mine]] = -np.inf
                columns = np.argpartition(-sims, width - 1, axis=1)[:, :width]
                merged_sims = np.concatenate([best_sims[rows], np.take_along_axis(sims, columns, axis=1)], axis=1)
                merged_ids = np.concatenate([best_ids[rows], chunk_ids[columns]], axis=1)
                keep = np.argpartition(-merged_sims, k - 1, axis=1)[:, :k]
                best_sims[rows] = np.take_along_axis(merged_sims, keep, axis=1)
                best_ids[rows] = np.take_along_axis(merged_ids, keep, axis=1)
        order = np.argsort(-best_sims, axis=1)
        best_sims, best_ids = np.take_along_axis(best_sims, order, axis=1), np.take_along_axis(best_ids, order, axis=1)
        found: dict[int, list[tuple[int, float]]] = {}
        for memory_id, sims_row, ids_row in zip(ids.tolist(), best_sims.tolist(), best_ids.tolist(), strict=True):
            pairs = [(other, sim) for other, sim in zip(ids_row, sims_row, strict=True) if sim >= floor]
            if pairs:
                found[memory_id] = pairs
        return found

    def neighbours(self, block: list[int]) -> dict[int, list[tuple[int, float]]]:
        """Neighbours of every memory in `block`, shared by CLUSTER and SUPERSESSION so an
        incremental run reads the stored vectors once."""
        missing = [m for m in block if m not in self._neighbour_cache]
        if missing:
            if len(self._neighbour_cache) + len(missing) > NEIGHBOUR_CACHE:
                self._neighbour_cache.clear()
            floor = min(self.options.similarity_threshold, self.options.supersession_similarity)
            found = self._batch_neighbours(self._vectors(missing), self.options.neighbours, floor)
            self._neighbour_cache.update({m: found.get(m, []) for m in missing})
        return {m: self._neighbour_cache.get(m, []) for m in block}

    def _candidates(self, since: str | None, kinds: tuple[str, ...]) -> list[int]:
        """Memories a model may read: private and sensitive ones never leave the machine, so they are
        never clustered, summarised or judged (they are still scored and tiered)."""
        marks = ",".join("?" * len(kinds))
        if since is None:
            rows = self.store.query(f"SELECT id FROM knowledge WHERE kind IN ({marks}) AND due_at IS NULL "
                                    "AND private = 0 AND sensitive = 0 ORDER BY id", kinds)
        else:
            rows = self.store.query(f"SELECT id FROM knowledge WHERE kind IN ({marks}) AND due_at IS NULL "
                                    "AND private = 0 AND sensitive = 0 AND (created_at >= ? OR updated_at >= ?) "
                                    "ORDER BY id",
                                    (*kinds, since, since))
        return [r[0] for r in rows]

    def cluster(self, since: str | None) -> list[list[int]]:
        """Clusters of 3-20 similar memories among new/changed ones and their nearest neighbours."""
        import numpy as np
        from scipy.cluster.hierarchy import fcluster, linkage
        from scipy.spatial.distance import squareform

        assert self.embedder is not None  # run() clusters only with an embedder
        sync_embeddings(self.store, self.embedder)
        allowed = set(self._candidates(None, CLUSTER_KINDS))
        candidates = self._candidates(since, CLUSTER_KINDS)
        clusters: dict[tuple[int, ...], list[int]] = {}
        assigned: set[int] = set()
        per_batch = max(1, BATCH_NODES // (self.options.neighbours + 1))
        neighbours: dict[int, list[tuple[int, float]]] = {}
        starts = [block + offset for block in range(0, len(candidates), NEIGHBOUR_BATCH)
                  for offset in range(0, min(NEIGHBOUR_BATCH, len(candidates) - block), per_batch)]
        for start in starts:
            batch = candidates[start:min(start + per_batch, (start // NEIGHBOUR_BATCH + 1) * NEIGHBOUR_BATCH)]
            if start % NEIGHBOUR_BATCH == 0:  # one pass over the store per block of candidates
                neighbours = self.neighbours(candidates[start:start + NEIGHBOUR_BATCH])
            vectors = self._vectors(batch)
            nodes = set(vectors)
            for memory_id in batch:
                nodes.update(n for n, sim in neighbours.get(memory_id, [])
                             if n in allowed and sim >= self.options.similarity_threshold)
            ordered = sorted(nodes)
            vectors.update(self._vectors([n for n in ordered if n not in vectors]))
            ordered = [n for n in ordered if n in vectors]
            if len(ordered) < self.options.min_cluster:
                continue
            matrix = np.stack([vectors[n] for n in ordered]).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True).clip(min=1e-12)
            # Cosine distances as one matrix product: scipy's pdist (what metric="cosine" uses)
            # took 0.4 s for each batch of 2,000 memories, the product a few milliseconds.
            distances = np.clip(1.0 - matrix @ matrix.T, 0.0, 2.0)
            np.fill_diagonal(distances, 0.0)
            # Average linkage cut below the distance threshold, as scikit-learn's AgglomerativeClustering
            # (precomputed, average, distance_threshold) does, on scipy alone: importing sklearn.cluster
            # kept ~70 MB more resident in the app after its first consolidation (the same groups on
            # 400 random sets; sklearn keeps merges strictly below the threshold, hence nextafter).
            condensed = squareform((distances + distances.T).astype(np.float64) / 2, checks=False)
            cut = np.nextafter(1 - self.options.similarity_threshold, -np.inf)
            labels = fcluster(linkage(condensed, method="average"), cut, criterion="distance")
            groups: dict[int, list[int]] = {}
            for node, label in zip(ordered, labels, strict=True):
                groups.setdefault(int(label), []).append(node)
            for members in groups.values():
                # A memory joins one cluster per run: the batches overlap (a memory is the neighbour
                # of many), and at 100k memories they made 41k overlapping clusters, each a summary.
                members = sorted(m for m in members if m not in assigned)
                if self.options.min_cluster <= len(members) <= self.options.max_cluster:
                    clusters[tuple(members)] = members
                    assigned.update(members)
            self.progress(min(start + per_batch, len(candidates)), len(candidates), "cluster")
        return list(clusters.values())

    def summarize(self, clusters: list[list[int]], result: RunResult, now: datetime) -> None:
        model = self.model
        assert model is not None  # run() summarizes only with a model that answered its check
        for index, members in enumerate(clusters, start=1):
            key = ",".join(map(str, members))
            self.progress(index, len(clusters), "summarize")
            if self.store.one("SELECT 1 FROM summaries WHERE source_key = ?", (key,)):
                continue  # already consolidated: idempotent
            rows = self.store.query(f"SELECT id, content, created_at FROM knowledge WHERE id IN "
                                    f"({','.join('?' * len(members))}) ORDER BY created_at", tuple(members))
            try:
                data = model.summarize([r["content"] for r in rows])
            except MalformedAnswer as exc:
                result.errors.append(f"cluster {key}: {exc}")
                continue
            except RequestTooLong as exc:  # this cluster only: the next may fit
                result.errors.append(f"cluster {key}: {exc}")
                _say_once(result, f"Some summaries were skipped: {exc}.")
                continue
            except ModelUnavailable as exc:
                result.errors.append(str(exc))
                result.messages.append(str(exc))
                return
            decisions = [d for d in data.get("decisions") or [] if isinstance(d, dict)]
            confidences = [confidence_value(d.get("confidence")) for d in decisions if d.get("confidence") is not None]
            confidence = round(sum(confidences) / len(confidences), 3) if confidences else 0.8
            result.summaries_created += 1
            if result.dry_run:
                continue
            with self.store.transaction():
                summary_id = insert_summary(self.store, NewSummary(
                    str(data["summary"]).strip() or "(empty summary)", key,
                    key_facts=_texts(data.get("key_facts")), decisions=decisions,
                    superseded_facts=_texts(data.get("superseded_facts")), source_ids=members,
                    confidence=confidence, period_start=rows[0]["created_at"], period_end=rows[-1]["created_at"],
                    model=model.name, run_id=result.run_id, created_at=to_utc_iso(now)))
                for member in members:
                    insert_edge(self.store, ("summary", summary_id), ("memory", member), "consolidates", 1.0,
                                "member of a topic cluster", result.run_id, to_utc_iso(now))
                    self.store.execute("UPDATE memory_meta SET consolidated_into = ? WHERE memory_id = ?",
                                       (summary_id, member))
                self.store.execute("UPDATE consolidation_runs SET checkpoint = ? WHERE id = ?",
                                   (json.dumps({"phase": "SUMMARIZE", "cluster": index, "of": len(clusters)}),
                                    result.run_id))

    def supersession(self, since: str | None, result: RunResult, now: datetime) -> None:
        model = self.model
        assert model is not None  # as in summarize
        if self.embedder is None:
            return
        candidates = self._candidates(since, JUDGE_KINDS)
        candidate_set = set(candidates)
        judged: set[tuple[int, int]] = set()
        neighbours: dict[int, list[tuple[int, float]]] = {}
        for index, memory_id in enumerate(candidates, start=1):
            self.progress(index, len(candidates), "supersession")
            if (index - 1) % NEIGHBOUR_BATCH == 0:
                neighbours = self.neighbours(candidates[index - 1:index - 1 + NEIGHBOUR_BATCH])
            # Each memory is judged against its nearest older neighbour(s) only: what a newer memory
            # supersedes is the most similar thing said before it, and every pair is a model call
            # (100k items on a few hundred topics gave each memory 10 close neighbours: with all of
            # them judged, a quarter of a million calls, about 3 days of a local model's time).
            asked = 0
            for other, similarity in neighbours.get(memory_id, []):
                if asked >= JUDGE_NEIGHBOURS or similarity < self.options.supersession_similarity:
                    break
                pair = self.store.query(
                    "SELECT k.id, k.kind, k.content, k.created_at, k.private, k.sensitive, m.superseded_by "
                    "FROM knowledge k "
                    "JOIN memory_meta m ON m.memory_id = k.id WHERE k.id IN (?, ?)", (memory_id, other))
                if len(pair) != 2 or {r["kind"] for r in pair} - set(JUDGE_KINDS) or \
                        any(r["private"] or r["sensitive"] for r in pair):
                    continue
                older, newer = sorted(pair, key=lambda r: (r["created_at"], r["id"]))
                if newer["id"] != memory_id and other in candidate_set:
                    continue  # the newer one is a candidate too: judged from its side
                if newer["id"] == memory_id:
                    asked += 1
                if (newer["id"], older["id"]) in judged or older["superseded_by"] is not None:
                    continue
                judged.add((newer["id"], older["id"]))
                try:
                    verdict = model.judge(newer["content"], older["content"])
                except MalformedAnswer as exc:
                    result.errors.append(f"pair {newer['id']}->{older['id']}: {exc}")
                    continue
                except RequestTooLong as exc:  # this pair only
                    result.errors.append(f"pair {newer['id']}->{older['id']}: {exc}")
                    _say_once(result, f"Some supersessions were not judged: {exc}.")
                    continue
                except ModelUnavailable as exc:
                    result.errors.append(str(exc))
                    return
                confidence = confidence_value(verdict.get("confidence"))
                if verdict.get("supersedes") is not True or confidence < self.options.supersession_confidence:
                    continue
                result.supersessions_detected += 1
                self.superseded_now.add(older["id"])
                if result.dry_run:
                    continue
                mark_superseded(self.store, newer["id"], older["id"], confidence, str(verdict.get("reason") or ""),
                                result.run_id)

    def tier(self, result: RunResult, now: datetime, scores: dict[int, float]) -> list[dict[str, Any]]:
        rows = self.store.query("SELECT m.memory_id, m.tier, m.superseded_by, k.pinned FROM memory_meta m "
                                "JOIN knowledge k ON k.id = m.memory_id")
        transitions = []
        for r in rows:
            score = scores.get(r["memory_id"], 0.0)
            superseded = r["superseded_by"] is not None or r["memory_id"] in self.superseded_now
            pinned = bool(r["pinned"])
            new = tier_for(score, superseded, pinned)
            if new == r["tier"]:
                continue
            reason = "pinned" if pinned and new != tier_for(score, superseded) else \
                "superseded" if superseded else f"retention {score:.2f}"
            transitions.append({"memory_id": r["memory_id"], "from_tier": r["tier"], "to_tier": new,
                                "reason": reason, "retention_score": round(score, 4)})
        if not result.dry_run and transitions:
            stamp = to_utc_iso(now)
            with self.store.transaction():
                self.store.conn.executemany("UPDATE memory_meta SET tier = ? WHERE memory_id = ?",
                                            [(t["to_tier"], t["memory_id"]) for t in transitions])
                self.store.conn.executemany(
                    "INSERT INTO tier_transitions (run_id, memory_id, from_tier, to_tier, reason, retention_score, "
                    "created_at) VALUES (?,?,?,?,?,?,?)",
                    [(result.run_id, t["memory_id"], t["from_tier"], t["to_tier"], t["reason"], t["retention_score"],
                      stamp) for t in transitions])
        return transitions


def tier_counts(store: Store) -> dict[str, int]:
    counts = {"hot": 0, "warm": 0, "cold": 0, "archived": 0}
    for tier, n in store.query("SELECT tier, count(*) FROM memory_meta GROUP BY tier"):
        counts[tier] = n
    return counts


def _texts(value: Any) -> list[str]:
    """A model's list of facts as text (a model may answer with numbers or objects in it)."""
    return [str(v) for v in value if v is not None] if isinstance(value, list) else []


def _say_once(result: RunResult, line: str) -> None:
    if line not in result.messages:
        result.messages.append(line)
