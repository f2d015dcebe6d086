"""The sensitivity detector: where the secrets are in a text.

One detector for every use: at write time `is_sensitive` marks a memory that holds a secret (it then
goes to a model whole as "[secret in memory #12]"), and in messages `find_secrets` gives the spans that
become numbered placeholders ("[secret 1 of your message]"); `redact` replaces them in one call.

What it finds (docs/secrets.md has the list, the misses, and the measured precision and recall):
- values led by a word that names a secret, in English, German, French, Spanish, Italian, Dutch and
  Portuguese (and the word for password in 17 others): passwords, PINs, passcodes, door and alarm codes,
  combinations, passphrases, tokens, keys; a value of several words, digits with spaces, number words,
  several secrets in one line (keywords.py);
- secrets known by their shape: private key blocks, provider keys and tokens, JWTs, authorization
  headers, credentials in a URL or a command line, config assignments (shapes.py);
- number-shaped identifiers checked by python-stdnum: payment cards with their CVV, IBANs, national
  ids (numbers.py);
- BIP-39 recovery phrases (phrases.py);
- values named by what they open, without a word for a secret: "garage opener: 7731", "bank:
  Qx7-hunter22", "padlock opens with 3719" (labels.py);
- tables (Markdown, CSV, TSV, HTML), key: value blocks and lists read as records, a cell judged by its
  header or key; a credential-shaped value ("New!Pw37") anywhere in a sentence or record that names a
  secret (records.py, values.py);
- beside a secret found, the next values of its list and a number that logs in beside a password
  ("PIN 6203 for the Halifax card, 9931 for the Monzo one": alongside.py).
The text is read through a view that folds invisible characters and look-alike keywords ("pássword",
"p1n", "P I N", "passwordpassword") and skips the app's own date annotations and placeholders
(view.py).

And for the outbound gate's last step, `withhold_fragments(text, values)` replaces any run of 8+
characters or 3+ words of a sensitive value left in a request, however it was cut, quoted or
reformatted (fragments.py).
"""
from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from memory.sensitive import (
    alongside,
    keywords,
    labels,
    meaning,
    numbers,
    phrases,
    records,
    shapes,
    vocabulary,
    windows,
)
from memory.sensitive.fragments import WITHHELD, withhold_fragments
from memory.sensitive.values import alike
from memory.sensitive.view import view_of

MASK = "[secret]"  # as the exports write a secret: one word for it wherever the app writes text
FLAGGED = "secret"  # the kind of a span found where the classifier said a text holds a secret
_DELIMITERS = "|\t"
_VALUE = re.compile(r"[^\W_]|[^\s|]{4}")  # a letter or a digit, or four signs in a row
# When two detectors claim overlapping text, the merged span is named by the more specific one.
_PRECEDENCE = ("private_key", "recovery_phrase", "card", "iban", "bank_account", "national_id", "token", "key",
               "credential", "pin", "code", "combination")


@dataclass(frozen=True, slots=True)
class Span:
    """A secret VALUE in a text: text[start:end], and what kind of secret it is."""

    start: int
    end: int
    kind: str

    def value(self, text: str) -> str:
        return text[self.start:self.end]


def find_secrets(text: str, flagged: bool = False) -> list[Span]:
    """The secrets in `text`, in order; overlapping findings are merged, so spans never overlap.
    `flagged`: the text is known to hold a secret the rules may not see (the classifier said so, or its
    memory is marked): what looks like a value in it (meaning.candidates: digit runs, tokens, quoted
    values, number words) is a secret too. A long text is read around what may be a secret (windows.py)."""
    if not text:
        return []
    found: Iterable[tuple[int, int, str]] = _read_once(text)
    if flagged:
        found = itertools.chain(found, ((start, end, FLAGGED) for start, end in meaning.candidates(text)))
    elif found and len(text) <= ALIKE_WITHIN:
        found = itertools.chain(found, _alike_beside(text, tuple(found)))
    return _merged(found)


ALIKE_WITHIN = 2_000  # characters: a text this short is read for values shaped as its secrets


