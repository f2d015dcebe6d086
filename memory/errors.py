"""The one exception hierarchy of the memory package.

Siblings under MemoryLibError, so a caller can tell them apart:
- InvalidInput: the caller's input was wrong (a bad date, an unknown id, a malformed import line);
  nothing was written. A front end shows it and goes on.
- StoreUnusable: the database file cannot be used (unreadable, damaged, from a newer version,
  read-only for a write). `reason` says which, so a front end can say how to recover.
- DiskFull: a write found no room on the disk; it was rolled back whole. Reads go on working.
- ModelUnavailable / MalformedAnswer: the local model cannot be used, or did not answer as asked.
- EmbedderUnavailable: the embedding model cannot load; search falls back to keywords.

Messages say what is wrong in the library's own terms; how to fix it with a given front end
(which command to run) is that front end's to add.
"""
from __future__ import annotations


class MemoryLibError(Exception):
    """Base class of every error raised by the memory package."""


class InvalidInput(MemoryLibError):
    """The caller's input was wrong; nothing was written."""


class NotFound(InvalidInput):
    """An id that names no row."""


# SQLite's largest integer: an id beyond it names no row, and SQLite cannot even be asked about it
# (OverflowError), so it is refused before any query, with the words of an id that names nothing.
MAX_ID = 2**63 - 1


class NoSuchId(NotFound):
    """An id no row can have: a whole number below 1 or beyond SQLite's integers."""

    def __init__(self, value: int) -> None:
        # A pasted run of digits is not echoed whole (nor can Python print past 4,300 digits).
        shown = str(value) if value.bit_length() <= 128 else f"a number of {round(value.bit_length() * 0.30103)} digits"
        super().__init__(f"no such id: {shown} (ids are whole numbers from 1)")


def checked_id(value: int) -> int:
    """`value` when a row can have it as its id; NoSuchId, the one line every front end says, when not."""
    if not 1 <= value <= MAX_ID:
        raise NoSuchId(value)
    return value


class DateParseError(InvalidInput):
    """A date phrase that could not be understood."""

    def __init__(self, phrase: str, why: str = "") -> None:
        self.phrase = phrase
        self.why = why
        detail = f" ({why})" if why else ""
        # A pasted megabyte is not echoed back: the start names it well enough.
        shown = phrase if len(phrase) <= 80 else phrase[:77] + "..."
        super().__init__(f"could not understand the date {shown!r}{detail}")


class ImportFailed(InvalidInput):
    """A bad record in an import file; the whole import was rolled back."""

    def __init__(self, line: int, why: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {why}; nothing was imported")


class StoreUnusable(MemoryLibError):
    """The database file cannot be used as asked. `reason`: unreadable (cannot even be opened or read),
    damaged (SQLite reports damage), newer (written by a newer schema), read_only (a write to a file the
    user made read-only, or in a folder that cannot be written to). Another application's SQLite file is
    InvalidInput (memory.store.check_file), like any other file that is not a store."""

    def __init__(self, message: str, path: str = "", reason: str = "unreadable") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


class DiskFull(MemoryLibError):
    """The disk that holds the store is full (SQLite's SQLITE_FULL): the write was rolled back, nothing of it
    was kept; reads still work."""

    def __init__(self, path: str = "") -> None:
        super().__init__(f"the disk that holds {path or 'the database'} is full: nothing was saved")
        self.path = path


class ModelUnavailable(MemoryLibError):
    """The local model cannot be used for this run (unreachable, no such model, breaker open)."""


class MalformedAnswer(MemoryLibError):
    """The model answered, but not with the JSON asked for."""


class RequestTooLong(MemoryLibError):
    """The model cannot take this request: it is longer than its context window (`window` tokens, 0 when
    the server did not say), even cut to fit once. Only this request goes unanswered; the next may fit."""

    def __init__(self, message: str, window: int = 0) -> None:
        super().__init__(message)
        self.window = window


class EmbedderUnavailable(MemoryLibError):
    """The embedding model could not be loaded; search falls back to keywords."""
