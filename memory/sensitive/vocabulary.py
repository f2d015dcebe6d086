"""The words the detector reads by, kept as data beside the code: vocabulary/<language>.toml.

Each file holds tables (the keywords for a secret, the words that start prose, number words, ...) for
one language; a table here is the union of that table over every language, in the order of LANGUAGES
(English first: an alternation tries its entries in that order). What a table is and how it is read is
said in vocabulary/en.toml. The files are read once, at the first use of a table; the patterns built from
them are compiled then too (`lazy_pattern`, `LazyWords`), so importing the detector reads no file.

A new word for a secret, a new language: a line in a data file, not in the code.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from memory.vocabulary import language as read_language

_parser: Any = importlib.import_module("re._parser")  # the parser of `re` itself (not in the type stubs)
FOLDER = Path(__file__).parent / "vocabulary"
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "other")


@cache
def _tables() -> dict[str, dict[str, Any]]:
    return {code: read_language(FOLDER, code) for code in LANGUAGES}  # the one loader of vocabulary folders


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


@cache
def mapping(table: str) -> dict[str, str]:
    """A table of pairs (a TOML table: `digits = { one = "1" }`) over every language, keys in lower case."""
    out: dict[str, str] = {}
    for language in LANGUAGES:
        value = _tables()[language].get(table)
        if isinstance(value, dict):
            out.update((str(key).lower(), str(item)) for key, item in value.items())
    return out


def digits() -> dict[str, str]:
    """The words for a digit in every language, and the digit each says ("zéro": "0", "drei": "3")."""
    return mapping("digits")


def digit_repeats() -> dict[str, int]:
    """Words that say a digit twice or three times ("double seven")."""
    return {word: int(times) for word, times in mapping("digit_repeats").items()}


@cache
def digit_run() -> re.Pattern[str]:
    """Two digits said as words or more in a row, apart by spaces, commas or hyphens ("cuatro, cero, ocho")."""
    said = "|".join(sorted(map(re.escape, digits()), key=len, reverse=True))
    repeats = "|".join(map(re.escape, digit_repeats()))
    one = rf"(?:(?:{repeats})[ \t]+)?(?:{said})" if repeats else f"(?:{said})"
    return re.compile(rf"(?<![^\W_]){one}(?:(?:[ \t]*,[ \t]*|[ \t]*-[ \t]*|[ \t]+){one})+(?![^\W_])", re.I)


@cache
def spelt() -> dict[tuple[str, int], tuple[str, ...]]:
    """The words a slip of the keyboard is read back to (table `spelt`), by first letter and length."""
    out: dict[tuple[str, int], list[str]] = {}
    for word in words("spelt"):
        out.setdefault((word[0], len(word)), []).append(word)
    return {key: tuple(found) for key, found in out.items()}


@cache
def known_words() -> frozenset[str]:
    """Every word of every table (what a word a secret hangs on is never misread as), and the real words one
    slip away from one (table `not_misspelt`)."""
    found: set[str] = set()
    for language in LANGUAGES:
        for value in _tables()[language].values():
            items = value.split() if isinstance(value, str) else value if isinstance(value, list) else list(value)
            for item in items:
                found.update(w.lower() for w in re.findall(r"[^\W\d_]+", str(item)))
    return frozenset(found)


# Letters that a pattern's IGNORECASE matches otherwise than str.lower() writes them (Python's case
# equivalences, the final sigma, the dotted capital I that lowers to two characters).
_FOLDED_OTHERWISE = frozenset("\u0130\u0131\u017f\u00b5\u03bc\u0345\u03b9\u1fbe\u0390\u1fd3\u03b0\u1fe3"
                              "\u03b2\u03d0\u03b5\u03f5\u03b8\u03d1\u03ba\u03f0\u03c0\u03d6\u03c1\u03f1"
                              "\u03a3\u03c2\u03c3\u03c6\u03d5\u1e61\u1e9b\ufb05\ufb06")


def lowered_as_matched(text: str) -> str | None:
    """`text` lower case, where a pattern made of the tables with IGNORECASE matches a letter exactly where
    the lower-cased text holds it (same offsets); None when a letter of `text` folds otherwise. What lets a
    long text be searched for literal words once instead of a pattern tried at every position."""
    lowered = text.lower()
    if len(lowered) != len(text) or not text.isascii() and not _FOLDED_OTHERWISE.isdisjoint(text):
        return None
    return lowered


@cache
def required_letters(pattern: str) -> str:
    """The longest run of literal characters that every match of `pattern` holds, lower case: a text without
    it holds no match ('' when no run is sure)."""
    try:
        items = list(_parser.parse(pattern))
    except re.error:
        return ""
    best = run = ""
    for op, argument in items:
        if op is _parser.LITERAL and len(chr(argument).lower()) == 1:
            run += chr(argument).lower()
            best = max(best, run, key=len)
        else:
            run = ""
    return best

