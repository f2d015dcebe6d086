"""The one exception hierarchy of the memory package.

Everything a caller can fix (a bad date, an unknown id, a malformed import line) is an
`InvalidInput`; the CLI turns it into exit status 2 with one line on stderr.
"""
from __future__ import annotations


class StoreError(Exception):
    """Base class of every error raised by the memory package."""


class InvalidInput(StoreError):
    """The caller's input was wrong; nothing was written."""


class NotFound(InvalidInput):
    """An id that names no row."""


class DateParseError(InvalidInput):
    """A date phrase that could not be understood."""

    def __init__(self, phrase: str, why: str = "") -> None:
        self.phrase = phrase
        detail = f" ({why})" if why else ""
        # A pasted megabyte is not echoed back: the start names it well enough.
        shown = phrase if len(phrase) <= 80 else phrase[:77] + "..."
        super().__init__(f"could not understand the date {shown!r}{detail}")


class ImportFailed(InvalidInput):
    """A bad record in an import file; the whole import was rolled back."""

    def __init__(self, line: int, why: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {why}; nothing was imported")
