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

import re
from collections.abc import Iterator

from memory.sensitive.values import names_a_product

_PLACES = (r"(?:front |back |side |garage |storage |bike |gym |house |apartment |building |office )?"
           r"(?:door|gate|garage|garage opener|opener|alarm|alarm panel|safe|padlock|lock|locker|lockbox|key ?box|"
           r"storage unit|shed|keypad|intercom|buzzer|mailbox|vault)")
# Where the thing is, a few words after it: "the safe in the office", "the lockbox at the airbnb".
_PLACED = (r"(?:[ \t]+(?:in|at|on|by|of|to|for|behind|outside|near)[ \t]+(?:(?:the|my|our|your|a)[ \t]+)?"
           r"(?:[^\W\d_][\w'’-]*[ \t]+)?[^\W\d_][\w'’-]*)?")
# What a combination is set on; an alarm or an oven is set to a time or a heat.
_LOCKS = r"(?:padlock|lock|locker|lockbox|key ?box|key safe|safe)"
# Devices are unlocked with digits too, but "phone: 555-1234" is a number to call: in sentences only.
_DEVICES = r"(?:phone|iphone|ipad|laptop|tablet|sim|voicemail|screen)"
_SERVICES = (r"(?:online )?(?:bank|banking|gmail|e-?mail|mail|outlook|hotmail|yahoo|icloud|apple id|netflix|amazon|"
             r"paypal|facebook|instagram|twitter|tiktok|linkedin|dropbox|spotify|hulu|disney\+?|github|gitlab|"
             r"slack|zoom|steam|xbox|psn|playstation|nintendo|wifi|wi-fi|wlan|vpn|login|ebay|uber|airbnb|google|"
             r"microsoft|office ?365|adobe|twitch|reddit|discord|whatsapp|telegram|venmo|revolut|coinbase|binance|"
             r"metamask|bitwarden|lastpass|1password|router|modem|nas|printer|server)")
# Every word those are made of: a text without one is not read here.
_WORDS = frozenset("""
door gate garage opener alarm panel safe padlock lock locker lockbox key keybox storage unit shed keypad
intercom buzzer mailbox vault phone iphone ipad laptop tablet sim voicemail screen
bank banking gmail email mail outlook hotmail yahoo icloud apple id netflix amazon paypal facebook instagram
twitter tiktok linkedin dropbox spotify hulu disney github gitlab slack zoom steam xbox psn playstation
nintendo wifi wi fi wlan vpn login ebay uber airbnb google microsoft office adobe twitch reddit discord
whatsapp telegram venmo revolut coinbase binance metamask bitwarden lastpass password log logs logged logging
sign signs signed signing router modem nas printer server
""".split())
# A label starts a line, a list item or a clause: "...; gate: 2580#", "my pin is 5531 and the alarm: 8890".
_START = (r"(?:^|(?<=\n)|(?<=;)|(?<=,)|(?<=:)|(?<=(?<![^\W_])and)|(?<=(?<![^\W_])und)|(?<=(?<![^\W_])et))[ \t]*"
          r"(?:[-*•·]|\d{1,2}[.)])?[ \t]*(?:(?:my|the|our|your)[ \t]+)?")
_SIGN = r"[ \t]*(?::|—|–|=|->|[ \t]-)[ \t]*"
_END = r"(?=[ \t]*(?:$|\n|;|,[ \t]))"
# A value is one token, or digits with single spaces ("lockbox: 6 4 1 8"); one word may name whose the
# thing is ("the Airbnb lockbox: ...").
_LABEL = re.compile(rf"{_START}(?:[^\W\d_][\w'’-]*[ \t]+)?(?:(?P<place>{_PLACES}){_PLACED}|(?P<service>{_SERVICES}))"
                    rf"{_SIGN}(?P<value>\d(?: ?\d){{2,}}#?|[^\s,;]+){_END}", re.I | re.M)
_USER_SECRET = re.compile(rf"{_START}(?:[^\W\d_][\w'+.&-]*[ \t]+){{0,2}}?[^\W\d_][\w'+.&-]*{_SIGN}"
                          rf"(?P<user>[^\s/@]+@[^\s/]+)(?:[ \t]*/[ \t]*|[ \t]+)(?P<secret>[^\s,;]+){_END}", re.I | re.M)
