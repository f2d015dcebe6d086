"""The tools a model may call: one registry of typed functions, for the chat model and for other AI
tools over MCP (assistant.mcp).

Each tool is a plain function whose signature is its contract: the JSON schema offered to the
model and the validation of what the model sends both derive from the type hints (pydantic), so a
tool is written once. It returns a structured ToolOutcome. A bad argument, a bad date or an unknown
id is a ToolError whose message goes back to the model as a tool error, never up to the user.

The chat model is offered the tools registered with `chat=True`; an MCP client is offered every
tool (those that write only without --read-only), each calling this same function. What a result
may say to a model is the caller's `gate`.
"""
from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_type_hints

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model

from assistant.errors import ToolError
from assistant.forgetting import forget as forget_memory
from assistant.outbound.gate import LOCAL_GATE, Gate
from assistant.providers.base import ToolSpec
from assistant.recap import recap_text, recent_conversations, reminder_line
from assistant.runtime import Runtime
from assistant.views import masked
from memory import changes, memories, reminders, supersession
from memory.errors import InvalidInput, NoSuchId, checked_id
from memory.schema import KINDS
from memory.search import MODES
from memory.text import flat
from memory.time.schedule import past_note

if TYPE_CHECKING:
    Kind = str
    Mode = str
else:  # the schema a model is offered names the choices: memory's own lists, written once there
    Kind = Literal[KINDS]
    Mode = Literal[tuple(MODES)]


class _NoSuchIdArgument(ValueError):
    """NoSuchId as pydantic reports a validator's refusal (a ValueError), so MCP's SDK, which validates a
    tool's arguments before it calls us, reports it too."""


def _memory_id(value: int) -> int:
    try:
        return checked_id(value)
    except NoSuchId as exc:
        raise _NoSuchIdArgument(str(exc)) from None


# An id a row can have (SQLite's integers from 1): bounded where every tool's arguments are checked, for
# the chat model, MCP and the CLI alike (memory.errors.checked_id).
MemoryId = Annotated[int, AfterValidator(_memory_id)]


@dataclass
class ToolOutcome:
    content: str  # what the model reads
    summary: str  # one compact line for the UI
    changed: str | None = None  # "reminders" | "memories" when the call wrote something
    data: dict[str, Any] | None = None  # the memory written, as JSON (for wording without parsing prose)


@dataclass
class Tool:
    name: str
    description: str
    function: Callable[..., ToolOutcome]
    arguments: type[BaseModel]
    chat: bool = True  # offered to the chat model (every tool is offered over MCP)
    # Changes memory: refused in an incognito conversation, not offered to an MCP client with --read-only.
    writes: bool = True

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, _clean_schema(self.arguments.model_json_schema()))

    def parameters(self) -> list[inspect.Parameter]:
        """The model's arguments as typed parameters (keyword-only, hints resolved): what an MCP
        server builds this tool's schema from."""
        hints = get_type_hints(self.function, include_extras=True)
        return [p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[name])
                for name, p in inspect.signature(self.function).parameters.items()
                if name != "runtime" and p.kind is not inspect.Parameter.KEYWORD_ONLY]

    def run(self, runtime: Runtime, args: dict[str, Any], context: dict[str, Any]) -> ToolOutcome:
        try:
            valid = self.arguments.model_validate(args)
        except ValidationError as exc:
            raise ToolError(argument_problems(self.name, exc)) from None
        wanted = {name for name, p in inspect.signature(self.function).parameters.items()
                  if p.kind is inspect.Parameter.KEYWORD_ONLY}
        return self.function(runtime, **valid.model_dump(exclude_unset=True),
                             **{k: v for k, v in context.items() if k in wanted})


def argument_problems(name: str, exc: ValidationError) -> str:
    """One sentence for arguments that do not fit a tool's schema: each field and what is wrong with it
    (never the value sent: it may hold a secret)."""
    for error in exc.errors():
        refusal = error.get("ctx", {}).get("error")
        if isinstance(refusal, _NoSuchIdArgument):
            return str(refusal)  # the line the CLI and every other front end says
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
    return f"bad arguments for {name}: {problems}"


