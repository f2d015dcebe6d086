"""A learned second opinion on whether a text holds a secret, read from the embedding the app computes for
every text anyway (SPEC F14): for the phrasings the rules have not met.

The model is a logistic regression over the bundled MiniLM's 384 dimensions, trained by
benchmarks/train_secret_classifier.py (scikit-learn) on the labelled sets and kept in classifier.json
beside this file: 384 weights, a bias and a threshold. At run time its opinion is one dot product.

It is asked only about a text the rules found nothing in, that holds what a secret's value looks like (a
run of digits, a token of letters and digits or signs, a quoted value, number words: `candidates`) and a
word a secret hangs on (a word for a secret, a thing that opens, a device, a network, a security question:
the detector's own vocabulary). Most near misses have no such word ("mi número es el 612 34 56 78",
"Zimmer 214, dritter Stock"): the embedding alone scored those high, and a postcode masked is a failure.
When it says yes, the text is sensitive and its candidates are what is masked (`find_secrets(text,
flagged=True)`): the rules still give the spans wherever they find any.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from memory.sensitive import vocabulary

WEIGHTS = Path(__file__).parent / "classifier.json"
MODEL = "minilm-l6-v2-int8"  # the embedder the weights were trained on (memory.search.embeddings)

# What a secret's value looks like, when no rule says where it is:
# - digits: three or more, in groups, perhaps with a key's sign ("4471", "44 71", "*7713#", "3-9-2");
#   not the number of a reference in capitals ("LK-4471", "SKU-2290-XL": an item, an order, a part);
#   spaced around their dashes too ("3 - 17 - 29");
_DIGITS = re.compile(r"(?<![\w.,])(?<![A-Z]-)[*#]?\d(?:(?:[ \-./–]|[ \t][\-/–][ \t])?\d){2,}[#*]?(?![\w]|[.,]\d)")
_REFERENCE = re.compile(r"[A-Z]{1,5}-\d{2,8}(?:-[A-Z0-9]{1,4})?")
# - a token of letters with two digits or more, or with digits and a sign ("Riverbend2025", "qz8R!t2"), four
#   characters at least ("2C7Y": a keypad's code);
_SHORTEST_TOKEN = 4
_TOKEN = re.compile(r"(?<!\S)[\"'(«“‘]?((?=(?:[^\s\"')»”’]*\d){2})(?=[^\s\"')»”’]*[^\W\d_])[^\s\"')»”’]{4,64}"
                    r"|(?=[^\s\"')»”’]*\d)(?=[^\s\"')»”’]*[^\W\d_])(?=[^\s\"')»”’]*[!@#$%^&*+=?~])[^\s\"')»”’]{5,64})")
# - a quoted value ("'tulip fever'", «Soleil»);
_QUOTED = re.compile(r"[\"“«‘]([^\"”»’\n]{3,40})[\"”»’]|(?<!\w)'([^'\n]{3,40})'(?!\w)")
_TRAILING = ".,;:!?"


@dataclass(frozen=True, slots=True)
class Classifier:
    weights: Any  # numpy float32 vector
    bias: float
    threshold: float  # the probability from which a text is said to hold a secret
    model: str

    def score(self, vector: Any) -> float:
        """The probability that the text of this (unit) embedding holds a secret."""
        import numpy as np

        z = float(np.dot(self.weights, np.asarray(vector, dtype=np.float32).ravel())) + self.bias
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@cache
def classifier() -> Classifier:
    """The weights, read once."""
    import numpy as np

    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return Classifier(np.asarray(data["weights"], dtype=np.float32), float(data["bias"]), float(data["threshold"]),
                      str(data["model"]))


def candidates(text: str) -> Iterator[tuple[int, int]]:
    """Where in `text` a secret's value may be, when no rule says: digit runs, tokens, quoted values, number
    words (spans of `text`, in order, perhaps overlapping)."""
    for match in _DIGITS.finditer(text):
        yield match.span()
    for match in _TOKEN.finditer(text):
        start, end = match.span(1)
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        if end - start >= _SHORTEST_TOKEN and not _ordinary(text[start:end]) and \
                not _named_an_identifier(text, match.start()):
            yield start, end
    for match in _QUOTED.finditer(text):
        group = 1 if match.group(1) is not None else 2
        yield match.span(group)
    for match in _number_words().finditer(text):
        yield match.start(), match.start() + len(match.group(0).rstrip(" \t-"))


def hangs_on(words: frozenset[str]) -> bool:
    """Whether a text's words (lower case) hold one a secret hangs on: the detector's own vocabulary."""
    return bool(words & _cues())


def worth_asking(text: str, words: frozenset[str]) -> bool:
    """Whether the classifier's opinion of `text` counts: a word a secret hangs on and something shaped like
    a value (the rules having found nothing: the caller's part). A word for a code that opens nothing ("o
    código do voo", "zip code", "promo code") is none."""
    cues = words & _cues() | _compound_codes(words)
    if cues and cues <= _CODE_WORDS and not _a_code_that_opens(text):
        return False
    if cues and cues <= _KEY_WORDS and _a_public_key(text):
        return False  # "my PGP key fingerprint is 7A3F 91C2 ...": what is public of a key
    if cues and words & _NUMBERED.words:
        # "the kids' locker numbers are 114 and 115": a thing named by its number is no cue
        cues = cues - {m.group(1).lower() for m in _named_by_number().finditer(text)}
    return bool(cues) and next(candidates(text), None) is not None


# A code named in one word with what it opens, as Swedish, Danish, Norwegian, German and Dutch write it
# ("dörrkoden", "alarmkode", "Haustürcode", "toegangscode"); not a code that opens nothing.
_COMPOUND_CODE = re.compile(r"[^\W\d_]{3,}(?:kod|koden|kode|koder|code|codes)")
_NOT_OPENING = ("post", "zip", "bar", "dress", "area", "country", "source", "promo", "qr", "morse", "pseudo", "short",
                "machine", "micro", "op", "byte", "hex", "gutschein", "rabatt", "rabat", "vorwahl", "lande", "uni",
                "en", "de", "kortings", "actie", "rabatt", "bonus", "gift", "voucher", "discount", "coupon", "kampanj")


def _compound_codes(words: frozenset[str]) -> set[str]:
    return {w for w in words if _COMPOUND_CODE.fullmatch(w) and not w.startswith(_NOT_OPENING)}


_CODE_WORDS = frozenset({"code", "codes", "código", "códigos", "codigo", "codigos", "codice", "codici", "kode", "kod"})
_CODE_WORD = re.compile(r"(?<![^\W_])(?:codes?|c[oó]digos?|codic[ei]|kode|kod)(?![^\W_])", re.I)


_KEY_WORDS = frozenset({"key", "keys"})


def _a_public_key(text: str) -> bool:
    from memory.sensitive.keywords import names_a_key_public

    return names_a_key_public(text)


def _a_code_that_opens(text: str) -> bool:
    """Whether a word for a code in `text` is not one of a code that opens nothing."""
    from memory.sensitive.keywords import ordinary_code

    return any(not ordinary_code(text, m.start(), m.end()) for m in _CODE_WORD.finditer(text))


_NUMBERED = vocabulary.LazyWords("numbered")


@cache
def _named_by_number() -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_])([^\W\d_]+)'?s?[ \t]+(?:{vocabulary.alternation('numbered', True)})(?![^\W_])",
                      re.I)


