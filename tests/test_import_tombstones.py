"""Issue 35, item 4: exports carry tombstones, and no import brings a forgotten memory back, from any file,
in any order, unless --restore-forgotten (SPEC F9)."""
from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory.store import Store

if TYPE_CHECKING:
    from tests.conftest import Cli

pytestmark = pytest.mark.usefixtures("keywords_only")


def contents(db: str) -> list[str]:
    with Store(db) as store:
        return [r[0] for r in store.query("SELECT content FROM knowledge ORDER BY id")]


def everything_said(db: str) -> str:
    with Store(db) as store:
        return " ".join(r[0] for r in store.query("SELECT content FROM messages UNION ALL SELECT content FROM "
                                                  "knowledge UNION ALL SELECT coalesce(title, '') FROM episodes"))


@pytest.fixture
def history(cli: Cli, tmp_path: Path) -> tuple[Path, Path, str]:
    """A store with four memories, an older backup of it, then two of them forgotten and a newer export."""
    cli("chat", "remember that the safe combination is 31-7-22")
    cli("remember", "Tom owes me 20 euros")
    cli("remember", "the boiler is serviced in March")
    cli("remember", "water the plants", "--due", "tomorrow 9am")
    older = tmp_path / "older.jsonl"
    assert cli("export", str(older))[0] == 0
    ids = {c: i for i, c in enumerate(contents(cli.db), start=1)}
    cli("forget", str(ids["Tom owes me 20 euros"]))
    combination = next(c for c in ids if "safe combination" in c)
    cli("forget", str(ids[combination]))
    newer = tmp_path / "newer.jsonl"
    assert cli("export", str(newer))[0] == 0
    return older, newer, combination


def test_an_export_carries_tombstones_and_never_the_forgotten_text(history: tuple[Path, Path, str]) -> None:
    _, newer, combination = history
    text = newer.read_text()
    tombstones = [json.loads(line) for line in text.splitlines() if '"forgotten"' in line]
    assert len(tombstones) == 2 and all(set(t) == {"type", "uid", "hash", "forgotten_at"} for t in tombstones)
    assert all(t["type"] == "forgotten" and t["hash"].startswith("pbkdf2-sha256:") for t in tombstones)
    assert "Tom owes" not in text and "31-7-22" not in text and combination not in text


@pytest.mark.parametrize("order", ["newer first", "older first"])
def test_nothing_forgotten_comes_back_from_an_older_backup_in_either_order(cli: Cli, tmp_path: Path,
                                                                           history: tuple[Path, Path, str],
                                                                           order: str) -> None:
    older, newer, combination = history
    fresh = str(tmp_path / "fresh.db")
    files = [newer, older] if order == "newer first" else [older, newer]
    outputs = [cli("import", str(path), db=fresh) for path in files]
    assert all(code == 0 for code, _, _ in outputs)
    assert contents(fresh) == ["the boiler is serviced in March", "water the plants"]
    said = everything_said(fresh)
    assert "Tom owes" not in said and "31-7-22" not in said  # neither the memory nor its words in its turn
    assert "2 forgotten memories stayed out (a tombstone names them; --restore-forgotten" in outputs[1][1]
    # And again, any number of times.
    cli("import", str(older), db=fresh)
    assert contents(fresh) == ["the boiler is serviced in March", "water the plants"]


def test_restore_forgotten_is_the_one_way_back(cli: Cli, tmp_path: Path, history: tuple[Path, Path, str]) -> None:
    older, newer, _ = history
    fresh = str(tmp_path / "fresh.db")
    cli("import", str(newer), db=fresh)
    code, out, _ = cli("import", str(older), "--restore-forgotten", db=fresh)
    assert code == 0 and "Tom owes me 20 euros" in contents(fresh)
    with Store(fresh) as store:
        assert store.one("SELECT count(*) FROM forgotten")[0] == 0


def test_the_doctors_recovery_keeps_tombstones(cli: Cli, tmp_path: Path, history: tuple[Path, Path, str]) -> None:
    """Recovery is export, then import into a new store: the new store still refuses an older backup."""
    older, _, _ = history
    saved = tmp_path / "saved.jsonl"
    cli("export", str(saved))
    recovered = str(tmp_path / "recovered.db")
    cli("import", str(saved), db=recovered)
    with Store(recovered) as store:
        assert store.one("SELECT count(*) FROM forgotten")[0] == 2
    cli("import", str(older), db=recovered)
    assert "Tom owes me 20 euros" not in contents(recovered)
    # ...and its own export carries them on.
    again = tmp_path / "again.jsonl"
    cli("export", str(again), db=recovered)
    assert again.read_text().count('"type": "forgotten"') == 2


