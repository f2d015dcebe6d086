"""What a message asks for, read without a model: the offline mode, and the fallback when the
configured model cannot be reached.

`read_message` turns one message into an Action (assistant.reading.actions): one class per intent
(Remind, RemindRelative, Remember, Upcoming, Known, Recap, Done, Cancel, Move, Snooze, Rename, Undo, Forget,
Question, Help, NearMiss, Chat) with its parts: the task or the words naming a reminder, its id, the new
time, the days a recap or an agenda is about. Reminders are understood with the time before or after the
task ("remind me tomorrow at 8am to water the plants", "remind me to water the plants tomorrow at 8am",
"at 5pm remind me to call Bob", "remind me at 8PM take the chicken out") and with repeating rules
("every Tuesday at 7pm"). The labelled table in tests/test_phrasing.py is the contract.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, tzinfo

from assistant.reading.actions import (
    Action,
    Cancel,
    Chat,
    Done,
    Forget,
    Help,
    Known,
    Move,
    NearMiss,
    Question,
    Recap,
    Remember,
    Remind,
    RemindNoTime,
    RemindRelative,
    Rename,
    Snooze,
    Undo,
    Upcoming,
)
from assistant.reading.intent import is_recap_query
from assistant.reading.questions import greeting_before_question, question_focus, without_greeting
from assistant.reading.spans import DaySpan, day_span
from memory import supersession
from memory.errors import DateParseError, InvalidInput
from memory.sensitive import find_secrets
from memory.time import names
from memory.time.due_phrases import impossible_time
from memory.time.references import asks_when
from memory.time.rules import Recurrence, is_rule_phrase
from memory.time.schedule import parse_schedule
from memory.words import STOPWORDS, is_word, stems

_FLAGS = re.I | re.S
# Politeness and address that carry no meaning for the request.
_LEAD = re.compile(r"^\W*((hey|hi|ok|okay|so|and|also|oh|um|assistant|please|pls|kindly)\b[\s,!.]*|"
                   r"(can|could|would|will) you( please)?\s+|i('d| would) like you to\s+|i want you to\s+)+", _FLAGS)
_TRAIL = re.compile(r"(?:[\s,]+(?:please|pls|thanks|thank you|thx|ok\??))?[\s.!]*$", _FLAGS)

_REMIND_TRIGGER = re.compile(
    r"\b(remind me|set (?:me )?(?:a |an |up a )?reminder|add (?:a )?reminder|create (?:a )?reminder|"
    r"make (?:a )?reminder|new reminder|(?<![\w-])reminder(?=\s*[:,-])|ping me|nudge me|"
    r"(?:don'?t|do not) let me forget)\b[\s:,-]*", _FLAGS)
_ONLY_IT = re.compile(r"\W*(?:it|that|this|them)?\W*", _FLAGS)  # "don't let me forget (it)" after what it is
# "remember that" said after what is to be kept: "I'm allergic to penicillin, remember that" (a newcomer's)
# (searched for at the end only: a lazy "what" before it read a 16 kB paste in seconds, quadratic)
_REMEMBER_AFTER = re.compile(r"\s*(?:[,.;:!–—-]+\s*(?:please\s+)?|\s+please\s+)(?:remember|note|keep)\s+"
                             r"(?:that|this|it)(?:\s+(?:please|for me))?[\s.!]*$", _FLAGS)
_BY_THE_WAY = re.compile(r"^\W*(?:by the way|btw|fyi|and)\b[\s,]*", _FLAGS)
_CONNECTOR = ("to", "about", "that", "of")
# A word that can open a date phrase: a day, a month, a number, "at", "every", ...
_DATE_START = re.compile(
    r"^(today|tonight|tomorrow|tmrw|this|next|on|at|in|by|noon|midday|midnight|morning|evening|afternoon|every|each|"
    r"daily|weekly|monthly|yearly|annually|fortnightly|weekdays|weekends|the|mon|tue|wed|thu|fri|sat|sun|jan|feb|"
    r"mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d)", re.I)
_LEADING_FOR = re.compile(r"^(for|on)\s+(?!the\b)", re.I)
# "the" opens a date only as "the 5th", "the day after tomorrow", "the first of ...".
_THE_DATE = re.compile(r"^(on\s+)?the\s+(?!\d|(first|second|third|fourth|last|next|day|end|week)\b)", re.I)
# A rule must start where the rule starts: recurrent skips words it does not know, so "the bins
# every Tuesday" would otherwise swallow "the bins".
_RULE_START = re.compile(
    r"^(every|each|daily|weekly|monthly|yearly|annually|fortnightly|(on\s+)?weekdays|(on\s+)?weekends|"
    r"(on\s+)?the\s+(\d|first|second|third|fourth|last)|(at|in the)\s+[\w:. ]{1,12}\s+every\b)", re.I)

_UPCOMING = re.compile(
    r"\b(what'?s|what is|anything|what have i got|what do i have|do i have anything)\b.*"
    r"\b(coming up|due|upcoming|planned|on my plate|on my agenda|today|tomorrow|this week|scheduled|"
    r"(on |this |next )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(this |next |the )weekend|"
    r"next week|tonight|this (morning|afternoon|evening)|"
    r"on (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2})\b"
    r"|^\W*(my |show( me)?( my)? |list( my)? |any |what are my |open )?(reminders|upcoming|agenda|to-?dos?)\W*$"
    r"|\bmy reminders\b|\bwhat (am i|do i need to be) remind", re.I)
# What is late: "what's overdue?", "anything overdue?", "what am I late on?" (a newcomer's, that found nothing).
_OVERDUE = re.compile(r"^\W*(?:what'?s|what is|anything|is anything|what am i|what have i|which reminders are|"
                      r"any reminders|show(?: me)?|list)\b.*\b(?:overdue|late on|behind on|late with|missed)\W*$", re.I)
# What an agenda question may say between "what's" and its day ("what's planned for Friday?", "what have I got
# on tomorrow?"): another word is something else asked of that day ("what's the weather like tomorrow?").
_AGENDA_WORDS = frozenset("""s on up planned happening scheduled going left else still all lined got get
agenda schedule plan plans day diary calendar list need needs doing done coming due upcoming anything something
plate busy am any week weeks weekend month next today tonight tomorrow morning afternoon evening night""".split())
_MONTH_NAME = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b")


def _agenda_asked(core: str) -> bool:
    """An agenda asked for: "what's on tomorrow?", "my reminders"; not another thing asked of a day."""
    match = _UPCOMING.search(core)
    if match is None:
        return False
    return match.group(1) is None or not _something_else_asked(core)  # "my reminders": no day to ask of


def _something_else_asked(core: str) -> bool:
    """Whether a question of a day asks of something else than what is on then: a word that is not the day,
    a little word, or one of an agenda ("what's the weather like tomorrow?", "what's for dinner tonight?")."""
    words = re.findall(r"[a-z]+", _MONTH_NAME.sub(" ", _DAY_WORD.sub(" ", core.lower())))
    return any(word not in STOPWORDS and word not in _AGENDA_WORDS for word in words)


# One's reminders asked for as such ("what reminders do I have?", "do I have any reminders?", "what's on my
# list?"), maybe for some days ("... tomorrow"); not a list of something else ("my shopping list") nor
# reminders about one thing ("any reminders about the dentist?": a question about memory).
_MY_REMINDERS = re.compile(
    r"^\W*(?:(?:what|which)\s+(?:reminders|to-?dos?|tasks)\s+(?:do|have|did)\s+(?:i|we)(?:\s+(?:have|got|set|made))?"
    r"|(?:what|which)\s+(?:reminders|to-?dos?)\s+(?:are|is)\s+(?:there|open|set|pending|due)"
    r"|(?:do|have)\s+(?:i|we)\s+(?:have|got)\s+(?:any|some)\s+(?:reminders|to-?dos?)"
    r"|(?:are|is)\s+there\s+any\s+(?:reminders|to-?dos?)|any\s+(?:reminders|to-?dos?)"
    r"|(?:what'?s|what\s+is|anything)\s+(?:on|in)\s+my\s+(?:(?:to-?do|reminders?|task)\s+)?list"
    r"|(?:show|give|tell|read)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?my\s+(?:reminders|to-?dos?|(?:to-?do\s+|reminders?\s+)?list)"
    r"|what\s+are\s+(?:all\s+)?my\s+(?:reminders|to-?dos?))"
    r"(?P<rest>(?:\s+(?:(?:set|open|pending|left|still|right now|now|at the moment|so far|coming up|for|on|in)\b|"
    r"(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week)|next week|(?:this |next )?weekend|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b))*)\W*$", re.I)
# What the assistant knows of the person, asked as such ("what do you know about me?", "what have you
# remembered?"); "what do you know about Priya?" is a question about Priya.
_KNOWN = re.compile(
    r"^\W*(?:(?:tell|show)\s+me\s+)?what\s+(?:else\s+)?(?:(?:do|did|have|can)\s+)?you\s+(?:know|remember(?:ed)?|got|stored|"
    r"saved|kept|learn(?:ed|t)|noted)(?:\s+(?:so far|on me|about me|of me|about myself|about my life))?\W*$"
    r"|^\W*what(?:'?s|\s+is)\s+in\s+your\s+memory\W*$"
    r"|^\W*(?:(?:show|list|give|tell)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?|what\s+are\s+)?my\s+memories\W*$", re.I)
# What is left of a day: "what do I still have to do today?", "anything left for today?", "anything else?",
# "what am I doing tonight?", "any plans this afternoon?". "still" and "left" count only about things to do
# ("what do I still need to tell Priya?" and "anything left in the fridge?" are questions about memory).
_OPENER = r"^\W*(?:and\s+)?(?:what'?s|what|anything|is there anything|do i have anything|any|is there something)"
_LEFT = re.compile(
    _OPENER + r"\b.*\b(?:still\s+(?:have|got|need)\s+to\s+do|still\s+(?:to\s+do|open|pending|due)|"
    r"still\s+on\s+(?:for\s+)?(?:today|tonight|my\s+(?:list|plate|agenda))|"
    r"(?:have|got|need)\s+(?:left\s+)?to\s+do|to-?do|left(?:\s+(?:for|to\s+do|today|tonight|this\s+\w+|on\s+"
    r"(?:my\s+)?(?:list|plate|agenda)))?\W*$|remaining\W*$)|^\W*(?:and\s+)?(?:anything|what|something)\s+else"
    r"(?:\s+(?:for|on)?\s*(?:today|tonight|this\s+(?:morning|afternoon|evening)))?\W*$", re.I)
_ON_A_DAY = re.compile(_OPENER + r"\b.*\b(?:on|planned|plans|doing|busy|scheduled|happening|due|have|got|else)\b",
                       re.I)
_DAY_WORD = re.compile(r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening)|(?:on |this |next )?"
                       r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:this|next|the) weekend|next week|"
                       r"in (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|(?:this|next) month)\b", re.I)
# Plans of travel: "do I have any trips planned?", "where am I going in December?".
_TRIPS = re.compile(r"\b(?:trips?|travel(?:s|ling|ing)?|flights?|holidays?|vacations?|journeys?|getaways?|"
                    r"going away)\b.*\b(?:planned|coming up|booked|upcoming|soon|ahead|next)\b"
                    r"|\b(?:any|my|upcoming|next|planned)\s+(?:trips?|travels?|flights?|holidays?|vacations?)\b"
                    r"|^\W*where\s+(?:am i|are we)\s+(?:going|flying|travell?ing|off to|headed|heading)\b", re.I)
_DONE = re.compile(
    r"^\W*(?:i'?m |i am |i have |i've |just )?(?:done|finished|completed?|did)\s+(?:with\s+)?(?P<what>.+?)\W*$"
    r"|^\W*(?:mark|tick off|check off|cross off)\s+(?P<what2>.+?)(?:\s+as)?(?:\s+(?:done|complete|completed|finished))?"
    r"\W*$|^\W*(?P<what3>.+?)\s+is\s+done\W*$", re.I)
_FORGET = re.compile(r"^\W*(?:forget|delete|remove)\s+(?:memory\s+|reminder\s+|that\s+|about\s+)?(?P<what>.+?)\W*$",
                     re.I)
_REMEMBER = re.compile(
    r"^\W*(?:remember|note|make a note|take a note|keep in mind|(?:don'?t|do not) forget|fyi|for the record)"
    r"(?:\s+(?:that|this|of))?[\s:,-]+(?P<what>.+?)[\s.!]*$", _FLAGS)
_REMEMBER_ASKS = re.compile(r"^\W*remember\s+(when|what|where|who|how|if|whether)\b", _FLAGS)  # a question
_QUESTION_START = re.compile(
    r"^\W*(what|what's|whats|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|"
    r"am\s+i|whos|wheres|whens|hows|whys|"  # asked without the mark or the apostrophe: "am I ok with heights"
    r"should|would|will|have|has|had|tell me|remind me (?:of|what)|any idea|i forgot|i can'?t remember|"
    r"do you (?:know|remember))\b", re.I)
# A question asked after what it is about: "neighbour with the ladder - who is it", "the dentist's number, what
# was it again" (a pronoun for what was named: "Tom, who is a plumber" is a clause about Tom, no question).
_QUESTION_END = re.compile(r"[,:;–—-]\s*(?:what|who|where|when|which)(?:'s|\s+(?:is|was|are|were))\s+"
                           r"(?:it|that|this|they|he|she)(?:\s+again)?\W*$", re.I)
# A short question first, then a remark that asks nothing ("number for the plumber? the boiler's leaking"); not
# when the remark gives what was asked ("Door code? it's 4471", "wifi? Heron-42", "PIN? 4 4 7 1").
_ASKED_FIRST = re.compile(r"^\W*(?P<q>[^?\n]{3,80}\?)[ \t]+(?P<rest>[^?\n]{3,200})$")
_ANSWERED_AFTER = re.compile(r"^\W*(?:it'?s|it’s|it is|that'?s|its|=|same|still|now|just|no|yes|yeah|nope|none|"
                             r"there'?s? (?:isn'?t|is no)|\S*\d)|.*\d|.*\b(?:said|says|told|tells)\b", re.I)
_HELP = re.compile(r"^\W*(help|\?|what can you do|how do(?:es)? (?:this|it|you) work|commands|usage)\W*$", re.I)
_GREETING = re.compile(r"^\W*(hi|hello|hey|good (morning|afternoon|evening)|yo|hiya|howdy|thanks|thank you|"
                       r"ok|okay|cool|great|nice|bye|goodbye|see you)\b[\w\s!.,'?]{0,25}$", re.I)


# Changing a reminder from the chat. The words naming it come first, the new time or text after.
_UNDO = re.compile(r"^\W*(?:oops\W*)?(?:undo|revert|take (?:that|it) back|put (?:that|it) back|"
                   r"bring (?:that|it) back|restore (?:that|it))"
                   r"(?:\s+(?:that|it|this|the last(?: change| one| thing)?|my last change))?\W*$", re.I)
_CANCEL_CMD = re.compile(r"^\W*(?:cancel|call off|scrap|drop)\s+(?P<what>.+?)\W*$", re.I)
_SNOOZE_CMD = re.compile(r"^\W*snooze(?:\s+(?P<what>.+?))?\W*$", re.I)
_SNOOZE_WHEN = re.compile(r"^(?P<what>.*?)\s*\b(?P<sep>for|until|till|to|by|in)\s+(?P<when>.+)$", re.I)
_AGAIN = re.compile(r"^\W*remind me (?:again|about (?:it|that|this) again|again about (?:it|that|this))"
                    r"(?:\s+(?P<sep>in|at|on|tomorrow|tonight|next|for)\b\s*(?P<when>.*?))?\W*$", re.I)
_MOVE_CMD = re.compile(r"^\W*(?P<verb>move|reschedule|push|shift|postpone|delay|change|put off|bring forward|bring|"
                       r"set)\s+(?P<rest>.+?)\W*$", re.I)
# Verbs with many other meanings ("set the table at 7", "bring the cake to the party at 5") change a
# reminder only when it is named as one: by its number, "it", or the word "reminder".
_LOOSE_VERBS = ("set", "bring", "bring forward", "shift")
_RENAME_CMD = re.compile(r"^\W*(?:rename|retitle|relabel|reword)\s+(?P<what>.+?)\s+(?:to|as|into)\s+(?P<new>.+?)\W*$",
                         re.I)
_SHIFT = re.compile(r"^(?P<what>.+?)\s+(?P<dir>back|forward|later|earlier)?\s*(?:by\s+)?"
                    r"(?P<n>\d+|an?|one|two|three|four|five|six|half an)\s*"
                    r"(?P<unit>minutes?|mins?|m|hours?|hrs?|h|days?|weeks?)"
                    r"(?:\s+(?P<dir2>later|earlier|back|forward))?$", re.I)
_DURATION = re.compile(r"^(?:in\s+|for\s+)?(?:\d+|an?|one|two|three|half an)\s*"
                       r"(?:minutes?|mins?|m|hours?|hrs?|h|days?|weeks?)$", re.I)
_MOVE_SEPARATORS = re.compile(r"\s+(?:to|until|till|for|at|on)\s+", re.I)
_TIME_ONLY = re.compile(r"^(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|\d{1,2}\.\d{2}\s*(?:am|pm)|noon|"
                        r"midday|midnight)$", re.I)
_THAT = re.compile(r"^(?:it|that|this|that one|this one|the last one|the last reminder|that reminder|this reminder)$",
                   re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "half an": 0.5, "a couple of": 2, "a few": 3}
# "two days before the budget report is due": a reminder set relative to an event.
_RELATIVE = re.compile(
    r"^(?P<task>.*?)\s*\b(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|half an|a couple of|a few)\s+"
    r"(?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?)\s+(?P<dir>before|ahead of|prior to|after)\s+(?P<event>.+)$"
    r"|^(?P<task2>.*?)\s*\bthe\s+(?P<unit2>day|night|week|morning|evening)\s+(?P<dir2>before|after)\s+(?P<event2>.+)$",
    re.I)
# A request that says a time and nothing else: its words (numbers aside) are all of a time's.
_ONLY_A_TIME = re.compile(
    r"(?:(?:in|at|on|by|for|from|the|a|an|this|next|tomorrow|today|tonight|morning|evening|afternoon|night|weekend|"
    r"week|month|year|hours?|minutes?|mins?|hrs?|days?|weeks?|months?|half|quarter|of|and|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|twenty|thirty|am|pm|noon|midday|midnight|o'clock|please|me|later|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|\d{1,2}(?:[:.]\d\d)?(?:am|pm)?)\W*)+", re.I)
# What is left of a request with a time and nothing to do: the time's own little words.
_NO_TASK = re.compile(r"(?:(?:in|at|on|by|for|from|tomorrow|today|tonight|this|next|morning|evening|afternoon|"
                      r"night|me|please|then|around|about)\W*)*", re.I)
# Before (or after) the thing to be reminded of, said last: "about the team meeting 15 minutes before".
_BEFORE_ITSELF = re.compile(
    r"^(?P<task>.+?)\s+(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|half an|a couple of|a few)\s+"
    r"(?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?)\s+(?P<dir>before|beforehand|ahead|earlier|after|afterwards)"
    r"\W*$", re.I)
# "the oven one", "the dentist reminder": a reminder named with nothing to do with it.
_NAMED_ONLY = re.compile(r"^\W*(?:the\s+)?(?P<what>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:one|reminder)\W*$", re.I)
_EVENT_END = re.compile(r"\s+(?:is|are)\s+(?:due|on|at|happening)\b.*$|\s+(?:starts?|begins?|is)\s*$", re.I)
# Words people use for the offline mode's commands, for spotting a typo of one ("remnd me", "snoze").
COMMAND_WORDS = ("remind", "remember", "cancel", "snooze", "reschedule", "rename", "forget", "undo", "delete",
                 "postpone", "reminder", "reminders")


_Found = tuple[datetime, Recurrence | None]  # a schedule read from a phrase: the first due instant, the rule


_LINKS_ALONE = frozenset({"at", "on", "by", "in", "from", "until", "till"})  # no time said: not 9 o'clock today


def _schedule(phrase: str, now: datetime, zone: tzinfo) -> _Found | None:
    phrase = _LEADING_FOR.sub("", phrase.strip(" ,.;:-?!"))
    if not phrase or not _DATE_START.match(phrase) or _THE_DATE.match(phrase) or phrase.lower() in _LINKS_ALONE:
        return None
    if is_rule_phrase(phrase) and not _RULE_START.match(phrase):
        return None
    try:
        return parse_schedule(phrase, now, zone)
    except (InvalidInput, ValueError, OverflowError):
        return None


# A task said as a statement, with its subject and verb: "it's Tom's football night", "we're out of milk".
_SAYS_SOMETHING = re.compile(r"^(?:it'?s|it is|there'?s|there is|there are|we'?re|we are|we have|i'?m|i am|i have|"
                             r"they'?re|they are|he'?s|she'?s|he is|she is)\s", re.I)


def _task(words: list[str]) -> tuple[str, str]:
    """The task and its link word: ("water the plants", "to") from "to water the plants"."""
    text = " ".join(words).strip(" ,.;:-")
    link = "to"
    match = re.match(r"^(?:me\s+)?(to|about|that|of|for)\s+", text, re.I)
    if match:
        word = match.group(1).lower()
        link = {"of": "about", "for": "about"}.get(word, word)
        text = text[match.end():]
    elif _SAYS_SOMETHING.match(text):
        link = "that"  # "remind me it's Tom's football night": "remind you that it's ..." (a newcomer's)
    text = re.sub(r"\s+(on|at|by|for)$", "", text, flags=re.I)
    return _TRAIL.sub("", text).strip(" ,.;:-?!"), link


def task_and_link(text: str) -> tuple[str, str]:
    """What to be reminded of, said alone ("to call Sam", "the bins"), with its link word."""
    return _task(text.split())


_MONTH_WORD = re.compile(
    rf"(?<!\w)(?:{names.alternation(names.MONTHS, names.MONTH_SHORT, names.MONTH_SPELLINGS)})(?!\w)", re.I)


def _impossible(text: str, now: datetime, zone: tzinfo) -> str | None:
    """A time or a date in `text` that no day has ("at 25:00", "13pm", "Feb 30", "the 31st of April"), as
    written; None when there is none."""
    clock = impossible_time(text)
    if clock or not _MONTH_WORD.search(text):
        return clock
    words = text.split()
    for size in (4, 3, 2):
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start:start + size])
            if any(c.isdigit() for c in phrase) and _MONTH_WORD.search(phrase):
                try:
                    parse_schedule(phrase, now, zone)
                except DateParseError as error:
                    if error.why == "no such day":
                        return phrase
                except (InvalidInput, ValueError, OverflowError):
                    pass
    return None


_NUMBER = re.compile(r"\d+(?:[,.]\d{3})*,?")  # 204, 5512, 1,000; not a clock time (9.30, 9:30)


def _time_tails(words: list[str], now: datetime, zone: tzinfo) -> Iterator[tuple[int, _Found]]:
    """Where a time said last can start in `words` (never at the first word), longest first, with what it reads as.

    A number right before a time that reads on its own is the words' own, not the time's: "book room 204 tomorrow
    at 9am" is about room 204 (dateparser passed over the 204, and the task lost it); "5 December" stays a date.
    """
    for start in range(1, len(words)):
        found = _schedule(" ".join(words[start:]), now, zone)
        if found is None:
            continue
        after = words[start + 1:]
        if (_NUMBER.fullmatch(words[start]) and after and not _MONTH_WORD.match(after[0])
                and _schedule(" ".join(after), now, zone) is not None):
            continue
        yield start, found


def split_task_and_time(rest: str, now: datetime, zone: tzinfo) -> tuple[str, str, str, _Found | None]:
    """(task, link, when, schedule) from what follows "remind me"; schedule None when no time is given.

    The time may come first ("tomorrow at 8am to water the plants", "at 8PM take the chicken out")
    or last ("to water the plants tomorrow at 8am", "to take out the bins every Tuesday at 7pm").
    """
    words = rest.split()
    starts_with_link = bool(words) and words[0].lower() in _CONNECTOR
    if not starts_with_link:
        # Time first, then a connector: the longest head that reads as a date wins.
        for k in range(len(words) - 1, 0, -1):
            if words[k].lower() in _CONNECTOR:
                found = _schedule(" ".join(words[:k]), now, zone)
                if found is not None:
                    task, link = _task(words[k:])
                    if task:
                        return task, link, " ".join(words[:k]), found
    # Time last: the longest tail that reads as a date.
    for start, found in _time_tails(words, now, zone):
        task, link = _task(words[:start])
        if task:
            return task, link, " ".join(words[start:]), found
    if not starts_with_link:
        # Time first with no connector (Siri style): "at 8PM take the chicken out of the freezer".
        for k in range(len(words) - 1, 0, -1):
            found = _schedule(" ".join(words[:k]), now, zone)
            if found is not None:
                task, link = _task(words[k:])
                if task:
                    return task, link, " ".join(words[:k]), found
    task, link = _task(words)
    return task, link, "", None


def _strip(text: str) -> str:
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = _LEAD.sub("", text)
    trail = _TRAIL.search(text)
    return text[:_with_its_marks(text, trail.start() if trail else len(text))].strip()


def _with_its_marks(text: str, end: int) -> int:
    """Where `text` ends once the marks after `end` are cut, unless they end a secret: "the wifi password is
    BlueHeron77!" keeps its "!" (a newcomer's, issue 42: the password was kept without it)."""
    if end < len(text) and text[end] in ".!":
        return max([end, *(span.end for span in find_secrets(text) if span.start < end < span.end)])
    return end


