"""Facts restated with a new value, linked when written (SPEC F6 supersession, F7 offline answers).

"the gate code is 1234", later "heads up, the gate code changed to 5521": the newer memory gives the
same subject a new value, so it supersedes the older one. Without a model this is read from the
sentence as people say a change: a marker ("changed to", "switched", "moved to", "is now", "new",
"no longer", "pushed to", "postponed to", "instead of", "from X to Y"; and the common forms of these
in Spanish, Portuguese, French, German and Italian), a subject, and its value.

The subject is its head noun and its owner, not the words it happens to share: "the building door
code" is a code (head) of a door and a building (modifiers), nobody's in particular (owner);
"the cat's vet" is a vet owned by the cat; "I live in Braga" and "moved to Porto last month" are
both where the user lives. Two statements are about one subject when their heads are the same, their
owners agree (the user's and nobody's in particular agree; the user's and the cat's do not) and, for
a marked change, one's modifiers are part of the other's ("the door code" changed: the building door
code). A change may also name what it replaced ("switched from LastPass", "instead of 7", "swapped
the Corolla for a Golf"): then it supersedes the fact whose value that was.

Conservative on purpose (tests/data/supersession.tsv, with its near misses, measures it): without a
marker, the subjects must be the same and have a modifier ("the wifi password", never "Bob"); the
values must be of one kind ("at 3" never replaces "in room 4", "great" never replaces "an iPhone
12"); "the new season starts", "now I remember" and "moved the couch" read as no change of anything
said before; and when two older facts could be meant, neither is linked.

The link is the record the consolidation judge writes (a `supersedes` edge and
memory_meta.superseded_by), so the judge may confirm it or add links later.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memory.edges import mark_superseded
from memory.fts import content_match
from memory.store import Store
from memory.words import stem

if TYPE_CHECKING:
    from memory.search import Hit


class _Lazy:
    """A pattern compiled on first use: every process imports this module (it runs at each write of a
    memory), few ever read a statement, and compiling these patterns costs tens of milliseconds."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def sub(self, replacement: str, text: str) -> str:
        return self.compiled.sub(replacement, text)


REASON = "restated with a new value when written"
WEIGHT = 0.9  # below the judge's "high" (1.0): a reading of the words, not a judgment
USER = "user"  # the owner of "my", "our", "I", "we"
PERSON_TITLES = "Dr|Mr|Mrs|Ms|Mx|Prof|Sr|Sra|Dra|Herr|Frau|Mme|Mlle"  # before a person's name, never a place's
MAX_LENGTH = 300  # characters: a statement of a fact, not a story

# -- words -----------------------------------------------------------------------------------------

_ARTICLES = frozenset("""the a an this that these those el la los las lo un una unos unas o os as um uma uns umas le
les l un une des der die das den dem des ein eine einen einem einer il gli i uno het een""".split())
_USER_POSSESSIVES = frozenset("""my our mine ours mi mis nuestro nuestra nuestros nuestras meu minha meus minhas nosso
nossa nossos nossas mon ma mes notre nos mein meine meinen meinem meiner meines unser unsere unseren unserem unserer
mio mia miei mie nostro nostra nostri nostre mijn onze ons""".split())
_OTHER_POSSESSIVES = frozenset("""his her their your its su sus seu sua dele dela son sa ses leur leurs sein seine
ihr ihre suo sua loro tu tus tuo tua votre vos dein deine""".split())
# Prepositions that attach a modifier to the head ("the code for the door", "el código de la puerta").
_OF = frozenset("""of for to at in on with from de del do da dos das du des von vom di della dello delle degli dei
al alla fur fuer van""".split())
_ROMANCE = frozenset("""el la los las lo o os as le les un una uno il gli de del do da dos das du des di della dello
delle degli dei mi mis meu minha meus minhas mon ma mes mio mia miei mie nuestro nuestra nosso nossa notre""".split())
NEW_WORDS = frozenset("new nuevo nueva nuevos nuevas novo nova novos novas nouveau nouvelle nouvel neue neuer neues "
                      "neuen nuovo nuova nuovi nuove".split())
# Words that do not tell one subject from another ("the daily standup" is the standup).
_FILLER = frozenset("""current currently daily weekly monthly usual regular actual actuel actuelle aktuelle aktueller
attuale present old""".split())
# A subject is a noun phrase: a pronoun or a verb of thinking in it means the sentence is about something else
# ("now I remember the code is ...", "I think the code is ...").
_NOT_IN_SUBJECT = frozenset("""i we you he she they it me us him them yo nosotros eu nos je nous on ich wir du io noi
remember think know guess heard hear said say told believe forgot forget realised realized wonder hope feel mean
thought knew what where when who how why which there here if whether but because i'm i've i'd i'll we're we've
we'd we'll you're you've they're they've it's j'ai""".split())
_RELATIONS = frozenset("""brother sister mom mum mother dad father parents parent wife husband partner boyfriend
girlfriend son daughter kids kid children child friend cousin aunt uncle grandma grandpa grandmother grandfather
niece nephew neighbour neighbor boss colleague roommate flatmate fiance fiancee manager dentist doctor vet landlord
landlady plumber hairdresser teacher coach therapist accountant lawyer nanny cleaner""".split())
# Heads that name one thing whatever word is used; verbs that state it ("I live in", "I work at", "I drive").
_CONCEPTS = {
    "residence": {"address", "direccion", "domicilio", "morada", "endereco", "adresse", "indirizzo", "residence",
                  "home address"},
    "employer": {"employer", "company", "job", "workplace", "occupation", "profession", "career", "empresa", "trabajo",
                 "emprego", "travail", "entreprise",
                 "arbeitgeber", "firma", "lavoro", "azienda"},
    "car": {"car", "vehicle", "coche", "carro", "voiture", "auto", "wagen", "macchina"},
}
_CONCEPT_OF = {word: concept for concept, words in _CONCEPTS.items() for word in words}
CONCEPTS = frozenset(_CONCEPTS)  # the heads that name a subject whatever the words ("residence")
_LOOKUP = {"residence": ("live", "lives", "living", "moved", "move", "address", "vivo", "vive", "moro", "mora",
                         "habite", "wohne", "wohnt", "abito", "abita", "mude", "mudei", "mudamos", "demenage",
                         "umgezogen", "trasferito", "trasferita", "direccion", "morada", "adresse", "indirizzo"),
           "employer": ("work", "works", "job", "employer", "company", "joined", "started", "trabajo", "empresa",
                        "emprego", "travail", "arbeitgeber", "lavoro"),
           "car": ("drive", "drives", "car", "coche", "carro", "voiture", "auto", "macchina")}
# Spellings of one word ("wi-fi", "e-mail address"), made one before anything is compared.
_SPELLINGS = [(_Lazy(r"\bwi[\s-]?fi\b", re.I), "wifi"), (_Lazy(r"\be-mail\b", re.I), "email"),
              (_Lazy(r"\bemail address(es)?\b", re.I), "email"),
              (_Lazy(r"\b(?:home|postal|street) address\b", re.I), "address"),
              (_Lazy(r"\b(?:mobile|cell|cellphone)\b(?=\s+(?:number|phone))", re.I), "phone"),
              (_Lazy(r"[\u2018\u2019\u02bc]"), "'")]

