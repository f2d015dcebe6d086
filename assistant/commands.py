"""One function per CLI command: parse nothing, print through `emit`, raise InvalidInput on bad input."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assistant.cli import emit
from assistant.runtime import Runtime
from memory import episodes, knowledge, reminders
from memory.errors import InvalidInput


def _memory_line(runtime: Runtime, m: knowledge.Memory) -> str:
    due = f" (due {runtime.clock.short(m.due_at)})" if m.due_at else ""
    done = " [done]" if m.done_at else ""
    return f"#{m.id} {m.kind}: {m.content}{due}{done}"


def cmd_remember(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = knowledge.remember(runtime.store, args.text, due_at=args.due, kind=args.kind,
                                importance=args.importance, private=args.private)
    emit(args, memory.to_json(), "Remembered " + _memory_line(runtime, memory))
    return 0


def cmd_reminders(runtime: Runtime, args: argparse.Namespace) -> int:
    if args.within_days < 0:
        raise InvalidInput("--within-days must not be negative")
    items = reminders.list_open_reminders(runtime.store, args.within_days)
    now = runtime.clock.now()

    def line(r: reminders.Reminder) -> str:
        mentioned = f", mentioned {runtime.clock.short(r.memory.reminded_at)}" if r.memory.reminded_at else ""
        return (f"#{r.memory.id} {r.label} {r.memory.content} "
                f"({reminders.relative_time(r.memory.due_at, now, runtime.clock)}{mentioned})")

    def text() -> str:
        if not items:
            return f"Nothing due in the next {args.within_days:g} days."
        return "\n".join(line(r) for r in items)

    emit(args, [r.to_json() for r in items], text)
    return 0


def cmd_update(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = knowledge.update_memory(runtime.store, args.id, reminded_at=args.reminded, due_at=args.due,
                                     content=args.content, importance=args.importance)
    emit(args, memory.to_json(), "Updated " + _memory_line(runtime, memory))
    return 0


def cmd_done(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = knowledge.mark_done(runtime.store, args.id)
    emit(args, memory.to_json(), "Done " + _memory_line(runtime, memory))
    return 0


def cmd_snooze(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = knowledge.snooze(runtime.store, args.id, " ".join(args.when))
    emit(args, memory.to_json(), "Snoozed " + _memory_line(runtime, memory))
    return 0


def cmd_forget(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = knowledge.forget(runtime.store, args.id)
    emit(args, {"forgotten": memory.to_json()}, f"Forgot #{memory.id}: {memory.content}")
    return 0


def episode_line(runtime: Runtime, e: episodes.Episode, with_summary: bool = True) -> str:
    line = f"[{runtime.clock.stamp(e.started_at)}] {e.title or 'Untitled'}"
    if with_summary and e.summary:
        line += f"\n    {e.summary}"
    return line


def cmd_recap(runtime: Runtime, args: argparse.Namespace) -> int:
    """Closed conversations (list_recent), then the one in progress with its opening lines.

    `--json` stays the documented list of closed episodes (list_recent's contract); the text adds
    the conversation in progress, marked current.
    """
    from assistant.tools import current_conversation_line, opening_line

    items = episodes.list_recent(runtime.store, limit=args.limit, outcome=args.outcome, hours=args.hours)
    current = episodes.in_progress(runtime.store) if args.outcome in (None, "success") else None

    def text() -> str:
        lines = [episode_line(runtime, e) for e in items]
        if current is not None:
            lines.append(current_conversation_line(runtime, current).removeprefix("- "))
            lines += [f"    > {opening_line(m.content)}" for m in current.opening]
        return "\n".join(lines) or f"No episodes found in the last {args.hours:g} hours."

    emit(args, [e.to_json() for e in items], text)
    return 0


def cmd_recall(runtime: Runtime, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    if args.reason or _asks_when(query):
        from assistant.recall import reasoned_recall

        answer = reasoned_recall(runtime, query, mode=args.mode, limit=args.limit)
        emit(args, answer.to_json(), answer.to_text)
        return 0
    hits = runtime.searcher.search(query, limit=args.limit, mode=args.mode)
    emit(args, [h.to_json() for h in hits], lambda: "\n".join(
        f"{h.type} #{h.id} [{h.tier}] {runtime.clock.short(h.created_at)}: {h.content[:200]}" for h in hits)
        or "Nothing found.")
    return 0


def _asks_when(query: str) -> bool:
    from memory.temporal import asks_when

    return asks_when(query)


def cmd_export(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.records import write_export

    if args.file and args.file != "-":
        target = Path(args.file)
        tmp = target.with_name(target.name + ".partial")
        with open(tmp, "w", encoding="utf-8") as out:
            count = write_export(runtime.store, out)
        tmp.replace(target)
        print(f"Exported {count} records to {target}", file=sys.stderr)
    else:
        write_export(runtime.store, sys.stdout)
    return 0


def cmd_import(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.records import import_records

    path = Path(args.file)
    try:
        text = sys.stdin.read() if args.file == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    counts = import_records(runtime.store, text.splitlines())
    summary = ", ".join(f"{n} {kind}s" for kind, n in counts.items() if n) or "nothing"
    emit(args, {"imported": counts}, f"Imported {summary}.")
    return 0


def cmd_status(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.status import collect_status

    data = collect_status(runtime)
    emit(args, data, lambda: "\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def cmd_prompt(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.prompt import build_prompt

    prompt = build_prompt(runtime, args.query)
    emit(args, prompt.to_json(), prompt.text)
    return 0


def cmd_chat(runtime: Runtime, args: argparse.Namespace) -> int:
    import asyncio

    from assistant.agent import Agent
    from assistant.events import Failed, Notice, TextDelta, to_json
    from assistant.providers.base import ProviderError
    from assistant.providers.select import select_provider

    if not args.message.strip():
        raise InvalidInput("the message is empty")
    try:
        provider = select_provider(runtime)
    except ProviderError as exc:
        print(f"assistant: {exc}", file=sys.stderr)
        return 1
    agent = Agent(runtime, provider)
    as_json = getattr(args, "json", False)
    events = []

    async def run() -> int:
        status = 0
        async for event in agent.turn(args.message):
            events.append(event)
            if as_json:
                continue
            if isinstance(event, TextDelta):
                sys.stdout.write(event.text)
                sys.stdout.flush()
            elif isinstance(event, Notice):
                print(f"\n[{event.text}]", file=sys.stderr)
            elif isinstance(event, Failed):
                status = 1
        return status

    status = asyncio.run(run())
    if as_json:
        print(json.dumps([to_json(e) for e in events], ensure_ascii=False, indent=2))
    else:
        print()
    failed = next((e for e in events if isinstance(e, Failed)), None)
    if failed:
        print(f"assistant: {failed.text}", file=sys.stderr)
    return status


def cmd_consolidate(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.consolidate import run_consolidation

    def progress(done: int, total: int, phase: str) -> None:
        if not getattr(args, "json", False) and sys.stderr.isatty():
            print(f"\r{phase} {done}/{total}   ", end="", file=sys.stderr)

    result = run_consolidation(runtime, full=args.full, dry_run=args.dry_run, progress=progress)
    for message in result["messages"]:
        print(f"assistant: {message}", file=sys.stderr)
    emit(args, result, lambda: (
        f"Run {result['run_id']}{' (dry run)' if result['dry_run'] else ''}: {result['memories_processed']} memories, "
        f"{result['clusters_found']} clusters, {result['summaries_created']} summaries, "
        f"{result['supersessions_detected']} supersessions, {len(result['tier_transitions'])} tier changes"
        + (f"\nErrors: {'; '.join(result['errors'])}" if result["errors"] else "")))
    return 0


def cmd_tiers(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.consolidation.pipeline import tier_counts

    counts = tier_counts(runtime.store)
    emit(args, counts, lambda: "\n".join(f"{tier}: {n}" for tier, n in counts.items()))
    return 0


def cmd_edges(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.consolidation.pipeline import edges_of

    knowledge.get_memory(runtime.store, args.id)
    edges = edges_of(runtime.store, args.id)
    emit(args, edges, lambda: "\n".join(f"{e['source_type']} #{e['source_id']} -{e['edge_type']}-> "
                                        f"{e['target_type']} #{e['target_id']} ({e['reason'] or ''})" for e in edges)
         or f"No edges for memory #{args.id}.")
    return 0
