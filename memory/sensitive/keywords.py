"""Values led by a word that names a secret: "the wifi password is hunter2", "PIN-4471", "Der Türcode
ist 8823", "mot de passe : soleil42", "my pin is four four seven one", "passwords: gmail x, bank y".

A keyword is strong when it names nothing but a secret (password, PIN, passcode, door code, Passwort,
contraseña, senha, ...): whatever value follows it is taken, unless the words after it read as prose
("my pin is in the drawer", "the password is required"). A keyword is weak when it also has ordinary
senses (secret, token, API key, combination, clave, chiave): its value must look like one (a digit, a
symbol, number words) unless it is a label ("secret: open sesame").

How a value follows its keyword, in the order tried:
- a copula or a label sign, perhaps after whose secret it is: "password for the guest wifi is X",
  "PIN: X", "Passwort lautet X", "la clave del wifi es X", "password changed to X";
- "to" after a verb of changing before the keyword: "I changed my password to X", "cambié mi
  contraseña a X"; the German verb-final form "Passwort auf X geändert";
- an apposition: "the password, hunter2, works";
- the value right after the keyword: "PIN-4471", "Password hunter2", "gate code 2580#", "wifi
  password swordfish" (a last word that is not an ordinary follower such as "again");
- at the end of its clause after a phrase saying what it opens: "passcode for door 8823", "the gym
  locker pin for tomorrow 4471";
- before the keyword: "4471 is my PIN".
The value runs to the end of its clause, so a value of several words ("correct horse battery staple",
"44 71", "four four seven one") is taken whole, and a plural keyword takes its list.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from memory.sensitive import vocabulary
from memory.sensitive.values import holds_an_email, measure

# No letter or digit just before, nor a symbol of a password: the "Pw" of "T4ble!Pw" is no keyword.
_W = r"(?<![^\W_])(?<![!@$%^&*+=~?\\])"
_E = r"(?![^\W_])"    # none just after

# The keywords, read from the data files (vocabulary/*.toml) at the first use of the pattern: words that name
# nothing but a secret (strong), words with ordinary senses too (weak), and a code named by what it opens:
# "door code", "the garage door code", "2FA backup codes" (code_qualifiers), "the code for the back door",
# "code de la porte" (code_nouns, of, determiners, code_objects), "key for the storage unit".
def _keyword_pattern() -> str:
    v = vocabulary.alternation
    objects = "|".join(sorted({*vocabulary.entries("code_objects"), *vocabulary.entries("places")}, key=len,
                              reverse=True))
    strong = (f"{v('strong')}|"
              rf"(?:{v('code_qualifiers', True)})(?:[ -](?!(?:the|a|an|to|of|for|my|your|our|is|was)\b)[^\W\d_]+)?"
              rf"[ -]?codes?|"
              rf"(?:{v('code_nouns')})\s+(?:{v('of')})(?:\s+|(?<=['’]))(?:(?:{v('determiners')})(?:\s+|(?<=['’])))?"
              rf"(?:[^\W\d_][\w'’]*\s+){{0,2}}"
              rf"(?:{objects})")
    # "the code to get into Mum's building", "the code to open the bin store", "el código para entrar al
    # portal": a code said to open or let in is a secret whatever it opens (up to the copula or the sign).
    strong += (rf"|(?:{v('code_nouns')})\s+(?:{v('code_purposes')})\s+(?:{v('opens')})(?![^\W_])"
               rf"(?:[ \t]+[^\W\d_][\w'’-]*){{0,5}}?(?=[ \t]*(?::|=|->|[ \t](?:{v('copulas')})(?![^\W_])))")
    weak = (f"{v('weak')}|"
            rf"keys?\s+(?:{v('of')})(?:\s+|(?<=['’]))(?:(?:{v('determiners')})(?:\s+|(?<=['’])))?"
            rf"(?:[^\W\d_]+\s+){{0,2}}(?:{objects})")
    return rf"(?P<cjk>{v('strong_unspaced')})|{_W}(?:(?P<strong>{strong})|(?P<weak>{weak})){_E}"


_KEYWORD = vocabulary.lazy_pattern(_keyword_pattern, re.I)

# "I changed my password to X", "cambié mi contraseña a X", "mudei a senha para X".
_CHANGE_VERB = re.compile(
    r"(?<![^\W_])(?:chang(?:e|ed|es|ing)|set|sets|setting|reset(?:s|ting)?|updat(?:e|ed|es|ing)|switch(?:ed|es|ing)?|"
    r"made|make|chose|choose|picked|turned|cambi\w*|mud(?:ei|ou|ar|amos|aram)|alter\w*|chang[ée]\w*|modifi\w*|"
    r"impost\w*|veränder\w*|änder\w*|setz\w*|verander\w*|wijzig\w*|gewijzigd|stel\w*)(?![^\W_])[^\n.;]{0,40}$",
    re.I)
_TO = re.compile(r"\s+(?:to|as|into|a|para|pra|en|pour|à|in|naar|auf|zu|на)\s+", re.I)
_COPULA = re.compile(
    r"(?:\s*[?,]\s*(?:it's|it’s|it is|that's|its|c'est|es ist)(?![^\W_])|"
    r"[\"'”’]?\s*(?::|->|=>|→|⇒|➜|➔|⟶|=|—|–|：)|[ \t]+--?[ \t]+|"
    r"\?(?=[ \t])|\s*(?:は|が|는|은|이|가|是|为|為)|"
    r"'s|’s|\s+(?:"
    r"is|was|are|were|(?:will|would|should|shall)\s+be|used\s+to\s+be|remains|stays|became|becomes|has become|"
    r"(?:(?:was|has been|have been|got|is|are|wurde|ist|a été|fue|ha sido|è stat[ao]|é|foi|werd|is)\s+)?"
    r"(?:changed|set|reset|updated|switched|geändert|gesetzt|changé|changée|modifié|modifiée|cambiad[ao]|"
    r"cambiat[ao]|veranderd|gewijzigd|mudad[ao]|alterad[ao])\s+(?:to|as|auf|zu|in|en|pour|à|a|para|naar)|"
    r"ist|lautet|lauten|sind|war|waren|wird|heißt|est|c'est|sont|était|sera|es|son|era|será|sería|è|sono|sarà|"
    r"zijn|wordt|é|são|это|jest|är|er|je|είναι|là|adalah|है|هي|هو|היא|הוא)(?![^\W_]))", re.I)
_LEAD_IN = vocabulary.lazy_pattern(lambda: (
    r"\s*:?\s*(?:(?:now|still|just|simply|actually|currently|jetzt|nun|noch|immer noch|maintenant|désormais|"
    rf"ahora|ora|adesso|nu|agora|{vocabulary.alternation('earlier')})\s+)?:?\s*"
    r"(?:(?:the|a|das|le|la|el|il|het|o)\s+(?:word|number|code|phrase|digits|"
    r"letters|wort|zahl|mot|nombre|palabra|número|parola|numero|woord|nummer|palavra)\s+)?"
    # an article before digits: "es el 2468", "c'est le 2580", "è il 5521", "é o 3377"
    r"(?:(?:the|el|la|le|il|lo|o|a|de|het|die|der|das)\s+(?=[*#]?\d))?"), re.I)
# Whose secret it is, between the keyword and the copula: "for the guest network", "der EC-Karte" (the
# prepositions are the data files').
_WHOSE = vocabulary.lazy_pattern(lambda: (
    rf"\s+(?:{vocabulary.alternation('prepositions', True)})(?![^\W_])(?:(?![.!?]\s)[^\n;=:,]){{0,80}}?"
    rf"(?=\s*(?::(?![\d/])|=|->|→|⇒|➜|➔|[-–—](?=[ \t])|\bis\b|\s(?:is|was|are|were|ist|lautet|"
    rf"sind|war|est|c'est|sont|es|son|era|è|sono|zijn|é|são|will be|är|er|je|là|adalah)(?![^\W_])"
    rf"|\s*,\s*(?:which|that|who|die|das|den|que|qui|che|dat)\s"
    rf"|\s*[,?]\s*(?:it's|it’s|it is|that's|c'est|c’est|es ist)(?![^\W_])))"), re.I)
_FILLER = vocabulary.lazy_pattern(lambda: (
    r"\s*\([^()\n]{0,60}\)|"  # "router password (printed on the back) is X"
    # "my password for the bank, which I changed last week, is X"
    r"\s*,\s*(?:which|that|who|die|das|den|que|qui|che|dat)\s[^\n;,]{0,60},(?=\s*\S)|"
    # a word that qualifies it: "password itself is X", "contraseña antigua Luna2019", "kode PIN saya"
    rf"\s+(?:{vocabulary.alternation('qualifiers', True)})(?![^\W_])|"
    # a few words said of it before the copula when digits follow it: "alarm code as of today is 4412", "the
    # code they texted me was 883 104" (four digits or more, no year)
    r"(?:[ \t]+[^\W\d_][\w'’]*){1,4}?"
    rf"(?=[ \t]+(?:{vocabulary.alternation('copulas')})[ \t]+[*#]?(?!(?:19|20)\d\d(?![ .-]?\d))"
    r"\d(?:[ -]?\d){3,}(?![\w/:]|[.,]\d))|"
    # whose it is in the genitive: "пин-код карты 5821", "ПІН картки: 7812"
    r"\s+[\u0400-\u04ff][\u0400-\u04ff'’]{2,}(?=\s*[:—–-]?\s*\d)"), re.I)

# Numbers said as words, two or more: "four four seven one".
_NUMBER_WORDS = vocabulary.lazy_pattern(
    lambda: rf"(?:(?:{vocabulary.alternation('number_words', True)})(?:[\s-]+|$)){{2,}}", re.I)
_DIGIT_GROUPS = re.compile(r"\d+(?:[ \-./]\d+)*")

# Words that start prose, never a value: "in the drawer", "the same as before", "something stronger".
_HARD_STOP = vocabulary.LazyWords("hard_stop")
# Words that describe a secret instead of being one, when alone: "the password is wrong".
_SOFT_STOP = vocabulary.LazyWords("soft_stop")
# Words that say what a secret is made of: "12 characters long", "4 digits".
_DESCRIPTOR = vocabulary.LazyWords("descriptors")
# Words after which a value of several words stops: "hunter2 for the wifi", "4471 until Friday".
_CUT = vocabulary.LazyWords("cut")
# A polite ending written onto a value: "パスワードはhunter2です".
_CJK_ENDING = re.compile(r"(?:です|だ|입니다|이에요|예요)[。.]?$")
# "and" ends a value when what follows starts another clause: "hunter2 and my PIN is 4471".
_AND = vocabulary.LazyWords("and")
_AFTER_AND = vocabulary.LazyWords("after_and")
# Last words that follow a keyword in ordinary sentences: "I forgot my password again".
_FOLLOWERS = vocabulary.LazyWords("hard_stop", "soft_stop", "followers")
FOLLOWERS = _FOLLOWERS  # what labels.py reads too
_ABBREVIATIONS = vocabulary.LazyWords("abbreviations")
_MONEY = re.compile(r"[$€£¥]\d[\d.,]*|\d[\d.,]*[$€£¥%]|\d+(?:[.,]\d\d)")
_MONEY_WORDS = vocabulary.LazyWords("money_words")
_SHARE = re.compile(r"[$€£¥]\d[\d.,]*|\d[\d.,]*[$€£¥%]")
# Passes that are tickets, not secrets: "boarding pass", "ski pass".
_TICKETS = vocabulary.LazyWords("tickets")
_PLURAL = re.compile(r"(?<!pas)(?<!s)s$|wörter$|woorden$", re.I)
_SYMBOL = re.compile(r"[!@#$%^&*_+=~?/\\|<>{}\[\]]")
_CLAUSE_END = re.compile(r"\n|;|,(?=\s|$)|[.?](?=\s|$)|\s[(\[]|\s[-–—]\s|\s{3,}(?=\S)")
_CLAUSE_END_LIST = re.compile(r"\n|;|[.?](?=\s|$)|\s[(\[]|\s[-–—]\s")
_TRAILING = ".,;:)]}\"'»”’?"
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "„": "“", "`": "`"}


@lru_cache(maxsize=512)
def _kind(keyword: str) -> str:
    k = keyword.lower()
    if re.search(r"pin|puk|geheimzahl|geheimnummer|暗証|пин|пін|पिन|পিন|పిన్|识别|識別|الرقم السري|پن", k):
        return "pin"
    if re.search(r"pattern|muster", k):
        return "code"
    if re.search(r"cvv|cvc", k):
        return "card"
    if re.search(r"seed|recovery (?:phrase|words)|mnemonic|wallet|récupération|semilla|recupero|herstelzin|"
                 r"recuperação|backup phrase", k):
        return "recovery_phrase"
    if re.search(r"combina|kombination|combinaison|combinatie|combo", k):
        return "combination"
    if re.search(r"code|código|codice|digicode|keypad", k):
        return "code"
    if re.search(r"clave", k):
        return "credential"
    if re.match(r"keys?\s", k):  # "key for the storage unit lockbox: 4312"
        return "code"
    if re.search(r"token", k):
        return "token"
    if re.search(r"key|schlüssel|clé|clave|chiave|sleutel|chave", k):
        return "key"
    return "credential"


_LABELLED_DIGITS = re.compile(r"(?<![^\W_])(?:safe|padlock|lock|tresor|coffre|cassaforte|caja fuerte|kluis|cofre)"
                              r"\s*[:=]\s*(\d+(?:[ \-./]\d+)*)(?![\d:])", re.I)


# Every keyword holds one of these words (or ends like one: "Türcode", "WLAN-Passwort"), or one of the words
# written without spaces: a text without any is not scanned for keywords, and a long text only around them.
_TRIGGERS = vocabulary.LazyWords("triggers")
_TRIGGER_ENDING = vocabulary.lazy_pattern(lambda: rf"(?:{vocabulary.alternation('trigger_endings', True)})(?![^\W\d_])",
                                          re.I)
_TRIGGER_TEXT = vocabulary.lazy_pattern(lambda: "|".join(map(re.escape, vocabulary.entries("trigger_texts"))))
# Look-alike spellings of "password" that the words above do not hold: "passw0rd", "p a s s w o r d".
_LOOKALIKE = re.compile(r"p\W?[a@4]\W?[s$5]\W?[s$5]\W?w\W?[o0ö]\W?r\W?d", re.I)
_SAFES = vocabulary.LazyWords("safes")
# A line that lists secrets: "hunter2;pin is 4471" (the first item has no keyword of its own).
_LIST_HEAD = re.compile(r"(?:^|\n)[ \t]*([^\s;,]+)[ \t]*[;,][ \t]*(?=\S)")


def _keywords(text: str, words: frozenset[str]) -> Iterator[re.Match[str]]:
    """The keywords of `text`, read only around the words they are made of."""
    triggers = {w for w in words if w in _TRIGGERS or w.endswith(vocabulary.entries("trigger_endings"))}
    windows = [(m.start() - 50, m.end() + 80) for w in triggers
               for m in re.finditer(rf"(?<![^\W_]){re.escape(w)}", text, re.I)]
    windows += [(m.start() - 50, m.end() + 80) for needle in vocabulary.entries("trigger_texts") if needle in text
                for m in re.finditer(re.escape(needle), text)]
    if not triggers:
        windows += [(m.start() - 50, m.end() + 80) for m in _LOOKALIKE.finditer(text)]
    merged: list[list[int]] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([max(0, start), end])
    for start, end in merged:
        end = _end_of(_WORD_REST, text, min(end, len(text)))  # never cut a word in two
        yield from _KEYWORD.finditer(text, start, end)


@lru_cache(maxsize=8)
def triggered(text: str, words: frozenset[str]) -> bool:
    """Whether `text` (a view) holds a word that words for a secret are made of (cheap: a set
    intersection and three scans; remembered for the few texts read last, as keywords.py and
    records.py both ask)."""
    return bool(words & _TRIGGERS or _TRIGGER_ENDING.search(text)
                or ("p/w" in text if text.isascii() else _TRIGGER_TEXT.search(text)) or _LOOKALIKE.search(text))


def names_a_secret(text: str) -> bool:
    """Whether a short text (a header, a key, a title, a record) holds a word for a secret."""
    return _KEYWORD.search(text) is not None


def find(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each keyword-led value in `text` (the view: annotations blanked)."""
    lowered = text.lower()
    if any(stem in lowered for stem in vocabulary.entries("answer_stems")):
        yield from _answers(text, words)
    if words & _QUESTION_LABEL_WORDS:
        yield from _asked_and_answered(text)
    if "?" in text:
        yield from _asked_as_such(text)
    if words & _negation_words():
        yield from _denied_then_given(text)
    if not triggered(text, words):
        return
    for head in _LIST_HEAD.finditer(text):
        keyword = _KEYWORD.match(text, head.end())
        if keyword and _secretish(head.group(1)) and _value_after(
                text, keyword.end(), keyword.group("weak") is None, False, False, changed=False):
            yield head.start(1), head.end(1), "credential"
    if words & _SAFES:
        for label in _LABELLED_DIGITS.finditer(text):
            if sum(c.isdigit() for c in label.group(1)) >= 3:
                yield label.start(1), label.end(1), "combination"
    for keyword in _keywords(text, words):
        strong = keyword.group("weak") is None and not _asked(text, keyword)
        word = keyword.group(0)
        if word.lower() == "pass":
            ticket = re.search(r"([^\W\d_]+)[ \t-]*\Z", text[max(0, keyword.start() - 30):keyword.start()])
            if ticket and ticket.group(1).lower() in _TICKETS:
                continue
        if _CODE_FIRST.match(word) and ordinary_code(text, keyword.start(), keyword.end()):
            continue  # "the zip code for the new office is 94107", "le code du vol": a code that opens nothing
        if not strong and _WHOSE_COUNTED.match(text, keyword.end()) and not _PLACE_NEAR.search(
                text, keyword.end(), _end_of(_WHOSE_COUNTED, text, keyword.end())):
            continue  # "the combinations of 3 dice are 216": of things counted, not of a lock
        kind = _kind(word)
        plural = bool(_PLURAL.search(word))
        found = _value_after(text, keyword.end(), strong, plural, word.lower() in _ABBREVIATIONS,
                             changed=bool(_CHANGE_VERB.search(text, max(0, keyword.start() - 60), keyword.start())),
                             compound=bool(_ARTICLE_BEFORE.search(text, max(0, keyword.start() - 12), keyword.start())),
                             of_digits=kind in _MADE_OF_DIGITS, phrase="phrase" in word.lower())
        if found:
            changed_it = _CHANGED_IT.match(text, found[1])
            again = (_clause(text, changed_it.end(), strong, False, of_digits=kind in _MADE_OF_DIGITS)
                     if changed_it else None)
            if again:
                yield again[0], again[1], _kind(word)
        if found and word.lower() in ("login", "logins") and _HANDLE.fullmatch(text, *found):
            found = None  # "login: ellen83" names the user, not the secret
        if found and not text[keyword.end():found[0]].strip() and (
                _KEYWORD.fullmatch(text[found[0]:found[1]].lower()) or text[found[0]:found[1]].lower() in _BARE_CODES):
            found = None  # keywords side by side ("PIN password code", searched for: an attacker's) name, not give
        if found and _ANSWER.fullmatch(word):
            said = _ANSWER_END.search(text, found[0])  # within its sentence, not a bracket after it
            bracket = text.find(" (", found[0], said.start() if said else len(text))
            answer = _ANSWER_GIVEN.match(text, found[0], bracket if bracket >= 0 else said.start() if said
                                         else len(text))  # "security answer: first pet was Biscuit"
            if answer:
                found = answer.span(1)
        if found:
            yield found[0], found[1], kind
        before = _value_before(text, keyword.start(), keyword.end(), strong)
        if before:
            yield before[0], before[1], kind
        if strong or kind in ("pin", "code", "combination"):
            yield from _partial(text, keyword.end(), kind)
        if strong or found:
            yield from continued(text, found[1] if found else keyword.end(), kind)
        if not found and not before and (strong or kind in _MADE_OF_DIGITS):
            yield from _next_sentence(text, keyword.end(), kind)
    yield from _named_by_context(text, words)
    if words & _KEY_WORDS:
        yield from _keyed_tokens(text)


