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
from memory.time.clock import Clock
from memory.time.due_phrases import DEFAULT_TIME
from memory.time.instants import UTC
from memory.time.references import Resolved, tense_of
from memory.time.schedule import parse_schedule

_MONTH = rf"(?:{names.alternation(names.MONTH_SHORT, names.MONTH_SPELLINGS)})[a-z]*\.?"
_DAY = rf"(?:{names.alternation(names.WEEKDAY_SHORT, names.WEEKDAY_SPELLINGS)})(?:day|sday|nesday|rsday|urday)?"
_CLOCK = r"(?:\s*,?\s*(?:at|@|from)\s+\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?|\s+\d{1,2}(?::\d{2})\s*(?:am|pm)?|" \
         r"\s+\d{1,2}\s*(?:am|pm)|\s+(?:in the )?(?:morning|afternoon|evening)|\s+at noon)?"
# Date phrases inside a sentence, the longest forms first.
_PHRASE = re.compile(
    rf"\b(?:(?:on|for|by|from)\s+)?(?:(?:this|next|coming)\s+)?(?:{_DAY}\s*,?\s+)?(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?"
    rf"(?:\s+of)?\s+{_MONTH}(?:\s+\d{{4}})?{_CLOCK}"
    rf"|\b(?:(?:on|for|by|from)\s+)?(?:{_DAY}\s*,?\s+)?{_MONTH}\s+\d{{1,2}}(?!\d)(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"{_CLOCK}"
    rf"|\b(?:(?:on|for|by|from)\s+)?(?:(?:this|next|coming)\s+)?{_DAY}(?:\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th))?"
    rf"{_CLOCK}"
    rf"|\b(?:(?:on|for|by|to|until|till)\s+)?the\s+\d{{1,2}}(?:st|nd|rd|th){_CLOCK}"
    rf"|\b(?:tomorrow|tonight|the day after tomorrow|next week|this weekend|next weekend){_CLOCK}"
    rf"|\b\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}})?", re.I)


# A month or a year said without a day ("in June 2027", "in March", "in 2029"): told as that, never as a day.
_PERIOD = re.compile(rf"\b(?:(?:in|by|from|until|till|before|after)\s+)?(?:(?P<month>{_MONTH})"
                     rf"(?:\s+(?P<year>\d{{4}}))?|(?P<only>\d{{4}}))\b(?!\s*\d)", re.I)
_MONTH_NUMBERS = {name: n for n, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}


# A habit, said of a weekday ("the bins go out on Monday night", "Mum calls on Sunday evenings", "the cleaner
# comes every Friday"): no one day's plan. Read in English, as the date phrases are.
_HABITUAL = re.compile(r"\b(?:usually|always|normally|generally|typically|often|every|each)\b|"
                       rf"\b{_DAY}s\b|\b(?:mornings|afternoons|evenings|nights|weekends|weekdays)\b", re.I)
_ACTION = re.compile(r"\b(?:go|goes|come|comes|do|does|call|calls|swim|swims|run|runs|train|trains|meet|meets|visit|"
                     r"visits|collect|collects|play|plays|work|works|take|takes|cook|cooks|clean|cleans|walk|walks|"
                     r"pick|picks|drop|drops|shop|shops|teach|teaches|practise|practises|practice|practices|water|"
                     r"waters|eat|eats|get|gets)\b", re.I)
# What makes a weekday one day's: a word of planning or being, or an event that happens once.
_ONCE = re.compile(r"\b(?:is|are|'s|'re|am|'m|was|were|will|'ll|have|has|'ve|had|got|booked|scheduled|planned|arranged|"
                   r"going|gonna|moved|pushed|postponed|rescheduled|set|this|next|coming|appointment|meeting|flight|"
                   r"party|offsite|interview|dinner|lunch|breakfast|brunch|trip|wedding|exam|test|match|game|concert|"
                   r"show|gig|surgery|operation|deadline|review|check-?up|viewing|delivery|ceremony|funeral|drinks|"
                   r"event|conference|date|dentist|doctor|vet|haircut|physio)\b", re.I)


