"""Number-shaped identifiers, checked with python-stdnum's validators (check digits, not guesses):
payment cards (Luhn and an issuer prefix) with their CVV, IBANs, and national identity numbers.

A Luhn-valid number of card length is taken when it reads as a card: written in the groups cards are
printed in ("4111 1111 1111 1111"), opening its line with its expiry and CVV ("5358712044198635 03/30 737"),
or with a card word nearby (card, Visa, CVV, Karte, tarjeta, ...);
an order number that happens to pass Luhn is not one. An IBAN is known by its own check digits (ISO 7064
mod 97) and its country's length and layout, wherever it stands and however its groups are spaced; the
national check digits inside it are its bank's business. National ids made of digits alone (a German
Steuer-ID, a Dutch BSN, a French NIR, ...) are taken after their name: right after it, or further in its
sentence when their own check digits say so ("CPF da minha mãe pra marcar a consulta: 381.475.029-23",
"Steuer-ID ..., sie lautet 48 701 196 218"); right after its name, a number the validator refuses is
taken too (the name says what it is: "National Insurance number QX 48 19 22 C"). Alone, only what is
written in its own layout: a US SSN 123-45-6789, a Brazilian CPF 381.475.029-23, a French NIR in its
groups, a UK NI number in its pairs, an Italian codice fiscale. The last four digits of a card or an id said
as such ("last 4 of my SSN are 7381", "the old card ended in 0934") are taken too. The validators are imported when a
candidate appears, so a text without one costs a few regular-expression scans.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from functools import cache

from memory.sensitive import vocabulary

# Groups are printed with spaces or dashes, and written with dots too ("4532.0151.1283.0366").
_CARD_CANDIDATE = re.compile(r"(?<![\w.-])\d(?:[ -]?\d){12,18}(?![\w-])(?!\.\d)|"
                             r"(?<![\w.-])\d{4}(?:\.\d{4}){3}(?:\.\d{1,3})?(?![\w.-])")
_CARD_GROUPS = re.compile(r"\d{4}([ .-])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{4,5}")
_CARD_PREFIX = re.compile(r"4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|3(?:0[0-5]|[68])|6(?:011|4[4-9]|5)|35|62")
_CARD_WORD_LIST = (r"cards?|credit|debit|visa|master ?card|mastercard|amex|american express|maestro|discover|jcb|"
                   r"diners|cvv2?|cvc2?|csc|exp(?:iry|ires|iration)?|karte|kreditkarte|carte|tarjeta|carta|kaart|"
                   r"creditcard|cartão|kort|karta")
_CARD_WORDS = re.compile(rf"(?<![^\W_])(?:{_CARD_WORD_LIST})(?![^\W_])", re.I)
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
    (r"national insurance(?: number| no\.?)?|ni(?: number| no\.?)|nino", ("gb.nino",)),
    (r"nhs(?: number| no\.?)?", ("gb.nhs",)),
    (r"utr|unique taxpayer reference", ("gb.utr",)),
    (r"pps(?: number| no\.?)?|ppsn", ("ie.pps",)),
    (r"sozialversicherungsnummer|svnr|versicherungsnummer", ("at.vnr", "de.rvnr")),
    (r"ein|employer identification number", ("us.ein",)),
    (r"tfn|tax file number", ("au.tfn",)),
    (r"social insurance number|sin number|sin", ("ca.sin",)),  # "my SIN is 527 190 383" (blind round 16)
    (r"tin|tax id(?:entification number)?|taxpayer identification number", ("us.itin", "us.ein")),
]
# Ids whose validator tests no check digit (a range, a shape): taken only right after their name.
_UNCHECKED = frozenset({"us.ssn", "us.itin", "gb.nino", "dk.cpr", "us.ein", "ca.sin"})
_NAMED_ID = vocabulary.lazy_pattern(lambda: (
    r"(?<![^\W_])(?:" + "|".join(f"(?P<id{i}>{name})" for i, (name, _) in enumerate(_NAMED_IDS)) + r")(?![^\W_])"
    # its abbreviation after it: "unique taxpayer reference (UTR) 4829107365"; or an aside in brackets, commas or
    # dashes (blind round 11): "tax file number (Australia, for the old super account) is 483 172 965"
    r"(?:\s*\((?:[A-Za-z]{2,6}|[^()\n\d]{3,60})\)|\s*,[^,()\n\d]{3,60},|[ \t]+[-–—][ \t][^-–—()\n\d]{3,60}[ \t][-–—])?"
    r"(?:\s*(?:number|no\.?|nr\.?|nummer|numéro|número|#))?"
    # whose it is, a few words led by "of" before a sign or the value's digits: "numéro de sécu de Léa : 2 21
    # ...", "codice fiscale di mia madre RSSMRA..." (right after its name all the same)
    rf"(?:[ \t]+(?:{vocabulary.alternation('of')})(?![^\W_])(?:[ \t]+[^\W\d_][\w'’-]*){{1,3}}?"
    r"(?=\s*(?:[:=#]\s*)?[A-Za-z]{0,6}\d))?"
    # what it is for, before the sign: "DNI para la reserva: 73293425S", "NIF para a fatura: 241619114"
    r"(?:\s+(?:for|para|pour|für|per|voor)\s+[^\n:;.=]{1,30}?(?=\s*:))?"
    r"\s*(?:[:=#]|is|are|ist|est|c'est|c’est|es|è|é|lautet)?\s*"
    r"(?P<value>[A-Za-z0-9][A-Za-z0-9 ./-]{4,24})?"), re.I)
# Numbers known by the word before them, without a check digit to test (or with one stdnum has:
# a US routing number): (pattern of the name, kind, shape of the value, least digits in it).
_ACCOUNT_IDS: list[tuple[str, str, str, int]] = [
    # an identity document's number, in one group or in groups of digits: "passport number is 5512 87403"
    (r"passport(?: number| no\.?| #)?|reisepass(?:nummer)?|passeport|pasaporte|passaporto|paspoort|passaporte|"
     r"(?:personal)?ausweis(?:nummer|-?nr\.?)?|id card(?: number| no\.?)?|identity card(?: number| no\.?)?|"
     r"carte d'identit[ée]|carta d'identit[àa]|documento de identidad|identiteitskaart(?:nummer)?|"
     r"bilhete de identidade", "national_id", r"\d{2,5}(?: \d{2,6}){1,2}(?! ?\d)|[A-Z0-9]{6,10}", 5),
    # an Australian Medicare card's number, 10 digits and the person's place on the card (blind round 17)
    (r"medicare(?: card)?(?: number| no\.?| #)?", "national_id", r"\d{4}[ -]?\d{5}[ -]?\d(?:[ /-]?\d)?", 10),
    (r"driver'?s? licen[cs]e(?: number| no\.?)?|driving licen[cs]e(?: number| no\.?)?|dl(?: number| no\.?|#)|"
     r"führerschein(?:nummer)?|permis de conduire", "national_id", r"[A-Z0-9][A-Z0-9-]{5,19}", 5),
    (r"(?:bank )?account(?: number| no\.?| nr\.?| #)?|acct(?: no\.?| #)?|acc\.?(?: no\.?| nr\.?| #| number)|"
     r"a/c(?: no\.?)?|kontonummer|numéro de compte|número de cuenta|rekeningnummer",
     "bank_account", r"\d[\d -]{4,28}\d", 6),
    (r"sort ?code|sort(?= \d\d-\d\d-\d\d)", "bank_account", r"\d{2}[- ]?\d{2}[- ]?\d{2}", 6),
    (r"bsb(?: number| no\.?)?", "bank_account", r"\d{3}[- ]?\d{3}", 6),
    (r"(?:aba )?routing(?: number| no\.?| #)?|aba(?: number| no\.?)?|rtn", "bank_account", r"\d{9}", 9),
    (r"bic|swift(?: code)?", "bank_account", r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?", 0),
]
_ROUTING = next(i for i, (name, *_) in enumerate(_ACCOUNT_IDS) if "routing" in name)  # checked by its digit
# Whose the account is, between its name and the sign: "Kontonummer der Oma bei der Sparkasse lautet ...",
# "the joint account number with Priya is ...", "número de cuenta de la comunidad: ..." (a phrase led by a
# preposition or an article, without digits, up to a label sign or a copula).
_COPULAS = r"is|was|are|ist|lautet|war|est|c'est|es|era|è|é|zijn|is|são|sont|sind"
_ACCOUNT_ID = vocabulary.lazy_pattern(lambda: (
    r"(?<![^\W_])(?:" + "|".join(f"(?P<acc{i}>{name})" for i, (name, *_) in enumerate(_ACCOUNT_IDS)) + r")(?![^\W_])"
    rf"(?:[ \t]+(?:{vocabulary.alternation('prepositions', True)}|{vocabulary.alternation('of')}|with|mit|avec|con|com|"
    rf"met|bij|at|bei|chez)(?![^\W_])[^\n.;:!?=\d]{{0,40}}?(?=[ \t]*(?::|=|[ \t](?:{_COPULAS})[ \t])))?"
    rf"\s*(?:[:=#]|(?:{_COPULAS})(?![^\W_]))?\s*(?=(?P<value>[A-Za-z0-9][A-Za-z0-9 /-]{{2,34}}))"), re.I)
_YEARS = re.compile(r"(?:19|20)\d\d\s*-\s*(?:19|20)?\d\d")
_ACCOUNT_WORDS = frozenset("""
medicare passport reisepass reisepassnummer passeport pasaporte passaporto paspoort passaporte driver drivers driving
licence license dl führerschein führerscheinnummer permis account acct acc a c kontonummer compte cuenta
personalausweis personalausweisnummer ausweis ausweisnummer id identity carte carta documento identiteitskaart
identiteitskaartnummer bilhete
rekeningnummer sort sortcode bsb routing aba rtn bic swift
""".split())
# After a card: its expiry ("12/27", "exp 09/28") and a lone three or four digits (its CVV).
# After a card's number: its expiry (in a bracket, after a word for it: the data files' `card_expiry`, "läuft ab",
# "caduca", "expira", an attacker's), then perhaps its CVV (after one of `card_check`: "cvv", "Prüfziffer", ...).
_CARD_TAIL = vocabulary.lazy_pattern(lambda: (
    rf"[ \t,]*(?:(?:{vocabulary.alternation('card_expiry', True)})\.?:?[ \t]*)?\("
    r"?(?P<exp>(?:0[1-9]|1[0-2])/(?:\d{2}|20\d{2}))(?!\d)\)?"
    rf"(?:[ \t,]*(?:(?:{vocabulary.alternation('card_check', True)})\s*:?[ \t]*)?(?P<cvv>\d{{3,4}})(?![\w/-]))?"), re.I)
_VERSION = re.compile(r"(?<![^\W_])(?:version|v|build|release|ver)\.?[ \t]*$", re.I)
_NINO = re.compile(r"[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]", re.I)
# After its name, any two letters: a made-up or mistyped NI number is still one ("QX 48 19 22 C").
_NAMED_NINO = re.compile(r"[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]", re.I)
# Ids written in their own layout, distinctive enough alone when their check digits agree: a CPF
# "381.475.029-23", a French NIR in its groups "1 85 07 75 116 238 48", a NI number in its pairs.
_LAID_OUT = [
    (re.compile(r"(?<![\d.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d.-])"), "br.cpf"),
    (re.compile(r"(?<!\d)(?<!\d )[12] \d{2} \d{2} (?:\d{2}|2[AB]) \d{3} \d{3} \d{2}(?![\d])"), "fr.nir"),
    (re.compile(r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z]{2} \d{2} \d{2} \d{2} [A-D](?![A-Za-z0-9])"), "gb.nino"),
]
# Where a named id's value may stand further in its sentence: a group of digits (perhaps with a letter
# first or last, "X-3545201-G") with five digits or more.
_ID_CANDIDATE = re.compile(r"(?<![\w.-])[A-Za-z]?[ -]?\d(?:[\d .\-/]*\d)?(?:[ -]?[A-Za-z])?(?![\w-])")
_SENTENCE_END = re.compile(r"\n|[.!?;](?=\s|$)")


# The words the CVV and the named-id patterns start with: a text without any skips those patterns.
_CVV_WORDS = frozenset("cvv cvc csc cid security card verification kartenprüfnummer prüfnummer cryptogramme "
                       "seguridad sicurezza segurança".split())
_ID_WORDS = frozenset("""
ssn social sozialversicherungsnummer itin steuer steuerliche identifikationsnummer idnr bsn burgerservicenummer
sofinummer dni nie nif documento codice cod nir numéro numero n insee sécu secu sécurité securite contribuinte
número cartão cartao rijksregisternummer national personnummer cpr fødselsnummer fodselsnummer henkilötunnus
henkilotunnus hetu pesel ahv avs insurance ni nino cpf nhs utr unique pps ppsn svnr versicherungsnummer tfn tax
sin
""".split())  # not "ein" (the German article): a US EIN is read when another word of these is in its text
_DIGIT = re.compile(r"\d")
# A CVV described rather than named: "the three digits on the back are 044", "les trois chiffres au dos de la
# carte : 552" (the data files' cvv_said; of a card, when it says of what).
_CVV_SAID = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('cvv_said')})(?:\s+(?:of|on|de|der|auf|del|della|van|do|da)\s+"
    rf"(?:(?:the|my|your|la|ma|der|meiner|la|mi|della|mia|de|mijn|o|meu)\s+)?(?:{_CARD_WORD_LIST})(?![^\W_]))?"
    r"\s*(?:[:=#]|(?:is|are|ist|sind|lauten|est|sont|c'est|es|son|è|sono|zijn|é|são)(?![^\W_]))?\s*"
    r"(?P<value>\d{3,4})(?![\d/.,:-]|\s*(?:st|nd|rd|th)\b)"), re.I)
_CVV_BEFORE, _CVV_AFTER = 60, 120  # how far a described CVV's phrase and value stand from its word of the back
_BACK_WORDS = frozenset("back dos hinten rückseite prüfziffern reverso atrás detrás retro dietro achterkant achterop "
                        "verso trás security derrière arrière".split())


def find(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    if not _DIGIT.search(text):
        return
    cards = list(_cards(text, words))
    yield from cards
    yield from _ibans(text)
    yield from _national_ids(text, words)
    if words & _ACCOUNT_WORDS:
        yield from _account_ids(text)
    if words & _ending_words():
        shown = {re.sub(r"\D", "", text[start:end])[-4:] for start, end, kind in cards}
        yield from (span for span in _endings(text) if text[span[0]:span[1]] not in shown)


# The last digits of a card or an id said as such: "last 4 of my SSN are 7381", "the CVV is 304 on the new card,
# the old one ended in 0934" (the data files' id_endings; four digits, no year, a word of a card or an id in the
# sentence before them: ended_ids, ended_cards); not the end of a card written whole in the text (that is the card's).
_ENDING = vocabulary.lazy_pattern(lambda: (
    rf"(?<![^\W_])(?:{vocabulary.alternation('id_endings', True)})(?![^\W_])[^\n.;!?\d]{{0,40}}?"
    rf"(?P<value>(?<![\w.,/-])(?!(?:19|20)\d\d(?!\d))\d{{4}})(?![\w]|[.,/:-]\d)"), re.I)
_OF_NUMBER = frozenset("de di da du del des della van von".split())  # "número de (la) tarjeta", "nummer van de pas"
_ENDED_REACH = 100  # how far before its ending a card's or an id's word may stand, within the sentence


@cache
def _ending_words() -> frozenset[str]:
    """The first word of four letters or more of each ending: a text without one is not read for endings."""
    return frozenset(next(iter(re.findall(r"[^\W\d_]{4,}", entry.lower())), "") for entry in
                     vocabulary.entries("id_endings")) - {""}




def _endings(text: str) -> Iterator[tuple[int, int, str]]:
    ids, cards, numbered = vocabulary.words("ended_ids"), vocabulary.words("ended_cards"), vocabulary.words("numbered")
    for match in _ENDING.finditer(text):
        start = max(0, match.start() - _ENDED_REACH)
        stop = _SENTENCE_END.search(text[start:match.start()][::-1])
        if stop:
            start = match.start() - stop.start()
        said = [w.lower() for w in re.findall(r"[^\W\d_][\w-]*", text[start:match.start("value")])]
        named = set(said)
        # "the tracking number on my account ends in 4471": the end of another number, named with its own word
        # (a card's or an id's number is named beside it: "card number", "número de la tarjeta")
        other = any(w in numbered and not (ids | cards) & set(said[max(0, n - 1):n] + (
                    said[n + 2:n + 4] if said[n + 1:n + 2] and said[n + 1] in _OF_NUMBER else []))
                    for n, w in enumerate(said))
        if named & (ids | cards) and not other:
            yield match.start("value"), match.end("value"), "card" if named & cards else "national_id"


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
        if _YEARS.fullmatch(value.group(0)) or index == _ROUTING and not _valid("us.rtn", value.group(0)):
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
        tail = _CARD_TAIL.match(text, end)
        if _CARD_GROUPS.fullmatch(text, start, end) or _CARD_WORDS.search(near) or \
                _laid_out_as_a_card(text, start, tail):
            yield start, end, "card"
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
    yield from _cvvs_said(text, words)


def _cvvs_said(text: str, words: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    """A CVV described ("the three digits on the back are 044"), read only around the words such a
    phrase holds (a megabyte read whole took seconds), each stretch once; a match the stretch's end cut
    short is read again on the whole text (digits running on past it are no CVV)."""
    present = sorted(words & _BACK_WORDS)
    if not present:
        return
    around = re.compile(rf"(?<![^\W_])(?:{'|'.join(map(re.escape, present))})(?![^\W_])", re.I)
    stretches: list[list[int]] = []
    for word in around.finditer(text):
        start, end = max(0, word.start() - _CVV_BEFORE), word.end() + _CVV_AFTER
        if stretches and start <= stretches[-1][1]:
            stretches[-1][1] = end
        else:
            stretches.append([start, end])
    for start, end in stretches:
        for match in _CVV_SAID.finditer(text, start, end):
            if match.end() >= end:
                match = _CVV_SAID.match(text, match.start())
            if match:
                yield match.start("value"), match.end("value"), "card"


def _laid_out_as_a_card(text: str, start: int, tail: re.Match[str] | None) -> bool:
    """A card's own layout, with no card word: the number opening its line, then its expiry (MM/YY, no more of
    a date after it) and perhaps a CVV, ending the line, as printed on the card ("5358712044198635 03/30 737",
    blind round 13); not an order's, a parcel's or a phone's number with a date ("Order 4519961983914549 03/12
    delivered", "IMEI ... 01/25": an attacker's)."""
    if tail is None or text[tail.end("exp"):tail.end("exp") + 1] in ("/", "-", "."):
        return False
    line = text.rfind("\n", max(0, start - 80), start)
    before = text[(line + 1 if line >= 0 else max(0, start - 80)):start]
    stop = text.find("\n", tail.end(), tail.end() + 80)
    after = text[tail.end():stop if stop >= 0 else tail.end() + 80]
    # opening its line (after a bullet or a list's number: "1.", "a)", "#1") and ending it: "4111111111111111
    # 12/27"; "... 03/12 120 boxes", "... 01/25 128 GB" are a parcel's and a phone's (the second attacker's)
    if tail.group("cvv") and re.fullmatch(r"(?:19|20)\d\d", tail.group("cvv")):
        return False  # "03/12 2024": a date and its year
    return bool(_LIST_MARK.fullmatch(before)) and not re.search(r"[^\W_]", after)


