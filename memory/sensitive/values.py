"""What a credential looks like when no keyword stands right before it: "New!Pw37", "W1fi!Key55",
"Qx7hunter22". records.py takes such a value anywhere in a sentence or a record that holds a word for a
secret ("I typed Typed!Pw39 into the password field"); shapes.py after a user name ("joe:Colon!Cred45
for the ftp").

A credential shape is 6 to 64 characters without a space, letters and digits, and a symbol, or both
cases, or digits between letters. Many ordinary things have that shape too, and are not one: a date,
a time, an amount or a quantity ("250ml", "$1,200.50"), a version ("v2.3.1-beta", "python3.11"), a
path or a file name, an e-mail address, a link or a domain, a UUID or a hash, a product or model code
in capitals ("WH-1000XM4", "SKU-4471-XL"), a name with a number ("iPhone14", "PlayStation5"), an
identifier from code ("x86_64", "list[0]", "config.key2"), a hyphenated phrase ("3-year-old"), a phone
number with an extension, a hashtag or a handle.
"""
from __future__ import annotations

import re

# Quotes and brackets around a value, and the sentence's own punctuation after it.
_AROUND = "\"'`“”‘’«»()[]{}<>*_"
_AFTER = ".,;:?" + _AROUND

_UNITS = (r"k|m|bn|mn|%|eur|euros?|usd|gbp|chf|kg|g|mg|µg|ml|cl|dl|l|cm|mm|km|m|mi|ft|in|lbs?|oz|tsp|tbsp|cups?|"
          r"x|h|hrs?|hours?|mins?|minutes?|secs?|s|ms|gb|mb|kb|tb|gib|mib|ghz|mhz|hz|w|kw|kwh|mah|v|px|pt|dpi|fps|"
          r"°c|°f|°|c|f|st|nd|rd|th|am|pm|yo|yrs?|years?|days?|weeks?|months?|pcs|pc|sq|m2|m²|km/h|mph|kmh|rpm|"
          r"[kmgt]?bits?/s|[kmgt]?bps|[kmgt]b/s|[kmgt]?bits?|[kmgt]?bytes?")
_EMAIL = r"[^@\s]+@[^@\s]+\.[a-z]{2,}"
_NOT_A_CREDENTIAL = re.compile(
    _EMAIL +                                                      # an e-mail address
    r"|[a-z][a-z0-9+.-]*://\S+|www\.\S+"                          # a link
    r"|(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|edu|gov|co|uk|de|fr|es|it|nl|eu|info|biz|me|tv|ai|ly|us|ca|au)"
    r"(?:/\S*)?"                                                  # a domain
    r"|[/~.]\S*/\S*|[a-z]:\\\S*|\S*\\\S*\\\S*"                    # a path
    r"|\S+\.(?:pdf|docx?|xlsx?|pptx?|odt|txt|csv|tsv|json|xml|ya?ml|toml|ini|cfg|conf|log|md|rst|py|js|ts|tsx|jsx|"
    r"html?|css|java|kt|go|rs|rb|php|cs|cpp|c|h|sh|sql|db|sqlite|jpe?g|png|gif|svg|webp|heic|mp3|mp4|mov|avi|mkv|"
    r"wav|flac|zip|tar|gz|tgz|bz2|7z|rar|exe|msi|dmg|apk|ipa|iso|deb|rpm|whl|epub|mobi)"  # a file name
    r"|\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?"  # an ISO date
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2}[-/ ]?[a-z]{3,9}[-/ ]?\d{2,4}|[a-z]{3,9}[-/]?\d{1,2}[-/,]\d{2,4}"
    r"|\d{1,2}[:.h]\d{2}(?::\d{2})?(?:am|pm|h|uhr)?|\d{1,2}(?:am|pm)(?:-\d{1,2}(?:am|pm))?"  # a time
    rf"|[$€£¥₹]\d[\d.,]*(?:{_UNITS})?|\d[\d.,/]*(?:{_UNITS})(?:[-–/]\d[\d.,]*(?:{_UNITS})?)?"  # an amount, a quantity
    r"|[$€£¥₹]?\d[\d.,]*[-–]\d[\d.,]*[$€£¥₹%]?"                  # a range
    r"|v?\d+(?:\.\d+)+(?:[-+_.~]?[a-z0-9]+)*|[a-z]+[-_]?\d+(?:\.\d+)+(?:[-+_.][a-z0-9]+)*"  # a version
    r"|v\d+(?:[-+_.][a-z0-9]+)*"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{7,64}|0x[0-9a-f]+"  # a UUID, a hash
    r"|(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}"                         # a MAC address
    r"|\+?\d[\d() .-]{5,}(?:x|ext\.?)\d{1,5}"                    # a phone number with its extension
    r"|[#@]\S+",                                                  # a hashtag or a handle
    re.I)
# A date, a time, an amount or a quantity, a version: what a value after "secret" or a PIN's
# neighbour often is, and a secret is not ("the secret is 72h of fermentation", "at 10:30am").
_MEASURE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?z?)?|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}"
    r"|\d{1,2}[:.h]\d{2}(?::\d{2})?(?:am|pm|h|uhr)?|\d{1,2}(?:am|pm)"
    rf"|[$€£¥₹]\d[\d.,]*(?:{_UNITS})?|\d[\d.,/]*(?:{_UNITS})"
    r"|v\d+(?:\.\d+)+(?:[-+._][a-z0-9]+)*|\d+\.\d+\.\d+(?:[-+.][a-z0-9]+)*", re.I)