def _amount(number: str, unit: str) -> timedelta:
    n = float(_NUMBERS.get(number.lower(), number)) if not number.isdigit() else float(number)
    unit = unit.lower()
    if unit.startswith("m"):
        return timedelta(minutes=n)
    if unit.startswith("h"):
        return timedelta(hours=n)
    if unit.startswith("d"):
        return timedelta(days=n)
    return timedelta(weeks=n)


def naming(words: str) -> tuple[int | None, str]:
    """(id, words) of how a message names a reminder: "33", "#33", "reminder 33" -> (33, ""); "the oven
    reminder" -> (None, "oven"); "that" -> (None, "that")."""
    words = " ".join(words.split()).strip(" ,.;:!?")
    match = re.fullmatch(r"(?:the\s+)?(?:reminder\s+|number\s+|no\.?\s*)?#?(\d{1,12})", words, re.I)
    if match:
        return int(match.group(1)), ""
    if _THAT.fullmatch(words):
        return None, "that"
    words = re.sub(r"^(?:the|my|our|a)\s+", "", words, flags=re.I)
    # "tomorrow's dentist", "the dentist on friday": the day says which, the words say what.
    words = re.sub(r"\b(?:today|tonight|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)(?:'s)?\b\s*", "", words,
                   flags=re.I).strip()
    words = re.sub(r"\s+(?:on|for|at)$", "", words, flags=re.I)
    words = re.sub(r"^(?:reminder|reminders)\s+(?:to|about|for|of)\s+", "", words, flags=re.I)
    words = re.sub(r"\s+(?:reminder|reminders|one|thing|task)$", "", words, flags=re.I)
    words = re.sub(r"^(?:reminder|reminders)$", "", words, flags=re.I)
    return None, words.strip()


