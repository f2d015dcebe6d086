"""The sensitivity detector: precision and recall on the labelled set and the blind rounds, and what
it costs (not a test).

    python benchmarks/bench_sensitive.py            (markdown for docs/secrets.md and docs/privacy.md)

Prints the labelled set's figures (text level and span level, recall by kind and by language, every
miss, false alarm and stray span), the blind rounds' figures as they stand now (each round's figures
before any fix are in docs/secrets.md and the commits that measured them), then the time per 1,000
texts: the detector runs on every memory written and every text sent to a model, so it must stay
cheap; and the time of `withhold_fragments`, the gate's last step, over a 20 kB request with 50
sensitive values. The measurement itself is tests/test_sensitive.py's, so the test and this table
cannot disagree.
"""
from __future__ import annotations

import json
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from conversations import generate_all  # noqa: E402

from memory.sensitive import find_secrets, is_sensitive, redact, withhold_fragments  # noqa: E402
from tests.test_sensitive import BLIND, covered, labelled, measure  # noqa: E402

ROUND_5 = ROOT / "tests" / "data" / "secrets_blind5.jsonl"


def per_thousand(texts: list[str], call: Callable[[str], object], rounds: int = 5) -> float:
    """Milliseconds per 1,000 texts, the median of `rounds` passes over `texts`."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for text in texts:
            call(text)
        times.append((time.perf_counter() - started) * 1000 / len(texts) * 1000)
    return statistics.median(times)


def once(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    rows = labelled()
    m = measure(rows)
    print(f"Labelled set: {m['texts']} phrasings, {m['secrets']} with a secret ({m['values']} secret values), "
          f"{m['near_misses']} near misses, {len({r['lang'] for r in rows})} languages.\n")
    print("| measure | value |\n| --- | --- |")
    print(f"| precision (texts flagged that hold a secret) | {m['precision']:.3f} |")
    print(f"| recall (texts with a secret that are flagged) | {m['recall']:.3f} |")
    print(f"| span recall (secret values wholly inside a span) | {m['span_recall']:.3f} |")
    print("\n| kind | values found |\n| --- | --- |")
    for kind, (found, total) in m["by_kind"].items():
        print(f"| {kind} | {found} / {total} |")
    print("\n| language | texts | correct |\n| --- | --- | --- |")
    for lang in sorted({r["lang"] for r in rows}, key=lambda x: (-sum(r["lang"] == x for r in rows), x)):
        mine = [r for r in rows if r["lang"] == lang]
        right = sum(is_sensitive(r["text"]) == r["secret"] for r in mine)
        print(f"| {lang} | {len(mine)} | {right} |")
    print("\nMissed:", m["missed"] or "none")
    print("False alarms:", m["false_alarms"] or "none")
    print("Values left readable:", m["leaks"] or "none")
    print("Spans outside every labelled value:", m["strays"] or "none")

    blind = labelled(BLIND)
    print("\nBlind rounds as they stand now (fixed on after their first measure):\n")
    print("| round | phrasings | secrets | recall | precision | span recall |\n| --- | --- | --- | --- | --- | --- |")
    for number in sorted({r["round"] for r in blind}):
        b = measure([r for r in blind if r["round"] == number])
        print(f"| {number} | {b['texts']} | {b['secrets']} | {b['recall']:.3f} | {b['precision']:.3f} | "
              f"{b['span_recall']:.3f} |")
    b = measure(blind)
    print("\nBlind misses:", b["missed"] or "none")
    print("Blind false alarms:", b["false_alarms"] or "none")
    print("Blind values left readable:", b["leaks"] or "none")
    print("Blind spans outside every labelled value:", b["strays"] or "none")

    round5 = round_five()
    print("\nBlind round 5 (issue 42; first sight on main: text recall 0.690, span recall 0.675, near misses "
          "flagged 0.000):\n")
    print("| measure | now |\n| --- | --- |")
    print(f"| text recall (the rules) | {round5['recall']:.3f} ({round5['flagged']} / {round5['secrets']}) |")
    print(f"| span recall | {round5['span_recall']:.3f} ({round5['found']} / {round5['values']}) |")
    print(f"| near misses flagged | {round5['near_miss_rate']:.3f} ({round5['alarms']} / {round5['near_misses']}) |")
    print("\nRound 5 misses:", round5["missed"] or "none")

    texts = [r["text"] for r in rows]
    chat = [t.text for c in generate_all() for t in c.turns]
    prose = "I met Anna at the market and we talked about the weekend, 3 kids and 12 apples. " * 12_500
    dense = "the password manager app is great, the code review is at 3pm, pin the poster. " * 12_500
    cold = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); "
                           "from memory.sensitive import redact; a = time.perf_counter(); "
                           "redact('card 4111 1111 1111 1111 cvv 123, IBAN DE89 3704 0044 0532 0130 00, ' "
                           "'skin rose dwarf neither rookie tornado twelve economy receive speed warfare opinion'); "
                           "print((a - t) * 1000, (time.perf_counter() - a) * 1000)"],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    print(f"\nCost on {platform.python_implementation()} {platform.python_version()}, "
          f"{len(texts)} labelled texts (mean {statistics.mean(map(len, texts)):.0f} characters) and "
          f"{len(chat)} chat turns (mean {statistics.mean(map(len, chat)):.0f} characters):\n")
    print("| what | time |\n| --- | --- |")
    print(f"| `is_sensitive`, labelled texts | {per_thousand(texts, is_sensitive):.1f} ms per 1,000 |")
    print(f"| `redact` (all spans), labelled texts | {per_thousand(texts, redact):.1f} ms per 1,000 |")
    print(f"| `redact`, chat turns | {per_thousand(chat, redact, rounds=3):.1f} ms per 1,000 |")
    turns = "\n".join(chat)
    conversation = (turns * (1_000_000 // len(turns) + 1))[:1_000_000]
    log = "".join(f"2026-12-0{i % 9 + 1} 10:{i % 60:02d}:{i % 60:02d} INFO worker-{i % 7} processed job {i} "
                  f"in {i % 997} ms\n" for i in range(16_000))[:1_000_000]
    questions = ("If they ask about my first pet at the bank I say something. The security question app asked "
                 "about the street. Flip to the back of the card, the security digits are on the back. ") * 6_000
    for name, text in (("prose (one sentence again and again)", prose),
                       ("the chat turns of benchmarks/conversations.py, again and again", conversation),
                       ("a log (timestamps, ids, numbers)", log), ("dense with near-miss keywords", dense),
                       ("security questions and card backs in every sentence", questions),
                       ("'pin ' then a million spaced digits", "pin " + "1 " * 500_000),
                       ("'the password is ' then a million letters", "the password is " + "a" * 1_000_000)):
        print(f"| `find_secrets`, a 1 MB paste: {name} | {cpu_once(lambda t=text: find_secrets(t)):.0f} ms CPU |")
    logins = "\n".join(f"password: Heron!Mist{i}x" for i in range(1_000))
    # An attacker's shapes for the rules of blind round 13's kinds, on one line (each was read from its line's
    # start or to its end: 18 s and 14 s at 100 kB before they were bounded).
    for name, text in (("'my seed phrase, keep it: safe' again and again, one line, 96 kB",
                        " ".join(["my seed phrase, keep it: safe"] * 3_200)),
                       ("'login PIN 662901, the card PIN is different (3307)' again and again, one line, 102 kB",
                        " ".join(["login PIN 662901, the card PIN is different (3307)"] * 2_000))):
        print(f"| `find_secrets`, {name} | {cpu_once(lambda t=text: find_secrets(t)):.0f} ms CPU |")
    print(f"| `find_secrets`, a paste of 1,000 logins, 25 kB (14.5 s when each value was compiled as a pattern) | "
          f"{cpu_once(lambda: find_secrets(logins)):.0f} ms CPU |")
    print(f"| `find_secrets(\"the code is \" + 'a' * 24000)` (10 s of CPU before issue 42) | "
          f"{cpu_once(lambda: find_secrets('the code is ' + 'a' * 24_000)):.0f} ms CPU |")
    print(f"| import `memory.sensitive` (fresh process) | {float(cold[0]):.0f} ms |")
    print(f"| first call that loads the validators and word lists | {float(cold[1]):.0f} ms |")

    # The gate's last step: a 20 kB request (chat turns, as sent and as a JSON body) and 50 values.
    random.seed(35)
    values = random.sample(sorted({v for r in rows if r["secret"] for v in r["values"]}), 50)
    request = "\n".join(chat)[:20_000]
    body = json.dumps({"messages": [{"role": "user", "content": request[i:i + 500]}
                                    for i in range(0, len(request), 500)]})[:20_000]
    leaked = request[:9_000] + f" Invalid date: {values[0]!r} " + request[9_000:19_900]
    size = statistics.median(map(len, values))
    print(f"\n`withhold_fragments` over a 20 kB request and 50 sensitive values ({size:.0f} characters each, the "
          "median), the median of 20 calls:\n")
    print("| request | time |\n| --- | --- |")
    for name, text in (("chat turns, nothing to withhold", request), ("the same as a JSON body (escapes)", body),
                       ("chat turns with one value echoed by `!r`", leaked)):
        print(f"| {name} | {per_call(lambda t=text: withhold_fragments(t, values)):.1f} ms |")


def cpu_once(call: Callable[[], object]) -> float:
    """Milliseconds of CPU of one call (wall time on a shared machine says more of the others' load)."""
    started = time.process_time()
    call()
    return (time.process_time() - started) * 1000


def round_five() -> dict:
    """Blind round 5 measured as its first sight was (text recall, span recall, near misses flagged): its
    'values' are all of a text's values and its 'kinds' the text's kinds, so the labelled set's measure
    (one kind per value) does not read it."""
    rows = [r for r in labelled(ROUND_5) if "text" in r]
    flagged = alarms = values = found = 0
    missed = []
    for row in rows:
        hit = is_sensitive(row["text"])
        if not row["secret"]:
            alarms += hit
            continue
        flagged += hit
        if not hit:
            missed.append(row["text"])
        spans = find_secrets(row["text"])
        for value in row["values"]:
            values += 1
            found += covered(row["text"], value, spans)
    secrets = sum(r["secret"] for r in rows)
    near = len(rows) - secrets
    return {"secrets": secrets, "flagged": flagged, "recall": flagged / secrets, "values": values, "found": found,
            "span_recall": found / values, "near_misses": near, "alarms": alarms, "near_miss_rate": alarms / near,
            "missed": missed}


def per_call(call: Callable[[], object], rounds: int = 20) -> float:
    """Milliseconds per call, the median of `rounds` calls."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


if __name__ == "__main__":
    main()