def _alike_beside(text: str, found: tuple[tuple[int, int, str], ...]) -> Iterator[tuple[int, int, str]]:
    """Tokens of the shape of a secret found in the same text: a correction or a second guess beside it is one
    too ("wifi password is blue-fish-42, oops I mean red-fish-43": an attacker's)."""
    secrets = [(text[start:end], kind) for start, end, kind in found]
    for start, end in meaning.candidates(text):
        said = text[start:end]
        if said.isdigit():
            continue  # digits beside a code are read by alongside.py, which knows a time, a price, a count
        kind = next((kind for value, kind in secrets if value != said and alike(said, value)), None)
        if kind is not None:
            yield start, end, kind


def is_sensitive(text: str) -> bool:
    """Whether the rules find a secret in `text` (stops at the first one). The classifier's opinion is asked
    apart (`needs_opinion`, meaning.flags), where the text's embedding is at hand."""
    return bool(text) and bool(_read_once(text))


@lru_cache(maxsize=256)
def _read_once(text: str) -> tuple[tuple[int, int, str], ...]:
    """The findings of a text, remembered for the texts read last: a write and the exits read one text
    several times (is it sensitive, where are its secrets, does the classifier's opinion count)."""
    return tuple(_read(text))


def _read(text: str) -> Iterator[tuple[int, int, str]]:
    """The detectors' findings in `text` (spans of `text`): read whole, or a long one in windows."""
    if len(text) <= windows.LONG:
        view = view_of(text)
        for start, end, kind in _findings(view.text, view.words):
            yield (*view.origin(start, end), kind)
        return
    words = windows.words_of(text)
    for pieces in windows.windows(text, words):
        read = "\n".join(text[s:e] for s, e in pieces)
        view = view_of(read)
        for start, end, kind in _findings(view.text, view.words):
            start, end = view.origin(start, end)
            at = 0
            for s, e in pieces:  # back to where the piece stands in `text` (a span never crosses two)
                if at <= start and end <= at + e - s:
                    yield s + start - at, s + end - at, kind
                    break
                at += e - s + 1
    for start, end, kind in phrases.find(text, None, words):
        yield start, end, kind


def needs_opinion(text: str) -> bool:
    """Whether the classifier's opinion of `text` counts: the rules find nothing, yet it holds a word a
    secret hangs on and something shaped like a value (memory/sensitive/meaning.py). The classifier reads
    the embedding of a text's first 2,000 characters: a longer text is left to the rules."""
    if not text or len(text) > windows.LONG or _read_once(text):
        return False
    view = view_of(text)
    return meaning.worth_asking(view.text, view.words)


def secret_values(text: str, sensitive: bool) -> list[str]:
    """The secret values of a text as the exits withhold them: the rules' spans; for a text marked
    sensitive that the rules find nothing in (the classifier flagged it, or its writer marked it), what
    looks like a value in it."""
    spans = find_secrets(text)
    if not spans and sensitive:
        spans = find_secrets(text, flagged=True)
    return [span.value(text) for span in spans]


