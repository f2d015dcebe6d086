"""Secrets named by what they open rather than by a word for a secret: "garage opener: 7731",
"bank: Qx7-hunter22", "Netflix — joe@x.com / Netfl1x!2", "padlock opens with 3719", "alarm disarm
9911", "to disarm the alarm type 9911".

A label is a line (or a list item) that starts with a thing that opens (a door, a lock, an alarm) or
an account (a bank, a mail or streaming service), then ":" or a dash, then a value alone at the end of
its clause. What the value must look like depends on the label, which keeps "garage: 2 cars", "bank
holiday: Monday", "storage unit: 3rd floor" and "alarm: 6:45" ordinary:
- after a thing that opens, three digits or more ("7731", "2580#", "12-34-56"), not a time or a date;
- after an account, a password's shape: letters with digits and a symbol or both cases ("Qx7-hunter22"),
  or letters with digits when the text also says it lists passwords ("passwords:\n- gmail: hunter2");
  an e-mail address, a handle or a plain word is not one;
- "user / secret" after any label when the user is an e-mail address ("Netflix — joe@x.com / X").
And in a sentence, a verb of opening or disarming with a thing that opens, then digits: "the bike lock
opens with 4-2-9-1", "unlock my phone with 4471", "to turn off the alarm punch in 6620", "the alarm
disarm number is 2207"; or what a thing that opens takes, or a lock is set to, when the digits end the
clause: "the lockbox at the airbnb takes 0 9 3 3", "the bike lock is set to 3-1-8" (not "takes 120 kg",
"the alarm is set to 0630"). The thing may be placed, in a label or a sentence: "the safe in the office:
19-44-07".
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import cache, lru_cache

from memory.sensitive import keywords, vocabulary
from memory.sensitive.values import holds_an_email, names_a_product


def _literal(table: str) -> str:
    """A table of things as alternatives, the longest first ("garage opener" before "garage")."""
    items = sorted(vocabulary.entries(table), key=len, reverse=True)
    return "|".join(re.escape(item).replace(r"\ ", "[ \t]+").replace(r"\-", "[- ]?") for item in items)


# Things that open, with a word that may say which ("front door", "bike lock"); where the thing is, a few
# words after it ("the safe in the office", "the lockbox at the airbnb"); what a combination is set on
# (an alarm or an oven is set to a time or a heat); devices (unlocked with digits too, but "phone:
# 555-1234" is a number to call: in sentences only); accounts; verbs of opening and how digits are given
# after them; the keys of a keypad said around the digits: the data files' (vocabulary/*.toml).
def _places() -> str:
    return rf"(?:(?:{_literal('place_prefixes')})[ \t]+)?(?:{_literal('places')})"


def _placed() -> str:
    # one place or two: "padlock on the shed", "cijferslot van de kluis op het werk" (blind round 10)
    return (rf"(?:[ \t]+(?:{_literal('placed')})[ \t]+(?:(?:the|my|our|your|a)[ \t]+)?"
            r"(?:[^\W\d_][\w'’-]*[ \t]+)?[^\W\d_][\w'’-]*){0,2}")


def _services() -> str:
    return rf"(?:{vocabulary.alternation('services')}|{_banks()})"


def _banks() -> str:
    """A bank, its app or its online banking: "Barclays app", "bank", "online banking"."""
    return rf"(?:(?:{vocabulary.alternation('banks')})(?:[ \t]+(?:app|banking|online|mobile))?)"


def _opens() -> str:
    return rf"(?:{vocabulary.alternation('opens')})"


def _entry() -> str:
    return rf"(?:{vocabulary.alternation('entries')})"


def _keypad() -> str:
    """Keys of a keypad said before the digits: "press star 1 9 8 4", "hash, 5 5 2 0"."""
    return rf"(?:(?:{vocabulary.alternation('keypad')})[ \t]*,?[ \t]+)?"


def _keying() -> str:
    """Verbs of keying digits on a pad, and whom they are said to ("tippst du", "toets je")."""
    return (rf"(?<![^\W_])(?:{vocabulary.alternation('keying')})(?![^\W_])"
            r"(?:[ \t]+(?:you|du|tu|u|je|jij|ihr|vous|usted|voi|você))?")


# A label starts a line, a list item or a clause: "...; gate: 2580#", "my pin is 5531 and the alarm: 8890".
_START = (r"(?:^|(?<=\n)|(?<=;)|(?<=,)|(?<=:)|(?<=(?<![^\W_])and)|(?<=(?<![^\W_])und)|(?<=(?<![^\W_])et))[ \t]*"
          r"(?:[-*•·]|\d{1,2}[.)])?[ \t]*(?:(?:my|the|our|your)[ \t]+)?")
_SIGN = r"[ \t]*(?::|—|–|=>|=|->|→|⇒|➜|➔|[ \t]-)[ \t]*"
# A value ends its clause: the line's end, ";", a comma, and (blind round 11) a full stop or a dash that go on
# with another sentence, or a bracket ("the lockbox at the flat: 7734. cleaner knows it too", "key safe: 2 0 1 0 —
# carers at 8", "the lockbox by the bins: 4417 (cleaner knows)").
_END = r"(?=[ \t]*(?:$|\n|;|,[ \t]|[—–][ \t]|[.!?](?:[ \t]|$))|[ \t]+-[ \t]|[ \t]+\()"
# Digits keyed on a pad: single digits spaced or hyphenated ("6 6 0 2", "0-7-7"), or with a key's sign
# ("*7713#", "2580#"); what follows them may name the keys ("then OFF", "hash", "puis OK").
# A key's sign may stand between the digits too: "5#2#9#1", "4*4*1*2*", "5 # 2 # 9 # 1".
_KEY_SIGNED = r"\d(?:[ \t]?[#*][ \t]?\d){2,}[ \t]?[#*]?"
# ... or one digit at a time with commas between, four or more ("press 6, 1, 9, 9": blind round 16)
_KEYED = (r"(?:[*#][ \t]?\d(?:[ -]?\d){2,}[ \t]?[#*]?|\d(?:[ -]?\d){2,}[ \t]?[#*]|\d(?:[ \t]+\d){2,}|\d(?:-\d){2,}|"
          rf"\d(?:,[ \t]?\d(?!\d)){{3,}}|{_KEY_SIGNED})")


def _keys_after() -> str:
    """What may follow digits on a label's line: keys, or "then" and a key ("then OFF", "und dann Raute",
    "then #")."""
    return (rf"(?:[ \t]+(?:(?:{vocabulary.alternation('then', True)})[ \t]+){{0,2}}"
            rf"(?:{vocabulary.alternation('keypad')})(?![^\W_]))*")


# A value is one token, or digits with single spaces ("lockbox: 6 4 1 8"); one word may name whose the
# thing is ("the Airbnb lockbox: ..."). After a thing that opens, keys may follow ("burglar alarm: 5-0-9-3
# then OFF", "School gate: 2 9 0 4 star").
# A thing that opens may be named twice ("front door keypad"), say where it is in brackets ("Front door
# (cabin)"), or what is done to it ("Alarmanlage ausschalten: 9 5 1 3").
_LABEL = vocabulary.lazy_pattern(lambda: (
    rf"{_START}(?:[^\W\d_][\w'’-]*[ \t]+)?(?:(?P<place>{_places()})(?:[ \t]+(?:{_literal('places')}))?{_placed()}"
    rf"(?:[ \t]*\([^()\n]{{1,30}}\))?(?:[ \t]+(?:{_opens()}|{vocabulary.alternation('keying')}))?"
    rf"|(?P<service>{_services()}))"
    rf"{_SIGN}(?:(?:{vocabulary.alternation('keypad')})[ \t]*,?[ \t]+(?=[*#]?\d))?"
    rf"(?P<value>{_KEY_SIGNED}|\d(?:,[ \t]?\d(?!\d)){{3,}}|[*#]?\d(?:[ -]?\d){{2,}}#?|[^\s,;]+){_keys_after()}"
    # what is done after the digits ends them: "key safe by the door: 1-5-9-2 then push the button down"
    rf"(?:{_END}|(?=[ \t]+(?:{vocabulary.alternation('then', True)})[ \t]+[^\W\d_]))"),
    re.I | re.M)
_USER_SECRET = re.compile(rf"{_START}(?:[^\W\d_][\w'+.&-]*[ \t]+){{0,4}}?[^\W\d_][\w'+.&-]*{_SIGN}"
                          rf"(?P<user>[^\s/@]+@[^\s/]+)(?:[ \t]*/[ \t]*|[ \t]+)(?P<secret>[^\s,;]+){_END}", re.I | re.M)
_USER_SECRET_LABELLED = vocabulary.lazy_pattern(lambda: (
    # a word or two may say which page of it ("router admin page: admin / X", "NAS web console: root / X")
    rf"{_START}(?:{_places()}|{_services()})(?:['’]s)?(?:[ \t]+[^\W\d_][\w'’-]*){{0,2}}?(?:[ \t]*\([^()\n]{{1,30}}\))?"
    rf"(?:{_SIGN}|[ \t]+(?:{vocabulary.alternation('copulas')})[ \t]+|[ \t]+)[^\s/:]+[ \t]*/[ \t]*"
    rf"(?P<secret>[^\s,;]+){_END}"),
    re.I | re.M)
_DIGITS = re.compile(r"[*#]?\d(?:[ -]?\d){2,}#?")
_PASSCODE = re.compile(r"\d{4,8}")
_BANK = vocabulary.lazy_pattern(_banks, re.I)
_SIGNED_DIGITS = re.compile(_KEY_SIGNED)
_VALUE = rf"(?P<value>{_KEY_SIGNED}|[*#]?\d(?:[ -]?\d){{2,}}[#*]?)(?![\w:/.,]\d)(?![\w:/])"
# Digits that end their clause: "takes 0 9 3 3", and not "takes 120 kg".
_LAST = r"(?=[ \t]*(?:$|\n|[.;,!?)]))"
_THING = r"[^\W\d_][\w'’-]*"


def _said_digits() -> str:
    """Digits keyed on a pad, or three number words or more ("eight one one five")."""
    words = vocabulary.alternation("number_words", True)
    return rf"{_KEYED}|\d{{4,8}}|(?:(?:{words})(?:[ \t-]+|(?=[ \t]))){{3,}}"



# Digits keyed after a verb of keying: spaced or signed as keyed ("3 0 0 6", "*7713#"), or four to eight in a
# row that are no year ("type 2024 in the year field" is a year).
_KEYED_VALUE = (rf"(?P<value>{_KEYED}|(?!(?:19|20)\d\d(?!\d))\d{{4,8}}#?)(?![\w:/.,]\d)(?![\w:/])")


def _opened() -> list[str]:
    # Devices and premises are named in sentences only ("phone: 555-1234" is a number to call, "house: 1985" a
    # year): beside a verb of opening or getting in ("unlock my phone with 4471", "we get in the house with 5812").
    places, devices, locks = _places(), f"{_literal('devices')}|{_literal('premises')}", _literal("locks")
    opens, entry, keypad, keying = _opens(), _entry(), _keypad(), _keying()
    # the key pressed after the digits: "the alarm panel at the studio is 6049 then the star key"
    then_a_key = (rf"[ \t]+(?:{vocabulary.alternation('then', True)})[ \t]+(?:(?:(?:press|hit|push|tap)[ \t]+)?"
                  rf"(?:{vocabulary.alternation('keypad')})|{vocabulary.alternation('lock_moves', True)})(?![^\W_])")
    article = r"(?:(?:the|my|our|your|a|le|la|les|l'|l’|el|il|lo|der|die|das|den|de|het|o|a|mon|ma|mi|mijn|meu)[ \t]*)?"
    return [
        # "the bike lock opens with 4-2-9-1", "le coffre de l'hôtel s'ouvre avec 1403", "el candado del gimnasio
        # abre con 0-4-9", "Alarmanlage scharf und unscharf mit 0 9 0 9".
        rf"(?<![^\W_])(?P<place>{places}|{devices})(?![^\W_])[^\n.;,]{{0,30}}?"
        rf"(?<![^\W_]){opens}(?![^\W_])[ \t]*"
        rf"(?:(?:it|them)[ \t]+)?(?:(?:number|code|digits|sequence)[ \t]+)?(?:{entry}[ \t]*)?{keypad}{_VALUE}",
        # "unlock my phone with 4471", "pour désactiver l'alarme on tape 7 7 0 4", "Pour ouvrir le cadenas du
        # vélo il faut faire 5-3-1", "to turn the alarm off you press star 1 9 8 4 hash": a few words may
        # stand between the thing and the digits when a word says how they are given.
        rf"(?<![^\W_]){opens}[ \t]+{article}(?:[^\W\d_]+[ \t]+){{0,2}}?"
        rf"(?P<place>{places}|{devices})(?![^\W_])(?:[ \t]+off)?[ \t]*,?[ \t]*(?:{entry}[ \t]*)?{keypad}{_VALUE}",
        rf"(?<![^\W_]){opens}[ \t]+{article}(?:[^\W\d_]+[ \t]+){{0,2}}?"
        rf"(?P<place>{places}|{devices})(?![^\W_])(?:[ \t]+off)?[^\n.;]{{0,30}}?(?<![^\W_]){entry}[ \t]+"
        rf"{keypad}{_VALUE}",
        rf"(?<![^\W_])(?:turn|switch|shut)(?:s|ed)?[ \t]+{article}(?P<place>{places}|{devices})[ \t]+off(?![^\W_])"
        rf"[^\n.;]{{0,30}}?(?<![^\W_]){entry}[ \t]+{keypad}{_VALUE}",
        # "the storage unit keypad takes 80417": what a keypad takes.
        rf"(?<![^\W_])(?P<place>keypad|key ?pad|door panel|alarm panel)(?![^\W_])[ \t]+"
        rf"(?:takes|accepts|wants|needs|asks for|is|uses)[ \t]+{_VALUE}",
        # "the lockbox at the airbnb takes 0 9 3 3", "the bike lock is set to 3-1-8".
        rf"(?<![^\W_])(?P<place>{places})(?![^\W_]){_placed()}[ \t]+(?:takes|accepts)[ \t]+{_VALUE}{_LAST}",
        # "the lockbox is 2206 and the alarm is 9981", "der Tresor ist 5521": a thing that opens said to be four
        # digits or more (no year), ending their clause (blind round 10); a lock's, whatever they are, another
        # thing's not when they are a time of day as a 24-hour clock writes it ("my alarm is 0630").
        *(rf"(?<![^\W_])(?P<place>{things})(?![^\W_]){_placed()}(?:[ \t]+(?:{vocabulary.alternation('copulas')})|"
          rf"['’]s)[ \t]+(?=[*#]?(?!(?:19|20)\d\d(?!\d)){timed}\d(?:[ -]?\d){{3}}){_VALUE}"
          rf"(?=[ \t]*(?:$|\n|[.;,!?)]|[ \t]and[ \t])|{then_a_key})"
          for things, timed in ((locks, ""), (places, r"(?!0\d[0-5]\d(?![ -]?\d))"))),
        # "the gate at the allotments changed, it's now C-2-0-9-X": a thing that opens said to have changed, and
        # what it is now (blind round 18)
        # ("gate at the allotments: it's now ...", a re-check's: a sign for "changed")
        rf"(?<![^\W_])(?P<place>{places})(?![^\W_]){_placed()}(?:[ \t]+(?:(?:has|have|was|got|has been)[ \t]+)?"
        r"(?:changed|reset|been changed|been reset)[ \t]*[,;:]?|[ \t]*:)[ \t]*"
        r"(?:it's|it’s|it is|now it's|now it’s|now)[ \t]+"
        r"(?:now[ \t]+)?(?P<value>[*#]?\d(?:[ -]?\d){2,}[#*]?|(?:[A-Za-z]-)?\d(?:-\d){2,}(?:-[A-Za-z])?)"
        r"(?![\w:/.,]\d)(?![\w:/])",
        rf"(?<![^\W_])(?P<place>{locks})(?![^\W_])(?:['’]s|[ \t]+is|[ \t]+was|[ \t]+got)?[ \t]+(?:re)?set[ \t]+"
        rf"(?:to|on)[ \t]+{_VALUE}{_LAST}",
        # "the lock on the shed goes 22-8-40": how a lock's combination goes (an attacker's)
        rf"(?<![^\W_])(?P<place>{locks})(?![^\W_]){_placed()}[ \t]+goes(?:[ \t]+(?:to|like))?[ \t]+{_VALUE}{_LAST}",
        # "Set the bike lock to 3-9-2 when you leave it", "hotel safe - I set it to 0815": a lock set to digits.
        rf"(?<![^\W_])(?:re)?set[ \t]+{article}(?:{_THING}[ \t]+)?(?P<place>{locks})(?![^\W_])[ \t]+(?:to|on)[ \t]+"
        rf"{_VALUE}",
        rf"(?<![^\W_])(?P<place>{locks})(?![^\W_])[^\n.;]{{0,40}}?(?<![^\W_])I[ \t]+(?:re)?set[ \t]+(?:it|that)[ \t]+"
        rf"(?:to|on)[ \t]+{_VALUE}",
        # "unlock with 2 2 9 6 if the fingerprint fails": digits keyed after a verb of opening, no thing named.
        rf"(?<![^\W_]){opens}(?:[ \t]+(?:it|them))?[ \t]+{entry}[ \t]+{keypad}(?P<value>{_KEYED})"
        rf"(?![\w:/.,]\d)(?![\w:/])",
        # "it's eight one one five for the garage", "we use 2207 for the alarm panel downstairs": digits or number
        # words, then the thing they are for; a card's PIN when the card ends the clause ("I use 7731 for my debit
        # card", not "... for the credit card bill").
        rf"(?<![^\W_])(?:it's|it’s|it is|c'est|es|ist|è|é|uses?|used|using|utilis(?:e|ons|ez)|us(?:a|amos|iamo)|"
        rf"nutz(?:e|en)|nehm(?:e|en)|gebruik(?:en)?)[ \t]+(?P<value>{_said_digits()})[ \t]+"
        rf"(?:for|on|pour|para|für|per|voor)[ \t]+{article}(?:{_THING}[ \t]+){{0,2}}?"
        rf"(?P<place>(?:{places})(?![^\W_])|(?:{_literal('cards')}){_LAST})",
        # A thing that opens, and in its sentence a verb of keying then digits: "if the burglar alarm goes off
        # just type 7719", "Für das Tor tippst du 6 5 1 2", "voor de voordeur toets je 6 3 1 4 in".
        rf"(?<![^\W_])(?P<place>{places})(?![^\W_])[^\n.;]{{0,60}}?{keying}[ \t]+{keypad}{_KEYED_VALUE}",
        # Digits keyed, then where: "key in 4 4 0 9 at the car park barrier", "tu composes 4 1 9 0 sur le digicode".
        rf"{keying}[ \t]+{keypad}{_KEYED_VALUE}[^\n.;]{{0,40}}?(?<![^\W_])(?P<place>{places})(?![^\W_])",
        # A verb of getting in, then digits keyed, no thing named: "pour entrer chez Paul tu fais 0 6 2 9".
        rf"(?<![^\W_]){opens}(?![^\W_])[^\n.;]{{0,40}}?{keying}[ \t]+{keypad}{_KEYED_VALUE}",
        # The verb after the digits: "Die Haustür bei Oma: einfach 4 2 2 7 eintippen".
        rf"(?<![^\W_])(?P<place>{places})(?![^\W_])[^\n.;]{{0,40}}?[ \t]{_KEYED_VALUE}[ \t]+"
        rf"(?:ein(?:tippen|geben)|intoetsen|invoeren|in(?=[ \t]*(?:$|[.,;!\n])))(?![^\W_])",
        # "I set the alarm to 4 4 8 2", "changed the garage keypad to 8 8 1 6": a thing that opens set to digits
        # keyed (a time of day is never said digit by digit) or to digits that are no time.
        rf"(?<![^\W_])(?:(?:re)?set|chang(?:e|ed|es)|switch(?:ed|es)?|updat(?:e|ed|es))[ \t]+{article}"
        rf"(?:{_THING}[ \t]+)?(?P<place>{places})(?![^\W_])[ \t]+(?:to|on)[ \t]+"
        rf"(?P<value>{_KEYED}|(?!(?:[01]\d|2[0-3])[0-5]\d(?!\d))\d{{4,8}})(?![\w:/.,]\d)(?![\w:/])",
        # "the first two digits of the alarm are 9 and 4", "die ersten zwei Ziffern vom Tresor sind 6 und 1": some
        # digits of a thing that opens said as such, one by one or together (blind round 11).
        rf"(?<![^\W_])(?:{vocabulary.alternation('digits_of')})[ \t]+{article}"
        # "the first three digits of the code on the gym locker are 4, 4 and 0"
        rf"(?:(?:{vocabulary.alternation('code_nouns')}|{_literal('combination_words')})[ \t]+(?:{_literal('placed')})"
        rf"[ \t]+{article})?(?:{_THING}[ \t]+)?(?P<place>{places}|{_literal('combination_words')})(?![^\W_]){_placed()}"
        rf"(?:[ \t]*:|[ \t]+(?:{vocabulary.alternation('copulas')}))[ \t]+"
        rf"(?P<value>\d(?:(?:[ \t]*,[ \t]*|[ \t]+(?:{vocabulary.alternation('and', True)})[ \t]+|[ \t]+|-)\d)*)"
        r"(?![\w:/.,]\d)(?=[ \t]*(?:$|\n|[.;,!?)—–]|[ \t]-[ \t]))",
        # "office alarm 7734, disarm before 8am": the digits right after the thing, the verb after them.
        rf"(?<![^\W_])(?P<place>{places})(?![^\W_])[ \t]+{_VALUE}[^\n.;]{{0,30}}?(?<![^\W_]){opens}(?![^\W_])",
        # A thing that opens, and in its clause digits keyed on a pad: "the garage is 6 6 0 2 if you get
        # there first", "the padlock on the shed is 0-7-7", "key's in the lockbox by the side door, 4-1-7-7",
        # "the car park gate opens on *7713#".
        rf"(?<![^\W_])(?P<place>{places})(?![^\W_])[^\n.;:]{{0,40}}?(?<![\w*#-])(?P<value>{_KEYED})(?![\w:/.,]\d)(?![\w:/])",
    ]


@cache
def _opened_patterns() -> list[tuple[re.Pattern[str], bool]]:
    """Each pattern, and whether it may find a value said in words, with no digit in it ("it's eight one
    one five for the garage"): the others are read only where there are digits."""
    return [(re.compile(pattern, re.I), _said_digits() in pattern) for pattern in _opened()]


# "log into the bank with Qx7-hunter22", "log in with joe / hunter2".
_LOGIN = re.compile(r"(?<![^\W_])(?:log|sign)(?:s|ged|ging)?[ -]?(?:in|on)(?:to)?(?![^\W_])[^\n.;]{0,40}?"
                    r"(?<![^\W_])(?:with|using)[ \t]+(?:[^\s/]+[ \t]*/[ \t]*)?(?P<secret>[^\s,;]+?)"
                    r"(?=[.!?]?[ \t]*(?:$|\n|[;,]))", re.I)
# "hunter3 is what I use for email": a value said to be what one uses for an account is its password.
_USED_FOR = vocabulary.lazy_pattern(lambda: (
    rf"(?:^|(?<=[\s(\"'“]))(?P<secret>[^\s,;:\"'“”]+)[ \t]+(?:is|was|'s)[ \t]+"
    rf"(?:what|the one|the thing)[ \t]+I[ \t]+(?:use|used|type|typed|enter|log[ \t]+in[ \t]+with)"
    rf"[ \t]+(?:for|on|with|to[ \t]+(?:log|sign)[ \t]+(?:in|into|on)(?:[ \t]+to)?)[ \t]+"
    rf"(?:(?:my|the|our)[ \t]+)?{_services()}(?:[ \t]+(?:account|login))?"
    r"(?=[.!?]?[ \t]*(?:$|\n|[;,)]))"), re.I)


# "the one for the bank app is Tulip-Radar-42", "the one I use for Netflix is X", "the one for the side gate is
# 4471": a value said to be the one for an account or a thing that opens (what "one" stands for was said before).
_ONE_FOR = vocabulary.lazy_pattern(lambda: (
    r"(?<![^\W_])(?:the|my|our)[ \t]+one[ \t]+(?:(?:I|we|you)[ \t]+(?:use|used|have|type|enter)[ \t]+)?"
    r"(?:for|on|at)[ \t]+"
    rf"(?:(?:the|my|our)[ \t]+)?(?:[^\W\d_][\w'’-]*[ \t]+)?(?:(?P<service>{_services()})|(?P<place>{_places()}))"
    r"(?:[ \t]+(?:account|app|login|site|card|door|gate))?(?:['’]s|[ \t]+(?:is|was)|[ \t]*:)[ \t]+"
    r"(?P<secret>[^\s,;]+?)(?=[.!?]?(?:[ \t]|$|\n|[;,)]))"), re.I)


@cache
def _thing_words() -> frozenset[str]:
    """The words of the things that open, devices, verbs of opening and words for a combination: a text without
    one is not read for a thing opened by digits."""
    found = {w.lower() for table in ("places", "locks", "devices", "premises", "cards")
             for entry in vocabulary.entries(table) for w in re.findall(r"[^\W\d_]+", entry)}
    found |= {w.lower() for entry in vocabulary.entries("opens") for w in re.findall(r"[^\W\d_]+", entry) if len(w) > 3}
    found |= {w.lower() for entry in vocabulary.entries("combination_words") for w in re.findall(r"[^\W\d_]+", entry)}
    return frozenset(found | {"keypad", "disarm", "disarms", "disarmed", "unlock", "unlocks", "unlocked"})


@cache
def _words() -> frozenset[str]:
    """Every word the things, devices and accounts are made of: a text without one is not read here."""
    tables = ("places", "place_prefixes", "devices", "premises", "cards", "locks", "services", "banks",
              "combination_words", "network_words")
    found = {w.lower() for table in tables for entry in vocabulary.entries(table)
             for w in re.findall(r"[^\W\d_]+", entry)}
    return frozenset(found | vocabulary.words("label_words"))


_USE = frozenset("use used type typed enter log".split())
NOT_A_CODE = re.compile(r"\d{1,2}[:.]\d{2}|\d{1,2}/\d{1,2}(?:/\d+)?|\d+(?:st|nd|rd|th|am|pm|h|min|k|x)", re.I)
_LISTS_PASSWORDS = re.compile(r"(?<![^\W_])(?:passwords?|passwds?|pws|logins|credentials|creds|"
                              r"passwörter|mots de passe|contraseñas|senhas|wachtwoorden)(?![^\W_])", re.I)
_HANDLE = re.compile(r"[a-z][a-z0-9._-]{1,31}")
_SYMBOL = re.compile(r"[!@#$%^&*_+=~?]")


# "the 4 digit one: 8031" (of a bank card, blind round 18), "6-digit passcode - 551902": a value whose
# digits are counted before it, as many as it has.
_COUNTED = re.compile(r"(?<![^\W_])(?P<n>[4-8]|four|five|six|seven|eight)[ \t-]?digits?[ \t]+(?P<what>one|code|pin|"
                      r"passcode)(?P<whose>[ \t]+(?:for|on|of)[ \t]+(?:the|my|our)[ \t]+[^\W\d_][\w'’-]*"
                      r"(?:[ \t]+card)?)?"
                      r"(?:[ \t]*(?::|=|-|–|—|is)[ \t]*)(?P<value>\d{4,8})(?![\w.,:/]\d|\w)", re.I)
_COUNTS = {"four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_CARD_OR_BANK = vocabulary.lazy_pattern(
    lambda: rf"(?<![^\W_])(?:{_banks()}|card|debit|credit|cash ?card|visa|mastercard|amex|maestro)(?![^\W_])", re.I)


def _counted(text: str) -> Iterator[tuple[int, int, str]]:
    for match in _COUNTED.finditer(text):
        n = match.group("n").lower()
        if len(match.group("value")) != _COUNTS.get(n, int(n) if n.isdigit() else 0):
            continue
        if match.group("what").lower() == "one" and not _CARD_OR_BANK.search(text, 0, match.start("value")):
            continue  # "the 4 digit one" of a card or a bank's ("... for the Visa"): not of anything else
        yield match.start("value"), match.end("value"), "pin"


def find(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    if "digit" in text.lower():
        yield from _counted(text)
    if not words & _words() and "@" not in text:
        return
    # Each pattern is read only around the words it hangs on (a few hundred characters from each): over a
    # long chat its twenty patterns read every position cost 3 s a megabyte.
    lowered = text.lower()
    labelled = _holding(text, _around(lowered, words & _words()), _VALUE_SIGN)  # a value has a digit or a sign
    if any(sign in text for sign in (":", "—", "–", "=", "-", ">", "→", "⇒", "➜", "➔")):
        lists_passwords = None
        for match in _in(_LABEL, text, labelled):
            value = match.group("value")
            if match.group("place"):
                if (_DIGITS.fullmatch(value) or _SIGNED_DIGITS.fullmatch(value)) and not NOT_A_CODE.fullmatch(value):
                    yield match.start("value"), match.end("value"), _kind(match.group("place"))
                continue
            if lists_passwords is None:
                lists_passwords = bool(_LISTS_PASSWORDS.search(text))
            if match.group("service").lower() == "login" and _HANDLE.fullmatch(value):
                continue  # "login: ellen83" names the user
            if _PASSCODE.fullmatch(value) and _BANK.fullmatch(match.group("service")):
                yield match.start("value"), match.end("value"), "pin"  # "Barclays app — 591403": its passcode
                continue
            if password_shaped(value, lists_passwords):
                yield match.start("value"), match.end("value"), "credential"
        if "@" in text:
            for match in _in(_USER_SECRET, text, _around(text, {"@"})):
                if password_shaped(match.group("secret"), True):
                    yield match.start("secret"), match.end("secret"), "credential"
    if "/" in text:  # after a sign, or a copula: "the router's admin page is admin / Xk7#pQ2m"
        for match in _in(_USER_SECRET_LABELLED, text, labelled):
            if password_shaped(match.group("secret"), True):
                yield match.start("secret"), match.end("secret"), "credential"
    networks = words & _NETWORK_WORDS
    for match in _in(_NETWORK_GIVEN, text, _around(lowered, networks, before=10)) if networks else ():
        # "the wifi's Sunshine2024! now", "das WLAN ist jetzt Sonne2024!": a network said to be a value shaped as a
        # password with a sign in it (a network's name is rarely one: "the wifi is HomeNet5G" is its name)
        group = "quoted" if match.group("quoted") else "value"
        value = match.group(group).rstrip(".,;:)")
        said = {w.lower() for w in re.findall(r"[^\W\d_]+", text[max(0, match.start() - 20):match.start(group)])}
        if said & _NETWORK_NAMES:
            continue  # "the network name is BT#Hub5", "our network is called ..."
        if match.group("placed") and not _MADE_UP.search(value):
            continue  # "the wifi at the hotel was 'terrible'": after a place said at length, a made-up value only
        if group == "quoted" and (value == value.lower() and value not in keywords.FOLLOWERS | _NETWORK_STATES
                                  or _SIGNED.search(value)):
            # "guest wifi is 'sunflowerfield' all lowercase": a value quoted after a network is its key, unless
            # it is written as a name is ("the wifi is 'HomeNet'")
            yield match.start(group), match.start(group) + len(value), "credential"
        elif group == "value" and password_shaped(value, False) and _SIGNED.search(value):
            yield match.start(group), match.start(group) + len(value), "credential"
    logs = words & {"log", "logs", "logged", "logging", "login", "sign", "signs", "signed", "signing"}
    for match in _in(_LOGIN, text, _around(lowered, logs)) if logs else ():
        if password_shaped(match.group("secret"), True):
            yield match.start("secret"), match.end("secret"), "credential"
    if "one" in words:
        for match in _in(_ONE_FOR, text, _around(lowered, {"one"}, before=20)):
            secret = match.group("secret")
            if match.group("service") and password_shaped(secret, True) and not names_a_product(secret) or \
                    match.group("place") and _DIGITS.fullmatch(secret) and not NOT_A_CODE.fullmatch(secret):
                yield match.start("secret"), match.end("secret"), "credential" if match.group("service") else "code"
    uses = words & _USE
    for match in _in(_USED_FOR, text, _around(lowered, uses, before=80)) if uses else ():
        secret = match.group("secret")
        if password_shaped(secret, True) and not names_a_product(secret):
            yield match.start("secret"), match.end("secret"), "credential"
    dialled = words & (_thing_words() | _COMBINATION_WORDS) if words & _DIAL_WORDS or _LETTER_TURNS.search(text) \
        else frozenset()
    for match in _in(_DIALLED, text, _holding(text, _around(lowered, dialled), _DIGIT)) if dialled else ():
        # "The safe in the study: 12 left, 34 right, 7 left", "the safe combo: left 32, right 14, left 7"
        yield match.start("value"), match.end("value"), "combination"
    things = words & _thing_words()
    if not things:
        return  # the rest is about things that open, or verbs of opening
    regions = _around(lowered, things)
    keyed = _holding(text, regions, _DIGIT)  # digits, but for "it's eight one one five for the garage"
    for pattern, spoken in _opened_patterns():
        for match in _in(pattern, text, regions if spoken else keyed):
            place = match.groupdict().get("place") or ""
            kind = _kind(place) if place else "code"
            yield match.start("value"), match.end("value"), kind
            # said again in the sentence: "we use 2207 for the alarm panel downstairs, the upstairs one is 2208"
            yield from keywords.continued(text, max(match.end("value"), match.end()), kind)
    for match in _in(_RESET, text, keyed):
        if not _clock_time(match.group("value")):  # "the alarm is set to 0630" is a time, "reset to 6135" not
            yield match.start("value"), match.end("value"), _kind(match.group("place"))
    for match in _in(_SET_ON, text, keyed):
        # "I set the hotel room safe to 2580": a lock set, the verb first (a lock is set to no time nor heat)
        yield match.start("value"), match.end("value"), "combination"


# How far a match may start before the word it hangs on, and end after it.
_BEFORE, _AFTER = 160, 240


def _around(lowered: str, needles: set[str] | frozenset[str], before: int = _BEFORE) -> list[tuple[int, int]]:
    """The stretches of a text around each place one of `needles` stands (merged, in order): where a pattern
    that hangs on them can match."""
    found: list[tuple[int, int]] = []
    for needle in needles:
        at = lowered.find(needle)
        while at >= 0:
            end = at + len(needle)
            if not needle.isalpha() or (at == 0 or not lowered[at - 1].isalpha()) and (
                    end == len(lowered) or not lowered[end].isalpha()):  # a word, not inside one
                found.append((max(0, at - before), end + _AFTER))
            at = lowered.find(needle, end)
    merged: list[list[int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, min(e, len(lowered))) for s, e in merged]


def _holding(text: str, regions: list[tuple[int, int]], needed: re.Pattern[str]) -> list[tuple[int, int]]:
    """The regions that hold what a pattern's value needs."""
    return [(s, e) for s, e in regions if needed.search(text, s, e)]


_DIGIT = re.compile(r"\d")
_VALUE_SIGN = re.compile(r"[\d!@#$%^&*+=?~]")


def _in(pattern: re.Pattern[str], text: str, regions: list[tuple[int, int]]) -> Iterator[re.Match[str]]:
    """The matches of `pattern` inside the regions (a match never starts before the one found last ends). A
    pattern that starts with a thing's word (`_head_tables`) is tried only where such a word starts (the
    same matches as a scan of the regions: over a long chat a scan of every position of its regions cost
    0.7 s a megabyte for the patterns that start with a place)."""
    reached = 0
    starts = _starts(text, tables) if (tables := _head_tables(pattern)) else None
    if starts is None:
        for start, end in regions:
            for match in pattern.finditer(text, max(start, reached), end):
                reached = match.end()
                yield match
        return
    at = 0
    for start, end in regions:
        at = bisect.bisect_left(starts, max(start, reached), at)
        while at < len(starts) and starts[at] < end:
            position = starts[at]
            at += 1
            if position >= reached and (found := pattern.match(text, position, end)):
                reached = found.end()
                yield found


@cache
def _heads() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """How the patterns that start with a thing's word start, and the tables of those words (the longest
    start first)."""
    places, locks = _places(), _literal("locks")
    devices = f"{_literal('devices')}|{_literal('premises')}"
    return ((rf"(?<![^\W_])(?P<place>{places}|{devices})", ("place_prefixes", "places", "devices", "premises")),
            (rf"(?<![^\W_])(?:{locks}|{_literal('places')}|{_literal('combination_words')})",
             ("locks", "places", "combination_words")),
            (rf"(?<![^\W_])(?P<place>{places})", ("place_prefixes", "places")),
            (rf"(?<![^\W_])(?P<place>{locks})", ("locks",)))


_HEAD_TABLES: dict[str, tuple[str, ...] | None] = {}


def _head_tables(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The tables whose words every match of `pattern` starts with, or None."""
    if pattern.pattern not in _HEAD_TABLES:
        _HEAD_TABLES[pattern.pattern] = next((tables for head, tables in _heads() if pattern.pattern.startswith(head)
                                              and _head_words(tables) is not None), None)
    return _HEAD_TABLES[pattern.pattern]


@cache
def _head_words(tables: tuple[str, ...]) -> tuple[str, ...] | None:
    """The first letters of every entry of `tables` (as the patterns write them: `_literal` leaves letters as
    they are), lower case; None when an entry starts otherwise."""
    firsts = set()
    for table in tables:
        for entry in vocabulary.entries(table):
            first = _LETTER_RUN.match(entry.lower())
            if first is None or len(entry.lower()) != len(entry):
                return None
            firsts.add(first.group())
    return tuple(sorted(firsts))


_LETTER_RUN = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=4)
def _lowered_words(text: str) -> tuple[str, frozenset[str]] | None:
    """`text` lower case and its runs of letters, or None when a letter of it folds otherwise than by str.lower()
    (vocabulary.lowered_as_matched)."""
    lowered = vocabulary.lowered_as_matched(text)
    return None if lowered is None else (lowered, frozenset(_LETTER_RUN.findall(lowered)))


@lru_cache(maxsize=16)
def _starts(text: str, tables: tuple[str, ...]) -> list[int] | None:
    """Every place in `text` where a pattern that starts with a word of `tables`, after no letter nor digit,
    can match: the starts of the runs of letters that begin with an entry's first letters (and a few places
    inside a run, which the pattern then refuses), in order. None: scan instead."""
    firsts, read = _head_words(tables), _lowered_words(text)
    if firsts is None or read is None:
        return None
    lowered, runs = read
    found = set()
    for run in runs:
        if run.startswith(firsts):
            at = lowered.find(run)
            while at >= 0:
                found.add(at)
                at = lowered.find(run, at + len(run))
    return sorted(found)


def _clock_time(value: str) -> bool:
    """Whether four digits read as a time of day ("0630", "2215")."""
    return len(value) == 4 and value.isdigit() and int(value[:2]) < 24 and int(value[2:]) < 60


_RESET = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?P<place>{_places()})(?![^\W_]){_placed()}(?:[ \t]+(?:is|was|got|has been|have been))?[ \t]+"
    rf"(?:re)?set[ \t]+(?:to|on)[ \t]+(?P<value>\d{{4,8}})(?![\w:/.,]\d)(?![\w:/])"), re.I)
_SET_ON = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('set_verbs')})[ \t]+(?:(?:the|my|our|your|his|her|a|le|la|el|mi)[ \t]+)?"
    rf"(?:[^\W\d_][\w'’-]*[ \t]+){{0,3}}?(?:{_literal('locks')})(?![^\W_]){_placed()}"
    rf"(?:[ \t]+(?:{_literal('combination_words')}|code))?[ \t]+(?:{vocabulary.alternation('set_to')})[ \t]+"
    r"(?P<value>\d{3,8})(?![\w:/.,]\d)(?![\w:/°])"), re.I)
_DIAL_WORDS = vocabulary.LazyWords("dial_turns")
_LETTER_TURNS = re.compile(r"(?<![^\W_])[LR][ \t]?\d{1,3}[ \t]*[,;/-]?[ \t]*[LR][ \t]?\d")  # "L22 R8 L40", "R 14, L 3"
_NETWORK_WORDS = vocabulary.LazyWords("network_words")
_NETWORK_NAMES = vocabulary.LazyWords("network_names")
_NETWORK_STATES = vocabulary.LazyWords("network_states")
_NETWORK_GIVEN = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{_literal('network_words')})(?![^\W_])(?:[ \t]+[^\W\d_][\w'’-]*){{0,2}}?"
    # where the network is, said at length (blind round 11): "the wifi at the cafe I work from is 'latte4everyone'"
    rf"(?P<placed>[ \t]+(?:{_literal('placed')}|{vocabulary.alternation('prepositions', True)})"
    rf"(?:[ \t]+[^\W\d_][\w'’&-]*){{1,6}}?)?"
    # a copula, or after a place a label's colon: "the wifi at the B&B: 'heather-moor-11'"
    rf"(?:'s|’s|[ \t]+(?:{vocabulary.alternation('copulas')})|(?(placed)[ \t]*:|(?!)))"
    rf"(?:[ \t]+(?:{vocabulary.alternation('qualifiers', True)}))?[ \t]+"
    r"(?:(?P<quote>[\"'“‘«])[ \t]?(?P<quoted>[^\s\"'”’»]{6,40}?)[ \t]?[\"'”’»](?![^\W_])|(?P<value>[^\s,;]+))"), re.I)
_SIGNED = re.compile(r"[!@#$%^&*+=?~]")
_MADE_UP = re.compile(r"[\d!@#$%^&*+=?~_]|[^\W\d_]-[^\W\d_]")  # a digit, a sign, or words joined
_COMBINATION_WORDS = vocabulary.LazyWords("combination_words")
# The turns of a dial after a thing with a combination or a word for one, each number before its turn ("12 left,
# 34 right") or after it ("left 32, right 14, left 7").
_DIALLED = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{_literal('locks')}|{_literal('places')}|{_literal('combination_words')})(?![^\W_])"
    rf"[^\n.;]{{0,40}}?(?P<value>"
    rf"\d{{1,3}}[ \t]*(?:{_literal('dial_turns')})(?:[ \t]*[,;/]?[ \t]*(?:then[ \t]+)?\d{{1,3}}[ \t]*"
    rf"(?:{_literal('dial_turns')})(?![^\W_])){{1,5}}"
    rf"|(?:{_literal('dial_turns')})(?:[ \t]+(?:{_literal('dial_to')}))?[ \t]*\d{{1,3}}(?:[ \t]*[,;/]?[ \t]*"
    rf"(?:then[ \t]+)?(?:{_literal('dial_turns')})(?:[ \t]+(?:{_literal('dial_to')}))?[ \t]*\d{{1,3}}(?!\d)){{1,5}}"
    # the turns written as letters, three or more: "vault at the shop: L22 R8 L40" (blind round 18)
    r"|(?<![^\W_])(?-i:[LR])[ \t]?\d{1,3}(?:[ \t]*[,;/-]?[ \t]*(?-i:[LR])[ \t]?\d{1,3}){2,5}(?![^\W_]))"),
    re.I)


def password_shaped(value: str, listed: bool) -> bool:
    """Letters with digits and a symbol or both cases; letters with digits alone when the text lists
    passwords. Not an e-mail address, a handle, a link, a time, an ordinal."""
    if value.startswith(("@", "#", "http")) or holds_an_email(value) or "://" in value or NOT_A_CODE.fullmatch(value):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if not letters or not digits or len(value) < 5:
        return listed and len(value) >= 4 and bool(letters) and bool(digits or _SYMBOL.search(value))
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return listed or mixed_case or bool(_SYMBOL.search(value))


def _kind(place: str) -> str:
    return "combination" if _LOCK.search(place) else "pin" if _CARD.fullmatch(place) else "code"


_LOCK = vocabulary.lazy_pattern(lambda: rf"lock|safe|{_literal('locks')}", re.I)
_CARD = vocabulary.lazy_pattern(lambda: _literal("cards"), re.I)


def anchor_words() -> frozenset[str]:
    """The words the labels and sentences here hang on (windows.py)."""
    return _words() | _USE | frozenset("log logs logged logging login sign signs signed signing".split())
