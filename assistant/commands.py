"""One function per CLI command: parse nothing, print through `emit`, raise InvalidInput on bad input."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.runtime import Runtime
from assistant.terminal import json_text, visible
from memory import episodes, memories, reminders
from memory.errors import InvalidInput, StoreError
from memory.text import flat


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print a result: JSON with --json, else the human text, never a raw control character."""
    if getattr(args, "json", False):
        print(json_text(data))
    else:
        out = text() if callable(text) else text
        if out:
            print(visible(out))


def note(text: str) -> None:
    """A side remark on stderr (progress, what was written where)."""
    print(visible(text), file=sys.stderr)


def _warn_if_past(runtime: Runtime, args: argparse.Namespace, memory: memories.Memory) -> None:
    """A due date in the past is kept (it is overdue at once) but never silently."""
    if memory.due_at and not args.allow_past and memory.due_at < runtime.clock.now_iso():
        note(f"assistant: note: {runtime.clock.short(memory.due_at)} has already passed, so this reminder is overdue "
             "(--allow-past says you meant it)")


def _memory_line(runtime: Runtime, m: memories.Memory) -> str:
    rule = f", {m.rule.describe()}" if m.recurrence else ""
    due = f" (due {runtime.clock.short(m.due_at)}{rule})" if m.due_at else ""
    done = " [done]" if m.done_at else ""
    return f"#{m.id} {m.kind}: {flat(m.content)}{due}{done}"