REGISTRY: dict[str, Tool] = {}


def tool(description: str, name: str | None = None, chat: bool = True, writes: bool = True
         ) -> Callable[[Callable[..., ToolOutcome]], Callable[..., ToolOutcome]]:
    """Register a function as a tool (named after it unless `name` is given); its parameters after
    `runtime` are the tool's arguments, its keyword-only parameters the call's context; `writes`: it
    changes memory; `chat`: offered to the chat model."""
    def register(function: Callable[..., ToolOutcome]) -> Callable[..., ToolOutcome]:
        hints = get_type_hints(function, include_extras=True)
        fields: dict[str, Any] = {}
        for argument, parameter in inspect.signature(function).parameters.items():
            if argument == "runtime" or parameter.kind is inspect.Parameter.KEYWORD_ONLY:
                continue  # keyword-only parameters are the call's context, not the model's arguments
            default = ... if parameter.default is inspect.Parameter.empty else parameter.default
            fields[argument] = (hints[argument], default)
        # Lax validation: small models send "12" for 12; unknown extra arguments are ignored.
        model = create_model(f"{function.__name__}_arguments", __config__=ConfigDict(extra="ignore"), **fields)
        REGISTRY[name or function.__name__] = Tool(name or function.__name__, description, function, model,
                                                   chat, writes)
        return function
    return register