def _schedule_phrase(phrase: str, now: datetime, zone: tzinfo) -> _Found | None:
    """A new time for a reminder: like a due phrase in "remind me", and also "10am", "5 minutes"."""
    phrase = re.sub(r"^for\s+", "", phrase.strip(" ,.;:-?!"), flags=re.I)
    if _DURATION.match(phrase) and not phrase.lower().startswith(("in ", "for ")):
        phrase = f"in {phrase}"
    return _schedule(phrase, now, zone)


def _duration(when: str, found: _Found | None, now: datetime) -> timedelta | None:
    """How long a snooze is when it was said as a duration ("for 5 minutes"): a reminder not due yet
    is put off by that much from its own time, not brought forward to now + 5 minutes."""
    if found is None or not _DURATION.match(when.strip()):
        return None
    return found[0] - now


def _change(core: str, now: datetime, zone: tzinfo) -> Action | None:
    """A change to a reminder: cancel, snooze, move (to a time or by an amount), rename, undo."""
    if _UNDO.match(core):
        return Undo()
    match = _AGAIN.match(core)
    if match:
        when = " ".join(p for p in (match.group("sep"), match.group("when")) if p) or "in 10 minutes"
        found = _schedule_phrase(when.removeprefix("for "), now, zone)
        return Snooze(content="that", when=when, due=found[0] if found else None, shift=_duration(when, found, now))
    match = _CANCEL_CMD.match(core)
    if match:
        target, words = naming(match.group("what"))
        if words == "that" and not re.sub(r"^\W+", "", core.lower()).startswith("cancel"):
            return None  # "drop it" is not a request to cancel a reminder; "cancel that" is
        if target is not None or words:
            return Cancel(content=words, target=target)
    match = _SNOOZE_CMD.match(core)
    if match:
        rest = match.group("what") or ""
        when, found = "", None
        split = _SNOOZE_WHEN.match(rest)
        if split:
            when = split.group("when")
            found = _schedule_phrase(when if split.group("sep").lower() != "in" else f"in {when}", now, zone)
            rest = split.group("what")  # read or not, what follows "for" / "until" is the time
        if found is None and re.fullmatch(r"\d+\s*(?:minutes?|mins?|hours?|hrs?)", rest.strip(), re.I):
            when, rest = rest, ""  # "snooze 10 minutes"
            found = _schedule_phrase(when, now, zone)
        target, words = naming(rest) if rest.strip() else (None, "that")
        if not when:
            when, found = "in 10 minutes", _schedule_phrase("in 10 minutes", now, zone)
        return Snooze(content=words or "that", when=when, due=found[0] if found else None, target=target,
                      shift=_duration(when, found, now))
    match = _RENAME_CMD.match(core)
    if match:
        target, words = naming(match.group("what"))
        return Rename(content=words, target=target, new_text=match.group("new").strip())
    match = _MOVE_CMD.match(core)
    if not match:
        return None
    verb, rest = match.group("verb").lower(), match.group("rest")
    if verb in _LOOSE_VERBS and not re.match(r"^(?:#?\d+|it|that|this)\b|.*\breminder\b", rest, re.I):
        return None
    if verb == "set" and re.match(r"^(?:me\s+)?(?:a|an|up\s+a|another)\s+(?:new\s+)?reminder\b", rest, re.I):
        return None  # "set a reminder to book flights on Monday" asks for a new one
    shift = _SHIFT.match(rest)
    if shift and verb != "change":
        amount = _amount(shift.group("n"), shift.group("unit"))
        earlier = (shift.group("dir") or shift.group("dir2") or "").lower() in ("forward", "earlier")
        if verb.startswith("bring"):
            earlier = True
        target, words = naming(shift.group("what"))
        return Move(content=words, target=target, shift=-amount if earlier else amount)
    for separator in _MOVE_SEPARATORS.finditer(rest):
        what, when = rest[:separator.start()], rest[separator.end():]
        if separator.group(0).strip().lower() in ("at", "on"):
            when = separator.group(0).strip() + " " + when
        found = _schedule_phrase(when, now, zone)
        if found is None or not what.strip():
            continue
        target, words = naming(what)
        if not words and target is None:
            continue
        keep_day = bool(_TIME_ONLY.match(when.strip(" .!?")))
        return Move(content=words, when=when.strip(" .!?"), due=found[0], rule=found[1], target=target,
                    keep_day=keep_day)
    if verb == "change":
        parts = re.match(r"^(?:the\s+(?:text|name|wording)\s+of\s+)?(?P<what>.+?)\s+(?:to|into)\s+(?P<new>.+)$", rest,
                         re.I)
        if parts:
            target, words = naming(parts.group("what"))
            if target is not None or re.search(r"\b(reminder|one)\b", parts.group("what"), re.I):
                return Rename(content=words, target=target, new_text=parts.group("new").strip(" .!"))
    if verb in ("move", "reschedule", "postpone", "push", "delay"):
        # A move with no time it could read ("move the dentist"): asked about, never acted on.
        target, words = naming(re.split(r"\s+(?:to|until|till|for|at|on)\s+", rest, maxsplit=1)[0])
        if target is not None or words == "that" or stems(words):
            return Move(content=words, target=target)
    return None