def test_a_hand_written_copy_without_a_uid_is_known_by_its_hash(cli: Cli, tmp_path: Path,
                                                                history: tuple[Path, Path, str]) -> None:
    _, newer, _ = history
    fresh = str(tmp_path / "fresh.db")
    cli("import", str(newer), db=fresh)
    hand = tmp_path / "hand.jsonl"
    hand.write_text(json.dumps({"type": "memory", "content": "Tom  owes me 20 EUROS", "importance": 4}) + "\n"
                    + json.dumps({"type": "memory", "content": "Tom owes me 30 euros"}) + "\n")
    code, out, _ = cli("import", str(hand), db=fresh)
    assert code == 0 and "1 forgotten memory stayed out" in out
    assert "Tom owes me 30 euros" in contents(fresh) and "Tom  owes me 20 EUROS" not in contents(fresh)


def test_a_tombstone_in_a_file_forgets_the_memory_here(cli: Cli, tmp_path: Path) -> None:
    """A forget made in another copy of the store, read from its export, is a forget here too."""
    cli("remember", "the spare key is under the mat")
    cli("remember", "the gym opens at 6")
    export = tmp_path / "a.jsonl"
    cli("export", str(export))
    other = str(tmp_path / "other.db")
    cli("import", str(export), db=other)
    cli("forget", "1", db=other)
    forgotten = tmp_path / "b.jsonl"
    cli("export", str(forgotten), db=other)
    tombstones = "".join(line for line in forgotten.read_text().splitlines(keepends=True) if '"forgotten"' in line)
    only = tmp_path / "tombstones.jsonl"
    only.write_text(tombstones)
    code, out, _ = cli("import", str(only))
    assert code == 0 and contents(cli.db) == ["the gym opens at 6"]


def test_dry_run_of_json_lines_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"type": "memory", "content": "the attic key is blue"}) + "\n")
    cli("status")
    code, out, _ = cli("import", str(path), "--dry-run")
    assert code == 0 and out.startswith("Would import 1 memory.") and "Nothing was written" in out
    assert contents(cli.db) == []
    with Store(cli.db) as store:
        assert store.one("SELECT count(*) FROM imports")[0] == 0
    assert Path(cli.db).exists()


def test_a_forgotten_memory_edited_by_hand_in_an_older_export_stays_forgotten(cli: Cli, tmp_path: Path) -> None:
    """Issue 46: a forgotten memory, a private one among them, came back from an older export edited by hand:
    its uid removed and its text in decomposed Unicode, or given a new uid. A tombstone also knows the text
    by the hash of its normalized form (NFKC, case, white space): never by the text itself."""
    cli("remember", "Amélie sees Dr Weiß on Mondays", "--private")
    cli("remember", "the boiler is serviced in March")
    older = tmp_path / "older.jsonl"
    assert cli("export", str(older))[0] == 0
    assert cli("forget", "1")[0] == 0
    records = [json.loads(line) for line in older.read_text().splitlines()]
    private = next(r for r in records if r.get("private"))
    no_uid = {k: v for k, v in private.items() if k not in ("uid", "id")}
    no_uid["content"] = unicodedata.normalize("NFD", "Amélie sees Dr Weiß on Mondays")
    assert no_uid["content"] != private["content"]
    new_uid = {**private, "uid": "hand-edited-1", "id": 71, "content": "AMÉLIE  sees Dr WEISS on Mondays"}
    # The same words said again after the forget are not the forgotten memory: they are imported.
    said_again = {**private, "uid": "hand-edited-2", "id": 72, "created_at": "2026-11-30T10:00:00+00:00"}
    for edited in (no_uid, new_uid):
        path = tmp_path / "edited.jsonl"
        path.write_text(json.dumps(edited) + "\n")
        code, out, err = cli("import", str(path))
        assert code == 0 and "1 forgotten memory stayed out" in out, (edited, out, err)
        assert contents(cli.db) == ["the boiler is serviced in March"]
    fresh = str(tmp_path / "fresh.db")  # a store that knows the forget only from an export's tombstone
    newer = tmp_path / "newer.jsonl"
    cli("export", str(newer))
    cli("import", str(newer), db=fresh)
    path = tmp_path / "both.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (no_uid, new_uid, said_again)))
    code, out, _ = cli("import", str(path), db=fresh)
    assert code == 0 and "2 forgotten memories stayed out" in out
    assert contents(fresh) == ["the boiler is serviced in March", "Amélie sees Dr Weiß on Mondays"]


def test_the_tombstone_hash_is_of_the_normalized_text_and_keeps_older_tombstones_working() -> None:
    from memory.tombstones import content_hash, content_hashes

    text = "Amélie sees Dr Weiß on Mondays"
    assert content_hash(unicodedata.normalize("NFD", text.upper())) == content_hash(f"  {text}\n") == \
        content_hash("AMÉLIE SEES DR WEISS ON MONDAYS") == content_hash("Ａmélie sees Dr Weiß on Mondays")
    assert content_hash(text) != content_hash("Amélie sees Dr Weiß on Tuesdays")
    assert text not in content_hash(text)
    # A tombstone written before (white space and case folded only) still matches the text it was made of.
    legacy = "pbkdf2-sha256:" + hashlib.pbkdf2_hmac("sha256", " ".join(text.split()).casefold().encode(),
                                                    b"assistant forgotten memory v1", 50_000).hex()[:40]
    assert legacy in content_hashes(text) and content_hash(text) in content_hashes(text)
