"""What a statement is about and how it is said, read loosely: the words changes by meaning stand on
(SPEC F14; memory.replacing decides with them).

A new statement replaces a current memory when it says a new value for that memory's subject. The
subject is found by meaning (memory.replacing compares embeddings of the two texts with their values
masked), but a look-alike is close in meaning too: "my brother's birthday" is near "my sister's", "the
back door code" near "the front door's", "my old manager was Tom" near "my manager is Priya". What
tells them apart is read here, from the words, where the words are sure:

- the values, masked (`Said.masked`): numbers and codes (the secret detector's spans too), e-mail
  addresses, quoted text, names, and the value memory.supersession reads ("5521" of "the gate code is
  now 5521");
- who the subject belongs to (`owners`: "my sister's", "Tom's", "my wife drives", the owner the
  supersession reading finds) and who acts in it ("Priya left, ..."): a statement about Tom's number
  says nothing about mine;
- the words that set one thing apart from another of its kind (`qualifiers`: back, front, garage,
  work, personal, debit, credit, ...): "the back door code" is another code than "the door code";
- how it is said (`marks`): a change ("changed", "now", "new", "from now on", ...), the past ("my old
  manager", "I used to"), a plan ("we should change", "I'm thinking about"), an addition ("also",
  "too"), a while ("this week", "a locum is covering"), the same value again ("still"), a request.

Every word list lives in memory/subjects.toml, per language (en es fr de it pt nl).
"""
from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from memory.supersession import CONCEPTS, NEW_WORDS, PERSON_TITLES, USER, Statement, normalised, read_statement
from memory.words import STOPWORDS, is_common, is_ordinary, sentence_initial, stem

VOCABULARY = Path(__file__).with_name("subjects.toml")
MASK = "…"  # what a value becomes in the masked text (one token for the embedder)


def fold(text: str) -> str:
    """Lower case, accents off, one kind of apostrophe ("Türcode" -> "turcode", "it’s" -> "it's")."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u02bc", "'").replace("ß", "ss")
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def _phrases(words: list[str]) -> re.Pattern[str]:
    """Any of `words` (folded phrases) as whole words in folded text."""
    parts = []
    for word in sorted({fold(w) for w in words}, key=len, reverse=True):
        left = r"(?<!\w)" if word[:1].isalnum() else ""
        parts.append(f"{left}{re.escape(word)}(?![\\w])")
    return re.compile("|".join(parts) or r"(?!)")


@dataclass(frozen=True)
class Vocabulary:
    strong: re.Pattern[str]
    substitution: re.Pattern[str]  # strong words of one thing done in place of another ("instead of")
    weak: re.Pattern[str]
    past_before: re.Pattern[str]
    past_first: re.Pattern[str]
    past_said: re.Pattern[str]
    plan: re.Pattern[str]
    addition: re.Pattern[str]
    temporary: re.Pattern[str]
    same: re.Pattern[str]
    unchanged: re.Pattern[str]
    request: re.Pattern[str]
    starting: re.Pattern[str]
    function: frozenset[str]  # words that name no subject
    concepts: list[re.Pattern[str]]  # the ways of saying one subject without naming it
    generic: frozenset[str]  # heads that name nothing alone ("number", "code")
    wildcard: frozenset[str]  # heads that stand for any other ("place")
    many: frozenset[str]  # heads with several values at once ("friend")
    calendar: re.Pattern[str]  # days and months
    moved_to: re.Pattern[str]  # words before which "until" is where a date moved to
    journeys: frozenset[str]  # words of a journey ("flight", "ferry", "holiday")
    people: dict[str, int]  # word -> the group of words that name one person
    qualifiers: dict[str, int]  # word -> the group of alternatives it belongs to
    synonyms: dict[str, int]  # word -> the group of names for one thing
    same_of: frozenset[str]  # "same" words that, before a noun, say that other thing is unchanged
    clock_after: re.Pattern[str]  # "until" words after which a clock time is an hour of the day
    time_before: re.Pattern[str]  # words before a number that make it a time of day (as written)
    later_clause: re.Pattern[str]  # words that open a clause of what happened later ("before he moved")
    clause_subjects: frozenset[str]  # the words that open such a clause ("he", "she", ...)
    gone_before: re.Pattern[str]  # words after which a value is named as gone ("not a 42")
    today: re.Pattern[str]  # "today" words: a while, or when an event in the past happened
    when: re.Pattern[str]  # "this morning", "this Tuesday": likewise
    one_off: re.Pattern[str]  # what is called off: with a "when", always one day's
    measured: re.Pattern[str]  # a number with the unit of a reading ("78.5 kg", "64 bpm")
    past_endings: tuple[str, ...]  # English endings of the past ("renew-ed")
    irregular: frozenset[str]  # English pasts of other shapes ("bought")
    first_person: tuple[str, ...]  # endings of the first person of the past, as written ("dejé", "fechei")
    passive: frozenset[str]  # words after which a participle is a state ("is cancelled")
    follows_verb: frozenset[str]  # words after which a sentence's first word is a verb with its object
    introduced: re.Pattern[str]  # "a woman called", "a place named": a value introduced by its name
    habit: re.Pattern[str]  # "a night", "every": a value that holds each time
    clock_words: re.Pattern[str]  # a time of day said in words ("half five", "at one", "dieci e mezza"), folded
    clock_start: frozenset[str]  # the words such a time starts with ("half", "quarter", "six")


def _every_language(table: dict[str, list[str]]) -> list[str]:
    return [word for words in table.values() for word in words]


def _groups(groups: list[list[str]]) -> dict[str, int]:
    """word -> its group's number, for each word and its stem ("class" is read as "cla")."""
    found: dict[str, int] = {}
    for number, words in enumerate(groups):
        for word in words:
            found.setdefault(fold(word), number)
    for number, words in enumerate(groups):
        for word in words:
            found.setdefault(stem(fold(word)), number)
    return found


@cache
def vocabulary() -> Vocabulary:
    """memory/subjects.toml, read and compiled once (on the first statement a process reads)."""
    data = tomllib.loads(VOCABULARY.read_text(encoding="utf-8"))
    return Vocabulary(
        strong=_phrases(_every_language(data["change"]["strong"])),
        substitution=_phrases(_every_language(data["change"]["substitution"])),
        weak=_phrases(_every_language(data["change"]["weak"])),
        past_before=_phrases(_every_language(data["past"]["before"])),
        past_first=_phrases(_every_language(data["past"]["first"])),
        past_said=_phrases(_every_language(data["past"]["said"])),
        plan=_phrases(_every_language(data["plan"])),
        addition=_phrases(_every_language(data["addition"])),
        temporary=_phrases(_every_language(data["temporary"])),
        same=_phrases(_every_language(data["same"])),
        unchanged=_phrases(_every_language(data["unchanged"])),
        request=_phrases(_every_language(data["request"])),
        starting=_phrases(data["starting"]["words"]),
        function=frozenset(fold(w) for w in _every_language(data["function"])),
        concepts=[_phrases(group) for group in data["concepts"]["groups"]],
        generic=frozenset(fold(w) for w in data["generic"]["words"]),
        wildcard=frozenset(fold(w) for w in data["wildcard"]["words"]),
        many=frozenset(fold(w) for w in data["many"]["words"]),
        calendar=_phrases(data["calendar"]["words"] + [f"{w}s" for w in data["calendar"]["words"]]),
        moved_to=_phrases(data["moved_to"]["words"]),
        journeys=frozenset(fold(w) for w in data["journeys"]["words"]),
        people=_groups(data["people"]["groups"]),
        qualifiers=_groups(data["qualifiers"]["groups"]),
        synonyms=_groups(data["synonyms"]["groups"]),
        same_of=frozenset(fold(w) for w in data["same_of"]["words"]),
        clock_after=_phrases(data["clock_after"]["words"]),
        time_before=re.compile("|".join(rf"(?<!\w){re.escape(w)}" for w in sorted(data["time_before"]["words"],
                                                                                   key=len, reverse=True)), re.I),
        later_clause=_phrases(data["later_clause"]["words"]),
        clause_subjects=frozenset(fold(w) for w in data["later_clause"]["subjects"]),
        gone_before=_phrases(data["gone_before"]["words"]),
        today=_phrases(data["when"]["today"]),
        # not "the last Thursday", "last Tuesday of the month": a day of a month, not when
        when=re.compile(rf"(?<!\w)(?<!the )(?<!every )(?<!each )"
                        rf"(?:{'|'.join(map(re.escape, data['when']['before']))})\s+"
                        rf"(?:{'|'.join(map(re.escape, data['when']['times']))})s?(?!\w)(?!\s+of\b)"),
        one_off=_phrases(data["when"]["one_off"]),
        measured=re.compile(rf"\d(?:[\d.,]*\d)?\s?(?:{'|'.join(map(re.escape, data['when']['measures']))})(?![\w/])"),
        past_endings=tuple(data["verb_forms"]["past"]),
        irregular=frozenset(data["verb_forms"]["irregular"]),
        first_person=tuple(data["verb_forms"]["first_person"]),
        passive=frozenset(data["verb_forms"]["passive"]),
        follows_verb=frozenset(data["verb_forms"]["follows_verb"]),
        introduced=re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, data['introduced']['articles']))})"
                              rf"\s+[^\W\d_][\w'-]*\s+(?:{'|'.join(map(re.escape, data['introduced']['naming']))})"
                              rf"(?!\w)"),
        habit=_phrases(data["habit"]["words"]),
        clock_words=_clock_words(data),
        clock_start=frozenset(fold(w).split()[0] for w in data["clock_words"]["numbers"] + data["clock_words"]["parts"]
                              + data["clock_words"]["alone"]),
    )


def _clock_words(data: dict[str, dict[str, list[str]]]) -> re.Pattern[str]:
    """A time of day said in words, in folded text: a number word beside a part ("half five", "quarter to seven",
    "dieci e mezza") or after a word of time ("at one", "verso le dieci"), or a word that is one ("noon")."""
    def any_of(words: list[str]) -> str:
        return "|".join(re.escape(fold(w)) for w in sorted(set(words), key=len, reverse=True))

    numbers, parts = any_of(data["clock_words"]["numbers"]), any_of(data["clock_words"]["parts"])
    before = any_of(data["time_before"]["words"])
    return re.compile(rf"(?<!\w)(?:(?:{parts})\s+(?:(?:to|past|para|de|a|voor|over)\s+)?(?:{numbers})|"
                      rf"(?:{numbers})\s+(?:{parts})|(?:{before})\s+(?:(?:le|la|las|les|the|de)\s+)?(?:{numbers})|"
                      rf"{any_of(data['clock_words']['alone'])})(?!\w)")


