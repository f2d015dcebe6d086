"""The words the detector reads by, kept as data beside the code: vocabulary/<language>.toml.

Each file holds tables (the keywords for a secret, the words that start prose, number words, ...) for
one language; a table here is the union of that table over every language, in the order of LANGUAGES
(English first: an alternation tries its entries in that order). What a table is and how it is read is
said in vocabulary/en.toml. The files are read once, at the first use of a table; the patterns built from
them are compiled then too (`lazy_pattern`, `LazyWords`), so importing the detector reads no file.

A new word for a secret, a new language: a line in a data file, not in the code.
"""
from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).parent / "vocabulary"
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "other")


@cache
def _tables() -> dict[str, dict[str, Any]]:
    return {language: tomllib.loads((FOLDER / f"{language}.toml").read_text(encoding="utf-8"))
            for language in LANGUAGES}


@cache
def entries(table: str) -> tuple[str, ...]:
    """A table's entries in every language, in order, each once: a list table's items, a text table's
    whitespace-separated words."""
    out: dict[str, None] = {}
    for language in LANGUAGES:
        value = _tables()[language].get(table)
        if value is not None:
            out.update((item, None) for item in (value.split() if isinstance(value, str) else value) if item)
    return tuple(out)


@cache
def words(table: str) -> frozenset[str]:
    """A table as a set of words, lower case."""
    return frozenset(entry.lower() for entry in entries(table))


@cache
def alternation(table: str, literal: bool = False) -> str:
    """A table as the alternatives of a regular expression: its entries as written (they are patterns),
    or, `literal`, escaped, a hyphen matching a hyphen, a space or nothing ("wi-fi", "one-time")."""
    if literal:
        return "|".join(re.escape(item).replace(r"\-", "[- ]?") for item in entries(table))
    return "|".join(entries(table))


class LazyPattern:
    """A compiled pattern built at its first use (from the data files): used as the re.Pattern it is."""

    def __init__(self, build: Callable[[], re.Pattern[str]]) -> None:
        self._build = build

    def __getattr__(self, name: str) -> Any:
        pattern = self._build()
        # The methods are kept on the instance: later calls find them without coming back here.
        for method in ("match", "fullmatch", "search", "finditer", "findall", "sub", "split"):
            setattr(self, method, getattr(pattern, method))
        self.__dict__["pattern"] = pattern.pattern
        return getattr(pattern, name)


def lazy_pattern(build: Callable[[], str], flags: int = 0) -> Any:
    """A pattern compiled from `build()` at its first use (typed Any: it is used as an re.Pattern)."""
    return LazyPattern(lambda: re.compile(build(), flags))


class LazyWords:
    """A set of words made from tables at its first use; `extra` are words of the code's own."""

    def __init__(self, *tables: str, extra: str = "") -> None:
        self._names = tables
        self._extra = extra
        self._words: frozenset[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        if self._words is None:
            self._words = frozenset().union(*(words(name) for name in self._names), self._extra.split())
        return self._words

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def __len__(self) -> int:
        return len(self.words)

    def __and__(self, other: frozenset[str] | set[str] | LazyWords) -> frozenset[str]:
        return self.words & (other.words if isinstance(other, LazyWords) else other)

    __rand__ = __and__

    def __or__(self, other: frozenset[str] | set[str] | LazyWords) -> frozenset[str]:
        return self.words | (other.words if isinstance(other, LazyWords) else other)

    __ror__ = __or__
