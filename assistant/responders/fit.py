"""A chat request made to fit the model's context window (SPEC F7: the prompt fits the model).

Room is kept for the answer; then, while the request is too long: older history goes first (the
last exchanges stay), then memory sections (this turn's before the system's, by their priority; the
clock and the reminders last), then the tools (the app still acts on a clear request itself), then the
rest of the history before this turn. This turn's own message and rounds always go.

The history is cut so that a server can keep reusing what it read (SPEC F4): from where it started in
the last request (`start`, a message id) while that still fits, and when it no longer does, down to
half the room it has in one cut, so that the next turns start at the same message again instead of
one message later each time (which would make the server read the whole conversation again, every turn).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from assistant.conversation import AssistantMessage, Item, ToolResults, UserMessage
from assistant.prompt.build import Prompt, next_to_drop
from assistant.providers.base import ToolSpec
from assistant.providers.window import tokens

KEPT_HISTORY = 4  # items of earlier history dropped only after the lower-priority memory sections
KEPT_SECTIONS = ("Today", "Current Time", "Reminders")  # memory sections dropped last
ITEM_OVERHEAD = 8  # tokens a chat template adds around each message


def item_tokens(item: Item) -> int:
    if isinstance(item, UserMessage):
        return tokens(item.text) + ITEM_OVERHEAD
    if isinstance(item, AssistantMessage):
        return tokens(item.text) + sum(tokens(json.dumps(c.input)) + 10 for c in item.tool_calls) + ITEM_OVERHEAD
    return sum(tokens(r.content) + ITEM_OVERHEAD for r in item.results)


def tools_tokens(tools: list[ToolSpec]) -> int:
    return tokens(json.dumps([{"name": t.name, "description": t.description, "parameters": t.parameters}
                              for t in tools]))


@dataclass
class Fitted:
    prompt: Prompt
    conversation: list[Item]
    tools: list[ToolSpec]
    dropped: list[str] = field(default_factory=list)  # what did not fit ("2 earlier messages", "Timeline")
    over: int = 0  # tokens still over the budget when nothing more could go
    tokens: int = 0  # the request's size as estimated (CHARS_PER_TOKEN)
    start: int | None = None  # the message the history sent starts at (where the next request starts it)

    @property
    def tools_dropped(self) -> bool:
        return "the tools" in self.dropped


def _message_id(item: Item) -> int | None:
    return item.message_id if isinstance(item, UserMessage | AssistantMessage) else None


def fit(prompt: Prompt, conversation: list[Item], tools: list[ToolSpec], budget: int,
        start: int | None = None) -> Fitted:
    """The request within `budget` tokens (the window less the room for the answer). `start`: the
    message the last request's history started at."""
    fitted = _fit(prompt, conversation, tools, budget, start)
    if fitted.tools_dropped and tools:
        # Fitted again without them from the start: the history is then cut to the room it has without
        # the tools, once, and not again at each turn while they are left out.
        again = _fit(prompt, conversation, [], budget, start)
        return replace(again, dropped=[*again.dropped, "the tools"])
    return fitted


def _fit(prompt: Prompt, conversation: list[Item], tools: list[ToolSpec], budget: int, start: int | None) -> Fitted:
    newest = max((i for i, item in enumerate(conversation) if isinstance(item, UserMessage)), default=0)
    history, turn = list(conversation[:newest]), list(conversation[newest:])
    sections = list(prompt.sections)
    offered = list(tools)  # emptied when they do not fit
    dropped: list[str] = []
    fixed = tokens(prompt.stable) + sum(item_tokens(i) for i in turn)

    def total() -> int:
        shown = replace(prompt, sections=sections)
        return (fixed + tokens(shown.memory_text) + tokens(shown.turn_text) + tools_tokens(offered)
                + sum(item_tokens(i) for i in history))

    def drop_first() -> None:
        history.pop(0)
        while history and isinstance(history[0], AssistantMessage | ToolResults):
            history.pop(0)  # a conversation opens with the user's words
        dropped.append("an earlier message")

    ids = [_message_id(i) for i in history]
    if start is not None and start in ids:  # where the server's copy starts: what came before went last time
        while history and _message_id(history[0]) != start:
            history.pop(0)
            dropped.append("an earlier message")

    def cut_history() -> bool:
        """One cut, to half the room the history has (keeping the last KEPT_HISTORY items)."""
        if len(history) <= KEPT_HISTORY:
            return False
        room = budget - (total() - sum(item_tokens(i) for i in history))
        while len(history) > KEPT_HISTORY and sum(item_tokens(i) for i in history) > room // 2:
            drop_first()
        return True

    def drop_history(keep: int) -> bool:
        if len(history) <= keep:
            return False
        drop_first()
        return True

    def drop_section(kept: tuple[str, ...]) -> bool:
        lowest = next_to_drop(sections, kept)
        if lowest is None:
            return False
        sections.remove(lowest)
        dropped.append(lowest.label)
        return True

    def drop_tools() -> bool:
        if not offered:
            return False
        offered.clear()
        dropped.append("the tools")
        return True

    # The tools go before the last exchanges: a model that cannot see the conversation cannot follow
    # it, and the app acts on a clear request itself.
    steps: list[Callable[[], bool]] = [cut_history, lambda: drop_history(KEPT_HISTORY),
                                       lambda: drop_section(KEPT_SECTIONS), drop_tools, lambda: drop_history(0),
                                       lambda: drop_section(("Today", "Current Time"))]
    for step in steps:
        while total() > budget and step():
            pass
    earlier = dropped.count("an earlier message")
    said = ([f"{earlier} earlier message{'s' if earlier != 1 else ''}"] if earlier else []) + \
        [d for d in dropped if d != "an earlier message"]
    size = total()
    return Fitted(replace(prompt, sections=sections), history + turn, offered, said, max(0, size - budget), size,
                  _message_id(history[0]) if history else None)
