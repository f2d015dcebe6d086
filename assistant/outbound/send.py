"""The only code that hands text to a model (tests/test_outbound_sites.py walks the source to keep it
so): a chat provider's stream, and a local model's structured call (titles, reasoned recall,
consolidation's summaries and judge). A chat request passes the Gate
whole at this exit: the memory context, every message, tool call and tool result. What an MCP client
reads (assistant.mcp) goes on to that client's model: it leaves here too, as a tool result does."""
from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from assistant.conversation import Item, ToolUse
from assistant.outbound import requests as build
from assistant.outbound.data import frame_parts
from assistant.outbound.gate import Gate
from assistant.outbound.requests import LocalRequest
from assistant.providers.base import Delta, Note, Provider, SystemPrompt, ToolSpec, Usage
from assistant.providers.window import reply_room, tokens
from memory.errors import RequestTooLong
from memory.text import visible

if TYPE_CHECKING:
    from assistant.providers.local import StructuredModel


async def chat(provider: Provider, gate: Gate, system: SystemPrompt, conversation: list[Item],
               tools: list[ToolSpec], max_tokens: int | None = None) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
    """One model call of a chat turn: the provider gets the request as the gate lets it out (also the
    request of one token that has a server read the conversation between two turns: `max_tokens` 1)."""
    system = SystemPrompt(system.stable, _context(gate, system.memory), _context(gate, system.turn))
    async for item in provider.stream(system, gate.conversation(conversation), tools, max_tokens=max_tokens):
        yield item


def _context(gate: Gate, text: str) -> str:
    """The memory context as the gate lets it out: what stands between the app's frame (its tags, its section
    headings) gated, the frame as it is. A secret that reads as a word of the frame ("Recent", "turn_context":
    a re-check's Wi-Fi passwords) is held back where it is said, and the frame stays whole."""
    return "".join(piece if own else gate.fragments(gate.text(piece, "the memory context"))
                   for own, piece in frame_parts(text))


def to_mcp_client(gate: Gate, text: str, where: str) -> str:
    """A tool result, error, resource or prompt as an MCP client may read it: the gate's last step, as
    for a chat turn's tool result (a withheld memory quoted anywhere goes by its id, a secret by where
    it lives; then any piece of a secret value left, a whole token of any length included: an answer
    stored before its secret was known to be one, an echo of a 4-digit code). The text was built through
    the same gate, memory by memory. A client may print it to a terminal, so stored control characters
    (ESC, BEL, an OSC 52 clipboard write) are shown as symbols, with the function the CLI and the app use."""
    return visible(gate.fragments(gate.text(text, where)))


def ask_local(model: StructuredModel, request: LocalRequest) -> dict[str, Any]:
    """One structured call of the local model (titles, summaries, the judge, reasoned recall). Refused
    for its length, it is asked once more, built again to fit the window the refusal named (and a
    shorter answer asked for); refused again, RequestTooLong says so in one line."""
    if not isinstance(request, LocalRequest):
        raise TypeError("the local model takes only requests built by assistant.outbound.requests")
    try:
        return model.ask(request.instructions, request.text, request.schema)
    except RequestTooLong as exc:
        window = exc.window or max(512, int(tokens(request.instructions + request.text) * 0.6))
        model.max_tokens = reply_room(window, model.max_tokens)
        room = window - model.max_tokens - tokens(request.instructions) - tokens(json.dumps(request.schema)) - 64
        smaller = request.smaller(room) if request.smaller is not None and room > 0 else None
        if smaller is not None and len(smaller.text) < len(request.text):
            try:
                return model.ask(smaller.instructions, smaller.text, smaller.schema)
            except RequestTooLong:
                pass
        raise RequestTooLong(f"{model.server} at {model.host} cannot take this request: it is longer than its "
                             f"context window ({window:,} tokens) even cut to fit", window) from None


class GatedConsolidationModel:
    """memory.consolidation's model protocol for the app: the local model behind the gate."""

    def __init__(self, store: Any, model: Any) -> None:
        self.store = store
        self.model = model
        self.name = model.name
        self._gate: Gate | None = None

    def check(self) -> None:
        self.model.check()

    @property
    def gate(self) -> Gate:
        if self._gate is None:
            self._gate = Gate(self.store)
        return self._gate

    def summarize(self, texts: list[str]) -> dict[str, Any]:
        return ask_local(self.model, build.summary(self.gate, texts))

    def judge(self, newer: str, older: str) -> dict[str, Any]:
        return ask_local(self.model, build.judge(self.gate, newer, older))
