"""The date a statement gives ("my Lisbon flight is on Dec 10", "the dentist is on Tuesday at 3pm",
"the offsite got pushed to the 12th"), read against the time it was said, in the user's zone.

For agendas ("what do I have on Tuesday?"), "when" questions and reminders set relative to an event
("two days before my Lisbon flight"): a plan's date, not a past event's ("we had sushi on Friday" gives
no plan).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, tzinfo

from memory.errors import InvalidInput
from memory.time import names
from memory.time.due_phrases import DEFAULT_TIME
from memory.time.references import tense_of
from memory.time.schedule import parse_schedule

_MONTH = rf"(?:{names.alternation(names.MONTH_SHORT, names.MONTH_SPELLINGS)})[a-z]*\.?"
_DAY = rf"(?:{names.alternation(names.WEEKDAY_SHORT, names.WEEKDAY_SPELLINGS)})(?:day|sday|nesday|rsday|urday)?"
_CLOCK = r"(?:\s*,?\s*(?:at|@|from)\s+\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?|\s+\d{1,2}(?::\d{2})\s*(?:am|pm)?|" \
         r"\s+\d{1,2}\s*(?:am|pm)|\s+(?:in the )?(?:morning|afternoon|evening)|\s+at noon)?"
# Date phrases inside a sentence, the longest forms first.
_PHRASE = re.compile(
    rf"\b(?:(?:on|for|by|from)\s+)?(?:(?:this|next|coming)\s+)?(?:{_DAY}\s*,?\s+)?(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?"
    rf"(?:\s+of)?\s+{_MONTH}(?:\s+\d{{4}})?{_CLOCK}"
    rf"|\b(?:(?:on|for|by|from)\s+)?(?:{_DAY}\s*,?\s+)?{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?{_CLOCK}"
    rf"|\b(?:(?:on|for|by|from)\s+)?(?:(?:this|next|coming)\s+)?{_DAY}(?:\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th))?"
    rf"{_CLOCK}"
    rf"|\b(?:(?:on|for|by|to|until|till)\s+)?the\s+\d{{1,2}}(?:st|nd|rd|th){_CLOCK}"
    rf"|\b(?:tomorrow|tonight|the day after tomorrow|next week|this weekend|next weekend){_CLOCK}"
    rf"|\b\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}})?", re.I)


@dataclass(frozen=True)
class StatedDate:
    at: datetime  # UTC
    phrase: str  # as written ("on Dec 10", "the 12th")
    timed: bool  # a clock time was said ("at 3pm"): else the day is what counts


def stated_date(text: str, written_at: datetime, zone: tzinfo, default_time: time = DEFAULT_TIME) -> StatedDate | None:
    """The date (and time) a statement gives a plan, resolved as of when it was written; None when it
    gives none, or only of a past event ("we had sushi on Friday")."""
    if len(text) > 2000:
        text = text[:2000]
    for match in sorted(_PHRASE.finditer(text), key=lambda m: -(m.end() - m.start())):
        phrase = match.group(0).strip(" ,")
        moved_to = re.match(r"(?:to|until|till)\b", phrase, re.I) or re.search(r"\b(?:to|until|till)\s+$",
                                                                               text[:match.start()], re.I)
        # "got pushed to the 12th" is said in the past of a plan still to come: its date is the plan's.
        if not moved_to and tense_of(text, match.start(), match.end()) == "past":
            continue
        said = re.sub(r"^(?:for|by|from|to|until|till)\s+", "", phrase, flags=re.I)
        try:
            at, rule = parse_schedule(said, written_at, zone, default_time)
        except (InvalidInput, ValueError, OverflowError):
            continue
        if rule is not None:
            continue
        timed = bool(re.search(r"\d[:.]\d\d|\d\s*(?:am|pm)|\bat\s+\d|noon|morning|afternoon|evening|tonight", said,
                               re.I))
        return StatedDate(at, phrase, timed)
    return None