# -- values ------------------------------------------------------------------------------------------

_WEEKDAYS = (r"mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
             r"weekdays?|weekends?|lunes|martes|miercoles|jueves|viernes|sabado|domingo|segunda|terca|quarta|quinta|"
             r"sexta|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|montag|dienstag|mittwoch|donnerstag|freitag|"
             r"samstag|sonntag|lunedi|martedi|mercoledi|giovedi|venerdi|sabato|domenica")
_MONTHS = (r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|"
           r"september|october|november|december|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|"
           r"octubre|noviembre|diciembre|janeiro|fevereiro|marco|maio|junho|julho|setembro|outubro|novembro|"
           r"dezembro|janvier|fevrier|mars|avril|mai|juin|juillet|aout|septembre|octobre|novembre|decembre|januar|"
           r"februar|marz|juni|juli|oktober|dezember|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|"
           r"dicembre")
_TIME_VALUE = _Lazy(
    rf"^(?:(?:at|on|in|by|from|until|till|to|the|next|this|every|el|la|los|las|a|al|as|às|a las|dia|no|na|le|au|"
    rf"am|um|im|ab|il|alle|di)\s+)*(?:(?:{_WEEKDAYS}|{_MONTHS})s?\b|\d{{1,2}}(?:[:.h]\d{{2}})?\s*(?:am|pm|h|uhr)?"
    rf"(?:\s|$)|\d{{1,2}}(?:st|nd|rd|th|er|e|º|ª|\.)(?:\s|$)|\d{{1,2}}[./-]\d{{1,2}}\b|tomorrow|tonight|noon|midday|"
    rf"midnight|morning|afternoon|evening|week|month|year|ma[nñ]ana|demain|morgen|domani|amanh[aã])", re.I)
_NUMBER_VALUE = _Lazy(r"^[+#]?\d[\d\s().,/+-]*(?:\s*[^\W\d]{1,8})?$")
_BARE_VALUE = _Lazy(r"^[a-zà-ÿ]+(?:\s+[a-zà-ÿ]+){0,3}$")
# Said after the value, not part of it: "moved to Porto last month", "5829, as before".
_TRAILING_TIME = _Lazy(
    rf"(?:[\s,]+(?:last|this|earlier this|in|since|back in|a few|two|three|a couple of)\s+(?:week|month|year|"
    rf"weeks|months|years|days|{_MONTHS}|{_WEEKDAYS})(?:\s+ago)?|[\s,]+(?:yesterday|today|recently|lately|a while ago|"
    rf"last night|the other day|ago)|[\s,]+as (?:before|usual)|[\s,]+again|[\s,]+still)+\W*$", re.I)

# -- markers -----------------------------------------------------------------------------------------

_NOW = r"(?:now|ahora|agora|maintenant|d[ée]sormais|jetzt|nun|ora|adesso)"
_COPULA = r"(?:is|are|'s|'re|=|es|son|est[aá]|é|são|sao|fica|est|sont|c'est|ist|sind|lautet|è|e'|sono)"
_LEAD = _Lazy(r"^\W*(?:(?:heads[\s-]?up|fyi|btw|by the way|just so you know|just fyi|quick update|update|"
                   r"correction|actually|news|note|ok(?:ay)? so|so|oh|well|also|and|hey|hi|ojo|por cierto|"
                   r"ya que|au fait|petite info|übrigens|uebrigens|a proposito|aliás|alias)\b[\s,:;!.-]*)+", re.I)
_MARKING_LEAD = _Lazy(r"^\W*(?:quick update|update|correction|actually)\b", re.I)
_TRAILING_MARK = _Lazy(rf"[\s,]+(?:{_NOW}|instead|from now on|these days|anymore|any more|going forward|"
                            r"as of (?:today|now)|en su lugar|plus maintenant|a partir de (?:hoy|agora|ahora))\W*$",
                            re.I)
_INSTEAD_OF = _Lazy(r"[\s,]+(?:instead of|rather than|en vez del?|en lugar del?|em vez de|em vez do|em vez da|"
                         r"au lieu de|au lieu du|statt|anstatt|invece di|invece del|al posto di)\s+(?P<was>.+?)\W*$",
                         re.I)
_FROM_TO = _Lazy(r"^(?P<head>.*?)\s+(?:from|de|desde|von|da)\s+(?P<was>.+?)\s+(?:to|a|al|para|auf|à|au|in)\s+"
                      r"(?P<value>.+)$", re.I)

_AUX = r"(?:(?:has|have|had|was|were|is|are|got|gets|get|been|just|recently|finally|now|being|'s|'ve)\s+)*"
_CHANGED = (r"(?:changed|switched|moved|updated|pushed(?:\s+back|\s+out)?|postponed|rescheduled|delayed|bumped|"
            r"shifted|brought forward|went (?:up|down)|gone (?:up|down)|increased|decreased|rose|dropped|reduced|"
            r"raised|changes|moves|reset|renewed|replaced|upgraded)")  # "the alarm code got reset to 9024"
_CHANGED_ABROAD = (
    r"(?:(?:se\s+)?(?:ha\s+|han\s+|fue\s+|ha sido\s+)?(?:cambi[oó]|cambiado|cambiada|pospuso|pospuesto|pospuesta|"
    r"aplaz[oó]|aplazado|aplazada|movi[oó]|movido|movida|pas[oó]|pasado|pasada|traslad[oó]|trasladado|trasladada)"
    r"|(?:foi\s+|foram\s+|está\s+)?(?:mudou|mudaram|passou|passaram|alterou|mudado|mudada|adiado|adiada|remarcado|"
    r"remarcada|passado|passada|alterado|alterada|transferido|transferida)"
    r"|(?:a|ont|est|sont)\s+(?:été\s+)?(?:chang[ée]e?s?|report[ée]e?s?|d[ée]plac[ée]e?s?|d[ée]cal[ée]e?s?|"
    r"repouss[ée]e?s?|pass[ée]e?s?|modifi[ée]e?s?)"
    r"|(?:è|e'|sono)\s+(?:stat[oaie]\s+)?(?:cambiat|spostat|rimandat|posticipat|anticipat|modificat|passat)[oaie]"
    r"|(?:cambia|cambiò|passa|passò))")
_TO_ABROAD = r"(?:a|al|a la|para|pra|por|hasta|ao|à|às|as|au|aux|en|pour|in|alla|alle|allo|ai|per)"
_PERSON_WORDS = r"(?:i|we|i'm|we're|i've|we've|i'd|i am|we are|i have|we have)"


@dataclass(frozen=True)
class Subject:
    owner: str | None  # USER, a name or a thing ("sara", "cat", "sister"), or None when unsaid
    head: str | None  # the head noun's stem or a concept ("residence"); None: any subject of the owner
    modifiers: frozenset[str] = frozenset()
    person: bool = False  # the head is a person's name ("Bob is ..."): has many values at once

    @property
    def key(self) -> tuple[str | None, str | None, frozenset[str]]:
        return (self.owner or USER, self.head, self.modifiers)


