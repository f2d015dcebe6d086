"""The commonest ways to ask for a reminder or a memory in Spanish, French, German, Italian and
Portuguese, read as the English the offline reading understands ("recuérdame llamar a mamá mañana a
las 10" is read as "remind me to llamar a mamá tomorrow at 10"). Only a message that opens with one
of these requests is rewritten, and only for reading it: the task is kept in the words it was said in.
"""
from __future__ import annotations

import re

_FLAGS = re.I | re.U
# (opening of a request, how the English reading says it)
_OPENERS = [
    (r"recu[ée]rdame\s+(?:que\s+|de\s+)?", "remind me to "),
    (r"rappelle[- ]moi\s+(?:de\s+|d['’]\s*)?", "remind me to "),
    (r"erinnere\s+mich\s+(?:daran,?\s+)?", "remind me "),
    (r"ricordami\s+(?:di\s+|che\s+)?", "remind me to "),
    (r"(?:lembra[- ]me|lembre[- ]me|me\s+lembre)\s+(?:de\s+|que\s+)?", "remind me to "),
    (r"(?:recuerda|ten en cuenta)\s+que\s+", "remember that "),
    (r"(?:n['’]oublie\s+pas|souviens[- ]toi|retiens)\s+que\s+", "remember that "),
    (r"(?:merk\s+dir|vergiss\s+nicht),?\s+(?:dass\s+)?", "remember that "),
    (r"(?:ricorda|ricordati)\s+che\s+", "remember that "),
    (r"(?:lembra|lembre[- ]se\s+de|lembra[- ]te\s+de)\s+que\s+", "remember that "),
]
_OPENING = re.compile(r"^\W*(?:" + "|".join(f"({pattern})" for pattern, _ in _OPENERS) + ")", _FLAGS)
# Time words after a reminder's opening (the day, then the clock time).
_TIMES = [
    (r"\b(?:pasado mañana|après-demain|übermorgen|dopodomani|depois de amanhã)\b", "the day after tomorrow"),
    (r"\b(?:mañana por la mañana|demain matin|morgen früh|domani mattina|amanhã de manhã)\b", "tomorrow morning"),
    (r"\b(?:mañana|demain|morgen|domani|amanhã)\b", "tomorrow"),
    (r"\b(?:esta noche|ce soir|heute abend|heute nacht|stasera|stanotte|hoje à noite|esta noite)\b", "tonight"),
    (r"\b(?:hoy|aujourd['’]hui|heute|oggi|hoje)\b", "today"),
    (r"\b(?:a\s+las|a\s+la|alle|às|as|à|um|at)\s+(\d{1,2})(?:[:h.](\d{2}))?(?:\s*(?:h|uhr)\b)?", r"at \1:\2"),
    (r"\ben\s+(\d+)\s+minutos\b|\bdans\s+(\d+)\s+minutes\b|\bin\s+(\d+)\s+minuten\b|\btra\s+(\d+)\s+minuti\b"
     r"|\bem\s+(\d+)\s+minutos\b", r"in \1\2\3\4\5 minutes"),
]
_GERMAN_OBJECT = re.compile(r"\ban\s+(?:den|die|das|dem)\s+", _FLAGS)


def english_forms(text: str) -> str:
    """`text` as the offline reading understands it: a request in one of these languages rewritten into
    English request words and time words; any other text unchanged."""
    opening = _OPENING.match(text)
    if opening is None:
        return text
    said = next(english for (_, english), group in zip(_OPENERS, opening.groups(), strict=True) if group)
    rest = text[opening.end():]
    if said.startswith("remind"):
        for pattern, english in _TIMES:
            rest = re.sub(pattern, english, rest, flags=_FLAGS)
        rest = rest.replace(":,", "").replace(": ", " ")
        rest = re.sub(r"at (\d{1,2}):(?=\W|$)", r"at \1", rest)
        rest = _GERMAN_OBJECT.sub("about ", rest)
    return said + rest