_PAST_TENSE = re.compile(r"\b(?:did|was|were|had|went|used to)\b", re.I)
_TODAY = re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I)


def _about_the_past(text: str) -> bool:
    """Said in the past of a day other than today: "what did I do on Monday?" is not next Monday's agenda ("what
    was I meant to do today?" is today's)."""
    return bool(_PAST_TENSE.search(text)) and not _TODAY.search(text)


def _days_ahead(question: str, now: datetime, zone: tzinfo) -> DaySpan | None:
    """The days to come a question names, as an agenda reads them; none for a question about the past."""
    return None if _about_the_past(question) else day_span(question, now, zone, past=False)


_DAY_AFTER_TOMORROW = re.compile(r"^\W*(?:on\s+)?the\s+day\s+after\s+tomorrow\b", re.I)


def _relative(after: str, now: datetime, zone: tzinfo) -> Action | None:
    """ "remind me two days before the budget report is due to review the numbers"; "remind me about the team
    meeting 15 minutes before" (before the thing itself: a newcomer's was read as 15 minutes before now)."""
    itself = _BEFORE_ITSELF.match(after)
    if itself:
        task, link = _task(itself.group("task").split())
        if task:
            offset = _amount(itself.group("n"), itself.group("unit"))
            return RemindRelative(content=task, event=task, link=link,
                                  offset=-offset if itself.group("dir").lower() == "after" else offset)
    match = _RELATIVE.match(after)
    if match is None or _DAY_AFTER_TOMORROW.match(after):
        return None  # "the day after tomorrow" is a date, not a day after an event called "tomorrow"
    if match.group("event"):
        task, event, before = match.group("task"), match.group("event"), match.group("dir").lower() != "after"
        offset = _amount(match.group("n"), match.group("unit"))
    else:
        task, event, before = match.group("task2"), match.group("event2"), match.group("dir2").lower() != "after"
        offset = {"week": timedelta(weeks=1)}.get(match.group("unit2").lower(), timedelta(days=1))
    link = "to"
    if not task.strip():
        # The task follows the event: "... before the trip to Rome to book a taxi" (the last "to").
        splits = list(re.finditer(r"\s+(to|that|about)\s+", event, re.I))
        if not splits:
            return RemindRelative(event=event.strip(" .?!"), offset=offset if before else -offset)
        cut = splits[-1]
        task, event, link = event[cut.end():], event[:cut.start()], cut.group(1).lower()
    else:
        task, link = _task(task.split())
    when, event_due = "", None
    words = event.split()
    for start, found in _time_tails(words, now, zone):
        if found[1] is None:
            when, event_due, event = " ".join(words[start:]), found[0], " ".join(words[:start])
            break
    event = _EVENT_END.sub("", event.strip(" .?!,")).strip()
    signed = offset if before else -offset
    due = event_due - signed if event_due is not None else None
    return RemindRelative(content=_TRAIL.sub("", task).strip(" ,.;:-?!"), when=when, due=due, link=link, event=event,
                          offset=signed)


