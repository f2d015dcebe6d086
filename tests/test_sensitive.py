"""The sensitivity detector (issue 21): measured on a labelled set of phrasings (tests/data/secrets.jsonl),
secrets and near misses in several languages, and its contract: spans of the secret values, never
overlapping, in order; redact() built on them; the app's own annotations and placeholders skipped."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory.sensitive import MASK, Span, find_secrets, is_sensitive, redact

LABELLED = Path(__file__).parent / "data" / "secrets.jsonl"
RECALL_TARGET = 0.98
PRECISION_TARGET = 0.95


def labelled() -> list[dict]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]


def measure(rows: list[dict]) -> dict:
    """Text level (is_sensitive against the label) and span level (every character of every occurrence
    of each expected value inside a span, so no part of it leaks), with the misses;
    benchmarks/bench_sensitive.py prints it."""
    tp = fp = fn = 0
    values = found = 0
    by_kind: dict[str, list[int]] = {}
    missed, false_alarms, leaks = [], [], []
    for row in rows:
        flagged = is_sensitive(row["text"])
        if row["secret"]:
            tp += flagged
            fn += not flagged
            if not flagged:
                missed.append(row["text"])
            spans = find_secrets(row["text"])
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
            "missed": missed, "false_alarms": false_alarms, "leaks": leaks}


def covered(text: str, value: str, spans: list[Span]) -> bool:
    """Every occurrence of `value` in `text` lies wholly inside the spans (a value half masked leaks)."""
    hidden = set()
    for span in spans:
        hidden.update(range(span.start, span.end))
    start = text.find(value)
    while start >= 0:
        if not all(i in hidden for i in range(start, start + len(value))):
            return False
        start = text.find(value, start + 1)
    return True


def test_the_labelled_set_is_big_varied_and_well_formed():
    rows = labelled()
    assert len(rows) >= 150 and len({r["text"] for r in rows}) == len(rows)
    assert sum(r["secret"] for r in rows) >= 100 and sum(not r["secret"] for r in rows) >= 100
    assert len({r["lang"] for r in rows}) >= 7
    for row in rows:
        assert bool(row["values"]) == row["secret"], row
        assert all(v in row["text"] for v in row["values"]), row
        assert not row["secret"] or len(row["kinds"]) == len(row["values"]), row


def test_precision_and_recall_meet_the_targets():
    m = measure(labelled())
    assert m["recall"] >= RECALL_TARGET, m["missed"]
    assert m["precision"] >= PRECISION_TARGET, m["false_alarms"]
    assert m["span_recall"] >= RECALL_TARGET, m["leaks"]


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
def test_the_issue_21_misses_are_found(text, values):
    assert is_sensitive(text) and MASK in redact(text)
    assert all(covered(text, value, find_secrets(text)) for value in values), redact(text)


def test_spans_are_the_values_in_order_with_their_kinds():
    text = "my bank password is hunter2 and my PIN is 4471, card 4111 1111 1111 1111 cvv 123"
    spans = find_secrets(text)
    assert [s.value(text) for s in spans] == ["hunter2", "4471", "4111 1111 1111 1111", "123"]
    assert [s.kind for s in spans] == ["credential", "pin", "card", "card"]
    assert all(isinstance(s, Span) for s in spans)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))


def test_overlapping_findings_merge_into_one_span():
    # The keyword rule and the key shape both see the value; the text has one secret, named by its shape.
    text = "api key = sk-ant-api03-Xy7kQ2mN9pL4vB8cR1tZ"
    spans = find_secrets(text)
    assert len(spans) == 1 and spans[0].value(text) == "sk-ant-api03-Xy7kQ2mN9pL4vB8cR1tZ" and spans[0].kind == "key"


def test_a_callable_mask_numbers_the_secrets_in_order_and_sees_each_value():
    seen: list[str] = []

    def placeholder(secret: str) -> str:
        seen.append(secret)
        return f"[secret {len(seen)} of your message]"

    out = redact("wifi password swordfish; alarm code: 7 7 3 1", placeholder)
    assert out == "wifi password [secret 1 of your message]; alarm code: [secret 2 of your message]"
    assert seen == ["swordfish", "7 7 3 1"]


def test_placeholders_and_date_annotations_are_never_values():
    # What the app writes itself: a placeholder is not a value, so redacting twice changes nothing.
    once = redact("bank password is hunter2, PIN 4471", lambda s: "[secret 1 of your message]")
    assert redact(once) == once and not is_sensitive("the wifi password is [secret in memory #12]")
    assert not is_sensitive("[Nov 22] the password is [REDACTED]")
    assert find_secrets("pin for tomorrow [Tue Nov 24] 4471")[0].value("pin for tomorrow [Tue Nov 24] 4471") == "4471"


def test_invisible_characters_and_fullwidth_letters_do_not_hide_a_keyword():
    for text in ("pass\u200bword: hunter2", "pass\u00adword is hunter2", "ｐａｓｓｗｏｒｄ: hunter2"):
        out = redact(text)
        assert "hunter2" not in out and out.endswith(MASK), out


def test_offsets_map_back_through_folded_characters():
    text = "ｐａｓｓｗｏｒｄ： Ｈｕｎｔｅｒ２, ok"
    (span,) = find_secrets(text)
    assert span.value(text) == "Ｈｕｎｔｅｒ２"


def test_empty_and_ordinary_texts():
    assert find_secrets("") == [] and redact("") == "" and not is_sensitive("")
    assert not is_sensitive("Call the plumber at 5pm about the boiler code 4471")


def test_a_luhn_valid_order_number_is_not_a_card_but_the_same_digits_after_card_are():
    order = "order 4539148803436467 shipped"  # Luhn-valid, Visa prefix, no card word, not grouped
    assert not is_sensitive(order)
    assert is_sensitive("visa 4539148803436467")
    assert not is_sensitive("card 4539148803436468")  # fails Luhn


def test_a_huge_text_is_read_in_one_pass():
    text = ("plain words and numbers 12 34 " * 40_000) + "the wifi password is hunter2"
    spans = find_secrets(text)
    assert [s.value(text) for s in spans] == ["hunter2"]


def test_a_card_followed_by_its_expiry_is_found_with_the_expiry_and_cvv():
    # The digit run goes on into the month ("... 1111 12/27"): the card is the part of card length.
    text = "my mastercard 5500 0000 0000 0004 09/28 321"
    assert [(s.value(text), s.kind) for s in find_secrets(text)] == [
        ("5500 0000 0000 0004", "card"), ("09/28", "card"), ("321", "card")]
    assert not is_sensitive("4111 people came, 12/27 was the date")


def test_look_alike_letters_keep_their_offsets():
    # A Cyrillic "а" inside "pаssword" reads as the Latin letter; the span is in the text as given.
    text = "the p\u0430ssword is Qx7-hunter22"
    (span,) = find_secrets(text)
    assert span.value(text) == "Qx7-hunter22"


def test_a_polite_ending_is_not_part_of_the_value():
    for text, value in (("パスワードはhunter2です", "hunter2"), ("비밀번호는 qwerty123 입니다", "qwerty123")):
        assert [s.value(text) for s in find_secrets(text)] == [value]


def test_bank_numbers_are_their_own_kind_and_each_is_found():
    text = "account number 12345678 sort code 12-34-56"
    assert [(s.value(text), s.kind) for s in find_secrets(text)] == [
        ("12345678", "bank_account"), ("12-34-56", "bank_account")]
    assert not is_sensitive("routing 123456789 account")  # not a valid ABA routing number, account has none
