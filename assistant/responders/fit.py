"""A chat request made to fit the model's context window (SPEC F7: the prompt fits the model).

Room is kept for the answer; then, while the request is too long: older history goes first (the
last exchanges stay), then memory sections by their priority (the clock and the reminders last),
then the rest of the history before this turn, then the tools (the app still acts on a clear
request itself). This turn's own message and rounds always go.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from assistant.conversation import AssistantMessage, Item, ToolResults, UserMessage
from assistant.prompt.build import Prompt
from assistant.providers.base import ToolSpec
from assistant.providers.window import tokens

KEPT_HISTORY = 4  # items of earlier history dropped only after the lower-priority memory sections
KEPT_SECTIONS = ("Current Time", "Reminders")  # memory sections dropped last
ITEM_OVERHEAD = 8  # tokens a chat template adds around each message


def reply_room(window: int, asked: int) -> int:
    """Tokens kept for the answer: what was asked for (max_tokens), at most a quarter of the window."""
    return max(64, min(asked, window // 4))


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

    @property
    def tools_dropped(self) -> bool:
        return "the tools" in self.dropped


def fit(prompt: Prompt, conversation: list[Item], tools: list[ToolSpec], budget: int) -> Fitted:
    """The request within `budget` tokens (the window less the room for the answer)."""
    start = max((i for i, item in enumerate(conversation) if isinstance(item, UserMessage)), default=0)
    history, turn = list(conversation[:start]), list(conversation[start:])
    sections = list(prompt.sections)
    offered = list(tools)
    dropped: list[str] = []
    fixed = tokens(prompt.stable) + sum(item_tokens(i) for i in turn)

    def total() -> int:
        memory = replace(prompt, sections=sections).memory_text
        return fixed + tokens(memory) + tools_tokens(offered) + sum(item_tokens(i) for i in history)

    def drop_history(keep: int) -> bool:
        if len(history) <= keep:
            return False
        history.pop(0)
        while history and isinstance(history[0], AssistantMessage | ToolResults):
            history.pop(0)  # a conversation opens with the user's words
        dropped.append("an earlier message")
        return True

    def drop_section(kept: tuple[str, ...]) -> bool:
        candidates = [s for s in sections if s.label not in kept]
        if not candidates:
            return False
        lowest = min(candidates, key=lambda s: s.priority)
        sections.remove(lowest)
        dropped.append(lowest.label)
        return True

    steps: list[Callable[[], bool]] = [lambda: drop_history(KEPT_HISTORY), lambda: drop_section(KEPT_SECTIONS),
                                       lambda: drop_history(0), lambda: drop_section(("Current Time",))]
    for step in steps:
        while total() > budget and step():
            pass
    if total() > budget and offered:
        offered = []
        dropped.append("the tools")
    earlier = dropped.count("an earlier message")
    said = ([f"{earlier} earlier message{'s' if earlier != 1 else ''}"] if earlier else []) + \
        [d for d in dropped if d != "an earlier message"]
    size = total()
    return Fitted(replace(prompt, sections=sections), history + turn, offered, said, max(0, size - budget), size)