def _denied_then_given(text: str) -> Iterator[tuple[int, int, str]]:
    """A value denied, then the one that holds, beside a word for a secret or a thing that opens: "the wifi's
    not Sunshine2020 anymore, it's Sunshine2024!", "codice dell'allarme: non è 0000, è 5821", "Alarmanlage:
    nicht mehr 2580, jetzt 6104", "el PIN no es 1234, es 4321", "it's not 2580 for the alarm but 2851". Both
    values are masked (the old one was a secret too); each must look like one (four digits or more, or a
    credential's shape), so "the door isn't 221, it's 223" and "the alarm isn't loud anymore, it's 2024" stay
    ordinary. The words are the data files' (negations, no_longer, affirmations)."""
    for match in _DENIED.finditer(text):
        old, new = match.group("old"), match.group("new")
        if not (_denied_value(old) and _denied_value(new)):
            continue
        start = max(_sentence_start(text, match.start()), match.start() - 80)
        cues = [m for m in _CUE_WORD.finditer(text, start, match.end())
                if m.group(0).lower() in _denial_cues()
                or m.group(0).lower().endswith(vocabulary.entries("trigger_endings"))]  # "deurcode", "Türcode"
        if not cues or all(m.group(0).lower() in _BARE_CODES and ordinary_code(text, m.start(), m.end())
                           for m in cues):
            continue  # "my phone number isn't 555 0101", "the zip code isn't 94107, it's 94103"
        if _CLOCK.fullmatch(old) and _CLOCK.fullmatch(new) and not any(
                m.group(0).lower() in _TRIGGERS or m.group(0).lower().endswith(vocabulary.entries("trigger_endings"))
                for m in cues):
            continue  # "the alarm clock is not 0630 but 0645": times of day, beside no word for a secret
        kind = "code" if _DIGIT_WORD.fullmatch(new) else "credential"
        yield match.start("old"), _strip(text, match.start("old"), match.end("old")), kind
        yield match.start("new"), _strip(text, match.start("new"), match.end("new")), kind


