"""The tools the model may call, with JSON schemas, executed against memory.

A bad argument, a bad date or an unknown id is a ToolError: its message goes back to the model
as a tool error, never up to the user as a crash.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assistant.answers import asked_about
from assistant.errors import ToolError
from assistant.providers.base import ToolSpec
from assistant.runtime import Runtime
from memory import episodes, knowledge
from memory.errors import InvalidInput
from memory.redact import redact
from memory.schema import KINDS
from memory.search import MODES


@dataclass
class ToolOutcome:
    content: str  # what the model reads
    summary: str  # one compact line for the UI
    changed: str | None = None  # "reminders" | "memories" when the call wrote something
    data: dict[str, Any] | None = None  # the memory written, as JSON (for wording without parsing prose)


TOOL_SPECS = [
    ToolSpec("remember", "Store something worth keeping about the user (fact, preference, decision, person, "
             "plan). With due_at it becomes a reminder that will appear under Reminders.", {
                 "type": "object", "properties": {
                     "content": {"type": "string", "description": "What to remember, as one short sentence."},
                     "due_at": {"type": "string", "description": "For reminders: ISO 8601 or natural language "
                                "in the user's zone, e.g. 'tomorrow at 9am', 'friday 10am', 'in 2 hours'; for "
                                "repeating ones a rule such as 'every Tuesday at 7pm', 'every weekday at 7:30', "
                                "'on the 1st of every month at 10'."},
                     "kind": {"type": "string", "enum": list(KINDS)},
                     "importance": {"type": "integer", "minimum": 1, "maximum": 5,
                                    "description": "1 trivial ... 5 essential; default 3."},
                     "private": {"type": "boolean", "description": "Sensitive; shown to you marked [Private]."}},
                 "required": ["content"]}),
    ToolSpec("update_memory", "Change a memory by id. After mentioning a reminder, set reminded_at to \"now\". "
             "Set done to true when a reminder is finished (a repeating one moves to its next occurrence); "
             "a new due_at snoozes it (only this occurrence of a repeating one).", {
                 "type": "object", "properties": {
                     "id": {"type": "integer"},
                     "reminded_at": {"type": "string", "description": "\"now\" or an ISO 8601 instant."},
                     "due_at": {"type": "string"}, "content": {"type": "string"},
                     "done": {"type": "boolean"}},
                 "required": ["id"]}),
    ToolSpec("recall", "Search all memories, past messages and conversation summaries by meaning and keywords.", {
        "type": "object", "properties": {
            "query": {"type": "string"},
            "mode": {"type": "string", "enum": list(MODES), "description": "reflexive (hot only), standard "
                     "(default), deep (+cold), exhaustive (everything, archived too)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 30}},
        "required": ["query"]}),
    ToolSpec("recall_recent", "List recent conversations in time order with titles and summaries.", {
        "type": "object", "properties": {
            "hours": {"type": "number", "minimum": 1, "description": "How far back; default 48."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50}}}),
    ToolSpec("forget", "Delete a memory for good. Only when the user asks.", {
        "type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
]



def recall_recent(runtime: Runtime, hours: float = 48, limit: int = 10) -> str:
    """Recent conversations in time order, with local timestamps and summaries, then the one in progress.

    The current conversation is listed (marked as such, with its opening lines) once it holds more
    than the message that asked: it is part of "what did we talk about".
    """
    items = episodes.list_recent(runtime.store, limit=limit, hours=hours)
    current = episodes.in_progress(runtime.store, min_messages=2)
    if not items and current is None:
        return f"No episodes found in the last {hours:g} hours."
    lines = []
    for e in reversed(items):
        where = f"[secret in conversation #{e.id}]"
        lines.append(f"- [{runtime.clock.stamp(e.started_at)}] {redact(e.title or 'Untitled', where)}")
        if e.summary:
            lines.append(f"  {redact(e.summary, where)}")
    if current is not None:
        where = f"[secret in conversation #{current.episode.id}]"
        lines.append(redact(current_conversation_line(runtime, current), where))
        lines += [f"  > {redact(opening_line(m.content), where)}" for m in current.opening]
    return "\n".join(lines)


def current_conversation_line(runtime: Runtime, current: episodes.InProgress) -> str:
    size = f"{current.messages} message{'s' if current.messages != 1 else ''}"
    return f"- [{runtime.clock.stamp(current.episode.started_at)}] (current conversation, {size}) {current.title}"


def opening_line(text: str, width: int = 160) -> str:
    """One line of a message for a list: whitespace folded, cut at `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1].rstrip() + "…"


def _arg(args: dict[str, Any], name: str, kinds: type | tuple[type, ...], required: bool = False) -> Any:
    value = args.get(name)
    if value is None:
        if required:
            raise ToolError(f"missing required argument {name!r}")
        return None
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise ToolError(f"argument {name!r} has the wrong type")
    if not isinstance(value, kinds):
        # Small models send numbers as strings; accept what converts cleanly.
        if kinds in (int, (int, float)) and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        raise ToolError(f"argument {name!r} has the wrong type")
    return value


def describe(runtime: Runtime, memory: knowledge.Memory) -> str:
    rule = f", {memory.rule.describe()}" if memory.recurrence else ""
    due = f", due {runtime.clock.short(memory.due_at)}{rule}" if memory.due_at else ""
    return f"{memory.content}{due}"


def execute_tool(runtime: Runtime, name: str, args: dict[str, Any]) -> ToolOutcome:
    """Run one tool call; raises ToolError with a message for the model."""
    if not isinstance(args, dict):
        raise ToolError("arguments must be a JSON object")
    try:
        return _execute(runtime, name, args)
    except InvalidInput as exc:
        raise ToolError(str(exc)) from None


def _execute(runtime: Runtime, name: str, args: dict[str, Any]) -> ToolOutcome:
    store = runtime.store
    if name == "remember":
        memory = knowledge.remember(
            store, _arg(args, "content", str, True), due_at=_arg(args, "due_at", str), kind=_arg(args, "kind", str),
            importance=_arg(args, "importance", int) or 3, private=bool(_arg(args, "private", bool)),
            allow_past=False)
        changed = "reminders" if memory.due_at else "memories"
        due = f" (reminder, due {runtime.clock.short(memory.due_at)} {memory.due_at})" if memory.due_at else ""
        return ToolOutcome(f"Remembered #{memory.id}: {memory.content}{due}",
                           f"remembered: {describe(runtime, memory)}", changed, memory.to_json())
    if name == "update_memory":
        memory_id = _arg(args, "id", int, True)
        memory = knowledge.update_memory(
            store, memory_id, reminded_at=_arg(args, "reminded_at", str), due_at=_arg(args, "due_at", str),
            content=_arg(args, "content", str), done=_arg(args, "done", bool), allow_past=False)
        state = " (done)" if memory.done_at else ""
        return ToolOutcome(f"Updated #{memory.id}: {describe(runtime, memory)}{state}",
                           f"updated: {describe(runtime, memory)}{state}", "reminders" if memory.due_at else "memories",
                           memory.to_json())
    if name == "recall":
        hits = runtime.searcher.search(_arg(args, "query", str, True), limit=_arg(args, "limit", int) or 8,
                                       mode=_arg(args, "mode", str) or "standard")
        if not hits:
            return ToolOutcome("Nothing found.", "recall: nothing found")
        query = _arg(args, "query", str, True)
        private = {m.id for m in knowledge.memories_by_id(store, [h.id for h in hits if h.type == "memory"]) if m.private}
        # Private memories only when the query is about them; secrets never, only where they live.
        hits = [h for h in hits if h.type != "memory" or h.id not in private or asked_about(query, h.content)]
        lines = [f"- {h.type} #{h.id} ({runtime.clock.stamp(h.created_at)}, {h.tier}): "
                 f"{'[Private] ' if h.type == 'memory' and h.id in private else ''}"
                 f"{redact(h.content[:300], f'[secret in {h.type} #{h.id}]')}" for h in hits]
        if not lines:
            return ToolOutcome("Nothing found.", "recall: nothing found")
        return ToolOutcome("\n".join(lines), f"recalled {len(hits)} items")
    if name == "recall_recent":
        hours = _arg(args, "hours", (int, float)) or 48
        limit = _arg(args, "limit", int) or 10
        if hours <= 0 or limit < 1:
            raise ToolError("hours and limit must be positive")
        text = recall_recent(runtime, hours=hours, limit=limit)
        return ToolOutcome(text, f"recent conversations ({hours:g} h)")
    if name == "forget":
        memory = knowledge.forget(store, _arg(args, "id", int, True))
        return ToolOutcome(f"Forgot #{memory.id}: {memory.content}", f"forgot: {memory.content}",
                           "reminders" if memory.due_at else "memories", memory.to_json())
    raise ToolError(f"unknown tool {name!r}; available: {', '.join(t.name for t in TOOL_SPECS)}")
