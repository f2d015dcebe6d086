"""The words of a text that carry its meaning, as rough stems ("birthdays" and "birthday" meet).

One stemmer for every place that compares texts word by word without a model: the offline answers,
the matching of a reminder named in words, write-time supersession, extractive titles.
"""
from __future__ import annotations

import re

# Words that carry no topic of their own.
STOPWORDS = frozenset("""a an and are as at be but by did do does for from had has have how i i'm in is it its me my
of on or our so that the their them then there they this to us was we were what when where which who why will with
you your about can could would should just tell""".split())
# Spellings of one thing that share no word: "1:1", "one-on-one", "1-on-1" are all a 1:1.
_SPELLINGS = [(re.compile(r"\b(?:1\s*:\s*1|1\s*-?\s*on\s*-?\s*1|one\s*-?\s*on\s*-?\s*one)(?!\w)", re.I), " 1on1 ")]


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


def ordered_stems(text: str, ignore: frozenset[str] = STOPWORDS) -> list[tuple[str, str]]:
    """(stem, word as written) for each meaningful word of `text`, in order, repeats kept."""
    out = []
    for word in re.findall(r"[\w']+", text):
        lower = word.lower().removesuffix("'s").strip("'")
        if len(lower) < 2 or lower in ignore:
            continue
        out.append((stem(lower), word.removesuffix("'s").strip("'")))
    return out
