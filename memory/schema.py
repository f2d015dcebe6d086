"""Tables, indexes and triggers, as forward-only migrations keyed by PRAGMA user_version.

Search documents share one id space so that one FTS5 table and one vec0 table can index every
searchable text: doc_id = row id * 4 + type code (see DOC_TYPES). Triggers keep the FTS index and
the queue of texts awaiting an embedding in step with the rows, in the same transaction.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, get_args

from memory.connection import DatabaseError
from memory.docs import DOC_TYPE_NAMES
from memory.errors import StoreUnusable
from memory.vectors import migrate_from_vec0

if TYPE_CHECKING:
    from memory.connection import Connection

Kind = Literal["fact", "preference", "event", "person", "mood", "decision", "note", "reminder"]
KINDS: tuple[str, ...] = get_args(Kind)
TIERS = ("hot", "warm", "cold", "archived")

Step = str | Callable[["Connection"], None]  # SQL, or a function for what SQL alone cannot do


def _index_triggers(table: str, code: int, text_sql: str, when: str = "1", typed: bool = False) -> list[str]:
    """FTS + embedding-queue triggers for one table; `text_sql` builds the text from NEW/OLD.

    `typed` (schema 3 on) also fills the FTS doc_type column, so a search can stay within a type.
    """
    new_text = text_sql.replace("{r}", "new")
    columns, type_value = ("rowid, content, doc_type", f", '{DOC_TYPE_NAMES[code]}'") if typed else \
        ("rowid, content", "")
    return [
        f"""CREATE TRIGGER {table}_index_insert AFTER INSERT ON {table} WHEN {when.replace('{r}', 'new')}
        BEGIN
          INSERT INTO search_index({columns}) VALUES (new.id * 4 + {code}, {new_text}{type_value});
          INSERT OR IGNORE INTO pending_embeddings(doc_id) VALUES (new.id * 4 + {code});
        END""",
        f"""CREATE TRIGGER {table}_index_delete AFTER DELETE ON {table}
        BEGIN
          DELETE FROM search_index WHERE rowid = old.id * 4 + {code};
          DELETE FROM pending_embeddings WHERE doc_id = old.id * 4 + {code};
          INSERT OR IGNORE INTO stale_embeddings(doc_id) VALUES (old.id * 4 + {code});
        END""",
        f"""CREATE TRIGGER {table}_index_update AFTER UPDATE ON {table}
        WHEN ({text_sql.replace('{r}', 'old')}) IS NOT ({new_text})
        BEGIN
          DELETE FROM search_index WHERE rowid = old.id * 4 + {code};
          INSERT INTO search_index({columns})
            SELECT new.id * 4 + {code}, {new_text}{type_value} WHERE {when.replace('{r}', 'new')};
          INSERT OR IGNORE INTO pending_embeddings(doc_id)
            SELECT new.id * 4 + {code} WHERE {when.replace('{r}', 'new')};
          INSERT OR IGNORE INTO stale_embeddings(doc_id) VALUES (old.id * 4 + {code});
        END""",
    ]


_KIND_CHECK = ", ".join(f"'{k}'" for k in KINDS)
_TIER_CHECK = ", ".join(f"'{t}'" for t in TIERS)

MIGRATION_1 = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE episodes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT,
        summary TEXT,
        outcome TEXT CHECK (outcome IN ('success', 'abandoned')),
        active INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        tags TEXT NOT NULL DEFAULT '[]'
    )""",
    "CREATE INDEX episodes_started ON episodes(started_at)",
    "CREATE INDEX episodes_active ON episodes(active) WHERE active = 1",
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        episode_id INTEGER REFERENCES episodes(id) ON DELETE SET NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
        content TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX messages_episode ON messages(episode_id)",
    f"""CREATE TABLE knowledge (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ({_KIND_CHECK})),
        content TEXT NOT NULL,
        importance INTEGER NOT NULL DEFAULT 3 CHECK (importance BETWEEN 1 AND 5),
        private INTEGER NOT NULL DEFAULT 0,
        due_at TEXT,
        reminded_at TEXT,
        done_at TEXT,
        message_ids TEXT NOT NULL DEFAULT '[]',
        sequence INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        relation TEXT,
        trust INTEGER CHECK (trust BETWEEN 0 AND 10),
        tension INTEGER CHECK (tension BETWEEN 0 AND 10)
    )""",
    "CREATE INDEX knowledge_due ON knowledge(due_at) WHERE due_at IS NOT NULL",
    "CREATE INDEX knowledge_created ON knowledge(created_at)",
    "CREATE INDEX knowledge_kind ON knowledge(kind)",
    "CREATE VIRTUAL TABLE search_index USING fts5(content, tokenize = 'porter unicode61')",
    # Texts whose embedding is not computed yet; filled by triggers, drained by the embedder.
    "CREATE TABLE pending_embeddings (doc_id INTEGER PRIMARY KEY)",
    # Vectors to drop (row deleted or text changed); the vec0 table may not exist yet.
    "CREATE TABLE stale_embeddings (doc_id INTEGER PRIMARY KEY)",
    *_index_triggers("messages", 0, "{r}.content", "{r}.role IN ('user', 'assistant')"),
    *_index_triggers("knowledge", 1, "{r}.content"),
    *_index_triggers("episodes", 2, "coalesce({r}.title, '') || ': ' || {r}.summary", "{r}.summary IS NOT NULL"),
]