# -- values ------------------------------------------------------------------------------------------

_ADDRESSES = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|www\.\S+|@\w+")
_QUOTED = re.compile(r"\"[^\"]{1,80}\"|“[^”]{1,80}”|«[^»]{1,80}»|(?<!\w)'[^']{1,80}'(?!\w)")
_NUMBER = re.compile(r"(?:\b[A-Z]{1,4}-?)?[#+*£$€]?\d[\w./:+*#-]*(?:\s\d[\w./:+*#-]*)*"
                     r"(?:\s?(?:am|pm|o'clock|h|uhr|kg|km|lbs?|%)(?!\w))?")
_TITLE = rf"(?:(?:{PERSON_TITLES}|St|M)\.?\s+)"
_NAME = re.compile(rf"{_TITLE}?[A-ZÀ-Ý][\w&+.-]*(?:\s+(?:(?:de|da|do|dos|van|von|der|den|la|le|del|di|&)\s+)?"
                   rf"[A-ZÀ-Ý][\w&+.-]*)*")
def _calendar(text: str) -> list[tuple[int, int]]:
    """Where `text` names a day or a month (memory/subjects.toml's calendar; "may" only as "May")."""
    folded = fold(text)
    if len(folded) != len(text):
        return []
    return [m.span() for m in vocabulary().calendar.finditer(folded)] + \
        [m.span() for m in re.finditer(r"(?<!\w)May(?!\w)", text)]


def _without_calendar(text: str) -> str:
    for start, end in sorted(_calendar(text), reverse=True):
        text = text[:start] + text[end:]
    return text


# Short words written in capitals that name a kind of thing, not a value ("my PIN", "the GP").
_ACRONYMS = frozenset("pin puk id gp it pc tv uk us atm sim iban bic nhs vat tax dob ssn nif dni nie cv hr ceo "
                      "wifi wi-fi ok".split())
# Words that open a sentence without naming anyone ("Turns out ...", "New gate code: ...").
_OPENERS = frozenset("the a an my our your his her their this that these those i we you he she they it there here "
                     "new from now so and but also actually correction update fyi btw heads just oh well ok okay "
                     "please after before since as starting turns today tomorrow yesterday these sorry korrektur "
                     "correccion correzione correcao correctie neue neuer neues nouveau nouvelle nuevo nueva "
                     "nuovo nuova novo nova nieuw nieuwe das der die le la el il o de het".split())
# A text in German writes its nouns with capitals: there, a capitalised word is a name only on the value's
# side of the sentence.
_GERMAN = re.compile(r"(?<!\w)(?:ich|ist|mein|meine|meinen|meiner|meines|wir|sind|habe|haben|nicht|und|unser|"
                     r"unsere|jetzt|bei|fur|der|das|dem|neue|neuer|neues)(?!\w)")
# Where a value starts: after the verb that states it ("is", "changed to", "got", ...) or a colon.
_VALUE_SIDE = re.compile(r"(?<!\w)(?:is|are|was|were|am|be|been|es|son|est|sont|ist|sind|è|é|e|era|war|zijn|to|into|"
                         r"with|at|as|by|called|named|got|get|has|have|use|uses|using|drive|drives|order|joined|see|"
                         r"seeing|sold|left|gave|traded|swapped|switched|changed|moved|replaced|reset|renamed|instead|"
                         r"go|goes|take|takes|in|en|em|à|au|auf|zu|nach|bei|para|pour|per|op|naar|ora|agora|ahora|"
                         r"jetzt|nu|now|"
                         r"maintenant)(?!\w)|'s(?!\w)|'re(?!\w)|'m(?!\w)|[:=]", re.I)


def _says_is(word: str) -> bool:
    """Whether a word after "X's" makes it "X is" or "X has" ("Chloe's off to uni", "MOT's actually June"):
    a word of _NOT_OWNED, a copula, a verb of change (not "new": "my sister's new boyfriend"), or the first word
    of a time said in words ("bedtime's half six")."""
    return word in _NOT_OWNED or word in _COPULAS or bool(vocabulary().strong.fullmatch(word)) or \
        word in vocabulary().clock_start  # "bedtime's half six"


def _a_verb_ing(word: str, rest: str) -> bool:
    """Whether an -ing word after "X's" is X's doing ("Chloe's moving out so ...") rather than a kind of X's
    thing ("Lily's swimming lesson is on Saturday"): a noun follows it and a verb of stating in its clause."""
    if not word.endswith("ing"):
        return False
    clause = _CLAUSES.split(rest, maxsplit=1)[0]
    following = re.match(r"\s*([^\W\d_][\w'-]*)", clause)
    if following is not None and fold(following.group(1)) in _COPULAS:
        return False  # "Jess's wedding is in Porto", "Tom's meeting was moved": a noun, the statement's verb follows
    if following is None or fold(following.group(1)) in STOPWORDS or fold(following.group(1)) in vocabulary().function:
        return True
    return not re.search(r"(?<![\w'])(?:is|are|was|were|'s)(?!\w)", clause, re.I)


def _value_side(text: str) -> int:
    """Where the value's side of a statement starts: after its first verb of stating ("is", "changed to",
    "got", ...) or a colon; "'s" of a possessive ("my car's MOT") is no such verb."""
    for match in _VALUE_SIDE.finditer(text):
        if match.group(0).lower() == "'s":
            following = re.match(r"\s+([^\W\d_][\w'-]*)", text[match.end():])
            owner = re.search(r"([^\W\d_][\w-]*)$", text[:match.start()])
            if following and not _says_is(fold(following.group(1))) and match.start() > 0 and \
                    not _a_verb_ing(following.group(1), text[match.end() + len(following.group(0)):]) and \
                    not (owner and fold(owner.group(1)) in _CONTRACTIONS):
                continue
        return match.end()
    return len(text)


def _names_someone(text: str, match: re.Match[str]) -> bool:
    """Whether a capitalised word before the value names someone or something (a value: "Marco retired,
    Jade does my hair now", "vado alla McFit adesso") rather than a kind of the subject ("the Netflix
    password", "my National Insurance number"): it opens a clause, or no noun of the subject follows it."""
    before = text[:match.start()].rstrip().lower()
    if before.endswith((",", ";", ":", " so", " and", " but", " then")):
        return True
    previous = re.search(r"([\w']+)$", before)
    if previous and (previous.group(1) in _DETERMINERS or
                     previous.group(1).endswith(("'s", "s'")) and _bare(previous.group(1)) not in _CONTRACTIONS or
                     previous.group(1) in ("of", "de", "da", "do", "di", "del", "della", "du", "van", "von")):
        return False  # "the Netflix password", "my car's MOT", "o chefe da Marta": a word of the subject
    following = re.match(r"\s+([^\W\d_][\w'-]*)", text[match.end():])
    if following is None:
        return True
    word = fold(following.group(1))
    return word in STOPWORDS or word in vocabulary().function or word in _COPULAS or bool(
        vocabulary().weak.fullmatch(word) or vocabulary().strong.fullmatch(word))


def _value_spans(text: str, statement: Statement | None) -> list[tuple[int, int]]:
    from memory.sensitive import find_secrets  # the one detector; loaded by writers only

    spans = [(s.start, s.end) for s in find_secrets(text)]
    for pattern in (_ADDRESSES, _QUOTED, _NUMBER):
        spans += [m.span() for m in pattern.finditer(text)]
    value_side = _value_side(text)
    german = bool(_GERMAN.search(fold(text)))
    for match in _NAME.finditer(text):
        word = match.group(0)
        before = text[:match.start()].rstrip()
        initial = not before or before[-1] in ".!?;:\n"
        after = text[match.end():match.end() + 2]
        if initial or after.startswith(("'s", "'", "’")) or fold(word) in _ACRONYMS or fold(word) in _OPENERS:
            continue
        if match.start() < value_side and (german or not _names_someone(text, match)):
            continue  # a word of the subject: "my National Insurance number", "the Netflix password", "der Türcode"
        spans.append(match.span())
    spans += _calendar(text)
    if len(fold(text)) == len(text):  # "half six", "at one", "dieci e mezza": a time said in words
        spans += [m.span() for m in vocabulary().clock_words.finditer(fold(text))]
    if statement is not None and statement.value:
        at = text.rfind(statement.value)
        if at >= 0:
            spans.append((at, at + len(statement.value)))
    return _merged(spans)


def _with_preposition(text: str, start: int, end: int) -> str:
    """A value with the word that says what kind it is ("at 2": an hour, "2": a number)."""
    before = text[:start].rstrip()
    for match in vocabulary().time_before.finditer(before):
        if match.end() == len(before) and len(before) < start:
            return f"{match.group(0)} {text[start:end]}"
    return text[start:end]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def plain_value(value: str) -> str:
    """A value as it is compared: folded, its signs and spaces out ("07700 900123" = "07700900123")."""
    return re.sub(r"[\W_]+", "", fold(value))


# -- people and words ----------------------------------------------------------------------------------

_WORDS = re.compile(r"[^\W\d_][\w'-]*")
_POSSESSIVE_WORDS = r"(?:my|our|mi|mis|nuestro|nuestra|mon|ma|mes|notre|nos|mein|meine|meinen|meinem|unser|" \
                    r"unsere|il mio|la mia|mio|mia|o meu|a minha|meu|minha|mijn|onze|ons)"
_OF_MY = re.compile(rf"(?<!\w)(?:of|de|di|da|do|van|des|del|della|dello|du)\s+{_POSSESSIVE_WORDS}\s+([^\W\d_][\w-]*)")
_GENITIVE = re.compile(r"(?<!\w)(?:meiner|meines|unserer|unseres)\s+([^\W\d_][\w-]*)")
_POSSESSOR = re.compile(r"(?<![\w'])([^\W\d_][\w-]*)(?:'s|s')(?=\s+([^\W\d_][\w-]*))")
# After "X's", a word that makes it "X is" or "X has", not "X's thing".
_NOT_OWNED = frozenset("got gone been now in at on a an the not no also just still always back here "
                       "there over off out up down moved changed left switched away done retired retiring to with "
                       "from really very so too finally".split())
