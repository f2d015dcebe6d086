"""A long text (a paste of a megabyte) read in windows around what may be a secret, not whole.

The detectors read a text in a few dozen passes; over a megabyte of prose that took 0.4 s of CPU, and a
megabyte with a word for a secret in every line several seconds, at every write and every exit. A secret
is found by something next to it: a word it hangs on (a keyword, a thing that opens, an account, an id's
name, a table's title), or its own shape (a provider's key prefix, a long random string, a card's or an
IBAN's digits, an SSN, a private key block, a link with a password). Those are found first, by C-speed
scans (a set of the text's words, literal searches, a few short patterns), and the detectors read only
the lines around each (MARGIN characters either side, to whole lines), with the first line of the block
they stand in (a table's header, a list's title). A text of at most LONG characters is read whole.

What a window does not see: a look-alike keyword with no plain word, shape or digit run near it (read
whole, "pаssword" with a Cyrillic а is folded by the view; in a window only when something else is
there), a table's header more than a block away. Recovery phrases are looked for over the whole text
(phrases.py has its own one-pass check).
"""
from __future__ import annotations

import re
import unicodedata
from functools import cache

from memory.sensitive import labels, numbers, shapes, vocabulary

LONG = 16_384  # characters: a text up to this long is read whole
MARGIN = 300  # characters read either side of what may be a secret (then to whole lines)
_MAX_LINE = 2_000  # a window stops at a line break this far out at most (a minified line has none)

# Non-letters read as spaces, so that str.split() gives the words (C speed, no pattern per word).
_NOT_LETTER_CHARS = "0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t\r\n\v\f"
_NOT_LETTERS = str.maketrans({c: " " for c in _NOT_LETTER_CHARS})
# The same, byte for byte over UTF-8 (all of them are ASCII: a character that is not is left whole): str.translate
# reads a text that is not ASCII a character at a time in Python's dictionary (0.1 s a megabyte with a few emoji).
_NOT_LETTER_BYTES = bytes.maketrans(_NOT_LETTER_CHARS.encode(), b" " * len(_NOT_LETTER_CHARS))
# Shapes that need no word, in two scans: digits of card length or an SSN; an IBAN or an Italian codice
# fiscale; a long run of letters and digits (a key, a token). The literal ones (a link with a password, a
# private key block, a provider's key prefix, an e-mail address on a label's line) by str.find.
_DIGIT_SHAPES = re.compile(r"\d{3}(?:-\d{2}-\d{4}|(?:[ .-]?\d){10,16})")
_LETTER_SHAPES = re.compile(r"[A-Za-z]{2}(?:\d{2}[ ]?[A-Za-z0-9]{4}|[A-Z]{4}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z])")
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_\-]{20,}")
_LITERALS = ("://", "-----BEGIN", "PuTTY-User-Key", "@")
# A keyword in disguise: look-alike letters of another script in a Latin word, full-width forms,
# invisible characters, combining marks (view.py reads them as the plain word); leetspeak before a sign
# ("P4SS:", "p1n =").
_DISGUISED = re.compile(r"[a-zA-Z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][a-zA-Z]|[\uff01-\uff5e]"
                        r"|[\u00ad\u034f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]|[\u0300-\u036f]")
_LEET = re.compile(r"(?<![^\W_])(?:[a-zA-Z@$]+\d|\d[a-zA-Z@$]+)[a-zA-Z@$\d]*[ \t]*[:=]")


@cache
def _anchor_words() -> frozenset[str]:
    """Every word a secret found by the detectors hangs on, lower case."""
    tables = ("triggers", "strong", "weak", "code_qualifiers", "code_nouns", "places", "locks", "devices",
              "services", "banks", "label_words", "network_words", "bare_keys", "secret_keys", "answer_stems",
              "answer_keywords", "password_titles", "login_titles", "pin_titles", "code_titles", "combination_titles")
    found = {w.lower() for table in tables for entry in vocabulary.entries(table)
             for w in re.findall(r"[^\W\d_]+", entry) if len(w) > 1}
    # Verbs of opening ("unlock with 2 2 9 6" names no thing), not their short words ("in", "off").
    found |= {w.lower() for entry in vocabulary.entries("opens") for w in re.findall(r"[^\W\d_]+", entry) if len(w) > 4}
    found |= numbers.anchor_words() | shapes.anchor_words() | labels.anchor_words()
    # Not the small words the patterns of those tables hold ("answers to my security questions").
    small = ("hard_stop", "cut", "and", "after_and", "determiners", "of", "prepositions", "continuations")
    return frozenset(found - {w for table in small for w in vocabulary.words(table)})


@cache
def _endings() -> tuple[str, ...]:
    """Ends and stems of words a secret hangs on, looked for inside the text's words ("Türcode",
    "WLAN-Passwort", "Sicherheitsfrage", "dbpassword")."""
    return tuple({w.lower() for w in (*vocabulary.entries("trigger_endings"), *vocabulary.entries("answer_stems"),
                                      *shapes.ASSIGNMENT_WORDS)})


