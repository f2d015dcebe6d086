"""Issue 13: fuzzing the edges people type into. Whatever the arguments or the import file, the
CLI exits 0, 1 or 2 with at most one line on stderr, never an "unexpected error"; valid records
round-trip; an invalid one is reported by line and changes nothing."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.cli.program import main
from memory.store import Store
from memory.transfer.jsonl_export import export_records
from memory.transfer.jsonl_import import import_records
from tests.conftest import T0

if TYPE_CHECKING:
    from memory.time.clock import Clock

COMMANDS = ["remember", "reminders", "update", "done", "snooze", "forget", "recap", "prompt", "status", "tiers",
            "edges", "import", "export", "doctor", "chat"]
FLAGS = ["--due", "--kind", "--importance", "--within-days", "--hours", "--limit", "--reminded", "--content",
         "--mode", "--outcome", "--query", "--json", "--allow-past", "--private", "--now"]
nasty = st.one_of(st.text(max_size=30), st.sampled_from([
    "nan", "inf", "-inf", "1e308", "-1", "0", "99999999999999999999999", "9999-12-31T23:59:59Z", "0001-01-01",
    "in 9999999999 hours", "every blue moon", "tomorrow at 25:00", "\x1b[2J", "/proc/x", "", " ", "#12", "--",
    "2026-13-45", "every day at 8", "12:45", "at 5"]))
argv = st.tuples(st.sampled_from(COMMANDS), st.lists(st.one_of(st.sampled_from(FLAGS), nasty), max_size=5))


@pytest.fixture(scope="module")
def fuzz_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("fuzz") / "f.db")


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=argv)
def test_cli_never_crashes(fuzz_db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                           args: tuple[str, list[str]]) -> None:
    monkeypatch.setenv("ASSISTANT_EMBEDDING_MODEL", "none")
    monkeypatch.chdir(Path(fuzz_db).parent)  # `export <random name>` writes where it runs, never in the repo
    command, rest = args
    code = main([command, *rest, "--db", fuzz_db, "--now", T0.isoformat()])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (args, err)
    assert "unexpected error" not in err and "Traceback" not in err, (args, err)
    if code == 2:
        assert len(err.strip().splitlines()) == 1, (args, err)
    assert "\x1b" not in out + err


text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=40).filter(str.strip)
instant = st.datetimes(min_value=__import__("datetime").datetime(1971, 1, 1),
                       max_value=__import__("datetime").datetime(2199, 1, 1)).map(lambda d: d.isoformat() + "+00:00")
memory_record = st.fixed_dictionaries({
    "type": st.just("memory"), "content": text,
    "kind": st.sampled_from(["fact", "note", "event", "decision", "preference", "person", "mood"]),
    "importance": st.integers(1, 5), "private": st.booleans(), "created_at": instant,
}, optional={"due_at": instant, "trust": st.integers(0, 10), "relation": text})


@pytest.mark.slow
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(memory_record, min_size=1, max_size=8))
def test_valid_records_round_trip(tmp_path_factory: pytest.TempPathFactory, clock: Clock,
                                  records: list[dict[str, Any]]) -> None:
    folder = tmp_path_factory.mktemp("rt")
    with Store(folder / "a.db", clock) as first, Store(folder / "b.db", clock) as second:
        import_records(first, [json.dumps(r) for r in records])
        exported = list(export_records(first))
        import_records(second, [json.dumps(r) for r in exported])
        again = list(export_records(second))
        assert [(r["content"], r["kind"], r["importance"], r["private"], r["created_at"], r.get("due_at"))
                for r in again] == [(r["content"], r["kind"], r["importance"], r["private"], r["created_at"],
                                     r.get("due_at")) for r in exported]
        assert [r["content"] for r in exported] == [r["content"].strip() for r in records]


bad_field = st.sampled_from([
    ("importance", 9), ("importance", "high"), ("kind", "wish"), ("content", ""), ("content", 42),
    ("due_at", "someday"), ("due_at", "0001-01-01"), ("created_at", "9999-12-31T00:00:00Z"), ("trust", 11),
    ("message_ids", "1,2"), ("tier", "lukewarm"), ("recurrence", {"rule": "FREQ=OFTEN"}),
])


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(good=st.lists(memory_record, min_size=1, max_size=5), bad=bad_field, position=st.integers(0, 5))
def test_an_invalid_record_names_its_line_and_changes_nothing(tmp_path_factory: pytest.TempPathFactory,
                                                              capsys: pytest.CaptureFixture[str],
                                                              good: list[dict[str, Any]], bad: tuple[str, object],
                                                              position: int) -> None:
    folder = tmp_path_factory.mktemp("bad")
    lines = [json.dumps(r) for r in good]
    broken = dict(good[0], **{bad[0]: bad[1]})
    position = min(position, len(lines))
    lines.insert(position, json.dumps(broken))
    src = folder / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    db = str(folder / "c.db")
    assert main(["import", str(src), "--db", db, "--now", T0.isoformat()]) == 2
    err = capsys.readouterr().err
    assert f"line {position + 1}:" in err and len(err.strip().splitlines()) == 1
    main(["status", "--json", "--db", db])
    assert json.loads(capsys.readouterr().out)["memories"] == 0