def _denied_value(value: str) -> bool:
    """Four digits or more, or a credential's shape of five characters or more (not "B12", a gate or a seat)."""
    said = value.strip(_TRAILING)
    if _DIGIT_WORD.fullmatch(said):
        return sum(c.isdigit() for c in said) >= 4 and not measure(said)
    return len(said) >= 5 and _secretish(said) and not measure(said) and not holds_an_email(said) \
        and "://" not in said


_CLOCK = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")


def _longest_first(table: str) -> str:
    return "|".join(sorted(vocabulary.entries(table), key=len, reverse=True))


_DENIED = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{_longest_first('negations')})[ \t]+(?:(?:the|le|la|el|il|het|de|o|der|die|das)[ \t]+)?"
    rf"(?P<old>[^\s,;]+?)[.!?]?(?:[ \t]+(?:{_longest_first('no_longer')}))?(?![^\W_])"
    # what it is for, said between the two: "not 2580 for the alarm but 2851"
    rf"(?:[ \t]+(?:{vocabulary.alternation('prepositions', True)})[ \t]+[^\W\d_][^\n,;.\d]{{0,30}}?(?=[ \t,;]))?"
    rf"(?:[ \t]*(?:[,;:—–]|-(?=\s)|\.\.\.|…)[ \t]*(?:(?:{_longest_first('affirmations')})(?![^\W_])[ \t]*)?"
    rf"|[ \t]+(?:{_longest_first('affirmations')})(?![^\W_])[ \t]*)"
    rf"(?:(?:the|le|la|el|il|het|de|o|der|die|das)[ \t]+)?(?P<new>[^\s,;]+)"), re.I)
_CUE_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=1)
def _negation_words() -> frozenset[str]:
    """The words a text must hold for a value to be denied in it: those of `negations` but the copulas ("is",
    "è"), which nearly every text holds."""
    # as the view holds them: "isn't" is the words "isn" and "t", "no longer" the words "no" and "longer"
    said = {w.lower() for entry in vocabulary.entries("negations") for w in re.findall(r"[^\W\d_]{2,}", entry)}
    return frozenset(said) - vocabulary.words("copulas") - {"ce", "ya", "já"}


@lru_cache(maxsize=1)
def _denial_cues() -> frozenset[str]:
    """The words a denied value hangs on: words for a secret, things that open, networks."""
    tables = ("triggers", "places", "locks", "network_words", "code_qualifiers")
    return frozenset(w.lower() for table in tables for entry in vocabulary.entries(table)
                     for w in re.findall(r"[^\W\d_]+", entry) if len(w) > 2) | _BARE_CODES


def _keyed_tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """A long random token a few words after a bare word for a key or a token: "the weather API wants key
    95e63c76...", "token for the bot 8f3e...". Hex in lower case alone reads as a hash elsewhere; after such a
    word it is the key (not after a fingerprint, a hash or a commit)."""
    for match in _KEYED_TOKEN.finditer(text):
        token = match.group("token")
        if any(c.isdigit() for c in token) and any(c.isalpha() for c in token) and not _NOT_A_KEY.search(
                text, match.start(), match.start("token")):
            yield match.start("token"), match.end("token"), "key" if "key" in match.group(0).lower() else "token"


_PUBLIC_KEY = re.compile(r"(?<![^\W_])public[ \t-]+keys?(?![^\W_])", re.I)


def names_a_key_public(text: str) -> bool:
    """Whether `text` names a key by what is public of it: a fingerprint, a hash, an id, the public key ("My
    PGP key fingerprint is 7A3F 91C2 ...": blind round 18's near miss)."""
    return bool(_PUBLIC_KEY.search(text) or _NOT_A_KEY.search(text))


def _asked(text: str, keyword: re.Match[str]) -> bool:
    """Whether the keyword ends a question, its question mark followed by more ("what's my wifi password? Tom
    asked", "what is the door code? (asked yesterday)", an MCP result quoting what was asked): what follows
    is its value only when it looks like one, as after a weak keyword ("what's the door code? 4471"). Not
    "my password? Qx7-hunter22" (no question), nor "what's the wifi password? it's swordfish" (answered)."""
    if not _ASKED_MARK.match(text, keyword.end()):
        return False
    clause = _CLAUSE_MARK.split(text[max(0, keyword.start() - 80):keyword.start()])[-1].lower()
    said = _WORDS.findall(clause)
    return "¿" in clause or bool(said) and (said[0] in _QUESTION_AUXILIARIES
                                            or any(word in _QUESTION_OPENERS for word in said))


def ordinary_code(text: str, start: int, end: int) -> bool:
    """Whether the word for a code at text[start:end] names a code that opens nothing: "zip code", "promo
    code", "the code of the flight", "código do voo", "code postal" (the data files' ordinary_codes, before
    it or in the three words after it)."""
    return bool(_ORDINARY_CODE_BEFORE.search(text, max(0, start - 20), start)
                or _ORDINARY_CODE_AFTER.match(text, end))


def _next_sentence(text: str, at: int, kind: str) -> Iterator[tuple[int, int, str]]:
    """A keyword whose sentence ends without its value, and the next sentence that gives it: "Sorted the new
    bank PIN. It's 6 2 7 4.", "They reset the door code at work. New one is 5527.", "J'ai changé le code de
    l'alarme. C'est 7 7 1 2 maintenant." The value must look like one (a digit or a sign; three digits for a
    PIN, a code or a combination) and not be a year ("It's 2024 and still the old one")."""
    end = _SENTENCE_END.search(text, at, at + 80)
    if not end or end.group(0) == ";" or _VALUE_SIGN.search(text, at, end.start()):
        return
    lead = _NEXT_LEAD.match(text, end.end())
    if not lead:
        return
    of_digits = kind in _MADE_OF_DIGITS
    value = _clause(text, _end_of(_LEAD_IN, text, lead.end()), False, False, of_digits=of_digits)
    if not value:
        return
    said = text[value[0]:value[1]]
    if of_digits and sum(c.isdigit() for c in said) < 3 or _YEAR.fullmatch(said) or measure(said) \
            or not _VALUE_SIGN.search(said):
        return
    yield value[0], value[1], kind


def continued(text: str, at: int, kind: str) -> Iterator[tuple[int, int, str]]:
    """The value said again in the rest of the sentence, corrected or changed: "my old PIN was 1111 but now
    it's 2468", "isn't 1234 like I told you, it's 4321", "changed from 4057 to 3916", "la nueva Marte2024!".
    A word of the data files' `continuations`, then a value that looks like one (digits for a PIN, a code
    or a combination)."""
    end = _SENTENCE_END.search(text, at, at + 160)
    stop = end.start() if end else min(len(text), at + 160)
    if not _VALUE_SIGN.search(text, at, stop):
        return  # a value said again has a digit or a sign (number words alone are left to the first value)
    of_digits = kind in _MADE_OF_DIGITS
    for marker in _CONTINUATION.finditer(text, at, stop):
        value = _clause(text, marker.end(), False, False, of_digits=of_digits)
        if value and value[1] <= stop + 1:
            said = text[value[0]:value[1]]
            if (not of_digits or sum(c.isdigit() for c in said) >= 3) and not measure(said) \
                    and not holds_an_email(said) and "://" not in said:
                yield value[0], value[1], kind


