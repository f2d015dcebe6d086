"""Export and import as JSON Lines (SPEC F9): lossless round trip, all-or-nothing import.

Record types: episode, message, memory, summary, edge, forgotten. Ids in a file are the file's own: on
import every reference (a message's episode_id, a memory's message_ids and superseded_by, a
summary's source_ids, an edge's ends) is resolved within the file. Ids are kept when they are
free in the database, so importing an export into an empty database reproduces it.

A `forgotten` record is a tombstone ({uid, hash}, never the text): a forget made elsewhere. It is honoured
from any file, in any order: the memory it names is left out of this and every later import, and taken out
of the store if it is here (memory.memories.forget), unless `restore_forgotten`.

The whole file is one transaction (a bad line rolls everything back, SPEC F9); the rows are tagged with
the import (memory.transfer.imports) so `import --undo-last` can remove them.
"""
from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.edges import END_TYPES, insert_edge
from memory.episodes import insert_episode, insert_message, place_by_time
from memory.errors import ImportFailed, InvalidInput
from memory.memories import forget, insert_memory, next_sequence, parse_instant_field
from memory.new_memory import NewMemory
from memory.schema import TIERS
from memory.store import Store
from memory.summaries import NewSummary, insert_summary
from memory.time.references import valid_ref
from memory.time.rules import Recurrence
from memory.tombstones import content_hashes
from memory.transfer.checks import LONE_SURROGATE, DuplicateId, IdsSeen, holds_lone_surrogate, may_hold_surrogates
from memory.transfer.imports import begin_import, finish_import, tag

TYPES = ("episode", "message", "memory", "summary", "edge", "forgotten")


TABLES = {"episode": "episodes", "message": "messages", "memory": "knowledge", "summary": "summaries"}