def near_miss(core: str) -> str:
    """The message with a misspelt command word put right ("remnd me to ..." -> "remind me to ..."), or ""."""
    words = core.split()
    for index, word in enumerate(words[:2]):
        bare = word.lower().strip(",.:;!?")
        if bare == "remindme":
            return " ".join(words[:index] + ["remind me"] + words[index + 1:])
        if len(bare) < 4 or bare in COMMAND_WORDS or is_word(bare):
            continue  # a word of its own is no typo: "my name is Alex" once got 'Did you mean "my rename is Alex"?'

        close = difflib.get_close_matches(bare, COMMAND_WORDS, n=1, cutoff=0.8)
        if not close and len(bare) == 4 and sorted(bare) == sorted("undo"):
            close = ["undo"]
        if close:
            return " ".join(words[:index] + [close[0]] + words[index + 1:])
    return ""


# What a trip is, said of it: "my flight to Lisbon is TP1333 on Friday", "our holiday cottage is booked".
_STATED = re.compile(r"\b(?:is|are|was|were|leaves?|departs?|lands?|gets in)\b|\w'?s\s+(?:at|on|in|from)\b", re.I)


def _states(core: str) -> bool:
    """Whether a message says something of what it names rather than asks: no question, and a verb saying it
    ("my flight to Lisbon is TP1333 on Friday" is no "any trips on Friday?")."""
    asked = core.rstrip().endswith("?") or _QUESTION_START.match(core) or _QUESTION_END.search(core)
    return not asked and bool(_STATED.search(core))