def _answers(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    """The answer to a security question: what ends the sentence after its last sign or copula ("my first
    pet's name, the answer to the security question, is Biscuit", "Sicherheitsfrage Lieblingslehrer: Herr
    Baumann", "security question \"city where your parents met\" -> Gdansk"); and said another way, a
    sentence that asks or names a question about what such questions ask or where they are asked, then
    what was answered after a verb of answering or a sign ("If they ask which street I grew up on, I put
    Maple Crescent", "first car question on the mortgage login: Vauxhall Nova")."""
    answered: list[tuple[int, int]] = []  # the stretches an answer keyword's value was found in
    for keyword in _ANSWER_KEYWORD.finditer(text):
        end = _ANSWER_END.search(text, keyword.end())
        stop = end.start() if end else len(text)
        if end and end.group(0) == "?" and (label := _ANSWER_LABEL.match(text, end.end())):
            # the question asked, then its answer named: "città natale? Risposta: Bari"
            end = _ANSWER_END.search(text, label.end())
            stop = end.start() if end else len(text)
        # what was answered, after a verb of answering, before what the question is said to be (blind round
        # 13: "security question for the bank is first pet's name and I put Biscuit")
        value = _answered(text, keyword.end(), stop)
        if value is None:
            signs = _signs(text, keyword.end(), stop)
            if not signs:
                continue
            value = _clause(text, signs[-1].end(), True, False)
        if value and len(text[value[0]:value[1]].split()) <= 4:
            answered.append((keyword.start(), stop))
            yield value[0], value[1], "credential"
    done = -1
    for cue in _question_cues(text, words):
        if cue.start() < done or any(start <= cue.start() < stop for start, stop in answered):
            continue
        start = _sentence_start(text, cue.start())
        end = _ANSWER_END.search(text, cue.end(), cue.end() + _ANSWER_REACH)
        stop = end.start() if end else min(len(text), cue.end() + _ANSWER_REACH)
        sentence = text[start:stop]
        if not (_ANSWER_TOPIC.search(sentence) or _ANSWER_CONTEXT.search(sentence)):
            continue  # "The quiz question was about rivers and I answered the Danube"
        done = stop
        found = _answered(text, cue.end(), stop) or _answered(text, start, cue.start())
        if not found:
            signs = _signs(text, cue.end(), stop)
            found = _clause(text, signs[-1].end(), True, False) if signs else None
        if found and len(text[found[0]:found[1]].split()) <= 4 and \
                text[found[0]:found[1]].lower().strip(_TRAILING) not in _FOLLOWERS | _ANSWER_NOT:
            yield found[0], found[1], "credential"


def _answered(text: str, start: int, stop: int) -> tuple[int, int] | None:
    """What was answered after the first verb of answering between `start` and `stop` that gives one."""
    for verb in _answer_verbs():
        said = verb.search(text, start, stop)
        if said and "value" in verb.groupindex and said.group("value"):
            return said.span("value")
        if said and (found := _clause(text, said.end(), True, False)):
            return found
    return None


def _asked_and_answered(text: str) -> Iterator[tuple[int, int, str]]:
    """A question of the kind a bank asks, labelled, then its answer labelled, with no word for security
    ("Q: name of your first school\nA: St Aldhelms", "Frage: Lieblingslehrer? Antwort: Herr Kopp"): the answer
    is a secret when the question asks what such questions ask (answer_topics); "Q: when is the meeting?
    A: Tuesday" is no secret."""
    for pair in _QUESTION_AND_ANSWER.finditer(text):
        question = pair.group("question")
        asked = {w.lower() for w in re.findall(r"[^\W\d_]+", question)}
        if not _ANSWER_TOPIC.search(question) or asked & _QUESTION_OPENERS and not asked & _QUESTION_PERSONS:
            continue  # "Q: which street is the new office on?" asks about no one
        start, end = pair.span("answer")
        end = _strip(text, start, end)
        said = text[start:end]
        if end > start and len(said.split()) <= 4 and said.lower() not in _FOLLOWERS | _ANSWER_NOT:
            yield start, end, "credential"


_LISTED_ANSWER = re.compile(r"^[ \t]*[^?\n]{3,100}\?[ \t]*(?:->|→|=>|:|=|—|–)[ \t]*\S", re.M)


def _lists_answers(text: str) -> bool:
    """Whether `text` lists two questions of the kind a bank asks, each on its line with its answer after a sign
    (blind round 17: "What's the name of your first school? -> St Wilfrid's\nFavourite childhood toy? -> ...")."""
    lines = [line.group(0) for line in _LISTED_ANSWER.finditer(text)]
    asked = [found for line in lines if (found := [m.group(0).lower() for m in _ANSWER_TOPIC.finditer(line)])]
    # one at least of what only a bank asks: a list of favourites ("Favourite film? -> Arrival") is a list of tastes
    return len(asked) >= 2 and any(not t.startswith("favo") for found in asked for t in found)


def _asked_as_such(text: str) -> Iterator[tuple[int, int, str]]:
    """A question of the kind a bank asks, written as the question itself, then what was answered after a
    verb of answering or a sign, where such questions are asked said in the sentence (blind round 11: "What
    city were you born in? -> I put 'Tralee' for the pension website"; "What city were you born in? the bank
    asked and I forgot" gives nothing). A question that names no one ("which street is the new bank on? ->
    Baker Street") is about no one, unless the answer is said with a verb of answering ("¿En qué ciudad
    naciste? -> puse 'Sevilla' en la web del banco"); a question named by an answer keyword ("Mother's maiden
    name? -> Kowalski") needs no place that asks."""
    listed: bool | None = None  # whether the text lists such questions with their answers (read once, if needed)
    for mark in _QUESTION_MARK.finditer(text):
        end = _ANSWER_END.search(text, mark.end(), mark.end() + _ANSWER_REACH)
        stop = end.start() if end else min(len(text), mark.end() + _ANSWER_REACH)
        at = _end_of(_GIVEN_SIGN, text, mark.end())
        # what follows first (cheap, and most questions are followed by neither): a verb of answering or a sign
        verbs = [said for verb in _answer_verbs() if (said := verb.match(text, at, stop))] if \
            _any_answer_verb().match(text, at, stop) else []
        given = bool(text[mark.end():at].strip())  # a sign right after the mark: "? -> Galway"
        reach = min(stop, mark.end() + _SIGN_REACH)
        signs = _signs(text, mark.end(), reach) if not verbs and not given and _SIGN_MARK.search(
            text, mark.end(), reach) else []
        bare = not verbs and not given and not signs
        if bare and not ((first := _BARE_ANSWER.match(text, at)) and first.group(1).lower() not in _not_an_answer()):
            continue  # "? I have no idea", "? What was ...": a sentence that starts, no answer
        start = _sentence_start(text, mark.start())
        question = text[start:mark.start()]
        named = _ANSWER_KEYWORD.search(question) is not None
        if not named and not _ANSWER_TOPIC.search(question):
            continue
        if not named and not _ANSWER_CONTEXT.search(text, start, stop):
            listed = _lists_answers(text) if listed is None else listed
            if not listed:
                continue
        found = None
        for said in verbs:
            if "value" in said.re.groupindex and said.group("value"):
                # "Ich habe 'Kassel' bei der Bank angegeben": the value, not where it was given
                within = _clause(text, said.start("value"), True, False)
                found = within if within and within[1] <= said.end("value") else said.span("value")
            else:
                found = _clause(text, said.end(), True, False)
            if found:
                break
        if found is None:
            if not named and not listed and not {w.lower() for w in _WORDS.findall(question)} & _QUESTION_PERSONS:
                continue
            if bare:
                # the answer right after the question, where it was given said after it: "What was your first
                # car? Fiat Panda, for the insurance website"
                found = _clause(text, at, True, False)
                if found and (len(text[found[0]:found[1]].split()) > 3
                              or not _ANSWER_CONTEXT.search(text, found[1], stop)):
                    found = None
            elif given:
                found = _clause(text, at, True, False)
            else:
                signs = signs or _signs(text, mark.end(), reach)
                found = _clause(text, signs[0].end(), True, False) if signs else None
        if found and len(text[found[0]:found[1]].split()) <= 4 and \
                text[found[0]:found[1]].lower().strip(_TRAILING) not in _FOLLOWERS | _ANSWER_NOT:
            yield found[0], found[1], "credential"


def _question_cues(text: str, words: frozenset[str]) -> Iterator[re.Match[str]]:
    """The words of `text` that ask or name a question, in order. A one-word entry of the vocabulary is
    looked for only as the words `text` holds that it matches (an entry such as "[^\\W\\d_]*frage" tried
    at every letter of a megabyte took seconds); an entry that spans words is looked for over the text."""
    lowered = vocabulary.lowered_as_matched(text)
    # an entry whose letters the text does not hold cannot match in it ("[^\\W\\d_]*frage" tried at every
    # position of a megabyte cost half a second)
    cues = [re.escape(word) for word in words if _QUESTION_WORD.fullmatch(word)] + [
        phrase for phrase in _question_phrases()
        if lowered is None or (letters := vocabulary.required_letters(phrase)) == "" or letters in lowered]
    if cues:
        yield from re.finditer(rf"(?<![^\W_])(?:{'|'.join(cues)})(?![^\W_])", text, re.I)


@lru_cache(maxsize=1)
def _question_phrases() -> tuple[str, ...]:
    """The entries of question_words that may span more than one word (a space, a sign between words)."""
    return tuple(entry for entry in vocabulary.entries("question_words") if not _ONE_WORD_ENTRY.fullmatch(entry))


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence that `at` stands in starts: after the last line break, or sentence mark and the
    space after it, in the _ANSWER_REACH characters before `at`."""
    start = max(0, at - _ANSWER_REACH)
    for mark in _SENTENCE_START.finditer(text, start, at):
        start = mark.end()
    return start


def _signs(text: str, start: int, stop: int) -> list[re.Match[str]]:
    """The signs and copulas an answer may follow, but those in brackets ("is Dundee (yes I know, I was born
    in Perth)": the answer is before them)."""
    brackets = [m.span() for m in _BRACKETED.finditer(text, start, stop)]
    denied = _DENIED_CLAUSE.search(text, start, stop)  # "is Dundee, not where I actually was born"
    if denied:
        stop = denied.start()
    return [m for m in _ANSWER_SIGN.finditer(text, start, stop) if not any(a <= m.start() < b for a, b in brackets)]


@lru_cache(maxsize=1)
def _answer_verbs() -> tuple[re.Pattern[str], ...]:
    """The verbs of answering, each its own pattern (a verb-final one names its value)."""
    return tuple(re.compile(rf"(?<![^\W_])(?:{verb})(?![^\W_])", re.I) for verb in vocabulary.entries("answer_verbs"))


@lru_cache(maxsize=1)
def _any_answer_verb() -> re.Pattern[str]:
    """Any verb of answering (one pattern, its named groups unnamed): whether to try each."""
    verbs = "|".join(re.sub(r"\(\?P<\w+>", "(?:", verb) for verb in vocabulary.entries("answer_verbs"))
    return re.compile(rf"(?<![^\W_])(?:{verbs})(?![^\W_])", re.I)


def _named_by_context(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    """Words that name a secret only beside what they open: a bare "key" in a text about a network ("network
    BTHub-7F2A, key is kettle-orange-93"), a bare "code" in a sentence that names a thing that opens ("Gym
    locker, the code I always use: 1357")."""
    keys = words & _BARE_KEYS if words & _NETWORK_WORDS else frozenset()
    codes = words & _BARE_CODES
    if not keys and not codes:
        return
    for match in _BARE_WORD.finditer(text):
        word = match.group(0).lower()
        if word in keys:
            kind, strong = "key", False
        elif word in codes and not ordinary_code(text, match.start(), match.end()):
            start = max(0, match.start() - 80)
            sentence = text[start:match.end() + 80]
            owned = _CODE_OF.match(text, match.end())
            if owned and not _PLACE_NEAR.search(sentence):
                # "De code van het fietsenhok is 0391", "the code for Nan's flat is 5521": a code of something
                # that opens nothing said otherwise, given as digits (three or more) right after the copula.
                value = _value_after(text, owned.end(), True, False, False, changed=False, of_digits=True)
                if value and sum(c.isdigit() for c in text[value[0]:value[1]]) >= 3 and not measure(
                        text[value[0]:value[1]]) and _DIGITS_FIRST.match(text, value[0]):
                    yield value[0], value[1], "code"
                continue
            if not _PLACE_NEAR.search(sentence):
                continue
            kind, strong = "code", True
        else:
            continue
        found = _value_after(text, match.end(), strong, False, False, changed=False, of_digits=kind == "code")
        if found and (kind != "code" or sum(c.isdigit() for c in text[found[0]:found[1]]) >= 3):
            yield found[0], found[1], kind


def _partial(text: str, at: int, kind: str) -> Iterator[tuple[int, int, str]]:
    """The parts of a secret given away after its keyword: "ends in 71", "starts with 44 then 71"."""
    partial = _PARTIAL.match(text, at)
    if not partial:
        return
    value = partial.group("value")
    following = _NEXT_WORD.match(text, partial.end())
    if value.lower().strip(_TRAILING) in _HARD_STOP | _SOFT_STOP | _DESCRIPTOR or (
            following and following.group(1).lower() in _DESCRIPTOR):
        return  # "my password starts with a capital letter", "... starts with 12 characters"
    yield partial.start("value"), _strip(text, partial.start("value"), partial.end("value")), kind
    position = partial.end()
    while more := _PARTIAL_MORE.match(text, position):
        yield more.start("value"), _strip(text, more.start("value"), more.end("value")), kind
        position = more.end()
    if re.match(r"\s+(?:and|but|und|et|y|e|en)\s", text[position:position + 6], re.I):
        yield from _partial(text, position, kind)  # "starts with 4 and ends with 2"

_ANSWER = re.compile(r"security[ -](?:question[ -])?answers?|answers? to .*", re.I)
_ASKED_MARK = re.compile(r"\?[ \t]+(?!(?:it's|it’s|it is|its|that's|that is)(?![^\W_]))", re.I)
_CLAUSE_MARK = re.compile(r"[.!?;:,\n]")
_WORDS = re.compile(r"[^\W\d_][\w'’-]*")
_QUESTION_OPENERS = vocabulary.LazyWords("question_openers")
_QUESTION_AUXILIARIES = vocabulary.LazyWords("question_auxiliaries")
_SENTENCE_END = re.compile(r"\n|[.!?;](?=\s|$)")
_VALUE_SIGN = re.compile(r"[\d!@#$%^&*+=?~]")
_CONTINUATION = vocabulary.lazy_pattern(  # with the sign after it: "new one: 9930" (a re-check's "new one[secret]")
    lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('continuations')})(?![^\W_])\s*(?:[:=]\s*)?", re.I)
# An entry made of letters, classes of letters and optional groups of them only: it matches one word.
_ONE_WORD_ENTRY = re.compile(r"(?:[^\W\d_]|\[\^\\W\\d_\]|\[[^\W\d_]+\]|[()?*+|:])+")
# A question word as a word of the text (view.words: letters only), from the one-word entries.
_QUESTION_WORD = vocabulary.lazy_pattern(
    lambda: "|".join(e for e in vocabulary.entries("question_words") if _ONE_WORD_ENTRY.fullmatch(e)) or "(?!)", re.I)
_ANSWER_TOPIC = vocabulary.lazy_pattern(lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('answer_topics')})(?![^\W_])",
                                        re.I)
