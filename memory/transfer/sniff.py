"""What an import file is, told by its content (SPEC F13): a ChatGPT or Claude data export (the ZIP, or its
conversations.json), else JSON Lines or iCalendar (read as text by their own importers).

Only a top-level JSON list is tried as a chat export; a file whose lines are records with a `type` is
JSON Lines, a one-line file too.
"""
from __future__ import annotations

import contextlib
import itertools
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from memory.errors import InvalidInput
from memory.transfer.archive import MAX_CONVERSATIONS, is_zip, open_conversations
from memory.transfer.chats import FORMAT_NAMES, ChatExport, ExportReader, export_format
from memory.transfer.json_stream import JsonListReader


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
    naming what is wrong and where, before anything is written.

    Read as a stream, a conversation at a time (memory.transfer.json_stream), each checked and kept in an
    unnamed temporary file (ChatExport.spill): memory stays bounded by the longest conversation, whatever
    the size of the file."""
    opened: contextlib.AbstractContextManager[BinaryIO]
    if is_zip(path):
        opened = open_conversations(path)
        where = f"conversations.json in {path.name}"
    elif starts_with_list(path):
        size = path.stat().st_size
        if size > MAX_CONVERSATIONS:
            raise InvalidInput(f"{path.name} is {size / 1024**3:.1f} GB, more than a chat export can be "
                               f"({MAX_CONVERSATIONS // 1024**3} GB)")
        opened = path.open("rb")
        where = path.name
    else:
        return None
    with opened as stream:
        reader = JsonListReader(stream, where)
        items = iter(reader)
        head = list(itertools.islice(items, 50))
        kind = export_format([item for item, _ in head])
        if kind is None:
            if not head:
                raise InvalidInput(f"{where} is an empty list: no conversations to import")
            first = head[0][0]
            keys = ", ".join(sorted(first)[:6]) if isinstance(first, dict) else type(first).__name__
            raise InvalidInput(f"{where} is a JSON list but neither a ChatGPT nor a Claude export (its first item "
                               f"has {keys[:100]})")
        export = ExportReader(ChatExport(kind, [], spill=tempfile.TemporaryFile()))  # noqa: SIM115 - the export's
        try:
            for item, escaped in itertools.chain(head, items):
                export.read(item, check_text=escaped)
        except BaseException:
            assert export.export.spill is not None
            export.export.spill.close()
            raise
    return ChatFile(export.export, reader.sha256.hexdigest()[:32])
