"""The words of a text that carry its meaning, as rough stems ("birthdays" and "birthday" meet).

One stemmer for every place that compares texts word by word without a model: the offline answers,
the matching of a reminder named in words, write-time supersession, extractive titles.
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

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


@cache
def ordinary_words() -> frozenset[str]:
    """The words that say nothing about which memory is meant (the most frequent English words,
    days, months, times of day): memory/ordinary_words.txt, read once."""
    text = (Path(__file__).parent / "ordinary_words.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#")) | STOPWORDS


def distinctive_words(text: str) -> set[str]:
    """The words that single `text` out, lower-cased stems: not ordinary (in neither form: "tested" is
    "test"), at least three letters; a name counts too, written with a capital: a word that is not
    ordinary at any length ("Al"), or an ordinary one inside a sentence ("told Tom"). Sentence-initial
    ordinary words ("Tuesday ...", "Therapy ..."), "positive", "tests" never count."""
    ordinary = ordinary_words()
    found = set()
    for match in re.finditer(r"[^\W_]+(?:'[^\W_]+)?", text):
        word = match.group(0)
        lower = word.lower().removesuffix("'s")
        common = lower in ordinary or stem(lower) in ordinary
        capital = word[:1].isupper() and word[1:].islower()
        initial = not text[:match.start()].strip() or text[:match.start()].rstrip()[-1:] in ".!?:;\n"
        if lower in STOPWORDS or _CALENDAR.fullmatch(lower):
            continue
        if capital and (not common or (not initial and len(lower) >= 3)):
            found.add(lower)
        elif not common and len(lower) >= 3:
            found.add(stem(lower))
    return found


_CALENDAR = re.compile(r"(mon|tue|wed|thu|fri|sat|sun)\w*|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*")


def shares_distinctive_word(message: str, text: str) -> bool:
    """Whether `message` names `text` by one of its distinctive words (a name by the name as written,
    capitalised: "call Al" names "Al", "call the hall" does not)."""
    wanted = distinctive_words(text)
    if not wanted:
        return False
    said = set()
    for word in re.findall(r"[^\W_]+(?:'[^\W_]+)?", message):
        lower = word.lower().removesuffix("'s")
        said.add(stem(lower))
        if word[:1].isupper():
            said.add(lower)
        elif lower not in ordinary_words():
            said.add(lower)
    return bool(wanted & said)