def read_message(text: str, now: datetime, zone: tzinfo) -> Action:
    """What `text` asks for; any message gets an Action (the last resort is Chat)."""
    raw = " ".join(text.split())
    core = _strip(raw)
    if not core:
        return Chat(content=raw)
    if _HELP.match(core):
        return Help()
    if is_recap_query(raw):
        return Recap(span=day_span(raw, now, zone, past=True))
    reminding = bool(re.match(r"^\W*(remind me (to|about|at|on|in|every)|set a reminder)", core, re.I))
    short = len(core) <= 300  # an agenda is asked in a few words: a pasted megabyte is quickly none
    # "remember my flight to Lisbon is on Friday at 7am" is something to keep, never an agenda asked (it was read
    # as "any trips on Friday?" and nothing was kept: a tester's)
    remembering = bool(_REMEMBER.match(core)) and not _REMEMBER_ASKS.match(core) and not core.rstrip().endswith("?")
    reminding = reminding or remembering
    if short and not reminding and _TRIPS.search(core) and not _states(core):
        return Upcoming(span=day_span(raw, now, zone, past=False), topic="trip")
    if short and _KNOWN.match(core):
        return Known()
    if not reminding and _OVERDUE.match(core):
        return Upcoming(topic="overdue")
    listing = not reminding and (_agenda_asked(core) or short and _MY_REMINDERS.match(core))
    if listing or short and not reminding and not _about_the_past(core) and (
            _LEFT.search(core) or _ON_A_DAY.search(core) and _DAY_WORD.search(core)
            and not _something_else_asked(core)):
        span = day_span(raw, now, zone, past=False)
        if span is None and not listing:
            span = day_span("today", now, zone, past=False)  # "what do I still have to do?": what is left of today
        return Upcoming(span=span)
    change = _change(core, now, zone)
    if change is not None:
        return change
    trigger = _REMIND_TRIGGER.search(core)
    if trigger and not re.match(r"^\W*remind me (of|what)\b", core[trigger.start():], re.I):
        before, after = core[:trigger.start()].strip(" ,.;:-"), core[trigger.end():]
        if before and trigger.group(1).lower().endswith("forget") and _ONLY_IT.fullmatch(after):
            # "my bank card PIN is 3141, don't let me forget it": what was said is to be kept, not a reminder
            return Remember(content=_BY_THE_WAY.sub("", before))
        relative = _relative(after, now, zone)
        if relative is not None:
            return relative
        told = after.strip(" ,.;:-?!")
        impossible = _impossible(told, now, zone)
        if impossible:
            # "remind me at 25:00 to sleep" was a reminder "25:00 to sleep" at 9 the next morning, "on Feb 30" one on
            # the 1st: no day has that time or date, so nothing is set and the time is asked again (as the CLI
            # refuses it)
            rest = " ".join(told.replace(impossible, " ", 1).split())
            task, link = split_task_and_time(rest, now, zone)[:2]
            return RemindNoTime(content=task, link=link, impossible=re.sub(r"^(?:at|on)\s+", "", impossible),
                                impossible_kind="date" if _MONTH_WORD.search(impossible) else "time of day")
        if _ONLY_A_TIME.fullmatch(told) and (whole := _schedule(_TRAIL.sub("", told), now, zone)) is not None:
            # nothing but a time ("remind me in an hour" was a reminder "hour" due in a month, "remind me tomorrow"
            # asked "when should I remind you to tomorrow?"): what to remind of is asked
            return Remind(content="", when=told, due=whole[0], rule=whole[1], link="to")
        task, link, when, found = split_task_and_time(after, now, zone)
        if found is None and before:
            found = _schedule(before, now, zone)  # "at 5pm remind me to call Bob"
            when = before if found else ""
        if found is None:
            return RemindNoTime(content=task, link=link)
        if _NO_TASK.fullmatch(task):
            # "remind me in 15 minutes", "remind me tomorrow at 9": all of it is the time (once read as a reminder
            # "to tomorrow" at the next 9 o'clock), and what to remind of is asked
            whole = _schedule(after.strip(" ,.;:-?!"), now, zone)
            if whole is not None:
                found, when = whole, after.strip(" ,.;:-?!")
            task = ""
        return Remind(content=task, when=when, due=found[0], rule=found[1], link=link)
    match = _FORGET.match(core)
    if match:
        target, words = naming(match.group("what"))
        return Forget(content=words if target is None else str(target), target=target)
    match = _DONE.match(core)
    if match and not _QUESTION_START.match(core):
        target, words = naming((match.group("what") or match.group("what2") or match.group("what3") or "").strip())
        return Done(content=words if target is None else str(target), target=target)
    kept_after = _REMEMBER_AFTER.search(core)
    kept = core[:kept_after.start()].strip() if kept_after else ""
    if kept and re.search(r"\w", kept) and not _QUESTION_START.match(core) and not core.rstrip().endswith("?"):
        return Remember(content=kept)
    match = _REMEMBER.match(core)
    if (match and not _REMEMBER_ASKS.match(core)
            # "remember that" alone, "can you remember that?"
            and match.group("what").strip().lower().rstrip("?") not in ("that", "this", "of", "it")):
        return Remember(content=core[match.start("what"):_with_its_marks(core, match.end("what"))].strip())
    if supersession.is_change(core):
        # "heads up, the gate code changed to 5521": a new value said without "remember that" is kept as one.
        return Remember(content=supersession.without_lead(core), kind="fact")
    if greeting_before_question(raw):  # "hey, who is Priya?": the greeting does not hide the question
        question = without_greeting(raw)
        return Question(content=question, asks_when=asks_when(question), focus=question_focus(question),
                        days=_days_ahead(question, now, zone) if short else None)
    if is_small_talk(raw):  # "hello, how are you?" is not a question about memory
        return Chat(content=raw)
    first = _ASKED_FIRST.match(raw)
    if first and not _ANSWERED_AFTER.match(first.group("rest")):
        # "number for the plumber? the boiler's leaking": the question, then why it is asked (blind round 18)
        question = first.group("q").strip()
        return Question(content=question, asks_when=asks_when(question), focus=question_focus(question),
                        days=_days_ahead(question, now, zone) if short else None)
    if raw.rstrip().endswith("?") or _QUESTION_START.match(core) or _QUESTION_END.search(core):
        return Question(content=raw.strip(), asks_when=asks_when(core), focus=question_focus(raw),
                        days=_days_ahead(raw, now, zone) if short else None)
    suggestion = near_miss(core)
    if suggestion:
        return NearMiss(content=raw, suggestion=suggestion)
    match = _NAMED_ONLY.match(core)
    if match:
        return NearMiss(content=match.group("what"))
    return Chat(content=raw)


