"""Commands that look after the store: doctor, status, consolidate, tiers, edges."""
from __future__ import annotations

import argparse
import sys

from assistant.cli.output import emit, note
from assistant.runtime import Runtime
from memory import memories
from memory.health import Health


def cmd_doctor(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.status import models_status
    from memory.health import check

    health = check(str(runtime.store_path()))
    models = models_status(runtime)

    def text() -> str:
        counts = ", ".join(f"{n} {name}" for name, n in health.counts.items() if n is not None)
        lines = [f"Database: {health.path} ({health.size_bytes / 1e6:.1f} MB, mode {health.mode}, "
                 f"schema {health.schema_version})",
                 f"Integrity: {_verdict(health)}"]
        if counts:
            lines.append(f"Readable: {counts}")
        if health.pending_embeddings:
            lines.append(f"Waiting for embeddings: {health.pending_embeddings} (`assistant index` does them now)")
        lines += [f"  - {p}" for p in health.problems]
        if not health.ok:
            lines.append(recovery(health))
        lines += [f"Chat model: {models['chat_line']}", f"Local model: {models['local_line']}"]
        return "\n".join(lines)

    emit(args, {**health.to_json(), "models": {"chat": models["chat"], "local": models["local"]}}, text)
    return 0 if health.ok else 1


def _verdict(health: Health) -> str:
    if health.ok:
        return "ok"
    return "NEWER VERSION" if health.newer else "NOT A STORE" if not health.store_file else "DAMAGED"


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
        shown = {k: v for k, v in data.items() if k not in ("models", "calendar_sync")} | \
            {"consolidation": consolidation}
        return "\n".join(f"{k.replace('_', ' ')}: {'-' if v is None else v}" for k, v in shown.items())

    emit(args, data, text)
    return 0


def cmd_consolidate(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.jobs import run_consolidation

    def progress(done: int, total: int, phase: str) -> None:
        if not getattr(args, "json", False) and sys.stderr.isatty():
            print(f"\r{phase} {done}/{total}   ", end="", file=sys.stderr)

    if not args.dry_run:
        from assistant.turn.titles import owed_titles

        owed_titles(runtime)  # the model's titles a quit left owed: made by the next process with a model (SPEC F7)
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
    from memory.edges import edges_of

    memories.get_memory(runtime.store, args.id)
    edges = edges_of(runtime.store, args.id)
    emit(args, edges, lambda: "\n".join(f"{e['source_type']} #{e['source_id']} -{e['edge_type']}-> "
                                        f"{e['target_type']} #{e['target_id']} ({e['reason'] or ''})" for e in edges)
         or f"No edges for memory #{args.id}.")
    return 0


def recovery(health: Health) -> str:
    """How to get the memories back from the file `doctor` found wanting, with this app's commands."""
    if not health.store_file:
        return "Give --db the path of an assistant database."
    if health.newer:
        return "Nothing is wrong with the file: install the newer assistant that wrote it."
    if not health.readable:
        return (f"Nothing in {health.path} can be read, not even its list of tables, so no row can be saved "
                "from it; only a backup copy can bring it back.")
    return (f"To recover: `assistant export --db {health.path} saved.jsonl` saves every readable row; move "
            f"{health.path} aside; `assistant import saved.jsonl` builds a new store from it.")
