"""The message box's input history, kept between launches (last 500 entries, one JSON string a line).
Here, not in ui/, because forgetting a memory (any front end) takes its quotations out of it.

Lines are JSON so that multi-line messages survive; the file is created 0600 because what you
typed may be private. A damaged line is skipped, never fatal.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from memory.memories import quotation_pattern

LIMIT = 500
LONGEST = 20_000  # characters; a huge paste is in the store already, and 500 of them would make a huge file


class InputHistory:
    def __init__(self, path: Path | None, limit: int = LIMIT) -> None:
        self.path = path
        self.limit = limit
        self.entries: list[str] = []
        self._held: list[str] | None = None  # the entries before an incognito conversation (see hold)

    @property
    def held(self) -> bool:
        return self._held is not None

    def hold(self) -> None:
        """An incognito conversation begins: what is sent from now on can be walked through (up/down) but
        is never written, and `release` forgets it."""
        if self._held is None:
            self._held = list(self.entries)

    def release(self) -> None:
        """The incognito conversation ended: the history is what it was before it."""
        if self._held is not None:
            self.entries, self._held = self._held, None

    def load(self) -> list[str]:
        if self.path is None or not self.path.is_file():
            return self.entries
        entries = []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return self.entries
        for line in lines:
            with contextlib.suppress(json.JSONDecodeError):
                value = json.loads(line)
                if isinstance(value, str) and value.strip():
                    entries.append(value)
        self.entries = entries[-self.limit:]
        return self.entries

    def append(self, text: str) -> None:
        if not text.strip() or len(text) > LONGEST:
            return
        if self.entries and self.entries[-1] == text:
            return  # like a shell with ignoredups: pressing up twice should not show the same line twice
        self.entries.append(text)
        overflow = len(self.entries) > self.limit
        self.entries = self.entries[-self.limit:]
        if self.path is None or self._held is not None:
            return  # nothing of an incognito conversation reaches the file
        try:
            if overflow:
                self._write_all()
            else:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as out:
                    out.write(json.dumps(text, ensure_ascii=False) + "\n")
        except OSError:
            pass  # history is a convenience: a read-only state dir must not break sending

    def _write_all(self) -> None:
        assert self.path is not None
        tmp = self.path.with_name(self.path.name + ".partial")
        saved = self._held if self._held is not None else self.entries  # never an incognito entry
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(e, ensure_ascii=False) + "\n" for e in saved)
        tmp.replace(self.path)

    def drop_quoting(self, text: str) -> int:
        """Take out every entry that quotes `text` whole (a forgotten memory); returns how many went."""

        pattern = quotation_pattern(text)

        def kept(items: list[str]) -> list[str]:
            return [e for e in items if pattern is None or not pattern.search(e)]

        if self._held is None:
            self.load()
        else:
            self._held = kept(self._held)
        remaining = kept(self.entries)
        dropped = len(self.entries) - len(remaining)
        if dropped:
            self.entries = remaining
            if self.path is not None:
                with contextlib.suppress(OSError):
                    self._write_all()
        return dropped