_USER_SECRET_LABELLED = re.compile(rf"{_START}(?:{_PLACES}|{_SERVICES})(?:{_SIGN}|[ \t]+)[^\s/:]+[ \t]*/[ \t]*"
                                   rf"(?P<secret>[^\s,;]+){_END}", re.I | re.M)
_DIGITS = re.compile(r"\d(?:[ -]?\d){2,}#?")
_OPENS = (r"(?:opens?|opened|unlocks?|unlocked|disarms?|disarmed|deactivates?|deactivated|turns? off|turned off|"
          r"switch(?:es)? off|shuts? off)")
_ENTRY = r"(?:with|using|by typing|by entering|type|enter|key in|punch in|punch|press|dial|code|is|:|=)"
_VALUE = r"(?P<value>\d(?:[ -]?\d){2,}#?)(?![\w:/.,]\d)(?![\w:/])"
# Digits that end their clause: "takes 0 9 3 3", and not "takes 120 kg".
_LAST = r"(?=[ \t]*(?:$|\n|[.;,!?)]))"
_OPENED = (
    re.compile(rf"(?<![^\W_])(?P<place>{_PLACES}|{_DEVICES})(?![^\W_])[^\n.;,]{{0,30}}?"
               rf"(?<![^\W_]){_OPENS}(?![^\W_])[ \t]*"
               rf"(?:(?:it|them)[ \t]+)?(?:(?:number|code|digits|sequence)[ \t]+)?(?:{_ENTRY}[ \t]*)?{_VALUE}",
               re.I),
    re.compile(rf"(?<![^\W_]){_OPENS}[ \t]+(?:(?:the|my|our|your|a)[ \t]+)?(?:[^\W\d_]+[ \t]+){{0,2}}?"
               rf"(?P<place>{_PLACES}|{_DEVICES})(?![^\W_])[ \t]*,?[ \t]*(?:{_ENTRY}[ \t]*)?{_VALUE}", re.I),
    # "the storage unit keypad takes 80417": what a keypad takes.
    re.compile(rf"(?<![^\W_])(?P<place>keypad|key ?pad|door panel|alarm panel)(?![^\W_])[ \t]+"
               rf"(?:takes|accepts|wants|needs|asks for|is|uses)[ \t]+{_VALUE}", re.I),
    # "the lockbox at the airbnb takes 0 9 3 3", "the bike lock is set to 3-1-8".
    re.compile(rf"(?<![^\W_])(?P<place>{_PLACES})(?![^\W_]){_PLACED}[ \t]+(?:takes|accepts)[ \t]+{_VALUE}{_LAST}",
               re.I),
    re.compile(rf"(?<![^\W_])(?P<place>{_LOCKS})(?![^\W_])(?:['’]s|[ \t]+is|[ \t]+was)?[ \t]+set[ \t]+(?:to|on)"
               rf"[ \t]+{_VALUE}{_LAST}", re.I),
    # "office alarm 7734, disarm before 8am": the digits right after the thing, the verb after them.
    re.compile(rf"(?<![^\W_])(?P<place>{_PLACES})(?![^\W_])[ \t]+{_VALUE}[^\n.;]{{0,30}}?(?<![^\W_]){_OPENS}"
               rf"(?![^\W_])", re.I),
)
_OPENING = frozenset("open opens opened unlock unlocks unlocked disarm disarms disarmed deactivate deactivates "
                     "deactivated off keypad takes accepts wants needs set".split())
# "log into the bank with Qx7-hunter22", "log in with joe / hunter2".
_LOGIN = re.compile(r"(?<![^\W_])(?:log|sign)(?:s|ged|ging)?[ -]?(?:in|on)(?:to)?(?![^\W_])[^\n.;]{0,40}?"
                    r"(?<![^\W_])(?:with|using)[ \t]+(?:[^\s/]+[ \t]*/[ \t]*)?(?P<secret>[^\s,;]+?)"
                    r"(?=[.!?]?[ \t]*(?:$|\n|[;,]))", re.I)