_ANSWER_CONTEXT = vocabulary.lazy_pattern(
    lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('answer_contexts')})(?![^\W_])", re.I)
_ANSWER_END = re.compile(r"\n|[.!?;](?=\s|$)")
_QUESTION_MARK = re.compile(r"\?(?=[ \t])")
_SIGN_MARK = re.compile(r"[:=]")  # a sign an answer may follow a few words after the mark: "? for the bank: Rex"
# an answer given bare starts as a name does ("? Fiat Panda"), not as a sentence does ("? I have no idea")
_BARE_ANSWER = re.compile(r"[\"'“‘«]?(?=[A-Z])([^\W\d_]+)")


@lru_cache(maxsize=1)
def _not_an_answer() -> frozenset[str]:
    """First words of a sentence that starts after a question, never of an answer given bare."""
    return frozenset(_HARD_STOP | _QUESTION_OPENERS | _QUESTION_PERSONS | _QUESTION_AUXILIARIES | _AFTER_AND
                     | _FOLLOWERS | _ANSWER_NOT)


_SIGN_REACH = 40  # how far after a question's mark the sign before its answer may stand ("? for the bank: Rex")
_GIVEN_SIGN = re.compile(r"[ \t]*(?:->|=>|→|⇒|➜|➔|:|=|—|–)?[ \t]*")
_QUESTION_LABEL_WORDS = vocabulary.LazyWords("question_labels")
_QUESTION_PERSONS = vocabulary.LazyWords("question_persons")
# A question labelled at the start of a line, then its answer labelled after it (on the next line, or after
# the question's mark): "Q: name of your first school\nA: St Aldhelms".
_QUESTION_AND_ANSWER = vocabulary.lazy_pattern(lambda: (
    rf"(?:^|\n)[ \t]*(?:{vocabulary.alternation('question_labels', True)})[ \t]*[:.)\-][ \t]*"
    r"(?P<question>[^\n]{3,160}?)(?:[ \t]*\n|(?<=\?)[ \t]+)[ \t]*"
    rf"(?:{vocabulary.alternation('answer_labels')})[ \t]*[:.)\-][ \t]*(?P<answer>[^\n]{{1,60}})"), re.I)
_ANSWER_LABEL = vocabulary.lazy_pattern(
    lambda: rf"[ \t]*(?:{vocabulary.alternation('answer_labels')})[ \t]*(?::|=|->|→|-(?=[ \t]))", re.I)
_BRACKETED = re.compile(r"\([^()\n]*\)?")
_SENTENCE_START = re.compile(r"\n|[.!?;]\s")
_ANSWER_REACH = 300  # how far a sentence with a question word is read either side of it
_ANSWER_NOT = frozenset("yes no nothing something it that this them yeah nope".split())
_ANSWER_KEYWORD = vocabulary.lazy_pattern(lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('answer_keywords')})", re.I)
_ANSWER_SIGN = vocabulary.lazy_pattern(lambda: (
    r"\s*(?::|->|=>|→|⇒|➜|➔|=|—|–)\s*|\s+(?:is|was|are|es|est|c'est|ist|lautet|è|é|era|war|is|"
    rf"{vocabulary.alternation('answer_copulas')})\s+|"
    # the answer's label without a sign, a word of it at least: "security question what city were you born in
    # answer Gdynia", "question secrète nom de mon chien réponse Pompon"
    r"\s+(?:" + "|".join(re.escape(label) for label in vocabulary.entries("answer_labels") if len(label) > 1)
    + r")\s+(?!(?:is|was|are|es|est|c'est|ist|lautet|è|é|era|war)\s)"), re.I)
