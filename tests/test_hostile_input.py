"""Hostile input at the edges: every case gets one clear line (exit 2 for bad input, 1 for a file that
cannot be used), never a traceback, and the store is left as it was."""
from __future__ import annotations

import json
import os
import stat
import sys
from datetime import datetime
from pathlib import Path

import pytest

from assistant.cli.program import main
from memory.errors import InvalidInput
from memory.time.zones import posix_zone, system_zone, zone_name
from tests.conftest import Cli, present

NOW = "2026-11-22T14:00:00+00:00"


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("assistant: ") and "Traceback" not in err


def test_arguments_that_are_not_utf8_are_refused_naming_which(cli: Cli) -> None:
    code, _, err = cli("remember", "hello \udcff")
    assert code == 2 and one_line(err) and "argument 2 is not valid UTF-8" in err
    assert not os.path.exists(cli.db)  # nothing written: not even a store


def test_an_offset_too_large_for_a_duration_is_refused(cli: Cli) -> None:
    for phrase in ("in 99999999999 hours", "in 1e308 minutes"):
        code, _, err = cli("remember", "x", "--due", phrase)
        assert code == 2 and one_line(err) and "could not understand the date" in err


def test_empty_paths_name_no_file(cli: Cli) -> None:
    code, _, err = cli("status", db="")
    assert code == 2 and one_line(err) and "empty path" in err


@pytest.mark.parametrize("host", ["http://[::1", "localhost:99999", "ftp://example.com", "http://",
                                  "127.0.0.1:11434\n", "http://127.0.0.1:11434/\r\nX-Forged: 1", "http://127.0.0.1:\t11434",
                                  "http://127.0.0.1:11434\x1b[2J", "http://local host:11434"])
def test_an_unusable_ollama_address_is_a_settings_error(cli: Cli, monkeypatch: pytest.MonkeyPatch, host: str) -> None:
    monkeypatch.setenv("OLLAMA_HOST", host)
    code, _, err = cli("status")
    assert code == 2 and one_line(err) and "ollama.host" in err and "\x1b" not in err
    assert cli("consolidate")[0] == 2  # issue 20: a line break got through and forged a line of its report


