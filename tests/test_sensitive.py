"""The sensitivity detector (issues 21 and 35): measured on a labelled set of phrasings
(tests/data/secrets.jsonl), secrets and near misses in several languages, and on a blind round written
before the detector saw it (tests/data/secrets_blind.jsonl); and its contract: spans of the secret
values, exactly, never overlapping, in order, never a delimiter; redact() built on them; the app's own
annotations and placeholders skipped."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory.sensitive import MASK, Span, find_secrets, is_sensitive, redact

LABELLED = Path(__file__).parent / "data" / "secrets.jsonl"
BLIND = Path(__file__).parent / "data" / "secrets_blind.jsonl"
RECALL_TARGET = 0.98
BLIND_RECALL_TARGET = 0.97
PRECISION_TARGET = 0.95


def labelled(path: Path = LABELLED) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def measure(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Text level (is_sensitive against the label) and span level (every character of every occurrence
    of each expected value inside a span, so no part of it leaks), with the misses;
    benchmarks/bench_sensitive.py prints it."""
    tp = fp = fn = 0
    values = found = 0
    by_kind: dict[str, list[int]] = {}
    missed, false_alarms, leaks, strays = [], [], [], []
    for row in rows:
        flagged = is_sensitive(row["text"])
        if row["secret"]:
            tp += flagged
            fn += not flagged
            if not flagged:
                missed.append(row["text"])
            spans = find_secrets(row["text"])
            strays += [(row["text"], s.value(row["text"])) for s in spans if not inside_a_value(row, s)]
            for value, kind in zip(row["values"], row["kinds"], strict=True):
                gone = covered(row["text"], value, spans)
                values += 1
                found += gone
                by_kind.setdefault(kind, [0, 0])[0] += gone
                by_kind[kind][1] += 1
                if not gone:
                    leaks.append((row["text"], value))
        else:
            fp += flagged
            if flagged:
                false_alarms.append((row["text"], [s.value(row["text"]) for s in find_secrets(row["text"])]))
    return {"texts": len(rows), "secrets": tp + fn, "near_misses": len(rows) - tp - fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0,
            "span_recall": found / values if values else 1.0, "values": values,
            "by_kind": {k: (f, n) for k, (f, n) in sorted(by_kind.items())},
            "missed": missed, "false_alarms": false_alarms, "leaks": leaks, "strays": strays}


def inside_a_value(row: dict[str, Any], span: Span) -> bool:
    """Whether a span overlaps an occurrence of one of the row's labelled values (a span elsewhere, such
    as " |", hides what is not secret and once made every "|" of a turn a placeholder)."""
    for value in row["values"]:
        start = row["text"].find(value)
        while start >= 0:
            if span.start < start + len(value) and start < span.end:
                return True
            start = row["text"].find(value, start + 1)
    return False


def covered(text: str, value: str, spans: list[Span]) -> bool:
    """Every occurrence of `value` in `text` lies wholly inside the spans (a value half masked leaks)."""
    hidden: set[int] = set()
    for span in spans:
        hidden.update(range(span.start, span.end))
    start = text.find(value)
    while start >= 0:
        if not all(i in hidden for i in range(start, start + len(value))):
            return False
        start = text.find(value, start + 1)
    return True


def test_the_labelled_set_is_big_varied_and_well_formed() -> None:
    rows = labelled()
    assert len(rows) >= 650 and len({r["text"] for r in rows}) == len(rows)
    assert sum(r["secret"] for r in rows) >= 100 and sum(not r["secret"] for r in rows) >= 100
    assert len({r["lang"] for r in rows}) >= 7
    for row in rows:
        assert bool(row["values"]) == row["secret"], row
        assert all(v in row["text"] for v in row["values"]), row
        assert not row["secret"] or len(row["kinds"]) == len(row["values"]), row