# A clause that denies ("..., not where I actually was born"): no answer follows its copula.
_DENIED_CLAUSE = vocabulary.lazy_pattern(lambda: rf"[,;]\s*(?:{vocabulary.alternation('negations')})(?![^\W_])", re.I)
_NETWORK_WORDS = vocabulary.LazyWords("network_words")
_BARE_KEYS = vocabulary.LazyWords("bare_keys")
_CODE_FIRST = re.compile(r"codes?|c[oó]digos?|codice|codici|kode|kod|код", re.I)
_BARE_CODES = frozenset("code codes código codigo codice kode kod".split())
_BARE_WORD = vocabulary.lazy_pattern(
    lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('bare_keys', True)}|codes?|c[oó]digo|codice|kode|kod)(?![^\W_])",
    re.I)
_KEY_WORDS = frozenset("key keys token tokens secret apikey schlüssel clé clave chiave sleutel chave".split())
_KEYED_TOKEN = re.compile(r"(?<![^\W_])(?:api[ _-]?)?(?:keys?|tokens?|secret|apikey|schlüssel|clé|clave|chiave|sleutel|"
                          r"chave)(?![^\W_])[^\n.;]{0,24}?(?<![\w-])(?P<token>[A-Za-z0-9_\-]{20,128})(?![\w-])", re.I)
_NOT_A_KEY = re.compile(r"fingerprint|hash|checksum|commit|sha\d*|md5|uuid|id(?![^\W_])", re.I)
_NEXT_LEAD = vocabulary.lazy_pattern(
    lambda: rf"[ \t]*(?:{vocabulary.alternation('next_sentence')})(?![^\W_])(?:[ \t]*:)?[ \t]*", re.I)
_YEAR = re.compile(r"(?:19|20)\d\d")
# A keyword's whose-phrase that counts things: "combinations of 3 dice", "the key to 2 doors".
_WHOSE_COUNTED = re.compile(r"\s+(?:of|for|de|von|di|van)\s+(?:the\s+)?\d[^\n.;:,]{0,40}", re.I)
_ORDINARY_CODE_AFTER = vocabulary.lazy_pattern(
    lambda: rf"(?:[ \t]+(?:{vocabulary.alternation('of')}|{vocabulary.alternation('determiners')}|the|my|a|an|this|"
            rf"that|de|del|du|da|do|van|von)(?![^\W_])|[ \t]*['’])*[ \t]*(?:[^\W\d_]+[ \t]+)?"
            rf"(?:{vocabulary.alternation('ordinary_codes', True)})(?![^\W_])", re.I)
_ORDINARY_CODE_BEFORE = vocabulary.lazy_pattern(
    lambda: rf"(?<![^\W_])(?:{vocabulary.alternation('ordinary_codes', True)})[\s-]*$", re.I)
# "code van het fietsenhok", "code for Nan's flat", "code of the side door": whose code, up to the copula.
_CODE_OF = vocabulary.lazy_pattern(lambda: (
    rf"[ \t]+(?:{vocabulary.alternation('of')})(?:[ \t]+|(?<=['’]))(?:(?:{vocabulary.alternation('determiners')}|"
    rf"the|my|our|your|de|het)(?:[ \t]+|(?<=['’])))?(?:[^\W\d_][\w'’-]*[ \t]+){{0,2}}[^\W\d_][\w'’-]*"
    rf"(?=[ \t]*(?::|=|[ \t](?:{vocabulary.alternation('copulas')})(?![^\W_])))"), re.I)
_DIGITS_FIRST = re.compile(r"[*#]?\d")
# What a bare "code" opens when named near it: a place, a lock, a card ("ma carte se termine par 2948 et le code
# c'est 1506").
_PLACE_NEAR = vocabulary.lazy_pattern(lambda: "(?<![^\\W_])(?:" + "|".join(sorted(
    {*vocabulary.entries("places"), *vocabulary.entries("locks"), *map(re.escape, vocabulary.entries("cards"))},
    key=len, reverse=True)) + ")(?![^\\W_])", re.I)
_ANSWER_GIVEN = re.compile(r"[^\n;.]*?(?<![^\W_])(?:was|is|were|are)\s+([^\s,;.]+)", re.I)
_NUMBERED = re.compile(r"\d{1,2}[.)][ \t]+[^\W\d_]")
_NUMBERED_CODES = re.compile(r"\d{1,2}[.)][ \t]+(?=\S*\d)")
_HANDLE = re.compile(r"[a-z][a-z0-9._-]{1,31}|[^\s@]+@[^\s@]+")
_GAP_TO_SIGN = re.compile(r"[ \t]*,?[ \t]+[^\n.;:!?=]{1,40}?(?::(?![/\d])|->|=)[ \t]*(?=\S)")
# After a sign, what is said of the value, then an arrow or a sign: ": same as always but with a ! at the end ->".
_GAP_AFTER_SIGN = re.compile(r"[^\n.;:?=>→⇒➜➔]{1,60}?(?:->|=>|→|⇒|➜|➔|:(?![/\d])|=)[ \t]*(?=\S)")
# A strong keyword for digits, one or two words that name what it opens, then the digits ending the clause:
# "digicode immeuble 27A45, puis 2e étage", "Türcode Haustür 5#2#9#1".
_NAMED_VALUE = re.compile(r"[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?[ \t]+([*#]?\d[^\s,;]*?)[.!?]?"
                          r"(?=[ \t]*$|[ \t]*\n|\s*[,;(])")
# Digits after what they open, then a few plain words to the end of the clause: "pincode for the card 6620
# dont forget" (the words are no part of the value).
_NAMED_KEY = re.compile(r"[ \t]+([^\W\d_][\w'’-]*)(?:[ \t]+([^\W\d_][\w'’-]*))?[ \t]*:?[ \t]+"
                        r"((?=[^\s,;]*\d)(?=[^\s,;]*[^\W\d_])[^\W_][\w-]{6,}[^\W_])[.!?]?(?=[ \t]*$|[ \t]*\n|\s*[,;(])")
_TAIL_WORDS = vocabulary.lazy_pattern(lambda: rf"\s+(?:{vocabulary.alternation('prepositions', True)})\s+"
                                      rf"[^\n;=:,.\d]{{0,40}}?\s([*#]?\d(?:[ \-./#*]?\d){{2,}}[#*]?)"
                                      rf"(?=(?:[ \t]+[^\W\d_][\w'’]*){{1,3}}[.!?]?(?:[ \t]*$|[ \t]*\n|\s*[,;])|"
                                      # how it is keyed after it: "... 60 60 then the key symbol"
                                      rf"[ \t]+(?:{vocabulary.alternation('then', True)})[ \t]+[^\W\d_])", re.I)
# "the PIN is 0000... changed it to 8261": the value it was changed to, after one found.
_CHANGED_IT = re.compile(r"[^\n;]{0,24}?(?<![^\W_])(?:changed|change|changes|reset|set|updated|switched|made)\s+"
                         r"(?:it|that|this|them)\s+(?:to|into|as)\s+", re.I)
# "the password exchange", "a pin cushion": a keyword after an article, then one word, is a compound noun.
_ARTICLE_BEFORE = re.compile(r"(?:^|\s)(?:the|a|an|this|that|its|for the|of the)\s+(?:[^\W\d_]+\s+)?$", re.I)
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")
_LIST_BELOW = re.compile(r"[ \t]*(?:[-*•·+]|\d{1,2}[.)])[ \t]")
_GERMAN_CHANGE = re.compile(r"\s+(?:auf|zu|in)\s+(\S+)\s+(?:ge)?(?:ändert|setzt|umgestellt|wechselt|abgeändert)",
                            re.I)
_APPOSITION = re.compile(r"\s*,\s*([^\s,;]+)\s*,")
_ATTACHED = re.compile(r"[-#](\d[\d-]{2,})")
_TAIL = vocabulary.lazy_pattern(lambda: rf"\s+(?:{vocabulary.alternation('prepositions', True)})\s+[^\n;=:,.]{{0,40}}?"
                                rf",?\s((?:\d[\d \-./#]*\d|\S*\d\S*))[.!?]?(?=[ \t]*$|[ \t]*\n|\s*[,;])", re.I)
_NON_SPACE = re.compile(r"\S*")
_SPACES = re.compile(r"[ \t]*")
_USER_NAMED = re.compile(r"[A-Za-z][\w.-]{0,31}:(?=[^\s/])")
_WORD_REST = re.compile(r"\w*")
# A value described, then given: "the PIN is my birth year, 1984", "my birth year 1984", "the year I
# was born: 1979"; without a comma, the description must say what the digits are.
_DESCRIBED = re.compile(r"(?P<description>[^\n.;,]{0,40}?)(?P<sign>,|:|\s)\s*"
                        r"(?:(?:so|i\.e\.|which is|that's|donc|also|así que|quindi|dus|então)\s+)?(\d(?:[ \-]?\d){2,})"
                        r"(?=[ \t]*(?:[.!]|$|\n))")
_DESCRIPTION = vocabulary.lazy_pattern(lambda: (
    r"(?<![^\W_])(?:birth|born|birthday|year|anniversary|date|house number|street number|"
    r"zip|postcode|geburtsjahr|geburtstag|jahr|année|naissance|año|nacimiento|anno|nascita|"
    rf"jaar|geboortejaar|ano|nascimento|{vocabulary.alternation('value_sources', True)})(?![^\W_])"), re.I)