def record_identities(records: list[tuple[int, dict[str, Any]]]) -> dict[int, str]:
    """{line: uid}: the record's own uid, else a hash of the record as written (with a count for
    identical records), so importing the same file twice recognises every record."""
    seen: dict[str, int] = {}
    out = {}
    for number, record in records:
        given = own_uid(record)
        if given is not None:
            out[number] = given
            continue
        digest = hashlib.sha1(json.dumps(record, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        seen[digest] = seen.get(digest, 0) + 1
        out[number] = f"sha1:{digest}" + (f":{seen[digest]}" if seen[digest] > 1 else "")
    return out


class _Importer:
    def __init__(self, store: Store, identities: dict[int, str], restore_forgotten: bool = False,
                 import_id: int | None = None, own_uids: set[int] | None = None) -> None:
        self.store = store
        self.restore_forgotten = restore_forgotten
        self.import_id = import_id
        self.forgotten: set[int] = set()  # lines of memories forgotten in this store, left out
        self.forgotten_ids: set[Any] = set()  # their ids in the file: links to them are left out too
        self.identities = identities
        self.own_uids = own_uids or set()  # lines whose record carries its own uid
        self.own = store.store_uid()
        self.ids: dict[str, dict[Any, int]] = {t: {} for t in TYPES}
        self.present: set[int] = set()  # lines whose record is already in the store
        self.added: dict[str, list[int]] = {"memory": [], "summary": []}  # rows to tag with the import
        self.line = 0
        self.uid: str | None = None
        # Read once, not per record: the uids already here, and the tombstones.
        self.known: dict[str, dict[str, int]] = {kind: {} for kind in TABLES}
        wanted = sorted(set(identities.values()))
        for kind, table in TABLES.items():
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                self.known[kind].update((r[0], r[1]) for r in store.query(
                    f"SELECT uid, id FROM {table} WHERE uid IN ({','.join('?' * len(part))})", tuple(part)))
        self.tombstones: dict[str, str | None] = {}
        # The tombstones here before this import, by hash: (forgotten at, uid); see is_forgotten.
        self.earlier: dict[str, tuple[str, str]] = {}
        for uid, digest, forgotten_at in store.query("SELECT uid, hash, forgotten_at FROM forgotten"):
            self.tombstones[uid] = digest
            if digest:
                self.earlier[digest] = max((forgotten_at or "", uid), self.earlier.get(digest, ("", "")))
        self._hashes: dict[str, set[str]] = {}  # text -> its tombstone hashes (each slow to make: made once)
        self.next_sequence = next_sequence(store)

    def already_present(self, kind: str, r: dict[str, Any]) -> bool:
        """True (and the file's id mapped to the row) when this record is already in the store."""
        table = TABLES[kind]
        assert self.uid is not None  # set for each record before it is read
        found = self.known[kind].get(self.uid)
        row = (found,) if found is not None else None
        if row is None and self.uid.startswith(f"{self.own}/{kind}/"):
            # Exported from this very store: the row is its own id, if it still exists.
            tail = self.uid.rsplit("/", 1)[1]
            if tail.isdigit():
                row = self.store.one(f"SELECT id FROM {table} WHERE id = ? AND uid IS NULL", (int(tail),))
        if row is None:
            return False
        self._remember_id(kind, r, row[0])
        self.present.add(self.line)
        return True

    def instant(self, record: dict[str, Any], name: str, default_now: bool = False) -> str | None:
        value = parse_instant_field(name, record.get(name), self.store)
        return value if value or not default_now else self.store.clock.now_iso()

    @staticmethod
    def free_id(value: Any) -> int | None:
        """The file's id, when it is one (insert_memory keeps it if it is free)."""
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    def foreign_uid(self) -> str | None:
        """The record's uid as stored: our own rows need none (their id is their identity)."""
        return None if self.uid is None or self.uid.startswith(f"{self.own}/") else self.uid

    def ref(self, kind: str, value: Any, what: str) -> int:
        if value in self.ids[kind]:
            return self.ids[kind][value]
        raise InvalidInput(f"{what} {value!r} names no {kind} in this file")

    def episode(self, r: dict[str, Any]) -> None:
        if self.already_present("episode", r):
            return
        new = insert_episode(self.store, title=r.get("title"), summary=r.get("summary"), outcome=r.get("outcome"),
                             active=bool(r.get("active", False)), started_at=self.instant(r, "started_at", True),
                             ended_at=self.instant(r, "ended_at"), tags=r.get("tags") or [],
                             uid=self.foreign_uid(), id=self.free_id(r.get("id")), import_id=self.import_id)
        self._remember_id("episode", r, new)

    def message(self, r: dict[str, Any]) -> None:
        if self.already_present("message", r):
            return
        episode = r.get("episode_id")
        refs = r.get("time_refs")
        role: Any = r.get("role")  # as the file has them: insert_message checks both
        content: Any = r.get("content")
        new = insert_message(self.store, None if episode is None else self.ref("episode", episode, "episode_id"),
                             role, content, created_at=self.instant(r, "created_at", True),
                             time_refs=_time_refs(refs) if refs else None, uid=self.foreign_uid(),
                             id=self.free_id(r.get("id")), import_id=self.import_id, placed_later=True)
        self._remember_id("message", r, new.id)

    def forgotten_record(self, r: dict[str, Any]) -> None:
        """A tombstone from the file: kept here, and the memory it names forgotten here too."""
        uid, digest = r.get("uid"), r.get("hash")
        if not isinstance(uid, str) or not uid.strip() or len(uid) > 200:
            raise InvalidInput("a forgotten record needs the uid of what was forgotten")
        if digest is not None and (not isinstance(digest, str) or len(digest) > 200):
            raise InvalidInput("hash must be text")
        if self.restore_forgotten:
            return  # asked back: the file's tombstones are not applied
        if uid in self.tombstones:
            self.present.add(self.line)
            return
        self.tombstones[uid] = digest
        self.store.execute("INSERT OR IGNORE INTO forgotten (uid, forgotten_at, hash) VALUES (?, ?, ?)",
                           (uid, self.instant(r, "forgotten_at", True), digest))
        row = self.store.one("SELECT id FROM knowledge WHERE uid = ?", (uid,))
        if row is None and uid.startswith(f"{self.own}/memory/") and uid.rsplit("/", 1)[1].isdigit():
            row = self.store.one("SELECT id FROM knowledge WHERE id = ? AND uid IS NULL", (int(uid.rsplit("/", 1)[1]),))
        if row is not None:
            forget(self.store, row[0])  # a forget made elsewhere
            self.forgotten.add(self.line)

    def is_forgotten(self, r: dict[str, Any]) -> str | None:
        """The tombstone that names this memory record, if any: by its uid, else by the hash of its
        normalized text (memory.tombstones), for
        - a record without a uid of its own (a hand-written file): against every tombstone;
        - a record with a uid no tombstone names (a copy given a new uid by hand): against the tombstones
          that were here before this import, of a forget made after the record's own time (the same words
          said again after the forget are another memory). The tombstones of the file itself are not
          compared with it: in the store that wrote them, it outlived them."""
        assert self.uid is not None
        if self.uid in self.tombstones:
            return self.uid
        content = r.get("content")
        if not isinstance(content, str):
            return None
        if self.line not in self.own_uids:
            hashes = {digest: uid for uid, digest in self.tombstones.items() if digest}
        else:
            made = self.instant(r, "created_at") or ""
            hashes = {digest: uid for digest, (forgotten_at, uid) in self.earlier.items() if made <= forgotten_at}
        if not hashes:
            return None
        if content not in self._hashes:
            self._hashes[content] = content_hashes(content)
        return next((hashes[h] for h in self._hashes[content] if h in hashes), None)

    def memory(self, r: dict[str, Any]) -> None:
        if self.already_present("memory", r):
            return
        tombstone = self.is_forgotten(r)
        if tombstone is not None:
            if not self.restore_forgotten:
                self.forgotten.add(self.line)  # forgotten here since that export: it stays forgotten
                self.forgotten_ids.add(r.get("id"))
                return
            self.store.execute("DELETE FROM forgotten WHERE uid = ?", (tombstone,))  # asked back: no tombstone
            del self.tombstones[tombstone]
        if "content" not in r:
            raise InvalidInput("a memory needs content")
        message_ids = r.get("message_ids") or []
        if not isinstance(message_ids, list) or not all(isinstance(m, int) for m in message_ids):
            raise InvalidInput("message_ids must be a list of integers")
        message_ids = [self.ids["message"].get(m, m) for m in message_ids]
        sequence = r.get("sequence")
        if (not isinstance(sequence, int) or isinstance(sequence, bool)) and message_ids:
            sequence = round(sum(message_ids) / len(message_ids)) * 1000  # where in the chat it was said
        elif not isinstance(sequence, int) or isinstance(sequence, bool):
            sequence = self.next_sequence  # after everything so far, as insert_memory would (read once)
            self.next_sequence += 1
        importance = r.get("importance")
        new = insert_memory(self.store, NewMemory(
            r["content"], kind=r.get("kind"), importance=3 if importance is None else importance,
            private=r.get("private", False), due_at=self.instant(r, "due_at"),
            reminded_at=self.instant(r, "reminded_at"), done_at=self.instant(r, "done_at"),
            message_ids=message_ids, sequence=sequence, created_at=self.instant(r, "created_at", True),
            updated_at=self.instant(r, "updated_at"), relation=r.get("relation"), trust=r.get("trust"),
            tension=r.get("tension"), recurrence=_recurrence(r.get("recurrence")),
            occurrence_at=self.instant(r, "occurrence_at"),
            time_refs=_time_refs(r["time_refs"]) if r.get("time_refs") else None,
            uid=self.foreign_uid(), id=self.free_id(r.get("id")),
            # An export of this app says where each memory came from; any other file's memories are imported.
            source=r.get("source") or "imported", pinned=r.get("pinned", False) is True))
        self._remember_id("memory", r, new)
        self.added["memory"].append(new)
        for done in r.get("completions") or []:
            if not isinstance(done, dict):
                raise InvalidInput("completions must be a list of {occurrence_at, done_at}")
            self.store.execute("INSERT INTO reminder_completions (memory_id, occurrence_at, done_at) VALUES (?,?,?)",
                               (new, self.instant(done, "occurrence_at"), self.instant(done, "done_at", True)))
        tier = r.get("tier") or "hot"
        if tier not in TIERS:
            raise InvalidInput(f"tier must be one of {', '.join(TIERS)}")
        count = r.get("activation_count") or 0
        if not isinstance(count, int) or count < 0:
            raise InvalidInput("activation_count must be a whole number >= 0")
        accessed = self.instant(r, "last_accessed")
        if (tier, count, accessed) != ("hot", 0, None):  # else the row as the trigger made it
            self.store.execute("UPDATE memory_meta SET tier = ?, activation_count = ?, last_accessed = ? "
                               "WHERE memory_id = ?", (tier, count, accessed, new))

    def summary(self, r: dict[str, Any]) -> None:
        if self.already_present("summary", r):
            return
        sources = r.get("source_ids") or []
        if not isinstance(sources, list):
            raise InvalidInput("source_ids must be a list")
        confidence = r.get("confidence", 0.8)
        new = insert_summary(self.store, NewSummary(
            r.get("content", ""), f"import:{uuid.uuid4()}", key_facts=r.get("key_facts") or [],
            decisions=r.get("decisions") or [], superseded_facts=r.get("superseded_facts") or [],
            confidence=confidence, tier=r.get("tier") or "warm", period_start=self.instant(r, "period_start"),
            period_end=self.instant(r, "period_end"), model=r.get("model"), run_id=r.get("run_id"),
            created_at=self.instant(r, "created_at", True), uid=self.foreign_uid(), id=self.free_id(r.get("id"))))
        self._remember_id("summary", r, new)
        self.added["summary"].append(new)

    def _remember_id(self, kind: str, record: dict[str, Any], new: int) -> None:
        if record.get("id") is not None:
            self.ids[kind][record["id"]] = new
        if self.uid is not None:
            self.known[kind].setdefault(self.uid, new)  # a second record with the same uid is already here

    def resolve(self, r: dict[str, Any]) -> None:
        """References that may point forward in the file: done after every row exists."""
        kind = r["type"]
        if self.line in self.present or self.line in self.forgotten or kind == "forgotten":
            return  # already in the store with its references, or left out
        gone = self.forgotten_ids
        if kind == "memory" and r.get("id") is not None:
            new = self.ids["memory"][r["id"]]
            for name in ("superseded_by", "consolidated_into"):
                if r.get(name) is not None and not (name == "superseded_by" and r[name] in gone):
                    target = self.ref("memory" if name == "superseded_by" else "summary", r[name], name)
                    self.store.execute(f"UPDATE memory_meta SET {name} = ? WHERE memory_id = ?", (target, new))
        elif kind == "summary" and r.get("id") is not None:
            sources = sorted(self.ref("memory", s, "source_ids entry") for s in r.get("source_ids") or []
                             if s not in gone)
            self.store.execute("UPDATE summaries SET source_ids = ?, source_key = ? WHERE id = ?",
                               (json.dumps(sources), ",".join(map(str, sources)) or f"import:{r['id']}",
                                self.ids["summary"][r["id"]]))
        elif kind == "edge":
            if any(r.get(f"{end}_type", "memory") == "memory" and r.get(f"{end}_id") in gone
                   for end in ("source", "target")):
                return  # a link to a memory forgotten here
            ends = []
            for end in ("source", "target"):
                end_type = r.get(f"{end}_type", "memory")
                if end_type not in END_TYPES:
                    raise InvalidInput(f"{end}_type must be memory or summary")
                ends.append((end_type, self.ref(end_type, r.get(f"{end}_id"), f"{end}_id")))
            edge_type: Any = r.get("edge_type")  # checked by insert_edge
            insert_edge(self.store, ends[0], ends[1], edge_type, r.get("weight", 1.0), r.get("reason"),
                        r.get("run_id"), self.instant(r, "created_at", True))


def _recurrence(value: Any) -> str | None:
    """A record's recurrence ({rule, start, zone} as exported, or the stored two-line text) as stored text."""
    if value in (None, ""):
        return None
    try:
        if isinstance(value, dict):

            recurrence = Recurrence(str(value["rule"]).removeprefix("RRULE:"), datetime.fromisoformat(value["start"]),
                                    str(value.get("zone") or "UTC"))
        elif isinstance(value, str):
            recurrence = Recurrence.from_text(value)
        else:
            raise TypeError
        recurrence.validate()
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(f"recurrence is not a valid rule ({exc or 'expected {rule, start, zone}'})") from None
    return recurrence.to_text()


def _time_refs(value: Any) -> list[dict[str, Any]]:

    if not isinstance(value, list) or not all(valid_ref(ref) for ref in value):
        raise InvalidInput('time_refs must be a list of {"text": ..., "date": "YYYY-MM-DD", "granularity": ...}')
    return value


def own_uid(record: dict[str, Any]) -> str | None:
    """The uid a record gives itself (as stored: stripped, at most 200 characters), if any."""
    given = record.get("uid")
    return given.strip()[:200] if isinstance(given, str) and given.strip() else None


@dataclass
class ParsedFile:
    """A file's records, read and checked as a whole (parse_lines) before any store is opened."""

    records: list[tuple[int, dict[str, Any]]]


def parse_lines(lines: Iterable[str]) -> ParsedFile:
    """Every record of the file, with its line; ImportFailed for the first line that is not a record,
    holds text that is not valid Unicode, or reuses an id or uid of another record (an identical copy
    of a record is read once)."""
    records = []
    seen = IdsSeen()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportFailed(number, f"not valid JSON ({exc.msg})") from exc
        except ValueError:  # Python refuses integers of more than 4,300 digits (a date or an id of 5,000)
            raise ImportFailed(number, "a number with too many digits") from None
        except RecursionError:
            raise ImportFailed(number, "nested too deeply to be a record") from None
        if not isinstance(record, dict):
            raise ImportFailed(number, "a record must be a JSON object")
        if record.get("type") not in TYPES:
            raise ImportFailed(number, f"type must be one of {', '.join(TYPES)}, not {record.get('type')!r}")
        if may_hold_surrogates(line) and holds_lone_surrogate(record):
            raise ImportFailed(number, LONE_SURROGATE)
        kind, ident, uid = record["type"], record.get("id"), own_uid(record)
        keys = [((kind, "id", ident), f"{kind} id {ident!r}")] if ident is not None else []
        if uid is not None and kind != "forgotten":  # a tombstone's uid names what was forgotten, not itself
            keys.append(((kind, "uid", uid), f"{kind} uid {uid!r}"))
        try:
            repeated = [seen.again(key, record, f"on line {number}", label) for key, label in keys]
        except DuplicateId as exc:
            raise ImportFailed(number, str(exc)) from None
        if any(repeated):
            continue  # the same record again: read once
        records.append((number, record))
    return ParsedFile(records)


class _DryRun(Exception):
    """Raised to roll back a dry run's transaction."""


def import_records(store: Store, lines: Iterable[str] | ParsedFile,
                   progress: Callable[[int, int], None] | None = None,
                   restore_forgotten: bool = False, dry_run: bool = False,
                   source: str | None = None) -> dict[str, int]:
    """Import JSON Lines (the lines, or the file parse_lines read: the CLI reads it whole before it opens
    the store, so a file refused as a whole creates none); any bad line raises ImportFailed and nothing is
    written. A memory forgotten
    in this store since the export (a tombstone of its uid), or named by a tombstone in the file, is left
    out, counted under "forgotten", unless `restore_forgotten`; then it comes back and its tombstone goes.

    `progress(done, total)` is called every few thousand records (a progress bar for big files).
    `dry_run`: the same work, rolled back: the counts say what would be added.

    Idempotent: a record already in the store (same uid, or the same hand-written record) is
    counted under "already_present" and not added again. At most one episode is active afterwards.
    """
    records = (lines if isinstance(lines, ParsedFile) else parse_lines(lines)).records
    identities = record_identities(records)
    own_uids = {number for number, record in records if own_uid(record) is not None}
    counts = {t: 0 for t in TYPES if t != "forgotten"} | {"tombstone": 0, "already_present": 0, "forgotten": 0}
    done = 0
    try:
        with store.transaction():
            import_id = None if dry_run else begin_import(store, "jsonl", source or "-", None)
            importer = _Importer(store, identities, restore_forgotten, import_id, own_uids)
            active_before = [r[0] for r in store.query("SELECT id FROM episodes WHERE active = 1")]
            earliest: str | None = None
            for kind in ("forgotten", "episode", "message", "memory", "summary"):
                for number, record in records:
                    if record["type"] != kind:
                        continue
                    importer.line, importer.uid = number, identities[number]
                    try:
                        getattr(importer, "forgotten_record" if kind == "forgotten" else kind)(record)
                    except Exception as exc:  # InvalidInput, or a constraint the checks did not foresee
                        raise ImportFailed(number, f"{kind}: {exc}") from exc
                    if kind == "forgotten":
                        counts["already_present" if number in importer.present else "tombstone"] += 1
                        counts["forgotten"] += number in importer.forgotten
                    else:
                        counts["already_present" if number in importer.present else
                               "forgotten" if number in importer.forgotten else kind] += 1
                    if kind == "message" and number not in importer.present:
                        created = importer.instant(record, "created_at", True)
                        earliest = created if earliest is None or (created or "") < earliest else earliest
                    done += 1
                    if progress is not None and done % 2000 == 0:
                        progress(done, len(records))
            for number, record in records:
                importer.line, importer.uid = number, identities[number]
                try:
                    importer.resolve(record)
                except Exception as exc:
                    raise ImportFailed(number, f"{record['type']}: {exc}") from exc
                counts["edge"] += record["type"] == "edge"
            if earliest is not None:
                place_by_time(store, earliest)  # the file's messages take their places in time, once
            _one_active_episode(store, active_before)
            if import_id is not None:
                for kind, ids in importer.added.items():
                    tag(store, kind, ids, import_id)
                finish_import(store, import_id, counts)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    if progress is not None:
        progress(len(records), len(records))
    return counts


def _one_active_episode(store: Store, active_before: list[int]) -> None:
    """The conversation in progress stays the only active one; imported "active" ones are closed
    at their last message (or, with none active before, all but the newest)."""
    active = [r[0] for r in store.query("SELECT id FROM episodes WHERE active = 1 ORDER BY started_at DESC, id DESC")]
    if len(active) <= 1:
        return
    keep = active_before[0] if active_before else active[0]
    for episode_id in active:
        if episode_id != keep:
            store.execute("UPDATE episodes SET active = 0, ended_at = coalesce(ended_at, (SELECT max(created_at) "
                          "FROM messages WHERE episode_id = episodes.id), started_at) WHERE id = ?", (episode_id,))