def cmd_remember(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = memories.remember(runtime.store, args.text, due_at=args.due, kind=args.kind,
                                importance=args.importance, private=args.private)
    _warn_if_past(runtime, args, memory)
    emit(args, memory.to_json(), "Remembered " + _memory_line(runtime, memory))
    return 0


def cmd_reminders(runtime: Runtime, args: argparse.Namespace) -> int:
    if args.within_days < 0:
        raise InvalidInput("--within-days must not be negative")
    items = reminders.list_open_reminders(runtime.store, args.within_days)
    now = runtime.clock.now()

    def line(r: reminders.Reminder) -> str:
        mentioned = f", mentioned {runtime.clock.short(r.memory.reminded_at)}" if r.memory.reminded_at else ""
        return (f"#{r.memory.id} {r.label} {flat(r.memory.content)} "
                f"({reminders.relative_time(r.memory.due_at, now, runtime.clock)}{mentioned})")

    def text() -> str:
        if not items:
            return f"Nothing due in the next {args.within_days:g} days."
        return "\n".join(line(r) for r in items)

    emit(args, [r.to_json() for r in items], text)
    return 0


def cmd_update(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = reminders.update_memory(runtime.store, args.id, reminded_at=args.reminded, due_at=args.due,
                                     content=args.content, importance=args.importance)
    if args.due:
        _warn_if_past(runtime, args, memory)
    emit(args, memory.to_json(), "Updated " + _memory_line(runtime, memory))
    return 0


def cmd_done(runtime: Runtime, args: argparse.Namespace) -> int:
    before = memories.get_memory(runtime.store, args.id)
    memory = reminders.mark_done(runtime.store, args.id)
    if memory.done_at is None and memory.recurrence:  # a series moved on to its next occurrence
        text = (f"Done #{memory.id} {memory.content} for {runtime.clock.short(before.due_at)}; next: "
                f"{runtime.clock.short(memory.due_at)} ({memory.rule.describe()})")
    else:
        text = "Done " + _memory_line(runtime, memory)
    emit(args, memory.to_json(), text)
    return 0


def cmd_snooze(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = reminders.snooze(runtime.store, args.id, " ".join(args.when), allow_past=args.allow_past)
    emit(args, memory.to_json(), "Snoozed " + _memory_line(runtime, memory))
    return 0


def cmd_forget(runtime: Runtime, args: argparse.Namespace) -> int:
    memory = memories.forget(runtime.store, args.id)
    emit(args, {"forgotten": memory.to_json()}, f"Forgot #{memory.id}: {memory.content}")
    return 0


def episode_line(runtime: Runtime, e: episodes.Episode) -> str:
    """A recap entry: the episode's line, then its summary indented."""
    return e.line(runtime.clock) + (f"\n    {e.summary}" if e.summary else "")


def cmd_recap(runtime: Runtime, args: argparse.Namespace) -> int:
    """Closed conversations (list_recent), then the one in progress with its opening lines.

    `--json` stays the documented list of closed episodes (list_recent's contract); the text adds
    the conversation in progress, marked current.
    """
    from assistant.tools import current_conversation_line, opening_line

    items = episodes.list_recent(runtime.store, limit=args.limit, outcome=args.outcome, hours=args.hours)
    current = episodes.in_progress(runtime.store) if args.outcome in (None, "success") else None

    def text() -> str:
        # Newest first, like list_recent: the conversation in progress leads.
        lines = []
        if current is not None:
            lines.append(current_conversation_line(runtime, current).removeprefix("- "))
            lines += [f"    > {opening_line(m.content)}" for m in current.opening]
        lines += [episode_line(runtime, e) for e in items]
        return "\n".join(lines) or f"No episodes found in the last {args.hours:g} hours."

    emit(args, [e.to_json() for e in items], text)
    return 0


def cmd_recall(runtime: Runtime, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    if args.reason:  # opt-in: `recall --json` without it is always the list of hits
        from assistant.recall import reasoned_recall

        answer = reasoned_recall(runtime, query, mode=args.mode, limit=args.limit)
        emit(args, answer.to_json(), answer.to_text)
        return 0
    hits = runtime.searcher.search(query, limit=args.limit, mode=args.mode)
    emit(args, [h.to_json() for h in hits], lambda: "\n".join(
        f"{h.type} #{h.id} [{h.tier}] {runtime.clock.short(h.created_at)}: {flat(h.content, 200)}" for h in hits)
        or "Nothing found.")
    return 0


def cmd_export(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.jsonl_export import Salvage, write_export

    if getattr(args, "ics", None):
        return _export_ics(runtime, args)
    salvage = Salvage()
    store = _readable_store(runtime)
    if args.file and args.file != "-":
        import io

        from memory.files import write_private

        def write(out) -> int:
            text = io.TextIOWrapper(out, encoding="utf-8")
            try:
                return write_export(store, text, salvage)
            finally:
                text.flush()
                text.detach()  # write_private closes the file itself

        count = write_private(args.file, write)
        note(f"Exported {count} records to {args.file}")
    else:
        count = write_export(store, sys.stdout, salvage)
    if salvage.count or salvage.unreadable_tables:
        # A damaged store: everything readable is out; say what is missing, and fail so scripts notice.
        note(f"assistant: the database is damaged: {salvage.describe()}; the other {count} records were exported")
        return 1
    return 0


def _readable_store(runtime: Runtime):
    """The store, or, when a damaged file cannot be opened for writing (a failed upgrade check, a
    truncated file), the same file opened read-only, so export can still save what is readable."""
    from memory.store import Store

    try:
        return runtime.store
    except StoreError as damaged:
        if "newer version" in str(damaged):
            raise  # not damage: an upgrade to make, said as it is
        path = runtime.settings.db_path()
        from memory.connection import DatabaseError

        try:
            store = Store(path, runtime.clock, read_only=True)
            store.read_table_list()
        except (StoreError, DatabaseError):
            raise StoreError(f"nothing in {path} can be read: {str(damaged).split('(', 1)[-1].split(')')[0]} in its "
                             "list of tables, so no row can be found; only a backup copy can bring it back") from None
        runtime.__dict__["store"] = store  # closed with the runtime
        return store


def _export_ics(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.ical import calendar_text, write_calendar

    if args.file:
        raise InvalidInput("give either FILE (JSON Lines) or --ics FILE, not both")
    if args.ics == "-":
        text = calendar_text(runtime.store)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    else:
        count = write_calendar(runtime.store, args.ics)
        note(f"Exported {count} reminders to {args.ics}")
    return 0


def cmd_import(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.ical import import_calendar, looks_like_calendar
    from memory.transfer.jsonl_import import import_records

    text = _read_import(args.file)
    if looks_like_calendar(args.file, text):
        result = import_calendar(runtime.store, text)
        emit(args, {"imported": result.to_json()}, result.describe())
        return 0
    from assistant.progress import ProgressBar

    lines = text.splitlines()
    with ProgressBar("Importing", len(lines)) as bar:
        counts = import_records(runtime.store, lines, progress=bar.update)
    present = counts.pop("already_present")
    plural = {"memory": "memories", "summary": "summaries"}
    added = ", ".join(f"{n} {plural.get(kind, kind + 's') if n != 1 else kind}" for kind, n in counts.items() if n)
    if not added:
        text = f"Nothing new: all {present} records were already present." if present else "Nothing to import."
    else:
        text = f"Imported {added}" + (f"; {present} records were already present." if present else ".")
    if getattr(args, "index", False):
        _embed_backlog(runtime)
    else:
        _backlog_note(runtime)
    emit(args, {"imported": counts, "already_present": present}, text)
    return 0


IMPORT_LINE_LIMIT = 16 * 1024 * 1024  # one record; a longer line is not something we wrote


def _read_import(name: str) -> str:
    """The text of an import file (or "-", stdin), refused with one clear line when it is a device
    or directory, is not UTF-8, or has a line no record could need (/dev/zero would fill memory)."""
    import stat

    path = Path(name)
    label = "standard input" if name == "-" else str(path)
    try:
        if name != "-" and not stat.S_ISREG(path.stat().st_mode):
            raise InvalidInput(f"cannot import {path}: not a regular file")
        with (open(sys.stdin.fileno(), encoding="utf-8", closefd=False) if name == "-"
              else path.open(encoding="utf-8")) as stream:
            lines = []
            while line := stream.readline(IMPORT_LINE_LIMIT + 1):
                if len(line) > IMPORT_LINE_LIMIT:
                    raise InvalidInput(f"cannot import {label}: line {len(lines) + 1} is longer than "
                                       f"{IMPORT_LINE_LIMIT // 2**20} MB; nothing was imported")
                lines.append(line)
    except (OSError, UnicodeDecodeError) as exc:
        why = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc.strerror or exc
        raise InvalidInput(f"cannot read {label}: {why}") from None
    return "".join(lines)


def _embed_backlog(runtime: Runtime) -> int:
    """Embed every waiting text now, with a progress bar on a terminal; returns how many."""
    from assistant.errors import AssistantError
    from assistant.progress import ProgressBar
    from memory.search.embeddings import pending_count, sync_embeddings

    if runtime.embedder is None:
        raise AssistantError("embeddings are turned off (embedding_model = \"none\"): search uses keywords only")
    with ProgressBar("Embedding", pending_count(runtime.store), min_total=200) as bar:
        return sync_embeddings(runtime.store, runtime.embedder, progress=bar.update)


def _backlog_note(runtime: Runtime) -> None:
    """After a big import: say that search finds the new texts by keywords until they are embedded."""
    from memory.search import EMBED_PER_SEARCH
    from memory.search.embeddings import pending_count

    waiting = pending_count(runtime.store)
    if waiting > EMBED_PER_SEARCH and runtime.embedder is not None:
        note(f"assistant: {waiting:,} texts are waiting for their embeddings; until then search finds them by "
             "keywords only. `assistant index` embeds them now (about 300 a second); the app does it while idle.")


def cmd_index(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.search.embeddings import pending_count

    done = _embed_backlog(runtime)
    left = pending_count(runtime.store)
    emit(args, {"embedded": done, "pending": left},
         f"Embedded {done:,} texts" + (f"; {left:,} still waiting (changed meanwhile)" if left else "") + ".")
    return 0


def cmd_doctor(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.health import check

    health = check(str(runtime.settings.db_path()))

    def text() -> str:
        counts = ", ".join(f"{n} {name}" for name, n in health.counts.items() if n is not None)
        lines = [f"Database: {health.path} ({health.size_bytes / 1e6:.1f} MB, mode {health.mode}, "
                 f"schema {health.schema_version})",
                 f"Integrity: {'ok' if health.ok else 'NEWER VERSION' if health.newer else 'DAMAGED'}"]
        if counts:
            lines.append(f"Readable: {counts}")
        if health.pending_embeddings:
            lines.append(f"Waiting for embeddings: {health.pending_embeddings} (`assistant index` does them now)")
        lines += [f"  - {p}" for p in health.problems]
        if not health.ok:
            lines.append(health.recovery())
        return "\n".join(lines)

    emit(args, health.to_json(), text)
    return 0 if health.ok else 1


def cmd_status(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.status import collect_status

    data = collect_status(runtime)

    def text() -> str:
        run = data["consolidation"]
        if run is None:
            consolidation = "never run"
        else:
            counts = run["counts"] or {}
            consolidation = (f"{run['status']} {run['completed_at'] or run['started_at']} ({run['phase']}; "
                             f"{counts.get('memories_processed', 0)} memories, {counts.get('summaries_created', 0)} "
                             f"summaries)")
        shown = {**data, "consolidation": consolidation}
        return "\n".join(f"{k.replace('_', ' ')}: {'-' if v is None else v}" for k, v in shown.items())

    emit(args, data, text)
    return 0


def cmd_prompt(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.prompt import build_prompt

    prompt = build_prompt(runtime, args.query)
    emit(args, prompt.to_json(), prompt.text)
    return 0


def cmd_chat(runtime: Runtime, args: argparse.Namespace) -> int:
    import asyncio

    from assistant.agent import Agent
    from assistant.errors import ProviderError
    from assistant.events import Done, Failed, Notice, TextDelta, to_json
    from assistant.providers.select import select_provider

    if not args.message.strip():
        raise InvalidInput("the message is empty")
    provider = select_provider(runtime)  # a ProviderError is mapped to exit 1 at the edge
    agent = Agent(runtime, provider)
    as_json = getattr(args, "json", False)
    events = []

    async def run() -> None:
        async for event in agent.turn(args.message):
            events.append(event)
            if as_json:
                continue
            if isinstance(event, TextDelta):
                sys.stdout.write(visible(event.text))
                sys.stdout.flush()
            elif isinstance(event, Notice):
                note(f"[{event.text}]")

    asyncio.run(run())
    if as_json:
        print(json_text([to_json(e) for e in events]))
    else:
        print()
    # The same status with or without --json: 1 when the model failed, even if the offline mode
    # acted on the message in its place.
    failed = next((e for e in events if isinstance(e, Failed)), None)
    if failed:
        raise ProviderError(failed.kind, failed.text)
    done = next((e for e in events if isinstance(e, Done)), None)
    if done is not None and done.failure:
        raise ProviderError(done.failure, "the chat model could not be reached; the offline mode answered instead")
    return 0


def cmd_consolidate(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.consolidate import run_consolidation

    def progress(done: int, total: int, phase: str) -> None:
        if not getattr(args, "json", False) and sys.stderr.isatty():
            print(f"\r{phase} {done}/{total}   ", end="", file=sys.stderr)

    result = run_consolidation(runtime, full=args.full, dry_run=args.dry_run, progress=progress)
    for message in result["messages"]:
        note(f"assistant: {message}")
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

    memories.get_memory(runtime.store, args.id)
    edges = edges_of(runtime.store, args.id)
    emit(args, edges, lambda: "\n".join(f"{e['source_type']} #{e['source_id']} -{e['edge_type']}-> "
                                        f"{e['target_type']} #{e['target_id']} ({e['reason'] or ''})" for e in edges)
         or f"No edges for memory #{args.id}.")
    return 0