def test_the_blind_rounds_are_apart_from_the_labelled_set_and_well_formed() -> None:
    rows = labelled(BLIND)
    assert {r["round"] for r in rows} == {1, 2, 3, 4} and len(rows) >= 370
    assert not {r["text"] for r in rows} & {r["text"] for r in labelled()}
    for row in rows:
        assert bool(row["values"]) == row["secret"] and all(v in row["text"] for v in row["values"]), row


def test_the_blind_rounds_meet_the_targets_now() -> None:
    # Each round was measured once before any fix (docs/secrets.md has those figures: 0.84-0.94 recall);
    # the detector was fixed on it afterwards, so this guards against going back, not a fresh measure.
    m = measure(labelled(BLIND))
    assert m["recall"] >= BLIND_RECALL_TARGET, m["missed"]
    assert m["precision"] >= PRECISION_TARGET, m["false_alarms"]
    assert m["span_recall"] >= BLIND_RECALL_TARGET, m["leaks"]


def test_precision_and_recall_meet_the_targets() -> None:
    m = measure(labelled())
    assert m["recall"] >= RECALL_TARGET, m["missed"]
    assert m["precision"] >= PRECISION_TARGET, m["false_alarms"]
    assert m["span_recall"] >= RECALL_TARGET, m["leaks"]
    assert not m["strays"]


# Every input of issue 21 items 4 and 7, whole or in a sentence (they are in the labelled set too).
ISSUE_21 = [
    ("the gym locker pin for tomorrow [Tue Nov 24] 4471", ["4471"]),
    ("password is correct horse battery staple", ["correct horse battery staple"]),
    ("my email password is P@ss w0rd", ["P@ss w0rd"]),
    ("the alarm pin is 1 2 3 4", ["1 2 3 4"]), ("PIN 44 71", ["44 71"]),
    ("my card pin is four four seven one", ["four four seven one"]),
    ("hunter2;pin is 4471", ["hunter2", "4471"]), ("passwords: gmail x, bank y", ["x", "y"]),
    ("I changed my password to Marmalade!88", ["Marmalade!88"]), ("set the password to bluefin42", ["bluefin42"]),
    ("wifi password swordfish", ["swordfish"]), ("PIN-4471", ["4471"]), ("Passwort ist Sonnenblume7", ["Sonnenblume7"]),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGRz8kUBCADF\n=Xb7Q\n-----END PGP PRIVATE KEY BLOCK-----",
     ["lQOYBGRz8kUBCADF"]),
    ("card 4111 1111 1111 1111 cvv 123", ["4111 1111 1111 1111", "123"]),
    ("my IBAN is DE89 3704 0044 0532 0130 00", ["DE89 3704 0044 0532 0130 00"]),
    ("skin rose dwarf neither rookie tornado twelve economy receive speed warfare opinion", ["skin rose", "opinion"]),
    ("my SSN is 536-22-1234", ["536-22-1234"]), ("door code: 8823", ["8823"]),
    ("the safe combination is 36-24-12", ["36-24-12"]),
    ("curl -u admin:s3cretpass https://api.example.com", ["s3cretpass"]),
    ("mysql -u root -pHunter22 shop", ["Hunter22"]),
]


@pytest.mark.parametrize("text, values", ISSUE_21)
def test_the_issue_21_misses_are_found(text: str, values: list[str]) -> None:
    assert is_sensitive(text) and MASK in redact(text)
    assert all(covered(text, value, find_secrets(text)) for value in values), redact(text)


def test_spans_are_the_values_in_order_with_their_kinds() -> None:
    text = "my bank password is hunter2 and my PIN is 4471, card 4111 1111 1111 1111 cvv 123"
    spans = find_secrets(text)
    assert [s.value(text) for s in spans] == ["hunter2", "4471", "4111 1111 1111 1111", "123"]
    assert [s.kind for s in spans] == ["credential", "pin", "card", "card"]
    assert all(isinstance(s, Span) for s in spans)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))


def test_overlapping_findings_merge_into_one_span() -> None:
    # The keyword rule and the key shape both see the value; the text has one secret, named by its shape.
    text = "api key = sk-ant-api03-Xy7kQ2mN9pL4vB8cR1tZ"
    spans = find_secrets(text)
    assert len(spans) == 1 and spans[0].value(text) == "sk-ant-api03-Xy7kQ2mN9pL4vB8cR1tZ" and spans[0].kind == "key"


