"""SPEC F9 at the edge: exit codes, one-line errors, --json shapes, fast start-up."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.cli.program import main
from tests.conftest import Cli, present

NOW = "2026-11-22T14:00:00+00:00"


def test_remember_and_list_json(cli: Cli) -> None:
    code, out, _ = cli("remember", "Call the plumber", "--due", "2026-11-25T10:00:00+00:00", "--json")
    memory = json.loads(out)
    assert code == 0 and memory["kind"] == "reminder" and memory["due_at"] == "2026-11-25T10:00:00+00:00"
    assert {"id", "kind", "content", "importance", "due_at", "reminded_at", "done_at", "created_at"} <= set(memory)
    code, out, _ = cli("reminders", "--json")
    [item] = json.loads(out)
    assert item["status"] == "due" and item["label"] == "[DUE Wed Nov 25 10:00]"


@pytest.mark.parametrize("args, fragment", [
    (("update", "987654", "--reminded", "now"), "no memory with id 987654"),
    (("snooze", "1", "when", "pigs", "fly"), "when pigs fly"),
    (("remember", "x", "--importance", "7"), "importance"),
    (("recap", "--hours", "-1"), "hours"),
    (("reminders", "--within-days", "abc"), "not a number"),
    (("frobnicate",), "invalid choice"),
    (("import", "/nonexistent/file.jsonl"), "cannot read"),
])
def test_bad_input_exit_2_one_line(cli: Cli, args: tuple[str, ...], fragment: str) -> None:
    cli("remember", "Book the vet", "--due", "2026-11-23T09:00:00+00:00")
    code, out, err = cli(*args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    code, out, _ = cli("export")
    assert [json.loads(line)["content"] for line in out.splitlines()] == ["Book the vet"]


def test_bad_now_and_bad_config(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = cli("reminders", now="yesterday-ish")
    assert code == 2 and "now" in err
    config = tmp_path / "c.toml"
    config.write_text("[prompt]\nmax_memory_tokens = 'lots'\n")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(config))
    code, _, err = cli("reminders")
    assert code == 2 and "prompt.max_memory_tokens" in err and str(config) in err


@pytest.mark.parametrize("now", ["", " "])
def test_an_empty_now_is_refused_like_a_bad_one(cli: Cli, now: str) -> None:
    """`--now ""` froze nothing and ran on the real clock (a tester); an empty ASSISTANT_NOW stays unset, as an empty
    ASSISTANT_DB does (tests/test_settings.py)."""
    cli("remember", "Book the vet", "--due", "2026-11-23T09:00:00+00:00")
    code, out, err = cli("remember", "Water the plants", "--due", "2026-11-24T09:00:00+00:00", now=now)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "now must be an ISO 8601 instant" in err and "Traceback" not in err
    assert [json.loads(line)["content"] for line in cli("export")[1].splitlines()] == ["Book the vet"]


def test_import_reports_line_and_changes_nothing(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"type": "memory", "content": "ok"}\n{"type": "memory", "content": "x", "importance": 0}\n')
    code, _, err = cli("import", str(src))
    assert code == 2 and "line 2" in err
    assert cli("export")[1] == ""


def test_export_import_via_files(cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli("remember", "Pay rent", "--due", "tomorrow at 9am")
    cli("remember", "Bins", "--due", "every Tuesday at 7pm")
    cli("remember", "Likes window seats", "--kind", "preference", "--private")
    cli("export", str(tmp_path / "out.jsonl"))
    db2 = str(tmp_path / "other.db")
    assert main(["import", str(tmp_path / "out.jsonl"), "--db", db2, "--now", NOW]) == 0
    capsys.readouterr()
    assert main(["export", "--db", db2, "--now", NOW]) == 0
    copied = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    original = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert copied == original  # the same records, uids, rules and all
    assert [(m["content"], m["due_at"], m["private"]) for m in copied] == [
        ("Pay rent", "2026-11-23T09:00:00+00:00", False), ("Bins", "2026-11-24T19:00:00+00:00", False),
        ("Likes window seats", None, True)]


def test_export_to_a_file_with_json_prints_one_object(cli: Cli, tmp_path: Path) -> None:
    """`--json export FILE` printed "Exported 2 records to ..." (a tester); JSON Lines to stdout stay the records."""
    cli("remember", "Pay rent", "--due", "tomorrow at 9am")
    cli("remember", "Likes window seats", "--kind", "preference")
    target, calendar = tmp_path / "out.jsonl", tmp_path / "reminders.ics"
    code, out, err = cli("--json", "export", str(target))
    assert (code, err) == (0, "") and json.loads(out) == {"exported": {"file": str(target), "records": 2}}
    code, out, err = cli("export", "--ics", str(calendar), "--json")
    assert (code, err) == (0, "") and json.loads(out) == {"exported": {"file": str(calendar), "reminders": 1}}
    code, out, _ = cli("export", "--json")
    assert code == 0 and [json.loads(line)["content"] for line in out.splitlines()] == ["Pay rent",
                                                                                       "Likes window seats"]
    code, out, err = cli("export", str(target))
    assert (code, out, err) == (0, "", f"Exported 2 records to {target}\n")


def test_recap_text_and_json(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "ep.jsonl"
    src.write_text(json.dumps({"type": "episode", "id": "e1", "title": "Ski Trip Planning", "summary": "Budget",
                               "outcome": "success", "started_at": "2026-11-22T13:00:00+00:00",
                               "ended_at": "2026-11-22T13:30:00+00:00"}) + "\n")
    cli("import", str(src))
    code, out, _ = cli("recap", "--json")
    [ep] = json.loads(out)
    assert {"id", "title", "summary", "outcome", "started_at", "ended_at"} <= set(ep)
    assert "[Nov 22 13:00] Ski Trip Planning" in cli("recap")[1]


def test_status_json(cli: Cli) -> None:
    cli("remember", "hello")
    data = json.loads(cli("status", "--json")[1])
    assert data["memories"] == 1 and data["schema_version"] >= 1 and data["timezone"] == "UTC"


LIGHT_COMMANDS = [["reminders"], ["done", "1"], ["recap"], ["status"], ["update", "1", "--reminded", "now"],
                  ["export"], ["remember", "x", "--due", "2026-12-01T09:00:00Z"]]
# numpy is not listed: sqlite-utils imports it when present (about 50 ms).
HEAVY = ("fastembed", "onnxruntime", "dateparser", "anthropic", "ollama", "openai", "sklearn", "textual")


@pytest.mark.slow
@pytest.mark.parametrize("args", LIGHT_COMMANDS, ids=lambda a: a[0])
def test_light_commands_import_nothing_heavy(tmp_path: Path, args: list[str]) -> None:
    db = str(tmp_path / "m.db")
    code = (
        "import sys\nfrom assistant.cli import main\n"
        f"main(['remember', 'seed', '--due', '2026-11-30T09:00:00Z', '--db', {db!r}, '--now', {NOW!r}])\n"
        f"code = main({args!r} + ['--db', {db!r}, '--now', {NOW!r}])\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(code, heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout + out.stderr


def test_database_file_is_private(tmp_path: Path, cli: Cli) -> None:
    cli("remember", "x")
    assert (tmp_path / "m.db").stat().st_mode & 0o777 == 0o600


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    script = ("import sys\nfrom assistant.cli import main\n"
              "for i in range(40):\n"
              f"    assert main(['remember', f'{{sys.argv[1]}} note {{i}}', '--db', {db!r}, '--now', {NOW!r}]) == 0\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, name], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for name in ("ui", "cli")]
    assert all(p.wait(timeout=120) == 0 for p in procs), [present(p.stderr).read() for p in procs]
    from memory.store import Store

    store = Store(db)
    contents = {r[0] for r in store.query("SELECT content FROM knowledge")}
    assert len(contents) == 80 and store.one("PRAGMA integrity_check")[0] == "ok"
    store.close()


def test_reminders_lists_mentioned_ones_too(cli: Cli) -> None:
    """`assistant reminders` is the user's list: a reminder the assistant mentioned stays in it."""
    code, out, _ = cli("remember", "Call the plumber", "--due", "2026-11-25T10:00:00+00:00", "--json")
    memory_id = json.loads(out)["id"]
    cli("update", str(memory_id), "--reminded", "now")
    code, out, _ = cli("reminders", "--json", now="2026-11-22T15:00:00+00:00")
    [item] = json.loads(out)
    assert item["id"] == memory_id and item["reminded_at"] == NOW
    code, out, _ = cli("reminders", now="2026-11-22T15:00:00+00:00")
    assert "Call the plumber" in out and "mentioned Sun Nov 22 14:00" in out


