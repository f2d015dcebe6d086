"""Characters that must never reach a terminal raw, and JSON that escapes all of them.

C0 controls (except newline and tab), DEL, C1 controls, and the bidirectional overrides that can
make text read differently from what it is ("Trojan Source"). json.dumps escapes C0 controls but,
with ensure_ascii off, leaves the others raw.
"""
from __future__ import annotations

import json
import re
from typing import Any

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]")


def safe_json(data: Any, indent: int | None = None) -> str:
    """JSON with readable Unicode and every control or direction-changing character escaped."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def flat(text: str, limit: int | None = None) -> str:
    """One line for a list: every run of whitespace, line breaks included, becomes one space (a stored
    title with a line break must not print as a second entry), cut at `limit` with an ellipsis."""
    text = " ".join(text.split())
    return text if limit is None or len(text) <= limit else text[:limit - 1].rstrip() + "…"


def counted(count: float, one: str, many: str | None = None) -> str:
    """A count and its noun, agreeing: "1 message", "2,000 messages", "1 memory" (`many`: a plural that
    is not `one` + "s", "memories"). A rate or other float is rounded first ("1 conversation/s")."""
    number = round(count)
    return f"{number:,} {one if number == 1 else many or one + 's'}"


def _picture(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ ␁ ... ␟
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """`text` with control characters shown as symbols (␛, ␇, <U+009B>); newlines and tabs stay."""
    return CONTROL.sub(_picture, text.replace("\r\n", "\n")) if text else text