def test_a_callable_mask_numbers_the_secrets_in_order_and_sees_each_value() -> None:
    seen: list[str] = []

    def placeholder(secret: str) -> str:
        seen.append(secret)
        return f"[secret {len(seen)} of your message]"

    out = redact("wifi password swordfish; alarm code: 7 7 3 1", placeholder)
    assert out == "wifi password [secret 1 of your message]; alarm code: [secret 2 of your message]"
    assert seen == ["swordfish", "7 7 3 1"]


def test_placeholders_and_date_annotations_are_never_values() -> None:
    # What the app writes itself: a placeholder is not a value, so redacting twice changes nothing.
    once = redact("bank password is hunter2, PIN 4471", lambda s: "[secret 1 of your message]")
    assert redact(once) == once and not is_sensitive("the wifi password is [secret in memory #12]")
    assert not is_sensitive("[Nov 22] the password is [REDACTED]")
    assert find_secrets("pin for tomorrow [Tue Nov 24] 4471")[0].value("pin for tomorrow [Tue Nov 24] 4471") == "4471"


def test_invisible_characters_and_fullwidth_letters_do_not_hide_a_keyword() -> None:
    for text in ("pass\u200bword: hunter2", "pass\u00adword is hunter2", "ｐａｓｓｗｏｒｄ: hunter2"):
        out = redact(text)
        assert "hunter2" not in out and out.endswith(MASK), out


def test_offsets_map_back_through_folded_characters() -> None:
    text = "ｐａｓｓｗｏｒｄ： Ｈｕｎｔｅｒ２, ok"
    (span,) = find_secrets(text)
    assert span.value(text) == "Ｈｕｎｔｅｒ２"


def test_empty_and_ordinary_texts() -> None:
    assert find_secrets("") == [] and redact("") == "" and not is_sensitive("")
    assert not is_sensitive("Call the plumber at 5pm about the boiler code 4471")


@pytest.mark.parametrize("text", ["the lock screen shows 3 notifications", "I called Medicare on 132 011",
                                  "medicare covers 85% of the fee", "vi ses till klockan 8142",
                                  "I changed the lock screen wallpaper to 2024 photos", "the pass is a b c d e f",
                                  "Barclays branch — 0345 734 5345", "I bank with Barclays since 2009",
                                  "Favourite film? -> Arrival", "which street is the new bank on? -> Baker Street",
                                  "Favourite film? -> Arrival\nFavourite band? -> Elbow",  # a list of tastes
                                  # an attacker's false alarms: a state, a placeholder, a while, a time
                                  "the door code is broken", "koden till porten är trasig", "password: TBD",
                                  "lock screen: 15 minutes then it locks", "the gate is 1530 then we leave",
                                  "the meeting -- pass it on", "vi bor i huset till vänster",
                                  # round 18's near misses and those of its kinds
                                  "Door code? Hassan said there isn't one, you just knock",
                                  "My PGP key fingerprint is 7A3F 91C2 0B6D E448 25F1  9C07 D3A8 61E2 4B90 5F17",
                                  "the locker in room L12", "bus R2 then L3 stop", "order ref, the 6 digit one: 448120",
                                  "the 4 digit one: 80312", "the door changed colour, it's now red",
                                  "the gate changed, it's now 9am", "the 4 digit one for the bins is 3302",
                                  "the L 3 bus then R 4", "the lock goes 3 times a day",
                                  "my bike lock goes to 120 degrees", "the door: it's now red"])