_NOT_A_DESCRIPTION = re.compile(r"(?<![^\W_])(?:until|till|since|before|after|from|by|expires?|expired|valid|"
                                r"changed|set|bis|seit|ab|jusqu|depuis|hasta|desde|fino|dal|tot|sinds|até)(?![^\W_])",
                                re.I)
# A part of a PIN or code given away: "my PIN ends in 71", "card pin starts with 44 then 71".
_PARTIAL = re.compile(
    r"[^\n.;]{0,30}?(?<![^\W_])(?:ends?|ended|ending|finish(?:es)?|starts?|started|starting|begins?|beginning|"
    r"endet|beginnt|fängt|se termine|termine|finit|commence|termina|acaba|empieza|comienza|finisce|inizia|"
    r"eindigt|begint|começa)(?![^\W_])\s+(?:in|with|on|by|auf|mit|par|en|por|con|op|met|com|em)\s+"
    r"(?:(?:the|die|den|le|la|el|il|de|het|o|a)\s+(?:digits?|numbers?|ziffern?|chiffres?|dígitos?|cifre|cijfers?)\s+)?"
    r"(?P<value>[^\s,;!?]+?)(?=[.!?]?(?:\s|$)|[,;])", re.I)
_PARTIAL_MORE = re.compile(r"(?:\s*,\s*|\s+)(?:then|and|followed by|und|dann|puis|et|y|luego|e|poi|en|dan)?\s*"
                           r"(?P<value>\d[^\s,;!?]*?)(?=[.!?]?(?:\s|$)|[,;])", re.I)
_MORE = re.compile(r"[ \t]*,[ \t]*(?:and[ \t]+)?([^\s,;]+)")
# A value alone on its line (not a row of a table: records.py reads those by their columns).
_BELOW = re.compile(r"[ \t]*\n[ \t]*([^\s,|]+)[ \t]*(?:\n|$)")
# A tag alone on its line is markup, never a value: a conversation titled "Locker combo" at the end of the memory
# context took "</memory_context>" for its code, and the prompt's own tags went out as "[secret withheld]" (an
# attacker's).
_MARKUP = re.compile(r"</?[A-Za-z_][\w.-]*(?:\s[^<>]*)?/?>")
# "I use Qx7-hunter22 as my password everywhere", "I set Bl4ckbird! as the password for the router".
_USED_AS = re.compile(r"(?:^|\s)(?:use|used|using|uses|set|chose|picked|made|nutze|benutze|utilise|uso|gebruik)\s+"
                      r"(\S+)\s+(?:as|als|comme|como|come)\s+(?:my|the|our|his|her|mein|meine|das|mon|le|mi|el|il|"
                      r"mijn|het|de|a|o)\s+(?:[^\W\d_]+[\s-]+){0,2}$", re.I)
_TOKEN = re.compile(r"[^\s,;]+")
_LAST = re.compile(r"[ \t]*(?:$|[.!?][ \t]*(?:$|\n)|\n|[;,(])")
_WORD_NEXT = re.compile(r"[ \t]*[^\W_]")
_PLAIN_WORDS = re.compile(r"[^\W\d_]+(?:[ \t]+[^\W\d_]+){0,5}")
_MADE_OF_DIGITS = frozenset({"pin", "code", "combination"})
_DIGIT_WORD = re.compile(r"[#*]?\d[\d\-./#*]*")


def _value_after(text: str, at: int, strong: bool, plural: bool, abbreviation: bool,
                 changed: bool, compound: bool = False, of_digits: bool = False,
                 phrase: bool = False) -> tuple[int, int] | None:
    # "password for the guest wifi is X", "PIN: X", "password itself is X".
    pos = at
    whose = _WHOSE.match(text, pos)
    if whose:
        pos = whose.end()
    filler = _FILLER.match(text, pos)
    if filler:
        pos = filler.end()
    copula = _COPULA.match(text, pos)
    opening = _end_of(_SPACES, text, pos)
    if copula is None and strong and at < opening < len(text) and text[opening] in _QUOTES:
        # the value quoted right after the keyword: "wifi password 'Bramble'", "memorable info "Cobweb""
        quoted = _clause(text, opening, True, plural, of_digits=of_digits, phrase=phrase)
        if quoted:
            return quoted
    if copula:
        lead = _end_of(_LEAD_IN, text, copula.end())
        if "\n" in text[copula.end():lead] and _LIST_BELOW.match(text, lead):
            return None  # "passwords:" over a list: each item is read by records.py and labels.py
        sign = copula.group(0) + text[copula.end():lead]
        label = whose is None and copula.group(0).strip()[:1] in (":", "=", "-", "—", "–", '"', "'")
        value = _clause(text, lead, strong or label, plural, label=":" in sign, of_digits=of_digits, phrase=phrase)
        if value and sign.strip() == "?" and len(text[value[0]:value[1]].split()) > 1 and \
                not _secretish(text[value[0]:value[1]]):
            return None  # "Door code? Hassan said there isn't one": a question, then prose (blind round 18)
        if value:
            return value
        described = _DESCRIBED.match(text, lead) if strong else None
        if described and (described.group("sign") == "," and "," not in described.group("description")
                          or _DESCRIPTION.search(described.group("description"))
                          and not _NOT_A_DESCRIPTION.search(described.group("description"))):
            return described.span(3)
        if copula.group(0).strip():
            # "the password is on the router sticker: MXR7TQ4D", "the wifi key is on the router sticker:
            # 7F3A9C2E1B" (after a weak keyword the value must look like one, as _clause asks): what is said of
            # it, then the value; "Laptop password: same as always but with a ! at the end -> Marmalade88!":
            # what is said of it after the sign, then an arrow or a sign and a value that looks like one.
            return _after_gap(text, at, plural, of_digits) or _after_gap(text, lead, plural, of_digits, _GAP_AFTER_SIGN)
    elif filler and pos > at:
        digits = _DIGIT_GROUPS.match(text, _end_of(_SPACES, text, pos))  # "пин-код карты 5821"
        if digits and sum(c.isdigit() for c in digits.group(0)) >= 3:
            return digits.span()
        qualified = _adjacent(text, pos, False, False)  # "contraseña antigua Luna2019"
        if qualified:
            return qualified
    # "I changed my password to X".
    if changed:
        to = _TO.match(text, at)
        if to:
            return _clause(text, to.end(), strong, plural, of_digits=of_digits)
    # "Passwort auf Blaubeere42 geändert".
    german = _GERMAN_CHANGE.match(text, at)
    if german and _looks_like_value(german.group(1), strong):
        return german.span(1)
    # "the password, hunter2, works".
    apposition = _APPOSITION.match(text, at)
    if apposition and _looks_like_value(apposition.group(1), strong):
        return apposition.span(1)
    # "PIN-4471", "PIN#4471".
    attached = _ATTACHED.match(text, at)
    if attached:
        return attached.span(1)
    # The value right after the keyword, and for a plural keyword the ones listed after it:
    # "recovery codes 8f3k-2j9d, 7h2k-1l0p, 3k4l-9s8d".
    adjacent = _adjacent(text, at, strong, abbreviation, compound, phrase)
    if adjacent and strong and text[adjacent[0]:adjacent[1]].isalpha():
        # "codes de secours Google (double authentification) : 61 92 04 77": a name, then the value after a sign
        gap = _after_gap(text, at, plural, of_digits)
        if gap and _VALUE_SIGN.search(text, *gap):
            return gap
    if adjacent:
        while plural and (more := _MORE.match(text, adjacent[1])) and _secretish(more.group(1)):
            adjacent = adjacent[0], _strip(text, more.start(1), more.end(1))
        return adjacent
    # "password" ending its line, the value alone on the next one.
    below = _BELOW.match(text, at)
    if below and not _MARKUP.fullmatch(below.group(1)) and (
            _secretish(below.group(1)) or strong and below.group(1).lower() not in _FOLLOWERS):
        return below.span(1)
    # "the 2FA backup code I haven't used yet: 7731-2290": a short clause, then a label sign and a value
    # that looks like one.
    gap = _after_gap(text, at, plural, of_digits) if strong else None
    if gap:
        return gap
    # "passcode for door 8823", "pin for tomorrow 4471" (a date annotation blanked).
    tail = _TAIL.match(text, at)
    if tail and sum(c.isdigit() for c in tail.group(1)) >= 3 and not measure(tail.group(1).rstrip(_TRAILING)):
        return tail.start(1), tail.end(1) - (1 if tail.group(1)[-1] in _TRAILING else 0)
    if strong and of_digits:
        named = _NAMED_VALUE.match(text, at)
        if named and _digits_said(named.group(3)) and not any(
                (w or "").lower() in _FOLLOWERS | _CUT | _DESCRIPTOR for w in named.group(1, 2)):
            return named.span(3)
        tail = _TAIL_WORDS.match(text, at)
        if tail and _digits_said(tail.group(1)):
            return tail.start(1), tail.end(1)
    # one or two words that name whose it is, then a value in a key's shape ending the clause: "WIFI KEY
    # CORNER FLAT 9XQ2-LM84-TT3R", "api key staging: sk29-Qp4..." (letters and digits, eight signs or more)
    named = _NAMED_KEY.match(text, at)
    if named and not any((w or "").lower() in _FOLLOWERS | _CUT | _DESCRIPTOR for w in named.group(1, 2)):
        return named.span(3)
    return None


def _digits_said(value: str) -> bool:
    """Three digits or more that are no year, date, time or amount: a PIN's or a code's digits."""
    return sum(c.isdigit() for c in value) >= 3 and not _YEAR.fullmatch(value) and not measure(value)


