"""Issue 34: hostile ZIPs are refused before anything is unpacked (traversal, a bomb of over 2 GB, a
million entries, a header that lies), and Ctrl+C keeps what was committed while a rerun continues."""
from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.chat_exports import chatgpt_export, write_zip

if TYPE_CHECKING:
    from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent


pytestmark = pytest.mark.usefixtures("keywords_only")


def raw_zip(path: Path, entries: list[tuple[str, bytes, int, int]], copies: int = 1, share_data: bool = False) -> Path:
    """A ZIP written byte by byte: (name, deflated data, crc, declared size) per entry, each `copies` times
    (names numbered). With `share_data` every directory entry points at the first entry's data (a million
    entries cost only their directory). ZIP64 end records when there are more than 65,535 entries."""
    local = bytearray()
    central = bytearray()
    count = 0
    first_offset = None
    for name, data, crc, size in entries:
        for copy in range(copies):
            entry_name = (f"{copy:07d}/{name}" if copies > 1 else name).encode()
            offset = len(local)
            if not share_data or first_offset is None:
                local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), min(size, 0xFFFFFFFF),
                                     len(entry_name), 0) + entry_name + data
                first_offset = offset if first_offset is None else first_offset
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data),
                                   min(size, 0xFFFFFFFF), len(entry_name), 0, 0, 0, 0, 0,
                                   first_offset if share_data else offset) + entry_name
            count += 1
    directory_at = len(local)
    with path.open("wb") as out:
        out.write(local)
        out.write(central)
        end = directory_at + len(central)
        if count > 0xFFFF:
            out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, len(central),
                                  directory_at))
            out.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF), min(count, 0xFFFF), len(central),
                              directory_at, 0))
    return path