# A request of the assistant said as an imperative ("write me a poem", "translate this", "let's plan a
# trip"): a verb people ask an assistant with, then what it is to act on. "book club is on Thursday" and
# "order arrived today" open with such a word and state something.
_ASKS_OF_YOU = re.compile(
    r"^\W*(?:let'?s\b|(?:write|tell|give|make|show|help|explain|translate|find|search|look\s+up|play|sing|draw|"
    r"generate|create|compose|summari[sz]e|list|send|book|order|open|calculate|compute|convert|suggest|recommend|"
    r"describe|plan|teach|pretend|imagine|say|define|rewrite|fix|check|correct|proofread|draft|brainstorm|name|"
    r"count|read|recite|guess|pick|choose|compare|ask|get|find|think\s+of|come\s+up\s+with)\s+"
    r"(?:me|us|a|an|the|some|my|your|this|that|these|those|it|something|anything|another|more|one|all|up|out|"
    r"down|\d+)\b)", re.I)
# What a message asks of the assistant, when it is not a statement: anything the offline mode acts on or
# answers, and the requests it could not do. A plainly said change of a fact ("the gate code changed to
# 5521") is a statement, kept as one.
def states_something(action: Action, text: str) -> bool:
    """Whether a message, read as `action`, tells something (evidence of a fact) rather than asks the
    assistant for something: a command, a question, small talk or a request it could not do is not."""
    if isinstance(action, Remember):
        return action.kind == "fact"
    if not isinstance(action, Chat):
        return False
    core = _strip(text)
    return bool(core) and not is_small_talk(text) and not _ASKS_OF_YOU.match(core)


def is_small_talk(text: str) -> bool:
    """Greetings and acknowledgments ("hi", "thanks!", "ok cool"): nothing to act on or look up."""
    return bool(_GREETING.match(" ".join(text.split())))
