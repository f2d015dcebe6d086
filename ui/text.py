"""Stored and typed text made safe to show: control characters become visible symbols.

Textual passes an ESC or CSI byte inside widget text straight to the terminal, so a pasted
"\\x1b[2J" would clear the screen and a stored one could forge what is shown. Newlines and tabs are
kept; every other C0/C1 control character is shown as its Unicode "control picture" (␛, ␇) or as
an escape like "\\x9b".
"""
from __future__ import annotations

import re

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ... ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}"


def visible(text: str) -> str:
    """`text` with control characters (except newline and tab) shown instead of emitted."""
    return _CONTROLS.sub(_picture, text.replace("\r\n", "\n"))


def one_line(text: str, width: int = 80) -> str:
    """A single display line: whitespace folded, cut with an ellipsis."""
    flat = " ".join(visible(text).split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)].rstrip() + "…"