def test_the_new_kinds_of_round_17_leave_their_look_alikes(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize("text, value", [
    ("the garage code is 1234. Sorry, not 1234, it's 5678", "5678"),
    ("wifi password is blue-fish-42, oops I mean red-fish-43", "red-fish-43"),
    ("PIN is 4821 or maybe 4829", "4829"),
    ("my PIN: 4821\nnew one: 9930", "9930"),
])
def test_a_value_of_the_shape_of_a_secret_beside_it_is_one_too(text: str, value: str) -> None:
    """An attacker's: the corrected or second value beside a secret reached the Markdown and ICS exports."""
    assert value in [s.value(text) for s in find_secrets(text)]


@pytest.mark.parametrize("text, kept", [
    ("my PIN is 4821 and the flat is number 12", "12"),  # another shape: not taken
    ("the gate code is 4471, ring Tom on 07700 900123 if it jams", "07700 900123"),
])
def test_a_value_of_another_shape_beside_a_secret_is_not_taken(text: str, kept: str) -> None:
    assert not any(kept in s.value(text) for s in find_secrets(text))


def test_a_luhn_valid_order_number_is_not_a_card_but_the_same_digits_after_card_are() -> None:
    order = "order 4539148803436467 shipped"  # Luhn-valid, Visa prefix, no card word, not grouped
    assert not is_sensitive(order)
    assert is_sensitive("visa 4539148803436467")
    assert not is_sensitive("card 4539148803436468")  # fails Luhn


def test_a_huge_text_is_read_in_one_pass() -> None:
    text = ("plain words and numbers 12 34 " * 40_000) + "the wifi password is hunter2"
    spans = find_secrets(text)
    assert [s.value(text) for s in spans] == ["hunter2"]


def test_a_card_followed_by_its_expiry_is_found_with_the_expiry_and_cvv() -> None:
    # The digit run goes on into the month ("... 1111 12/27"): the card is the part of card length.
    text = "my mastercard 5500 0000 0000 0004 09/28 321"
    assert [(s.value(text), s.kind) for s in find_secrets(text)] == [
        ("5500 0000 0000 0004", "card"), ("09/28", "card"), ("321", "card")]
    assert not is_sensitive("4111 people came, 12/27 was the date")


def test_look_alike_letters_keep_their_offsets() -> None:
    # A Cyrillic "а" inside "pаssword" reads as the Latin letter; the span is in the text as given.
    text = "the p\u0430ssword is Qx7-hunter22"
    (span,) = find_secrets(text)
    assert span.value(text) == "Qx7-hunter22"


def test_a_polite_ending_is_not_part_of_the_value() -> None:
    for text, value in (("パスワードはhunter2です", "hunter2"), ("비밀번호는 qwerty123 입니다", "qwerty123")):
        assert [s.value(text) for s in find_secrets(text)] == [value]


def test_bank_numbers_are_their_own_kind_and_each_is_found() -> None:
    text = "account number 12345678 sort code 12-34-56"
    assert [(s.value(text), s.kind) for s in find_secrets(text)] == [
        ("12345678", "bank_account"), ("12-34-56", "bank_account")]
    assert not is_sensitive("routing 123456789 account")  # not a valid ABA routing number, account has none


# Every miss quoted in issue 35 item 2, with its values exactly: the spans are those values, no more.
ISSUE_35 = [
    ("| bank | joe | T4ble!Pw |", ["T4ble!Pw"]),
    ("| site | user | password |\n|------|------|----------|\n| bank | joe | T4ble!Pw |", ["T4ble!Pw"]),
    ("site | password\nbank | T4ble!Pw2", ["T4ble!Pw2"]),
    ("bank\tjoe\tTsv!Pass7", ["Tsv!Pass7"]),
    ("site,user,password\nbank,joe,Csv!Bank1\nmail,joe,Csv!Mail8", ["Csv!Bank1", "Csv!Mail8"]),
    ("<td>password</td><td>Html!Cell3</td>", ["Html!Cell3"]),
    ("SSID: HomeNet\nKey: W1fi!Key55", ["W1fi!Key55"]),
    ("codes:\n* bike: 4721\n* garage: 8890", ["4721", "8890"]),
    ("my old password was Old!Pw36 and the new one is New!Pw37", ["Old!Pw36", "New!Pw37"]),
    ("the router uses Router!Pw38 as its password", ["Router!Pw38"]),
    ("I typed Typed!Pw39 into the password field", ["Typed!Pw39"]),
    ("my PIN ends in 71", ["71"]),
    ("card pin starts with 44 then 71", ["44", "71"]),
    # blind round 16's kinds: a car radio's code, a Canadian SIN, a US tax id, a CVV said as "the back of the card"
    ("car radio code 4417 (the Corsa, after the battery change)", ["4417"]),
    ("my SIN is 527 190 383, needed for the new job paperwork", ["527 190 383"]),
    ("Tax ID (TIN) 912-84-3307 for the LLC filing", ["912-84-3307"]),
    ("the back of my credit card says 447 - it's the three digit thing", ["447"]),
    ("Side door of the studio: press 6, 1, 9, 9 then turn the handle", ["6, 1, 9, 9"]),
    ("the downstairs code changed, it's 8830 now", ["8830"]),  # a tester's: a code of a place in the building
    ("m y  p i n  i s  4 4 0 2", ["4 4 0 2"]),
    # blind round 17's kinds: a key safe's digits then what to do, a lock screen, a Medicare card, a passphrase of
    # words a time ends, a door's code in Swedish
    ("The key safe by the front door for the carers: 1-5-9-2 then push the button down", ["1-5-9-2"]),
    ("Gran's lock screen: 2580", ["2580"]),
    ("Medicare card no. 2953 51820 1 (Mum's, for the Melbourne trip)", ["2953 51820 1"]),
    ("ssh key passphrase: the quick fox sleeps at nine", ["the quick fox sleeps at nine"]),
    ("koden till porten är 8142", ["8142"]),
    ("wifi pass is  g r e e n h o u s e 4 2", ["g r e e n h o u s e 4 2"]),
    ("Barclays app — 591403", ["591403"]),
    # blind round 18's kinds: a vault's dial turns written as letters, a card's PIN said by its count of digits, a
    # thing that opens said to have changed and what it is now
    ("vault at the shop: L22 R8 L40", ["L22 R8 L40"]),
    ("the safe is R10-L32-R4", ["R10-L32-R4"]),
    ("Halifax debit, the 4 digit one: 8031", ["8031"]),
    ("the 6-digit passcode - 551902", ["551902"]),
    ("the gate at the allotments changed, it's now C-2-0-9-X", ["C-2-0-9-X"]),
    ("the alarm has been reset, now 4471", ["4471"]),
    # an attacker's, beside them: turns spaced and with commas, a dial named, a card named after the count, how a
    # lock goes
    ("safe combo: R 14, L 3, R 27", ["R 14, L 3, R 27"]),
    ("dial: left 22, right 8, left 40", ["left 22, right 8, left 40"]),
    ("the 4 digit one for the Visa is 3302", ["3302"]),
    ("the lock on the shed goes 22-8-40", ["22-8-40"]),
    ("gate at the allotments: it's now C-2-0-9-X", ["C-2-0-9-X"]),  # a re-check's: a sign for "changed"
    # an attacker's, beside them: what is done to the lock after its digits, a key safe in one word
    ("Tell the carer the key safe is 6042 then push down", ["6042"]),
    ("The keysafe is 7734 then lift the cover", ["7734"]),
    ("Medicare: 3862-11947-3", ["3862-11947-3"]),
    ("my PIN: 4821 new one: 9930", ["4821", "9930"]),  # a re-check's: the sign was taken with it ("new one[secret]")
    ("my medicare is 4417 90321 5/2", ["4417 90321 5/2"]),
    ("Passphrase -- zebra orange kite", ["zebra orange kite"]),
    ("koden till garaget är 4410", ["4410"]),
    ("Lösenfras: blå katt springer fort", ["blå katt springer fort"]),
    ("What's the name of your first school? -> St Wilfrid's\nFavourite childhood toy? -> Mr Bobbins",
     ["St Wilfrid's", "Mr Bobbins"]),
    # an attacker's: "card ending 7731" reached the Markdown and ICS exports beside the masked PIN
    ("Call the bank about card ending 7731 and give them PIN 2209", ["7731", "2209"]),
    ("the secret word is Banana", ["Banana"]),
    ("joe:Colon!Cred45 for the ftp", ["Colon!Cred45"]),
    ("4532.0151.1283.0366", ["4532.0151.1283.0366"]),
    ("docker login -u joe -p Dock!Pw5", ["Dock!Pw5"]),
    ("p1n: 3131", ["3131"]),
    ("P I N: 9191", ["9191"]),
    ("pa\u0301ssword: Comb!Pw1", ["Comb!Pw1"]),
    ("passwordpassword: Dbl!Pw2", ["Dbl!Pw2"]),
    ("the PIN is my birth year 1984", ["1984"]),
    ("my pin is the year I was born: 1979", ["1979"]),
    ("phone unlock pattern 1-5-9-8", ["1-5-9-8"]),
    ("пароль від пошти: Kozak!44", ["Kozak!44"]),
    ("ПІН-код: 4490", ["4490"]),
    ("my new garage pin is 5531 and the alarm: 8890", ["5531", "8890"]),
]


@pytest.mark.parametrize("text, values", ISSUE_35)
def test_the_issue_35_misses_are_found_exactly(text: str, values: list[str]) -> None:
    assert [s.value(text) for s in find_secrets(text)] == values


def test_a_table_keeps_its_delimiters_and_only_the_secret_goes() -> None:
    # The span " |" once turned every "|" of a turn's tool results into a placeholder.
    table = "| site | user | password |\n|---|---|---|\n| bank | joe | T4ble!Pw |\n| shop | ann | none |"
    out = redact(table, "[secret]")
    assert out == table.replace("T4ble!Pw", "[secret]")
    for text in ("| a | b |", "| Pw | x |", "a\t|\tb", "|||", "pw: |", "password:\t|"):
        assert all(s.value(text).strip(" |\t") and any(c.isalnum() for c in s.value(text))
                   for s in find_secrets(text)), text


def test_a_value_in_leetspeak_is_not_folded_only_the_keyword_is() -> None:
    # "s3cret" folded would read "secret", a word that describes a secret and is not one.
    for text, value in (("password: s3cret", "s3cret"), ("p4ssw0rd: p1n", "p1n"), ("my p1n is 2468", "2468")):
        assert [s.value(text) for s in find_secrets(text)] == [value]


def test_a_header_or_key_judges_its_cells_as_a_keyword_would() -> None:
    csv = "account,pin\nvisa,4402\nmastercard,7719"
    assert [s.value(csv) for s in find_secrets(csv)] == ["4402", "7719"]
    # The same table with a column that is not a secret: nothing.
    assert not is_sensitive("account,branch\nvisa,4402\nmastercard,7719")
    # A user-name column is not a secret, the password column is.
    tsv = "service\tlogin\tpassword\nspotify\tjoe\tSp0tify#22"
    assert [s.value(tsv) for s in find_secrets(tsv)] == ["Sp0tify#22"]


def test_titles_of_ordinary_codes_list_no_secrets() -> None:
    for text in ("zip codes:\n- 10115\n- 80331", "Error codes:\n- 404\n- 500", "promo codes:\n- SAVE20\n- WELCOME10"):
        assert not is_sensitive(text), text
    assert [s.value(t) for t in ["door codes:\n- 2580\n- 7731"] for s in find_secrets(t)] == ["2580", "7731"]


# A value followed by "and <Name>": the name once joined the value, so a combination read as a date
# ("12-34-56 and Bob" is no value) went to the model whole, and a PIN's span took "and Bob" with it.
AND_A_NAME = [
    ("my locker combination is 31-07-22 INCOGAPP and Dr Klein", ["31-07-22"]),
    ("the combination is 12-34-56 and Bob", ["12-34-56"]),
    ("my locker combination is 31-07-22 and Bob", ["31-07-22"]),
    ("my locker combination is 31-07-22 and", ["31-07-22"]),
    ("my locker combination is 31-07-22 and the gym", ["31-07-22"]),
    ("combination: 12-34-56 and Bob", ["12-34-56"]),
    ("my pin is 4821 and Bob", ["4821"]),
    ("my pin is 4821 and Dr Klein knows it", ["4821"]),
    ("my password is hunter2 and Bob", ["hunter2"]),
    ("the wifi password is swordfish and Dr Klein asked for it", ["swordfish"]),
    # what stays whole: digits joined by "and", and a passphrase of words
    ("the door code is 2580 and 4471", ["2580 and 4471"]),
    ("my password is salt and pepper", ["salt and pepper"]),
    ("my password is Tom and Jerry", ["Tom and Jerry"]),
    ("the combination of flour and Bob's yeast", []),
    ("combination therapy with Dr Klein", []),
    ("the secret is Anna and Bob", []),
]


@pytest.mark.parametrize("text, values", AND_A_NAME)
def test_a_name_after_and_is_not_part_of_the_value(text: str, values: list[str]) -> None:
    assert [s.value(text) for s in find_secrets(text)] == values


# A value said to be what one uses for an account, without a word for a secret; a product's name is
# not one.
USED_FOR = [
    ("hunter3 is what I use for email", ["hunter3"]),
    ("Qx7-hunter22 is what I use for the bank", ["Qx7-hunter22"]),
    ("tulip42 is the one I use to log into netflix", ["tulip42"]),
    ("Thunderbird is what I use for email", []),
    ("Outlook365 is what I use for email", []),
    ("iPhone14 is what I use for banking", []),
    ("WPA2 is what I use for the wifi", []),
    ("python3 is what I use for scripting", []),
    ("hunter3 is what I use for the bank reports", []),
]


@pytest.mark.parametrize("text, values", USED_FOR)
def test_a_value_used_for_an_account_is_its_password(text: str, values: list[str]) -> None:
    assert [s.value(text) for s in find_secrets(text)] == values


# Blind round 4's misses: a thing that opens, placed ("in the office", "at the airbnb"), then what it
# takes, what it is set to, or a disarm number; and the near misses of those words, written before the
# rule: a time, a size, a price, a count, a setting of something that opens nothing.
THINGS_THAT_OPEN = [
    ("the safe in the office: 19-44-07", ["19-44-07"]),
    ("the lock on the shed: 4471", ["4471"]),
    ("The alarm disarm number is 2207", ["2207"]),
    ("the alarm disarm code is 5 5 2 0", ["5 5 2 0"]),
    ("the lockbox at the airbnb takes 0 9 3 3", ["0 9 3 3"]),
    ("the key safe by the back door takes 0417, the host said", ["0417"]),
    ("the bike lock is set to 3-1-8", ["3-1-8"]),
    ("my padlock's set to 9-0-2-1", ["9-0-2-1"]),
    ("the gate to the allotment opens with 8841", ["8841"]),
    ("the gate opens at 8am", []),
    ("the safe is 40 cm wide", []),
    ("the bike lock cost 25 euros", []),
    ("the alarm is set to 6:30", []),
    ("the alarm is set to 0630", []),
    ("the lockbox holds 4 keys", []),
    ("set to 3 for medium heat", []),
    ("the safe in the office: 2 shelves", []),
    ("the lock on the shed: 1950s", []),
    ("the safe in the office takes 120 kg", []),
    ("the lockbox takes 4 AA batteries", []),
    ("the gate at the back takes 2000 cars a day", []),
    ("the oven is set to 180", []),
    ("the alarm disarm number is on the fridge", []),
    ("the bike lock is set to arrive on Monday", []),
    ("the safe in room 4412 on floor 3", []),
]


@pytest.mark.parametrize("text, values", THINGS_THAT_OPEN)
def test_what_a_placed_thing_that_opens_takes_or_is_set_to(text: str, values: list[str]) -> None:
    assert [s.value(text) for s in find_secrets(text)] == values