_CONTRACTIONS = frozenset("it that what there here he she who let where how one everyone someone nobody".split())
_COPULAS = frozenset("is are was were 's 'm 're es est ist è e é era war".split())


# What a person does, after their name at a sentence's start ("Priya left, ...", "Sara has a new number").
_ACTS = frozenset("has had got left retired stopped moved changed switched went quit joined started says said".split())
_VERBS = frozenset("live work go drive has have got get moved changed switched plays play uses use takes take "
                   "lives works goes drives gets".split())


def _a_verb(word: str, plural: bool) -> bool:
    """Whether the word after "my sister" reads as her verb ("lives", "moved"), not a noun ("my dog walker")."""
    if word in _COPULAS or word.startswith("'"):
        return False
    return word in _VERBS or word.endswith(("ed", "es")) or (word.endswith("s") and not word.endswith("ss")) or (
        plural and not word.endswith("er"))


def canonical_person(word: str) -> str:
    """One name for the words of one person's group ("mum" and "mother"), else the word's stem."""
    folded = re.sub(r"'s?$", "", fold(word))
    people = vocabulary().people
    group = people.get(folded, people.get(f"{folded}s", people.get(stem(folded))))
    return f"person:{group}" if group is not None else stem(folded)


def _qualifier_group(word: str) -> int | None:
    """The group of alternatives a qualifier belongs to (subjects.toml's qualifiers), by the word or its stem, or
    the stem an answer's reading writes without its final "e" ("garag": a newcomer's garage door code was answered
    with the front door's)."""
    groups = vocabulary().qualifiers
    folded = fold(word)
    found = groups.get(folded, groups.get(stem(folded)))
    return groups.get(f"{folded}e") if found is None and not folded.endswith("e") else found


def alternatives(a: str, b: str) -> bool:
    """Whether two qualifiers are two of one kind, so never one thing: "front" and "back", "work" and "home"."""
    group = _qualifier_group(a)
    return group is not None and group == _qualifier_group(b) and stem(fold(a)) != stem(fold(b))


def another_one(word: str) -> bool:
    """Whether a qualifier says another one of its kind than the plain one, the current one: "my previous
    manager", "the old address", "the spare key", "my ex" (the group of "previous")."""
    group = _qualifier_group(word)
    return group is not None and group == _qualifier_group("previous")


def canonical_word(word: str) -> str:
    """One name for the words of one group of names for a thing ("gp" and "doctor"), else the stem."""
    folded = re.sub(r"'s?$", "", fold(word))
    group = vocabulary().synonyms.get(folded)
    if group is None:
        group = vocabulary().synonyms.get(stem(folded))
    return f"thing:{group}" if group is not None else stem(folded)


def _english_past(word: str) -> bool:
    """Whether a lower-case word is the past of a common English verb ("renewed", "weighed", "cancelled"), or
    an irregular past ("bought"); "Ted", "Fred", "Ahmed" are none."""
    words = vocabulary()
    if word in words.irregular:
        return True
    for ending in words.past_endings:
        base = word[:-len(ending)]
        if word.endswith(ending) and len(base) >= 3 and (
                is_common(base) or len(base) > 3 and base[-1] == base[-2] and is_common(base[:-1])):
            return True
    return False


def _a_verb_first(text: str) -> bool:
    """Whether the word opening `text` is a verb with its object ("Renewed the car insurance ...", "Weighed
    myself ...", "Dejé Telefónica, ...", "Fechei a conta ...") rather than someone doing something ("Jared
    changed his number", "José se mudó")."""
    match = re.match(r"\s*([^\W\d_][\w-]*)\s+([^\W\d_][\w'-]*)", text)
    if match is None:
        return False
    word, following = match.group(1).lower(), match.group(2)
    words = vocabulary()
    object_follows = following.lower() in words.follows_verb or following.lower() in _DETERMINERS
    return object_follows and _english_past(word) or \
        word.endswith(words.first_person) and (object_follows or following[:1].isupper())


def _an_event(text: str) -> bool:
    """Whether `text` tells an event in the past ("Started my new job today", "Weighed myself this morning",
    "Hoy empecé en BBVA"): a past verb not after a word that makes it a state ("is cancelled", "got closed")."""
    words = vocabulary()
    tokens = re.findall(r"'[^\W\d_]+|[^\W\d_]+(?:-[^\W\d_]+)*", text.replace("\u2019", "'"))
    for index, token in enumerate(tokens):
        lower = token.lower()
        previous = tokens[index - 1].lower() if index else ""
        if previous in words.passive:
            continue
        if _english_past(lower) or (token.islower() or index == 0) and len(lower) > 3 and \
                lower.endswith(words.first_person):
            return True
    return False


def _owners(text: str, folded: str, statement: Statement | None) -> tuple[set[str], set[str]]:
    """(owners, actors): who the subject belongs to ("my sister's birthday", "the cat's vet", "my wife
    drives ...", the supersession reading's owner) and who acts at the start of the sentence ("Priya
    left, ...", "Sara has a new number")."""
    people = vocabulary().people
    owners: set[str] = set()
    subject_side = folded[:_value_side(text)]
    contracted = set()  # "Chloe's off to uni", "the flat's been sold": "is", "has", never an owner
    for match in _POSSESSOR.finditer(folded):
        word, following = match.group(1), match.group(2)
        if word in _CONTRACTIONS or _says_is(following) or \
                _a_verb_ing(following, folded[match.end() + 1 + len(following):]):
            contracted.add(word)
            continue
        if match.start() < len(subject_side):
            owners.add(canonical_person(word))
    if re.search(r"(?<![\w'])([^\W\d_][\w-]*)'s\s+\d", folded):
        contracted |= {m.group(1) for m in re.finditer(r"(?<![\w'])([^\W\d_][\w-]*)'s\s+\d", folded)}
    for pattern in (_OF_MY, _GENITIVE):
        owners |= {canonical_person(m.group(1)) for m in pattern.finditer(folded) if m.group(1) in people}
    for match in re.finditer(rf"(?<!\w){_POSSESSIVE_WORDS}\s+([^\W\d_][\w-]*)\s+([\w']+)", folded):
        word, verb = match.group(1), match.group(2)
        if word in people and _a_verb(verb, plural=word.endswith(("s", "ren"))):
            owners.add(canonical_person(word))  # "my wife drives", "my parents live"
    for match in re.finditer(r"(?<!\w)(?:of|de|da|do|di|del|della|du|van|von)\s+([A-ZÀ-Ý][\w-]+)",
                             text[:_value_side(text)]):
        owners.add(canonical_person(match.group(1)))  # "o chefe da Marta", "the boss of Marta"
    if statement is not None and statement.subject.owner not in (None, USER):
        owners |= {canonical_person(w) for w in statement.subject.owner.split()
                   if not any(stem(c) == w or c == w for c in contracted)}
    actors: set[str] = set()
    first = re.match(r"\s*([^\W\d_][\w-]*)(?:'s)?(?:\s+([\w']+))?", text)
    if first and first.group(1)[:1].isupper():
        word, verb = fold(first.group(1)), fold(first.group(2) or "")
        words = vocabulary()
        # An ordinary word opening a sentence acts only by a verb a person does ("Rose left"), not by "is"
        # ("Broadband is with Virgin"); a word that names a thing or says a subject names no one ("Vivo en
        # Valencia", "Training ist ..."); one who does something to my thing is not its owner ("GP upped my
        # vitamin D", "IT renamed my login").
        acting = verb in _ACTS
        thing = word in words.synonyms or word in words.generic or any(c.fullmatch(word) for c in words.concepts)
        to_mine = re.match(rf"\s*[^\W\d_][\w-]*(?:'s)?\s+([\w']+)\s+{_POSSESSIVE_WORDS}(?!\w)", folded)
        if to_mine and (to_mine.group(1) in _COPULAS or to_mine.group(1).endswith("n't")):
            to_mine = None  # "Radiohead isn't my favourite any more": what it is, not what it did
        on_the = re.match(r"\s*[^\W\d_][\w-]*\s+([\w']+)\s+(?:the|our)(?!\w)", folded)
        # one who changes the thing is not whose it is ("Council changed the collection day")
        changes_it = on_the is not None and bool(words.strong.fullmatch(on_the.group(1)))
        if word in people or (word not in _OPENERS and word not in words.function and (acting or not is_ordinary(word))
                              and not thing and to_mine is None and not words.strong.fullmatch(word)
                              and not words.weak.fullmatch(word) and not changes_it and not _a_verb_first(text)):
            actors.add(canonical_person(word))
    # a day or a month owns nothing ("can only do Mondays now": "do" is no "of" there)
    owners = {o for o in owners if not vocabulary().calendar.fullmatch(o)}
    return owners - {canonical_person("i")}, actors - owners


@dataclass(frozen=True)
class Said:
    """A statement read loosely (see the module docstring)."""

    text: str
    statement: Statement | None  # memory.supersession's reading, when it reads one
    masked: str  # the text with its values as MASK
    values: frozenset[str]  # its values, plain (plain_value)
    value_texts: tuple[str, ...]  # its values as written
    span_values: frozenset[str]  # the values found by their form (numbers, names, codes, addresses), plain
    words: frozenset[str]  # the folded words outside its values
    every_word: frozenset[str]  # every folded word, values too
    owners: frozenset[str]  # canonical_person of whom the subject belongs to
    actors: frozenset[str]  # canonical_person of who acts at its start
    qualifiers: frozenset[str]  # words of memory/subjects.toml's qualifiers said of its subject
    marks: frozenset[str]  # strong, weak, dated (a change), past, plan, addition, temporary, same, request, question

    @property
    def changed(self) -> bool:
        """Said as a change. "New" alone in a statement of what a thing does is a new one of it, not a
        new value ("the new season starts in April", as memory.supersession reads it)."""
        if "only new" in self.marks and self.statement is not None and self.statement.verb:
            return False
        return bool({"strong", "weak", "dated"} & self.marks)

    @property
    def one_value(self) -> bool:
        """Whether its subject holds one value at a time, as far as the words tell: not a person named
        ("Bob is my brother", "Bob is now a doctor") nor people in a state ("the kids are at school")."""
        statement = self.statement
        if statement is None:
            return True
        if statement.subject.person and not _GERMAN.search(fold(self.text)):
            return False  # (German writes every noun with a capital: "neue PIN" is no one's name)
        head = statement.subject.head or ""
        return not (head in vocabulary().people or canonical_person(head).startswith("person:")) or \
            "name" in _families(self)

    @property
    def current(self) -> bool:
        """Said as what holds now: not a question or a request, not a plan, not for a while only; of the
        past, an addition or the same value again only when a word of change outweighs it."""
        marks = self.marks
        if {"question", "request", "plan", "temporary", "unchanged"} & marks:
            return False
        if self.statement is not None and self.statement.negated:
            return True  # "I no longer live in Braga", "I used to live in Braga": what holds now
        if "past" in marks and not self.changed:
            return False
        return not ({"addition", "same"} & marks and "strong" not in marks)

    def people_words(self) -> set[str]:
        return {canonical_person(w) for w in self.every_word}