def _habit(text: str, match: re.Match[str]) -> bool:
    """Whether the weekday `match` found is said of a habit: "every", "usually", days in the plural; or a
    bare weekday after a verb of doing, in a clause with no word of a one-off plan or event."""
    phrase = match.group(0)
    if re.search(r"\d|\b(?:this|next|coming)\b|" + _MONTH, phrase, re.I):
        return False  # a date, not a weekday
    start = max(text.rfind(sign, 0, match.start()) for sign in ".;!?\n") + 1
    clause = text[start:match.end() + 20]
    if _HABITUAL.search(clause):
        return True
    before = text[start:match.start()]
    return bool(_ACTION.search(before)) and not _ONCE.search(before)


@dataclass(frozen=True)
class StatedDate:
    at: datetime  # UTC (a month or a year: its first day, at midnight in the user's zone)
    phrase: str  # as written ("on Dec 10", "the 12th", "in June 2027")
    timed: bool  # a clock time was said ("at 3pm"): else the day is what counts
    granularity: str = "day"  # day | month | year (SPEC F5: a date is told as precisely as it was said)

    def told(self, clock: Clock) -> str:
        """As an answer says it: "Mon Nov 23 15:00", "Thu Dec 10", "June 2027", "2029"."""
        if self.granularity in ("month", "year"):
            local = clock.local(self.at)
            return Resolved(self.phrase, local, self.granularity).describe()
        return clock.short(self.at) if self.timed else clock.day(self.at)


# A day of the month said alone (no month in its phrase): "the 12th", "on the 3rd at 10am".
_DAY_ONLY = re.compile(r"(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b", re.I)


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
        if not moved_to and _habit(text, match):
            continue  # "the bins go out on Monday night": what happens every week, no plan for one day
        said = re.sub(r"^(?:for|by|from|to|until|till)\s+", "", phrase, flags=re.I)
        try:
            at, rule = parse_schedule(said, written_at, zone, default_time)
        except (InvalidInput, ValueError, OverflowError):
            continue
        if rule is not None:
            continue
        timed = bool(re.search(r"\d[:.]\d\d|\d\s*(?:am|pm)|\bat\s+\d|noon|morning|afternoon|evening|tonight", said,
                               re.I))
        if _DAY_ONLY.match(said) and not re.search(_MONTH, said, re.I):
            # "in March we're going to Lisbon, flights on the 12th": the 12th of the month said, not of this one
            # (a newcomer's: "That is Sat Dec 12")
            month = _stated_period(text, written_at, zone)
            if month is not None and month.granularity == "month":
                first = month.at.astimezone(zone)
                try:
                    day = first.replace(day=int(re.search(r"\d+", said).group(0)))  # type: ignore[union-attr]
                except ValueError:
                    continue  # "the 31st" of a month without one
                return StatedDate(day.replace(hour=at.astimezone(zone).hour, minute=at.astimezone(zone).minute)
                                  .astimezone(UTC), phrase, timed)
        return StatedDate(at, phrase, timed)
    return _stated_period(text, written_at, zone)


def _stated_period(text: str, written_at: datetime, zone: tzinfo) -> StatedDate | None:
    """A month or a year a plan is said for ("my passport expires in June 2027", "the lease ends in March"):
    its first day, with that granularity; a month without a year is the coming one."""
    for match in _PERIOD.finditer(text):
        if match.group("only") is None and not re.match(r"(?:in|by|from|until|till|before|after)\s|\w+\s+\d{4}",
                                                        match.group(0), re.I):
            continue  # a bare month name ("may", "march") is too often another word
        if tense_of(text, match.start(), match.end()) == "past":
            continue
        local = written_at.astimezone(zone)
        if match.group("only") is not None:
            year = int(match.group("only"))
            if not 1900 <= year <= 2200:
                continue
            return StatedDate(datetime(year, 1, 1, tzinfo=zone).astimezone(UTC), match.group(0), False, "year")
        month = _MONTH_NUMBERS[match.group("month").lower()[:3]]
        year = int(match.group("year")) if match.group("year") else local.year + (month < local.month)
        return StatedDate(datetime(year, month, 1, tzinfo=zone).astimezone(UTC), match.group(0), False, "month")
    return None
