"""Text from storage is data: it never reaches a terminal as control sequences.

A memory holding "\\x1b[2J\\x1b]52;c;...\\x07" would clear the screen, write the clipboard or make
the terminal type a reply into the input. Every printer (the CLI's human output and the TUI) shows
control characters as visible symbols instead; JSON output escapes them as JSON does.
"""
from __future__ import annotations

import json
import re
from typing import Any

# C0 controls except newline and tab, DEL, C1 controls, and the bidirectional overrides that can
# make text read differently from what it is ("Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_C1_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029]")


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
    return _CONTROL.sub(_picture, text.replace("\r\n", "\n")) if text else text


def json_text(data: Any) -> str:
    """JSON for a terminal: readable Unicode, every control character escaped (C1 ones too, which
    json.dumps leaves raw when ensure_ascii is off)."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return _C1_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