def flags(vector: Any) -> bool:
    """Whether the classifier says the text of this embedding holds a secret (ask only when worth_asking)."""
    model = classifier()
    return model.score(vector) >= model.threshold


_LAST_WORD = re.compile(r"([^\W\d_]+)[ \t]*[:#=]?[ \t]*$")
_IDENTIFIERS = vocabulary.LazyWords("identifiers")


def _named_an_identifier(text: str, at: int) -> bool:
    """Whether the word just before `at` names what follows as an identifier that opens nothing ("UUID
    9f1c2e4a-...", "commit 3e1f9a2": the data files' identifiers)."""
    last = _LAST_WORD.search(text, max(0, at - 24), at)
    return last is not None and last.group(1).lower() in _IDENTIFIERS


def _ordinary(token: str) -> bool:
    """A token shaped like a value that is something else: a link, an e-mail address, a date, a time, an
    amount (values.py's list of such things)."""
    from memory.sensitive.values import holds_an_email, measure

    return ("://" in token or holds_an_email(token) or measure(token) or token.lower().startswith("www.")
            or bool(_REFERENCE.fullmatch(token)))


@cache
def _number_words() -> re.Pattern[str]:
    words = vocabulary.alternation("number_words", True)
    return re.compile(rf"(?<![^\W_])(?:(?:{words})(?:[ \t-]+|$)){{3,}}", re.I)


@cache
def _cues() -> frozenset[str]:
    """Every word of the tables that name a secret or what a secret opens."""
    tables = ("triggers", "places", "locks", "devices", "network_words", "bare_keys",
              "label_words", "secret_keys", "answer_stems", "code_qualifiers", "services", "banks")
    found = {w.lower() for table in tables for entry in vocabulary.entries(table)
             for w in re.findall(r"[^\W\d_]+", entry) if len(w) > 2}
    return frozenset(found | {"code", "codes", "código", "codigo", "codice", "kode", "kod"})