def _marks(text: str, folded: str, head: str | None = None) -> set[str]:
    words = vocabulary()
    own = folded[:_later_clause(folded)]  # "Ben lived in London before he moved": his change is later
    weak = [m.group(0) for m in words.weak.finditer(own)]
    if weak and not words.strong.search(own) and all(w in NEW_WORDS for w in weak):
        marks_new = {"only new"}  # "the new season starts in April": a new one, or a new value?
    else:
        marks_new = set()
    readings = (("unchanged", words.unchanged), ("request", words.request), ("past", words.past_said))
    marks = marks_new | {name for name, pattern in readings if pattern.search(folded)}
    marks |= {name for name, pattern in (("strong", words.strong), ("weak", words.weak)) if pattern.search(own)}
    if any(not _goes_somewhere(text, folded, m) for m in words.plan.finditer(folded)):
        marks.add("plan")
    if any(not _of_degree(folded, m) for m in words.addition.finditer(folded)):
        marks.add("addition")
    if any(not _of_another(folded, m, head) for m in words.same.finditer(folded)):
        marks.add("same")
    if re.search(rf"(?<!\w)(?:{_POSSESSIVE_WORDS}|the|el|la|le|der|die|das|il|o|het)\s+(?:{words.past_before.pattern})",
                 folded) or re.search(rf"(?<!\w){_POSSESSIVE_WORDS}\s+(?:{words.past_first.pattern})", folded):
        marks.add("past")
    if re.search(r"(?<!\w)from (?:\w+ ){0,2}on(?!\w)", own):
        marks.add("weak")  # "from January on"
    for match in words.starting.finditer(own):
        if any(start <= 12 for start, _ in _calendar(folded[match.end():match.end() + 24])):
            marks.add("weak")  # "from Monday", "da lunedì", "ab Montag": when a change starts
    if re.search(r"(?:,|\bbut)\s+not\s+\S", folded):
        marks.add("strong")  # "I'm A positive, not O negative": a correction
    for match in words.temporary.finditer(folded):
        before = folded[max(0, match.start() - 14):match.start()]
        if words.clock_after.fullmatch(match.group(0)) and _a_clock_time(folded[match.end():]):
            continue  # "open till 6": an hour of the day, not a while
        if words.today.fullmatch(match.group(0)) and _dates_a_change(text, folded, marks):
            marks.add("dated")  # "Started my new job today": when it changed, as "from today" says
            continue
        if not words.starting.search(before) and not words.moved_to.search(before):
            # not "from today", "as of this week" (when a change starts), "postponed until Dec 4" (where to)
            marks.add("temporary")
            break
    for match in words.when.finditer(folded):
        before = folded[max(0, match.start() - 14):match.start()]
        if words.starting.search(before):
            continue
        if _dates_a_change(text, folded, marks):
            marks.add("dated")  # "Weighed myself this morning: 78.5 kg": the value as of then
        else:
            marks.add("temporary")  # "This Tuesday swimming's cancelled": that day's
    if text.rstrip().endswith("?") or re.match(r"\W*(?:what|when|where|who|which|how|why|do|does|did|is|are|can|"
                                               r"could)(?![\w'])", folded):
        marks.add("question")
    return marks


def _of_degree(folded: str, addition: re.Match[str]) -> bool:
    """Whether "too" says how much ("she was getting too tired", "too early"), not "as well": a word follows it."""
    return addition.group(0) == "too" and re.match(r"\s+[^\W\d_]", folded[addition.end():]) is not None


def _dates_a_change(text: str, folded: str, marks: set[str]) -> bool:
    """Whether "today", "this morning" say when a change happened ("Started my new job today", "Weighed
    myself this morning: 78.5 kg"): told as an event in the past, with a word of change or a measure, nothing
    called off ("This Wednesday football's cancelled", "the café opens at 10 today", "Today I parked on
    level 2" are that day's), and no change said but one thing done instead of another ("saw Dr Jones instead of
    Dr Patel today")."""
    words = vocabulary()
    strong = [m.group(0) for m in words.strong.finditer(folded)]
    if strong and all(words.substitution.fullmatch(w) for w in strong) and "weak" not in marks:
        return False  # "Tom saw Dr Jones instead of Dr Patel today": that day's exception (an attacker's finding)
    return _an_event(text) and not words.one_off.search(folded) and bool(
        {"strong", "weak"} & marks or words.measured.search(folded))


def _later_clause(folded: str) -> int:
    """Where a clause of what happened later starts ("... before he moved"), else the text's end."""
    words = vocabulary()
    for match in words.later_clause.finditer(folded):
        following = re.match(r"\s*([^\W\d_][\w-]*)", folded[match.end():])
        if following and (following.group(1) in words.clause_subjects or following.group(1) in _DETERMINERS):
            return match.start()
    return len(folded)


def _goes_somewhere(text: str, folded: str, plan: re.Match[str]) -> bool:
    """Whether a word of a plan ending in "to" is followed by a place or a name, not a verb: "going to a
    place in Clifton", "we're going to Bulrush instead" say where, not what is meant to happen."""
    if not plan.group(0).endswith(" to"):
        return False
    following = re.match(r"\s+([^\W\d_][\w'-]*)", folded[plan.end():])
    if following is None:
        return False
    if following.group(1) in _DETERMINERS:
        return True
    written = text[plan.end():plan.end() + len(following.group(0))] if len(text) == len(folded) else ""
    return written.strip()[:1].isupper()


def _of_another(folded: str, same: re.Match[str], head: str | None) -> bool:
    """Whether a word of "the same" says another thing than the subject is unchanged ("same time" of the
    choir's day, "gleiche Uhrzeit" of the training's): a noun follows it and is not the subject's head."""
    if head is None or same.group(0) not in vocabulary().same_of:
        return False
    following = re.match(r"\s+([^\W\d_][\w'-]*)", folded[same.end():])
    if following is None:
        return False
    noun = following.group(1)
    if noun in STOPWORDS or noun in _DETERMINERS or noun in ("as", "one", "ones"):
        return False
    return stem(noun) != head and canonical_word(noun) != canonical_word(head)


_CLOCK = re.compile(r"\s*\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm|uhr|h)?(?![\w/.-]*\d)(?!\s*(?:st|nd|rd|th)\b)")


def _a_clock_time(after: str) -> bool:
    """Whether `after` opens with a time of day ("6", "6pm", "18:30"), not a date ("3 March", "the 4th")."""
    match = _CLOCK.match(after)
    return match is not None and not any(start <= 2 for start, _ in _calendar(after[match.end():]))


_LEADS = re.compile(r"^\W*(?:(?:correction|correccion|corrección|korrektur|correzione|correcao|correção|correctie|"
                    r"sorry|actually|update|fyi|btw|ok|okay|so|oh|well|heads up|just so you know)\b[\s,:;!.-]*)+",
                    re.I)
_ASIDES = re.compile(r"(?:,\s*|\s+)(?:since|after|as of|starting)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?[\w-]+(?=\s*[,:;.]|$)"
                     r"|(?:,\s*|\s+)from\s+(?:[\w-]+\s+){0,2}on\b|(?:,\s*|\s+)(?:these days|from now on)\b", re.I)
_CLAUSES = re.compile(r",\s*(?:so|and|but)\s+|\s+so\s+|;\s*|,\s+")


def _contractions(text: str) -> str:
    """ "X's" read as "X is" or "X has" where no thing of X follows ("Chloe's off to uni", "the flat's been
    sold", "bedtime's 8 o'clock"), for the rules' reading."""
    def expand(match: re.Match[str]) -> str:
        following = match.group(2)
        if _says_is(following) or _a_verb_ing(following, text[match.end():]) or \
                following[:1].isdigit():
            verb = "has" if following in ("been", "got", "gone", "had", "moved", "changed", "left", "switched",
                                          "retired", "done", "finished", "started") else "is"
            return f"{match.group(1)} {verb} {following}"
        return match.group(0)

    return re.sub(r"(?<![\w'])([^\W\d_][\w-]*)'s\s+([\w']+)", lambda m: expand(m) if m.group(1).lower() not in
                  _CONTRACTIONS else m.group(0), text)


def _reading(text: str) -> Statement | None:
    """memory.supersession's reading of the statement's main clause: without what only introduces it
    ("Korrektur: ...", "sorry Ursula: ...") or dates the change ("since half term", "from January on"),
    with "X's" read as "X is" where it is; the last clause that reads as a statement of its own ("Priya
    left, my manager is Tom now": "my manager is Tom now"), else the whole."""
    said = _ASIDES.sub("", _LEADS.sub("", text))
    # "Weighed myself this morning: 78.5 kg": when it happened, not what it is about
    said = re.sub(rf"(?:,\s*|\s+)(?:{vocabulary().when.pattern})(?!')", "", said, flags=re.I)
    said = _contractions(said).strip()
    whole = read_statement(said)
    separators = list(_CLAUSES.finditer(said))
    named: Statement | None = None
    for start in reversed([m.end() for m in separators]):
        clause = read_statement(said[start:])
        if clause is not None and clause.subject.head is not None and clause.value:
            if not clause.subject.person:
                return clause
            named = named or clause  # "..., Maya is old news": what the old value is now, unless nothing else reads
    if named is None or not separators:
        return named or whole
    # "..., Maya is old news" or "Je suis passé chez Free, Orange c'est fini": the old value dismissed, not
    # what the statement is about: the first clause, else the whole when it reads a thing, else not sure.
    for reading in (read_statement(said[:separators[0].start()]), whole):
        if reading is not None and reading.subject.head is not None and reading.value and not reading.subject.person:
            return reading
    return None