_LIST_MARK = re.compile(r"\W*(?:(?:\d{1,2}|[a-z])[.)]|#\d{1,3})?\W*", re.I)


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
    for pattern, name in _LAID_OUT:
        for match in pattern.finditer(text):
            if _valid(name, match.group(0)):
                yield match.start(), match.end(), "national_id"
    for match in _NAMED_ID.finditer(text) if words & _ID_WORDS else ():
        index = next(int(k[2:]) for k, v in match.groupdict().items() if k.startswith("id") and v is not None)
        validators = _NAMED_IDS[index][1]
        value = match.group("value") or ""
        end = _longest_valid(value, validators) if value else 0
        if end:
            yield match.start("value"), match.start("value") + end, "national_id"
            continue
        named = _named_value(value, validators) if value else 0
        if named:  # right after its name, a number the validator refuses is one all the same
            yield match.start("value"), match.start("value") + named, "national_id"
            continue
        # Further in its sentence, when its own check digits agree: "CPF da minha mãe pra marcar a consulta:
        # 381.475.029-23", "my NI number, in case HR asks again, is JT 61 05 83 B".
        checked = tuple(v for v in validators if v not in _UNCHECKED or v == "gb.nino")
        at = match.start("value") if value else match.end()
        stop = _SENTENCE_END.search(text, at, at + 100)
        limit = stop.start() if stop else min(len(text), at + 100)
        for candidate in _ID_CANDIDATE.finditer(text, at, limit) if checked else ():
            found = candidate.group(0).strip(" -")
            at = candidate.start() + candidate.group(0).index(found)
            end = _longest_valid(found, checked)
            if end and sum(c.isdigit() for c in found[:end]) >= 5:
                yield at, at + end, "national_id"
                break


