"""The text the detectors read, with a map back to the text they were given.

Two things stand between a keyword and its value without being part of either, and the view takes
them out while keeping every offset recoverable:
- invisible format characters and compatibility forms ("pass\u200bword", fullwidth "ｐａｓｓｗｏｒｄ"):
  dropped or folded (NFKC per character cluster), so an attacker's spelling reads as the word;
- what the app itself writes into stored text: a date annotation after a relative date ("the gym
  locker pin for tomorrow [Tue Nov 24] 4471"), the day a memory was written ("[Nov 22] ..."), and its
  own placeholders ("[secret 1 of your message]", "[REDACTED]"): blanked to spaces of the same length,
  so "pin for tomorrow [Tue Nov 24] 4471" reads "pin for tomorrow 4471" and a placeholder is never
  taken for a value;
- look-alike letters inside a Latin word: a Cyrillic or Greek "а" in "pаssword" reads as the Latin
  letter (one character for one, so offsets do not move), and the Unicode line separators read as a
  newline;
- a word for a secret written to slip past a keyword: with accents or combining marks ("pássword"),
  in leetspeak before its value ("p1n: 3131", "my passw0rd is"), letter by letter ("P I N: 9191",
  "p.a.s.s.w.o.r.d"), or doubled ("passwordpassword: X"): read as the plain word, padded with spaces
  to the same length, so offsets do not move. Only words for a secret are folded so: a value written
  in leetspeak ("password: s3cret") is left as it is.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from memory.sensitive import vocabulary

# Unicode format characters (category Cf) that render as nothing: soft hyphen, zero-width space and
# joiners, direction marks and overrides, invisible operators (U+2061..2064), word joiner, BOM.
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]")
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
# What memory/time/references.py (Resolved.describe) and the prompt's day prefix write, and the
# placeholders the app puts where a secret or a private memory was.
_ANNOTATION = re.compile(
    rf"\[(?:(?:{_DAY},?\s+)?{_MONTH}\.?\s+\d{{1,2}}(?:,?\s+\d{{4}})?|the week of {_MONTH}\.? \d{{1,2}}(?:,? \d{{4}})?"
    rf"|{_MONTH} \d{{4}}|\d{{4}}(?:-\d{{2}}-\d{{2}})?(?: \d{{2}}:\d{{2}})?"
    r"|(?P<placeholder>secret (?:\d+ of|in) [^\[\]\n]{1,40}|secret withheld|private memory #\d+"
    r"|a private memory, withheld|REDACTED|secret|forgotten))\]|(?P<hidden>•{4})")


_WORD = re.compile(r"[^\W\d_]+")
# Cyrillic and Greek letters drawn like Latin ones, and the separators that render as a line break.
_LOOKALIKES = str.maketrans("аеорсхуіѕјԁһкмтнвАЕОРСХУІЅЈКМТНВαοριυκνΑΒΕΗΙΚΜΝΟΡΤΧΥΖ\u2028\u2029\u0085",
                            "aeopcxyisjdhkmthbAEOPCXYISJKMTHBaopiukvABEHIKMNOPTXYZ\n\n\n")
_MIXED = re.compile(r"[^\W\d_]*(?:[a-zA-Z][^\W\d_]*[\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff]"
                    r"[^\W\d_]*[a-zA-Z])[^\W\d_]*|[\u2028\u2029\u0085]")


_OTHER_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u2028\u2029\u0085]")


@dataclass(frozen=True, slots=True)
class View:
    """`text` as the detectors read it; `origin(start, end)` maps a span of it back to the input."""

    text: str
    words: frozenset[str]            # its words, lower case: detectors skip a text without their words
    starts: list[int] | None = None  # for each view character, where its source begins in the input
    ends: list[int] | None = None    # ... and where it ends

    def origin(self, start: int, end: int) -> tuple[int, int]:
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def view_of(text: str) -> View:
    if text.isascii() or (not _INVISIBLE.search(text) and unicodedata.is_normalized("NFKC", text)
                          and not _MARKED.search(text)):
        return _respelt(_read(text))
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    # ASCII is left as it is, one character for one (a pasted megabyte is mostly ASCII: a cluster at a time
    # in Python took 8 s); the runs of other characters are read a cluster at a time.
    for run in _NOT_ASCII_RUN.finditer(text):
        if run.start() > position:
            out.append(text[position:run.start()])
            starts.extend(range(position, run.start()))
            ends.extend(range(position + 1, run.start() + 1))
        # A cluster is a character with the combining marks after it: NFKC composes within it only.
        for cluster in _CLUSTER.finditer(text, run.start(), run.end()):
            if _INVISIBLE.fullmatch(cluster.group(0)):
                continue
            folded = unicodedata.normalize("NFKC", _INVISIBLE.sub("", cluster.group(0)))
            out.append(folded)
            starts.extend([cluster.start()] * len(folded))
            ends.extend([cluster.end()] * len(folded))
        position = run.end()
    if position < len(text):
        out.append(text[position:])
        starts.extend(range(position, len(text)))
        ends.extend(range(position + 1, len(text) + 1))
    read = _read("".join(out))
    return _respelt(View(read.text, read.words, starts, ends))


_CLUSTER = re.compile(r".[\u0300-\u036f]*", re.S)
# Characters other than ASCII, and an ASCII one a combining mark follows ("e\u0301").
_NOT_ASCII_RUN = re.compile(r"(?:[^\x00-\x7f]|[\x00-\x7f](?=[\u0300-\u036f]))+")


def _read(text: str) -> View:
    """Look-alike letters unmixed, disguised words folded, annotations blanked (all one for one)."""
    unmixed = _unmix(text)
    words = _words(unmixed)
    read = _blank_annotations(_fold_disguised(unmixed, words))
    return View(read, words if read == unmixed else _words(read))


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _unmix(text: str) -> str:
    """Look-alike letters in a word of mixed scripts folded to Latin, line separators to newlines."""
    if text.isascii():
        return text
    first = _OTHER_SCRIPT.search(text)
    if first is None:
        return text  # every match holds one of those characters: a megabyte with a few emoji costs one scan
    # A match never crosses a line break (it is letters, or one separator): the lines before the first such
    # character are left as they are (the pattern's leading letters made it read each word once per letter).
    start = text.rfind("\n", 0, first.start()) + 1
    return text[:start] + _MIXED.sub(lambda m: m.group(0).translate(_LOOKALIKES), text[start:])


def own_marks(text: str) -> list[tuple[int, int]]:
    """Where the app's own annotations and placeholders stand in `text` ("[Tue Nov 24]", "[secret withheld]",
    "[secret 1 of your message]", "••••"): never a secret's value, never to be replaced as one."""
    if "[" not in text and "\u2022" not in text:
        return []
    return [m.span() for m in _ANNOTATION.finditer(text)]


