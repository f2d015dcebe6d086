"""A model's answer as Markdown: its own module, imported when the first answer is shown, because
Textual's Markdown widget and markdown-it take a tenth of a second to import and the first frame
does not need them."""
from __future__ import annotations

from markdown_it import MarkdownIt
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from ui.text import visible


def answer_parser() -> MarkdownIt:
    """Markdown without raw HTML: "<side door>" in an answer is text to show, not a tag to drop."""
    return MarkdownIt("gfm-like", {"html": False})


class AnswerView(Markdown):
    """A model's answer, streamed in batches and finished with a full update (only these are Markdown)."""

    DEFAULT_CLASSES = "answer"

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__(visible(markdown) if markdown else markdown, parser_factory=answer_parser)

    def stream(self) -> MarkdownStream:
        """A MarkdownStream that batches streamed text into this view."""
        return Markdown.get_stream(self)