# In capitals: a product, model, part or order code ("WH-1000XM4", "SKU-4471-XL", "RTX4090").
_CODE_IN_CAPITALS = re.compile(r"[A-Z0-9]+(?:[-/.#][A-Z0-9]+)*")
# A name with a number: "iPhone14", "PlayStation5", "1Password", "Windows11".
_CAPITALISED_NAME = r"\d*[a-z]?(?:[A-Z][a-z]+)+\d*"
_NAME_WITH_NUMBER = re.compile(rf"{_CAPITALISED_NAME}|[a-z]+\d+")
_PRODUCT = re.compile(rf"{_CAPITALISED_NAME}|[A-Z0-9]+(?:[-/.#][A-Z0-9]+)*")
# An identifier from code: "x86_64", "list[0]", "config.key2", "foo(bar1)", "a=b1".
_CODE_IDENTIFIER = re.compile(r"(?-i:[a-z0-9]+(?:_[a-z0-9]+)+|[A-Z0-9]+(?:_[A-Z0-9]+)+)|"
                              r"[^\s]*(?:\(\S*\)|\[\S*\]|::|->|=)[^\s]*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", re.I)
# Words and numbers joined by hyphens: "3-year-old", "24-hour", "New-York-2024", "mp3-player", "gpt-4o-mini",
# "Villa-5G".
_PART = r"(?:[A-Za-z][a-z]*|\d+|[a-z]{1,4}\d{1,3}|\d{1,3}[A-Za-z]{1,3})"
_HYPHENATED = re.compile(rf"{_PART}(?:-{_PART})+")
_NAMED = re.compile(r"[A-Za-z][\w.-]{0,31}[:=](?=[^\s/])")
_INTERLEAVED = re.compile(r"[^\W\d_]\d+[^\W\d_]")


def strip_value(token: str) -> tuple[int, int]:
    """Where the value of a token written in a sentence starts and ends: a name before it, quotes,
    brackets and the sentence's punctuation taken off ("'New!Pw37'." -> New!Pw37, "joe:X" -> X)."""
    start, end = 0, len(token)
    named = _NAMED.match(token)
    if named:
        start = named.end()  # "joe:Colon!Cred45", "pw=Abc!123": the value after its name
    while start < end and token[start] in _AROUND:
        start += 1
    while end > start and token[end - 1] in _AFTER:
        end -= 1
    return start, end


def holds_an_email(value: str) -> bool:
    """Whether `value` holds an e-mail address ("joe@x.com", "<joe@x.com>"); an @ alone is no address: a
    password may hold one ("Bl4ckC@t")."""
    return "@" in value and _EMAIL_IN.search(value) is not None


_EMAIL_IN = re.compile(_EMAIL, re.I)


def measure(value: str) -> bool:
    """Whether `value` is a date, a time, an amount, a quantity or a version ("72h", "10:30am", "$4.99")."""
    return bool(_MEASURE.fullmatch(value))


def names_a_product(value: str) -> bool:
    """Whether `value` is written as a product's name: capitalised with a number ("Outlook365",
    "iPhone14") or in capitals ("WPA2", "IMAP4"); a password is seldom written so."""
    return bool(_PRODUCT.fullmatch(value))


def credential_shaped(value: str) -> bool:
    """Whether `value` (one token, stripped) has a credential's shape and is none of the ordinary
    things of that shape (the module's docstring)."""
    if not 6 <= len(value) <= 64:
        return False
    letters = digits = symbols = 0
    upper = lower = False
    for c in value:
        if c.isalpha():
            if not c.isupper() and not c.islower():
                return False  # a script without case (CJK, Arabic, Indic): a sentence without spaces, not a value
            letters += 1
            upper = upper or c.isupper()
            lower = lower or c.islower()
        elif c.isdigit():
            digits += 1
        elif c.isspace():
            return False
        else:
            symbols += 1
    if not letters or not digits:
        return False
    if not (symbols or upper and lower or _INTERLEAVED.search(value)):
        return False
    return not (_NOT_A_CREDENTIAL.fullmatch(value) or _CODE_IN_CAPITALS.fullmatch(value)
                or _NAME_WITH_NUMBER.fullmatch(value) or _CODE_IDENTIFIER.fullmatch(value)
                or _HYPHENATED.fullmatch(value))


_JOINERS = re.compile(r"[ \-./–]")  # an en dash too: "3–1–5", as a phone's keyboard makes it
_RUNS = re.compile(r"[^\W\d_]+|\d+")


def only_digits(token: str) -> bool:
    """Whether a token is digits alone, in groups or not ("4471", "07 10", "3-1-5")."""
    return _JOINERS.sub("", token).isdigit()


def alike(said: str, value: str) -> bool:
    """Whether `said` has the shape of the secret `value`: as many digits ("5678" of "1234"), most of its
    characters first ("GreenOtter2292" of "GreenOtter2291"), or its runs of letters, digits and signs in the
    same order with a digit or a sign among them ("red-fish-43" of "blue-fish-42")."""
    if only_digits(said) and only_digits(value):
        return len(_JOINERS.sub("", said)) == len(_JOINERS.sub("", value)) >= 3
    if only_digits(said) or only_digits(value):
        return False
    common = 0
    for a, b in zip(said.lower(), value.lower(), strict=False):
        if a != b:
            break
        common += 1
    if common >= max(5, len(value) - 3) and abs(len(said) - len(value)) <= 2:
        return True
    shape = _shape(value)
    return len(shape) >= 3 and shape == _shape(said) and abs(len(said) - len(value)) <= 3 and any(
        c.isdigit() for c in said)


def _shape(token: str) -> str:
    """A token's runs: "a" a run of letters, "9" of digits, each sign as itself ("blue-fish-42": "a-a-9")."""
    return _RUNS.sub(lambda m: "9" if m.group(0)[0].isdigit() else "a", token)

