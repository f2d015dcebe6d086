"""A full disk (SPEC 5, data): a write that fails is said as it is and nothing of it is kept, reads still
work, the CLI says it in one line and exits 1. The store's own limit on its size (PRAGMA max_page_count on
its connection) makes SQLite refuse a write exactly as a full disk does (SQLITE_FULL)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memory import episodes, memories
from memory.errors import DiskFull, StoreUnusable
from memory.search import Searcher
from memory.store import Store

if TYPE_CHECKING:
    from memory.connection import Connection, Cursor
    from memory.store import Store
    from tests.known_texts import KnownTexts


def fill(store: Store) -> None:
    """No page more for this connection: the next write that needs one is refused as on a full disk."""
    store.execute(f"PRAGMA max_page_count = {store.one('PRAGMA page_count')[0]}")


def room(store: Store) -> None:
    store.execute("PRAGMA max_page_count = 1073741823")


def test_a_refused_write_keeps_nothing_and_says_so(store: Store) -> None:
    episode = episodes.open_episode(store)
    fill(store)
    with pytest.raises(DiskFull, match="is full: nothing was saved"):
        episodes.add_message(store, episode.id, "user", "a long message " * 20_000)
    assert store.one("SELECT count(*) FROM messages")[0] == 0
    room(store)
    episodes.add_message(store, episode.id, "user", "a long message " * 20_000)
    assert store.one("SELECT count(*) FROM messages")[0] == 1


@pytest.mark.slow  # it writes and embeds a store's worth of statements first (18 s)
def test_a_search_answers_on_a_full_disk_and_skips_its_bookkeeping(store: Store, known_texts: KnownTexts) -> None:
    texts = [f"the garage door code number {n} is written " + "x" * 3000 for n in range(40)]
    known_texts.learn_statements(texts)  # the bundled model's vectors of them, made ahead
    for text in texts:
        memories.remember(store, text, embedder=known_texts)
    fill(store)
    hits = Searcher(store, None).search("garage door code", limit=5, touch=True)
    assert hits  # found, though counting them as used found no room


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB filesystem of its own (root may mount one); skipped where mounting is not allowed."""
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root and mount")
    where = tmp_path / "disk"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", f"tmpfs-{uuid.uuid4().hex[:6]}", str(where)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()[:80]})")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.slow
def test_the_cli_on_a_full_disk_writes_nothing_says_one_line_and_reads_still_work(small_disk: Path) -> None:
    exe = Path(sys.executable).parent / "assistant"
    db = small_disk / "m.db"
    env = {**os.environ, "ASSISTANT_NOW": "2026-11-22T14:00:00Z", "ASSISTANT_TIMEZONE": "UTC",
           "ASSISTANT_EMBEDDING_MODEL": "none"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(exe), *args, "--db", str(db)], capture_output=True, text=True, env=env)

    assert cli("remember", "the gate code is 5521").returncode == 0
    with (small_disk / "filler").open("wb") as filler:  # the disk fills up with something else
        try:
            while True:
                filler.write(b"\0" * 65536)
        except OSError:
            pass
    refused = cli("remember", "the bike lock code is 3719 " + "y" * 30_000)
    assert refused.returncode == 1 and refused.stdout == ""
    said = refused.stderr.strip().splitlines()
    assert len(said) == 1 and "full" in said[0] and "Traceback" not in refused.stderr
    found = cli("recall", "gate code")
    assert found.returncode == 0 and "5521" in found.stdout
    assert "3719" not in cli("recall", "bike lock").stdout


def fill_disk(folder: Path) -> Path:
    """Write zeros into `folder` until its disk refuses more (ENOSPC); returns the file."""
    filler = folder / "filler"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    return filler


def test_a_store_opened_on_a_full_small_disk_writes_again_once_there_is_room(small_disk: Path) -> None:
    """Issue 46: on a volume under 4 MB the store took the disk for full for ever (less than 4 MB free
    meant full), so after room was made it never wrote again. Whether there is room is tried for real."""
    db = small_disk / "m.db"
    with Store(db) as store:
        memories.remember(store, "the gate code is 5521")
    filler = fill_disk(small_disk)
    store = Store(db)
    assert store.full  # no room for its working files: opened for reading
    assert [m.content for m in memories.matching(store, ["gate"])] == ["the gate code is 5521"]
    with pytest.raises(DiskFull):
        memories.remember(store, "the bike lock code is 3719")
    filler.unlink()
    memories.remember(store, "the bike lock code is 3719")  # room again: written
    assert not store.full
    assert [m.content for m in memories.matching(store, ["bike"])] == ["the bike lock code is 3719"]
    store.close()


def test_a_migration_leaves_no_wal_behind_it(tmp_path: Path) -> None:
    """A migration's WAL outgrows the store (531 KB for a new 311 KB store): kept until the close, it held on
    a small disk the room that close needed to fold it in, and the store itself filled the disk. It is
    folded into the file as soon as the migration is done."""
    with Store(tmp_path / "m.db") as store:
        assert os.path.getsize(tmp_path / "m.db-wal") == 0
        memories.remember(store, "the gate code is 5521")  # and the store writes on as before
        assert [m.content for m in memories.matching(store, ["gate"])] == ["the gate code is 5521"]


def test_a_damaged_store_on_a_small_disk_with_room_is_not_taken_for_a_full_one(small_disk: Path) -> None:
    """Less than 4 MB free is not a full disk: an open that fails for another reason says so."""
    db = small_disk / "m.db"
    with Store(db) as store:
        memories.remember(store, "the gate code is 5521")
    with open(db, "r+b") as handle:  # the schema page overwritten: nothing can be read
        handle.seek(100)
        handle.write(b"\xde\xad" * 1500)
    with pytest.raises(StoreUnusable, match="cannot be read"):
        Store(db)


class _InterruptedAfter:
    """The store's connection, with Ctrl+C landing just after one statement ran (as a signal may)."""

    def __init__(self, conn: Connection, statement: str) -> None:
        self._conn, self._statement = conn, statement

    def execute(self, sql: str, *args: Any) -> Cursor:
        cursor = self._conn.execute(sql, *args)
        if sql == self._statement:
            raise KeyboardInterrupt
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@pytest.mark.parametrize("statement", ["BEGIN IMMEDIATE", "COMMIT"])
def test_ctrl_c_at_either_end_of_a_transaction_leaves_the_store_usable(store: Store, statement: str) -> None:
    """Seen when an import was interrupted: the next write said "cannot start a transaction within a
    transaction" and the import could not even record that it had been interrupted."""
    real = store._conn
    store._conn = _InterruptedAfter(real, statement)  # type: ignore[assignment]  # stands in for the connection
    with pytest.raises(KeyboardInterrupt), store.transaction():
        store.execute("INSERT INTO meta (key, value) VALUES ('probe', '1')")
    store._conn = real
    assert not real.in_transaction
    memories.remember(store, "written after the interrupt")  # the next write works
    assert [m.content for m in memories.matching(store, ["interrupt"])] == ["written after the interrupt"]
