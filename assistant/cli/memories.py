"""One function per CLI command: parse nothing, print through `emit`, raise InvalidInput on bad input."""
from __future__ import annotations

import argparse
import contextlib

from assistant.cli.output import emit, note
from assistant.runtime import Runtime
from memory import changes, memories, reminders
from memory.errors import InvalidInput
from memory.text import flat
from memory.time.due_phrases import check_not_empty
from memory.time.schedule import has_passed, past_note


def _warn_if_past(runtime: Runtime, args: argparse.Namespace, memory: memories.Memory) -> None:
    """A due date in the past is kept (it is overdue at once) but never silently: the text line says it
    (_memory_line); with --json, whose stdout is data, the usual note goes to stderr, unless --allow-past
    said it was meant."""
    said = None if args.allow_past or not getattr(args, "json", False) else past_note(runtime.clock, memory.due_at)
    if said:
        note(f"assistant: note: {said}")


def _memory_line(runtime: Runtime, m: memories.Memory) -> str:
    passed = ", which has passed: it is overdue now" if m.due_at and not m.done_at and \
        has_passed(runtime.clock, m.due_at) else ""
    due = f" (due {reminders.due_text(m, runtime.clock)}{passed})" if m.due_at else ""
    done = " [done]" if m.done_at else ""
    return f"#{m.id} {m.kind}: {flat(m.content)}{due}{done}"


def cmd_remember(runtime: Runtime, args: argparse.Namespace) -> int:
    if args.due is not None:
        check_not_empty(args.due)
    memory = memories.remember(runtime.store, " ".join(args.text), due_at=args.due, kind=args.kind,
                                importance=args.importance, private=args.private, embedder=runtime.embedder)
    _warn_if_past(runtime, args, memory)
    emit(args, memory.to_json(), "Remembered " + _memory_line(runtime, memory))
    return 0


TEXT_LIMIT = 50  # reminders the text of `reminders` lists; the rest of the window is counted (SPEC F1)


def cmd_reminders(runtime: Runtime, args: argparse.Namespace) -> int:
    """Every open reminder of the window, overdue first: --json lists them all; the text the most urgent
    TEXT_LIMIT, how many more the window holds, and how many lie beyond it ("and 3 later: next on ...")."""
    if args.within_days < 0:
        raise InvalidInput("--within-days must not be negative")
    store, clock = runtime.store, runtime.clock
    if getattr(args, "json", False):
        emit(args, [r.to_json() for r in reminders.list_open_reminders(store, args.within_days)], "")
        return 0
    items, total, _ = reminders.urgent_open_reminders(store, args.within_days, TEXT_LIMIT)
    later = reminders.beyond_window(store, args.within_days)
    now = clock.now()

    def line(r: reminders.Reminder) -> str:
        mentioned = f", mentioned {clock.short(r.memory.reminded_at)}" if r.memory.reminded_at else ""
        return (f"#{r.memory.id} {r.label} {flat(r.memory.content)} "
                f"({reminders.relative_time(r.due_at, now, clock)}{mentioned})")

    lines = [line(r) for r in items] or [f"Nothing due in the next {args.within_days:g} days."]
    if total > len(items):
        lines.append(f"… {total - len(items):,} more due in the next {args.within_days:g} days "
                     "(assistant reminders --json lists every one)")
    if later.count:
        lines.append(later.text(clock))
    emit(args, None, "\n".join(lines))
    return 0


def cmd_update(runtime: Runtime, args: argparse.Namespace) -> int:
    if args.due is not None:
        check_not_empty(args.due)
    action = "edit" if args.due and args.content else "move" if args.due else "rename" if args.content else None
    with changes.recorded(runtime.store, args.id, action) if action else contextlib.nullcontext():
        memory = reminders.update_memory(runtime.store, args.id, reminded_at=args.reminded, due_at=args.due,
                                         content=args.content, importance=args.importance)
    if args.due:
        _warn_if_past(runtime, args, memory)
    emit(args, memory.to_json(), "Updated " + _memory_line(runtime, memory))
    return 0


def cmd_done(runtime: Runtime, args: argparse.Namespace) -> int:
    before = memories.get_memory(runtime.store, args.id)
    with changes.recorded(runtime.store, args.id, "done"):
        memory = reminders.mark_done(runtime.store, args.id)
    rule = memory.rule
    if memory.done_at is None and rule and before.due_at and memory.due_at:  # a series moved on
        text = (f"Done #{memory.id} {memory.content} for {runtime.clock.short(before.due_at)}; next: "
                f"{runtime.clock.short(memory.due_at)} ({rule.describe()})")
    else:
        text = "Done " + _memory_line(runtime, memory)
    emit(args, memory.to_json(), text)
    return 0


def cmd_snooze(runtime: Runtime, args: argparse.Namespace) -> int:
    with changes.recorded(runtime.store, args.id, "snooze"):
        memory = reminders.snooze(runtime.store, args.id, " ".join(args.when), allow_past=args.allow_past)
    _warn_if_past(runtime, args, memory)
    emit(args, memory.to_json(), "Snoozed " + _memory_line(runtime, memory))
    return 0


def cmd_forget(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.forgetting import forget

    memory = forget(runtime, args.id)
    emit(args, {"forgotten": memory.to_json()}, f"Forgot #{memory.id}: {memory.content}")
    return 0


def cmd_undo(runtime: Runtime, args: argparse.Namespace) -> int:
    """Undo the last change to a memory, made here or anywhere else (the chat, the app, another command)."""
    from assistant.tools import undo_text

    undone = changes.undo_last_change(runtime.store)
    memory = undone.memory if undone else None
    emit(args, {"undone": undone.action if undone else None, "memory": memory.to_json() if memory else None,
                "id": undone.memory_id if undone else None}, lambda: flat(undo_text(runtime, undone)))
    return 0
