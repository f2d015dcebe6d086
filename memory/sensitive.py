"""Secrets are removed from every text sent to a model (the chat prompt, consolidation, titles).

One function, one table of (pattern, replacement) pairs, tested with positives and near misses
(tests/test_security.py). A replacement keeps the words around the secret ("password for the guest
network is [REDACTED]") so the model still knows a secret exists; the chat prompt names where it
lives instead ("[secret in memory #12]"), and the user gets the value back locally.
"""
from __future__ import annotations

import re
from collections.abc import Callable

MASK = "[REDACTED]"
# A secret word, also inside an identifier: DB_PASSWORD, client_secret, AWS_SECRET_ACCESS_KEY.
_KEYWORD = (r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+_)*(?:passwords?|passwd|passwort|pwd|pw|pins?(?:\s+(?:code|number|no\.?))?|passcodes?|"
            r"passphrases?|secrets?|api[\s_-]?keys?|access[_-]?keys?|tokens?)(?:_[A-Za-z0-9]+)*(?![A-Za-z0-9])")
# Words that follow "the password is" in ordinary sentences, not secrets ("the pin is in the drawer").
_NOT_A_VALUE = (r"(?!(?:in|on|at|the|a|an|to|for|not|required|expired|missing|wrong|correct|incorrect|invalid|valid|"
                r"set|empty|blank|time|here|there|ready|same|different|changed|new|old|strong|weak|secure|saved|"
                r"stored|written|somewhere|below|above|attached|see|ask|check|unknown|forgotten|lost|hidden|"
                r"private|secret|safe|fine|ok|okay|done|needed|case-sensitive|too)\b[.,;!?]?(?:\s|$))")
# "the password is the word swordfish": the value comes after these words.
_LEAD_IN = r"(?:the\s+(?:word|number|code|phrase|digits)\s+)?"
# After "password:" the value runs to the end of the clause ("secret: open sesame", "my pin: 12 34 56"),
# or is quoted whole ("password: \"correct horse battery staple\"").
_CLAUSE = r"(?!\[)(?:\"[^\"\n]{1,120}\"|'[^'\n]{1,120}'|[^\s,;][^,;\n]{0,80}?(?=\s*(?:[,;\n]|[.!?](?:\s|$)|$)))"
# A value that looks like a secret: has a digit or a symbol, or is long.
_SECRETISH = r"(?=\S*[\d!@#$%^&*()_+=\[\]{}|;:,.<>?/~-])\S{3,}|\S{12,}"
# Abbreviations nobody writes in prose: whatever follows them is the secret.
_ABBREVIATION = r"(?<![A-Za-z0-9])(?:pw|pwd|passwd)(?![A-Za-z0-9])"

