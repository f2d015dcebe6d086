"""A top-level JSON list read one item at a time from a byte stream, in bounded memory (issue 46).

A data export's conversations.json is one JSON list of hundreds of MB when its messages are long (4,000
pasted texts of 50 KB: 189 MB). json.loads holds the file's bytes and every parsed string at once (a 600
MB peak); this reader holds the chunk in hand and the item being read: a conversation, however large
the file. Items are parsed by the standard library's own decoder (JSONDecoder.raw_decode), so what is
valid JSON is exactly what json.loads accepts; an error names its line and column in the whole file,
as json.loads would.

While it reads it hashes the bytes (the export's fingerprint: the same file is the same import) and says,
item by item, whether the item's text holds a JSON escape of a surrogate (memory.transfer.checks: only
such an item needs the slower check for a lone one).
"""
from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from memory.errors import InvalidInput

CHUNK = 1 << 20  # bytes read at a time
_SPACE = re.compile(r"[ \t\n\r]*")
_TOKEN = re.compile(r"[^,\]\s]*")  # a number or a word, up to what may follow it
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # as memory.transfer.checks, over the item's own text


class JsonListReader:
    """`for item, escaped in JsonListReader(stream, "conversations.json in export.zip")`: each item of the
    top-level list, parsed, and whether its text holds an escaped surrogate. A file that is not one JSON
    list (after an optional BOM), or not valid JSON, raises InvalidInput naming `where`, the line and the
    column. `sha256` and `size` are of every byte read, once the iteration has ended."""

    def __init__(self, stream: BinaryIO, where: str, chunk: int = CHUNK) -> None:
        self.stream, self.where, self.chunk = stream, where, chunk
        self.sha256 = hashlib.sha256()
        self.size = 0
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self._json = json.JSONDecoder()
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._lines_before = 0  # line breaks in the text already dropped from the buffer
        self._column_before = 0  # characters after the last of them, there

    # -- the buffer -------------------------------------------------------------------------------

    def _more(self, at_least: int = 0) -> bool:
        """Read more text into the buffer (at least `at_least` bytes, so an item is re-read only a few
        times however long it is); False at the end of the stream."""
        if self._eof:
            return False
        dropped = self._buf[:self._pos]
        if dropped:
            breaks = dropped.count("\n")
            self._lines_before += breaks
            self._column_before = len(dropped) - dropped.rfind("\n") - 1 if breaks else \
                self._column_before + len(dropped)
            self._buf, self._pos = self._buf[self._pos:], 0
        data = self.stream.read(max(self.chunk, at_least))
        self.sha256.update(data)
        self.size += len(data)
        try:
            self._buf += self._decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise InvalidInput(f"{self.where} is not readable JSON (UnicodeDecodeError)") from None
        if not data:
            self._eof = True
        return bool(data)

    def _skip_space(self) -> str:
        """The next character that is not white space ("" at the end of the stream), not consumed."""
        while True:
            self._pos = _SPACE.match(self._buf, self._pos).end()  # type: ignore[union-attr]  # always matches
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return ""

    def _fail(self, message: str, at: int) -> InvalidInput:
        breaks = self._buf.count("\n", 0, at)
        column = at - self._buf.rfind("\n", 0, at) if breaks else self._column_before + at + 1
        return InvalidInput(f"{self.where} is not valid JSON (line {self._lines_before + breaks + 1}, column "
                            f"{column}: {message})")

    # -- the list ----------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[tuple[Any, bool]]:
        first = self._skip_space()
        if first != "[":
            if not first:
                raise self._fail("Expecting value", self._pos)
            raise InvalidInput(f"{self.where} is not a list of conversations (not a ChatGPT or Claude export)")
        self._pos += 1
        count = 0
        while True:
            following = self._skip_space()
            if following == "]" and count == 0:
                break
            if count:
                if following == "]":
                    break
                if following != ",":
                    raise self._fail("Expecting ',' delimiter", self._pos)
                self._pos += 1
                self._skip_space()
            yield self._item()
            count += 1
        self._pos += 1
        if self._skip_space():
            raise self._fail("Extra data", self._pos)

    def _item(self) -> tuple[Any, bool]:
        start = self._pos
        while True:
            try:
                value, end = self._json.raw_decode(self._buf, start)
            except json.JSONDecodeError as exc:
                if not self._eof:  # perhaps only cut off by the chunk's end: read on (the buffer moves), again
                    self._more(len(self._buf) - start)
                    start = self._pos
                    continue
                raise self._fail(exc.msg, exc.pos) from None
            except RecursionError:
                raise InvalidInput(f"{self.where} is not readable JSON (RecursionError)") from None
            if not isinstance(value, dict | list | str) and not self._eof and \
                    _TOKEN.match(self._buf, start).end() == len(self._buf):  # type: ignore[union-attr]
                self._more(len(self._buf) - start)  # a number or word cut by the chunk's end ("1e" of "1e-7")
                start = self._pos
                continue
            self._pos = end
            return value, _ESCAPED_SURROGATE.search(self._buf, start, end) is not None