MIGRATION_2 = [
    f"""CREATE TABLE memory_meta (
        memory_id INTEGER PRIMARY KEY REFERENCES knowledge(id) ON DELETE CASCADE,
        tier TEXT NOT NULL DEFAULT 'hot' CHECK (tier IN ({_TIER_CHECK})),
        activation_count INTEGER NOT NULL DEFAULT 0,
        last_accessed TEXT,
        retention REAL,
        recency REAL,
        activation REAL,
        importance_factor REAL,
        superseded_by INTEGER REFERENCES knowledge(id) ON DELETE SET NULL,
        consolidated_into INTEGER,
        scored_at TEXT
    )""",
    "CREATE INDEX memory_meta_tier ON memory_meta(tier)",
    """CREATE TRIGGER knowledge_meta_insert AFTER INSERT ON knowledge
        BEGIN INSERT OR IGNORE INTO memory_meta(memory_id) VALUES (new.id); END""",
    "INSERT OR IGNORE INTO memory_meta(memory_id) SELECT id FROM knowledge",
    f"""CREATE TABLE summaries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        content TEXT NOT NULL,
        key_facts TEXT NOT NULL DEFAULT '[]',
        decisions TEXT NOT NULL DEFAULT '[]',
        superseded_facts TEXT NOT NULL DEFAULT '[]',
        source_ids TEXT NOT NULL DEFAULT '[]',
        source_key TEXT NOT NULL UNIQUE,
        confidence REAL NOT NULL DEFAULT 0.8,
        tier TEXT NOT NULL DEFAULT 'warm' CHECK (tier IN ({_TIER_CHECK})),
        period_start TEXT,
        period_end TEXT,
        model TEXT,
        run_id TEXT,
        created_at TEXT NOT NULL
    )""",
    *_index_triggers("summaries", 3, "{r}.content"),
    """CREATE TABLE edges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source_type TEXT NOT NULL CHECK (source_type IN ('memory', 'summary')),
        source_id INTEGER NOT NULL,
        target_type TEXT NOT NULL CHECK (target_type IN ('memory', 'summary')),
        target_id INTEGER NOT NULL,
        edge_type TEXT NOT NULL CHECK (edge_type IN ('supersedes', 'consolidates', 'references')),
        weight REAL NOT NULL DEFAULT 1.0,
        reason TEXT,
        run_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (source_type, source_id, target_type, target_id, edge_type)
    )""",
    "CREATE INDEX edges_target ON edges(target_type, target_id)",
    """CREATE TABLE consolidation_runs (
        id TEXT PRIMARY KEY,
        started_at TEXT NOT NULL,
        completed_at TEXT,
        phase TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
        full INTEGER NOT NULL DEFAULT 0,
        counts TEXT NOT NULL DEFAULT '{}',
        errors TEXT NOT NULL DEFAULT '[]',
        checkpoint TEXT NOT NULL DEFAULT '{}'
    )""",
    """CREATE TABLE tier_transitions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT,
        memory_id INTEGER NOT NULL,
        from_tier TEXT NOT NULL,
        to_tier TEXT NOT NULL,
        reason TEXT NOT NULL,
        retention_score REAL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX tier_transitions_memory ON tier_transitions(memory_id)",
]

_INDEXED = [("messages", 0, "{r}.content", "{r}.role IN ('user', 'assistant')"), ("knowledge", 1, "{r}.content", "1"),
            ("episodes", 2, "coalesce({r}.title, '') || ': ' || {r}.summary", "{r}.summary IS NOT NULL"),
            ("summaries", 3, "{r}.content", "1")]

# Schema 3: the FTS index gets a doc_type column, so searches for one type (episodes, summaries)
# no longer rank every matching message and memory.
MIGRATION_3 = [
    *[f"DROP TRIGGER {table}_index_{event}" for table, *_ in _INDEXED for event in ("insert", "delete", "update")],
    "CREATE VIRTUAL TABLE search_index_typed USING fts5(content, doc_type, tokenize = 'porter unicode61')",
    "INSERT INTO search_index_typed(rowid, content, doc_type) SELECT rowid, content, "
    "CASE rowid % 4 WHEN 0 THEN 'message' WHEN 1 THEN 'memory' WHEN 2 THEN 'episode' ELSE 'summary' END "
    "FROM search_index",
    "DROP TABLE search_index",
    "ALTER TABLE search_index_typed RENAME TO search_index",
    *[t for table, code, text, when in _INDEXED for t in _index_triggers(table, code, text, when, typed=True)],
    # next_sequence() reads max(sequence) on every remember: without an index that is a full scan.
    "CREATE INDEX knowledge_sequence ON knowledge(sequence)",
    # The prompt's "most important recent memories" read this order with a LIMIT.
    "CREATE INDEX knowledge_importance ON knowledge(importance DESC, id DESC)",
    # Every write to the vec0 table (which cannot have triggers) is logged here, so an in-memory copy
    # of the vectors (memory.vector_cache) can follow changes made by any process. Dropped in schema 5.
    "CREATE TABLE vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, doc_id INTEGER, op TEXT NOT NULL "
    "CHECK (op IN ('put', 'drop', 'reset')))",
]

# Schema 4: recurring reminders and dates resolved when text is written.
MIGRATION_4 = [
    # RFC 5545 "DTSTART;TZID=..:..\nRRULE:.." of a repeating reminder; NULL for a one-off.
    "ALTER TABLE knowledge ADD COLUMN recurrence TEXT",
    # The scheduled instant of the current occurrence: a snooze moves due_at, not this, so the
    # next occurrence still follows the rule.
    "ALTER TABLE knowledge ADD COLUMN occurrence_at TEXT",
    """CREATE TABLE reminder_completions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL REFERENCES knowledge(id) ON DELETE CASCADE,
        occurrence_at TEXT NOT NULL,
        done_at TEXT NOT NULL
    )""",
    "CREATE INDEX reminder_completions_memory ON reminder_completions(memory_id)",
    # Relative words ("yesterday") resolved against the moment the text was written, as JSON
    # [{text, date, granularity}], so a prompt can say "hiking yesterday [Mon Nov 9]".
    "ALTER TABLE knowledge ADD COLUMN time_refs TEXT",
    "ALTER TABLE messages ADD COLUMN time_refs TEXT",
    # A stable identity for rows that came from elsewhere (an export of another store, a calendar
    # UID), so importing the same records twice adds nothing. Rows made here have none: an export
    # names them by this store's own id (meta `store_uid`) and their row id.
    *[f"ALTER TABLE {table} ADD COLUMN uid TEXT" for table in ("episodes", "messages", "knowledge", "summaries")],
    *[f"CREATE UNIQUE INDEX {table}_uid ON {table}(uid) WHERE uid IS NOT NULL"
      for table in ("episodes", "messages", "knowledge", "summaries")],
]


# Schema 5: vectors leave sqlite-vec's vec0 table for memory.vectors (float vectors plus one-bit
# codes in blocks), whose search reads no more than the codes and a few hundred vectors; the
# stored float vectors are carried over, nothing is embedded again. vector_log (which let an
# in-memory copy of every vector follow other processes' writes) goes with that copy.
MIGRATION_5: list[Step] = [
    migrate_from_vec0,
    # `reminders` and the prompt read open reminders due before a horizon: over years, done ones
    # pile up in the due_at index (nine in ten of a lifetime's), so open ones get their own index.
    "CREATE INDEX knowledge_open_due ON knowledge(due_at) WHERE due_at IS NOT NULL AND done_at IS NULL",
]

# Schema 6: the last change made to a reminder (done, snooze, move, cancel, rename, forget), with the
# row as it was before, so `undo` works from any front end, in a later process, after a restart, and
# brings a forgotten reminder back with its id. One row at most (memory.reminders.record_change): the
# text of a forgotten reminder stays only until the next reminder change replaces it.
MIGRATION_6 = [
    """CREATE TABLE reminder_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('done', 'snooze', 'move', 'cancel', 'rename', 'forget', 'edit')),
        before TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
]