def _findings(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    found = list(_detected(text, words))
    found += alongside.find(text, found)
    yield from found
    yield from _restated(text, found)


def _detected(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    for detector in (shapes.find, numbers.find, phrases.find, keywords.find, labels.find, records.find):
        for start, end, kind in detector(text, words):
            # A value is never its delimiters nor the spaces around it, nor punctuation alone: a span
            # " |" once made every "|" of a turn's tool results a placeholder.
            while start < end and (text[start].isspace() or text[start] in _DELIMITERS):
                start += 1
            while end > start and (text[end - 1].isspace() or text[end - 1] in _DELIMITERS):
                end -= 1
            if end > start and _VALUE.search(text, start, end):
                yield start, end, kind


# Four digits or more, with spaces, dots or dashes between them (the view writes digits said as words
# as digits with spaces: "four four one seven" reads "4 4 1 7").
_DIGIT_RUN = re.compile(r"(?<![^\W_])\d(?:[ .-]?\d){3,}(?![^\W_])")


def _restated(text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """A secret said again in the same text, in other spacing or in words ("the lockbox code is 4417. to
    repeat that: four four one seven"): the same digits, four or more, are the same secret (SPEC F14); and
    after blind round 10, a value with letters said again ("the answer is Dundee"), or spelt a character at a
    time then said whole ("1 2 3 4 B, I mean 1234B"; "6 six 0 zero... ok 6600"): the same characters, four
    or more, whatever the spaces, dots or dashes between them."""
    kinds: dict[str, str] = {}
    worded: dict[str, str] = {}
    for start, end, kind in found:
        said = _compact(text[start:end])
        if said.isdigit():
            if len(said) >= 4:
                kinds.setdefault(said, kind)
        elif 4 <= len(said) <= 64 and any(c.isalpha() for c in said):
            worded.setdefault(said.lower(), kind)
    if not kinds and not worded:
        return
    covered = _covering(found)
    for run in _DIGIT_RUN.finditer(text) if kinds else ():
        said_again = kinds.get(re.sub(r"\D", "", run.group()))
        if said_again is not None and not covered(run.start(), run.end()):
            yield run.start(), run.end(), said_again
    if worded:
        # one pass over the text without its spaces, dots and dashes, each value looked up as a string: a
        # pattern compiled for each value made a paste of a thousand logins take seconds (blind round 10's rule)
        compact, where = _folded(text)
        for value, kind in worded.items():
            at = compact.find(value)
            while at >= 0:
                start, end = where[at], where[at + len(value) - 1] + 1
                if _spaced_once(where, at, len(value)) and not _WORDISH.match(text[start - 1:start]) and \
                        not _WORDISH.match(text[end:end + 1]) and not covered(start, end):
                    yield start, end, kind
                at = compact.find(value, at + 1)


_WORDISH = re.compile(r"[^\W_]")
_SPACING = frozenset(" .-")


def _folded(text: str) -> tuple[str, list[int]]:
    """The text lower case without its spaces, dots and dashes, and where each of its characters stands in it."""
    chars: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        if char not in _SPACING:
            for lower in char.lower():
                chars.append(lower)
                where.append(index)
    return "".join(chars), where


def _spaced_once(where: list[int], at: int, length: int) -> bool:
    """Whether the characters found at `at` stand at most one space, dot or dash apart in the text."""
    return all(where[n + 1] - where[n] <= 2 for n in range(at, at + length - 1))


def _covering(found: list[tuple[int, int, str]]) -> Callable[[int, int], bool]:
    """Whether a span lies inside one of `found`'s, asked in logarithmic time (a paste finds thousands)."""
    spans = sorted((s, e) for s, e, _ in found)
    starts = [s for s, _ in spans]
    reach = list(itertools.accumulate((e for _, e in spans), max))

    def covered(start: int, end: int) -> bool:
        n = bisect.bisect_right(starts, start) - 1
        return n >= 0 and reach[n] >= end

    return covered


def _compact(value: str) -> str:
    """A value without its spaces, dots and dashes; spelt a character at a time, its digits' words as digits
    ("6 six 0 zero": "6600")."""
    words = value.split()
    digits = vocabulary.digits()
    if len(words) > 1 and all(len(w) == 1 or w.lower() in digits for w in words):
        return "".join(digits.get(w.lower(), w) for w in words)
    return re.sub(r"[\s.\-]", "", value)


def redact(text: str, mask: str | Callable[[str], str] = MASK, flagged: bool = False) -> str:
    """`text` with every secret replaced by `mask`, or by what `mask(secret)` returns (a numbered
    placeholder whose value the caller keeps, to put it back into what the model writes); the callable
    is called once per secret, in the order they appear. `flagged`: as for find_secrets."""
    if not text:
        return text
    spans = find_secrets(text, flagged)
    if not spans:
        return text
    out: list[str] = []
    position = 0
    for span in spans:
        out.append(text[position:span.start])
        out.append(mask(span.value(text)) if callable(mask) else mask)
        position = span.end
    out.append(text[position:])
    return "".join(out)


def _merged(found: Iterable[tuple[int, int, str]]) -> list[Span]:
    spans: list[Span] = []
    for start, end, kind in sorted(found):
        if spans and start < spans[-1].end:
            last = spans[-1]
            spans[-1] = Span(last.start, max(last.end, end), min(last.kind, kind, key=_rank))
        else:
            spans.append(Span(start, end, kind))
    return spans


def _rank(kind: str) -> int:
    return _PRECEDENCE.index(kind) if kind in _PRECEDENCE else len(_PRECEDENCE)


__all__ = ["FLAGGED", "MASK", "WITHHELD", "Span", "find_secrets", "is_sensitive", "needs_opinion", "redact",
           "secret_values", "withhold_fragments"]
