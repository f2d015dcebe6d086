"""What a message asks for, read without a model: the offline mode, and the fallback when the
configured model cannot be reached.

`read_message` turns one message into a Reading: an intent (remind, remember, upcoming, recap,
done, forget, question, help, chat) with its parts. Reminders are understood with the time before
or after the task ("remind me tomorrow at 8am to water the plants", "remind me to water the plants
tomorrow at 8am", "at 5pm remind me to call Bob", "remind me at 8PM take the chicken out") and
with repeating rules ("every Tuesday at 7pm"). The labelled table in tests/test_phrasing.py is
the contract.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, tzinfo

from assistant.turn.intent import is_recap_query
from memory.errors import InvalidInput
from memory.time.references import asks_when
from memory.time.rules import Recurrence, is_rule_phrase
from memory.time.schedule import parse_schedule

_FLAGS = re.I | re.S
# Politeness and address that carry no meaning for the request.
_LEAD = re.compile(r"^\W*((hey|hi|ok|okay|so|and|also|oh|um|assistant|please|pls|kindly)\b[\s,!.]*|"
                   r"(can|could|would|will) you( please)?\s+|i('d| would) like you to\s+|i want you to\s+)+", _FLAGS)
_TRAIL = re.compile(r"(?:[\s,]+(?:please|pls|thanks|thank you|thx|ok\??))?[\s.!]*$", _FLAGS)

_REMIND_TRIGGER = re.compile(
    r"\b(remind me|set (?:me )?(?:a |an |up a )?reminder|add (?:a )?reminder|create (?:a )?reminder|"
    r"make (?:a )?reminder|new reminder|(?<![\w-])reminder(?=\s*[:,-])|ping me|nudge me|"
    r"(?:don'?t|do not) let me forget)\b[\s:,-]*", _FLAGS)
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
    r"\b(coming up|due|upcoming|planned|on my plate|on my agenda|today|tomorrow|this week|scheduled)\b"
    r"|^\W*(my |show( me)?( my)? |list( my)? |any |what are my |open )?(reminders|upcoming|agenda|to-?dos?)\W*$"
    r"|\bmy reminders\b|\bwhat (am i|do i need to be) remind", re.I)
_DONE = re.compile(
    r"^\W*(?:i'?m |i am |i have |i've |just )?(?:done|finished|completed?|did)\s+(?:with\s+)?(?P<what>.+?)\W*$"
    r"|^\W*(?:mark|tick off|check off|cross off)\s+(?P<what2>.+?)(?:\s+as)?(?:\s+(?:done|complete|completed|finished))?"
    r"\W*$|^\W*(?P<what3>.+?)\s+is\s+done\W*$", re.I)
_FORGET = re.compile(r"^\W*(?:forget|delete|remove)\s+(?:memory\s+|reminder\s+|that\s+|about\s+)?(?P<what>.+?)\W*$", re.I)
_REMEMBER = re.compile(
    r"^\W*(?:remember|note|make a note|take a note|keep in mind|(?:don'?t|do not) forget|fyi|for the record)"
    r"(?:\s+(?:that|this|of))?[\s:,-]+(?P<what>.+?)[\s.!]*$", _FLAGS)
_QUESTION_START = re.compile(
    r"^\W*(what|what's|whats|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|have|has|had|tell me|remind me (?:of|what)|any idea|i forgot|i can'?t remember|"
    r"do you (?:know|remember))\b", re.I)
_HELP = re.compile(r"^\W*(help|\?|what can you do|how do(?:es)? (?:this|it|you) work|commands|usage)\W*$", re.I)
_GREETING = re.compile(r"^\W*(hi|hello|hey|good (morning|afternoon|evening)|yo|hiya|howdy|thanks|thank you|"
                       r"ok|okay|cool|great|nice|bye|goodbye|see you)\b[\w\s!.,'?]{0,25}$", re.I)


@dataclass
class Reading:
    intent: str  # remind | remind_no_time | remember | upcoming | recap | done | forget | question | help | chat
    content: str = ""  # the task, the fact, the words naming a reminder, or the question
    when: str = ""  # the date or rule phrase as written
    due: datetime | None = None
    rule: Recurrence | None = None
    target: int | None = None  # done / forget by id
    link: str = "to"  # how the task reads after "remind you": to | about | that
    asks_when: bool = False


def _schedule(phrase: str, now: datetime, zone: tzinfo) -> tuple[datetime, Recurrence | None] | None:
    phrase = _LEADING_FOR.sub("", phrase.strip(" ,.;:-?!"))
    if not phrase or not _DATE_START.match(phrase) or _THE_DATE.match(phrase):
        return None
    if is_rule_phrase(phrase) and not _RULE_START.match(phrase):
        return None
    try:
        return parse_schedule(phrase, now, zone)
    except (InvalidInput, ValueError, OverflowError):
        return None


def _task(words: list[str]) -> tuple[str, str]:
    """The task and its link word: ("water the plants", "to") from "to water the plants"."""
    text = " ".join(words).strip(" ,.;:-")
    link = "to"
    match = re.match(r"^(?:me\s+)?(to|about|that|of|for)\s+", text, re.I)
    if match:
        word = match.group(1).lower()
        link = {"of": "about", "for": "about"}.get(word, word)
        text = text[match.end():]
    text = re.sub(r"\s+(on|at|by|for)$", "", text, flags=re.I)
    return _TRAIL.sub("", text).strip(" ,.;:-?!"), link


def split_task_and_time(rest: str, now: datetime, zone: tzinfo) -> tuple[str, str, str, tuple | None]:
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
    for start in range(1, len(words)):
        found = _schedule(" ".join(words[start:]), now, zone)
        if found is not None:
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
    return _TRAIL.sub("", text).strip()


def read_message(text: str, now: datetime, zone: tzinfo) -> Reading:
    """What `text` asks for; any message gets a Reading (the last resort is "chat")."""
    raw = " ".join(text.split())
    core = _strip(raw)
    if not core:
        return Reading("chat", raw)
    if _HELP.match(core):
        return Reading("help")
    if is_recap_query(raw):
        return Reading("recap")
    if _UPCOMING.search(core) and not re.match(r"^\W*(remind me (to|about|at|on|in|every)|set a reminder)", core, re.I):
        return Reading("upcoming")
    trigger = _REMIND_TRIGGER.search(core)
    if trigger and not re.match(r"^\W*remind me (of|what)\b", core[trigger.start():], re.I):
        before, after = core[:trigger.start()].strip(" ,.;:-"), core[trigger.end():]
        task, link, when, found = split_task_and_time(after, now, zone)
        if found is None and before:
            found = _schedule(before, now, zone)  # "at 5pm remind me to call Bob"
            when = before if found else ""
        if found is None:
            return Reading("remind_no_time", task, link=link)
        return Reading("remind", task, when, found[0], found[1], link=link)
    match = _FORGET.match(core)
    if match:
        what = match.group("what").lstrip("#")
        return Reading("forget", what, target=int(what) if what.isdigit() else None)
    match = _DONE.match(core)
    if match and not _QUESTION_START.match(core):
        what = (match.group("what") or match.group("what2") or match.group("what3") or "").strip()
        what = re.sub(r"^(the\s+)?(reminder\s+)?#?", "", what, flags=re.I) if re.match(
            r"^(the\s+)?(reminder\s+)?#?\d+$", what, re.I) else what
        return Reading("done", what, target=int(what) if what.isdigit() else None)
    match = _REMEMBER.match(core)
    if match and not re.match(r"^\W*remember\s+(when|what|where|who|how|if|whether)\b", core, re.I):
        return Reading("remember", match.group("what").strip())
    if is_small_talk(raw):  # "hello, how are you?" is not a question about memory
        return Reading("chat", raw)
    if raw.rstrip().endswith("?") or _QUESTION_START.match(core):
        return Reading("question", raw.strip(), asks_when=asks_when(core))
    return Reading("chat", raw)


def is_small_talk(text: str) -> bool:
    """Greetings and acknowledgments ("hi", "thanks!", "ok cool"): nothing to act on or look up."""
    return bool(_GREETING.match(" ".join(text.split())))
