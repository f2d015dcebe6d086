"""The Consolidated Memory block (SPEC F6, last paragraph): one tagged block, replaced in place."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assistant.prompt.timeline import estimate_tokens
from memory.summaries import CONFIDENT

BLOCK_VERSION = "1"
MIN_CONFIDENCE = CONFIDENT  # one cut-off, defined with the summaries
_BLOCK = re.compile(r"<memory_consolidated_summaries\b[^>]*>.*?</memory_consolidated_summaries>", re.S)


@dataclass
class SummaryItem:
    content: str
    confidence: float
    period: str = ""
    key_facts: Sequence[str] = ()


def format_summary_block(items: Sequence[SummaryItem], generated_at: str, max_tokens: int = 2000,
                         escape: Callable[[str], str] = str) -> str | None:
    """The block with the confident summaries that fit, most relevant first; None when none qualify."""
    head = f'<memory_consolidated_summaries version="{BLOCK_VERSION}" generated_at="{generated_at}">'
    tail = "</memory_consolidated_summaries>"
    lines: list[str] = []
    used = estimate_tokens(head + tail) + 1
    for item in items:
        if item.confidence < MIN_CONFIDENCE:
            continue
        period = f"[{item.period}] " if item.period else ""
        facts = f" Key facts: {'; '.join(item.key_facts)}" if item.key_facts else ""
        line = escape(f"- {period}{item.content}{facts}")
        cost = estimate_tokens(line) + 1
        if used + cost > max_tokens:
            continue  # a shorter one further down may still fit
        lines.append(line)
        used += cost
    if not lines:
        return None
    return "\n".join([head, *lines, tail])


def inject_summary_block(text: str, block: str | None) -> str:
    """Put `block` into `text`: replace the existing block (never two), else append it.

    With block None an existing block is removed. Everything else in `text` is kept as it was.
    """
    matches = list(_BLOCK.finditer(text))
    if matches:
        # The first block is replaced in place; any stray later one is removed.
        pieces, last = [], 0
        for index, match in enumerate(matches):
            pieces.append(text[last:match.start()])
            if index == 0 and block:
                pieces.append(block)
            last = match.end()
        pieces.append(text[last:])
        result = "".join(pieces)
        return result if block else re.sub(r"\n{3,}", "\n\n", result)
    if not block:
        return text
    return f"{text.rstrip()}\n\n{block}" if text.strip() else block
