"""The results of the offline mode's tool calls in words (a plan's calls, the conversation ending with
their results): "Okay, I'll remind you to call the bank on Mon Nov 23 10:00 (#1).", "Snoozed: ...",
"That didn't work: ..."."""
from __future__ import annotations

import re
from typing import Any

from assistant.conversation import AssistantMessage, Item, ToolResults, last_user_text
from assistant.offline.phrases import UNDO_HINT, to_you
from assistant.offline.plan import Plan, read_action
from assistant.reading.actions import (
    BaseAction,
    Cancel,
    Done,
    Move,
    Remind,
    RemindNoTime,
    RemindRelative,
    Rename,
    Snooze,
)
from assistant.runtime import Runtime
from assistant.views import private_marked
from memory import supersession
from memory.time.schedule import past_note

# A statement that starts with its verb ("moved to Porto last month", "switched to Monzo").
_FRAGMENT = re.compile(r"^\W*(?:\w+ed|got|went|just|now|no longer)\b", re.I)


def word_results(runtime: Runtime, plan: Plan, conversation: list[Item]) -> str:
    """The results of `plan`'s calls (the conversation ends with them), in words."""
    last = conversation[-1]
    assert isinstance(last, ToolResults)
    results = last.results
    before = conversation[-2] if len(conversation) > 1 else None
    calls = before.tool_calls if isinstance(before, AssistantMessage) else ()
    if calls and all(c.name == "update_memory" and "reminded_at" in c.input for c in calls):
        return ""  # the list was already said; marking it reminded needs no words
    request = plan.request or last_user_text(conversation)
    purposes = plan.purposes
    lines = []
    for n, r in enumerate(results):
        data = r.data or {}
        purpose = purposes[n] if n < len(purposes) else None
        if r.is_error:
            lines.append(f"That didn't work: {r.content.removeprefix('Error: ')}")
        elif r.name == "remember" and data:
            lines.append(_confirm(runtime, data, request, plan.note))
        elif r.name == "update_memory" and data:
            lines.append(_changed_line(runtime, data, purpose))
        elif r.name == "forget" and data:
            cancel = isinstance(purpose, Cancel)
            told = f"Cancelled: {data['content']} (#{data['id']})" if cancel else f"Forgot #{data['id']}"
            lines.append(told + UNDO_HINT + ".")  # any forget comes back with undo, until the next change
        elif r.name == "recall_recent":
            if r.content.startswith("No episodes found"):
                hours = re.search(r"last (\S+) hours", r.content)
                lines.append(f"We haven't talked in the last {hours.group(1) if hours else 48} hours.")
            else:
                lines.append("Here is what we talked about recently:\n" + r.content)
        else:
            lines.append(r.content + ".")
    return "\n".join(lines)


def _confirm(runtime: Runtime, memory: dict[str, Any], request: str, note: str) -> str:
    """"Okay, I'll remind you to call the bank on Mon Nov 23 10:00 (#1)."."""
    clock = runtime.clock
    if not memory.get("due_at"):
        content = memory["content"]
        # "moved to Porto last month" has no subject to follow "that".
        told = f": {content}" if _FRAGMENT.match(content) else f" that {content}"
        line = f"Okay, I'll remember{told} (#{memory['id']})."
        replaced = supersession.replaced(runtime.store, memory["id"])
        if replaced:
            older = replaced[0]
            line = (f"{line[:-1]}; it replaces #{older['id']} from {clock.day(older['created_at'])} "
                    f"({private_marked(older['content'], bool(older['private']))}).")
        return line
    said_as = read_action(runtime, request) if request else None
    link = said_as.link if isinstance(said_as, Remind | RemindNoTime | RemindRelative) else "to"
    rule = memory.get("recurrence")
    if rule:
        when = f"{rule['text']} at {clock.local(memory['due_at']):%H:%M}, starting {clock.short(memory['due_at'])}"
    else:
        when = f"on {clock.short(memory['due_at'])}"
    passed = past_note(clock, memory["due_at"]) if not rule else None
    told = f"Okay, I'll remind you {link} {to_you(memory['content'])} {when}{note} (#{memory['id']})."
    return f"{told} {passed[:1].upper()}{passed[1:]}." if passed else told


def _changed_line(runtime: Runtime, memory: dict[str, Any], purpose: BaseAction | None) -> str:
    clock = runtime.clock
    rule = memory.get("recurrence")
    if isinstance(purpose, Snooze | Move):
        verb = "Snoozed" if isinstance(purpose, Snooze) else "Moved"
        every = f", {rule['text']}" if rule else ""
        when = clock.short(memory["due_at"])
        return f"{verb}: {memory['content']} to {when}{every} (#{memory['id']}){UNDO_HINT}."
    if isinstance(purpose, Rename):
        due = f", due {clock.short(memory['due_at'])}" if memory.get("due_at") else ""
        return f"Renamed #{memory['id']}: {memory['content']}{due}{UNDO_HINT}."
    hint = UNDO_HINT if isinstance(purpose, Done) else ""  # said once the change is recorded for undo
    if rule and not memory.get("done_at"):
        return (f"Done: {memory['content']}. Next one: {clock.short(memory['due_at'])} "
                f"({rule['text']}, #{memory['id']}){hint}.")
    return f"Done: {memory['content']} (#{memory['id']}){hint}."