def _after_gap(text: str, at: int, plural: bool, of_digits: bool,
               pattern: re.Pattern[str] = _GAP_TO_SIGN) -> tuple[int, int] | None:
    """A short clause after the keyword, then a label sign and a value that looks like one: "the 2FA backup
    code I haven't used yet: 7731-2290", "Mum's card PIN, in case she forgets again: 2 0 1 1"."""
    gap = pattern.match(text, at)
    if gap:
        value = _clause(text, gap.end(), False, plural, of_digits=of_digits)
        if value and not measure(text[value[0]:value[1]]):  # "Reset passwords Due: 2025-05-01"
            return value
    return None


def _end_of(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where a pattern that may match nothing ends when matched at `at`."""
    match = pattern.match(text, at)
    return match.end() if match else at


def _adjacent(text: str, at: int, strong: bool, abbreviation: bool, compound: bool = False,
              phrase: bool = False) -> tuple[int, int] | None:
    space = re.match(r"[ \t]+", text[at:at + 8])
    if not space:
        return None
    start = at + space.end()
    digits = _DIGIT_GROUPS.match(text, start)
    if digits and sum(c.isdigit() for c in digits.group(0)) >= 3:
        end = digits.end()
        token_end = _end_of(_NON_SPACE, text, end)  # "2580#"
        return start, _strip(text, start, token_end)
    words = _NUMBER_WORDS.match(text, start)
    if words and len(words.group(0).split()) >= 3:
        return start, _strip(text, start, words.end())
    token = _TOKEN.match(text, start)
    if not token:
        return None
    end = _strip(text, start, token.end())
    value = text[start:end]
    if not value or value.lower() in ("is", "was", "ist", "est", "es", "è", "é"):
        return None
    named = _USER_NAMED.match(value)
    if named and len(value) > named.end():
        start, value = start + named.end(), value[named.end():]  # "creds joe:hunter2": after the user
    if abbreviation and value.lower() not in _FOLLOWERS:
        return start, end
    if _secretish(value, strong):
        return start, end
    # "wifi password swordfish": a strong keyword, then one last word that is not an ordinary follower; after a
    # word for a phrase, plain words to the end of the clause ("passphrase purple monkey dishwasher").
    last = _LAST.match(text, token.end())
    if strong and last and value.isalpha() and len(value) >= 3 and value.lower() not in _FOLLOWERS and not compound:
        return start, end
    return _phrase_words(text, start) if phrase and strong and not compound else None


def _phrase_words(text: str, start: int) -> tuple[int, int] | None:
    """Three to six plain words from `start` that end their clause, none an ordinary follower of a keyword, a
    word that starts prose or one a value stops at: the passphrase after its keyword ("passphrase purple monkey
    dishwasher"; not "passphrase strength matters", "the passphrase prompt keeps popping up")."""
    words = _PLAIN_WORDS.match(text, start)
    if not words or not _LAST.match(text, words.end()):
        return None
    said = [word.lower() for word in words.group(0).split()]
    if len(said) < 3 or any(word in _FOLLOWERS or word in _CUT or word in _AND for word in said):
        return None
    return start, words.end()


def _value_before(text: str, at: int, end: int, strong: bool) -> tuple[int, int] | None:
    """ "4471 is my PIN", "hunter2 is the wifi password"."""
    before = re.search(r"(?:^|\s)(\S+)\s+(?:is|was|ist|est|es|è|é)\s+(?:my|the|our|his|her|mein|meine|die|der|das|"
                       r"mon|ma|le|la|mi|el|il|mijn|de|het|a|o|minha|meu)\s+(?:[^\W\d_]+[\s-]+){0,2}$",
                       text[max(0, at - 80):at], re.I)
    if not before:
        used = _USED_AS.search(text[max(0, at - 80):at])
        if used and _looks_like_value(used.group(1), strong):
            start = max(0, at - 80) + used.start(1)
            return start, _strip(text, start, start + len(used.group(1)))
        return None
    if _WORD_NEXT.match(text, end):  # the keyword must end its clause: "4471 is my PIN."
        return None
    value = before.group(1)
    if not _secretish(value, strong):
        return None
    start = max(0, at - 80) + before.start(1)
    return start, _strip(text, start, start + len(value))


def _clause(text: str, start: int, strong: bool, plural: bool, label: bool = False,
            of_digits: bool = False, phrase: bool = False) -> tuple[int, int] | None:
    """The value of a clause that starts at `start`, if it reads as a value (`of_digits`: the keyword names
    a secret made of digits, a PIN, a code or a combination, so a value that starts with digits ends
    with them)."""
    while start < len(text) and text[start] in " \t":
        start += 1
    if start >= len(text):
        return None
    if _NUMBERED.match(text, start):
        return None  # "recovery words: 1. common 2. truly ...": a numbered list, read by phrases.py
    if plural and _NUMBERED_CODES.match(text, start):
        of_digits = False  # "backup codes: 1) 3k9x 7mqp 2) w2zr 8hfa": the list whole, its numbers with it
    close = _QUOTES.get(text[start])
    if close:
        end = text.find(close, start + 1, start + 200)
        if end > start + 1 and "\n" not in text[start + 1:end]:
            return start + 1, end
    limit = start + (300 if plural else 120)
    stop = (_CLAUSE_END_LIST if plural else _CLAUSE_END).search(text, start, limit)
    end = stop.start() if stop else min(limit, len(text))
    words = list(re.finditer(r"\S+", text[start:end]))
    if not words:
        return None
    keep = 1
    for i, word in enumerate(words[1:], start=1):
        w = word.group(0).lower().strip(_TRAILING)
        if w in _DESCRIPTOR:
            return None  # "4 digits", "12 characters long": says what the secret is made of
        if w in _CUT and not phrase:  # a passphrase is words: "moose on the loose 44"
            break
        if of_digits and all(_DIGIT_WORD.fullmatch(v.group(0).strip(_TRAILING)) for v in words[:i]) and not (
                _DIGIT_WORD.fullmatch(w) or (w in _AND or plural and w in ("/", "|", "–")) and i + 1 < len(words)
                and _DIGIT_WORD.fullmatch(words[i + 1].group(0).strip(_TRAILING))):
            break  # a PIN, code or combination is its digits: "4821 and Bob", "31-07-22 INCOGAPP"
        if w in _AND and not plural:
            following = words[i + 1].group(0).strip(_TRAILING) if i + 1 < len(words) else ""
            if not following or following.lower() in _AFTER_AND or _KEYWORD.match(following.lower()):
                break
            before = text[start:start + words[i - 1].end()]
            if following[:1].isupper() and (_secretish(before) or before.islower()):
                break  # a name joins the sentence, not the value: "hunter2 and Bob", "swordfish and Dr Klein"
        if _KEYWORD.fullmatch(w) and not plural:
            break
        keep = i + 1
    words = words[:keep]
    first = words[0].group(0).lower().strip(_TRAILING)
    if label and first in ("the", "a", "an") and len(words) >= 4 and (phrase or not any(
            w.group(0).lower().strip(_TRAILING) in _HARD_STOP | _SOFT_STOP for w in words[1:])):
        first = ""  # "password: the quick brown fox 99", "passphrase: the quick fox sleeps at nine" after a sign
    if _SHARE.fullmatch(words[0].group(0).strip(_TRAILING)):
        return None  # "my passwords are 83% strong", "PINs are 100% memorised": a share or a price, no value
    lettered = len(first) == 1 and len(words) > 1 and words[1].group(0)[:1].isdigit()  # "A 4 4 0 2"
    if first in _HARD_STOP and not lettered or any(w.group(0).lower().strip(_TRAILING) in _DESCRIPTOR
                                                   for w in words):
        return None
    if first in _SOFT_STOP and (len(words) == 1 or any(
            w.group(0).lower().strip(_TRAILING) in _HARD_STOP | _SOFT_STOP for w in words[1:])):
        return None
    end = _strip(text, start, start + words[-1].end())
    if len(words) == 3 and words[1].group(0) == "/" and not plural:
        start += words[2].start()  # "admin / Orchid#2210", "jane@example.com / Popcorn#12": after the user
    ending = _CJK_ENDING.search(text, start, end)
    if ending and ending.start() > start:
        end = ending.start()
    value = text[start:end]
    if not value or not (strong or _secretish(value, strong)):
        return None
    return start, end


def _looks_like_value(value: str, strong: bool) -> bool:
    v = value.lower().strip(_TRAILING)
    return bool(v) and v not in _HARD_STOP and v not in _SOFT_STOP and (strong or _secretish(value, strong))


_SPELT = re.compile(r"(?:\w ){5,}\w")


def _secretish(value: str, strong: bool = False) -> bool:
    """A word mixing letters and digits, three digits or more (perhaps in groups: "36 24 36"), a
    symbol among letters, or number words; a price ("$450", "12 euros") is none of these."""
    if _NUMBER_WORDS.fullmatch(value.strip() + " "):
        return True
    if re.fullmatch(r"(?:[^\W\d_][ \-]?)?\d[\d \-./]*\d", value.strip()) and sum(c.isdigit() for c in value) >= 3:
        return True  # "36 24 36", "B 1 9 7 3"
    if _SPELT.fullmatch(value.strip()):
        return _secretish("".join(value.split()))  # spelt one sign at a time: "g r e e n h o u s e 4 2"
    words = value.split()
    if any(w.lower().strip(_TRAILING) in _MONEY_WORDS for w in words):
        return False
    for word in words:
        word = word.strip(_TRAILING)
        if _MONEY.fullmatch(word) or measure(word):
            continue
        digits = sum(c.isdigit() for c in word)
        letters = sum(c.isalpha() for c in word)
        if len(word) >= 3 and digits and (letters or digits >= 3):
            return True
        if letters and len(word) >= 4 and _SYMBOL.search(word):
            return True
    return False


def _strip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    return end
