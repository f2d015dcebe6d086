"""FTS5 match expressions over the keyword index's content column: the one place they are written.

Each word goes in as an FTS5 string (a double quote inside it doubled), so no word can make the expression
a syntax error or an operator; none at all gives None, since `content:()` is one.
"""
from __future__ import annotations

from collections.abc import Iterable


def content_match(words: Iterable[str], *, every: bool = False) -> str | None:
    """`content:("a" OR "b")` (AND between them when `every`) for `words`, each once, in order; None when
    there is none."""
    quoted = [f'"{w.replace(chr(34), chr(34) * 2)}"' for w in dict.fromkeys(words) if w]
    if not quoted:
        return None
    return f"content:({(' AND ' if every else ' OR ').join(quoted)})"