# "hunter3 is what I use for email": a value said to be what one uses for an account is its password.
_USED_FOR = re.compile(rf"(?:^|(?<=[\s(\"'“]))(?P<secret>[^\s,;:\"'“”]+)[ \t]+(?:is|was|'s)[ \t]+"
                       rf"(?:what|the one|the thing)[ \t]+I[ \t]+(?:use|used|type|typed|enter|log[ \t]+in[ \t]+with)"
                       rf"[ \t]+(?:for|on|with|to[ \t]+(?:log|sign)[ \t]+(?:in|into|on)(?:[ \t]+to)?)[ \t]+"
                       rf"(?:(?:my|the|our)[ \t]+)?{_SERVICES}(?:[ \t]+(?:account|login))?"
                       r"(?=[.!?]?[ \t]*(?:$|\n|[;,)]))", re.I)
_USE = frozenset("use used type typed enter log".split())
NOT_A_CODE = re.compile(r"\d{1,2}[:.]\d{2}|\d{1,2}/\d{1,2}(?:/\d+)?|\d+(?:st|nd|rd|th|am|pm|h|min|k|x)", re.I)
_LISTS_PASSWORDS = re.compile(r"(?<![^\W_])(?:passwords?|passwds?|pws|logins|credentials|creds|"
                              r"passwörter|mots de passe|contraseñas|senhas|wachtwoorden)(?![^\W_])", re.I)
_HANDLE = re.compile(r"[a-z][a-z0-9._-]{1,31}")
_SYMBOL = re.compile(r"[!@#$%^&*_+=~?]")


def find(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    if not words & _WORDS and "@" not in text:
        return
    if any(sign in text for sign in (":", "—", "–", "=", "-", ">")):
        lists_passwords = None
        for match in _LABEL.finditer(text):
            value = match.group("value")
            if match.group("place"):
                if _DIGITS.fullmatch(value) and not NOT_A_CODE.fullmatch(value):
                    yield match.start("value"), match.end("value"), _kind(match.group("place"))
                continue
            if lists_passwords is None:
                lists_passwords = bool(_LISTS_PASSWORDS.search(text))
            if match.group("service").lower() == "login" and _HANDLE.fullmatch(value):
                continue  # "login: ellen83" names the user
            if password_shaped(value, lists_passwords):
                yield match.start("value"), match.end("value"), "credential"
        if "@" in text:
            for match in _USER_SECRET.finditer(text):
                if password_shaped(match.group("secret"), True):
                    yield match.start("secret"), match.end("secret"), "credential"
        if "/" in text:
            for match in _USER_SECRET_LABELLED.finditer(text):
                if password_shaped(match.group("secret"), True):
                    yield match.start("secret"), match.end("secret"), "credential"
    if words & {"log", "logs", "logged", "logging", "login", "sign", "signs", "signed", "signing"}:
        for match in _LOGIN.finditer(text):
            if password_shaped(match.group("secret"), True):
                yield match.start("secret"), match.end("secret"), "credential"
    if words & _USE:
        for match in _USED_FOR.finditer(text):
            secret = match.group("secret")
            if password_shaped(secret, True) and not names_a_product(secret):
                yield match.start("secret"), match.end("secret"), "credential"
    for pattern in _OPENED if words & _OPENING else ():
        for match in pattern.finditer(text):
            yield match.start("value"), match.end("value"), _kind(match.group("place"))


def password_shaped(value: str, listed: bool) -> bool:
    """Letters with digits and a symbol or both cases; letters with digits alone when the text lists
    passwords. Not an e-mail address, a handle, a link, a time, an ordinal."""
    if value.startswith(("@", "#", "http")) or "@" in value[1:] or "://" in value or NOT_A_CODE.fullmatch(value):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if not letters or not digits or len(value) < 5:
        return listed and len(value) >= 4 and bool(letters) and bool(digits or _SYMBOL.search(value))
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return listed or mixed_case or bool(_SYMBOL.search(value))


def _kind(place: str) -> str:
    return "combination" if re.search(r"lock|safe", place, re.I) else "code"
