"""The names of the months and of the days of the week, read from memory/time/vocabulary (data, not code):
the full names in calendar order, the shorter spellings, and the alternations patterns are built from."""
from __future__ import annotations

from pathlib import Path

from memory.vocabulary import table

FOLDER = Path(__file__).parent / "vocabulary"

_MONTHS: list[tuple[str, list[str]]] = table(FOLDER, "months")
_WEEKDAYS: list[tuple[str, list[str]]] = table(FOLDER, "weekdays")

MONTHS = tuple(name for name, _ in _MONTHS)  # "january" ... "december"
WEEKDAYS = tuple(name for name, _ in _WEEKDAYS)  # "monday" ... "sunday"
MONTH_SHORT = tuple(name[:3] for name in MONTHS)  # "jan" ... "dec": the first three letters of each
WEEKDAY_SHORT = tuple(name[:3] for name in WEEKDAYS)  # "mon" ... "sun"
# Every other way each is written ("sept", "tues", "thurs"), beyond the full name and its first three letters.
MONTH_SPELLINGS = tuple(s for _, short in _MONTHS for s in short if len(s) != 3)
WEEKDAY_SPELLINGS = tuple(s for _, short in _WEEKDAYS for s in short if len(s) != 3)


def alternation(*groups: tuple[str, ...]) -> str:
    """The words of `groups` as the alternatives of a regular expression, longest first (so "sept" is
    tried before "sep")."""
    words = dict.fromkeys(w for group in groups for w in group)
    return "|".join(sorted(words, key=lambda w: (-len(w), w)))