@lru_cache(maxsize=4096)  # a pure reading, of immutable parts: each write reads its candidates again (a few ms each)
def read(text: str) -> Said:
    """A statement read loosely: its values masked, who and what it is about, how it is said."""
    text = normalised(" ".join(text.split()))[:600]
    statement = _reading(text)
    spans = _value_spans(text, statement)
    masked, values, position = [], set(), 0
    written = [_with_preposition(text, start, end) for start, end in spans]
    found = frozenset(v for v in (plain_value(text[start:end]) for start, end in spans) if v)
    for start, end in spans:
        masked.append(text[position:start])
        masked.append(MASK)
        values.add(plain_value(text[start:end]))
        position = end
    masked.append(text[position:])
    outside = "".join(text[s:e] for s, e in _gaps(spans, len(text)))
    folded, outside_folded = fold(text), fold(outside)
    if statement is not None and statement.value:
        values.add(plain_value(statement.value))
        written.append(statement.value)
    if not values:
        side = _value_side(text)
        said = _clean(text[side:]) if side < len(text) else ""
        if said:  # "the spare key's in the lockbox now": the words after the verb are its value
            values.add(plain_value(said))
            written.append(said)
            masked = [text[:side], f" {MASK}"]
    owners, actors = _owners(text, folded, statement)
    words = frozenset(_bare(w) for w in _WORDS.findall(outside_folded))
    every_word = frozenset(_bare(w) for w in _WORDS.findall(folded))
    return Said(text, statement, re.sub(rf"{MASK}(?:[\s,]*{MASK})+", MASK, "".join(masked)),
                frozenset(v for v in values if v), tuple(written), found, words, every_word,
                frozenset(owners), frozenset(actors), frozenset(_qualifiers(outside_folded)),
                frozenset(_marks(text, folded, statement.subject.head if statement else None)))


def _bare(word: str) -> str:
    """A word without its possessive ("sara's" -> "sara")."""
    return re.sub(r"'s?$", "", word)


_TRAILING = re.compile(r"(?:[\s,]+(?:now|from now on|these days|anymore|any more|instead|maintenant|ahora|agora|"
                       r"jetzt|ora|adesso|nu))+\W*$", re.I)


def _clean(value: str) -> str:
    return _TRAILING.sub("", value).strip(" .,;:!-")


_DETERMINERS = frozenset(f"the a an my our your his her their this that {_POSSESSIVE_WORDS[3:-1].replace('|', ' ')} "
                         "el la los las le les der die das den dem il lo o os de het".split())
_FUNCTION = frozenset("and or to for but now and, with at in on of from is are was were then so".split())


def _qualifiers(outside: str) -> set[str]:
    """Qualifiers said of a thing: after "the", "my" ("the back door") or before another word ("back
    door code"); "pushed back to", "Priya left, ..." and "went to uni" qualify nothing."""
    words = vocabulary()
    qualifiers = words.qualifiers
    changes = [m.span() for pattern in (words.strong, words.weak, words.when) for m in pattern.finditer(outside)]
    matches = list(re.finditer(r"[^\W\d_][\w'-]*|[^\w\s]", outside))
    tokens = [m.group(0) for m in matches]
    found = set()
    for index, token in enumerate(tokens):
        if token not in qualifiers or any(s <= matches[index].start() < e for s, e in changes):
            continue  # a word of a change ("Maya is old news") or of when ("this morning") qualifies nothing
        before = tokens[index - 1] if index else ""
        after = tokens[index + 1] if index + 1 < len(tokens) else ""
        changing = words.strong.fullmatch(after) or words.weak.fullmatch(after)
        if before in _DETERMINERS or (after[:1].isalpha() and after not in _FUNCTION and not changing):
            found.add(token)
    return found


