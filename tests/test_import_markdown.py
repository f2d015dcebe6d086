"""Issue 34: `assistant export DIR --markdown`, a folder any Markdown viewer opens (SPEC F13)."""
from __future__ import annotations

import json
import re
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

import pytest

from memory.transfer.markdown import safe_name
from tests.chat_exports import ChatGPTBuilder, chatgpt_export, write_json

if TYPE_CHECKING:
    from tests.conftest import Cli

pytestmark = pytest.mark.usefixtures("keywords_only")


def links(path: Path) -> list[str]:
    return re.findall(r"\]\(([^)]+)\)", path.read_text(encoding="utf-8"))


def front_matter(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head = text.split("---\n")[1]
    return {k: json.loads(v) if v.startswith('"') else v for k, v in
            (line.split(": ", 1) for line in head.strip().splitlines())}


def test_a_file_per_conversation_and_per_kind_with_an_index_whose_links_work(cli: Cli, tmp_path: Path) -> None:
    data, expected = chatgpt_export(60)
    cli("import", str(write_json(tmp_path / "c.json", data)))
    cli("remember", "the boiler is serviced in March", "--kind", "fact")
    cli("remember", "water the plants", "--due", "every Sunday at 9am")
    cli("remember", "buy stamps", "--due", "tomorrow 10am")
    cli("remember", "I like rye bread", "--kind", "preference")
    out_dir = tmp_path / "notes"
    code, out, err = cli("export", str(out_dir), "--markdown")
    assert code == 0, err
    conversations = sorted((out_dir / "conversations").iterdir())
    assert len(conversations) == expected.conversations
    assert sorted(p.name for p in (out_dir / "memories").iterdir()) == ["facts.md", "preferences.md", "reminders.md"]
    index_links = links(out_dir / "README.md")
    assert len(index_links) == expected.conversations + 3
    for link in index_links:  # relative, percent-encoded, each naming a file that is there
        assert not link.startswith(("/", "http")) and (out_dir / unquote(link)).is_file(), link
    reminders = (out_dir / "memories" / "reminders.md").read_text()
    assert "- [ ] water the plants (#2; due 2026-11-29 09:00 UTC; every Sun" in reminders
    assert "- [ ] buy stamps (#3; due 2026-11-23 10:00 UTC;" in reminders
    # A conversation: front matter, then each message with its time.
    one = next(p for p in conversations if "Sourdough starter 20" in p.name)
    meta = front_matter(one)
    assert meta["title"] == "Sourdough starter 20" and meta["id"] == f"chatgpt:{data[20]['id']}"
    assert meta["started"] == "2023-01-27T01:00:00+00:00" and meta["ended"] > meta["started"]
    body = one.read_text()
    assert "**You** · 2023-01-27 01:03 UTC\n\nmy sourdough starter smells like acetone" in body
    # Private: 0700 folders, 0600 files.
    for path in [out_dir, *out_dir.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


def test_secrets_are_written_as_secret_unless_asked(cli: Cli, tmp_path: Path) -> None:
    b = ChatGPTBuilder("conv-s", "Wifi", datetime(2024, 1, 5, 10, tzinfo=UTC))
    b.text("user", "the wifi password at home is Home!Wifi77")
    b.text("assistant", "Got it.")
    cli("import", str(write_json(tmp_path / "c.json", [b.conversation()])))
    cli("remember", "door code: 4417")
    out_dir = tmp_path / "md"
    cli("export", str(out_dir), "--markdown")
    everything = "".join(p.read_text() for p in out_dir.rglob("*.md"))
    # the message, the conversation's summary (one placeholder word everywhere: it said "[REDACTED]"), the memory
    assert "Home!Wifi77" not in everything and "4417" not in everything and everything.count("[secret]") == 3
    assert "REDACTED" not in everything
    cli("export", str(tmp_path / "md2"), "--markdown", "--include-secrets")
    everything = "".join(p.read_text() for p in (tmp_path / "md2").rglob("*.md"))
    assert "Home!Wifi77" in everything and "4417" in everything


def test_the_conversation_in_progress_is_exported_under_its_title_and_ids_stay(tmp_path: Path,
                                                                            cli: Cli) -> None:
    """A newcomer's first export named the open conversation "Untitled" (the app called it "My name is Priya
    Raman"), and its front matter's id was "store/episode/1", "<uid>/episode/1" the next time."""
    code, _, _ = cli("chat", "My name is Priya Raman and I'm 38")
    assert code == 0
    cli("export", str(tmp_path / "a"), "--markdown")
    cli("export", str(tmp_path / "b"), "--markdown")
    [first] = (tmp_path / "a" / "conversations").glob("*.md")
    [second] = (tmp_path / "b" / "conversations").glob("*.md")
    assert "Untitled" not in first.name and "Priya" in first.name
    ids = [next(line for line in f.read_text().splitlines() if line.startswith("id: ")) for f in (first, second)]
    assert ids[0] == ids[1] and not ids[0].startswith("id: store/")


@pytest.mark.parametrize("title, name", [
    ("a/b\\c:d*e?f\"g<h>i|j", "a-b-c-d-e-f-g-h-i-j"), ("CON", "_CON"), ("nul.txt", "_nul.txt"),
    ("  trailing dots... ", "trailing dots"), ("..", "untitled"), ("tab\there\x1b[31m", "tab here-31m"),
    ("x" * 300, "x" * 120), ("Wie geht's? Ünïcode ✓", "Wie geht's- Ünïcode ✓")])
def test_file_names_are_safe_on_every_system(title: str, name: str) -> None:
    assert safe_name(title) == name


def test_two_conversations_of_one_day_and_title_get_two_files(cli: Cli, tmp_path: Path) -> None:
    made = []
    for n in range(2):
        b = ChatGPTBuilder(f"conv-{n}", "Same: title?", datetime(2024, 2, 1, 8 + n, tzinfo=UTC))
        b.text("user", f"question {n}")
        b.text("assistant", f"answer {n}")
        made.append(b.conversation())
    cli("import", str(write_json(tmp_path / "c.json", made)))
    cli("export", str(tmp_path / "md"), "--markdown")
    names = sorted(p.name for p in (tmp_path / "md" / "conversations").iterdir())
    assert names == ["2024-02-01 Same- title (2).md", "2024-02-01 Same- title.md"]


def test_a_rerun_rewrites_only_what_changed_and_removes_what_is_gone(cli: Cli, tmp_path: Path) -> None:
    data, expected = chatgpt_export(20)
    cli("import", str(write_json(tmp_path / "c.json", data)))
    out_dir = tmp_path / "md"
    cli("export", str(out_dir), "--markdown")
    inodes = {p: p.stat().st_ino for p in out_dir.rglob("*.md")}
    code, out, _ = cli("export", str(out_dir), "--markdown", "--json")
    assert json.loads(out)["exported"]["written"] == 0
    assert {p: p.stat().st_ino for p in out_dir.rglob("*.md")} == inodes  # not one file replaced
    cli("remember", "the garage door sticks", "--kind", "fact")
    code, out, _ = cli("export", str(out_dir), "--markdown", "--json")
    assert json.loads(out)["exported"]["written"] == 3  # memories/facts.md, README.md, the manifest
    (out_dir / "my own note.md").write_text("mine")
    cli("import", "--undo-last")
    code, out, _ = cli("export", str(out_dir), "--markdown", "--json")
    assert json.loads(out)["exported"]["removed"] == expected.conversations
    assert not list((out_dir / "conversations").iterdir()) and (out_dir / "my own note.md").read_text() == "mine"
