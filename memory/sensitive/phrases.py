"""Wallet recovery phrases: twelve or more words in a row from one BIP-39 word list (the lists ship
in the `mnemonic` package, read from its files, nothing fetched). Ordinary prose never strings twelve
of them together: its articles and prepositions ("the", "of", "and") are not on the lists. The
checksum is not required, so a phrase written down with a typo in its last word still counts.

After a name for one ("seed phrase", "recovery phrase", "mnemonic", "seed words", in seven languages: the
`seed_names` of the data files), 12, 15, 18, 21 or 24 plain words are one whatever list they are from (a
word mistyped or off the list: "wallet seed phrase is orbit canvas lemon ... spoon", blind round 9); and
after a sign in its line, three or more words of one list are a part of one ("the first four are: ...").
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from itertools import repeat

from memory.sensitive import vocabulary

# The lists in Latin script (the others cannot be mistaken for prose in these languages anyway).
LANGUAGES = ("english", "french", "spanish", "italian", "portuguese", "czech")
MIN_WORDS = 12
_WORD = re.compile(r"[^\W\d_]+")
_GAP = re.compile(r"[\s,;:.\-\d)(/#|]*")  # between two words of a phrase: spaces, commas, "1." numbering


@lru_cache(maxsize=1)
def _lists() -> dict[str, int]:
    """Each word of every list -> a bit per language it belongs to."""
    words: dict[str, int] = {}
    folder = resources.files("mnemonic") / "wordlist"
    for bit, language in enumerate(LANGUAGES):
        for word in (folder / f"{language}.txt").read_text(encoding="utf-8").split():
            word = unicodedata.normalize("NFC", word)
            words[word] = words.get(word, 0) | (1 << bit)
    return words


def find(text: str, words: frozenset[str] | None, all_words: list[str] | None = None) -> Iterator[tuple[int, int, str]]:
    """`words`: the text's words (lower case), or None when they were not gathered (a long text, read in
    windows: the pass below is its check, over `all_words` when given, windows.words_of(text))."""
    if len(text) < MIN_WORDS * 3:
        return
    yield from _named(text)
    lists = _lists()
    if words is not None and len(words & lists.keys()) < 2:
        return
    # A first pass over the words alone (fast): is there a run of twelve from one list at all? First at C speed,
    # each word its languages' bits in a byte (a long text): twelve words in a row that share a list's bit, or
    # no run at all.
    bits = bytes(map(lists.get, _WORD.findall(text.lower()) if all_words is None else all_words, repeat(0)))
    if len(bits) > 256 and not any(_TWELVE in bits.translate(table) for table in _ON_LIST):
        return
    run, common = 0, 0
    for b in bits:
        if b and run and common & b:
            run, common = run + 1, common & b
        else:
            run, common = (1, b) if b else (0, 0)
        if run >= MIN_WORDS:
            break
    else:
        return
    yield from _runs(text, lists)


# For each list, a table that reads a word's byte of bits as 1 when the word is on that list, else 0.
_ON_LIST = tuple(bytes.maketrans(bytes(range(256)), bytes(1 if b & (1 << bit) else 0 for b in range(256)))
                 for bit in range(len(LANGUAGES)))
_TWELVE = b"\x01" * MIN_WORDS


def _runs(text: str, lists: dict[str, int]) -> Iterator[tuple[int, int, str]]:
    """The runs of twelve or more words of one list, with nothing but spaces, commas or numbering
    between them."""
    run_start = run_end = 0
    count = 0
    languages = 0
    for match in _WORD.finditer(text):
        bits = lists.get(match.group(0).lower(), 0)
        joined = count and _GAP.fullmatch(text, run_end, match.start()) and bits & languages
        if joined:
            count += 1
            languages &= bits
            run_end = match.end()
            continue
        if count >= MIN_WORDS:
            yield run_start, run_end, "recovery_phrase"
        count, languages = (1, bits) if bits else (0, 0)
        run_start, run_end = match.start(), match.end()
    if count >= MIN_WORDS:
        yield run_start, run_end, "recovery_phrase"


# The lengths a wallet's phrase has (BIP-39), longest first.
LENGTHS = (24, 21, 18, 15, 12)
# A name for a phrase, then its words or not (to look further along its line).
_NAMED_SOON = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('seed_names')})(?![^\W_])"
    rf"[ \t]*(?:[:=]|->|→|(?:{vocabulary.alternation('copulas')})(?![^\W_]))?[ \t\n]*"
    r"(?P<words>[^\W\d_]+(?:[ \t,]+[^\W\d_]+){11,30})?"), re.I)
_NAMED_LATER = re.compile(r"[^\n]{0,120}?(?::|=|->|→)[ \t]*(?P<words>[^\W\d_]+(?:[ \t,]+[^\W\d_]+){11,30})")
_STOPS = vocabulary.LazyWords("cut", "and", "hard_stop", "soft_stop", "followers")


@lru_cache(maxsize=1)
def _stems() -> tuple[str, ...]:
    """The letters each name for a phrase starts with ("seed", "mnemonic", "frase"): a text without any is not
    searched (a megabyte of prose in one pattern's search took 60 ms)."""
    # a letter made optional is no part of the stem: "frases? de recuperación" is said "frase de recuperación"
    return tuple({m.group(0)[:-1 if e[m.end():m.end() + 1] == "?" else None].lower()
                  for e in vocabulary.entries("seed_names") if (m := _WORD.match(e))})


def _named(text: str) -> Iterator[tuple[int, int, str]]:
    """Plain words after a name for a wallet's phrase, as many as a phrase has: the run stops at a word a
    value stops at ("... mirror spoon and keep it offline"), and is cut to the longest length a phrase has."""
    lowered = text.lower()
    if not any(stem in lowered for stem in _stems()):
        return
    for match in _NAMED_SOON.finditer(text):
        named_at = match.end()
        if match.group("words") is None:
            # not a phrase right after its name: the phrase given after a later sign of the same line, a first try
            # corrected ("frase de recuperación: lluvia gato ... no espera, en inglés: river candle orbit ...")
            match = _NAMED_LATER.match(text, match.end())
        found = _phrase(text, match.start("words"), match.group("words")) if match else None
        if found or (found := _part(text, named_at)):
            yield found


# After a phrase's name, in its line, a sign or a copula, then some of its words: "my crypto wallet words are
# hidden in the cookbook but the first four are: tiger ribbon expose glance" (blind round 13).
_PART = vocabulary.lazy_pattern(lambda: (
    rf"(?:[:=]|->|→|(?<![^\W_])(?:{vocabulary.alternation('copulas')})(?![^\W_]))[ \t]*"
    r"(?P<words>[^\W\d_]+(?:[ \t,]+[^\W\d_]+){2,23})"), re.I)
PART_WORDS = 3  # words of one list in a row, after a phrase's name and a sign, are a part of it
_SAYS_A_PART = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('phrase_part')}|\d+)(?![^\W_])"), re.I)


