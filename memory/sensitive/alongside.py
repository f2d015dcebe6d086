"""What stands beside a secret the detectors found, and is one for being there (blind round 9, issue 42):

- the next values of a list of the same kind: "PIN 6203 for the Halifax card, 9931 for the Monzo one",
  "backup codes 618204 / 739550 / 902117": after a value of digits, perhaps what it is for, then a comma, a
  slash, "and", the same number of digits, ending their clause or followed by what they are for;
- the number that logs in beside a password: "online banking: customer number 88120436, passcode Wren1953"
  (the data files' `login_numbers`), in the same line as a secret found, or in the lines about the same login
  (no blank line between, three at most either side: "bank login details:\ncustomer number ...\npasscode ...").

And after blind round 10:

- the rest of a value spelt a character at a time: "1 2 3 4 B" when "1 2 3 4" was found, "5 five 0 zero"
  when "5" was (a single letter or digit, or a digit's word, the data files' `digits`);
- the value it replaced, said beside it: "alarm code 4412 (the old one 2290 doesn't work)" (the data files'
  `former`, then as many digits as the value found);
- the other items of a list of "name: value" lines one of whose values is a secret, when theirs looks like
  one too (a credential's shape, or four to eight digits that are no year): "- bank: Falcon#2291\n- tax
  portal: Heron!Mist4\n- pharmacy app: 5520".

And after blind round 13:

- another code of digits after one found in the same line, whatever is said between them, set apart by a sign, a
  copula or a word that joins another code ("no wait 9141", "or 9141", "backup 9141"): "login PIN 662901,
  the card PIN is different (3307)", "changed to 1204 (it was 0412 before)", "nine one one four? no wait
  ... nine one four one": three to eight digits, as many as the value found give or take two, and no date,
  time, year, amount or number of something (a line that holds a code says its other codes beside it;
  what is read as one more code there costs a line already withheld).

Read only beside what was found, so a text without a secret costs nothing here.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from memory.sensitive import vocabulary
from memory.sensitive.values import credential_shaped, measure

# Words between a value and the next of its list ("for the Halifax card"), then the joint, then the next value.
_NEXT = vocabulary.lazy_pattern(lambda: (
    rf"(?:[ \t]+(?:{vocabulary.alternation('prepositions', True)})[ \t]+[^\n,;/.!?\d]{{1,40}}?)?"
    rf"[ \t]*(?:[,;/|][ \t]*(?:(?:{vocabulary.alternation('and', True)})[ \t]+)?|"
    rf"(?<=[ \t])(?:{vocabulary.alternation('and', True)})[ \t]+)"
    r"(?P<value>\d(?:[ -]?\d)*)(?![\w/:.,]\d|[\w%°$€£])"
    rf"(?=[ \t]*(?:$|\n|[,;/|.!?)]|[ \t](?:{vocabulary.alternation('prepositions', True)}|"
    rf"{vocabulary.alternation('and', True)})(?![^\W_])))"), re.I)
_LOGIN_NUMBER = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('login_numbers')})(?![^\W_])[ \t]*(?:[:=#]|is|ist|est|es|è|é)?[ \t]*"
    r"(?P<value>\d(?:[ -]?\d){5,15})(?![\w])"), re.I)
# The value it replaced: "(the old one 1998 doesn't work anymore)", "l'ancien était 2290".
_FORMER = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('former')})(?![^\W_])[ \t]*"
    rf"(?:[:=,]|(?:{vocabulary.alternation('copulas')})(?![^\W_]))?[ \t]*"
    r"(?P<value>\d(?:[ -]?\d)*)(?![\w/:.,]\d|[\w%°$€£])"), re.I)
_FORMER_REACH = 80  # how far from the value found its former one may be said
# A line of a list of "name: value": a bullet or a number perhaps, a short name, a sign, the value.
_ITEM = re.compile(r"[ \t]*(?P<bullet>[-*•+]|\d{1,2}[.)])?[ \t]*(?P<name>[^\W\d_][^:=\n]{0,39}?)[ \t]*[:=][ \t]*"
                   r"(?P<value>\S(?:[^\n]*\S)?)[ \t]*$")
_ITEM_DIGITS = re.compile(r"(?!(?:19|20)\d\d$)\d{4,8}")
# A line's name that says it is logged in to: a service ("netflix", "bank"), or the data files' `logged_into`.
_LOGS_IN_NAME = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('services')}|{vocabulary.alternation('banks')}|"
    rf"{vocabulary.alternation('logged_into', True)})(?![^\W_])"),
    re.I)
_DIGITS = re.compile(r"\d")
_OF_DIGITS = frozenset({"pin", "code", "combination", "secret", "credential"})
_LOGS_IN = frozenset({"pin", "code", "credential", "token"})  # what a number that logs in may stand beside


def find(text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """Spans of `text` beside the `found` ones that are secrets too."""
    for start, end, kind in found:
        said = text[start:end]
        if kind not in _OF_DIGITS or not re.fullmatch(r"\d(?:[ -]?\d)*", said):
            continue
        digits = len(_DIGITS.findall(said))
        at = end
        while (listed := _NEXT.match(text, at)) and len(_DIGITS.findall(listed.group("value"))) == digits:
            yield listed.start("value"), listed.end("value"), kind
            at = listed.end("value")
    yield from _spelt_on(text, found)
    yield from _former(text, found)
    yield from _same_line(text, found)
    yield from _listed(text, found)
    for block in {_block(text, start) for start, _, kind in found if kind in _LOGS_IN}:
        for match in _LOGIN_NUMBER.finditer(text, *block):
            yield match.start("value"), match.end("value"), "credential"


_BLOCK_LINES = 3  # how many lines either side of a password its login number may stand, no blank line between


def _block(text: str, at: int) -> tuple[int, int]:
    """The lines around `at` that say one thing (a login's details): up to a blank line, at most
    _BLOCK_LINES lines either side: "bank login details:\ncustomer number 40918273\npasscode 662019"."""
    start = text.rfind("\n", 0, at) + 1
    for _ in range(_BLOCK_LINES):
        if start == 0:
            break
        above = text.rfind("\n", 0, start - 1) + 1
        if not text[above:start - 1].strip():
            break
        start = above
    end = text.find("\n", at)
    for _ in range(_BLOCK_LINES):
        if end < 0:
            break
        below = text.find("\n", end + 1)
        if not text[end + 1:len(text) if below < 0 else below].strip():
            break
        end = below
    return start, len(text) if end < 0 else end


def _spelt_on(text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """A value of single characters found in part, and the characters or digits' words that follow it."""
    words = vocabulary.digits()
    for start, end, kind in found:
        said = text[start:end].split()
        if not said or any(len(w) > 1 and w.lower() not in words for w in said):
            continue
        at = end
        while (more := _SPELT.match(text, at)) and (len(more.group(1)) == 1 or more.group(1).lower() in words):
            at = more.end()
        if at > end:
            yield start, at, kind


_SPELT = re.compile(r"[ \t]+([^\W_]+)(?![^\W_])")


def _former(text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """The value a secret of digits replaced, said beside it with as many digits."""
    counts = {(start, end): len(_DIGITS.findall(text[start:end])) for start, end, kind in found
              if kind in _OF_DIGITS and re.fullmatch(r"[*#]?\d(?:[ -]?\d)*#?", text[start:end])}
    if not counts:
        return
    low = max(0, min(s for s, _ in counts) - _FORMER_REACH)
    high = min(len(text), max(e for _, e in counts) + _FORMER_REACH)
    for match in _FORMER.finditer(text, low, high):
        digits = len(_DIGITS.findall(match.group("value")))
        if any(digits == n and (abs(match.start() - e) <= _FORMER_REACH or abs(s - match.end()) <= _FORMER_REACH)
               for (s, e), n in counts.items()):
            yield match.start("value"), match.end("value"), "code"


# Three to eight digits standing alone (the view writes digits said as words as digits with spaces), not
# after a sign of money or number ("$", "#", "No."), not part of a date, a time or a decimal, not before a unit.
_CODE_RUN = re.compile(r"(?<![\w$£€¥#/:.,-])\d(?: ?\d)*(?![\w/:%°$£€-]|[.,]\d|"
                       r" ?(?:am|pm|h|hrs?|min|mins|kg|km|cm|mm|ml|m|g|l|€|eur|euros?|dollars?|pounds?|usd|gbp)\b)",
                       re.I)
# Set apart from what comes before it (a sign, a bracket, the line's start) or said to be it ("was 0412"): a
# number straight after a noun or a preposition names a thing or a time ("flat 305", "at 1530").
_SET_APART = vocabulary.lazy_pattern(lambda: (
    rf"(?:(?<![^\W_])(?:{vocabulary.alternation('copulas')}|{vocabulary.alternation('code_joins_alone', True)})|"
    rf"[^\w \t][ \t]*(?:(?:no|maybe|perhaps|was it)[ \t]+)?"
    rf"(?:(?:{vocabulary.alternation('code_joins', True)})(?![^\W_]))?|[^\w \t])[ \t]*$"), re.I)
_YEAR = re.compile(r"(?:19|20)\d\d")
# A number followed by a word is a count of something ("5000 steps", "2 flights"), unless the word ends a
# value's clause ("it was 0412 before", "3307 and ...").
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")
_CLAUSE_WORDS = vocabulary.LazyWords("cut", "and")
# A number said with a day or an hour is a time ("or 1530 tomorrow", "1200 tonight"), not a code.
_TIME_WORDS = frozenset("tomorrow today tonight yesterday morning evening afternoon night am pm o'clock hours hrs"
                        .split())
_SAME_LINE_REACH = 120  # how far after the code found another one in its line may be said
# A next line that starts with a word joining another code ("new one: 9930", "or 4829") goes on the line before.
_JOINED_LINE = vocabulary.lazy_pattern(lambda: (
    rf"\n[ \t]*(?:[-*•][ \t]*)?(?:{vocabulary.alternation('code_joins', True)}|"
    rf"{vocabulary.alternation('code_joins_alone', True)})(?![^\W_])"), re.I)


def _same_line(text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """Other codes of digits after a code of digits found, in its line (the module's docstring). Read only a
    short way either side of each: a paste of such lines on one line stays linear (an attacker's 100 kB took
    14 s when each was read from its line's start)."""
    covered = bytearray(len(text))  # the characters of what was found, or found here
    for start, end, _ in found:
        covered[start:end] = b"\x01" * (end - start)
    for start, end, kind in found:
        said = text[start:end]
        if kind not in _OF_DIGITS or not re.fullmatch(r"\d(?:[ -]?\d)*", said):
            continue
        digits = len(_DIGITS.findall(said))
        line_end = text.find("\n", end, end + _SAME_LINE_REACH)
        if line_end >= 0 and _JOINED_LINE.match(text, line_end):  # "my PIN: 4821\nnew one: 9930" (an attacker's)
            line_end = text.find("\n", line_end + 1, line_end + 1 + _SAME_LINE_REACH)
        # after it: a number before a code is what the line is about ("locker is 117, code 8282")
        high = min(len(text), end + _SAME_LINE_REACH) if line_end < 0 else line_end
        for run in _CODE_RUN.finditer(text, end, high):
            value = run.group()
            count = len(_DIGITS.findall(value))
            if not 3 <= count <= 8 or abs(count - digits) > 2 or _YEAR.fullmatch(value) or \
                    any(covered[run.start():run.end()]) or not set_apart(text, run.start()) or \
                    ((after := _NEXT_WORD.match(text, run.end())) and (after.group(1).lower() not in _CLAUSE_WORDS
                                                                       or after.group(1).lower() in _TIME_WORDS)):
                continue
            covered[run.start():run.end()] = b"\x01" * (run.end() - run.start())
            yield run.start(), run.end(), kind


_BEFORE_REACH = 40  # what is read before a number to tell whether it is set apart


def set_apart(text: str, at: int) -> bool:
    """Whether the number at `at` is set apart from what comes before it in its line (_SET_APART): said as a
    value ("2486", "it's 2486", "or 9141"), not as the time or the thing it names ("at 1530", "room 214")."""
    low = max(0, at - _BEFORE_REACH)
    line = text.rfind("\n", low, at)
    before = text[(line + 1 if line >= 0 else low):at]
    if not before.strip():
        return line >= 0 or low == 0  # the line's start
    return bool(_SET_APART.search(before))


def _listed(text: str, found: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """The other values of a list of "name: value" lines one value of which was found, when they look like
    secrets too: the lines above and below in the same layout (the same bullet, or none)."""
    if "\n" not in text:
        return
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    items = {}  # line number -> its item, read when asked
    done: set[int] = set()

    def item(n: int) -> re.Match[str] | None:
        if n not in items:
            stop = starts[n + 1] - 1 if n + 1 < len(starts) else len(text)
            items[n] = _ITEM.fullmatch(text, starts[n], stop)
        return items[n]

    for start, end, _ in found:
        n = bisect.bisect_right(starts, start) - 1
        own = item(n)
        if n in done or own is None or not (own.start("value") <= start and end <= own.end("value")):
            continue
        done.add(n)
        bullet = own.group("bullet") is not None
        siblings: list[re.Match[str]] = []
        for step in (-1, 1):
            m = n + step
            while 0 <= m < len(starts) and m not in done and (other := item(m)) is not None \
                    and (other.group("bullet") is not None) == bullet:
                done.add(m)
                siblings.append(other)
                m += step
        values = [(other, other.group("value").rstrip(".,;")) for other in siblings]
        logins = any(credential_shaped(value) for _, value in values)  # one password more: a list of logins
        for other, value in values:
            # four digits are a login's in a list of logins, or named as one ("gym app: 6029"), not a rent, a
            # time or an order number beside the wifi's password ("rent: 1200", "Mon: 0900", "order: 48211734")
            if credential_shaped(value) or (_ITEM_DIGITS.fullmatch(value) and not measure(value)
                                            and (logins or _LOGS_IN_NAME.search(other.group("name")))):
                yield other.start("value"), other.start("value") + len(value), "credential"