@dataclass(frozen=True)
class Statement:
    subject: Subject
    value: str  # as written ("5521", "Porto"); "" when only an end is said ("I no longer live in Braga")
    marked: bool  # a word says the value changed
    was: str = ""  # the value it replaced, when said ("from 900", "instead of 7", "switched the Corolla for")
    negated: str = ""  # "no longer": the value that no longer holds
    verb: bool = False  # stated with a verb other than "is" ("meets on", "starts at"): never marked by "new"
    moved: bool = False  # a thing someone moved or put somewhere ("we moved the couch to the bedroom")

    @property
    def shape(self) -> str:
        """The preposition opening the value ("at 3", "in room 4"), else "": only alike values replace each other."""
        return _shape(self.value)

    def same_value(self, other: Statement) -> bool:
        return bool(self.value) and plain(self.value) == plain(other.value)


def plain(value: str) -> str:
    return " ".join(_fold(w) for w in re.findall(r"\w+", value.lower()))


def _fold(word: str) -> str:
    """Lower case, accents off ("código" and "codigo" meet)."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def _word(word: str) -> str:
    return stem(_fold(word).replace("-", ""))


def _shape(value: str) -> str:
    first = value.split()[0].lower() if value.split() else ""
    return first if first in _OF | {"under", "behind", "near", "inside", "by", "next"} else ""


def value_kind(value: str) -> str:
    """digits ("7": an hour or a number), time ("at 9:30", "the 12th", "Friday"), number ("5521",
    "950 euros"), bare ("great", "blue"), article ("a doctor"), possessive ("my brother"), place ("under
    the pot", "in room 4"), a name ("Dr Kim", "Porto"), or another phrase ("the garage", "open on
    Saturdays")."""
    text = _fold(value.strip())
    if not text:
        return ""
    if re.fullmatch(r"\d{1,2}", text):
        return "digits"  # "7": an hour or a number, alike to either
    if _TIME_VALUE.match(text):
        return "time"
    if _NUMBER_VALUE.match(text):
        return "number"
    if _BARE_VALUE.match(value.strip()) and value.split()[0].lower() not in _ARTICLES | _OF | _USER_POSSESSIVES:
        return "bare"
    first = text.split()[0]
    if first in ("a", "an"):
        return "article"
    if first in _USER_POSSESSIVES | _OTHER_POSSESSIVES:
        return "possessive"
    if _shape(value):
        return "place"
    return "name" if value.strip()[:1].isupper() else "phrase"


def _clean_value(value: str) -> str:
    value = value.strip(" ,.;:!-–—\"'")
    trimmed = _TRAILING_TIME.sub("", value).strip(" ,.;:!-")
    return trimmed or value


# -- subjects ----------------------------------------------------------------------------------------

def _tokens(phrase: str) -> list[str]:
    return re.findall(r"[\w'-]+", phrase)


def _owner_of_possessive(token: str) -> str | None:
    """ "cat's" -> "cat", "kids'" -> "kid", "Sara's" -> "sara"."""
    match = re.fullmatch(r"([\w-]+)(?:'s|')", token, re.I)
    return _word(match.group(1)) if match else None


_PLACE_AFTER = frozenset("downstairs upstairs indoors outdoors".split())  # said after the thing it places


def subject_of(phrase: str) -> Subject | None:
    """The subject a noun phrase names: "the building door code" -> code of {building, door};
    "the cat's vet" -> vet owned by the cat; "o código do portão" -> código of {portão}."""
    tokens = _tokens(phrase)
    if not tokens or len(tokens) > 10:
        return None
    romance = any(t.lower() in _ROMANCE for t in tokens)
    owner: str | None = None
    main: list[str] = []
    post: list[str] = []
    in_post = False
    determined = False  # an article or a possessive: a thing ("der Türcode"), never a name ("Bob")
    for token in tokens:
        lower = _fold(token)
        if lower in _NOT_IN_SUBJECT:
            return None
        possessor = _owner_of_possessive(token)
        if possessor is not None:
            if possessor in _USER_POSSESSIVES:
                owner = owner or USER
                continue
            # "my sister's number": the sister's; "the cat's vet": the cat's; "Rosemary's husband's name": the
            # husband's of Rosemary (not mine)
            owner = f"{owner} {possessor}" if owner not in (None, USER) and not main else possessor
            main = []
            continue
        if lower.startswith(("l'", "d'")):
            lower, token = lower[2:], token[2:]
        if lower in _USER_POSSESSIVES:
            owner = owner or USER
            continue
        if lower in _ARTICLES or lower in _OTHER_POSSESSIVES or lower in NEW_WORDS or lower in _FILLER:
            determined = determined or lower in _ARTICLES or lower in _OTHER_POSSESSIVES
            continue
        if lower in ("since", "starting") and main:
            break  # "new GP since the move": since when is no part of what it is (a newcomer's)
        if lower in _OF and (main or owner):
            in_post = True
            continue
        if lower in _OF and not (lower == "de" and not main and not post):
            return None  # a subject never opens with "of" ("de" opening it is Dutch's article: "de deurcode")
        if lower in _OF:
            continue
        (post if in_post else main).append(token)
    if not romance and len(main) >= 2 and _fold(main[-1]) in _PLACE_AFTER:
        post.append(main.pop())  # "the door code downstairs" is the code of the door, downstairs
    if not main or len(main) > 4 or len(post) > 4:
        return None
    person = not determined and owner is None and not post and len(main) <= 2 and all(w[:1].isupper() for w in main)
    head_word = main[0] if romance or person else main[-1]
    rest = main[1:] if romance else main[:-1]
    head = _word(head_word)
    head = _CONCEPT_OF.get(_fold(head_word), _CONCEPT_OF.get(head, head))
    modifiers = frozenset(_word(w) for w in rest + post if _fold(w) not in _ARTICLES)
    return Subject(owner, head, modifiers, person)


def person_of(phrase: str) -> str | None:
    """Who a verb's subject is: USER for "I"/"we", "sara" for "Sara", "sister" for "my sister"; None when
    it is not a person ("the office", "the couch")."""
    phrase = phrase.strip()
    if not phrase or re.fullmatch(rf"{_PERSON_WORDS}|yo|eu|je|j|ich|io|nosotros|nous|on|wir|noi", phrase, re.I):
        return USER
    tokens = _tokens(phrase)
    if not tokens or len(tokens) > 4:
        return None
    possessor = None
    for n, token in enumerate(tokens):
        owner = _owner_of_possessive(token)
        if owner is not None:
            possessor = owner
            tokens = tokens[n + 1:]
            break
    lower = [_fold(t) for t in tokens]
    if lower and lower[0] in _USER_POSSESSIVES and len(lower) == 2 and lower[1] in _RELATIONS:
        return _word(lower[1])
    if lower and lower[0] in _USER_POSSESSIVES and len(lower) == 3 and lower[1] in _RELATIONS and \
            tokens[2][:1].isupper():
        return _word(tokens[2])  # "my brother Tom": Tom
    if len(lower) == 1 and lower[0] in _RELATIONS and possessor is not None:
        return f"{possessor} {_word(lower[0])}"
    if possessor is None and 1 <= len(tokens) <= 2 and all(t[:1].isupper() for t in tokens) and \
            lower[0] not in _ARTICLES | _USER_POSSESSIVES:
        return _word(tokens[0])
    return None


# -- reading a statement -------------------------------------------------------------------------------

Reader = Callable[[re.Match[str]], "Statement | None"]


def _thing(match: re.Match[str], marked: bool = True, group: str = "s") -> Statement | None:
    """A change of a thing's value ("the gate code changed to 5521"); a person who moved moved home."""
    said = match.group(group)
    value = _clean_value(match.group("v"))
    person = person_of(said)
    if person is not None and re.search(r"\b(moved|relocated|mudou|se mud[oó]|umgezogen|trasferit)", match.group(0),
                                        re.I):
        return Statement(Subject(person, "residence"), value, True) if _place_name(value) else None
    subject = subject_of(said)
    if subject is None or subject.person:
        return None
    was = match.groupdict().get("was") or ""
    return Statement(subject, value, marked, was=_clean_value(was) if was else "")


def _residence(match: re.Match[str]) -> Statement | None:
    person = person_of(match.groupdict().get("p") or "")
    if person is None:
        return None
    negated = bool(match.groupdict().get("neg"))
    value = _clean_value(match.group("v"))
    marked = negated or bool(match.groupdict().get("m") or match.groupdict().get("m2"))
    return Statement(Subject(person, "residence"), "" if negated else value, marked, negated=value if negated else "")


def _concept(concept: str) -> Reader:
    def read(match: re.Match[str]) -> Statement | None:
        person = person_of(match.groupdict().get("p") or "")
        if person is None:
            return None
        negated = bool(match.groupdict().get("neg"))
        value = _clean_value(match.group("v"))
        return Statement(Subject(person, concept), "" if negated else value,
                         negated or bool(match.groupdict().get("m")), negated=value if negated else "")
    return read


def _moved_object(match: re.Match[str]) -> Statement | None:
    """ "we switched the cat to a new vet, Dr. Ames", "I changed my email to ...", "they pushed the
    standup to 9:30", "I switched gyms to The Gym Group"."""
    actor = match.group("p") or "I"
    if person_of(actor) is None and not re.fullmatch(r"they|he|she|someone|somebody|the (?:team|office|school)", actor,
                                                     re.I):
        return None
    thing, head = match.group("o"), match.group("h")
    value = _clean_value(match.group("v"))
    if head:
        owner_subject = subject_of(thing)
        owner = person_of(thing) or (owner_subject.head if owner_subject else None)
        if owner is None:
            return None
        return Statement(Subject(owner, _word(head)), value, True)
    subject = subject_of(thing)
    if subject is None or subject.person:
        return None
    if subject.owner is None and re.fullmatch(r"[\w-]+s", thing.strip(), re.I) and not subject.modifiers:
        subject = replace(subject, owner=USER)  # "switched gyms": my gym
    moved = bool(re.search(r"\b(?:moved|put|transferred|shifted)\b", match.group(0), re.I))
    return Statement(subject, value, True, moved=moved)


def _switched_plural(match: re.Match[str]) -> Statement | None:
    """ "I switched dentists, it's Dr Ruiz now", "I switched jobs, I'm at Globex now"."""
    person = person_of(match.group("p"))
    if person is None:
        return None
    head = _word(match.group("h"))
    head = _CONCEPT_OF.get(head, head)
    return Statement(Subject(person, head), _clean_value(match.group("v")), True)


def _swapped(match: re.Match[str]) -> Statement | None:
    """ "we switched the Corolla for a 2021 Golf": whatever had the value Corolla now has the new one."""
    person = person_of(match.group("p"))
    if person is None:
        return None
    was = re.sub(r"^(?:the|my|our|an?)\s+", "", match.group("o").strip(), flags=re.I)
    if not was[:1].isupper() and not re.search(r"\d", was):
        return None  # a name or a model is a value; "the bin for a bigger one" is not a fact we kept
    return Statement(Subject(person, None), _clean_value(match.group("v")), True, was=was)


def _from_to(match: re.Match[str]) -> Statement | None:
    """ "I switched to Bitwarden from LastPass for my password manager"."""
    person = person_of(match.group("p"))
    if person is None:
        return None
    return Statement(Subject(person, None), _clean_value(match.group("v")), True, was=_clean_value(match.group("was")))


def _copula(match: re.Match[str], marked: bool = False) -> Statement | None:
    said = match.group("s")
    subject = subject_of(said)
    if subject is None:
        return None
    new = any(_fold(t) in NEW_WORDS for t in _tokens(said))
    value = _clean_value(match.group("v"))
    negated = match.groupdict().get("neg")
    if negated:
        return Statement(subject, _clean_value(match.group("v2") or ""), True, negated=value)
    return Statement(subject, value, marked or new)


def _verb_statement(match: re.Match[str]) -> Statement | None:
    said = match.group("s")
    if any(_fold(t) in NEW_WORDS for t in _tokens(said)):
        return None  # "the new season starts in April" is about a new season, not a new start
    subject = subject_of(said)
    if subject is None or subject.person:
        return None
    now = bool(match.groupdict().get("m") or match.groupdict().get("m2"))
    return Statement(subject, _clean_value(match.group("v")), now, verb=True)


_PERSON = r"(?P<p>(?:[\w'-]+\s+){0,2}?[\w'-]+)"
_F = re.I | re.S
# (pattern, reader): the first that reads the sentence wins; change forms before plain ones.
_READERS: list[tuple[_Lazy, Reader]] = [
    # -- where someone lives
    (_Lazy(rf"^(?:{_PERSON}\s+)?(?:(?:has|have|had|'ve|'s|just|recently|finally|now|also)\s+)*"
                r"(?:moved|relocated)(?:\s+(?:house|home|out|down|up|over|away))?\s+(?:back\s+)?(?:to|into|in)\s+"
                r"(?P<v>.+)$", _F),
     lambda m: _residence_moved(m)),
    (_Lazy(rf"^{_PERSON}\s+(?P<neg>no longer|don't|doesn't|do not|does not|won't|used to)\s+(?:live|lives|reside|"
                r"resides)\s+in\s+(?P<v>.+?)(?:\s+any\s?more)?$", _F), _residence),
    (_Lazy(rf"^{_PERSON}\s+(?:(?P<m>now)\s+)?(?:live|lives|living|am living|'m living|is living|are living|"
                r"'re living|reside|resides)\s+(?:(?P<m2>now)\s+)?in\s+(?P<v>.+)$", _F), _residence),
    (_Lazy(r"^(?:(?P<p>yo|nosotros)\s+)?(?:(?P<neg>ya no)\s+)?(?:vivo|vivimos)\s+en\s+(?P<v>.+)$", _F),
     _residence),
    (_Lazy(r"^(?:(?P<p>yo|nosotros)\s+)?(?:me|nos)\s+(?:mud[ée]|mudamos|he mudado|hemos mudado)\s+(?:a|al)\s+"
                r"(?P<v>.+)$", _F), lambda m: _residence_said(m)),
    (_Lazy(r"^(?:(?P<p>eu|n[óo]s)\s+)?(?:(?P<neg>j[áa] n[ãa]o|n[ãa]o)\s+)?(?:moro|vivo|moramos|vivemos)\s+"
                r"(?:em|no|na)\s+(?P<v>.+?)(?:\s+mais)?$", _F), _residence),
    (_Lazy(r"^(?:(?P<p>eu|n[óo]s)\s+)?(?:me\s+)?(?:mudei(?:-me)?|mud[áa]mos(?:-nos)?)\s+(?:para|pra)\s+"
                r"(?P<v>.+)$", _F), lambda m: _residence_said(m)),
    (_Lazy(r"^(?P<p>j|je|nous)(?:'|\s+)(?:(?P<neg>n'habite plus|ne vis plus|n'habitons plus))\s+(?:à|a|en|au)\s+"
                r"(?P<v>.+)$", _F), _residence),
    (_Lazy(r"^(?P<p>j|je|nous)(?:'|\s+)(?:habite|vis|habitons|vivons)\s+(?:à|a|en|au|dans)\s+(?P<v>.+)$", _F),
     _residence),
    (_Lazy(r"^(?P<p>j|je|nous)(?:'|\s+)(?:ai|avons)\s+d[ée]m[ée]nag[ée]\s+(?:à|a|en|au|dans)\s+(?P<v>.+)$", _F),
     lambda m: _residence_said(m)),
    (_Lazy(r"^(?P<p>ich|wir)\s+(?:wohne|wohnen|lebe|leben)\s+(?P<neg>nicht mehr\s+)?in\s+(?P<v>.+)$", _F),
     _residence),
    (_Lazy(r"^(?P<p>ich|wir)\s+(?:bin|sind)\s+nach\s+(?P<v>.+?)\s+(?:umgezogen|gezogen)$", _F),
     lambda m: _residence_said(m)),
    (_Lazy(r"^(?:(?P<p>io|noi)\s+)?(?:(?P<neg>non)\s+)?(?:abito|vivo|abitiamo|viviamo)\s+(?:più\s+)?(?:a|in)\s+"
                r"(?P<v>.+)$", _F), _residence),
    (_Lazy(r"^(?P<p>[A-ZÀ-Ý][\w'-]+)\s+(?:(?P<neg>ya no|j[áa] n[ãa]o|n'habite plus|non)\s+)?(?:(?P<m>ahora|"
                r"agora|maintenant|jetzt|ora|adesso)\s+)?(?:vive|mora|habite|wohnt|lebt|abita)\s+(?:(?P<m2>ahora|agora|"
                r"maintenant|jetzt|ora|adesso)\s+)?(?:en|em|no|na|à|a|au|in)\s+(?P<v>.+)$", re.S), _residence),
    (_Lazy(r"^(?P<p>[A-ZÀ-Ý][\w'-]+)\s+(?:se\s+(?:mud[oó]|ha mudado)\s+a|mudou-se para|se mudou para|a "
                r"d[ée]m[ée]nag[ée]\s+(?:à|a|en|au)|ist nach|si [èe] trasferit[oa] a)\s+(?P<v>.+?)(?:\s+(?:umgezogen|"
                r"gezogen))?$", re.S), lambda m: _residence_said(m)),
    (_Lazy(r"^(?:(?P<p>io|noi)\s+)?(?:mi sono|ci siamo)\s+trasferit[oaie]\s+(?:a|in)\s+(?P<v>.+)$", _F),
     lambda m: _residence_said(m)),
    # -- where someone works, what they drive
    (_Lazy(rf"^{_PERSON}\s+(?P<neg>no longer|don't|doesn't|do not|does not)\s+work(?:s)?\s+(?:at|for)\s+"
                r"(?P<v>.+?)(?:\s+any\s?more)?$", _F), _concept("employer")),
    (_Lazy(rf"^{_PERSON}\s+(?:(?P<m>now)\s+)?(?:work|works|working|am working|'m working|is working)\s+(?:at|for)\s+"
                r"(?P<v>.+)$", _F), _concept("employer")),
    # "I work as a sports physio at Leeds Rhinos": what the work is, and where (a newcomer's "where do I work?")
    (_Lazy(rf"^{_PERSON}\s+(?:(?P<m>now)\s+)?(?:work|works|working|am working|'m working|is working)\s+as\s+"
                r"(?P<v>(?:an?\s+)?.+?\s+(?:at|for|in)\s+.+)$", _F), _concept("employer")),
    # "I'm a structural engineer at Arup", "my sister is a midwife at St Mary's", "Hannah is a vet in Cork": a job
    # and where it is held
    (_Lazy(rf"^{_PERSON}\s+(?:(?:am|is|are)\s+)?(?:(?P<m>now)\s+)?(?P<v>an?\s+(?:[\w'-]+\s+){{0,3}}?(?P<job>[\w'-]+)\s+"
                r"(?:at|for|with|in)\s+.+)$", _F),
     lambda m: _concept("employer")(m) if _a_job(m.group("job")) else None),
    (_Lazy(rf"^{_PERSON}\s+(?:(?:have|has|'ve|just|recently)\s+)*(?:started|got|found|took|landed|has|have)\s+a\s+"
                r"new\s+job\s+(?:at|with)\s+(?P<v>.+)$", _F), lambda m: _marked(_concept("employer")(m))),
    (_Lazy(rf"^{_PERSON}\s+(?:(?P<m>now)\s+)?(?:drive|drives)\s+(?P<v>.+)$", _F), _concept("car")),
    # -- a change that says what it replaced
    (_Lazy(rf"^{_PERSON}\s+(?:(?:have|has|'ve|just)\s+)*(?:switched|swapped|traded|replaced|exchanged)\s+"
                r"(?P<o>.+?)\s+(?:for|with)\s+(?P<v>.+)$", _F), _swapped),
    (_Lazy(rf"^{_PERSON}\s+(?:(?:have|has|'ve|just)\s+)*(?:switched|changed|moved)\s+(?:over\s+)?to\s+(?P<v>.+?)"
                r"\s+from\s+(?P<was>[^,]+?)(?:\s+for\s+.+)?$", _F), _from_to),
    (_Lazy(rf"^{_PERSON}\s+(?:(?:have|has|'ve|just)\s+)*(?:switched|changed|moved)\s+from\s+(?P<was>.+?)\s+"
                r"to\s+(?P<v>.+)$", _F), _from_to),
    # -- "I switched dentists, it's Dr Ruiz now"
    (_Lazy(rf"^{_PERSON}\s+(?:(?:have|has|'ve|just)\s+)*(?:switched|changed)\s+(?P<h>[\w-]+?)s\s*[,;:-]+\s*"
                r"(?:(?:it'?s|it is|now it'?s|they'?re|i'?m at|i'?m with|we'?re at|we'?re with|now)\s+)+(?P<v>.+)$",
                _F),
     _switched_plural),
    # -- "we switched the cat to a new vet, Dr. Ames", "I changed my email to ...", "we moved the standup to 9:30"
    (_Lazy(rf"^(?:{_PERSON}\s+)?(?:(?:have|has|had|'ve|just|finally)\s+)*(?:switched|changed|moved|pushed"
                r"(?:\s+back)?|postponed|rescheduled|put|transferred|shifted)\s+(?P<o>.+?)\s+(?:over\s+)?"
                r"(?:to|into|until|till)\s+(?:(?:a|an|another|the)\s+)?(?:new\s+(?P<h>[\w-]+)\s*[,:-]?\s+)?(?P<v>.+)$",
                _F), _moved_object),
    # -- "the gate code changed to 5521", "the offsite got pushed to the 12th", "rent went up from 900 to 950"
    (_Lazy(rf"^(?P<s>.+?)\s+{_AUX}{_CHANGED}\s+(?:from\s+(?P<was>.+?)\s+)?(?:to|until|till|into)\s+(?P<v>.+)$",
                _F), _thing),
    (_Lazy(rf"^(?P<s>.+?)\s+{_CHANGED_ABROAD}\s+(?:de\s+(?P<was>.+?)\s+)?{_TO_ABROAD}\s+(?P<v>.+)$", _F), _thing),
    (_Lazy(r"^(?P<s>.+?)\s+(?:wurde|wird|ist|hat sich|wurden|sind)\s+(?:von\s+(?P<was>.+?)\s+)?(?:auf|nach|zu)\s+"
                r"(?P<v>.+?)\s+(?:geändert|geaendert|verschoben|verlegt|umgestellt|geändert worden)$", _F), _thing),
    # -- "the door code changed, it's now 7730", "le code a changé, c'est maintenant 7731"
    (_Lazy(rf"^(?P<s>.+?)\s+(?:{_AUX}(?:changed|been changed)|a changé|ha cambiado|cambi[oó]|mudou|hat sich "
                rf"geändert|wurde geändert|è cambiat[oa])\s*[,;:.–—-]+\s*"
                rf"(?:(?:it'?s|it is|c'est|es|é|ist|è|{_NOW})\s+)*(?P<v>.+)$", _F), _thing),
    # -- "my favourite colour is no longer blue, it's green"
    (_Lazy(rf"^(?P<s>.+?)\s+{_COPULA}\s+(?P<neg>no longer|not any more|ya no es|já não é|n'est plus|nicht mehr|"
                r"non è più)\s+(?P<v>[^,;]+?)(?:\s*[,;]\s*(?:(?:it'?s|it is|now|c'est|es|é|ist|è)\s+)*(?P<v2>.+))?$",
                _F), lambda m: _copula(m)),
    # -- "the gate code is now 5521", "now the gate code is 5521", "el código ahora es 7731"
    (_Lazy(rf"^(?P<s>.+?)\s+{_COPULA}\s+{_NOW}\s+(?P<v>.+)$", _F), lambda m: _copula(m, True)),
    (_Lazy(rf"^(?P<s>.+?)\s+{_NOW}\s+{_COPULA}\s+(?P<v>.+)$", _F), lambda m: _copula(m, True)),
    (_Lazy(rf"^{_NOW}\s+(?P<s>.+?)\s+{_COPULA}\s+(?P<v>.+)$", _F), lambda m: _copula(m, True)),
    # -- "I've got a new phone number, 07700 900456", "new gate code: 5521"
    (_Lazy(rf"^(?:{_PERSON}\s+)?(?:(?:have|has|'ve|got|just|now)\s+)*(?:got|have|has|get)\s+(?:a|an)\s+"
                r"(?P<s>new\s+.+?)\s*[,:;-]\s*(?:(?:it'?s|it is|they'?re)\s+)?(?P<v>.+)$", _F),
     lambda m: _owned_new(m)),
    (_Lazy(r"^(?P<s>(?:(?:the|my|our)\s+)?new\s+[^:=]+?)\s*[:=-]\s*(?P<v>.+)$", _F), lambda m: _copula(m, True)),
    # -- plain statements
    (_Lazy(r"^(?P<s>.+?)\s+(?:(?P<m>now)\s+)?(?:meets|meet|happens|takes place|is held|are held|runs|starts|"
                r"begins|start|begin|comes|come|leaves|leave|departs|depart|arrives|arrive|opens|open|closes|close)\s+"
                r"(?:(?P<m2>now)\s+)?(?P<v>(?:on|at|in|every|from)\b.+)$", _F), _verb_statement),
    # -- the same in the other languages ("la temporada empieza en marzo", "die Staffel beginnt im März")
    (_Lazy(r"^(?P<s>.+?)\s+(?:(?P<m>ahora|agora|maintenant|jetzt|ora|adesso|nu)\s+)?(?:empieza|empiezan|comienza|"
                r"comienzan|abre|abren|cierra|cierran|commence|commencent|debute|débute|ouvre|ouvrent|ferme|ferment|"
                r"beginnt|beginnen|startet|starten|offnet|öffnet|schliesst|schließt|inizia|iniziano|comincia|"
                r"cominciano|apre|aprono|chiude|chiudono|comeca|começa|comecam|começam|inicia|iniciam|fecha|fecham|"
                r"begint|beginnen|opent|sluit)\s+(?P<v>(?:en|el|a|à|au|le|im|am|um|ab|in|alle|ad|no|na|às|em|om|op|"
                r"vanaf|in)\b.+)$", _F), _verb_statement),
    (_Lazy(rf"^(?P<s>.+?)(?:\s{_COPULA}\s|\s*:\s|\s*=\s*)(?P<v>.+)$", _F), lambda m: _copula(m)),
]


# What a person is at a place without working there ("a member at PureGym", "a parent at St Mary's").
_NOT_JOBS = frozenset("""member members customer client guest patient student pupil regular fan user subscriber resident
neighbour neighbor owner holder parent passenger visitor tenant volunteer beginner learner speaker believer
sleeper smoker drinker runner swimmer walker gamer reader newcomer foreigner stranger outsider winner loser""".split())
_JOB_ENDINGS = ("er", "or", "ist", "ician", "librarian", "historian", "comedian", "veterinarian", "eer", "ant", "ent",
                "ect", "man", "woman", "person", "nurse", "medic", "physio", "chef", "cook", "pilot", "surgeon",
                "clerk", "dev", "lead", "head", "intern", "trainee",
                "barista", "gp", "vet", "tutor", "coach", "guard", "carer", "midwife", "judge", "fellow", "associate",
                "admin", "ceo", "cto", "cfo", "vp", "analyst", "nanny", "postie", "paramedic", "apprentice")


def _a_job(word: str) -> bool:
    """Whether a noun names what someone works as ("engineer", "physio", "midwife"): how it ends, unless it
    is a thing one is at a place without working there."""
    word = _fold(word)
    return word not in _NOT_JOBS and word.endswith(_JOB_ENDINGS)


def _marked(statement: Statement | None) -> Statement | None:
    return replace(statement, marked=True) if statement else None


def _residence_moved(match: re.Match[str]) -> Statement | None:
    """ "moved to Porto last month", "Sara has moved to Lisbon"; "the office moved to Porto" is the office's."""
    said = match.group("p")
    person = person_of(said) if said else USER
    value = _clean_value(match.group("v"))
    if person is None or not _place_name(value):
        return None
    return Statement(Subject(person, "residence"), value, True)


def _place_name(value: str) -> bool:
    """Whether a value someone moved to names a place ("Porto", "the Netherlands"), not a team or a seat
    ("the marketing team", "the back of the class"), a tool ("Slack for work chat") or a person ("I've been
    moved to Dr Carter")."""
    words = value.lower().split()[:2]
    if len(words) == 2 and words[0] in _ARTICLES and words[1] in NEW_WORDS:
        return False  # "I've moved to a new dentist, Dr Patel": a new one of a thing
    return bool(re.search(r"\b[A-ZÀ-Ý]", value)) and not re.search(r"\s(?:for|as)\s", value) and \
        not re.match(rf"(?:{PERSON_TITLES})\.?\s", value)


def _residence_said(match: re.Match[str]) -> Statement | None:
    said = match.groupdict().get("p")
    return Statement(Subject(USER if not said else person_of(said) or USER, "residence"),
                     _clean_value(match.group("v")), True)


def _owned_new(match: re.Match[str]) -> Statement | None:
    person = person_of(match.group("p") or "I")
    statement = _copula(match, True)
    if statement is None or person is None:
        return None
    return replace(statement, subject=replace(statement.subject, owner=statement.subject.owner or person))


def normalised(text: str) -> str:
    """One spelling for the words written several ways ("wi-fi", "e-mail address", "mobile number")."""
    for pattern, word in _SPELLINGS:
        text = pattern.sub(word, text)
    return " ".join(text.split())


def read_statement(text: str) -> Statement | None:
    """The subject, value and change marker of a fact ("X is V", "X changed to V", "the new X is V", "I
    moved to V", ...); None for anything else (a question, a task, a sentence that states no value)."""
    if len(text) > 2 * MAX_LENGTH:
        return None
    text = normalised(text).strip()
    if not text or text.endswith("?") or len(text) > MAX_LENGTH or "\n" in text:
        return None
    if re.match(r"^\W*(remind me|remember|don't forget|what|when|where|who|which|how|why)\b", text, re.I):
        return None
    body = _LEAD.sub("", text)
    marked = bool(_MARKING_LEAD.match(text))
    if re.match(r"^\W*(?:now|ahora|agora|maintenant|jetzt|ora|adesso)\s+(?:i|yo|eu|je|ich|io|me|mi|j')\b", body, re.I):
        return None  # "now I remember ...": "now" here is about the speaker, not a new value
    was = ""
    instead = _INSTEAD_OF.search(body)
    if instead:
        was, body, marked = _clean_value(instead.group("was")), body[:instead.start()], True
    trimmed = _TRAILING_MARK.sub("", body)
    trailing = trimmed != body  # "... now", "... instead": a change, even of a value stated with a verb
    marked = marked or trailing
    body = trimmed.rstrip(" .!;")
    for pattern, reader in _READERS:
        match = pattern.match(body)
        if match is None:
            continue
        statement = reader(match)
        if statement is None:
            continue
        if marked and not statement.marked and not statement.verb:
            statement = replace(statement, marked=True)
        elif trailing and statement.verb:
            statement = replace(statement, marked=True)
        if was and not statement.was:
            statement = replace(statement, was=was, marked=True)
        from_to = _FROM_TO.match(statement.value) if not statement.was else None
        if from_to and statement.marked and not from_to.group("head"):
            statement = replace(statement, was=_clean_value(from_to.group("was")),
                                value=_clean_value(from_to.group("value")))
        if not statement.value and not statement.negated:
            return None
        return _an_email_address(statement)
    return None


_EMAIL_VALUE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_MAIL_WORDS = frozenset({"email", "emails", "e-mail", "e-mails", "mail", "mails", "mailbox", "inbox"})


def _an_email_address(statement: Statement) -> Statement:
    """An address that is an e-mail address is the e-mail ("new address for emails: tmarsh@proton.me" is what "my
    email is ..." says, not where I live: blind round 17)."""
    subject = statement.subject
    if subject.head not in ("residence", "address") or not subject.modifiers & _MAIL_WORDS or \
            not _EMAIL_VALUE.fullmatch(statement.value.strip()):
        return statement
    return replace(statement, subject=replace(subject, head="email", modifiers=subject.modifiers - _MAIL_WORDS))


def is_change(text: str) -> bool:
    """Whether `text` says that a value changed ("heads up, the gate code changed to 5521", "moved to
    Porto last month", "the door code changed, it's now 7730"): a statement worth keeping as a memory
    even without "remember that"."""
    statement = read_statement(text)
    if statement is None or not statement.marked:
        return False
    # Moving a thing is news only when it is an event moved to a time ("we moved the standup to 9:30");
    # "we moved the sofa to the living room" is said in passing, not a fact to keep.
    return not statement.moved or value_kind(statement.value) in ("time", "digits")


def without_lead(text: str) -> str:
    """A statement without the words that only introduce it ("heads up, ", "fyi: ", "btw ")."""
    body = _LEAD.sub("", " ".join(text.split()))
    return body[:1].upper() + body[1:] if body[:1].islower() and text.strip()[:1].isupper() else body


# -- one subject, a new value --------------------------------------------------------------------------

def _owners_agree(a: str | None, b: str | None) -> bool:
    return (a or USER) == (b or USER)


def _values_alike(newer: Statement, older: Statement) -> bool:
    """Values of one kind: a time never replaces a place, a word of praise never replaces a model."""
    if newer.subject.head in _CONCEPTS or not newer.value or not older.value:
        return True
    a, b = value_kind(newer.value), value_kind(older.value)
    if a == b or "digits" in (a, b) and {a, b} <= {"digits", "time", "number"}:
        return True
    if "time" in (a, b) or "number" in (a, b) or "bare" in (a, b):
        return False
    if newer.subject.person or older.subject.person:
        return False  # "Bob is now a doctor" says nothing against "Bob is my brother"
    return {a, b} != {"name", "phrase"}  # "open on Saturdays" says nothing against "Dr Kim"


def _holds(value: str, older: Statement) -> bool:
    """Whether `value` is (a part of) the older statement's value: "Corolla" of "a 2014 Corolla"."""
    wanted, have = plain(value).split(), plain(older.value).split()
    if not wanted or not have:
        return False
    return any(have[i:i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1))


def restates(newer: Statement, older: Statement) -> bool:
    """`newer` gives `older`'s subject a new value (or says that its value no longer holds)."""
    a, b = newer.subject, older.subject
    if not _owners_agree(a.owner, b.owner):
        return False
    if newer.was and _holds(newer.was, older) and (a.head is None or a.head == b.head):
        return not newer.same_value(older)
    if a.head is None or a.head != b.head or a.person != b.person:
        return False
    if newer.negated:
        # "I no longer live in Braga" ends where I live only if that was Braga ("I used to live in Leeds"
        # says nothing against "I live in York").
        return not older.value or _holds(newer.negated, older)
    if newer.same_value(older):
        return False
    if not _values_alike(newer, older):
        return False
    if a.modifiers == b.modifiers:
        if newer.marked:
            return True
        return bool(a.modifiers) and not a.person and newer.shape == older.shape and value_kind(
            newer.value) == value_kind(older.value) and not newer.verb
    if not newer.marked:
        return False
    small, big = sorted((a.modifiers, b.modifiers), key=len)
    return bool(small) and small <= big


def _lookup_words(statement: Statement, content: str) -> list[str]:
    """Words to find the older facts a statement could restate by, in the keyword index."""
    subject = statement.subject
    wanted: set[str] = set()
    if subject.head:
        wanted.add(subject.head)
        wanted |= set(subject.modifiers)
    if subject.owner and subject.owner != USER:
        wanted |= set(subject.owner.split())
    words = [w for w in re.findall(r"\w+", _fold(content)) if _word(w) in wanted or _fold(w) in wanted]
    if subject.head in _LOOKUP:
        words += _LOOKUP[subject.head]
        words += sorted(w.replace(" ", "") for w in _CONCEPTS[subject.head])
    for value in (statement.was, statement.negated):
        words += [w for w in re.findall(r"\w+", _fold(value)) if len(w) > 1]
    return [w for w in dict.fromkeys(words) if re.fullmatch(r"\w+", w)]


def restated_memory(store: Store, content: str, memory_id: int | None = None) -> int | None:
    """The one current fact `content` restates with a new value, read by the rules above (None: none, or
    two that could be meant); `memory_id`: the new memory's own id, never its own older value."""
    newer = read_statement(content)
    if newer is None:
        return None
    match = content_match(_lookup_words(newer, content))
    if match is None:
        return None
    rows = store.query(
        "SELECT k.id, k.content FROM search_index s JOIN knowledge k ON k.id = s.rowid / 4 "
        "JOIN memory_meta m ON m.memory_id = k.id WHERE search_index MATCH ? AND s.rowid % 4 = 1 AND k.id != ? "
        "AND k.due_at IS NULL AND k.kind NOT IN ('reminder', 'mood') AND m.superseded_by IS NULL "
        "ORDER BY k.id DESC LIMIT 200", (match, memory_id if memory_id is not None else -1))
    found: list[tuple[int, Statement]] = []
    for row in rows:
        older = read_statement(row["content"])
        if older is not None and restates(newer, older):
            found.append((row["id"], older))
    if len({s.subject.key for _, s in found}) > 1:
        # Two different facts could be meant: only one with the very same subject, else neither.
        found = [(i, s) for i, s in found if s.subject.key == newer.subject.key]
        if len({s.subject.key for _, s in found}) != 1:
            return None
    # The newest of them; older ones with that subject were linked before.
    return found[0][0] if found else None


def link(store: Store, newer_id: int, older_id: int, reason: str = REASON) -> None:
    """Record that `newer_id` restates `older_id` with a new value (the judge's records)."""
    mark_superseded(store, newer_id, older_id, WEIGHT, reason)


def superseded_by(store: Store, memory_ids: list[int]) -> dict[int, int]:
    """{memory id: the id of the memory that superseded it} for those of `memory_ids` that are superseded."""
    if not memory_ids:
        return {}
    rows = store.query(f"SELECT memory_id, superseded_by FROM memory_meta WHERE superseded_by IS NOT NULL "
                       f"AND memory_id IN ({','.join('?' * len(memory_ids))})", tuple(memory_ids))
    return {r[0]: r[1] for r in rows}


def replaced_after(ids: list[int], replaced_by: dict[int, int]) -> list[int]:
    """`ids` in their order, except that a memory replaced by another of them comes right after it (a
    chain newest first): what a list shows, so that a replaced value never reads as the current one."""
    present = set(ids)
    followers: dict[int, list[int]] = {}
    for memory_id in ids:
        newer = replaced_by.get(memory_id)
        if newer in present and newer != memory_id:
            followers.setdefault(newer, []).append(memory_id)
    ordered: list[int] = []
    seen: set[int] = set()

    def put(memory_id: int) -> None:
        if memory_id in seen:
            return
        seen.add(memory_id)
        ordered.append(memory_id)
        for older in followers.get(memory_id, []):
            put(older)

    for memory_id in ids:
        if replaced_by.get(memory_id) not in present or replaced_by.get(memory_id) == memory_id:
            put(memory_id)
    for memory_id in ids:  # a cycle (never written, but a store is data): each shown once all the same
        put(memory_id)
    return ordered


def current(store: Store, memory_id: int) -> int:
    """The newest memory in the chain of restatements that starts at `memory_id`."""
    seen = {memory_id}
    while True:
        row = store.one("SELECT superseded_by FROM memory_meta WHERE memory_id = ?", (memory_id,))
        if row is None or row[0] is None or row[0] in seen or len(seen) > 50:
            return memory_id
        memory_id = row[0]
        seen.add(memory_id)


def with_replacements(store: Store, hits: list[Hit]) -> list[Hit]:
    """Search hits, each replaced memory preceded by the current one that replaced it when the search did not
    find that one ("where does my brother live" found the old "Tom lives in Bristol", never the current "Tom
    moved to Cardiff", which shares none of its words)."""
    from memory.search import Hit  # noqa: F811 - at run time too, where it is made

    found = {h.id for h in hits if h.type == "memory"}
    gone = superseded_by(store, list(found))
    out: list[Hit] = []
    for hit in hits:
        if hit.type == "memory" and hit.id in gone:
            now = current(store, hit.id)
            row = None if now in found else store.one(
                "SELECT k.content, k.created_at, m.tier, k.importance, k.kind FROM knowledge k "
                "JOIN memory_meta m ON m.memory_id = k.id WHERE k.id = ?", (now,))
            if row is not None:
                out.append(Hit("memory", now, row[0], row[1], hit.score, row[2], importance=row[3], kind=row[4]))
                found.add(now)
        out.append(hit)
    return out


def replaced(store: Store, memory_id: int) -> list[dict[str, Any]]:
    """The memories `memory_id` superseded (id, content, created_at, private), newest first."""
    rows = store.query("SELECT k.id, k.content, k.created_at, k.private FROM memory_meta m JOIN knowledge k "
                       "ON k.id = m.memory_id WHERE m.superseded_by = ? ORDER BY k.created_at DESC, k.id DESC",
                       (memory_id,))
    return [dict(zip(("id", "content", "created_at", "private"), r, strict=True)) for r in rows]


def value_of(text: str) -> str | None:
    """The value a fact gives its subject ("5829" of "the door code is 5829"), when it reads as one."""
    statement = read_statement(text)
    return statement.value if statement and statement.value else None
