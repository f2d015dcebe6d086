"""A model's answer as Markdown: its own module, imported when the first answer is shown, because
Textual's Markdown widget and markdown-it take a tenth of a second to import and the first frame
does not need them."""
from __future__ import annotations

from markdown_it import MarkdownIt
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence, MarkdownStream

from ui.text import visible
from ui.widgets.entry import Entry


def answer_parser() -> MarkdownIt:
    """Markdown without raw HTML: "<side door>" in an answer is text to show, not a tag to drop."""
    return MarkdownIt("gfm-like", {"html": False})


class CodeFence(MarkdownFence):
    """A code block; one without a language is plain text. Textual guesses its language otherwise:
    pygments then imports and tries every lexer it has (0.16 s for the first block, tens of ms for
    each next one), and opening a conversation with a few such blocks took a second more."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return super().highlight(code, language or "text", ansi=ansi, dark=dark)


class AnswerView(Markdown):
    """A model's answer, streamed in batches and finished with a full update (only these are Markdown)."""

    DEFAULT_CLASSES = "answer"
    BLOCKS: dict[str, type[MarkdownBlock]] = {**Markdown.BLOCKS, "fence": CodeFence, "code_block": CodeFence}

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__(visible(markdown) if markdown else markdown, parser_factory=answer_parser)
        self._given = markdown or ""

    @property
    def entry(self) -> Entry:
        """What the chat log keeps when this answer leaves its window: the Markdown shown so far."""
        return Entry("answer", self.source or self._given)

    def stream(self) -> MarkdownStream:
        """A MarkdownStream that batches streamed text into this view."""
        return Markdown.get_stream(self)