def _named_value(value: str, validators: tuple[str, ...]) -> int:
    """The length of a number right after an id's name that reads as that id though its validator refuses
    it: seven digits or more in one group or the id's groups (a made-up SSN, a mistyped DNI), or a NI
    number with any two letters; 0 when none."""
    if "gb.nino" in validators:
        nino = _NAMED_NINO.match(value)
        return nino.end() if nino else 0
    shaped = _CODICE_FISCALE.match(value)  # in its own shape: "RSSMRA45C52H501Z" after "codice fiscale"
    if "it.codicefiscale" in validators and shaped:
        return shaped.end()
    for pattern, name in _LAID_OUT:  # in the id's own groups: "1 85 05 78 006 084 36" after "numéro de sécu"
        laid = pattern.match(value)
        if name in validators and laid:
            return laid.end()
    run = re.match(r"[A-Za-z]?[ -]?\d[\d .-]*\d(?:[ -]?[A-Za-z](?![A-Za-z]))?", value)
    if not run or sum(c.isdigit() for c in run.group(0)) < 7 or re.search(r"\d \d{1,2}$", run.group(0)):
        return 0
    return len(run.group(0).rstrip(" .-"))


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
    if name == "iban":  # its own check digits and its country's layout; the national check is the bank's
        return bool(module.is_valid(value.upper(), check_country=False))
    return bool(module.is_valid(value))


def anchor_words() -> frozenset[str]:
    """The words numbers are known by here: ids' and accounts' names, card words (windows.py)."""
    card = {w.lower() for w in re.findall(r"[^\W\d_]+", _CARD_WORDS.pattern + _CVV.pattern) if len(w) > 2}
    return frozenset(_ID_WORDS | _ACCOUNT_WORDS | card)