# Schema 7: each desktop notification of a reminder's occurrence, recorded before it is sent, so the
# app and the background notifier (or two notifiers) raise one notification per occurrence. An
# occurrence is the reminder at one due instant: a snooze or a done gives it a new one.
MIGRATION_7 = [
    """CREATE TABLE notified (
        memory_id INTEGER NOT NULL REFERENCES knowledge(id) ON DELETE CASCADE,
        occurrence_at TEXT NOT NULL,
        notified_at TEXT NOT NULL,
        by TEXT NOT NULL,
        PRIMARY KEY (memory_id, occurrence_at)
    ) WITHOUT ROWID""",
]



def _classify_sensitive(conn: Connection) -> None:
    """Mark what existing memories hold a secret, with the same detector every writer uses."""
    from memory.sensitive import is_sensitive

    rows = conn.execute("SELECT id, content FROM knowledge").fetchall()
    marked = [(row[0],) for row in rows if is_sensitive(row[1] or "")]
    conn.executemany("UPDATE knowledge SET sensitive = 1 WHERE id = ?", marked)


# Schema 8: sensitivity is decided when a memory is written (memory.sensitive), not guessed at each
# exit: a sensitive memory leaves the machine only as "[secret in memory #N]". Existing memories are
# classified here. A forgotten memory leaves a tombstone (its uid only, never its text), so importing
# an older export does not bring it back unless asked.
MIGRATION_8: list[Step] = [
    "ALTER TABLE knowledge ADD COLUMN sensitive INTEGER NOT NULL DEFAULT 0",
    _classify_sensitive,
    """CREATE TABLE forgotten (
        uid TEXT PRIMARY KEY,
        forgotten_at TEXT NOT NULL
    ) WITHOUT ROWID""",
]

