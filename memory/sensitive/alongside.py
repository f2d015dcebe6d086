"""What stands beside a secret the detectors found, and is one for being there (blind round 9, issue 42):

- the next values of a list of the same kind: "PIN 6203 for the Halifax card, 9931 for the Monzo one",
  "backup codes 618204 / 739550 / 902117": after a value of digits, perhaps what it is for, then a comma, a
  slash, "and", the same number of digits, ending their clause or followed by what they are for;
- the number that logs in beside a password: "online banking: customer number 88120436, passcode Wren1953"
  (the data files' `login_numbers`), in the same line as a secret found.

Read only beside what was found, so a text without a secret costs nothing here.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from memory.sensitive import vocabulary

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
    lines = {text.rfind("\n", 0, start) + 1 for start, _, kind in found if kind in _LOGS_IN}
    for line in lines:
        stop = text.find("\n", line)
        for match in _LOGIN_NUMBER.finditer(text, line, len(text) if stop < 0 else stop):
            yield match.start("value"), match.end("value"), "credential"