def deflated(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")}


def refused(cli: Cli, path: Path, why: str) -> None:
    folder = path.parent
    before = files_under(folder.parent)
    code, out, err = cli("import", str(path))
    assert code == 2 and why in err and err.count("\n") == 1 and out == "", err
    new = files_under(folder.parent) - before
    # Nothing unpacked anywhere: only the store and the settings cache appear.
    assert not [p for p in new if not p.name.startswith("m.db") and "xdg_cache_home" not in p.parts]
    from memory.store import Store

    with Store(cli.db) as store:
        assert store.one("SELECT (SELECT count(*) FROM episodes) + (SELECT count(*) FROM imports)")[0] == 0


@pytest.mark.parametrize("name", ["../../evil.json", "/etc/cron.d/evil", "C:\\Windows\\evil.dll",
                                  "export/../../evil.json"])
def test_a_path_that_leaves_the_folder_is_refused(cli: Cli, tmp_path: Path, name: str) -> None:
    data, _ = chatgpt_export(3)
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("conversations.json", json.dumps(data))
        archive.writestr(zipfile.ZipInfo(name), b"owned")
    refused(cli, path, "has an entry with an unsafe path")
    assert not (tmp_path.parent.parent / "evil.json").exists()


def test_a_bomb_that_unpacks_to_over_two_gigabytes_is_refused_from_its_directory(cli: Cli, tmp_path: Path) -> None:
    block = bytes(16 * 1024 * 1024)  # 16 MB of zeros deflate to 16 KB: 140 of them declare 2.2 GB
    data = deflated(block)
    conversations = json.dumps(chatgpt_export(2)[0]).encode()
    path = raw_zip(tmp_path / "bomb.zip", [("conversations.json", deflated(conversations), zlib.crc32(conversations),
                                            len(conversations)),
                                           ("zeros.bin", data, zlib.crc32(block), len(block))], copies=140)
    assert path.stat().st_size < 5 * 1024 * 1024
    refused(cli, path, "would unpack to 2.2 GB (at most 2 GB): refused before reading any")


def test_an_entry_that_inflates_past_what_its_header_says_is_refused(cli: Cli, tmp_path: Path) -> None:
    """The lying header: conversations.json says 2 KB and inflates to 64 MB; it is read no further than
    2 KB, fails its check, and nothing is written."""
    data, _ = chatgpt_export(2)
    text = json.dumps(data).encode()
    body = text + b" " * (64 * 1024 * 1024)
    path = raw_zip(tmp_path / "liar.zip", [("conversations.json", deflated(body), zlib.crc32(text), 2048)])
    refused(cli, path, "conversations.json in liar.zip cannot be read")


@pytest.mark.slow
def test_a_million_tiny_entries_are_refused_before_they_are_listed(cli: Cli, tmp_path: Path) -> None:
    one = deflated(b"x")
    path = raw_zip(tmp_path / "many.zip", [("t.txt", one, zlib.crc32(b"x"), 1)], copies=1_000_000, share_data=True)
    refused(cli, path, "holds 1,000,000 entries (a data export holds at most 200,000)")


def test_a_refused_file_creates_no_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.cli.program import main

    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("../x", b"1")
    assert main(["import", str(path), "--db", str(tmp_path / "new" / "m.db")]) == 2
    assert not (tmp_path / "new").exists()


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_committed_and_a_rerun_continues(tmp_path: Path) -> None:
    data, expected = chatgpt_export(20_000, turns=1)
    path = write_zip(tmp_path / "export.zip", data)
    db = tmp_path / "m.db"
    env = {**os.environ, "ASSISTANT_EMBEDDING_MODEL": "none", "ASSISTANT_NOW": "2026-11-22T14:00:00+00:00",
           "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ui.entry", "import", str(path), "--db", str(db)]
    # Ctrl+C as a terminal sends it: a suite started in the background (`cmd &` in a script) ignores
    # SIGINT, and the import it starts would inherit that and never see the interrupt.
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("Read 2,000 of"):
            # Stopped first, then interrupted: on a loaded machine the import (4,000 conversations a
            # second) could finish between this line and the signal, and exit 0.
            process.send_signal(signal.SIGSTOP)
            process.send_signal(signal.SIGINT)
            process.send_signal(signal.SIGCONT)
            break
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 130, rest
    assert "interrupted;" in rest and "run the same import again to continue" in rest
    from memory.store import Store

    with Store(db) as store:
        committed = store.one("SELECT count(*) FROM episodes")[0]
        assert 2_000 <= committed < expected.conversations
        assert store.one("SELECT count(*) FROM messages WHERE episode_id IS NULL")[0] == 0  # whole batches
        assert store.one("SELECT status FROM imports")[0] == "interrupted"
    done = subprocess.run([*command, "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["conversations_added"] == expected.conversations - committed
    assert result["conversations_present"] == committed
    with Store(db) as store:
        assert store.one("SELECT count(*) FROM episodes")[0] == expected.conversations
        assert store.one("SELECT count(*) FROM messages")[0] == expected.messages
        # One import, continued: one undo removes all of it.
        assert [tuple(r) for r in store.query("SELECT id, status FROM imports")] == [(1, "done")]
        counts = json.loads(store.one("SELECT counts FROM imports")[0])
        assert counts["conversations_added"] == expected.conversations


# -- long messages: read in bounded memory; stopped, it says so (issue 46) ----------------------------------

LISTS = ['[]', ' \n[ {"a": [1, 2.5e3, "x\\\\u00e9"]} , {"b": null}, true, "ab\\\\\\"c", -12,'
         ' {"nested": {"k": [[], {}]}}]\n',
         '\ufeff[{"t": "\\\\ud83d\\\\ude00 an emoji"}, {"t": "caf\u00e9 \u6771\u4eac"}]', '[123456789, 1e-7, false]']
BROKEN = ['[1, 2', '[{"a": 1}\n, {"a": }]', '[1,]', '[\n\n  {"a" 1}]', '[1] x', '[{"a": "unterminated]',
          '[{"x": 1}\n{"y": 2}]']


@pytest.mark.parametrize("text", LISTS)
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_a_list_read_a_chunk_at_a_time_is_what_json_loads_reads(text: str, chunk: int) -> None:
    import io

    from memory.transfer.json_stream import JsonListReader

    raw = text.encode()
    reader = JsonListReader(io.BytesIO(raw), "c.json", chunk=chunk)
    items = [item for item, _ in reader]
    assert items == json.loads(raw.decode("utf-8-sig"))
    assert reader.size == len(raw) and reader.sha256.hexdigest() == __import__("hashlib").sha256(raw).hexdigest()


@pytest.mark.parametrize("text", BROKEN)
@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_a_broken_list_is_refused_at_the_line_and_column_json_loads_names(text: str, chunk: int) -> None:
    import io

    from memory.errors import InvalidInput
    from memory.transfer.json_stream import JsonListReader

    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(InvalidInput) as refused:
        list(JsonListReader(io.BytesIO(text.encode()), "c.json", chunk=chunk))
    assert f"(line {expected.value.lineno}, column {expected.value.colno}" in str(refused.value), \
        (str(refused.value), expected.value)


def test_an_escaped_surrogate_is_seen_in_the_item_that_has_it() -> None:
    import io

    from memory.transfer.json_stream import JsonListReader

    raw = b'[{"a": "plain"}, {"b": "\\ud83d\\ude00"}, {"c": "\\ud800 alone"}]'
    assert [escaped for _, escaped in JsonListReader(io.BytesIO(raw), "c.json", chunk=5)] == [False, True, True]


@pytest.mark.slow
def test_sigterm_keeps_what_was_committed_and_records_the_import_as_interrupted(tmp_path: Path) -> None:
    """Issue 46: an import stopped by `kill` (SIGTERM) half way stayed "running" in the store and said
    nothing; it is stopped as Ctrl+C stops it: the committed batches stay, the import is "interrupted",
    it says so, and a rerun continues it."""
    data, expected = chatgpt_export(20_000, turns=1)
    path = write_zip(tmp_path / "export.zip", data)
    db = tmp_path / "m.db"
    env = {**os.environ, "ASSISTANT_EMBEDDING_MODEL": "none", "ASSISTANT_NOW": "2026-11-22T14:00:00+00:00",
           "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ui.entry", "import", str(path), "--db", str(db)]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("Read 2,000 of"):
            process.send_signal(signal.SIGSTOP)  # as in the Ctrl+C test: it cannot finish in between
            process.send_signal(signal.SIGTERM)
            process.send_signal(signal.SIGCONT)
            break
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 128 + signal.SIGTERM, rest
    assert "interrupted (SIGTERM);" in rest and "run the same import again to continue" in rest
    from memory.store import Store

    with Store(db) as store:
        committed = store.one("SELECT count(*) FROM episodes")[0]
        assert 2_000 <= committed < expected.conversations
        assert store.one("SELECT status FROM imports")[0] == "interrupted"
    done = subprocess.run([*command, "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["conversations_added"] == expected.conversations - committed
