"""What a question is about, and short answers to the assistant's own questions, read without a model.

- The focus of a question: the subject it asks the value of, by head noun and owner as a fact states it
  ("what's the gate code?", "who's the cat's vet?", "what car do I drive?", "where do I live now?"), or
  the person or thing it names ("who is Priya?", "what's Priya's last name?"). The offline answer ranks
  the memory that defines that subject, or that is about that person, above passing mentions.
- A greeting before a question ("hey, who is Priya?") is only a greeting.
- A short answer ("both", "the second", "2", "neither") to a question that listed choices.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from memory.subjects import another_one, place_named
from memory.supersession import USER, Subject, person_of, subject_of

_GREETING = re.compile(r"^\W*(?:(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening)|morning|evening|"
                       r"ok(?:ay)?|so|oh|um|quick question|question)\b(?:\s+there)?[\s,!.:;-]*)+", re.I)
# Social questions that are small talk, not questions about memory.
_SOCIAL = re.compile(r"^\W*(?:how are (?:you|things)|how'?s it going|how do you do|how have you been|what'?s up|"
                     r"(?:are )?you there|how are you doing|how'?s your day|who are you|what are you)\b", re.I)
_ASKS = re.compile(r"\?\s*$|^\W*(?:what|what's|whats|when|where|who|who's|whom|whose|which|why|how|is|are|was|were|"
                   r"do|does|did|can|could|should|would|will|have|has|had|tell me|any idea|do you know)\b", re.I)
MAX_QUESTION = 300  # characters: longer is a paste, read as a message of its own
_NOISE = re.compile(r"\b(?:now|currently|these days|again|exactly|actually|today|please|again)\b", re.I)


def without_greeting(text: str) -> str:
    """The message without a greeting in front ("hey, who is Priya?" -> "who is Priya?")."""
    return _GREETING.sub("", " ".join(text.split()), count=1).strip()


def greeting_before_question(text: str) -> bool:
    """A greeting followed by a question about something ("hey, who is Priya?"), not by small talk
    ("hello, how are you?")."""
    if len(text) > MAX_QUESTION:
        return False
    rest = without_greeting(text)
    if not rest or rest == " ".join(text.split()).strip():
        return False
    return bool(_ASKS.search(rest)) and not _SOCIAL.match(rest)


@dataclass(frozen=True)
class Focus:
    """What a question asks about."""
    subject: Subject | None  # the subject whose value is asked ("the gate code", where I live)
    entity: str | None = None  # a person or thing named ("priya" of "what's Priya's last name?")
    place: str | None = None  # the place it names ("Lisbon" of "what flight am I on to Lisbon?")


def _clean(phrase: str) -> str:
    return " ".join(_NOISE.sub(" ", phrase).split()).strip(" ,.;:!?")


_WHERE_LIVE = re.compile(r"^\W*where\s+(?:do|does|did)\s+(?P<p>.+?)\s+(?:live|stay|reside)\b|"
                         r"^\W*where\s+(?:am|is|are)\s+(?P<p2>.+?)\s+living\b|^\W*where\s+(?:does|do)\s+(?P<p3>.+?)\s+"
                         r"call home\b", re.I)
_WHERE_WORK = re.compile(r"^\W*(?:where|who)\s+(?:do|does|did)\s+(?P<p>.+?)\s+work(?:\s+for)?\b(?!\s+out\b)|"
                         r"^\W*what company (?:do|does)\s+(?P<p2>.+?)\s+work\s+for\b|"
                         r"^\W*what\s+(?:do|does|did)\s+(?P<p3>.+?)\s+do(?:\s+(?:for\s+(?:a\s+living|work|money|a\s+job)|"
                         r"professionally)\b|(?=\W*$))|"
                         r"^\W*what\s+line\s+of\s+work\s+(?:am|is|are)\s+(?P<p4>.+?)\s+in\b", re.I)
_WHAT_DRIVE = re.compile(r"^\W*what\s+(?:car\s+)?(?:do|does)\s+(?P<p>.+?)\s+drive\b", re.I)
# "what car do I drive?", "which gym am I in?", "which dentist does Sara see?"
_WHICH = re.compile(r"^\W*(?:what|which)\s+(?:(?:kind|sort|type|make|model|brand)\s+of\s+)?"
                    r"(?P<x>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:do|does|did|am|is|are|was|were)\s+"
                    r"(?P<p>i|we|[A-Z][\w'-]*|my \w+)\s+(?P<v>\w+)", re.I)
# What is done with a company that makes it another than the one worked for: "which company am I interviewing with?",
# "which firm did I have an interview with?" (blind rounds 15 and 17: answered with the employer).
_NOT_WORKED_FOR = re.compile(r"interview|apply|applied|applying|pitch|visit|call|meet|sue|buy|bought|order|quote",
                             re.I)
# "what's the gate code?", "who is the cat's vet?", "what is Priya's last name?", "what's my landlord called?",
# "when is Priya's birthday?", "how much is my gym membership?", "where's the spare key?"
_WHAT_IS = re.compile(r"^\W*(?:what|who|which|whats|when|where|how much|what time|what day)(?:'s|s|\s+is|\s+are|"
                      r"\s+was|\s+were)\s+(?P<s>.+?)"
                      r"(?:\s+(?:called|named))?\W*$", re.I)
_ABOUT = re.compile(r"^\W*(?:tell me about|what about|what do you know about|do you know)\s+(?P<s>.+?)\W*$", re.I)
# "what was the door code before?", "what did the wifi password use to be?": the value it had before the current one
_BEFORE = re.compile(r"^\W*(?P<w>what|who|where|which)\s+(?:(?:was|were)\s+(?P<s>.+?)\s+(?:before|previously|"
                     r"originally|back then|in the past)|(?:did|was|were)\s+(?P<s2>.+?)\s+use(?:d)?\s+to\s+be)\W*$",
                     re.I)


def question_focus(question: str) -> Focus | None:
    """The subject or the person a question asks about; None when it names neither plainly."""
    if len(question) > MAX_QUESTION:
        return None  # a paste, not a question about one thing
    text = without_greeting(question)
    for pattern, concept in ((_WHERE_LIVE, "residence"), (_WHERE_WORK, "employer"), (_WHAT_DRIVE, "car")):
        match = pattern.match(text)
        if match:
            said = next(g for g in match.groups() if g)
            owner = person_of(said)
            return Focus(Subject(owner, concept)) if owner else None
    match = _WHICH.match(text)
    if match:
        subject = subject_of(match.group("x"))
        owner = person_of(match.group("p"))
        if subject is not None and subject.head == "employer" and _NOT_WORKED_FOR.search(text[match.start("v"):]):
            return None  # a company dealt with otherwise than worked for
        if subject is not None and owner is not None:
            return Focus(_at_the_place(Subject(subject.owner or owner, subject.head, subject.modifiers), text),
                         place=place_named(text))
    before = _BEFORE.match(text)
    if before:  # asked as "the previous door code" is
        text = f"{before.group('w')} was the previous {before.group('s') or before.group('s2')}"
    match = _WHAT_IS.match(text) or _ABOUT.match(text)
    if match is None:
        return None
    said = _clean(match.group("s"))
    subject = subject_of(said)
    if subject is None:
        return None
    if subject.person:
        return Focus(None, subject.head)  # "who is Priya?": whatever is said about Priya
    if subject.head in _ASKED_FOR_ITS_KEY and not subject.modifiers and not re.search(r"\b(?:called|named|name)\b",
                                                                                       text, re.I):
        # "what's the wifi?" asks its password (a newcomer's: only offered as the closest, masked)
        subject = Subject(subject.owner, _ASKED_FOR_ITS_KEY[subject.head], frozenset({subject.head}))
    owner = subject.owner
    entity = owner if owner not in (None, USER) and said[:1].isupper() else None
    # "my old car" is the car in a statement, but asked of, another one than the current one
    other = {w.lower() for w in re.findall(r"[^\W\d_]+", said) if another_one(w)}
    if other and not any(another_one(mark) for mark in subject.modifiers):
        subject = Subject(subject.owner, subject.head, subject.modifiers | other, subject.person)
    # "Priya's last name": her name, else whatever is said about her
    return Focus(_at_the_place(subject, text), entity, place_named(text))


_ASKED_FOR_ITS_KEY = {"wifi": "password"}  # a thing named alone for the key to it


def _at_the_place(subject: Subject, question: str) -> Subject:
    """The subject asked about with the place the question names ("what flight are we taking to Porto": the
    flight to Porto, not the one to Lisbon)."""
    place = place_named(question)
    if place is None or subject.head is None:
        return subject
    return Subject(subject.owner, subject.head, subject.modifiers | {place.lower()}, subject.person)


# -- short answers to our own question ------------------------------------------------------------------

_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
             "5th": 5, "sixth": 6, "seventh": 7, "eighth": 8, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


@dataclass(frozen=True)
class Choice:
    """An answer to "Which one did you mean?": the items by their place in the list, by number, all, or none."""
    places: tuple[int, ...] = ()  # 1-based places in the list offered ("the second" -> (2,)); -1 the last
    numbers: tuple[int, ...] = ()  # numbers said ("2", "#14"): an id offered, else a place in the list
    every: bool = False  # "both", "all of them"
    none: bool = False  # "neither", "none of them"
    two: bool = False  # said "both": meant only when two were offered
    yes: bool = False  # said "yes": meant only when one was offered ("Did you mean this one?")


_ALL = re.compile(r"^\W*(?:both(?: of them)?|all(?: of them| three| four)?|every one|each one|the two of them|"
                  r"both please|all please|yes,? both)\W*$", re.I)
_YES = re.compile(r"^\W*(?:yes|yep|yeah|yes please|that one|this one|that's the one|correct)\W*$", re.I)
_NONE = re.compile(r"^\W*(?:neither(?: of them| one)?|none(?: of them)?|no(?:ne|t)? (?:of )?(?:them|those)|"
                   r"nope,? neither)\W*$", re.I)
_PLACE = re.compile(r"^\W*(?:(?:the|number|no\.?|#)\s*)?(?P<n>first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|"
                    r"sixth|seventh|eighth|last|latter|former|\d{1,12})(?:\s+(?:one|reminder|item|please))?"
                    r"(?:\s+(?:and|&|,)\s+(?:the\s+)?(?P<m>first|1st|second|2nd|third|3rd|fourth|4th|last|\d{1,12})"
                    r"(?:\s+(?:one|ones))?)?\W*$", re.I)


def read_choice(text: str) -> Choice | None:
    """ "both", "the second", "2", "#14", "the first and the last", "neither"; None for anything else."""
    if len(text) > MAX_QUESTION:
        return None
    text = " ".join(text.split())
    if _ALL.match(text):
        return Choice(every=True, two=bool(re.search(r"\bboth\b|\btwo\b", text, re.I)))
    if _NONE.match(text):
        return Choice(none=True)
    if _YES.match(text):
        return Choice(yes=True)
    match = _PLACE.match(text)
    if match is None:
        return None
    places: list[int] = []
    numbers: list[int] = []
    for said in (match.group("n"), match.group("m")):
        if not said:
            continue
        word = said.lower()
        if word.isdigit():
            numbers.append(int(word))
        elif word in ("last", "latter"):
            places.append(-1)
        elif word == "former":
            places.append(1)
        else:
            places.append(_ORDINALS[word])
    return Choice(tuple(places), tuple(numbers))


def chosen(choice: Choice, offered: list[int]) -> list[int] | None:
    """The ids of `offered` (in the order listed) that `choice` picks; None when it picks none of them
    (a number that is neither an id offered nor a place in the list)."""
    if choice.none:
        return []
    if choice.yes:
        return list(offered) if len(offered) == 1 else None
    if choice.every:
        return list(offered) if not choice.two or len(offered) == 2 else None
    picked: list[int] = []
    for place in choice.places:
        if place == -1 and offered:
            picked.append(offered[-1])
        elif 1 <= place <= len(offered):
            picked.append(offered[place - 1])
        else:
            return None
    for number in choice.numbers:
        if number in offered:  # an id offered comes before a place: "14" of "#14, #13" is #14
            picked.append(number)
        elif 1 <= number <= len(offered) and number < 100:
            picked.append(offered[number - 1])
        else:
            return None
    return list(dict.fromkeys(picked)) or None