def test_repeating_reminder_from_the_cli(cli: Cli) -> None:
    code, out, _ = cli("remember", "Take out the bins", "--due", "every Tuesday at 7pm", "--json")
    memory = json.loads(out)
    assert code == 0 and memory["recurrence"]["rule"] == "FREQ=WEEKLY;BYDAY=TU"
    assert memory["recurrence"]["text"] == "every Tue" and memory["due_at"] == "2026-11-24T19:00:00+00:00"
    code, out, _ = cli("reminders")
    assert "[DUE Tue Nov 24 19:00, every Tue] Take out the bins" in out
    code, out, _ = cli("done", str(memory["id"]), now="2026-11-24T19:30:00+00:00")
    assert code == 0 and "next: Tue Dec 1 19:00 (every Tue)" in out
    code, out, _ = cli("reminders", "--json", now="2026-11-24T19:30:00+00:00")
    [item] = json.loads(out)
    assert item["due_at"] == "2026-12-01T19:00:00+00:00" and item["done_at"] is None


def test_calendar_export_and_import(cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli("remember", "Take out the bins", "--due", "every Tuesday at 7pm")
    cli("remember", "Dentist", "--due", "2026-11-25T10:00:00+00:00")
    target = tmp_path / "reminders.ics"
    code, _, err = cli("export", "--ics", str(target))
    assert code == 0 and "Exported 2 reminders" in err and oct(target.stat().st_mode & 0o777) == "0o600"
    assert target.read_text().startswith("BEGIN:VCALENDAR")
    code, out, _ = cli("export", "--ics", "-")
    assert code == 0 and out.count("BEGIN:VEVENT") == 2 and "RRULE:FREQ=WEEKLY;BYDAY=TU" in out
    db2 = str(tmp_path / "other.db")
    assert main(["import", str(target), "--db", db2, "--now", NOW]) == 0
    assert capsys.readouterr().out == "Imported 2 reminders.\n"
    code, out, _ = cli("import", str(target), "--json")  # the store that wrote it: nothing new
    assert code == 0 and json.loads(out)["imported"]["already_present"] == 2
    code, out, _ = cli("reminders")
    assert out.count("Take out the bins") == 1
    code, _, err = cli("export", "out.jsonl", "--ics", str(target))
    assert code == 2 and "not both" in err


def test_bad_calendar_exit_2_names_the_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "cal.ics"
    bad.write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@x\r\nSUMMARY:Good\r\n"
                   "DTSTART:20261201T090000Z\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:b@x\r\nSUMMARY:Bad\r\n"
                   "DTSTART:tomorrowish\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    code, out, err = cli("import", str(bad))
    assert code == 2 and "line 8" in err and "DTSTART" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    code, out, _ = cli("reminders", "--json")
    assert json.loads(out) == []  # the good event before it was not written either


def test_import_twice_says_nothing_was_new(cli: Cli, tmp_path: Path) -> None:
    src = tmp_path / "m.jsonl"
    src.write_text(json.dumps({"type": "memory", "kind": "fact", "content": "Likes skiing"}) + "\n")
    code, out, _ = cli("import", str(src))
    assert code == 0 and out.strip() == "Imported 1 memory."
    code, out, _ = cli("import", str(src))
    assert code == 0 and out.strip() == "Nothing new: the 1 record was already present."


@pytest.mark.parametrize("args", [
    ("done", "--", "99999999999999999999999"), ("done", "-5"), ("reminders", "--within-days", "nan"),
    ("reminders", "--within-days", "inf"), ("reminders", "--within-days", "10000000"), ("recap", "--hours", "nan"),
    ("recap", "--hours", "1e308"), ("remember", "x", "--due", "in 9999999999 hours"),
    ("remember", "x", "--due", "0001-01-01"), ("export", "/nonexistent/dir/x.jsonl"),
])
def test_absurd_arguments_exit_2_with_one_line(cli: Cli, tmp_path: Path, args: tuple[str, ...]) -> None:
    code, out, err = cli(*args)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "unexpected" not in err and "Traceback" not in err


def test_frozen_clock_out_of_range_exits_2(cli: Cli) -> None:
    code, _, err = cli("reminders", now="9999-12-31T23:59:59Z")
    assert code == 2 and "out of range" in err


def test_export_to_a_directory_leaves_nothing_behind(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "dir"
    target.mkdir()
    cli("remember", "something to export")
    code, _, err = cli("export", str(target))
    assert code == 2 and "directory" in err and list(tmp_path.glob("**/*.partial")) == []
    code, _, _ = cli("export", str(tmp_path / "ok.jsonl"))
    assert code == 0 and (tmp_path / "ok.jsonl").stat().st_mode & 0o777 == 0o600


def test_a_database_that_cannot_be_created_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["remember", "x", "--db", "/proc/x.db"]) == 2
    err = capsys.readouterr().err
    assert "cannot create the database /proc/x.db" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_no_terminal_no_tui(tmp_path: Path) -> None:
    """Issue 13: with stdin from /dev/null and output to a file the TUI spun at 85 % CPU."""
    exe = Path(sys.executable).with_name("assistant")
    out = subprocess.run([str(exe), "--db", str(tmp_path / "m.db")], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "needs a terminal" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_passed_conventional_time_is_due_at_once_and_said(cli: Cli) -> None:
    """Issue 22: "tonight" at 22:50 is kept (overdue, with the usual note); snooze follows the same rule."""
    late = "2026-11-22T22:50:00+00:00"
    code, out, err = cli("remember", "lock the car", "--due", "tonight", "--json", now=late)
    assert code == 0 and json.loads(out)["due_at"] == "2026-11-22T20:00:00+00:00"
    assert "Sun Nov 22 20:00 has already passed, so this reminder is overdue" in err
    cli("remember", "call mom", "--due", "2026-11-23T10:00:00Z", now=late)
    code, out, err = cli("snooze", "2", "this evening", "--json", now=late)
    assert code == 0 and json.loads(out)["due_at"] == "2026-11-22T18:00:00+00:00" and "already passed" in err
    code, _, err = cli("snooze", "2", "yesterday", "at", "3pm", now=late)
    assert code == 2 and "has already passed" in err and err.count("\n") == 1


def test_a_day_without_a_time_uses_the_configured_default_time(cli: Cli, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    late = "2026-11-22T23:18:00+00:00"
    code, out, _ = cli("remember", "bring the laptop charger", "--due", "tomorrow", "--json", now=late)
    assert json.loads(out)["due_at"] == "2026-11-23T09:00:00+00:00"
    code, out, _ = cli("remember", "renew", "--due", "every year on January 10", "--json", now=late)
    assert json.loads(out)["due_at"] == "2027-01-10T09:00:00+00:00"
    config = tmp_path / "config.toml"
    config.write_text('[reminders]\ndefault_time = "07:30"\n')
    code, out, _ = cli("remember", "water the plants", "--due", "on friday", "--json", "--config", str(config),
                       now=late)
    assert code == 0 and json.loads(out)["due_at"] == "2026-11-27T07:30:00+00:00"
    monkeypatch.setenv("ASSISTANT_REMINDERS__DEFAULT_TIME", "25:00")
    code, _, err = cli("reminders", now=late)
    assert code == 2 and "reminders.default_time" in err and err.count("\n") == 1


@pytest.mark.parametrize("due, why", [("tomorrow at 12:99", "no such time of day"),
                                      ("tomorrow at 111:00", "no such time of day"),
                                      ("tomorrow " * 5000, "longer than 200 characters"),
                                      ("every every every day", "said twice")])
def test_impossible_or_endless_due_phrases_are_one_line_naming_the_phrase(cli: Cli, due: str, why: str) -> None:
    code, _, err = cli("remember", "x", "--due", due)
    assert code == 2 and why in err and err.count("\n") == 1 and due[:20] in err
    assert cli("reminders", "--json")[1].strip() == "[]"


def test_remember_takes_its_words_unquoted_as_recall_does(cli: Cli) -> None:
    """Issue 46: `assistant remember buy milk` said "unrecognized arguments: milk" while `recall door code`
    took both words; the words are one text, with options before or after them."""
    code, out, err = cli("remember", "buy", "milk", "--json")
    assert code == 0 and json.loads(out)["content"] == "buy milk", err
    code, out, _ = cli("remember", "--due", "2026-11-23T10:00:00Z", "call", "the", "plumber", "--json")
    assert code == 0 and json.loads(out)["content"] == "call the plumber"
    code, _, err = cli("remember", "--kind", "note")
    assert code == 2 and "text" in err and err.count("\n") == 1


def test_a_passed_due_date_is_saved_and_said_plainly_not_as_a_refusal(cli: Cli) -> None:
    """Issue 46: `remember --due yesterday` saved the reminder (exit 0) with a note that read as a refusal
    ("--allow-past says you meant it"). It is saved, overdue at once, and the line says exactly that."""
    code, out, err = cli("remember", "water", "the", "ferns", "--due", "yesterday")
    assert code == 0 and err == ""
    assert out.strip() == "Remembered #1 reminder: water the ferns (due Sat Nov 21 09:00, which has passed: it is " \
                          "overdue now)"
    assert "allow-past" not in out + err
    code, out, err = cli("reminders")
    assert out.startswith("#1 [OVERDUE Sat Nov 21 09:00] water the ferns")
    # --json: the data on stdout, the usual note on stderr, worded as what happened
    code, out, err = cli("remember", "renew the lease", "--due", "2026-11-01T09:00:00Z", "--json")
    assert code == 0 and json.loads(out)["due_at"] == "2026-11-01T09:00:00+00:00"
    assert err.strip() == "assistant: note: Sun Nov 1 09:00 has already passed, so this reminder is overdue"
    code, out, err = cli("update", "2", "--due", "2026-11-02T09:00:00Z")
    assert code == 0 and "(due Mon Nov 2 09:00, which has passed: it is overdue now)" in out and err == ""
    code, out, err = cli("remember", "a date to log", "--due", "2026-11-03T09:00:00Z", "--allow-past", "--json")
    assert code == 0 and err == ""  # said you meant it: nothing to note
    code, out, _ = cli("remember", "call mom", "--due", "tomorrow at 9")
    assert out.strip() == "Remembered #4 reminder: call mom (due Mon Nov 23 09:00)"


@pytest.mark.parametrize("args", [("remember", "pay the rent", "--due", ""),
                                  ("remember", "pay the rent", "--due", "", "--kind", "reminder"),
                                  ("remember", "pay the rent", "--due", "   "),
                                  ("update", "1", "--due", ""), ("update", "1", "--due", "", "--content", "rent"),
                                  ("snooze", "1", ""), ("snooze", "1", "  ")])
def test_an_empty_due_date_is_refused_like_an_unreadable_one(cli: Cli, args: tuple[str, ...]) -> None:
    """A tester's `remember "pay the rent" --due ""` stored a note with no date (with --kind reminder, a
    reminder that never fires), though `--due "   "` was refused: the memory layer takes "" for "no date"."""
    now = "2026-12-06T10:00:00+00:00"
    cli("remember", "Book the vet", "--due", "2026-12-07T09:00:00+00:00", now=now)
    before = cli("export", now=now)[1]
    code, _, err = cli(*args, now=now)
    assert code == 2 and "could not understand the date" in err and err.count("\n") == 1
    assert cli("export", now=now)[1] == before


@pytest.mark.parametrize("argv", [("recall", "-locker"), ("remember", "-xyz")])
def test_text_that_starts_with_a_dash_is_told_how_to_give_it(cli: Cli, argv: tuple[str, ...]) -> None:
    """An attacker's: `assistant recall '-locker'` said only that a query is required."""
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"put -- before it: assistant {argv[0]} -- {argv[1]}" in err, err
    code, out, err = cli(argv[0], "--", argv[1])
    assert code == 0, err