def _blank_annotations(text: str) -> str:
    if "[" not in text and "\u2022" not in text:
        return text
    return _ANNOTATION.sub(_blank, text)


def _blank(match: re.Match[str]) -> str:
    """A date annotation reads as spaces (the value comes after it); a placeholder as the end of a
    clause: the value it stands for was given there and is masked already, so the words after it are
    not read as that value ("password is [REDACTED] / what is ..." keeps its "what"), and a text masked
    once is the same text masked again."""
    if match.group("placeholder") or match.group("hidden"):
        return "." + " " * (len(match.group(0)) - 1)
    return " " * len(match.group(0))


# The words for a secret that are folded when disguised; what they are folded to is read by keywords.py.
DISGUISED = frozenset("""
password passwords passwort kennwort passcode passcodes passphrase pin pins pincode code codes secret login
token key wachtwoord senha heslo haslo parol pass combo combos combination
""".split())
_MARKED = re.compile(r"[^\W\d_][\u0300-\u036f]")  # a letter and a combining mark NFKC left apart
# A word with its accents and combining marks (\w does not take the marks).
_MARKED_WORD = re.compile(r"(?:[^\W\d_][\u0300-\u036f]*)+")
_SPACED = re.compile(r"(?<![^\W_])[^\W\d_](?:[ .\-_*·]{1,2}[^\W\d_]){2,13}(?![^\W_])(?:\.(?=\s|$))?")
_SPELT_WORD = re.compile(r"[^\W\d_](?:[ .\-_*·]?[^\W\d_])*")  # a word of a spelt sentence: letters one apart
_SPELT_COPULAS = frozenset("is ist est es".split())
_LEET = re.compile(r"(?<![\w@$])(?=[\w@$]*[^\W\d_])(?=[\w@$]*[\d@$])[\w@$]{3,12}(?![\w@$])")
_REPEATED_FORMS = frozenset(w * times for w in DISGUISED for times in (2, 3))
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_LEET_SIGN = re.compile(r"[\d@$]")
_LEET_HINT = re.compile(r"[^\W\d_][\d@$]|[\d@$][^\W\d_]")  # a letter beside a digit, "@" or "$"
_TOKEN_TAIL = re.compile(r"[\w@$]*$")
_LEET_FIRST = frozenset("pcslktwhPCSLKTWH5$17")  # how the words of DISGUISED start, in leetspeak too
# A word for a secret written two or three times in one word ("passwordpassword", "pinpinpin").
_REPEATED = re.compile(r"(?<![^\W_])(" + "|".join(sorted(DISGUISED, key=len, reverse=True)) + r")\1{1,2}(?![^\W_])",
                       re.I)
