"""The words of a text that carry its meaning, as rough stems ("birthdays" and "birthday" meet).

One stemmer for every place that compares texts word by word without a model: the offline answers,
the matching of a reminder named in words, write-time supersession, extractive titles.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# Words that carry no topic of their own.
STOPWORDS = frozenset("""a an and are as at be but by did do does for from had has have how i i'm in is it its me my
of on or our so that the their them then there they this to us was we were what when where which who why will with
you your about can could would should just tell""".split())
# Spellings of one thing that share no word: "1:1", "one-on-one", "1-on-1" are all a 1:1.
# What one does "for a living" is one's job.
_SPELLINGS = [(re.compile(r"\b(?:1\s*:\s*1|1\s*-?\s*on\s*-?\s*1|one\s*-?\s*on\s*-?\s*one)(?!\w)", re.I), " 1on1 "),
              (re.compile(r"\bfor\s+a\s+living\b", re.I), " job ")]


def normalised(text: str) -> str:
    """`text` with the spellings of one thing made one word (for matching, never for showing)."""
    for pattern, word in _SPELLINGS:
        text = pattern.sub(word, text)
    return text


def stem(word: str) -> str:
    """A rough stem: the plural and -ing/-ed endings off, when at least three letters remain."""
    for suffix in ("ies", "es", "s", "ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def stems(text: str, ignore: frozenset[str] = STOPWORDS) -> set[str]:
    """Lower-cased stems of the words of `text` that carry meaning (words in `ignore` left out)."""
    found = set()
    for word in re.findall(r"[\w']+", text.lower()):
        word = word.removesuffix("'s").strip("'")
        if len(word) < 2 or word in ignore:
            continue
        found.add(stem(word))
    return found


def matched_spans(query: str, text: str) -> list[tuple[int, int]]:
    """Where `text` says a meaningful word of `query` (as a stem: "doors" for "door"), for showing why a
    search found it: (start, end) of each such word, in order."""
    wanted = stems(query)
    if not wanted:
        return []
    spans = []
    for match in re.finditer(r"[\w']+", text):
        word = match.group(0).lower().removesuffix("'s").strip("'")
        if len(word) >= 2 and word not in STOPWORDS and stem(word) in wanted:
            spans.append((match.start(), match.end()))
    return spans


ORDINARY_RANK = 3000  # the most frequent English words: never a sign of which memory is meant
_CALENDAR = re.compile(r"(mon|tue|wed|thu|fri|sat|sun)\w*|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
                       r"today|tonight|tomorrow|yesterday|morning|afternoon|evening|night|noon|midnight|weekend")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")  # letters only: a number (a year, a count) is never a sign


@cache
def _ranks() -> dict[str, int]:
    """{word: frequency rank} of the 20,000 most frequent English words (memory/common_words.txt)."""
    text = (Path(__file__).parent / "common_words.txt").read_text(encoding="utf-8")
    words = [line for line in text.splitlines() if line and not line.startswith("#")]
    return {w: i for i, w in enumerate(words)}


def _rank(word: str) -> int | None:
    ranks = _ranks()
    found = [ranks[w] for w in (word, stem(word)) if w in ranks]
    return min(found) if found else None


def is_common(word: str) -> bool:
    """Whether `word` (lower case) is among the 20,000 most frequent English words."""
    return _rank(word) is not None


def is_ordinary(word: str) -> bool:
    """Whether `word` (lower case) is among the ORDINARY_RANK most frequent English words."""
    rank = _rank(word)
    return rank is not None and rank < ORDINARY_RANK


def is_word(word: str) -> bool:
    """Whether `word` (lower case) is an English word of the frequency list at all (a misspelling seldom is)."""
    return _rank(word) is not None


def sentence_initial(text: str, start: int) -> bool:
    """Whether the word at `start` opens a sentence or a line: nothing before it but punctuation of any
    kind (quotes, dashes, bullets, "1)", "**"), only a word or a comma continues a sentence."""
    before = text[:start].rstrip()
    return not before or not (before[-1].isalnum() or before[-1] in ",")


@dataclass(frozen=True)
class Signs:
    """What in a text could show that a message asks about it: `strong` words (rare ones, and names)
    are enough alone; `common` ones (frequent but not ordinary) only two together."""
    strong: frozenset[str]
    common: frozenset[str]


def signs(text: str) -> Signs:
    """The words of `text` that single it out, lower-cased stems. Ordinary words (the 3,000 most
    frequent, days, months, times of day) and numbers never count; a capitalised word inside a
    sentence ("told Tom", "Dr Klein") is a name and counts as a strong sign unless it is ordinary."""
    strong, common = set(), set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower().removesuffix("'s")
        if lower in STOPWORDS or _CALENDAR.fullmatch(lower) or len(lower) < 3:
            continue
        rank = _rank(lower)
        name = word[:1].isupper() and not sentence_initial(text, match.start())
        if rank is None or (name and rank >= ORDINARY_RANK):
            strong.add(lower if name else stem(lower))
        elif rank >= ORDINARY_RANK:
            common.add(stem(lower))
    return Signs(frozenset(strong), frozenset(common))


def _meaningful(text: str) -> set[str]:
    return {stem(w) for w in (m.lower().removesuffix("'s") for m in _WORD.findall(text))
            if w not in STOPWORDS and not _CALENDAR.fullmatch(w) and len(w) >= 2}


def asks_by_words(message: str, text: str) -> bool:
    """Whether `message` names `text` by its own words: one strong sign, two common ones, every
    meaningful word of a short text (at least two: "what is the gate code?" names "Gate code 4411"),
    or a message whose every meaningful word is a sign of the text ("who is my therapist?" names "my
    therapist is Dr Olsen ...": its one meaningful word is the text's, and not an ordinary one; "what
    does a physical therapist do?" says more, and "when does the taper start" has an ordinary word
    beside the one it shares with "the sertraline taper starts ..." and "taper the hedge")."""
    said = {stem(w.lower().removesuffix("'s")) for w in _WORD.findall(message)} | \
        {w.lower().removesuffix("'s") for w in _WORD.findall(message)}
    wanted = signs(text)
    if wanted.strong & said or len(wanted.common & said) >= 2:
        return True
    own = _meaningful(text)
    if 2 <= len(own) <= 6 and own <= said:
        return True
    every_sign = wanted.strong | wanted.common
    asked = [w for w in (m.lower().removesuffix("'s") for m in _WORD.findall(message))
             if w not in STOPWORDS and not _CALENDAR.fullmatch(w) and len(w) >= 2]
    return bool(asked) and all(w in every_sign or stem(w) in every_sign for w in asked)


def sign_words(text: str) -> frozenset[str]:
    """Every sign of `text`, strong or common (what a title made from it would repeat)."""
    found = signs(text)
    return found.strong | found.common


def shares_sign(text: str, words: frozenset[str]) -> bool:
    """Whether `text` has any of `words` (signs of another text), as a word or a stem."""
    said = {w.lower().removesuffix("'s") for w in _WORD.findall(text)}
    return bool(words & (said | {stem(w) for w in said}))


def names_word(message: str, name: str) -> bool:
    """Whether `message` names a person called `name`: as a word, written with its capital; a name
    that is also an ordinary word ("Will", "Mark", "Grace") only inside a sentence ("how is Will?",
    never "Will it rain?")."""
    ordinary = (_rank(name.lower()) or ORDINARY_RANK) < ORDINARY_RANK
    for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", message, 0 if ordinary else re.IGNORECASE):
        if not ordinary or not sentence_initial(message, match.start()):
            return True
    return False
