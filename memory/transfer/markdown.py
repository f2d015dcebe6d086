"""The store as a folder of Markdown files (SPEC F13), for Obsidian, Logseq or any Markdown viewer.

    README.md                      an index with links to everything below
    memories/facts.md ...          one file per kind of memory (reminders with due times and rules)
    conversations/2024-03-02 Sourdough starter.md
                                   one file per conversation: YAML front matter (title, started, ended,
                                   id), then the messages with their times

File names come from dates and titles, made safe on every OS (no reserved characters or names, no
trailing dot or space, at most 120 characters, unique). Secrets found by the detector (and the whole text
of a memory marked sensitive) are written as `[secret]` unless asked otherwise. Files are 0600 and
folders 0700. A rerun writes only the files whose content changed, and removes the files of its own
earlier run that are gone from the store (named in a small manifest), never another file.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from memory.episodes import Episode, Message, heuristic_title_and_summary
from memory.errors import InvalidInput
from memory.files import sync_folder, write_private
from memory.memories import SELECT_MEMORY, Memory
from memory.schema import KINDS
from memory.store import Store
from memory.supersession import replaced_after
from memory.transfer.exits import Exit

MANIFEST = ".assistant-export.json"
KIND_FILES = {"fact": "facts", "preference": "preferences", "event": "events", "person": "people", "mood": "moods",
              "decision": "decisions", "note": "notes", "reminder": "reminders"}
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
_UNSAFE = re.compile(r'[<>:"/\\|?*#\[\]^\x00-\x1f\x7f-\x9f]')
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass
class MarkdownExport:
    folder: Path
    written: list[str] = field(default_factory=list)  # relative paths of files written (new or changed)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    conversations: int = 0
    memories: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "written": len(self.written), "unchanged": self.unchanged,
                "removed": len(self.removed), "conversations": self.conversations, "memories": self.memories}


def safe_name(text: str, limit: int = 120) -> str:
    """A file name (without extension) from free text, valid on Linux, macOS and Windows."""
    name = unicodedata.normalize("NFC", " ".join(text.split()))
    name = re.sub(r"-{2,}", "-", _UNSAFE.sub("-", name)).strip(" .-")
    name = name[:limit].rstrip(" .-") or "untitled"
    if name.split(".")[0].upper() in _RESERVED:
        name = f"_{name}"
    return name


def _clean(text: str) -> str:
    """Stored text as a file may hold it: no control or direction characters (a viewer would act on them)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def _yaml(value: str | None) -> str:
    """A YAML scalar: JSON's double-quoted strings are valid YAML, escapes and all."""
    return "null" if value is None else json.dumps(_clean(value), ensure_ascii=False)


class _Writer:
    def __init__(self, store: Store, folder: Path, include_secrets: bool, embedder: Any = None) -> None:
        self.store = store
        self.clock = store.clock
        self.folder = folder
        self.include_secrets = include_secrets
        self.exit = None if include_secrets else Exit(store, embedder=embedder)  # the rule of every exit
        self.result = MarkdownExport(folder)
        self.files: set[str] = set()

    def secretless(self, text: str) -> str:
        """A title or a summary as it may leave (memory.transfer.exits)."""
        return text if self.exit is None or not text else self.exit.text(text)

    def message(self, message: Message) -> str:
        """A message, and what looks like a value in one the classifier flags."""
        return message.content if self.exit is None else self.exit.message(message.id, message.content)

    def memory(self, memory: Memory) -> str:
        """A memory's text: its secret values masked, or the mask alone when none can be pointed to."""
        return memory.content if self.exit is None else self.exit.memory(memory)

    def when(self, instant: str | None) -> str:
        if not instant:
            return ""
        moment = self.clock.local(instant)
        return f"{moment:%Y-%m-%d %H:%M} {moment.tzname() or ''}".rstrip()

    def put(self, relative: str, text: str) -> None:
        self.files.add(relative)
        target = self.folder / relative
        data = text.encode("utf-8")
        try:
            if target.is_file() and target.read_bytes() == data:
                self.result.unchanged += 1
                return
        except OSError:
            pass
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(target, lambda out: out.write(data), durable=False)
        self.result.written.append(relative)


def _link(relative: str) -> str:
    return "/".join(quote(part) for part in relative.split("/"))


def write_markdown(store: Store, folder: str | Path, include_secrets: bool = False,
                   embedder: Any = None) -> MarkdownExport:
    """Write (or bring up to date) the Markdown folder; see the module's text. `embedder`: the app's, so a
    text not embedded yet has the classifier's verdict before it is written (memory.secrets.Opinions)."""
    target = Path(folder).expanduser()
    if target.exists() and not target.is_dir():
        raise InvalidInput(f"cannot write a Markdown folder at {target}: it is a file")
    try:
        target.mkdir(mode=0o700, parents=True, exist_ok=True)
        target.chmod(0o700)
    except OSError as exc:
        raise InvalidInput(f"cannot write a Markdown folder at {target}: {exc.strerror or exc}") from None
    writer = _Writer(store, target, include_secrets, embedder)
    kinds = _memory_files(writer)
    conversations = _conversation_files(writer)
    _index(writer, kinds, conversations)
    _remove_stale(writer)
    writer.put(MANIFEST, json.dumps(sorted(writer.files | {MANIFEST}), ensure_ascii=False, indent=0) + "\n")
    for sub in ("memories", "conversations"):
        if (target / sub).is_dir():
            (target / sub).chmod(0o700)
    sync_folder(target)
    return writer.result


