"""A memory's text as it may leave the machine for a place that is not a model: a calendar server (CalDAV,
SPEC F15), a Markdown folder (F13). One rule for every such exit, kept here.

Each secret the one detector finds (memory.sensitive) becomes SECRET and the other words stay, so "call the
bank, PIN 4471" reads "call the bank, PIN [secret]" on a phone; a memory marked sensitive whose secret the
detector cannot point to (its writer said so) goes as SECRET alone. Requests to a model have their own,
stricter gate (assistant/outbound), where a sensitive memory goes out whole as "[secret in memory #N]".

An exit makes one `Exit` for its run and passes every text through `text` (or `memory`, `message`): the
rules of every such exit live in memory.secrets.Outside, for all of them at once: besides the detector's
secrets, what looks like a value in a text the classifier flagged (issue 42), and any whole token, run of 8
characters or 3 words of a secret value a sensitive memory holds, wherever it stands (an answer that
quoted one, a reminder that repeats it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory.secrets import SECRET, Outside
from memory.store import Store

if TYPE_CHECKING:
    from memory.memories import Memory

__all__ = ["SECRET", "Exit"]


class Exit:
    """The text of memories as one run of an exit (a sync, an export) sends it out."""

    def __init__(self, store: Store | None = None, mask: str = SECRET, embedder: Any = None) -> None:
        """`embedder`: the app's, so the classifier's verdict on a text not embedded yet is taken now."""
        self.store = store
        self.mask = mask
        self._outside = Outside.of(store, embedder, mask) if store is not None else None

    def text(self, text: str, sensitive: bool = False) -> str:
        """`text` as it may leave: each secret replaced by the mask, the other words kept; a text marked
        `sensitive` whose secret cannot be pointed to goes as the mask alone."""
        if not text:
            return text
        if self._outside is None:
            from memory.sensitive import redact

            hidden = redact(text, self.mask)
            return self.mask if sensitive and hidden == text else hidden
        return self._outside.masked(text, sensitive)

    def memory(self, memory: Memory) -> str:
        """A memory's text as it may leave (marked sensitive, or flagged by the classifier)."""
        return self.text(memory.content, memory.sensitive) if self._outside is None else self._outside.memory(memory)

    def message(self, message_id: int | None, text: str) -> str:
        """A message of a conversation as it may leave."""
        return self.text(text) if self._outside is None else self._outside.message(message_id, text)

    def restore(self, came_back: str, original: str, sensitive: bool = False) -> str:
        """A text that left as `text(original)` and was edited out there (renamed on a phone), with each
        mask in it put back as the value it stood for, in order, when it still holds one mask per value;
        otherwise as it came back (its masks stay masks: nothing outside ever supplies a secret)."""
        from memory.sensitive import find_secrets

        values = [span.value(original) for span in find_secrets(original)]
        if not values and sensitive and self.text(original, sensitive) == self.mask:
            values = [original]
        pieces = came_back.split(self.mask)
        if not values or len(pieces) != len(values) + 1:
            return came_back
        return "".join(piece + (values[i] if i < len(values) else "") for i, piece in enumerate(pieces))