def words_of(text: str) -> list[str]:
    """The words of `text`, lower case, in order (letters only: digits and signs part them)."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered.translate(_NOT_LETTERS).split()
    spaced = lowered.encode("utf-8", "surrogatepass").translate(_NOT_LETTER_BYTES)
    return spaced.decode("utf-8", "surrogatepass").split()


def windows(text: str, words: list[str] | None = None) -> list[list[tuple[int, int]]]:
    """The windows to read, in order, apart: each the lines around what may be a secret, after the first
    line of the block they stand in when that block starts before them (pieces of `text`, to be read
    joined by a line break). `words`: words_of(text), when the caller has them."""
    lowered = text.lower()
    distinct = set(words_of(text) if words is None else words)
    anchors = distinct & _anchor_words()
    endings = _endings()
    anchors |= {w for w in distinct if _holds_an_ending(w, endings)}
    hints = [at for word in anchors for at in _all(lowered, word)]
    if not text.isascii():
        # Words for a password written without spaces (CJK, Indic); a word written to slip past a keyword
        # (accents, another script's look-alike letters, full-width forms, invisible characters between).
        hints += [at for needle in vocabulary.entries("trigger_texts") for at in _all(text, needle)]
        hints += [m.start() for m in _DISGUISED.finditer(text)]
        plain = {w: _plain(w) for w in distinct if not w.isascii()}
        hints += [m.start() for w, p in plain.items() if p in _anchor_words()
                  for m in re.finditer(re.escape(w), lowered)]
    # Each pattern is scanned only when the text holds the characters side by side that every match of it
    # holds (found in a copy of the text one byte a character class: a few milliseconds, against 10-35 ms a
    # scan of a megabyte); the same matches, as a text without them has none.
    classes = _classes(text)
    for pattern, needs in ((_LEET, (b"a0", b"$0", b"0a", b"0$")), (_DIGIT_SHAPES, (b"000",)),
                           (_LETTER_SHAPES, (b"aa00",)), (_LONG_RUN, ())):
        if classes is None or not needs or any(need in classes for need in needs):
            hints += [m.start() for m in pattern.finditer(text)]
    held: dict[str, bool] = {}
    for needle in (*_LITERALS, *shapes.LITERAL_NEEDLES):
        # a needle one of whose characters the text lacks is not looked for (a character is found at C speed)
        if all(held[c] if c in held else held.setdefault(c, c in text) for c in needle):
            hints += _all(text, needle)
    spans: list[list[int]] = []
    pending = -1  # the last hint merged into spans[-1] whose window's end is not read yet
    for at in sorted(set(hints)):
        # A window that starts (a line's start is no later than `at - MARGIN`) inside the last span merges into
        # it: only the last of such a chain is read for its end (a line's end is further for a later hint).
        if spans and at - MARGIN <= spans[-1][1]:
            pending = at
            continue
        if pending >= 0:
            spans[-1][1] = max(spans[-1][1], _line_end(text, min(len(text), pending + MARGIN)))
            pending = -1
            if at - MARGIN <= spans[-1][1]:
                pending = at
                continue
        start, end = _line_start(text, max(0, at - MARGIN)), _line_end(text, min(len(text), at + MARGIN))
        if spans and start <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    if pending >= 0:
        spans[-1][1] = max(spans[-1][1], _line_end(text, min(len(text), pending + MARGIN)))
    out = []
    for start, end in spans:
        block = _block_start(text, start)
        header = text.find("\n", block, start)
        out.append([(block, header), (start, end)] if block < start and header > block else [(start, end)])
    return out


# ASCII letters read "a", digits "0", "@" and "$" read "$", every other byte (all of a character that is not
# ASCII) "." : the characters the shapes above are made of, side by side as in the text.
_CLASSES = bytes.maketrans(bytes(range(256)), bytes(
    ord("a") if chr(b).isascii() and chr(b).isalpha() else ord("0") if chr(b).isascii() and chr(b).isdigit()
    else ord("$") if chr(b) in "@$" else ord(".") for b in range(256)))


def _classes(text: str) -> bytes | None:
    """The text one byte a class of character (_CLASSES), or None when it holds a decimal digit other than 0-9
    (the patterns' \\d matches it, the classes do not read it)."""
    if not text.isascii() and any(not c.isascii() and c.isdecimal() for c in set(text)):
        return None
    return text.encode("utf-8", "surrogatepass").translate(_CLASSES)


def _holds_an_ending(word: str, endings: tuple[str, ...]) -> bool:
    """Whether `word` holds one of `endings`; in a long word (a pasted run of letters) only the endings
    whose letters it holds are looked for."""
    if len(word) > 64:
        letters = set(word)
        return any(e in word for e in endings if letters.issuperset(e))
    return any(e in word for e in endings)


def _plain(word: str) -> str:
    """A word without its accents ("pässwörd" -> "password")."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _all(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _line_start(text: str, at: int) -> int:
    found = text.rfind("\n", max(0, at - _MAX_LINE), at)
    return found + 1 if found >= 0 else max(0, at - _MAX_LINE) if at > _MAX_LINE else 0


def _line_end(text: str, at: int) -> int:
    found = text.find("\n", at, at + _MAX_LINE)
    return found if found >= 0 else min(len(text), at + _MAX_LINE)


def _block_start(text: str, at: int) -> int:
    """Where the block (the lines since the last blank line) that `at` stands in starts, a block back at most."""
    found = text.rfind("\n\n", max(0, at - 50_000), at)
    return found + 2 if found >= 0 else max(0, at - 50_000) if at > 50_000 else 0