def _clean_schema(schema: Any) -> Any:
    """Pydantic's schema without the titles it adds everywhere (noise in every request)."""
    if isinstance(schema, dict):
        return {k: _clean_schema(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_clean_schema(v) for v in schema]
    return schema


def describe(runtime: Runtime, memory: memories.Memory, text: str | None = None) -> str:
    """One line for a memory: its text (or `text`, the text as a model may see it) and when it is due."""
    due = f", due {reminders.due_text(memory, runtime.clock)}" if memory.due_at else ""
    return f"{memory.content if text is None else text}{due}"


def _holds_secret(gate: Gate, text: str | None) -> bool:
    """Whether `text` holds a secret of the user's message, put back from its placeholder."""
    return text is not None and any(value in text for value in gate.secrets.values())


def _past(runtime: Runtime, memory: memories.Memory) -> str:
    """The usual note when a due date kept has passed ("tonight" said at 22:50: due at once)."""
    said = past_note(runtime.clock, memory.due_at)
    return f". Note: {said}" if said else ""


def _changed(memory: memories.Memory) -> str:
    return "reminders" if memory.due_at else "memories"


# -- the tools ------------------------------------------------------------------------------------

@tool("Store something worth keeping about the user (fact, preference, decision, person, plan). With due_at it "
      "becomes a reminder that will appear under Reminders.", writes=True)
def remember(runtime: Runtime,
             content: Annotated[str, Field(description="What to remember, as one short sentence.")],
             due_at: Annotated[str | None, Field(description=(
                 "For reminders: ISO 8601 or natural language in the user's zone, e.g. 'tomorrow at 9am', "
                 "'friday 10am', 'in 2 hours'; for repeating ones a rule such as 'every Tuesday at 7pm', "
                 "'every weekday at 7:30', 'on the 1st of every month at 10'."))] = None,
             kind: Kind | None = None,
             importance: Annotated[int, Field(ge=1, le=5, description="1 trivial ... 5 essential; default 3.")] = 3,
             private: Annotated[bool, Field(description="Sensitive; shown to you marked [Private].")] = False,
             *, message_id: int | None = None, gate: Gate = LOCAL_GATE, source: str = "typed") -> ToolOutcome:
    # The message that asked is kept with the memory: forgetting it later scrubs that message too. A
    # secret of the user's message (put back from its placeholder) makes the memory sensitive.
    with runtime.store.transaction():  # made and recorded together: undo (ctrl+z, "undo") takes it away again
        memory = memories.remember(runtime.store, content, due_at=due_at, kind=kind, importance=importance,
                                    private=private, allow_past=False,
                                    message_ids=[message_id] if message_id else None,
                                    sensitive=_holds_secret(gate, content) or None, source=source,
                                    embedder=runtime.embedder)
        changes.record_change(runtime.store, memory.id, "remember")
    due = f" (reminder, due {runtime.clock.short(memory.due_at)} {memory.due_at})" if memory.due_at else ""
    return ToolOutcome(f"Remembered #{memory.id}: {gate.memory(memory)}{due}{_past(runtime, memory)}",
                       f"remembered: {describe(runtime, memory)}{_past(runtime, memory)}", _changed(memory),
                       memory.to_json())


@tool("Change a memory by id. After mentioning a reminder, set reminded_at to \"now\". Set done to true when a "
      "reminder is finished (a repeating one moves to its next occurrence); a new due_at snoozes it (only this "
      "occurrence of a repeating one).", writes=True)
def update_memory(runtime: Runtime, id: MemoryId,  # noqa: A002 - the name the model sees
                  reminded_at: Annotated[str | None, Field(description="\"now\" or an ISO 8601 instant.")] = None,
                  due_at: str | None = None, content: str | None = None, done: bool | None = None,
                  *, gate: Gate = LOCAL_GATE) -> ToolOutcome:
    action = "done" if done else "edit" if due_at and content else "move" if due_at else "rename" if content else None
    # A change the user may want back is recorded, so "undo" (the chat, ctrl+z, a later process) can put it back.
    with changes.recorded(runtime.store, id, action) if action else contextlib.nullcontext():
        memory = reminders.update_memory(runtime.store, id, reminded_at=reminded_at, due_at=due_at, content=content,
                                         done=done, allow_past=False, sensitive=_holds_secret(gate, content))
    state = " (done)" if memory.done_at else ""
    if done and not memory.done_at and memory.rule:  # a series moved on: it is not left undone
        state = " (this occurrence done; this is the next one)"
    if due_at not in (None, "") and not memory.done_at:
        state += _past(runtime, memory)
    # Marking a reminder as mentioned is bookkeeping: the UI shows no line for it.
    mentioned_only = reminded_at is not None and due_at is None and content is None and done is None
    summary = "" if mentioned_only else f"updated: {describe(runtime, memory)}{state}"
    return ToolOutcome(f"Updated #{memory.id}: {describe(runtime, memory, gate.memory(memory))}{state}", summary,
                       _changed(memory),
                       memory.to_json())


@tool("Search all memories, past messages and conversation summaries by meaning and keywords.", writes=False)
def recall(runtime: Runtime, query: str,
           mode: Annotated[Mode, Field(description="reflexive (hot only), standard (default), deep (+cold), "
                                                   "exhaustive (everything, archived too).")] = "standard",
           limit: Annotated[int, Field(ge=1, le=30)] = 8, *, gate: Gate = LOCAL_GATE, touch: bool = True
           ) -> ToolOutcome:
    # The model used them (they rank higher later), unless the caller may not write (mcp --read-only).
    hits = supersession.with_replacements(runtime.store, runtime.searcher.search(query, limit=limit, mode=mode,
                                                                                touch=touch))
    found = {m.id: m for m in memories.memories_by_id(runtime.store, [h.id for h in hits if h.type == "memory"])}
    # A memory the gate holds back (private and not asked about in the user's message) is not listed;
    # a sensitive one is listed by its id only.
    hits = [h for h in hits if h.type != "memory" or h.id not in found or gate.listed(found[h.id])]
    if not hits:
        return ToolOutcome("Nothing found.", "recall: nothing found")

    def line(h: Any) -> str:
        # Masked whole first, then cut: a cut never lets the rest of a withheld text through.
        when = f"{runtime.clock.stamp(h.created_at)}, {h.tier}"
        if h.type == "memory" and h.id in found:
            memory = found[h.id]
            text = describe(runtime, memory, flat(gate.memory(memory), 300))
            return f"- memory #{h.id} ({memory.kind}, {when}): {text}"
        return f"- {h.type} #{h.id} ({when}): {flat(gate.stored(h.type, h.id, h.content), 300)}"

    lines = [line(h) for h in hits]
    return ToolOutcome("\n".join(lines), f"recalled {len(hits)} items")


@tool("List recent conversations in time order with titles and summaries.", name="recall_recent", writes=False)
def recall_recent_tool(runtime: Runtime,
                       hours: Annotated[float, Field(gt=0, le=24 * 3650, description="How far back; default 48.")] = 48,
                       limit: Annotated[int, Field(ge=1, le=50)] = 10, *, gate: Gate = LOCAL_GATE) -> ToolOutcome:
    return ToolOutcome(recent_conversations(runtime, hours=hours, limit=limit, gate=gate),
                       f"recent conversations ({hours:g} h)")


@tool("Delete a memory (undo brings it back until the next change). Only when the user asks.", writes=True)
def forget(runtime: Runtime, id: MemoryId) -> ToolOutcome:  # noqa: A002 - the name the model sees

    memory = forget_memory(runtime, id)
    # Only the number: the reply is stored, and repeating what was forgotten would keep it.
    return ToolOutcome(f"Forgot #{memory.id} (undo brings it back until the next change)", f"forgot #{memory.id}",
                       _changed(memory), memory.to_json())


# -- tools offered over MCP only (the chat model has these in its prompt, and update_memory) -----------

@tool("List the user's open reminders: every overdue one and those due within `days` days, most urgent first, "
      "each with its id, status (DUE or OVERDUE), local due time, how far off it is, and its rule if it repeats.",
      chat=False, writes=False)
def upcoming(runtime: Runtime,
             days: Annotated[float, Field(ge=0, le=3650, description="How far ahead; default 7.")] = 7,
             limit: Annotated[int, Field(ge=1, le=200)] = 50, *, gate: Gate = LOCAL_GATE) -> ToolOutcome:
    clock = runtime.clock
    # The sidebar's list: the latest overdue and the soonest due, bounded, however many a calendar import made.
    items, total, overdue = reminders.urgent_open_reminders(runtime.store, days, limit)
    if not items:
        return ToolOutcome(f"Nothing is overdue and nothing is due in the next {days:g} days.", "upcoming: nothing")
    lines = [f"Open reminders ({overdue} overdue, {total - overdue} due in the next {days:g} days; local times, "
             f"{clock.offset_text()}; now {clock.short(clock.now())}):"]
    lines += [reminder_line(runtime, r, gate) for r in items]
    if total > len(items):
        lines.append(f"(and {total - len(items)} more not listed: ask for fewer days or a higher limit)")
    return ToolOutcome("\n".join(lines), f"upcoming: {len(items)} reminders")


@tool("Mark a reminder done by id (a repeating one moves to its next occurrence). The user can undo it in the "
      "app.", chat=False, writes=True)
def done(runtime: Runtime, id: MemoryId, *, gate: Gate = LOCAL_GATE) -> ToolOutcome:  # noqa: A002 - the name the model sees
    return update_memory(runtime, id, done=True, gate=gate)


@tool("Move a reminder to a new time by id: a phrase in the user's zone such as 'in 10 minutes', 'tomorrow at 9am', "
      "'friday 10am', or ISO 8601 (only this occurrence of a repeating one). The user can undo it in the app.",
      chat=False, writes=True)
def snooze(runtime: Runtime, id: MemoryId,  # noqa: A002 - the name the model sees
           due_at: Annotated[str, Field(description="When it is due now.")], *, gate: Gate = LOCAL_GATE
           ) -> ToolOutcome:
    with changes.recorded(runtime.store, id, "snooze"):  # as the app's snooze: undo puts it back
        memory = reminders.snooze(runtime.store, id, due_at, allow_past=False)
    return ToolOutcome(f"Snoozed #{memory.id}: {describe(runtime, memory, gate.memory(memory))}"
                       f"{_past(runtime, memory)}", f"snoozed: {describe(runtime, memory)}", _changed(memory),
                       memory.to_json())


@tool("A recap of today or of the last 48 hours: conversations with their titles and summaries, reminders "
      "overdue and coming up, and what was newly remembered.", chat=False, writes=False)
def recap(runtime: Runtime,
          period: Annotated[Literal["today", "48h"], Field(description="today (since midnight) or 48h "
                                                                         "(default).")] = "48h",
          *, gate: Gate = LOCAL_GATE) -> ToolOutcome:
    return ToolOutcome(recap_text(runtime, period, gate), f"recap ({period})")


TOOL_SPECS = [t.spec() for t in REGISTRY.values() if t.chat]


# One clause, read after "That didn't work: " (the offline answer) or "Error: " (a tool result for the model),
# in a terminal as in the app: it names no key (the app's status bar names the one of its keymap).
INCOGNITO = "nothing is stored in an incognito conversation, so nothing can be remembered, set or changed."


def execute_tool(runtime: Runtime, name: str, args: dict[str, Any], message_id: int | None = None,
                 gate: Gate = LOCAL_GATE, incognito: bool = False) -> ToolOutcome:
    """Run one tool call of the chat model (for the user message `message_id`, under the turn's `gate`:
    what its result may say to a model; in an `incognito` conversation only tools that read); raises
    ToolError with a message for the model."""
    found = REGISTRY.get(name)
    if found is None or not found.chat:
        raise ToolError(f"unknown tool {name!r}; available: {', '.join(t.name for t in REGISTRY.values() if t.chat)}")
    if incognito and found.writes:
        raise ToolError(INCOGNITO)
    return call_tool(runtime, found, args, {"message_id": message_id, "gate": gate})


def call_tool(runtime: Runtime, found: Tool, args: Any, context: dict[str, Any]) -> ToolOutcome:
    """Run `found` with a model's arguments and the call's context (the gate, the message that asked, the
    source of what it writes); every refusal is a ToolError with one message for the model."""
    name = found.name
    if not isinstance(args, dict):
        raise ToolError("arguments must be a JSON object")
    try:
        return found.run(runtime, args, context)
    except InvalidInput as exc:
        raise ToolError(str(exc)) from None
    except (OverflowError, ValueError, TypeError, RecursionError) as exc:
        # Arguments the checks did not foresee (an id beyond SQLite's integers, a float that is not
        # finite): the model hears what went wrong and the turn goes on.

        # The arguments are not logged: they may hold a secret put back from its placeholder.
        logging.getLogger(__name__).info("tool %s refused its arguments (%s)", name, type(exc).__name__)
        raise ToolError(f"invalid arguments ({type(exc).__name__}: {exc})"[:300]) from None


# -- text shared with the CLI and the UI ------------------------------------------------------------

_UNDONE = {"done": "is open again", "snooze": "is no longer snoozed", "move": "is back at its earlier time",
           "cancel": "is back", "forget": "is back", "rename": "has its earlier words back",
           "edit": "is back as it was", "private": "is back as it was", "pin": "is back as it was"}


def undo_text(runtime: Runtime, undone: changes.UndoneChange | None, mask: bool = False) -> str:
    """ "Undone: #5 check the oven is back (due Sun Nov 22 18:00)." (or that there is nothing to undo);
    with `mask`, a secret in it masked (the app's notices, as its lists show it)."""
    if undone is None:
        return "Nothing to undo: no change is recorded."
    memory = undone.memory
    if memory is None:
        return f"Undone: #{undone.memory_id} is gone again (it was just made)."
    state = "done" if memory.done_at else f"due {runtime.clock.short(memory.due_at)}" if memory.due_at else memory.kind
    rule = f", {memory.rule.describe()}" if memory.rule else ""
    content = masked(memory.content, memory.sensitive) if mask else memory.content
    return f"Undone: #{memory.id} {content} {_UNDONE.get(undone.action, 'is back')} ({state}{rule})."
