"""Text from storage is data: it never reaches a terminal as control sequences.

A memory holding "\\x1b[2J\\x1b]52;c;...\\x07" would clear the screen, write the clipboard or make
the terminal type a reply into the input. Every printer (the CLI's human output and the TUI) shows
control characters as visible symbols instead; JSON output escapes them as JSON does.
"""
from __future__ import annotations

import re
from typing import Any

from memory.text import CONTROL, safe_json


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


def json_text(data: Any) -> str:
    """JSON for a terminal: readable Unicode, every control character escaped."""
    return safe_json(data, indent=2)