# Schema 9: where a memory came from and whether the person pinned it. `source` is "typed" (the app, the
# CLI, a chat turn), "imported" (a file: JSON Lines, a calendar, a chat export) or "mcp:<client>" (another
# AI tool through the MCP server); the Memories screen filters on it and the app labels MCP writes. A
# pinned memory is never archived and never outranked by its own echoes.
MIGRATION_9 = [
    "ALTER TABLE knowledge ADD COLUMN source TEXT NOT NULL DEFAULT 'typed'",
    "ALTER TABLE knowledge ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0",
]

# Schema 10: the one change undo puts back is any memory's, not only a reminder's (memory.changes): a
# forgotten note, an edit, a memory just made by the app or another AI tool. The table loses the list of
# actions it checked (the module checks them) and its name says what it holds now.
MIGRATION_10 = [
    """CREATE TABLE memory_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        action TEXT NOT NULL,
        before TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "INSERT INTO memory_changes (id, memory_id, action, before, created_at) "
    "SELECT id, memory_id, action, before, created_at FROM reminder_changes",
    "DROP TABLE reminder_changes",
]

# Schema 11: a conversation closed with its quick title owes a model-written one (quit never waits for a
# model: the next process that has one writes it); and what went into each answer, recorded when the turn
# ran (the Why view): keyed by the answer's message, gone with it.
MIGRATION_11 = [
    "ALTER TABLE episodes ADD COLUMN needs_title INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX episodes_needs_title ON episodes(needs_title) WHERE needs_title = 1",
    """CREATE TABLE turn_records (
        message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        episode_id INTEGER,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
]

# Schema 12: history brought in from elsewhere (SPEC F13). Each import is a row of `imports`, and every row
# it added points at it (`import_id`), so the last import can be undone whole in one transaction; an
# interrupted one is continued by the next run of the same file. A message's place in the timeline is its
# rank in time (SPEC F3): typed messages arrive in order, imported history lands among them by its own
# time, so `position` is kept beside the id (renumbered after an import, memory.episodes.place_by_time).
# A tombstone keeps a hash of what it forgot (never the text), so an older file's copy under another uid
# stays forgotten too.
_IMPORTED_TABLES = ("episodes", "messages", "knowledge", "summaries")
MIGRATION_12: list[Step] = [
    """CREATE TABLE imports (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        format TEXT NOT NULL,
        source TEXT NOT NULL,
        fingerprint TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'interrupted', 'done', 'undone')),
        counts TEXT NOT NULL DEFAULT '{}',
        grown TEXT NOT NULL DEFAULT '{}'
    )""",
    *[f"ALTER TABLE {table} ADD COLUMN import_id INTEGER" for table in _IMPORTED_TABLES],
    *[f"CREATE INDEX {table}_import ON {table}(import_id) WHERE import_id IS NOT NULL" for table in _IMPORTED_TABLES],
    "ALTER TABLE messages ADD COLUMN position INTEGER",
    "CREATE INDEX messages_time ON messages(created_at, id)",
    "CREATE INDEX messages_position ON messages(position)",
    "UPDATE messages SET position = r.p FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS p "
    "FROM messages) AS r WHERE messages.id = r.id",
    "ALTER TABLE forgotten ADD COLUMN hash TEXT",
    "CREATE INDEX forgotten_hash ON forgotten(hash) WHERE hash IS NOT NULL",
]

# Schema 13: every request to a model reads the private and sensitive memories (the gate's
# withheld_candidates): a few rows, found by a scan of every memory without this index (170 ms a
# prompt at a million items, the largest part of it).
MIGRATION_13 = [
    "CREATE INDEX knowledge_withheld ON knowledge(id) WHERE private = 1 OR sensitive = 1",
]

# Schema 14: a memory's earlier texts, kept when its text is changed (the Memories screen shows them, newest
# first; forget takes them with the memory and undo puts them back). Indexes for the Memories screen's
# filters, each in the list's order (newest first), so a page of a rare kind, of pinned, secret or private
# memories, or of one source, reads that page and not the store (174 ms for the pinned of 100,000 without,
# under 1 ms with); the pinned one also serves every search (a pinned memory is never outranked by its own
# echoes); and what changed since a day began (the briefing's "memories that changed").
MIGRATION_14 = [
    """CREATE TABLE memory_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL REFERENCES knowledge(id) ON DELETE CASCADE,
        content TEXT NOT NULL,
        sensitive INTEGER NOT NULL DEFAULT 0,
        replaced_at TEXT NOT NULL
    )""",
    "CREATE INDEX memory_history_memory ON memory_history(memory_id, id)",
    *[f"CREATE INDEX knowledge_{flag} ON knowledge(created_at) WHERE {flag} = 1"
      for flag in ("pinned", "sensitive", "private")],
    "DROP INDEX knowledge_kind",  # (kind) is the prefix of (kind, created_at)
    "CREATE INDEX knowledge_kind_created ON knowledge(kind, created_at)",
    "CREATE INDEX knowledge_source ON knowledge(source, created_at)",
    "CREATE INDEX knowledge_updated ON knowledge(updated_at)",
]

# Schema 15: reminders kept in step with a CalDAV calendar (SPEC F15, memory.transfer.caldav). One row per
# to-do on the server: where it is (href), its UID, the reminder it is (kept after that reminder is forgotten
# here, until the to-do is deleted there), its ETag, what both sides last agreed on (its text only as a hash),
# and a version the triggers below move on at each change of what a to-do says (its text, due time, done,
# rule, private, secret) and when the reminder goes or comes back, beside the version a sync last compared:
# a sync with nothing changed reads no reminder, and a change made in the same second as a sync is still
# seen. What a sync did when both sides changed the same thing, until a front end has said so once. The
# calendar's address and sync token live in `meta`.
MIGRATION_15 = [
    """CREATE TABLE caldav_items (
        href TEXT PRIMARY KEY,
        uid TEXT NOT NULL,
        memory_id INTEGER UNIQUE,
        etag TEXT,
        base TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        compared INTEGER,
        synced_at TEXT NOT NULL
    )""",
    "CREATE INDEX caldav_items_uid ON caldav_items(uid)",
    """CREATE TRIGGER knowledge_caldav_update AFTER UPDATE OF content, due_at, done_at, private, recurrence, sensitive
        ON knowledge BEGIN UPDATE caldav_items SET version = version + 1 WHERE memory_id = new.id; END""",
    """CREATE TRIGGER knowledge_caldav_insert AFTER INSERT ON knowledge
        BEGIN UPDATE caldav_items SET version = version + 1 WHERE memory_id = new.id; END""",
    """CREATE TRIGGER knowledge_caldav_delete AFTER DELETE ON knowledge
        BEGIN UPDATE caldav_items SET version = version + 1 WHERE memory_id = old.id; END""",
    # What a sync looks at here, found without reading every row (a sync with nothing changed).
    "CREATE INDEX caldav_items_stale ON caldav_items(href) WHERE compared IS NOT version",
    """CREATE TABLE caldav_conflicts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        field TEXT NOT NULL,
        winner TEXT NOT NULL CHECK (winner IN ('here', 'server')),
        lost TEXT,
        at TEXT NOT NULL,
        said INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX caldav_conflicts_unsaid ON caldav_conflicts(id) WHERE said = 0",
]

MIGRATIONS: list[Sequence[Step]] = [MIGRATION_1, MIGRATION_2, MIGRATION_3, MIGRATION_4, MIGRATION_5,
                                    MIGRATION_6, MIGRATION_7, MIGRATION_8, MIGRATION_9, MIGRATION_10, MIGRATION_11,
                                    MIGRATION_12, MIGRATION_13, MIGRATION_14, MIGRATION_15]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: Connection, path: str = "") -> int:
    """Apply the migrations this file is missing, each in its own transaction; returns the version."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:

        name = f"the database {path}" if path else "the database"
        raise StoreUnusable(f"{name} is from a newer version (schema {version} > {SCHEMA_VERSION})", path, "newer")
    migrated = False
    for number in range(version + 1, SCHEMA_VERSION + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            if db.execute("PRAGMA user_version").fetchone()[0] >= number:
                db.execute("ROLLBACK")
                continue
            for statement in MIGRATIONS[number - 1]:
                if callable(statement):  # a step SQL alone cannot do
                    statement(db)
                else:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        migrated = True
    if migrated:
        fold_wal(db)
    return SCHEMA_VERSION


def fold_wal(db: Connection) -> None:
    """Copy the WAL into the file and empty it, now, if nobody reads (never waiting for a reader).

    A migration writes the WAL well past the store's own size (a new store: 531 KB of WAL for a 311 KB
    file), and only the last connection's close folded it in. On a small disk the store's WAL then held
    the room the file needed to grow into at that close: the checkpoint failed for want of room, the WAL
    stayed, and the disk was full of the store's own pages, with nothing a user could delete to make room
    (issue 46's small disk, filled by the store itself since the schema grew). Best effort: a reader in
    another process, or no room, leaves the WAL to the next checkpoint as before."""
    timeout = db.execute("PRAGMA busy_timeout").fetchone()[0]
    try:
        db.execute("PRAGMA busy_timeout = 0")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except DatabaseError:  # no room: the migration is committed either way
        pass
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(timeout)}")
