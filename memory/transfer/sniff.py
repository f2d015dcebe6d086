"""What an import file is, told by its content (SPEC F13): a ChatGPT or Claude data export (the ZIP, or its
conversations.json), else JSON Lines or iCalendar (read as text by their own importers).

Only a top-level JSON list is tried as a chat export; a file whose lines are records with a `type` is
JSON Lines, a one-line file too.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from memory.errors import InvalidInput
from memory.transfer.archive import MAX_CONVERSATIONS, is_zip, read_conversations
from memory.transfer.chats import FORMAT_NAMES, ChatExport, export_format, read_export
from memory.transfer.checks import may_hold_surrogates


@dataclass
class ChatFile:
    export: ChatExport
    fingerprint: str  # of the conversations.json inside: the same export as a ZIP or bare is one import

    @property
    def format_name(self) -> str:
        return FORMAT_NAMES[self.export.format]


def starts_with_list(path: Path) -> bool:
    """Whether the file's first character that is not white space (after a BOM) opens a JSON list."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).lstrip(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return False
    return head[:1] == b"["


def read_chat_file(path: Path) -> ChatFile | None:
    """The chat export in `path` (its ZIP or its conversations.json), or None when the file is neither
    (then it is JSON Lines or iCalendar). A file that is one but cannot be read raises InvalidInput
    naming what is wrong and where."""
    if is_zip(path):
        data = read_conversations(path)
        where = f"conversations.json in {path.name}"
    elif starts_with_list(path):
        size = path.stat().st_size
        if size > MAX_CONVERSATIONS:
            raise InvalidInput(f"{path.name} is {size / 1024**3:.1f} GB, more than a chat export can be "
                               f"({MAX_CONVERSATIONS // 1024**3} GB)")
        data = path.read_bytes()
        where = path.name
    else:
        return None
    try:
        parsed = json.loads(data.removeprefix(b"\xef\xbb\xbf"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"{where} is not readable JSON ({type(exc).__name__})") from None
    if not isinstance(parsed, list):
        raise InvalidInput(f"{where} is not a list of conversations (not a ChatGPT or Claude export)")
    kind = export_format(parsed)
    if kind is None:
        if not parsed:
            raise InvalidInput(f"{where} is an empty list: no conversations to import")
        first = parsed[0]
        keys = ", ".join(sorted(first)[:6]) if isinstance(first, dict) else type(first).__name__
        raise InvalidInput(f"{where} is a JSON list but neither a ChatGPT nor a Claude export (its first item "
                           f"has {keys[:100]})")
    export = read_export(parsed, kind, check_text=may_hold_surrogates(data))
    return ChatFile(export, hashlib.sha256(data).hexdigest()[:32])
