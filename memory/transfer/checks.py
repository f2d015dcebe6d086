"""Rules every import file's records obey, whatever the format (JSON Lines, a ChatGPT or Claude export):
its text is text SQLite can keep, and each id names one record. Each reader says where (a line, a
conversation); the rule and its words are here, once.
"""
from __future__ import annotations

import json
import re
from collections.abc import Hashable
from typing import Any

from memory.errors import InvalidInput

LONE_SURROGATE = "holds text that is not valid Unicode (a lone surrogate)"

# JSON may write any UTF-16 code unit as an escape, "\ud800" alone included: valid JSON, not valid text.
# A file without such an escape cannot hold one (raw surrogate bytes are not UTF-8 and fail decoding).
_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def may_hold_surrogates(raw: str | bytes) -> bool:
    """Whether JSON text (as read from the file) has an escaped surrogate at all: one pass, no copy, so
    the slower check below runs only for a file that has one (an escaped emoji is a pair, and fine)."""
    if isinstance(raw, bytes):
        return _ESCAPE_BYTES.search(raw) is not None
    return _ESCAPE_TEXT.search(raw) is not None


def holds_lone_surrogate(value: Any) -> bool:
    """Whether a value parsed from JSON holds a lone surrogate anywhere (a key, a string, nested)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class DuplicateId(InvalidInput):
    """Two different records of one file under one id."""

    def __init__(self, label: str, first: str) -> None:
        super().__init__(f"{label} appears twice in the file (first {first}) with different contents: "
                         "which one is meant cannot be told")


class IdsSeen:
    """The ids a file gives its records, each naming one record. A second record under an id already seen
    is either the same record again (identical: read once, as a file joined from two copies of one export
    would have it) or a different one, refused: keeping either would silently lose the other, and a
    reference to the id would be ambiguous."""

    def __init__(self) -> None:
        self._first: dict[Hashable, tuple[Any, str]] = {}

    def again(self, key: Hashable, record: Any, where: str, label: str) -> bool:
        """False for the first record under `key` (kept, with `where` it is); True for an identical copy
        (to be skipped); DuplicateId naming `label` and where the first one is for a different one."""
        seen = self._first.get(key)
        if seen is None:
            self._first[key] = (record, where)
            return False
        if seen[0] == record:
            return True
        raise DuplicateId(label, seen[1])
