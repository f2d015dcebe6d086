"""Number-shaped identifiers, checked with python-stdnum's validators (check digits, not guesses):
payment cards (Luhn and an issuer prefix) with their CVV, IBANs, and national identity numbers.

A Luhn-valid number of card length is taken when it reads as a card: written in the groups cards are
printed in ("4111 1111 1111 1111"), or with a card word nearby (card, Visa, CVV, Karte, tarjeta, ...);
an order number that happens to pass Luhn is not one. National ids made of digits alone (a German
Steuer-ID, a Dutch BSN, a French NIR, ...) are taken only after their name; a US SSN written
123-45-6789 and an Italian codice fiscale are distinctive enough alone. The validators are imported
when a candidate appears, so a text without one costs a few regular-expression scans.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Iterator

# Groups are printed with spaces or dashes, and written with dots too ("4532.0151.1283.0366").
_CARD_CANDIDATE = re.compile(r"(?<![\w.-])\d(?:[ -]?\d){12,18}(?![\w-])(?!\.\d)|"
                             r"(?<![\w.-])\d{4}(?:\.\d{4}){3}(?:\.\d{1,3})?(?![\w.-])")
_CARD_GROUPS = re.compile(r"\d{4}([ .-])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{4,5}")
_CARD_PREFIX = re.compile(r"4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|3(?:0[0-5]|[68])|6(?:011|4[4-9]|5)|35|62")
_CARD_WORDS = re.compile(
    r"(?<![^\W_])(?:cards?|credit|debit|visa|master ?card|mastercard|amex|american express|maestro|discover|jcb|"
    r"diners|cvv2?|cvc2?|csc|exp(?:iry|ires|iration)?|karte|kreditkarte|carte|tarjeta|carta|kaart|creditcard|"
    r"cartão|kort|karta)(?![^\W_])", re.I)
_CVV = re.compile(
    r"(?<![^\W_])(?:cvv2?|cvc2?|csc|cid|card security code|card verification (?:value|code)|kartenprüfnummer|"
    r"prüfnummer|cryptogramme(?: visuel)?|código de seguridad|codice di sicurezza|código de segurança|"
    r"security code)(?![^\W_])\s*(?:[:=#]|is|ist|est|es|è|é)?\s*(\d{3,4})(?!\d)",
    re.I)
_IBAN_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])")
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_CODICE_FISCALE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z](?![A-Za-z0-9])")
# The name of an id, then its value: (pattern of the name, stdnum modules that may validate it).
_NAMED_IDS: list[tuple[str, tuple[str, ...]]] = [
    (r"ssn|social security(?: number| no\.?)?|sozialversicherungsnummer", ("us.ssn",)),
    (r"itin", ("us.itin",)),
    (r"steuer-?id|steuerliche identifikationsnummer|identifikationsnummer|idnr", ("de.idnr",)),
    (r"bsn|burgerservicenummer|sofinummer", ("nl.bsn",)),
    (r"dni|nie|nif|documento nacional de identidad", ("es.dni", "es.nie", "es.nif", "pt.nif")),
    (r"codice fiscale|cod\. fisc\.", ("it.codicefiscale",)),
    (r"nir|num[ée]ro de s[ée]curit[ée] sociale|n° de s[ée]curit[ée] sociale|num[ée]ro insee|s[ée]cu", ("fr.nir",)),
    (r"n[uú]mero de contribuinte|contribuinte|nif|cart[aã]o de cidad[aã]o", ("pt.nif", "pt.cc")),
    (r"rijksregisternummer|num[ée]ro national|national number", ("be.nn",)),
    (r"personnummer", ("se.personnummer",)),
    (r"cpr(?:-nummer| number)?", ("dk.cpr",)),
    (r"f[øo]dselsnummer", ("no.fodselsnummer",)),
    (r"henkil[öo]tunnus|hetu", ("fi.hetu",)),
    (r"pesel", ("pl.pesel",)),
    (r"ahv(?:-nummer)?|avs", ("ch.ssn",)),
    (r"cpf", ("br.cpf",)),
    (r"national insurance(?: number| no\.?)?|ni number|nino", ("gb.nino",)),
]
_NAMED_ID = re.compile(
    r"(?<![^\W_])(?:" + "|".join(f"(?P<id{i}>{name})" for i, (name, _) in enumerate(_NAMED_IDS)) + r")(?![^\W_])"
    r"(?:\s*(?:number|no\.?|nr\.?|nummer|numéro|número|#))?"
    # what it is for, before the sign: "DNI para la reserva: 73293425S", "NIF para a fatura: 241619114"
    r"(?:\s+(?:for|para|pour|für|per|voor)\s+[^\n:;.=]{1,30}?(?=\s*:))?"
    r"\s*(?:[:=#]|is|ist|est|es|è|é|lautet)?\s*"
    r"(?P<value>[A-Za-z0-9][A-Za-z0-9 ./-]{4,24})", re.I)
# Numbers known by the word before them, without a check digit to test (or with one stdnum has:
# a US routing number): (pattern of the name, kind, shape of the value, least digits in it).
_ACCOUNT_IDS: list[tuple[str, str, str, int]] = [
    (r"passport(?: number| no\.?| #)?|reisepass(?:nummer)?|passeport|pasaporte|passaporto|paspoort|passaporte",
     "national_id", r"[A-Z0-9]{6,10}", 5),
    (r"driver'?s? licen[cs]e(?: number| no\.?)?|driving licen[cs]e(?: number| no\.?)?|dl(?: number| no\.?|#)|"
     r"führerschein(?:nummer)?|permis de conduire", "national_id", r"[A-Z0-9][A-Z0-9-]{5,19}", 5),
    (r"(?:bank )?account(?: number| no\.?| nr\.?| #)?|acct(?: no\.?| #)?|a/c(?: no\.?)?|kontonummer|"
     r"numéro de compte|número de cuenta|rekeningnummer", "bank_account", r"\d[\d -]{4,18}\d", 6),
    (r"sort ?code", "bank_account", r"\d{2}[- ]?\d{2}[- ]?\d{2}", 6),
    (r"bsb(?: number| no\.?)?", "bank_account", r"\d{3}[- ]?\d{3}", 6),
    (r"(?:aba )?routing(?: number| no\.?| #)?|aba(?: number| no\.?)?|rtn", "bank_account", r"\d{9}", 9),
    (r"bic|swift(?: code)?", "bank_account", r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?", 0),
]
_ACCOUNT_ID = re.compile(
    r"(?<![^\W_])(?:" + "|".join(f"(?P<acc{i}>{name})" for i, (name, *_) in enumerate(_ACCOUNT_IDS)) + r")(?![^\W_])"
    r"\s*(?:[:=#]|is|was|ist|est|es)?\s*(?=(?P<value>[A-Za-z0-9][A-Za-z0-9 -]{2,24}))", re.I)
_YEARS = re.compile(r"(?:19|20)\d\d\s*-\s*(?:19|20)?\d\d")
_ACCOUNT_WORDS = frozenset("""
passport reisepass reisepassnummer passeport pasaporte passaporto paspoort passaporte driver drivers driving
licence license dl führerschein führerscheinnummer permis account acct a c kontonummer compte cuenta
rekeningnummer sort sortcode bsb routing aba rtn bic swift
""".split())
# After a card: its expiry ("12/27", "exp 09/28") and a lone three or four digits (its CVV).
_CARD_TAIL = re.compile(r"[ \t,]*(?:(?:exp(?:iry|ires|iration)?|valid thru|gültig bis)\.?:?[ \t]*)?"
                        r"(?P<exp>(?:0[1-9]|1[0-2])/(?:\d{2}|20\d{2}))(?!\d)"
                        r"(?:[ \t,]*(?:(?:cvv2?|cvc2?|csc)\s*:?[ \t]*)?(?P<cvv>\d{3,4})(?![\w/-]))?", re.I)
_VERSION = re.compile(r"(?<![^\W_])(?:version|v|build|release|ver)\.?[ \t]*$", re.I)
_NINO = re.compile(r"[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]", re.I)


# The words the CVV and the named-id patterns start with: a text without any skips those patterns.
_CVV_WORDS = frozenset("cvv cvc csc cid security card verification kartenprüfnummer prüfnummer cryptogramme "
                       "seguridad sicurezza segurança".split())
_ID_WORDS = frozenset("""
ssn social sozialversicherungsnummer itin steuer steuerliche identifikationsnummer idnr bsn burgerservicenummer
sofinummer dni nie nif documento codice cod nir numéro numero n insee sécu secu sécurité securite contribuinte
número cartão cartao rijksregisternummer national personnummer cpr fødselsnummer fodselsnummer henkilötunnus
henkilotunnus hetu pesel ahv avs insurance ni nino cpf
""".split())
_DIGIT = re.compile(r"\d")


def find(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    if not _DIGIT.search(text):
        return
    yield from _cards(text, words)
    yield from _ibans(text)
    yield from _national_ids(text, words)
    if words & _ACCOUNT_WORDS:
        yield from _account_ids(text)


def _account_ids(text: str) -> Iterator[tuple[int, int, str]]:
    """Passport, driving licence and bank account numbers after their name: "passport: C01X00T47",
    "sort code 12-34-56", "routing 021000021" (checked by stdnum)."""
    for match in _ACCOUNT_ID.finditer(text):
        index = next(int(k[3:]) for k, v in match.groupdict().items() if k.startswith("acc") and v is not None)
        _, kind, shape, least = _ACCOUNT_IDS[index]
        value = re.compile(shape, re.I if least else 0).match(match.group("value"))
        if not value or sum(c.isdigit() for c in value.group(0)) < least:
            continue
        end = match.start("value") + value.end()
        if end < len(text) and (text[end].isalnum() or text[end] in "/:.,-" and end + 1 < len(text)
                                and text[end + 1].isdigit()):
            continue  # part of something longer: a date, a time, an amount
        if _YEARS.fullmatch(value.group(0)) or index == 5 and not _valid("us.rtn", value.group(0)):
            continue
        if not least and not re.search(r"[A-Z]{6}", value.group(0)):
            continue
        yield match.start("value"), end, kind


def _cards(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    for match in _CARD_CANDIDATE.finditer(text):
        card = _card_in(match.group(0))
        if not card:
            continue
        start, end = match.start(), match.start() + card
        if "." in text[start:end] and _VERSION.search(text, max(0, start - 12), start):
            continue  # "version 4532.0151.1283.0366"
        near = text[max(0, start - 60):end + 60]
        if _CARD_GROUPS.fullmatch(text, start, end) or _CARD_WORDS.search(near):
            yield start, end, "card"
            tail = _CARD_TAIL.match(text, end)
            if tail:
                yield tail.start("exp"), tail.end("exp"), "card"
                if tail.group("cvv"):
                    yield tail.start("cvv"), tail.end("cvv"), "card"
    for match in _CVV.finditer(text) if words & _CVV_WORDS else ():
        # "security code" is a card's only after a card word: an alarm has a security code too
        if match.group(0).lower().startswith("security") and not _CARD_WORDS.search(
                text[max(0, match.start() - 60):match.start()]):
            continue
        yield match.start(1), match.end(1), "card"


def _card_in(run: str) -> int:
    """The length of the card number a run of digits starts with: the whole run, or the longest part
    of it ending where a group ends ("4111 1111 1111 1111 12" runs into an expiry); 0 when none."""
    cuts = [m.start() for m in re.finditer(r"[ .-](?=\d)|$", run)]
    for cut in sorted(cuts, reverse=True):
        digits = re.sub(r"\D", "", run[:cut])
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _valid("luhn", digits):
            return cut
    return 0


def _ibans(text: str) -> Iterator[tuple[int, int, str]]:
    for match in _IBAN_CANDIDATE.finditer(text):
        end = _longest_valid(match.group(0), ("iban",))
        if end:
            yield match.start(), match.start() + end, "iban"


def _national_ids(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    for match in _SSN.finditer(text):
        if _valid("us.ssn", match.group(0)):
            yield match.start(), match.end(), "national_id"
    for match in _CODICE_FISCALE.finditer(text):
        if _valid("it.codicefiscale", match.group(0)):
            yield match.start(), match.end(), "national_id"
    for match in _NAMED_ID.finditer(text) if words & _ID_WORDS else ():
        index = next(int(k[2:]) for k, v in match.groupdict().items() if k.startswith("id") and v is not None)
        value = match.group("value")
        end = _longest_valid(value, _NAMED_IDS[index][1])
        if end:
            yield match.start("value"), match.start("value") + end, "national_id"


def _longest_valid(candidate: str, validators: tuple[str, ...]) -> int:
    """The length of the longest prefix of `candidate`, cut where a group ends, that a validator
    accepts (an IBAN followed by "BIC ABNANL2A", an id followed by a word); 0 when none does."""
    cuts = [m.start() for m in re.finditer(r"[ ./-](?=\S)|$", candidate)]
    for cut in sorted(set(cuts), reverse=True):
        value = candidate[:cut].rstrip(" ./-")
        if len(value) >= 5 and any(_valid(name, value) for name in validators):
            return len(value)
    return 0


def _valid(name: str, value: str) -> bool:
    if name == "gb.nino":  # python-stdnum has no NINO module; its shape is specific enough
        return bool(_NINO.fullmatch(value.strip()))
    module = importlib.import_module(f"stdnum.{name}")
    value = re.sub(r"\s", "", value)  # "432 87 1190": not every validator's compact() drops spaces
    return bool(module.is_valid(value.upper() if name == "iban" else value))


def anchor_words() -> frozenset[str]:
    """The words numbers are known by here: ids' and accounts' names, card words (windows.py)."""
    card = {w.lower() for w in re.findall(r"[^\W\d_]+", _CARD_WORDS.pattern + _CVV.pattern) if len(w) > 2}
    return frozenset(_ID_WORDS | _ACCOUNT_WORDS | card)
