"""What answers a turn (SPEC 1): one protocol, two responders beside each other: a model, through the
gate (responders.model), or the offline mode, which needs no prompt (responders.offline).

The agent (assistant/turn) stores the message, reads it once, makes the turn's gate with the
responder's `gate_for`, lets the responder `prepare` (a model responder builds the prompt; the
offline mode has nothing to build), then asks it for rounds: text deltas and tool calls, until a
round makes no call. The agent runs every tool call, the same way for both. When the model cannot
be reached, the agent switches the turn to its fallback responder (the offline mode), the reason
given with the turn (`TurnInput.unreachable`)."""
from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from assistant.conversation import Item, ToolUse
from assistant.outbound.gate import Gate
from assistant.providers.base import Delta, Note, Usage
from assistant.reading import Reading
from memory.store import Store
from memory.turn_records import OpenQuestion, TurnRecord


@dataclass(frozen=True)
class TurnInput:
    """One turn's message, as stored and read, and its gate."""
    reading: Reading
    gate: Gate
    episode_id: int  # 0 in an incognito conversation: nothing of it is stored
    message_id: int
    incognito: bool = False  # memory is read as usual, nothing is written (SPEC F12)
    unreachable: str | None = None  # why the configured model is not answering it (a fallback's turn)

    @property
    def text(self) -> str:
        return self.reading.text


class Responder(Protocol):
    @property
    def name(self) -> str:
        """anthropic | openai | ollama | offline"""
        ...

    @property
    def model(self) -> str:
        """The model as a person names it."""
        ...

    @property
    def local(self) -> bool:
        """Nothing leaves the machine (the offline mode)."""
        ...

    @property
    def reached(self) -> bool:
        """Whether a model answered a request of this turn (never, for the offline mode): a turn the app
        answered by itself says nothing of the model's health."""
        ...

    def gate_for(self, store: Store, reading: Reading) -> Gate:
        """The gate of a turn answered here."""
        ...

    async def prepare(self, turn: TurnInput) -> None:
        """Anything a turn needs before its first round (a model's prompt)."""
        ...

    def round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        """One round: text deltas, then the tool calls of this round (if any)."""
        ...

    def explain(self, record: TurnRecord) -> TurnRecord:
        """This turn's Why record with what went into its answer: the prompt's sections as sent, what the
        gate withheld, what did not fit (a model); the memories the answer showed (the offline mode)."""
        ...

    def asked(self) -> OpenQuestion | None:
        """The question this turn's answer asked, waiting for the next message (the offline mode's own)."""
        ...

    def recover(self) -> bool:
        """The model failed after it had begun answering: whether a round is left that still acts on
        the message (the app carrying out a clear request the model did not)."""
        ...

    async def warm(self, conversation: list[Item]) -> bool:
        """Between two turns: have the model's server read `conversation` (the history the next turn
        sends) as that turn will send it, so that it then reads only its own block and message (SPEC
        F4). Whether a request went out (never to a server that is not the person's own)."""
        ...