PART_REACH = 120  # how far after a phrase's name its part may be given


def _part(text: str, start: int) -> tuple[int, int, str] | None:
    """Some words of a wallet's phrase given after its name in the same line, each on one BIP-39 list, when
    what stands between says a part ("the first four are:", "starts with:"): "seed phrase tips: never
    share online" is advice (an attacker's), though every word of it is on the English list."""
    stop = text.find("\n", start, start + PART_REACH)
    lists = _lists()
    for sign in _PART.finditer(text, start, start + PART_REACH if stop < 0 else stop):
        if not _SAYS_A_PART.search(text, start, sign.start()):
            continue
        languages, end, count = -1, 0, 0
        for word in _WORD.finditer(sign.group("words")):
            bits = lists.get(word.group(0).lower(), 0) & languages
            if not bits:
                break
            languages, end, count = bits, word.end(), count + 1
        if count >= PART_WORDS:
            return sign.start("words"), sign.start("words") + end, "recovery_phrase"
    return None


def _phrase(text: str, start: int, said: str) -> tuple[int, int, str] | None:
    """The plain words from `start` as a phrase: up to a word a value stops at, cut to a phrase's length."""
    words = list(re.finditer(r"[^\W\d_]+", said))
    count = next((i for i, w in enumerate(words) if w.group(0).lower() in _STOPS), len(words))
    length = next((n for n in LENGTHS if n <= count), 0)
    return (start, start + words[length - 1].end(), "recovery_phrase") if length else None