def _memory_files(writer: _Writer) -> list[tuple[str, str, int]]:
    """One file per kind of memory; returns (kind file, relative path, count) for the index."""
    by_kind: dict[str, list[Memory]] = defaultdict(list)
    for row in writer.store.query(f"{SELECT_MEMORY} ORDER BY k.created_at, k.id"):
        memory = Memory.from_row(row)
        by_kind[memory.kind].append(memory)
    gone = {r[0]: r[1] for r in writer.store.query("SELECT memory_id, superseded_by FROM memory_meta "
                                                   "WHERE superseded_by IS NOT NULL")}
    out = []
    for kind in KINDS:
        items = by_kind.get(kind)
        if not items:
            continue
        # A memory a newer one replaced comes right after it, said to be replaced (never read as current).
        by_id = {m.id: m for m in items}
        items = [by_id[i] for i in replaced_after([m.id for m in items], gone)]
        name = KIND_FILES[kind]
        lines = ["---", f"kind: {kind}", f"count: {len(items)}", "---", "", f"# {name.capitalize()}", ""]
        for memory in items:
            text = " ".join(_clean(writer.memory(memory)).split())
            marks = [f"#{memory.id}", f"said {writer.when(memory.created_at)}"]
            if memory.private:
                marks.append("private")
            if memory.id in gone:
                marks.append(f"replaced by #{gone[memory.id]}")
            if memory.due_at:
                marks.insert(1, f"due {writer.when(memory.due_at)}")
            if memory.rule is not None:
                marks.insert(2, memory.rule.describe())
            box = ("[x] " if memory.done_at else "[ ] ") if kind == "reminder" else ""
            lines.append(f"- {box}{text} ({'; '.join(marks)})")
        relative = f"memories/{name}.md"
        writer.put(relative, "\n".join(lines) + "\n")
        writer.result.memories += len(items)
        out.append((name.capitalize(), relative, len(items)))
    return out


def _conversation_files(writer: _Writer) -> list[tuple[Episode, str, int]]:
    store = writer.store
    own = store.store_uid()  # made now if not yet: "store/episode/1" became "<uid>/episode/1" at the next export
    used: set[str] = set()
    out = []
    episodes = [Episode.from_row(r) for r in store.query("SELECT * FROM episodes ORDER BY started_at, id")]
    for episode in episodes:
        said = [Message.from_row(r) for r in store.query(
            "SELECT * FROM messages WHERE episode_id = ? AND role IN ('user', 'assistant') ORDER BY id",
            (episode.id,))]
        if not said:
            continue
        if not episode.title:  # in progress, not titled yet: the title the app shows for it (was "Untitled")
            episode = replace(episode, title=heuristic_title_and_summary(said)[0] or None)
        title = writer.secretless(_clean(" ".join((episode.title or "Untitled").split())))
        day = writer.clock.local(episode.started_at).strftime("%Y-%m-%d")
        base = safe_name(f"{day} {title}")
        name = base if base.casefold() not in used else f"{base} ({episode.id})"
        used.add(name.casefold())
        uid = store.one("SELECT uid FROM episodes WHERE id = ?", (episode.id,))[0] or f"{own}/episode/{episode.id}"
        lines = ["---", f"title: {_yaml(title)}", f"started: {episode.started_at}",
                 f"ended: {episode.ended_at or 'null'}", f"id: {_yaml(uid)}", "---", "", f"# {title}", ""]
        if episode.summary:
            lines += [f"> {' '.join(writer.secretless(_clean(episode.summary)).split())}", ""]
        for message in said:
            who = "You" if message.role == "user" else "Assistant"
            lines += [f"**{who}** · {writer.when(message.created_at)}", "",
                      _clean(writer.message(message)).strip(), ""]
        relative = f"conversations/{name}.md"
        writer.put(relative, "\n".join(lines))
        writer.result.conversations += 1
        out.append((episode, relative, len(said)))
    return out


def _index(writer: _Writer, kinds: list[tuple[str, str, int]], conversations: list[tuple[Episode, str, int]]) -> None:
    lines = ["# Memory export", ""]
    lines += ["## Memories", ""]
    lines += [f"- [{label}]({_link(relative)}) ({count})" for label, relative, count in kinds] or ["(none)"]
    lines += ["", "## Conversations", ""]
    month = None
    for episode, relative, count in sorted(conversations, key=lambda c: (c[0].started_at, c[0].id), reverse=True):
        local = writer.clock.local(episode.started_at)
        if f"{local:%Y-%m}" != month:
            month = f"{local:%Y-%m}"
            lines += ["", f"### {local:%B %Y}", ""]
        title = writer.secretless(_clean(" ".join((episode.title or "Untitled").split())))
        label = title.replace("[", "(").replace("]", ")")
        lines.append(f"- {local:%Y-%m-%d} [{label}]({_link(relative)}) ({count} messages)")
    if not conversations:
        lines.append("(none)")
    writer.put("README.md", "\n".join(lines) + "\n")


def _remove_stale(writer: _Writer) -> None:
    """Files this export wrote last time that the store no longer has (a forgotten or undone import)."""
    manifest = writer.folder / MANIFEST
    try:
        before = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for relative in before if isinstance(before, list) else []:
        if not isinstance(relative, str) or relative in writer.files or relative == MANIFEST:
            continue
        path = (writer.folder / relative).resolve()
        if writer.folder.resolve() not in path.parents or not relative.endswith(".md"):
            continue  # only our own files, inside the folder
        try:
            path.unlink()
            writer.result.removed.append(relative)
        except OSError:
            pass