# (pattern, replacement); {mask} in a replacement is the placeholder of this call.
RULES: list[tuple[re.Pattern[str], str]] = [
    # Private key blocks, whole.
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)", re.S), "{mask}"),
    # Credentials in a connection string: postgres://admin:S3cr3tPass@host keeps the user and host (the
    # password may hold an @ itself; an empty user is fine, redis://:pass@host).
    (re.compile(r"\b([a-z][a-z0-9+.-]*://[^\s:/@]*:)(\S+)(@[^\s@/]+)", re.I), r"\g<1>{mask}\g<3>"),
    # "password for the guest network is hunter2", "the pin is 4471", "my password's hunter4"; words
    # between the keyword and "is" must say whose secret it is ("for the ..."), so "the password
    # manager app is great" stays as it is.
    (re.compile(rf"(?i)({_KEYWORD}(?:\s+(?:for|to|of|on|at|in)\b[^\n;=]{{0,80}}?)?(?:\s+(?:is|was|are|=)|'s):?\s+"
                rf"{_LEAD_IN}){_NOT_A_VALUE}(\S+?)(?=[,;]?(?:\s|$)|\.(?:\s|$))"), r"\g<1>{mask}"),
    # "alarm passcode for the front door: 9911" (the whole clause after the colon).
    (re.compile(rf"(?i)({_KEYWORD}\s+(?:for|to|of|on|at|in)\b[^\n;=:]{{0,80}}?:\s*){_NOT_A_VALUE}({_CLAUSE})"),
     r"\g<1>{mask}"),
    # "passcode for door 8823": a value with a digit that ends the clause.
    (re.compile(rf"(?i)({_KEYWORD}\s+(?:for|to|of|on|at)\s+[^\n;=:,\[]{{0,40}}?\s)(?!\[)(\S*\d\S*?)(?=[.,;!?]?(?:\s*$|\s*\n))"),
     r"\g<1>{mask}"),
    # "the password, hunter2, works".
    (re.compile(rf"(?i)({_KEYWORD}\s*,\s*){_NOT_A_VALUE}([^\s,;]+)(?=\s*,)"), r"\g<1>{mask}"),
    # "pw: hunter2", "password=hunter2", "DB_PASSWORD=hunter3", "password -> hunter2".
    (re.compile(rf"(?i)({_KEYWORD}\s*(?:[:=]|->|=>)\s*){_NOT_A_VALUE}({_CLAUSE})"), r"\g<1>{mask}"),
    # "username admin pwd admin": after an abbreviation the next word is the secret, whatever it is.
    (re.compile(rf"(?i)({_ABBREVIATION}\s+)(?!is\b|was\b|\[)(\S+)"), r"\g<1>{mask}"),
    # "Password hunter2": a keyword directly followed by something that looks like a secret.
    (re.compile(rf"(?i)({_KEYWORD}\s+)({_SECRETISH})"), r"\g<1>{mask}"),
    # Key shapes: Anthropic/OpenAI, GitHub, Slack, AWS, Google, Stripe, bearer and basic auth, JWTs.
    (re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_\-]{16,}"), "{mask}"),
    (re.compile(r"\b(?:ghp|gho|ghs|ghu|ghr|github_pat)_[A-Za-z0-9_]{20,}"), "{mask}"),
    (re.compile(r"\bxox[abpr]-[A-Za-z0-9\-]{10,}"), "{mask}"),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "{mask}"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), "{mask}"),
    (re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"), "{mask}"),
    (re.compile(r"(?i)\b((?:bearer|basic)\s+)[A-Za-z0-9._~+/\-]{12,}=*"), r"\g<1>{mask}"),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"), "{mask}"),
    # Long random strings with upper and lower case and digits (an AWS secret key, a generated
    # password); lower-case hex such as a git commit id is not one, nor a CamelCase identifier.
    (re.compile(r"(?<![\w/+=-])(?!(?:[A-Z][a-z]*)+\d{0,2}(?![\w/+=-]))(?=[A-Za-z0-9+/_\-]*\d)"
                r"(?=[A-Za-z0-9+/_\-]*[a-z])(?=[A-Za-z0-9+/_\-]*[A-Z])[A-Za-z0-9+/_\-]{32,}={0,2}(?![\w/+=-])"),
     "{mask}"),
]


def redact(text: str, mask: str | Callable[[str], str] = MASK) -> str:
    """`text` with every secret replaced by `mask`, or by what `mask(secret)` returns (a numbered
    placeholder whose value the caller keeps, to put it back into what the model writes)."""
    if not text:
        return text
    for pattern, replacement in RULES:
        if pattern.search(text):  # most texts hold no secret
            text = pattern.sub(lambda match, r=replacement: _replace(match, r, mask), text)
    return text


def _replace(match: re.Match[str], replacement: str, mask: str | Callable[[str], str]) -> str:
    """The match with its secret masked: the replacements keep group 1 before it and group 3 after."""
    before = match.group(1) if replacement.startswith("\\g<1>") else ""
    after = match.group(3) if replacement.endswith("\\g<3>") else ""
    whole = match.group(0)
    secret = whole[len(before):len(whole) - len(after)]
    return before + (mask(secret) if callable(mask) else mask) + after


def has_secret(text: str) -> bool:
    return redact(text, "\x00") != text