def test_a_full_disk_is_reported_not_a_silent_success(cli: Cli) -> None:
    cli("remember", "keep this")
    pid = os.fork()
    if pid == 0:  # the child writes to /dev/full, as `assistant export > /dev/full` would
        fd = os.open("/dev/full", os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        os._exit(main(["export", "--db", cli.db, "--now", NOW]))
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 1


# -- import files ------------------------------------------------------------------------------

def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("body, why", [
    ('{"a":' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"type":"memory","id":1,"content":"a\\udcff"}', "lone surrogate"),
    ('{"type":"memory","id":1,"content":"a","private":"no"}', "private must be true or false"),
    ('{"type":"memory","id":1,"content":"a"}\n{"type":"memory","id":1,"content":"b"}', "appears twice"),
])
def test_bad_jsonl_is_refused_and_nothing_is_imported(cli: Cli, tmp_path: Path, body: str, why: str) -> None:
    cli("remember", "before")
    code, _, err = cli("import", write(tmp_path, "bad.jsonl", body + "\n"))
    assert code == 2 and one_line(err) and why in err and "nothing was imported" in err
    code, out, _ = cli("export")
    assert [json.loads(line)["content"] for line in out.splitlines() if '"memory"' in line] == ["before"]


def test_an_escaped_emoji_is_text_not_a_surrogate(cli: Cli, tmp_path: Path) -> None:
    code, _, err = cli("import", write(tmp_path, "ok.jsonl", '{"type":"memory","content":"party \\ud83c\\udf89"}\n'))
    assert code == 0, err
    records = [json.loads(line) for line in cli("export")[1].splitlines()]
    assert [r["content"] for r in records if r["type"] == "memory"] == ["party \U0001f389"]


def test_devices_folders_and_endless_lines_are_not_imported(cli: Cli, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for path in ("/dev/zero", str(tmp_path)):
        code, _, err = cli("import", path)
        assert code == 2 and one_line(err) and "not a regular file" in err
    import assistant.cli.data

    monkeypatch.setattr(assistant.cli.data, "IMPORT_LINE_LIMIT", 1000)
    code, _, err = cli("import", write(tmp_path, "long.jsonl", "x" * 5000))
    assert code == 2 and one_line(err) and "longer than" in err


def test_a_calendar_date_outside_the_kept_years_is_refused(cli: Cli, tmp_path: Path) -> None:
    ics = ("BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTODO\nUID:x\nSUMMARY:far\nDUE:99991231T000000Z\n"
           "END:VTODO\nEND:VCALENDAR\n")
    code, _, err = cli("import", write(tmp_path, "far.ics", ics))
    assert code == 2 and one_line(err) and "out of range" in err
    assert json.loads(cli("reminders", "--json")[1]) == []


# -- database files ----------------------------------------------------------------------------

def test_paths_that_are_not_stores_are_refused_before_sqlite_opens_them(cli: Cli, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = tmp_path / "notes.txt"
    text.write_text("my shopping list\n")
    for path, why in ((str(fifo), "not a regular file"), (str(tmp_path), "not a regular file"),
                      ("/dev/null", "not a regular file"), (str(text), "not an SQLite file")):
        code, _, err = cli("reminders", db=path)
        assert code == 2 and one_line(err) and why in err, (path, err)
    assert text.read_text() == "my shopping list\n"


READING = [("status",), ("doctor",), ("reminders",), ("recall", "plumber"), ("recap",), ("briefing",), ("prompt",),
           ("tiers",), ("edges", "1"), ("export",), ("export", "--ics", "-"), ("chat", "hi", "--incognito"),
           ("done", "1"), ("undo",), ("index",), ("consolidate",), ("mcp", "--read-only")]


@pytest.mark.parametrize("args", READING, ids=lambda a: " ".join(a))
def test_a_mistyped_store_path_makes_no_store_and_no_folder_for_a_command_that_reads(cli: Cli, tmp_path: Path,
                                                                                     args: tuple[str, ...]) -> None:
    """A command that works on what a store holds, given a path with no store, said so in one line: it
    used to create the store and every missing folder (`--db /nonexistent/dir/x.db` as root made /nonexistent)."""
    db = tmp_path / "x" / "missing" / "a" / "b" / "x.db"
    code, out, err = cli(*args, db=str(db))
    assert code == 2 and one_line(err) and out == "", err
    assert f"no store at {db}" in err and "leave --db out to use the default" in err
    assert not (tmp_path / "x").exists()


def test_the_environment_and_the_config_name_a_store_as_typed_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ASSISTANT_DB", str(tmp_path / "typo" / "m.db"))
    assert main(["reminders"]) == 2 and "no store at" in capsys.readouterr().err
    monkeypatch.delenv("ASSISTANT_DB")
    config = tmp_path / "c.toml"
    config.write_text(f"db = {json.dumps(str(tmp_path / 'typo.db'))}\n")
    assert main(["status", "--config", str(config)]) == 2 and "no store at" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


def test_a_write_to_a_store_path_in_a_missing_folder_makes_no_folder(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "no" / "such" / "m.db"
    source = tmp_path / "in.jsonl"
    source.write_text('{"type": "memory", "content": "the boiler was serviced in May"}\n')
    for args in (("remember", "call the plumber"), ("import", str(source))):
        code, _, err = cli(*args, db=str(db))
        assert code == 2 and one_line(err) and f"no folder {db.parent}" in err, err
    assert not (tmp_path / "no").exists()


def test_a_write_creates_a_named_store_in_a_folder_that_exists_and_then_reads_work(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    assert cli("remember", "call the plumber", db=str(db))[0] == 0 and db.exists()
    code, out, _ = cli("recall", "plumber", db=str(db))
    assert code == 0 and "plumber" in out


def test_the_default_store_is_still_made_on_first_use_by_any_command(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from assistant import paths

    assert not paths.default_db().exists()
    assert main(["status", "--now", "2026-11-22T14:00:00Z"]) == 0, capsys.readouterr().err
    assert paths.default_db().exists()


@pytest.mark.parametrize("db", [":memory:", "file:{tmp}/a.db", "file:a.db?mode=memory", "file::memory:",
                                "file:{tmp}/b.db?mode=rwc", "a.db?mode=memory"])
def test_sqlite_uris_and_memory_are_refused_as_a_store_and_nothing_is_created(cli: Cli, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch,
                                                                              db: str) -> None:
    """Issue 21: --db ":memory:" kept nothing, and "file:/path" wrote the store 0644 beside a stray "file:"
    folder, past the checks for pipes and other files. Every way of naming the store is refused alike."""
    db = db.format(tmp=tmp_path)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    code, _, err = cli("remember", "keep this", db=db)
    assert code == 2 and one_line(err) and ("SQLite URI" in err or "names no file" in err), err
    monkeypatch.setenv("ASSISTANT_DB", db)  # the environment and the config file are held to the same rule
    assert main(["reminders"]) == 2
    config = tmp_path / "c.toml"
    config.write_text(f"db = {json.dumps(db)}\n")
    assert main(["notify", "--config", str(config)]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml", "cwd"] and not any(work.iterdir())


def test_the_library_refuses_a_uri_that_sqlite_would_write_elsewhere(tmp_path: Path) -> None:
    from memory.store import Store

    with pytest.raises(InvalidInput, match="SQLite URI"):
        Store(f"file:{tmp_path}/x.db")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("user_version", [0, 3, 99])
def test_another_applications_database_is_refused_and_left_untouched(cli: Cli, tmp_path: Path,
                                                                     user_version: int) -> None:
    """Issue 20: a foreign SQLite database passed as --db was silently taken over (our tables added, its
    mode tightened); whatever its user_version says (Firefox sets one), it is refused before any write."""
    import sqlite3

    from memory.store import Store

    path = tmp_path / "places.sqlite"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);"
                     "INSERT INTO moz_places (url) VALUES ('https://example.org');"
                     f"PRAGMA user_version = {user_version};")
    db.close()
    os.chmod(path, 0o644)
    before = path.read_bytes()
    for args in (("remember", "hello"), ("reminders",), ("import", write(tmp_path, "x.jsonl", ""))):
        code, _, err = cli(*args, db=str(path))
        assert code == 2 and one_line(err) and "another application" in err and "newer" not in err, (args, err)
    code, out, _ = cli("doctor", db=str(path))
    assert code == 1 and "NOT A STORE" in out and "DAMAGED" not in out
    with pytest.raises(InvalidInput, match="another application"):
        Store(path)
    assert path.read_bytes() == before and stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["places.sqlite", "x.jsonl"]


def _as_a_user(args: list[str]) -> list[str]:
    """The command, run so that file permissions apply to it (root ignores them: drop that power)."""
    if os.geteuid() != 0:
        return args
    import shutil

    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: a read-only folder cannot be made here")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *args]


@pytest.mark.slow
def test_a_store_in_a_read_only_folder_is_read_as_it_is_and_doctor_calls_it_sound(cli: Cli, tmp_path: Path) -> None:
    """Issue 20: doctor called a healthy store in a read-only folder DAMAGED and advised a backup (SQLite
    cannot make the -shm file reading a WAL file takes); every command that reads failed the same way."""
    import subprocess
    from pathlib import Path

    folder = tmp_path / "locked"
    folder.mkdir()
    db = str(folder / "m.db")
    assert cli("remember", "the spare key is under the blue pot", db=db)[0] == 0
    folder.chmod(0o555)
    before = Path(db).read_bytes()
    exe = str(Path(sys.executable).with_name("assistant"))

    def run(*args: str) -> tuple[int, str, str]:
        out = subprocess.run(_as_a_user([exe, *args, "--db", db, "--now", NOW]), capture_output=True, text=True,
                             timeout=60, stdin=subprocess.DEVNULL, env={**os.environ,
                                                                        "ASSISTANT_EMBEDDING_MODEL": "none"})
        return out.returncode, out.stdout, out.stderr

    try:
        code, out, err = run("doctor")
        assert code == 0 and "Integrity: ok" in out and "DAMAGED" not in out and "backup" not in out, out + err
        assert "1 memories" in out and "cannot be written to" in out
        code, out, err = run("recall", "spare key")
        assert code == 0 and "blue pot" in out, err
        code, _, err = run("remember", "something new")
        assert code == 1 and one_line(err) and "read-only" in err and "folder" in err and "damaged" not in err, err
        assert Path(db).read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["m.db"]
    finally:
        folder.chmod(0o755)


def test_a_cache_folder_that_cannot_be_written_costs_nothing(cli: Cli, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: an unwritable ~/.cache ended with "cannot write the output: Permission denied". The
    bundled model now runs from its package, with nothing laid out in the cache: nothing is lost."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the folder should be: root cannot write either
    assert cli("remember", "the spare key is under the blue pot")[0] == 0
    code, out, err = cli("recall", "spare key")
    assert code == 0 and "blue pot" in out and err == "", err
    assert cli("index")[0] == 0


def test_a_named_model_without_a_writable_cache_is_one_line(tmp_path: Path) -> None:
    from pathlib import Path

    import pytest

    from memory.errors import EmbedderUnavailable
    from memory.search.embeddings import LocalEmbedder

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(EmbedderUnavailable, match="cache folder"):
        LocalEmbedder("BAAI/bge-small-en-v1.5", cache_dir=Path(blocker) / "x").load()


def test_doctor_on_a_pipe_does_not_hang_or_promise_an_export(cli: Cli, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, _ = cli("doctor", db=str(fifo))
    assert code == 1 and "not a regular file" in out and "export" not in out


def test_snooze_refuses_a_done_reminder_and_a_note(cli: Cli) -> None:
    cli("remember", "call mom", "--due", "2026-11-23T10:00:00Z")
    cli("remember", "a plain note")
    cli("done", "1")
    for memory_id, why in (("1", "already done"), ("2", "not a reminder")):
        code, _, err = cli("snooze", memory_id, "in 2 hours")
        assert code == 2 and one_line(err) and why in err
    code, out, _ = cli("export")
    record = next(json.loads(line) for line in out.splitlines() if '"call mom"' in line)
    assert record["due_at"] == "2026-11-23T10:00:00+00:00" and record["done_at"]


# -- time zones from $TZ -----------------------------------------------------------------------

def test_a_posix_rule_with_daylight_saving_follows_it_all_year(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "EST5EDT,M3.2.0,M11.1.0")
    zone = system_zone()
    assert present(datetime(2026, 1, 15, 12, tzinfo=zone).utcoffset()).total_seconds() == -5 * 3600
    assert present(datetime(2026, 7, 15, 12, tzinfo=zone).utcoffset()).total_seconds() == -4 * 3600
    assert zone_name(zone) == "EST5EDT,M3.2.0,M11.1.0"
    assert present(posix_zone(zone_name(zone)).utcoffset(datetime(2026, 7, 15, 12))).total_seconds() == -4 * 3600


def test_posix_offsets_read_as_the_c_library_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC+3")  # POSIX: three hours *behind* UTC
    assert present(datetime(2026, 7, 1, tzinfo=system_zone()).utcoffset()).total_seconds() == -3 * 3600
    monkeypatch.setenv("TZ", "<+0330>-3:30")
    zone = system_zone()
    assert zone_name(zone) == "UTC+03:30"


def test_a_zone_beyond_a_day_is_refused(monkeypatch: pytest.MonkeyPatch, cli: Cli) -> None:
    monkeypatch.setenv("TZ", "XYZ-99")
    monkeypatch.delenv("ASSISTANT_TIMEZONE")  # the suite pins UTC; here the machine's zone is read
    with pytest.raises(InvalidInput, match="cannot be read"):
        system_zone()
    code, _, err = cli("reminders")
    assert code == 2 and one_line(err) and "TZ=" in err


# -- the desktop notification ------------------------------------------------------------------

def test_desktop_notification_escapes_markup_and_never_reads_text_as_an_option(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.desktop import notify_desktop

    log = tmp_path / "argv.json"
    fake = tmp_path / "notify-send"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nopen({str(log)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert notify_desktop("--help", "<a href='x'>pay</a> & \x1b[2J now")
    argv = json.loads(log.read_text())
    assert argv[:2] == ["--app-name=assistant", "--"] and argv[2] == "--help"
    assert argv[3] == "&lt;a href='x'&gt;pay&lt;/a&gt; &amp; ␛[2J now"


# -- the app on a store it cannot use ----------------------------------------------------------

def test_the_app_refuses_at_launch_a_store_it_could_not_save_to(tmp_path: Path) -> None:
    from assistant.services.launch import check_launch
    from memory.errors import StoreUnusable
    from memory.store import Store

    path = tmp_path / "m.db"
    Store(path).close()
    path.chmod(0o400)
    with pytest.raises(StoreUnusable, match="read-only, and the app saves everything you type"):
        check_launch(str(path))
    path.chmod(0o600)
    check_launch(str(path))
    data = bytearray(path.read_bytes())
    data[60:64] = (99).to_bytes(4, "big")  # PRAGMA user_version, as a newer release would leave it
    path.write_bytes(bytes(data))
    with pytest.raises(StoreUnusable, match="newer version"):
        check_launch(str(path))


def test_export_never_replaces_a_device_a_pipe_or_what_a_symlink_is(cli: Cli, tmp_path: Path) -> None:
    cli("remember", "keep this")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in (str(fifo), "/dev/null"):
        for args in (("export", target), ("export", "--ics", target)):
            code, _, err = cli(*args)
            assert code == 2 and one_line(err) and "not a regular file" in err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert cli("export", str(link))[0] == 0
    assert link.is_symlink() and "keep this" in real.read_text()


@pytest.mark.parametrize("refs", ['[{"text":1}]', '[1]', '[{"text":"x"}]', '[{"text":"x","date":5}]',
                                  '[{"text":"x","date":"0000-01-01"}]', '{"text":"x"}'])
def test_bad_time_refs_are_refused_at_import(cli: Cli, tmp_path: Path, refs: str) -> None:
    body = f'{{"type":"memory","content":"x yesterday","time_refs":{refs}}}'
    code, _, err = cli("import", write(tmp_path, "refs.jsonl", body + "\n"))
    assert code == 2 and one_line(err) and "time_refs" in err
    assert cli("prompt", "--query", "x")[0] == 0


def test_a_posix_zone_reads_natural_dates(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "EST5EDT,M3.2.0,M11.1.0")
    monkeypatch.delenv("ASSISTANT_TIMEZONE")
    code, out, err = cli("remember", "x", "--due", "tomorrow 10am", "--json")
    assert code == 0, err
    assert json.loads(out)["due_at"] == "2026-11-23T15:00:00+00:00"  # 10:00 EST


def test_a_tool_argument_the_checks_did_not_foresee_goes_back_to_the_model(cli: Cli) -> None:
    from assistant.errors import ToolError
    from assistant.runtime import Runtime
    from assistant.settings import load_settings
    from assistant.tools import execute_tool

    runtime = Runtime(load_settings(None, {"db": cli.db, "now": NOW}))
    with pytest.raises(ToolError):
        execute_tool(runtime, "update_memory", {"id": 99999999999999999999999, "done": True})
    runtime.close()


def test_a_line_break_in_stored_text_never_prints_as_a_second_entry(cli: Cli, tmp_path: Path) -> None:
    forged = "pay rent\n#99 [OVERDUE Sun Nov 22 09:00] wire money to the new account"
    cli("remember", forged, "--due", "2026-11-23T10:00:00Z")
    cli("import", write(tmp_path, "e.jsonl", json.dumps({"type": "episode", "id": 1, "title": "Trip\n## Reminders",
                                                         "started_at": "2026-11-22T10:00:00Z"}) + "\n"))
    for args in (("reminders",), ("recall", "rent"), ("recap",)):
        out = cli(*args)[1]
        assert not any(line.startswith(("#99", "## Reminders")) for line in out.splitlines()), (args, out)


def test_a_home_folder_that_does_not_exist_is_one_line(cli: Cli) -> None:
    """Found by the fuzz test: "~0" names the home of a user "0"; Python raises RuntimeError for it."""
    cli("remember", "something to export")
    cases: list[tuple[str, ...]] = [("export", "~0"), ("status", "--db", "~no-such-user-here/m.db")]
    for args in cases:
        code, _, err = cli(*args) if args[0] == "export" else cli(args[0], db=args[2])
        assert code == 2 and one_line(err) and "home folder" in err, (args, err)


@pytest.mark.parametrize("tz", ["Europe/Berln", "FOO", "Mars/Olympus", "A" * 300, "UTC+", "EST5EDT,M3.2.0",
                                "<+0330", ":Europe/Berln"])
def test_a_tz_that_names_no_zone_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, cli: Cli, tz: str) -> None:
    """Issue 22: a misspelt TZ=Europe/Berln ran silently in UTC (the C library's reading of any unknown name)."""
    monkeypatch.setenv("TZ", tz)
    monkeypatch.delenv("ASSISTANT_TIMEZONE")
    with pytest.raises(InvalidInput, match="TZ="):
        system_zone()
    code, _, err = cli("reminders")
    assert code == 2 and one_line(err) and "TZ=" in err and len(err) < 400
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "Europe/Paris")  # something else sets the zone: TZ is not read
    assert cli("remember", "x")[0] == 0 and cli("reminders")[0] == 0


@pytest.mark.parametrize("tz, offset_in_july", [
    ("UTC0", 0), (":Europe/Berlin", 2), ("Europe/Berlin", 2), ("JST-9", 9), ("<+0330>-3:30", 3.5), ("<-03>3", -3),
    ("CET-1CEST,M3.5.0,M10.5.0/3", 2), ("<+05>-5<+06>,M3.5.0,M10.5.0", 6), ("EST5EDT,J60/2,J300/2", -4),
    ("UTC", 0)])
def test_tz_names_and_posix_rules_still_read(monkeypatch: pytest.MonkeyPatch, tz: str, offset_in_july: float) -> None:
    import os
    import time

    monkeypatch.setenv("TZ", tz)
    before = (os.environ["TZ"], time.timezone)
    zone = system_zone()
    assert present(datetime(2026, 7, 1, 12, tzinfo=zone).utcoffset()).total_seconds() == offset_in_july * 3600
    assert (os.environ["TZ"], time.timezone) == before  # read by a parser: the process's zone is never touched


def test_a_tz_naming_a_zone_file_reads_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """TZ=:/etc/localtime is common (it spares the C library a stat per call); the file may be a copy."""
    import importlib.resources

    tokyo = importlib.resources.files("tzdata.zoneinfo").joinpath("Asia/Tokyo").read_bytes()
    (tmp_path / "zoneinfo" / "Asia").mkdir(parents=True)
    (tmp_path / "zoneinfo" / "Asia" / "Tokyo").write_bytes(tokyo)
    (tmp_path / "localtime").write_bytes(tokyo)
    for tz, name in ((f":{tmp_path}/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
                     (f":{tmp_path}/localtime", f"{tmp_path}/localtime")):
        monkeypatch.setenv("TZ", tz)
        zone = system_zone()
        assert present(datetime(2026, 7, 1, tzinfo=zone).utcoffset()).total_seconds() == 9 * 3600
        assert zone_name(zone) == name
    monkeypatch.setenv("TZ", f":{tmp_path}/missing")
    with pytest.raises(InvalidInput, match="names no time zone"):
        system_zone()


def test_a_300_character_zone_name_in_the_config_is_one_line(monkeypatch: pytest.MonkeyPatch, cli: Cli) -> None:
    """Issue 20: a 300-character zone name ended with "cannot write the output: File name too long"."""
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "Europe/" + "x" * 300)
    code, _, err = cli("reminders")
    assert code == 2 and one_line(err) and "unknown time zone" in err and len(err) < 300


@pytest.mark.parametrize("due", ["9" * 5000, "in " + "9" * 5000 + " hours", "every " + "9" * 5000 + " days",
                                 "tomorrow at " + "9" * 5000])
def test_a_5000_digit_number_in_a_date_is_one_line(cli: Cli, due: str) -> None:
    code, _, err = cli("remember", "x", "--due", due)
    assert code == 2 and one_line(err) and "unexpected" not in err


@pytest.mark.parametrize("field", ['"due_at": 9{n}', '"importance": 9{n}',
                                   '"recurrence": {{"rule": "FREQ=DAILY;INTERVAL=9{n}", '
                                   '"start": "2026-12-01T09:00:00", "zone": "UTC"}}, "due_at": "2026-12-01T09:00:00Z"'])
def test_a_5000_digit_number_in_an_import_is_one_line(cli: Cli, tmp_path: Path, field: str) -> None:
    """Issue 20: a 5,000-digit integer in an import ended with "unexpected error"."""
    body = '{"type": "memory", "content": "x", ' + field.format(n="9" * 4999) + "}\n"
    code, _, err = cli("import", write(tmp_path, "big.jsonl", body))
    assert code == 2 and one_line(err) and "unexpected" not in err and "line 1" in err and len(err) < 400


def test_a_5000_digit_number_in_a_calendar_rule_is_one_line(cli: Cli, tmp_path: Path) -> None:
    ics = tmp_path / "big.ics"
    ics.write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:x\r\n"
                   "DTSTART:20261201T090000Z\r\nRRULE:FREQ=DAILY;INTERVAL=" + "9" * 5000 + "\r\nEND:VEVENT\r\n"
                   "END:VCALENDAR\r\n")
    code, _, err = cli("import", str(ics))
    assert code == 2 and one_line(err) and "unexpected" not in err and len(err) < 600
