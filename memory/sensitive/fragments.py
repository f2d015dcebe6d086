"""Pieces of a sensitive value, wherever they are in a text: the outbound gate's last step.

A value restored locally for a tool call can come back cut, quoted or reformatted: an error message
cut at 77 characters holds 10 of the 12 words of a recovery phrase; `!r` writes it in quotes with
escapes; a tool lower-cases it or joins its words with commas. `withhold_fragments(text, values)`
replaces, in `text`, every run of 8 characters or more (MIN_CHARACTERS) and every run of 3 words or
more (MIN_WORDS) of any of `values`, and each value whole (as its own word or words) whatever its
length, by WITHHELD: a 4-digit PIN echoed in a reply goes too. Two texts are compared as read, not as written:
- case, compatibility forms and accents folded ("HUNTER", "ｈｕｎｔｅｒ", "hünter" read "hunter");
- escapes decoded, one level and two (`\\'`, `\\"`, `\\\\`, `\\n`, `\\t`, `\\xNN`, `\\uNNNN`: repr and JSON);
- characters compared as the value's letters and digits in order, whatever stands between them, so
  "Qx7 hunter22", "qx7_hunter22" and "'Qx7-hunter22'" are all "qx7hunter22"; a run counts the
  value's characters it spans, its signs included; a run of signs ("!@#$%^&*") is compared as
  written, spaces aside;
- words are a value's runs of letters and digits; the first and the last of a run of words may be
  cut ("…orse battery staple", "rookie tornado tw…").
A piece found inside a longer word takes the whole word with it ("myhunter22" goes whole), so no
shorter piece is left beside the replacement.

Pass the secret values (`find_secrets` spans, a turn's placeholders' values), not whole memories: a
memory's ordinary words ("my bank password is") would be withheld wherever three of them follow each
other.
"""
from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from memory.sensitive.view import own_marks

WITHHELD = "[secret withheld]"
MIN_CHARACTERS = 8
MIN_WORDS = 3
_GRAM = 5       # letters and digits in a row that every run of 8 characters of a value holds, or its signs do