def _gaps(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    gaps, position = [], 0
    for start, end in spans:
        gaps.append((position, start))
        position = end
    gaps.append((position, length))
    return gaps


# -- two statements, one subject? ---------------------------------------------------------------------

# Words that do not tell one subject from another in a reading's modifiers ("my new door code from
# this week" is the door code).
_NOT_MODIFIERS = frozenset("new now current currently week today month year morning day time monday tuesday wednesday "
                           "thursday friday saturday sunday left since".split())


_NAME_WORDS = frozenset("name names nombre nom name nome naam".split())


_OF_WORDS = frozenset("of for de di da do du del della dello van von fur fuer d'".split())


def _modifier(word: str) -> bool:
    """Whether a word may say which thing a subject is (not a word of change, time, function or people)."""
    words = vocabulary()
    return word not in _NOT_MODIFIERS and word not in words.function and word not in STOPWORDS and \
        word not in words.people and not words.weak.fullmatch(word) and not words.strong.fullmatch(word)


def _subject(said: Said) -> tuple[str, set[str], str | None, bool] | None:  # noqa: C901
    """(head, modifiers, owner, generic) of the supersession reading: the head as canonical_word, the
    words said of it in its own noun phrase ("door" of "my new door code from today", "porte" of "le code
    de la porte"; words of change, time and people left out), its owner; "X's name" is X."""
    statement = said.statement
    if statement is None or statement.subject.head is None:
        return None
    head, owner = statement.subject.head, statement.subject.owner
    tokens = [_bare(w) for w in re.findall(r"[^\W\d_][\w'-]*", fold(said.text))]
    tokens = [t[2:] if t[:2] in ("l'", "d'") else t for t in tokens]
    if head in CONCEPTS:
        heads = [i for i, w in enumerate(tokens) if canonical_word(w) == canonical_word(head)]
        if not heads:  # "I live in Braga": where I live, whatever the words
            return canonical_word(head), set(), canonical_word(owner) if owner not in (None, USER) else None, False
    else:
        heads = [i for i, w in enumerate(tokens) if stem(w.replace("-", "")) == head]
    determiners = [i for i, w in enumerate(tokens) if w in _DETERMINERS]
    if not heads or (determiners and heads[0] < determiners[0]):
        return None  # a verb read as the head ("tengo un número nuevo", "Chloe went to uni, our ..."): not sure
    at = heads[0]
    words = vocabulary()
    if tokens[at] in words.function or tokens[at] in STOPWORDS:
        return None  # a pronoun read as the head ("nouveau numéro pour moi"): not sure
    if words.moved_to.fullmatch(tokens[at]):
        return None  # a word that moves a date read as the head ("pushed the wedding back to ..."): not sure
    original = re.findall(r"[^\W\d_][\w'-]*", said.text)
    if len(original) == len(tokens) and at > 0 and original[at][:1].isupper() and \
            fold(original[at]) not in _ACRONYMS and not _GERMAN.search(fold(said.text)):
        return None  # a name read as the head ("new favourite author, sorry Ursula: ..."): not sure

    said_of: set[str] = set()
    right_before = tokens[at - 1] if at and _modifier(tokens[at - 1]) and tokens[at - 1] not in _DETERMINERS else None
    owner_word = fold(owner) if owner not in (None, USER) else None
    for word in reversed(tokens[max(0, at - 3):at]):
        if word in _DETERMINERS or word in _OF_WORDS:
            break
        if _modifier(word):
            said_of.add(word)
        if owner_word is not None and stem(word) in (owner_word, stem(owner_word)):
            break  # "apparently Lily's bestie": the words before the owner are not said of the thing
    if at + 1 < len(tokens) and tokens[at + 1] in _OF_WORDS:
        after = [w for w in tokens[at + 2:at + 5] if w not in _DETERMINERS]
        if after and _modifier(after[0]):
            said_of.add(after[0])
    # What the reading put in the subject after its head ("the flight to Paris"), close to it.
    said_of |= {w for w in tokens[at + 1:at + 5] if stem(w) in statement.subject.modifiers and _modifier(w)}
    if head in _NAME_WORDS and owner not in (None, USER):
        head, owner = owner, USER
    found = canonical_word(head)
    if right_before is not None and canonical_word(f"{right_before} {tokens[at]}").startswith("thing:"):
        found = canonical_word(f"{right_before} {tokens[at]}")  # "the wifi key" names the wifi password
    modifiers = {canonical_word(w) for w in said_of} - {found}
    generic = head in words.generic or fold(tokens[at]) in words.generic
    if generic and right_before is not None and canonical_word(right_before) != found:
        # What names a generic head is the word right before it ("badge number", "door code"): one word.
        modifiers.add(f"right:{canonical_word(right_before)}")
    return found, modifiers, canonical_word(owner) if owner not in (None, USER) else None, generic


def another_kind(newer: Said, older: Said) -> bool:
    """Whether `older` names its subject by a head that names nothing alone and words `newer` does not
    say: "I've got a new number" and "got my new passport, number ..." say nothing of "my work badge
    number" (unless `newer` says "the number" and that is the only one: see the_only)."""
    b = _subject(older)
    said = {m.removeprefix("right:") for m in b[1]} if b is not None else set()
    return b is not None and b[3] and bool(said) and not said & {canonical_word(w) for w in newer.every_word}


def says_the(newer: Said, older: Said) -> bool:
    """Whether `newer` names `older`'s head bare and definite ("the code from before changed", "ils ont
    changé le digicode", "my number is ...")."""
    b = _subject(older)
    if b is None:
        return False
    tokens = [t[2:] if t[:2] in ("l'", "d'") else t for t in (_bare(w) for w in _WORDS.findall(fold(newer.text)))]
    words = vocabulary()
    for index, token in enumerate(tokens):
        if canonical_word(token) != b[0]:
            continue
        before = [t for t in tokens[max(0, index - 3):index] if not words.weak.fullmatch(t)]
        if before and before[-1] in _DETERMINERS and before[-1] not in ("a", "an", "un", "une", "una", "uno", "um",
                                                                        "uma", "ein", "eine", "een"):
            return True
    return False


def same_head(a: Said, b: Said) -> bool:
    """Whether the two readings have one head (or another name for it)."""
    x, y = _subject(a), _subject(b)
    return x is not None and y is not None and x[0] == y[0]


def same_subject(newer: Said, older: Said) -> bool:
    """Whether the two readings are sure they name one subject: one owner, one head (or another name for
    it, or the older's head said of a part: "Leo's football" of "Leo's football practice"), the newer's
    words said of it some of the older's. The caller holds them to conflict() as well."""
    a, b = _subject(newer), _subject(older)
    if a is None or b is None or (a[2] or USER) != (b[2] or USER):
        return False
    if a[0] == b[0] or a[0] in vocabulary().wildcard:
        return a[1] <= b[1] or b[1] <= a[1]
    return False


def head_unsaid(newer: Said, older: Said) -> bool:
    """Whether `newer` is sure of a head `older` never says, nor says in other words ("Lily's swim class
    got bumped to 10:30" says nothing of "my niece Lily turns 7 in April", however alike the two read)."""
    a = _subject(newer)
    if a is None or a[0] in vocabulary().wildcard:
        return False
    said = {canonical_word(w) for w in older.every_word} | {stem(w) for w in older.every_word}
    return a[0] not in said and not concepts(newer) & concepts(older)


def same_words(newer: Said, older: Said) -> bool:
    """Whether the two readings say the same words of their subject ("the party address" is more)."""
    a, b = _subject(newer), _subject(older)
    return a is not None and b is not None and a[1] == b[1]


def many_values(said: Said) -> bool:
    """Whether its subject commonly has several values at once ("my friend is ...")."""
    statement = said.statement
    return statement is not None and (statement.subject.head or "") in {stem(w) for w in vocabulary().many}


def _said_in(word: str, said: Said) -> bool:
    return word in {canonical_word(w) for w in said.every_word}


def _other_thing(newer: Said, older: Said) -> str | None:
    """Why the two readings are of two things, when they are sure of it: two heads neither text says
    ("my favourite film" / "my favourite book"), or one a part of the other ("my dentist's number" of "my
    dentist", "the door is painted" of "the door code"); None when they read one thing or are not sure."""
    a, b = _subject(newer), _subject(older)
    if a is None or b is None:
        return None
    (head_a, modifiers_a, owner_a, _), (head_b, modifiers_b, owner_b, _) = a, b
    wildcard = vocabulary().wildcard
    if head_a in wildcard or head_b in wildcard:
        head_a = head_b  # "our favourite place" for "our favourite restaurant": what the words around say
    provider = canonical_word("provider")
    if head_a == provider and head_b in modifiers_a:  # "internet provider" is what gives the internet: "broadband"
        head_a, modifiers_a = head_b, modifiers_a - {head_b, f"right:{head_b}"}
    elif head_b == provider and head_a in modifiers_b:
        head_b, modifiers_b = head_a, modifiers_b - {head_a, f"right:{head_a}"}
    if head_a == head_b:
        # A word of the head's own group says nothing more ("phone number" is the number); of the others,
        # the fewer must be some of the more ("my new door code" of "the building door code"); a head that
        # names nothing alone is named by the word right before it ("work number" is no "badge number").
        rights = {m for m in modifiers_a | modifiers_b if m.startswith("right:")}
        if len(rights) > 1:
            # two words right before a head that names nothing alone: two kinds ("work number", "badge number"),
            # unless one side's words are all the other's ("the downstairs code" of "the door code downstairs")
            words_a, words_b = ({m.removeprefix("right:") for m in ms} for ms in (modifiers_a, modifiers_b))
            small_words, big_words = sorted((words_a, words_b), key=len)
            return None if small_words < big_words else "another kind of it"
        if any(m.startswith("right:") for m in modifiers_a) and not rights & modifiers_b:
            return "another kind of it"  # "the party address" is not "my address"
        plain_a, plain_b = modifiers_a - rights, modifiers_b - rights
        small, big = sorted((plain_a, plain_b), key=len)
        return "another kind of it" if not all(any(_one_word(m, n) for n in big) for m in small) else None
    if {head_a} | modifiers_a == {head_b} | modifiers_b:
        return None  # "goal weight" and "weight goal"
    if head_b in modifiers_a or head_b == owner_a:
        return f"a part of it ({head_a} of {head_b})"
    if head_a in modifiers_b or head_a == owner_b:
        if _values_alike(newer, older):
            return None  # "the bins are collected on Thursdays" for "bin day is Tuesday"
        return f"what it is a part of ({head_a} / {head_b})"
    if not _said_in(head_a, older) and not _said_in(head_b, newer):
        return f"another thing ({head_a} / {head_b})"
    return None


def _one_word(a: str, b: str) -> bool:
    """Whether two stems are one word, however the crude stemmer cut them ("swim" and "swimm")."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 2 and ":" not in a + b


def _values_alike(newer: Said, older: Said) -> bool:
    return bool(_families(newer) & _families(older))


_NAMING = re.compile(r"(?<!\w)(?:called|named|name|names|nickname|calls me|call me|nombre|apodo|llama|llamado|llamada|"
                     r"appelle|nom|surnom|heisst|spitzname|chiama|nome|soprannome|chama|chamado|chamada|apelido|heet|"
                     r"naam|bijnaam)(?!\w)")


def _apposed(said: Said) -> set[str]:
    """People words right before a name of their own ("I made my wife Anna my emergency contact instead of
    Tom": the wife is the new value, not whose contact it is)."""
    people = vocabulary().people
    return {fold(m.group(1)) for m in re.finditer(r"(?<![\w'])([^\W\d_][\w-]*)\s+[A-ZÀ-Ý][\w-]*(?!['\w])", said.text)
            if fold(m.group(1)) in people}


def _written_small(word: str, said: Said) -> bool:
    """Whether `said` writes `word` (canonical_person) in small letters inside a sentence, as no one's name
    is written ("Sporten is verplaatst" for "we sporten op dinsdag", "the car's MOT")."""
    for match in _WORDS.finditer(said.text):
        token = match.group(0)
        if token[:1].islower() and not sentence_initial(said.text, match.start()) and \
                canonical_person(_bare(fold(token))) == word:
            return True
    return False


def one_value(said: Said, other: Said) -> bool:
    """Said.one_value, unless its subject read as a name is a word `other` writes in small letters
    ("Sporten is verplaatst naar woensdag" after "we sporten op dinsdag")."""
    if said.one_value:
        return True
    statement = said.statement
    if statement is None or not statement.subject.person or statement.subject.head is None:
        return False
    head, words = statement.subject.head, vocabulary()
    if head in words.synonyms or head in words.generic or any(c.fullmatch(head) for c in words.concepts):
        return True  # "Broadband is with Virgin Media": a thing, capitalised where its sentence starts
    if any(len(_bare(t)) > 1 and _bare(t).isupper() and stem(fold(_bare(t))) in (head, stem(head))
           for t in _WORDS.findall(said.text)):
        return True  # "MOT's actually June": letters of a thing's name in capitals, no one's name
    return any(t[:1].islower() and (stem(fold(t)) == head or fold(t) == head) for t in _WORDS.findall(other.text))


def _names_it(said: Said) -> bool:
    """Whether the statement gives a name ("our cat is called Miso"), not a value introduced by its name
    ("our new landlord is a woman called Joanne Pike") nor the name of a person that is who they are ("my
    partner's name is Tom", "mijn vriendin heet Sanne", "I'm seeing someone called Ben now")."""
    folded = vocabulary().introduced.sub(" ", fold(said.text))
    return any(not _whom_named(folded[:m.start()]) for m in _NAMING.finditer(folded))


def _gives_a_name(said: Said) -> bool:
    """Whether the statement says a name by a word of naming, whoever's ("mijn vriendin heet Sanne" too)."""
    return bool(_NAMING.search(vocabulary().introduced.sub(" ", fold(said.text))))


@cache
def _named_people() -> tuple[re.Pattern[str], frozenset[str]]:
    data = tomllib.loads(VOCABULARY.read_text(encoding="utf-8"))["introduced"]
    return _phrases(data["someone"]), frozenset(canonical_person(w) for w in data["pets"])


def _whom_named(before: str) -> bool:
    """Whether the words before a word of naming name a person, whose name is then who they are: someone, or a
    person of memory/subjects.toml's people that is no pet ("my partner's name", "mon colocataire s'appelle")."""
    before = re.sub(r"(?:\s+|'s|(?<!\w)(?:is|was|se|s'|si|zich|sich|-se))+$", "", before)
    someone, pets = _named_people()
    if any(m.end() == len(before) for m in someone.finditer(before)):
        return True
    last = re.search(r"([^\W\d_][\w-]*)$", before)
    if last is None:
        return False
    word = last.group(1)
    return word in vocabulary().people and canonical_person(word) not in pets


def conflict(newer: Said, older: Said) -> str | None:
    """Why `newer` cannot be about `older`'s subject, when the words are sure of it; None when they are
    not (meaning then decides): another owner, another qualifier, another head or other modifiers, or a
    name ("our cat is called Miso" is not what "we take the cat to Dr Ames now" changes)."""
    if _names_it(older) != _names_it(newer):
        return "a name and something else"
    if _gives_a_name(older) != _gives_a_name(newer):
        plain = _subject(newer if _gives_a_name(older) else older)
        if plain is not None and plain[1]:
            return "a name and one of another kind"  # "my partner is called Alexis" is not "my squash partner"
    if "only new" in newer.marks and any(s is not None and s.verb for s in (newer.statement, older.statement)):
        return "a new one of it, not a new value"  # "the new season starts in April"
    said_new, said_old = concepts(newer, sure=True), concepts(older, sure=True)
    if said_new and said_old and not concepts(newer) & concepts(older):
        return "two different things said"  # "Marco ora lavora a Roma" is not where Marco lives
    older_people, newer_people = older.people_words(), newer.people_words()
    older_owned = {canonical_person(w) for w in older.words}
    for owner in newer.owners:
        if owner not in older_owned:
            return f"another owner ({owner})"
    for actor in newer.actors:
        if actor not in older_people and not _written_small(actor, older):
            return f"someone else ({actor})"
    people = vocabulary().people
    apposed = _apposed(newer) if names_old_value(newer, older) else set()
    for word in newer.words:
        if word in people and canonical_person(word) not in older_people and word not in apposed:
            return f"about someone else ({word})"  # "we take the cat to Dr Ames" is not the rabbit's vet
    for owner in older.owners | older.actors:
        if owner in newer_people or _written_small(owner, newer):
            continue
        if owner in older.owners and not owner.startswith("person:") and _written_small(owner, older) and \
                not (newer.owners | newer.actors) - older_people:
            continue  # "the car's MOT" for "MOT's actually June": the thing it belongs to, not said again
        return f"the older one is about someone else ({owner})"
    for word in newer.qualifiers:
        if word not in older.every_word and not _set_aside(newer, word) and not _the_concepts_verb(newer, word):
            return f"another one ({word})"
    numbered = _numbered(older)
    for noun, number in _numbered(newer).items():
        if numbered.get(noun, number) != number:
            return f"another one ({noun} {number})"  # "the tenant in flat 1" is not flat 2's
    if _one_time(newer) and vocabulary().habit.search(fold(older.text)):
        return "one time of a habit"  # "last night I only got 4 hours" of "I sleep about 6 hours a night"
    if _other_secret_thing(newer, older):
        return "another one (of another thing)"
    if _another_journey(newer, older):
        return "another one (another journey)"
    return _other_thing(newer, older)


@cache
def _secret_heads() -> frozenset[str]:
    """The heads a secret is said by: "code" and "password" and the words of their groups."""
    return frozenset(canonical_word(w) for w in ("code", "password"))


def _other_secret_thing(newer: Said, older: Said) -> bool:
    """Whether the two are secrets of two things: a code, a PIN or a password each said of a thing and the things
    not one ("my new door code is 5521" is no new "PIN for the blue visa card": an attacker's, who saw the card's
    PIN replaced and the door code given as its answer; "the downstairs code changed, it's 8830" is no new "alarm
    code got reset to 9902", which the reading finds no statement in: a newcomer's)."""
    things_a, things_b = _secret_things(newer), _secret_things(older)
    return bool(things_a) and bool(things_b) and not things_a & things_b


def _secret_things(said: Said) -> set[str]:
    """The things a code, a PIN or a password is said of: by the statement the reading finds when its head is
    one, else by the words around the first such word in the text ("the garage code ends in 71", "the door
    code downstairs is 4719"); empty when it says none, or of nothing."""
    statement = said.statement
    if statement is not None and statement.subject.head is not None and \
            canonical_word(statement.subject.head) in _secret_heads():
        return _things_said(said)
    tokens = [_bare(w) for w in re.findall(r"[^\W\d_][\w'-]*", fold(said.text))]
    at = next((i for i, w in enumerate(tokens) if canonical_word(w) in _secret_heads()), None)
    if at is None:
        return set()
    things: set[str] = set()
    for word in reversed(tokens[max(0, at - 3):at]):
        if word in _DETERMINERS or word in _OF_WORDS:
            break
        if _modifier(word):
            things.add(word)
    after = [w for w in tokens[at + 1:at + 4] if w not in _DETERMINERS]
    if after and after[0] in _OF_WORDS and len(after) > 1 and _modifier(after[1]):
        things.add(after[1])  # "the code for the garage"
    elif after and _qualifier_group(after[0]) is not None:
        things.add(after[0])  # "the door code downstairs"
    return {canonical_word(w) for w in things}


def _things_said(said: Said) -> set[str]:
    """The words said of a statement's subject in its noun phrase (words of change and time left out, as
    _subject reads them; the supersession reading's where _subject is not sure of the phrase)."""
    subject = _subject(said)
    if subject is not None:
        return {m for m in subject[1] if not m.startswith("right:")}
    return {canonical_word(m) for m in said.statement.subject.modifiers} if said.statement is not None else set()


def sure_other(newer: Said, older: Said) -> bool:
    """Whether the words are sure `newer` is about another subject than `older`, whatever else is said: another
    owner ("my brother's birthday" of "my sister's"), another one of a group of alternatives ("the back door
    code" of "the door code" of the front one) or another one than the current one ("my old manager", "my ex"),
    a thing numbered otherwise ("flat 1" of "flat 2"). The rest of conflict's reasons are doubts, weighed by
    memory.change_score."""
    older_owned = {canonical_person(w) for w in older.words}
    if any(owner not in older_owned for owner in newer.owners):
        return True
    for word in newer.qualifiers:
        if word in older.every_word or _set_aside(newer, word):
            continue
        if another_one(word) or any(alternatives(word, other) for other in older.qualifiers):
            return True
    numbered = _numbered(older)
    if any(numbered.get(noun, number) != number for noun, number in _numbered(newer).items()):
        return True
    if _other_secret_thing(newer, older) or _another_journey(newer, older):
        return True
    # someone of mine does it ("my brother cut back to two a day") where the older memory is of me alone
    people = vocabulary().people
    return not (older.owners | older.actors) and not any(w in people for w in older.words) and \
        any(w in people for w in newer.words | newer.actors)


# A place named after "to", "for", "in" or "from" (a name, capitalised): "my flight to Lisbon", "my trip to New York".
_PLACE_NAMED = re.compile(r"\b(?:to|for|in|from)\s+([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)")


def place_named(text: str) -> str | None:
    """The first place `text` names ("Porto" of "what flight are we taking to Porto?")."""
    match = _PLACE_NAMED.search(text)
    return match.group(1) if match else None


def _another_journey(newer: Said, older: Said) -> bool:
    """Whether two statements are of two journeys: both say a journey (subjects.toml's journeys) and name
    places, none the same, and the newer says no change ("we're flying to Porto in March" and "we're taking the
    ferry to Amsterdam on New Year's Eve"; "our holiday is in Rhodes now" changes "our holiday is in Crete")."""
    journeys = vocabulary().journeys
    # "new" alone is no change of a journey: "New Year's Eve" says "new" too
    changed = "strong" in newer.marks or "weak" in newer.marks and "only new" not in newer.marks
    if changed or not (journeys & newer.every_word and journeys & older.every_word):
        return False
    places = [{fold(m.group(1)) for m in _PLACE_NAMED.finditer(said.text)} for said in (newer, older)]
    return bool(places[0] and places[1]) and not places[0] & places[1]


_ASIDE = re.compile(r",\s*|;\s*|:\s*|\s+(?:since|because|as|now that|and)\s+")


def _the_concepts_verb(said: Said, word: str) -> bool:
    """Whether `word` is how a statement says the concept the reading found it of, not a qualifier: the "work"
    of "I work as a ward sister at ..." (where I work), not of "my work phone" (a newcomer's job change)."""
    head = said.statement.subject.head if said.statement is not None else None
    if head not in CONCEPTS:
        return False
    folded = fold(said.text)
    return any(pattern.fullmatch(head) and any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", m.group(0))
                                               for m in pattern.finditer(folded))
               for pattern in vocabulary().concepts)


def _set_aside(said: Said, word: str) -> bool:
    """Whether "old", "previous" (another_one) is said of the value a change sets aside, in a clause of its own
    ("new number: 07700 900876, the old SIM is gone", "a new boiler since the old one died"), not of the subject
    ("my old manager is now at Google")."""
    if not another_one(word) or not said.changed:
        return False
    clauses = _ASIDE.split(fold(said.text))
    return len(clauses) > 1 and not re.search(rf"(?<!\w){re.escape(word)}(?!\w)", clauses[0]) and \
        any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", c) for c in clauses[1:])


_NUMBERED = re.compile(r"(?<!\w)([^\W\d_][\w'-]*)\s+(\d{1,4}[a-z]?)(?![\w.,:/-]*\d)(?!\s*(?:%|[^\W\d_]*\d))")


def _numbered(said: Said) -> dict[str, str]:
    """The things a statement's subject names by a number of their own ("flat 2", "the room 3 radiator",
    "l'appartement 5"): noun -> number, before the value the rules read and when the number is not the statement's
    only value ("it's on level 5 now", "I take bus 42 now": the value)."""
    words, statement = vocabulary(), said.statement
    if statement is None or not statement.value:
        return {}
    folded = fold(said.text)
    value_at = folded.rfind(fold(statement.value))
    found: dict[str, str] = {}
    for match in _NUMBERED.finditer(folded):
        if value_at >= 0 and match.end() > value_at:
            continue  # "it's on level 5 now": the value, not which one of the subject
        noun, number = _bare(match.group(1)), match.group(2)
        noun = noun[2:] if noun[:2] in ("l'", "d'") else noun
        if noun in STOPWORDS or noun in words.function or noun in _DETERMINERS or noun in _COPULAS or \
                words.time_before.fullmatch(noun) or words.calendar.fullmatch(noun) or noun in words.generic:
            continue
        following = re.match(r"\s*([^\W\d_]+)", folded[match.end():])
        if following and (words.measured.match(f"1 {following.group(1)}") or
                          following.group(1) in ("am", "pm", "h", "uhr", "o'clock")):
            continue  # "about 6 hours", "at 9 am": a measure or an hour, not a number of its own
        found[stem(noun)] = number
    values = said.span_values or said.values
    return found if values - set(found.values()) else {}


def _one_time(said: Said) -> bool:
    """Whether a statement says one time of something by when it happened ("last night I only got 4 hours",
    "this morning I ran 2 km"), with no word of change: dated by a measure or an event alone."""
    return "dated" in said.marks and not {"strong", "weak"} & said.marks


_TIME = re.compile(r"(?i)\d{1,2}[:.h]\d{2}|\d{1,2}\s*(?:am|pm|uhr)\b|\b(?:noon|midnight|o'clock|daily|weekly|monthly|"
                   r"yearly|annually|fortnightly|every|tonight|tomorrow|morning|afternoon|evening)\b|"
                   r"(?<!\w)at \d{1,2}(?:[:.h]\d{2})?\b")
_PLACE = re.compile(r"(?i)^(?:in|under|on|at|behind|by|inside|near|next to|beside|above|below|with|en|dans|sous|im|"
                    r"unter|sotto|dentro|debaixo|onder)\b")


def _an_hour(value: str) -> bool:
    """Whether a value is an hour said after a word of time ("alle 7", "by 5:30", "um 18")."""
    for match in vocabulary().time_before.finditer(value):
        if re.fullmatch(r"\s+\d{1,2}(?:[:.h]\d{2})?[.,;!]?", value[match.end():]):
            return True  # "alle 7", "open till 7"
    return False


def _families(said: Said) -> set[str]:
    """What kinds of value a statement gives: time (hours, days, months), number, name, address (e-mail,
    web), place ("under the mat"), or a phrase of plain words ("a flat white", "green")."""
    found = set()
    for value in said.value_texts:
        if _ADDRESSES.search(value):
            found.add("address")
            continue
        timed = bool(_TIME.search(value) or _calendar(value) or _an_hour(value) or
                     vocabulary().clock_words.search(fold(value)))
        if timed:
            found.add("time")
        if not _an_hour(value) and re.search(r"\d", _without_calendar(_TIME.sub("", value))):
            found.add("number")
        if re.search(r"(?<!^)(?<![.!?]\s)\b[A-ZÀ-Ý]", _without_calendar(value)) or (
                value[:1].isupper() and _without_calendar(value)[:1].isupper()):
            found.add("name")
        if _PLACE.match(value) and not timed:
            found.add("place")
    return found or {"phrase"}


def values_alike(newer: Said, older: Said) -> bool:
    """Whether the two give values of one kind: a name never replaces a time ("I registered with Dr
    Haines" says nothing of "my GP surgery opens at 8"), a code never a place ("the wifi password is now
    bluefish77" nothing of "the router is in the hall cupboard"); plain words and places stand for each
    other ("under the mat", "in the lockbox", "a flat white")."""
    if not newer.values or not older.values:
        return False  # a statement without a value ("the piano tuner comes twice a year") has none to change
    a, b = _families(newer), _families(older)
    loose = {"place", "phrase"}
    if a & b == {"time"} and not (a & loose and b & loose):
        hours, days = _times(newer), _times(older)
        if hours and days and not hours & days:
            return False  # an hour of the day never replaces a date ("alarm's set for quarter to seven": not October)
    return bool(a & b) or bool(a & loose and b & loose)


_DAYS = re.compile(r"(?i)\b(?:daily|weekly|monthly|yearly|annually|fortnightly|tomorrow)\b|\d{1,2}(?:st|nd|rd|th)\b|"
                   r"\d{1,2}[/.-]\d{1,2}[/.-]\d")


def _times(said: Said) -> set[str]:
    """What kinds of time a statement's values give: "hour" (of the day: "6:45", "at 7pm", "half six", "in the
    evening"), "day" (days, dates, months, "weekly")."""
    found = set()
    for value in said.value_texts:
        if _calendar(value) or _DAYS.search(value):
            found.add("day")
        if re.search(r"(?i)\d{1,2}[:.h]\d{2}|\d\s*(?:am|pm|uhr)\b|\b(?:noon|midnight|o'clock|tonight|morning|"
                     r"afternoon|evening)\b", value) or _an_hour(value) or vocabulary().clock_words.search(fold(value)):
            found.add("hour")
    return found


def anchors(said: Said, other: Said | None = None) -> frozenset[str]:
    """The words a statement names its subject by (canonical_word), and the subjects it says without
    naming them (memory/subjects.toml's concepts: "we've moved" is about the address): not function
    words, words of change, people or qualifiers (nor names, unless `other` writes them in small letters:
    "Zwemmen is op vrijdag" and "we zwemmen vanaf nu op zaterdag")."""
    words = vocabulary()
    found = set()
    named = {n for n in said.actors | said.owners if other is None or not _written_small(n, other)}
    for word in said.words:
        if len(word) < 2 or word in STOPWORDS or word in words.function or word in words.people or \
                word in words.qualifiers or words.strong.fullmatch(word) or words.weak.fullmatch(word) or \
                canonical_person(word) in named:
            continue
        found.add(canonical_word(word))
    return frozenset(found | concepts(said))


def concepts(said: Said, sure: bool = False) -> set[str]:
    """The subjects a statement says without naming them (memory/subjects.toml's concepts); `sure`: only
    those said by a word that is no word of change too ("I've been moved to the 5th floor" says nothing
    sure of where I live)."""
    folded, words = fold(said.text), vocabulary()
    found = set()
    head = said.statement.subject.head if said.statement is not None else None
    for number, pattern in enumerate(words.concepts):
        if head in CONCEPTS and pattern.fullmatch(head):
            # what the reading found it says, however it says it: "I'm a practice nurse at the Elm Street surgery"
            # is where I work (its "surgery" is a doctor's word: a newcomer's job change was taken for another thing)
            found.add(f"concept:{number}")
            continue
        for match in pattern.finditer(folded):
            if not sure or not (words.strong.fullmatch(match.group(0)) or words.weak.fullmatch(match.group(0))):
                found.add(f"concept:{number}")
                break
    return found


def _concepts_in(folded: str) -> set[str]:
    return {f"concept:{n}" for n, pattern in enumerate(vocabulary().concepts) if pattern.search(folded)}


def other_names(text: str) -> frozenset[str]:
    """The groups of names for one thing that a text says, by a word of the group (memory/subjects.toml's
    synonyms: "thing:N") or by a way of saying it (its concepts: "concept:N"): "who's my GP?" and "my doctor
    is Dr Okafor" share one, "who is my boss?" and "I report to Oliver" another. Cheap: no reading."""
    folded = fold(text)
    things = {canonical_word(word) for word in _WORDS.findall(folded)}
    return frozenset({t for t in things if t.startswith("thing:")} | _concepts_in(folded))


def names_old_value(newer: Said, older: Said) -> bool:
    """Whether `newer` names `older`'s value as what it replaces ("instead of the ThinkPad", "sold the
    Skoda", "Marco retired, ...", "not O negative", "I'm ditching gmail")."""
    named = {v for v in newer.span_values if len(v) >= 3} | {a for a in newer.actors if len(a) >= 3} | \
        {w for w in newer.words if len(w) >= 4 and w not in STOPWORDS and w not in vocabulary().function}
    old = {v for v in (older.span_values or older.values) if len(v) >= 3}
    if any(name == value or (len(name) >= 4 and name in value) for name in named for value in old):
        return True
    words = {plain_value(w) for v in older.value_texts for w in v.split()}  # "instead of Tom": "my brother Tom"
    gone = _said_gone(newer)
    whole = plain_value(older.statement.value) if older.statement is not None else ""
    # A short value ("not a 42") only as the older's whole value: "instead of 7" says nothing of "Lily turns 7".
    return bool({g for g in gone if len(g) >= 3} & (older.span_values | older.values | words)) or whole in gone


def old_value_first(newer: Said, older: Said) -> bool:
    """Whether `newer` opens on `older`'s value, saying something of it ("Acme moved to a new office", "Dr Patel
    is now at the new clinic" of "my doctor is Dr Patel"): of the old value, not always a new one."""
    old = {v for v in (older.span_values | older.values) if len(v) >= 3}
    words = [w for w in re.findall(r"[\w'.@+-]+", fold(newer.text))[:4] if w not in _DETERMINERS]
    return any(plain_value(re.sub(r"'s?$", "", " ".join(words[:k]))) in old for k in range(1, len(words) + 1))


def of_old_value_only(newer: Said, older: Said) -> bool:
    """Whether `newer` is one clause that opens on `older`'s value ("Mr Silva is now retired", "Acme moved to a
    new office"): something said of the old value, with no clause of its own for a new one ("Gary retired,
    I'm using the garage on Mill Lane" has one)."""
    return old_value_first(newer, older) and len([c for c in _CLAUSES.split(fold(newer.text)) if c.strip()]) == 1


def says_who(said: Said) -> bool:
    """Whether `said` names who a person is to me ("Bob is my brother", "Priya is my colleague"): something else
    said of that person later ("Bob is now a doctor") changes no such thing."""
    statement = said.statement
    if statement is None or not statement.subject.person:
        return False
    words = _WORDS.findall(fold(statement.value))
    return bool(words) and words[-1] in vocabulary().people


def name_still_said(newer: Said, older: Said) -> bool:
    """Whether `older` gives one a name ("our dog is called Biscuit") and `newer` opens on that name: the one named
    is still there ("Biscuit is getting old, so we got a puppy called Pip now"), another one is new."""
    words = [w for w in re.findall(r"[\w'.@+-]+", fold(newer.text))[:3] if w not in _DETERMINERS]
    first = plain_value(re.sub(r"'s?$", "", words[0])) if words else ""
    return _gives_a_name(older) and len(first) >= 3 and \
        any(v.endswith(first) for v in older.span_values | older.values)  # the value read is "called Biscuit"


def value_extends(newer: Said, older: Said) -> bool:
    """Whether a value of `newer` holds `older`'s whole value and more ("Priya Sharma" of "Priya"): the same one
    said in full, not another."""
    old = {v for v in (older.span_values | older.values) if len(v) >= 3}
    return any(v != o and v.startswith(o) for v in (newer.span_values | newer.values) for o in old)


def _said_gone(said: Said) -> set[str]:
    """The values a statement names as gone, whatever their length: what follows "not", "no more",
    "instead of" ("I'm a 43, not a 42", "no more 73")."""
    folded = fold(said.text)
    found = set()
    for match in vocabulary().gone_before.finditer(folded):
        following = [w for w in re.findall(r"[\w'.@+-]+", folded[match.end():match.end() + 60])[:3]
                     if w not in _DETERMINERS]
        if following:
            found.add(plain_value(following[0]))
    return found - {""}


def same_form(newer: Said, older: Said) -> bool:
    """Whether both give an e-mail address: the form of the values says the subject ("please use
    sam@lee.dev for me from now on" of "my email is ...")."""
    return any("@" in v and _ADDRESSES.fullmatch(v.strip()) for v in newer.value_texts) and \
        any("@" in v and _ADDRESSES.fullmatch(v.strip()) for v in older.value_texts)


def anchored(newer: Said, older: Said) -> bool:
    """Whether `newer` names `older`'s subject by a word of its own (or another name for it, or the way of
    saying it), or a word inside `older`'s value ("switched gyms" of "I go to the PureGym"); a statement that
    names no head of its own, by the qualifier that sets `older` apart ("since Monday it's 7720 at the back"
    of "the back door code"; conflict() has made sure it says no other)."""
    if anchors(newer, older) & anchors(older, newer) or _subject(newer) is None and \
            newer.qualifiers & older.qualifiers:
        return True
    values = [v for v in older.values if len(v) >= 3]
    own = {w for w in newer.words if len(w) >= 3 and w not in STOPWORDS and w not in vocabulary().function}
    return any(w in v or stem(w) in v for w in own for v in values)


def new_value(newer: Said, older: Said) -> bool:
    """Whether `newer` says a value `older` does not (the same value said again changes nothing)."""
    have = plain_value(older.text)
    return any(value not in have for value in (newer.span_values or newer.values))
