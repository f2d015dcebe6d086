"""Stored and typed text made safe to show: control characters become visible symbols.

Textual passes an ESC or CSI byte inside widget text straight to the terminal, so a pasted
"\\x1b[2J" would clear the screen and a stored one could forge what is shown. The rule is the CLI's
(assistant.terminal.visible): newlines and tabs are kept, every other control character and the
bidirectional overrides are shown as symbols (␛, ␇, <U+202E>).
"""
from __future__ import annotations

from memory.text import flat, visible

__all__ = ["one_line", "visible"]


def one_line(text: str, width: int = 80) -> str:
    """A single display line: control characters shown, whitespace folded, cut with an ellipsis."""
    return flat(visible(text), max(2, width))