_LEET_ONE = str.maketrans("0345789@$", "oeastbgas")
# Where a disguised keyword stands before its value: "p1n: 3131", "my p1n is 3131".
_KEYWORD_PLACE_AFTER = re.compile(r"[ \t]*[:=]|[ \t]*-[ \t]*\d|\s+(?:is|was|code|number|no|for|of|ist|est|es)"
                                  r"(?![^\W_])", re.I)
_KEYWORD_PLACE_BEFORE = re.compile(r"(?:^|\s)(?:my|the|your|our|his|her|a|new|old|mein|meine|mon|ma|mi|mijn)\s+$", re.I)


def _fold_disguised(text: str, words: frozenset[str]) -> str:
    """Disguised words for a secret read as the plain word (same length: see the module's docstring);
    `words` are the text's, lower case."""
    found: list[tuple[int, int, str]] = []
    for line_start, line_end in _lines_not_ascii(text) if not text.isascii() else ():
        for match in _MARKED_WORD.finditer(text, line_start, line_end):
            word = match.group(0)
            if word.isascii():
                continue
            plain = _COMBINING.sub("", unicodedata.normalize("NFD", word))
            if plain.lower() in DISGUISED and len(plain) <= len(word):
                found.append((match.start(), match.end(), plain))
    # Spelt letter by letter: three one-letter words at least ("P I N").
    for match in _SPACED.finditer(text) if sum(len(w) == 1 for w in words) >= 3 else ():
        letters = "".join(c for c in match.group(0) if c.isalpha())
        if letters.lower() in DISGUISED:
            found.append((match.start(), match.end(), letters))
            continue
        # a sentence spelt out, its words two spaces apart ("m y  p i n  i s  4 4 0 2": blind round 16): each
        # word read on its own, and the copula after a word for a secret too
        groups = [(match.start() + g.start(), match.start() + g.end(), "".join(c for c in g.group(0) if c.isalpha()))
                  for g in _SPELT_WORD.finditer(match.group(0))]
        keyed = False
        for start, end, word in groups:
            if word.lower() in DISGUISED or keyed and word.lower() in _SPELT_COPULAS:
                found.append((start, end, word))
                keyed = word.lower() in DISGUISED
    done = -1
    for hint in _LEET_HINT.finditer(text) if _LEET_SIGN.search(text) else ():
        if hint.start() < done:
            continue  # a token already read
        token = _LEET.match(text, _token_start(text, hint.start()))
        done = token.end() if token else hint.end()
        if token and token.end() > hint.start() and token.group(0)[0] in _LEET_FIRST:
            folded = token.group(0).lower().translate(_LEET_ONE)
            plain = next((p for p in (folded.replace("1", "i"), folded.replace("1", "l")) if p in DISGUISED), "")
            words_after = _leet_words_after(text, token.end()) if plain else []
            if plain and (_KEYWORD_PLACE_AFTER.match(text, token.end()) or words_after
                          or _KEYWORD_PLACE_BEFORE.search(text, max(0, token.start() - 8), token.start())):
                found.append((token.start(), token.end(), plain))
                found += words_after
    if words & _REPEATED_FORMS:
        for match in _REPEATED.finditer(text):
            found.append((match.start(), match.end(), match.group(1)))
    if not found:
        return text
    out: list[str] = []
    position = 0
    for start, end, plain in sorted(found):
        if start < position:
            continue
        out.append(text[position:start])
        out.append(plain.ljust(end - start))
        position = end
    out.append(text[position:])
    return "".join(out)


