"""The commonest ways to ask for a reminder or a memory in Spanish, French, German, Italian and
Portuguese, read as the English the offline reading understands ("recuérdame llamar a mamá mañana a
las 10" is read as "remind me to llamar a mamá tomorrow at 10"). Only a message that opens with one
of these requests is rewritten, and only for reading it: the task is kept in the words it was said in.

The words are data, one file per language in assistant/reading/vocabulary (read once, at the first
message read, through memory/vocabulary.py): a new language is a new file, a new phrasing a line.
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from memory.vocabulary import language

FOLDER = Path(__file__).parent / "vocabulary"
LANGUAGES = ("es", "fr", "de", "it", "pt")
_FLAGS = re.I | re.U


def _spaced(words: str) -> str:
    return r"\s+".join(re.escape(w) for w in words.split())


@cache
def _vocabulary() -> tuple[list[tuple[str, str]], re.Pattern[str], list[tuple[re.Pattern[str], str]],
                           re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(openers as (pattern, English), the opening pattern, the time words in order, the clock time, the
    minutes, the German object), built from the data files at the first use."""
    files = [language(FOLDER, code) for code in LANGUAGES]
    openers = [(pattern, english) for data in files for english, patterns in data.get("openers", {}).items()
               for pattern in patterns]
    opening = re.compile(r"^\W*(?:" + "|".join(f"({pattern})" for pattern, _ in openers) + ")", _FLAGS)
    meanings: dict[str, list[str]] = {}  # in the order the files give them: longest first
    for data in files:
        for english, patterns in data.get("times", {}).items():
            meanings.setdefault(english, []).extend(patterns)
    times = [(re.compile(rf"\b(?:{'|'.join(patterns)})\b", _FLAGS), english) for english, patterns in meanings.items()]
    clocks = [data.get("clock", {}) for data in files]
    before = sorted({_spaced(w) for c in clocks for w in c.get("before", [])} | {"at"}, key=lambda w: -len(w))
    after = sorted({re.escape(w) for c in clocks for w in c.get("after", [])}, key=lambda w: -len(w))
    clock = re.compile(rf"\b(?:{'|'.join(before)})\s+(\d{{1,2}})(?:[:h.](\d{{2}}))?"
                       + (rf"(?:\s*(?:{'|'.join(after)})\b)?" if after else ""), _FLAGS)
    minutes = re.compile("|".join(rf"\b{_spaced(c['within'])}\s+(\d+)\s+{_spaced(c['minutes'])}\b"
                                  for c in clocks if c.get("within") and c.get("minutes")), _FLAGS)
    objects = [p for data in files for p in data.get("objects", {}).get("about", [])]
    about = re.compile("|".join(rf"\b{p}" for p in objects) or r"(?!)", _FLAGS)
    return openers, opening, times, clock, minutes, about


def english_forms(text: str) -> str:
    """`text` as the offline reading understands it: a request in one of these languages rewritten into
    English request words and time words; any other text unchanged."""
    openers, opening_pattern, times, clock, minutes, about = _vocabulary()
    opening = opening_pattern.match(text)
    if opening is None:
        return text
    said = next(english for (_, english), group in zip(openers, opening.groups(), strict=True) if group)
    rest = text[opening.end():]
    if said.startswith("remind"):
        for pattern, english in times:
            rest = pattern.sub(english, rest)
        rest = clock.sub(lambda m: f"at {m.group(1)}:{m.group(2) or ''}", rest)
        rest = minutes.sub(lambda m: f"in {next(g for g in m.groups() if g)} minutes", rest)
        rest = rest.replace(":,", "").replace(": ", " ")
        rest = re.sub(r"at (\d{1,2}):(?=\W|$)", r"at \1", rest)
        rest = about.sub("about ", rest)
    return f"{said} {rest}"