# The escapes of Python's repr and of JSON; a backslash before anything else is left as written.
_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[\\'\"/nrtbfva0])")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "a": "\a"}
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_ALNUM = re.compile(r"[^\W_]+")
_SIGNS = re.compile(r"[^\w\s]")


@dataclass(slots=True)
class _Read:
    """A text as compared (`text`), read from `source` (None: from the text as given, character for
    character). Each segment of `text` from `starts[k]` on came from `sources[k]` of the source: a copy
    (character for character) or one unit (an escape, a letter folded to several or none)."""

    text: str
    source: _Read | None = None
    starts: list[int] = field(default_factory=list)
    sources: list[tuple[int, int, bool]] = field(default_factory=list)  # (start, end, copy)

    def origin(self, start: int, end: int) -> tuple[int, int]:
        """Where text[start:end] came from in the text as given."""
        if self.source is None:
            return start, end
        if self.starts:
            start, end = self._from(start)[0], self._from(end - 1)[1]
        return self.source.origin(start, end)

    def _from(self, i: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.starts, i) - 1
        start, end, copy = self.sources[k]
        if copy:
            return start + i - self.starts[k], start + i - self.starts[k] + 1
        return start, end


class _Builder:
    """Builds a _Read from its source, a piece at a time."""

    def __init__(self, source: _Read) -> None:
        self.source = source
        self.parts: list[str] = []
        self.starts: list[int] = []
        self.sources: list[tuple[int, int, bool]] = []
        self.length = 0

    def copy(self, text: str, start: int) -> None:
        if text:
            self.parts.append(text)
            self.starts.append(self.length)
            self.sources.append((start, start + len(text), True))
            self.length += len(text)

    def unit(self, text: str, start: int, end: int) -> None:
        if text:
            self.parts.append(text)
            self.starts.append(self.length)
            self.sources.append((start, end, False))
            self.length += len(text)

    def read(self) -> _Read:
        return _Read("".join(self.parts), self.source, self.starts, self.sources)


@dataclass(slots=True)
class _Skeleton:
    """A read text's letters and digits in a row (`chars`) and its words (runs of letters and digits),
    with where each word starts in `chars`; where each is in the read text is found only when a piece
    was (most requests hold none)."""

    read: str
    chars: str
    words: list[str]
    word_at: list[int]
    word_starts: set[int]
    word_ends: set[int]
    _word_from: list[int] | None = None

    def origin(self, start: int, end: int) -> tuple[int, int]:
        """Where chars[start:end] is in the read text."""
        if self._word_from is None:
            self._word_from = [m.start() for m in _ALNUM.finditer(self.read)]
        first = bisect.bisect_right(self.word_at, start) - 1
        last = bisect.bisect_right(self.word_at, end - 1) - 1
        return (self._word_from[first] + start - self.word_at[first],
                self._word_from[last] + end - self.word_at[last])


@dataclass(slots=True)
class _Value:
    skeleton: _Skeleton
    signs: str          # the value without its spaces, when a run of 8 of it holds 4 signs or more


def withhold_fragments(text: str, values: Iterable[str], replacement: str = WITHHELD) -> str:
    """`text` with every run of 8+ characters or 3+ words of any of `values`, and each value whole,
    replaced by `replacement` (the module's docstring says how texts are compared)."""
    given = {value for value in values if value and value.strip()}
    prepared = [v for v in map(_value, given) if v]
    if not text or not prepared:
        return text
    ranges: list[tuple[int, int]] = []
    for read in _readings(text, any("\\" in value for value in given)):
        ranges += [read.origin(s, e) for s, e in _matches(read, prepared)]
    ranges = _outside(ranges, own_marks(text))
    if not ranges:
        return text
    out: list[str] = []
    position = 0
    for start, end in _merged(text, ranges):
        out += [text[position:start], replacement]
        position = end
    out.append(text[position:])
    return "".join(out)


def _outside(ranges: list[tuple[int, int]], marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges with what lies inside the app's own marks cut away: a placeholder is never replaced, whatever
    value it holds the letters of (an attacker's "[[secret withheld] memory #37]", after "secret" and "code"
    were taken for values)."""
    for mark_start, mark_end in marks:
        cut: list[tuple[int, int]] = []
        for start, end in ranges:
            if end <= mark_start or start >= mark_end:
                cut.append((start, end))
                continue
            cut += [r for r in ((start, mark_start), (mark_end, end)) if r[1] > r[0]]
        ranges = cut
    return ranges


# -- reading ---------------------------------------------------------------------------------

def _readings(text: str, raw: bool) -> list[_Read]:
    """The text folded; when it holds escapes, decoded (once, and again while escapes are left) and
    folded instead, and as written too when a value holds a backslash itself (`raw`)."""
    current = _Read(text)
    if not _ESCAPE.search(text):
        return [_fold(current)]
    readings = [_fold(current)] if raw else []
    for _ in range(2):
        if not _ESCAPE.search(current.text):
            break
        current = _decode(current)
        readings.append(_fold(current))
    return readings


def _decode(source: _Read) -> _Read:
    text = source.text
    built = _Builder(source)
    position = 0
    for match in _ESCAPE.finditer(text):
        built.copy(text[position:match.start()], position)
        escape = match.group(0)
        if escape[1] in "uUx" and len(escape) > 2:
            code = int(escape[2:], 16)
            char = chr(code) if code <= 0x10FFFF else " "
        else:
            char = _SIMPLE_ESCAPES.get(escape[1], escape[1])
        built.unit(char, match.start(), match.end())
        position = match.end()
    built.copy(text[position:], position)
    return built.read()


def _fold(source: _Read) -> _Read:
    """Case, compatibility forms and accents folded."""
    text = source.text
    if text.isascii():
        return _Read(text.lower(), source)
    built = _Builder(source)
    position = 0
    for match in _NON_ASCII.finditer(text):
        built.copy(text[position:match.start()].lower(), position)
        run = match.group(0)
        lowered = run.lower()
        if len(lowered) == len(run) and lowered == run.casefold() and unicodedata.is_normalized("NFKD", run) \
                and not any(unicodedata.combining(c) for c in run):
            built.copy(lowered, match.start())
        else:
            for offset, char in enumerate(run):
                folded = "".join(c for c in unicodedata.normalize("NFKD", char)
                                 if not unicodedata.combining(c)).casefold()
                built.unit(folded, match.start() + offset, match.start() + offset + 1)
        position = match.end()
    built.copy(text[position:].lower(), position)
    return built.read()


def _skeleton(text: str) -> _Skeleton:
    words = _ALNUM.findall(text)
    word_at = [0, *itertools.accumulate(map(len, words))]
    length = word_at.pop()
    return _Skeleton(text, "".join(words), words, word_at, set(word_at), {*word_at[1:], length} if words else set())


@lru_cache(maxsize=4096)
def _value(value: str) -> _Value | None:
    """A value as compared (remembered: the gate and every write compare the same values again)."""
    read = _fold(_Read(value))
    skeleton = _skeleton(read.text)
    signs = "".join(read.text.split()) if _has_sign_run(read.text) else ""
    if not skeleton.chars and not signs:
        return None
    return _Value(skeleton, signs)


def _has_sign_run(text: str) -> bool:
    """Whether some run of 8 characters of `text` (spaces aside) holds fewer than _GRAM letters and
    digits, which the comparison of letters and digits cannot see."""
    compact = "".join(text.split())
    return len(compact) >= MIN_CHARACTERS and any(
        sum(not c.isalnum() for c in compact[i:i + MIN_CHARACTERS]) > MIN_CHARACTERS - _GRAM
        for i in range(len(compact) - MIN_CHARACTERS + 1))


# -- matching --------------------------------------------------------------------------------

def _matches(read: _Read, values: list[_Value]) -> list[tuple[int, int]]:
    """Ranges of `read.text` that hold a piece of a value."""
    skeleton = _skeleton(read.text)
    found: list[tuple[int, int]] = []  # in skeleton positions, end exclusive
    found += _character_runs(skeleton, values)
    found += _word_runs(skeleton, values)
    found += [(s, e) for s, e in _whole_values(skeleton, values) if _one_piece(read.text, *skeleton.origin(s, e))]
    ranges = [skeleton.origin(s, e) for s, e in _to_words(skeleton, found)]
    ranges += _sign_runs(read.text, values)
    return ranges


def _character_runs(skeleton: _Skeleton, values: list[_Value]) -> list[tuple[int, int]]:
    """Runs of a value's letters and digits, _GRAM or more, that span 8+ of its characters. A run
    starts where a word of the text or of the value does (_trimmed), so only those places are tried:
    the text's words against every place of the values, the values' words found in the text."""
    index: dict[str, list[tuple[int, int]]] = {}
    for number, value in enumerate(values):
        chars = value.skeleton.chars
        for j in range(len(chars) - _GRAM + 1):
            index.setdefault(chars[j:j + _GRAM], []).append((number, j))
    if not index:
        return []
    text = skeleton.chars
    starts = [(i, number, j) for i in skeleton.word_at for number, j in index.get(text[i:i + _GRAM], ())]
    for number, value in enumerate(values):
        for j in value.skeleton.word_at:
            gram = value.skeleton.chars[j:j + _GRAM]
            i = text.find(gram) if len(gram) == _GRAM else -1
            while i >= 0:
                starts.append((i, number, j))
                i = text.find(gram, i + 1)
    found = []
    reached: dict[tuple[int, int], int] = {}  # (value, diagonal) -> how far a run along it was followed
    for i, number, j in sorted(starts):
        diagonal = (number, i - j)
        if reached.get(diagonal, -1) > i:
            continue
        chars = values[number].skeleton.chars
        length = _GRAM
        while i + length < len(text) and j + length < len(chars) and text[i + length] == chars[j + length]:
            length += 1
        reached[diagonal] = i + length
        start, end = _trimmed(skeleton, values[number].skeleton, i, j, length)
        if end > start and _spans_enough(skeleton, start, end, values[number], j + start - i):
            found.append((start, end))
    return found


def _trimmed(text: _Skeleton, value: _Skeleton, i: int, j: int, length: int) -> tuple[int, int]:
    """The run text[i:i+length] == value[j:j+length] cut so that each end is where a word of the text
    or of the value starts or ends: a cut piece of the value ("orse battery") or the value inside a
    longer word ("myhunter22"), not the end of an ordinary word that happens to be the end of one of
    the value's ("th|e battery" against "hors|e battery")."""
    start, end = i, i + length
    while start < end and start not in text.word_starts and j + start - i not in value.word_starts:
        start += 1
    while end > start and end not in text.word_ends and j + end - i not in value.word_ends:
        end -= 1
    return start, end


def _spans_enough(text: _Skeleton, start: int, end: int, value: _Value, at: int) -> bool:
    """Whether the run text.chars[start:end] == value.chars[at:at + end - start] spans 8 characters of
    the value or more: its letters and digits, the value's signs between them, and the signs the text
    repeats at either end ("!2024pas" of "Gh!2024pass"). A whole value shorter than that is
    _whole_values's, at word boundaries only."""
    if end - start >= MIN_CHARACTERS:
        return True
    first, last = value.skeleton.origin(at, at + end - start)
    text_first, text_last = text.origin(start, end)
    source, read = value.skeleton.read, text.read
    while first > 0 and text_first > 0 and not source[first - 1].isalnum() and not source[first - 1].isspace() \
            and read[text_first - 1] == source[first - 1]:
        first, text_first = first - 1, text_first - 1
    while last < len(source) and text_last < len(read) and not source[last].isalnum() \
            and not source[last].isspace() and read[text_last] == source[last]:
        last, text_last = last + 1, text_last + 1
    return last - first >= MIN_CHARACTERS


def _word_runs(skeleton: _Skeleton, values: list[_Value]) -> list[tuple[int, int]]:
    """Runs of 3 words or more of a value, the first and the last perhaps cut."""
    index: dict[str, list[tuple[int, int]]] = {}
    for number, value in enumerate(values):
        for k, word in enumerate(value.skeleton.words):
            index.setdefault(word, []).append((number, k))
    text_words = skeleton.words
    found = []
    reached: dict[tuple[int, int], int] = {}
    for p, word in enumerate(text_words):
        for number, k in index.get(word, ()):
            diagonal = (number, p - k)
            if reached.get(diagonal, -1) > p:
                continue
            value_words = values[number].skeleton.words
            length = 1
            while p + length < len(text_words) and k + length < len(value_words) \
                    and text_words[p + length] == value_words[k + length]:
                length += 1
            reached[diagonal] = p + length
            first, last = p, p + length - 1
            if p > 0 and k > 0 and value_words[k - 1].endswith(text_words[p - 1]):
                first -= 1
            if last + 1 < len(text_words) and k + length < len(value_words) \
                    and value_words[k + length].startswith(text_words[last + 1]):
                last += 1
            if last - first + 1 >= MIN_WORDS:
                found.append((skeleton.word_at[first], skeleton.word_at[last] + len(text_words[last])))
    return found


def _whole_values(skeleton: _Skeleton, values: list[_Value]) -> list[tuple[int, int]]:
    """Each value whole, as its own word or words ("44 71" in "PIN 4471"), whatever its length."""
    found = []
    text = skeleton.chars
    for value in values:
        chars = value.skeleton.chars
        if not chars:
            continue
        start = text.find(chars)
        while start >= 0:
            if start in skeleton.word_starts and start + len(chars) in skeleton.word_ends:
                found.append((start, start + len(chars)))
            start = text.find(chars, start + 1)
    return found


def _one_piece(text: str, start: int, end: int) -> bool:
    """Whether a value found whole across words of `text` stands in one piece there: no line break or bracket
    between its words ("7)\n- #1" of a list is no "71": a tester saw the garage code's "ends in 71" eat a line's
    date and the next line's number)."""
    return not any(c in "\n()[]{}" for c in text[start:end])


def _to_words(skeleton: _Skeleton, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each run widened to the words it touches, so no piece of a word is left beside it."""
    widened = []
    for s, e in found:
        first = bisect.bisect_right(skeleton.word_at, s) - 1
        last = bisect.bisect_right(skeleton.word_at, e - 1) - 1
        widened.append((skeleton.word_at[first], skeleton.word_at[last] + len(skeleton.words[last])))
    return widened


def _sign_runs(text: str, values: list[_Value]) -> list[tuple[int, int]]:
    """Runs of 8+ characters of a value rich in signs, compared as written but for spaces."""
    signed = [v for v in values if v.signs]
    if not signed:
        return []
    compact_at = [i for i, c in enumerate(text) if not c.isspace()]
    compact = "".join(text[i] for i in compact_at)
    found = []
    for value in signed:
        for j in range(len(value.signs) - MIN_CHARACTERS + 1):
            piece = value.signs[j:j + MIN_CHARACTERS]
            if not _SIGNS.search(piece):
                continue
            start = compact.find(piece)
            while start >= 0:
                found.append((compact_at[start], compact_at[start + MIN_CHARACTERS - 1] + 1))
                start = compact.find(piece, start + 1)
    return found


def _merged(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges in order, overlapping ones and ones apart by a few signs or spaces joined."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and (start <= merged[-1][1] or start - merged[-1][1] <= 3
                       and not _ALNUM.search(text, merged[-1][1], start)):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]