_NEXT_WORD = re.compile(r"[ \t]+([\w@$]+)")
_SIGN_NEXT = re.compile(r"[ \t]*[:=]")
_COPULAS = frozenset("is was are ist est es".split())


def _leet_words_after(text: str, at: int) -> list[tuple[int, int, str]]:
    """The words in leetspeak between a disguised keyword and its copula, read as the plain words ("p1n f0r th3
    s4f3 1s 5150": "for the safe is"), up to the copula; none when no copula in leetspeak or plain follows within
    five words (the value itself is never folded: it stands after the copula)."""
    from memory.words import is_word

    out: list[tuple[int, int, str]] = []
    for _ in range(5):
        if _SIGN_NEXT.match(text, at):
            return out  # "c0d3 f0r th3 g4t3: 4412": a sign ends them as a copula does
        word = _NEXT_WORD.match(text, at)
        if word is None:
            return []
        written = word.group(1)
        folded = written.lower().translate(_LEET_ONE)
        plain = next((p for p in (folded.replace("1", "i"), folded.replace("1", "l")) if is_word(p)), "")
        if not plain:
            return []
        if plain != written.lower():
            out.append((word.start(1), word.end(1), plain))
        if plain in _COPULAS:
            return out
        at = word.end()
    return []


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def _lines_not_ascii(text: str) -> Iterator[tuple[int, int]]:
    """The lines of `text` that hold a character other than ASCII (a word with an accent or a mark is read
    there only: a word never crosses a line break, and the words of a megabyte's ASCII lines were each a
    match to skip, 0.13 s of one with a few emoji)."""
    found = _NOT_ASCII.search(text)
    while found is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.start())
        end = len(text) if end < 0 else end
        yield start, end
        found = _NOT_ASCII.search(text, end)


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one letter left out, added, changed, or two neighbours swapped, inside
    the word: neither the first letter nor the last (at the end it is another word: "locket", "passwords")."""
    if a == b or a[0] != b[0]:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return diff[0] < len(a) - 1
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if len(long) - len(short) != 1:
        return False
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return i < len(short) and short[i:] == long[i + 1:]


def _token_start(text: str, at: int) -> int:
    tail = _TOKEN_TAIL.search(text, max(0, at - 13), at)
    return at - len(tail.group(0)) if tail else at


# -- read again with other lengths: digits said as words, keywords misspelt -------------------------------------

def _respelt(view: View) -> View:
    """`view` with digits said as words read as digits ("cuatro, cero, ocho, dos" reads "4 0 8 2", "double
    seven one" reads "7 7 1") and a word one slip of the keyboard away from a word a secret hangs on read
    as that word ("combintion", "passwrod", "qeustion"); the map back to the input follows (a span over
    "4 0" is "cuatro, cero" in the input)."""
    pieces = _digit_runs(view.text, view.words) + _misspellings(view.text, view.words)
    if not pieces:
        return view
    pieces.sort()
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for start, end, replacement in pieces:
        if start < position:
            continue
        out.append(view.text[position:start])
        starts.extend(range(position, start))
        ends.extend(range(position + 1, start + 1))
        out.append(replacement)
        starts.extend([start] * len(replacement))
        ends.extend([end] * len(replacement))
        position = end
    out.append(view.text[position:])
    starts.extend(range(position, len(view.text)))
    ends.extend(range(position + 1, len(view.text) + 1))
    if view.starts is not None and view.ends is not None:  # composed with the map of the folds before
        starts = [view.starts[s] for s in starts]
        ends = [view.ends[e - 1] for e in ends]
    text = "".join(out)
    return View(text, _words(text), starts, ends)


def _digit_runs(text: str, words: frozenset[str]) -> list[tuple[int, int, str]]:
    """Pieces that read three digits said as words or more in a row as digits, each word its digit and what
    stands between them one space ("zéro six deux neuf", "drei acht eins sieben", "nine oh four one")."""
    table = vocabulary.digits()
    if not words & _DIGIT_WORDS_NOT_OH:
        return []
    pieces: list[tuple[int, int, str]] = []
    for run in _said_digit_runs(text, words):
        said = list(_SAID_DIGIT.finditer(text, run.start(), run.end()))
        digits = []
        for word in said:
            repeat = vocabulary.digit_repeats().get(word.group(1).lower(), 1) if word.group(1) else 1
            digit = table[word.group(2).lower()]
            digits.append((word.start(), word.end(), " ".join(digit * repeat)))
        if sum(len(d[2].split()) for d in digits) < 3 or all(d[2] == "0" for d in digits):
            continue  # "oh oh oh" is no number
        if said[0].group(0).lower() in _NOT_A_FIRST_DIGIT and len(digits) < 4:
            continue  # "um, one two" / "oh, one two": a hesitation, not a digit
        for k, (start, end, digit) in enumerate(digits):
            pieces.append((start, end, digit))
            if k + 1 < len(digits):
                pieces.append((end, digits[k + 1][0], " "))
    return pieces


def _said_digit_runs(text: str, words: frozenset[str]) -> Iterator[re.Match[str]]:
    """The matches of vocabulary.digit_run() in `text`, tried only where a word of the text that says a digit (or
    says one twice) stands: a match starts with such a word, whole (a sign or a space follows it), so these are
    the matches of its scan, which tried its alternatives at every word of a megabyte (0.2 s of the chat turns).
    A short text, or one whose letters IGNORECASE folds otherwise than str.lower(), is scanned."""
    pattern = vocabulary.digit_run()
    firsts = _digit_firsts()
    lowered = vocabulary.lowered_as_matched(text) if len(text) >= 4_096 else None
    if len(text) < 4_096 or firsts is None or lowered is None:
        yield from pattern.finditer(text)
        return
    starts: set[int] = set()
    for word in words & firsts:
        at = lowered.find(word)
        while at >= 0:
            starts.add(at)
            at = lowered.find(word, at + 1)
    reached = 0
    for at in sorted(starts):
        if at >= reached and (match := pattern.match(text, at)) is not None:
            reached = match.end()
            yield match


@lru_cache(maxsize=1)
def _digit_firsts() -> frozenset[str] | None:
    """The words a digit said as a word starts with, lower case (None when one is not letters alone: scan)."""
    found = {word.lower() for word in (*vocabulary.digits(), *vocabulary.digit_repeats())}
    return frozenset(found) if all(_WORD.fullmatch(word) for word in found) else None


class _DigitWords:
    """The words for a digit other than "oh" (a text needs one to hold digits said as words)."""

    def __and__(self, other: frozenset[str]) -> frozenset[str]:
        return other & (vocabulary.digits().keys() - {"oh"})

    __rand__ = __and__


_DIGIT_WORDS_NOT_OH = _DigitWords()
_SAID_DIGIT = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:({vocabulary.alternation('digit_repeats', True)})[ \t]+)?"
    rf"({'|'.join(sorted(map(re.escape, vocabulary.digits()), key=len, reverse=True))})(?![^\W_])"), re.I)
_NOT_A_FIRST_DIGIT = frozenset({"um", "oh"})


def _misspellings(text: str, words: frozenset[str]) -> list[tuple[int, int, str]]:
    """Pieces that read a word one slip of the keyboard away from a word a secret hangs on as that word: one
    letter left out, added, changed, or two neighbours swapped, neither the first letter nor the last (a
    word's other endings are other words: "locket", "passwords"); not a word of the data files, nor one of
    the real words that stand that close ("kennwert", "paddock", "garbage")."""
    found = [(word, target) for word in words if (target := _misspelt(word))]
    if not found:
        return []
    pieces = []
    for word, target in found:
        for match in re.finditer(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text, re.I):
            pieces.append((match.start(), match.end(), target))
    return pieces


def _misspelt(word: str) -> str:
    """The word a secret hangs on that `word` misspells (see _misspellings), or ""."""
    if not 5 <= len(word) <= 24 or not word.isalpha():
        return ""
    targets = vocabulary.spelt()
    for target in targets.get((word[0], len(word)), ()) + targets.get((word[0], len(word) - 1), ()) + \
            targets.get((word[0], len(word) + 1), ()):
        if _one_edit(word, target) and word not in vocabulary.known_words():
            return target
    return ""


