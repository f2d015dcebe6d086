"""The sensitivity detector made faster reads the same (issue 42, "a 1 MB paste is read in under 100 ms"):
the spans of `find_secrets` and the verdict of `is_sensitive` on every text of tests/data/secrets*.jsonl, on
the chat turns of benchmarks/conversations.py, and on long texts read in windows (the labelled texts and the
chat turns joined, and 60 kB cuts of the 1 MB pastes of benchmarks/bench_sensitive.py) are those frozen in
tests/data/sensitive_frozen.json, computed before the work on speed.

A change of the rules changes the outputs on purpose: freeze them again, after reading the difference, with
`python tests/test_sensitive_same.py` (it writes tests/data/sensitive_frozen.json). A text not frozen (a row
added since) is not compared."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memory.sensitive import find_secrets, is_sensitive  # noqa: E402

FROZEN = ROOT / "tests" / "data" / "sensitive_frozen.json"
Output = tuple[list[list[Any]], bool]


def _labelled() -> list[str]:
    texts = []
    for path in sorted((ROOT / "tests" / "data").glob("secrets*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                row = json.loads(line)
                if isinstance(row.get("text"), str):
                    texts.append(row["text"])
    return texts


def _chat() -> list[str]:
    """The chat turns of benchmarks/conversations.py (a module of benchmarks/, not a package: loaded by path)."""
    spec = importlib.util.spec_from_file_location("conversations", ROOT / "benchmarks" / "conversations.py")
    assert spec is not None and spec.loader is not None
    conversations = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("conversations", conversations)
    spec.loader.exec_module(conversations)
    return [turn.text for conversation in conversations.generate_all() for turn in conversation.turns]


def _long() -> list[str]:
    """Texts longer than windows.LONG, so read in windows: what the work on speed changes most."""
    labelled, chat = _labelled(), _chat()
    joined = "\n".join(labelled)
    turns = "\n".join(chat)
    prose = "I met Anna at the market and we talked about the weekend, 3 kids and 12 apples. " * 800
    dense = "the password manager app is great, the code review is at 3pm, pin the poster. " * 800
    log = "".join(f"2026-12-0{i % 9 + 1} 10:{i % 60:02d}:{i % 60:02d} INFO worker-{i % 7} processed job {i} "
                  f"in {i % 997} ms\n" for i in range(1_000))
    questions = ("If they ask about my first pet at the bank I say something. The security question app asked "
                 "about the street. Flip to the back of the card, the security digits are on the back. ") * 360
    blocks = ["\n\n".join(labelled[i:i + 40]) for i in range(0, len(labelled), 400)]
    return [joined, turns, (turns * 3)[:60_000], prose, dense, log, questions, "pin " + "1 " * 30_000,
            "the password is " + "a" * 60_000, *blocks]


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _output(text: str) -> Output:
    return [[s.start, s.end, s.kind] for s in find_secrets(text)], is_sensitive(text)


def _outputs(texts: list[str]) -> dict[str, Output]:
    return {_key(text): _output(text) for text in texts}


def _frozen() -> dict[str, Output]:
    data = json.loads(FROZEN.read_text(encoding="utf-8"))
    return {key: (spans, sensitive) for key, (spans, sensitive) in data.items()}


def _compare(texts: list[str]) -> None:
    frozen = _frozen()
    compared = 0
    differ = []
    for text in texts:
        key = _key(text)
        if key not in frozen:
            continue
        compared += 1
        spans, sensitive = _output(text)
        if (spans, sensitive) != (frozen[key][0], frozen[key][1]):
            differ.append((text[:80], frozen[key], (spans, sensitive)))
    assert compared >= len(set(texts)) * 0.9, "most texts are frozen (freeze again if the sets changed)"
    assert not differ, f"{len(differ)} texts read differently, first: {differ[:3]}"


def test_short_texts_read_as_frozen() -> None:
    _compare(_labelled() + _chat())


@pytest.mark.slow
def test_long_texts_read_in_windows_as_frozen() -> None:
    _compare(_long())


def test_a_different_reading_fails() -> None:
    """The check can fail: a span moved by one character is not the frozen one."""
    text = next(t for t in _labelled() if find_secrets(t))
    spans, sensitive = _frozen()[_key(text)]
    assert (spans, sensitive) == _output(text)
    moved = [[s + 1, e, k] for s, e, k in spans]
    assert (moved, sensitive) != _output(text)


if __name__ == "__main__":
    texts = _labelled() + _chat() + _long()
    FROZEN.write_text(json.dumps(_outputs(texts), separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"froze {len(texts)} texts into {FROZEN.relative_to(ROOT)}")
