"""Commands that move data in and out: export, import (JSON Lines or iCalendar), index."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import signal
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from assistant.cli.output import emit, note, written
from assistant.runtime import Runtime
from memory.errors import InvalidInput, StoreUnusable
from memory.store import Store
from memory.text import counted, visible

if TYPE_CHECKING:
    from assistant.cli.progress import EmbeddingProgress
    from memory.transfer.chat_import import ChatImportResult
    from memory.transfer.jsonl_export import Salvage
    from memory.transfer.sniff import ChatFile


def cmd_export(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.jsonl_export import Salvage

    if getattr(args, "markdown", False):
        return _export_markdown(runtime, args)
    if getattr(args, "include_secrets", False):
        raise InvalidInput("--include-secrets goes with --markdown (a JSON Lines export keeps every text as it is)")
    if getattr(args, "ics", None):
        return _export_ics(runtime, args)
    salvage = Salvage()
    with _readable_store(runtime) as store:
        count = _write_jsonl(store, args, salvage)
    if salvage.count or salvage.unreadable_tables:
        # A damaged store: everything readable is out; say what is missing, and fail so scripts notice.
        note(f"assistant: the database is damaged: {salvage.describe()}; the other {count} records were exported")
        return 1
    return 0


def _write_jsonl(store: Store, args: argparse.Namespace, salvage: Salvage) -> int:
    from memory.transfer.jsonl_export import write_export

    if args.file and args.file != "-":

        from memory.files import write_private

        def write(out: IO[bytes]) -> int:
            text = io.TextIOWrapper(out, encoding="utf-8")
            try:
                return write_export(store, text, salvage)
            finally:
                text.flush()
                text.detach()  # write_private closes the file itself

        count = write_private(args.file, write)
        written(args, {"exported": {"file": args.file, "records": count}},
                f"Exported {counted(count, 'record')} to {args.file}")
        return count
    return write_export(store, sys.stdout, salvage)


@contextlib.contextmanager
def _readable_store(runtime: Runtime) -> Iterator[Store]:
    """The store, or, when a damaged file cannot be opened for writing (a failed upgrade check, a
    truncated file), the same file opened read-only (and closed after), so export can still save
    what is readable."""
    try:
        store = runtime.store
    except StoreUnusable as damaged:
        if damaged.reason == "newer":
            raise  # not damage: an upgrade to make, said as it is
        store = _open_read_only(runtime, damaged)
        try:
            yield store
        finally:
            store.close()
        return
    yield store


def _open_read_only(runtime: Runtime, damaged: StoreUnusable) -> Store:
    from memory.connection import DatabaseError

    path = runtime.settings.db_path()
    try:
        store = Store(path, runtime.clock, read_only=True)
        store.read_table_list()
    except (StoreUnusable, DatabaseError):
        raise StoreUnusable(f"nothing in {path} can be read: {str(damaged).split('(', 1)[-1].split(')')[0]} in its "
                            "list of tables, so no row can be found; only a backup copy can bring it back",
                            str(path), "lost") from None
    return store


def _export_markdown(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.markdown import write_markdown

    if not args.file or args.file == "-" or getattr(args, "ics", None):
        raise InvalidInput("give the folder to write: assistant export DIR --markdown")
    with _readable_store(runtime) as store:
        result = write_markdown(store, args.file, include_secrets=getattr(args, "include_secrets", False),
                                embedder=runtime.embedder)
    changed = len(result.written)
    memories = counted(result.memories, "memory", "memories")
    text = (f"Wrote {counted(result.conversations, 'conversation')} and {memories} to {result.folder}"
            f" ({counted(changed, 'file')} written, {result.unchanged:,} unchanged"
            + (f", {len(result.removed):,} removed" if result.removed else "") + "); open README.md there.")
    if not getattr(args, "include_secrets", False):
        text += " Secrets are written as [secret] (--include-secrets keeps them)."
    emit(args, {"exported": result.to_json()}, text)
    return 0


def _export_ics(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.ical import calendar_text, write_calendar

    if args.file:
        raise InvalidInput("give either FILE (JSON Lines) or --ics FILE, not both")
    if args.ics == "-":
        text = calendar_text(runtime.store, runtime.embedder)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    else:
        count = write_calendar(runtime.store, args.ics, runtime.embedder)
        written(args, {"exported": {"file": args.ics, "reminders": count}},
                f"Exported {counted(count, 'reminder')} to {args.ics}")
    return 0


def cmd_import(runtime: Runtime, args: argparse.Namespace) -> int:
    """Import a file, told by its content (SPEC F13): a ChatGPT or Claude export (ZIP or conversations.json),
    JSON Lines, or iCalendar; or undo the last import (--undo-last)."""
    if getattr(args, "undo_last", False):
        if args.file:
            raise InvalidInput("--undo-last takes no FILE: it undoes the last import, whatever it was")
        return _undo_last(runtime, args)
    if not args.file:
        raise InvalidInput("give the FILE to import (a ChatGPT or Claude export, JSON Lines or .ics), or --undo-last")
    if args.file != "-":
        from memory.transfer.sniff import read_chat_file

        path = _regular_file(args.file)
        chat = read_chat_file(path)
        if chat is not None:
            return _import_chats(runtime, args, path, chat)
    from memory.transfer.ical import looks_like_calendar

    text = _read_import(args.file)
    if looks_like_calendar(args.file, text):
        return _import_calendar(runtime, args, text)
    return _import_jsonl(runtime, args, text)


def _regular_file(name: str) -> Path:

    path = Path(name)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise InvalidInput(f"cannot import {path}: not a regular file")
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    return path


def _import_chats(runtime: Runtime, args: argparse.Namespace, path: Path, chat: ChatFile) -> int:
    from assistant.cli.progress import ImportProgress
    from memory.transfer.chat_import import import_chats

    dry_run = getattr(args, "dry_run", False)
    quiet = bool(getattr(args, "json", False))
    try:
        with _stopped_as_interrupted(), \
                ImportProgress(len(chat.export.conversations), quiet=quiet or dry_run) as progress:
            result = import_chats(runtime.store, chat.export, str(path), chat.fingerprint, dry_run=dry_run,
                                  progress=progress.update)
    except KeyboardInterrupt as exc:
        row = runtime.store.one("SELECT counts FROM imports WHERE status = 'interrupted' ORDER BY id DESC LIMIT 1")

        counts = json.loads(row[0]) if row else {}
        note(f"assistant: interrupted{' (SIGTERM)' if isinstance(exc, Stopped) else ''}; "
             f"{counted(counts.get('conversations_added', 0), 'conversation')} "
             f"({counted(counts.get('messages_added', 0), 'message')}) imported stay; run the same import "
             "again to continue")
        return 128 + signal.SIGTERM if isinstance(exc, Stopped) else 130
    summary = result.to_json()
    text = _describe_chats(result, chat.format_name)
    if not dry_run and result.messages_added:
        summary |= _embed_after_import(runtime, getattr(args, "index", False))
    emit(args, summary, text)
    return 0


class Stopped(KeyboardInterrupt):
    """SIGTERM (`kill PID`, a session or service ending) during an import: taken as Ctrl+C is, so what was
    committed stays and the import is recorded as interrupted (killed by the signal's default, it stayed
    "running")."""


@contextlib.contextmanager
def _stopped_as_interrupted() -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise Stopped

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (a test's): nothing to catch there
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _describe_chats(result: ChatImportResult, format_name: str) -> str:
    from memory.transfer.chats import SKIPPED_ONE

    n = counted
    verb = "Would add" if result.dry_run else "Imported"
    parts = [f"{verb} {n(result.conversations_added, 'conversation')} from a {format_name} export"]
    added = result.messages_added
    parts[0] += f" ({n(added, 'message')} in all)" if result.conversations_grown else f" ({n(added, 'message')})"
    if result.conversations_grown:
        parts.append(f"{n(result.conversations_grown, 'conversation')} grew")
    if result.conversations_present:
        parts.append(f"{n(result.conversations_present, 'conversation')} already present")
    text = "; ".join(parts) + "."
    if result.skipped:
        text += " Skipped: " + ", ".join(counted(count, SKIPPED_ONE.get(what, what), what)
                                         for what, count in sorted(result.skipped.items())) + "."
    if result.dry_run:
        text += " Nothing was written (--dry-run)."
    return text


EMBED_NOW_SECONDS = 30.0  # an import waits about this long at most for its new texts' embeddings
SAMPLE = 32  # texts embedded first, to measure how fast this machine embeds these texts


def _embed_after_import(runtime: Runtime, everything: bool = False) -> dict[str, int]:
    """Embed what the import added, now that its rows are committed (each batch its own transaction: the
    app and recall go on meanwhile, and find the rest by keywords). Ctrl+C stops it and loses nothing.
    An import is not held up by it longer than EMBED_NOW_SECONDS (10,000 chat messages take ten minutes
    or more on two cores): a first sample says how fast this machine embeds these texts, and what would
    take longer is left to the app's idle time and `assistant index` (or done now with `import --index`),
    with the rate measured and the time it would take."""
    from memory.search.embeddings import pending_count

    waiting = pending_count(runtime.store)
    if runtime.embedder is None:
        return {"pending_embeddings": waiting}
    try:
        progress = _embed_imported(runtime, None if everything else EMBED_NOW_SECONDS)
    except KeyboardInterrupt:
        note("assistant: embedding stopped; the import is complete, and search finds what is not embedded yet "
             "by keywords (`assistant index` finishes it; the app does it while idle)")
        return {"embedded": 0, "pending_embeddings": pending_count(runtime.store)}
    left = pending_count(runtime.store)
    if progress is not None and left:
        note(f"assistant: {left:,} texts are waiting for their embeddings ({progress.ahead_words(left)}); search "
             "finds them by keywords until then. `assistant index` embeds them now; the app does it while idle.")
    return {"embedded": progress.done if progress else 0, "pending_embeddings": left}


def _import_calendar(runtime: Runtime, args: argparse.Namespace, text: str) -> int:
    from memory.transfer.ical import import_calendar
    from memory.transfer.imports import begin_import, finish_import

    store = runtime.store
    if getattr(args, "dry_run", False):
        raise InvalidInput("--dry-run reads chat exports and JSON Lines; a calendar import is all or nothing already")
    import_id = begin_import(store, "ical", args.file, None)
    with store.transaction():
        before = store.one("SELECT coalesce(max(id), 0) FROM knowledge")[0]
        result = import_calendar(store, text)
        # Rows made in this transaction (the write lock is ours) are the calendar's.
        store.execute("UPDATE knowledge SET import_id = ? WHERE id > ? AND import_id IS NULL", (import_id, before))
    finish_import(store, import_id, result.to_json())
    emit(args, {"imported": result.to_json()}, result.describe())
    return 0


def _import_jsonl(runtime: Runtime, args: argparse.Namespace, text: str) -> int:
    from assistant.cli.progress import ProgressBar
    from memory.transfer.jsonl_import import import_records, parse_lines

    lines = text.splitlines()
    dry_run = getattr(args, "dry_run", False)
    parsed = parse_lines(lines)  # a file refused as a whole opens (and so creates) no store
    with ProgressBar("Importing", len(lines)) as bar:
        counts = import_records(runtime.store, parsed, progress=bar.update,
                                restore_forgotten=getattr(args, "restore_forgotten", False), dry_run=dry_run,
                                source=args.file)
    present = counts.pop("already_present")
    forgotten = counts.pop("forgotten")
    nouns = {"memory": ("memory", "memories"), "summary": ("summary", "summaries"),
             "forgotten": ("tombstone", "tombstones")}
    added = ", ".join(counted(n, *nouns.get(kind, (kind, None))) for kind, n in counts.items() if n)
    verb = "Would import" if dry_run else "Imported"
    were = f"{counted(present, 'record')} {'was' if present == 1 else 'were'} already present"
    if not added:
        text = f"Nothing new: {'the' if present == 1 else 'all'} {were}." if present else "Nothing to import."
    else:
        text = f"{verb} {added}" + (f"; {were}." if present else ".")
    if forgotten:
        one = forgotten == 1
        text += (f" {counted(forgotten, 'forgotten memory', 'forgotten memories')} "
                 f"{'stay' + ('s' if one else '') if dry_run else 'stayed'} out (a tombstone names "
                 f"{'it' if one else 'them'}; --restore-forgotten brings {'it' if one else 'them'} back).")
    if dry_run:
        text += " Nothing was written (--dry-run)."
    summary = {"imported": counts, "already_present": present, "forgotten": forgotten, "dry_run": dry_run}
    # The new texts are embedded after the rows are committed; search finds them by keywords meanwhile
    # (`--index`, once needed for that, is still accepted and means the same).
    if not dry_run:
        if runtime.embedder is not None:
            summary |= _embed_after_import(runtime, getattr(args, "index", False))
        elif getattr(args, "index", False):
            _embed_waiting(runtime)  # says that embeddings are turned off
    emit(args, summary, text)
    return 0


def _undo_last(runtime: Runtime, args: argparse.Namespace) -> int:
    """Undo the last import that added something; imports after it that added nothing (the same file
    again) are passed over and named."""
    from memory.transfer.imports import undo_last_import

    undone = undo_last_import(runtime.store)
    record, removed, skipped = undone.record, undone.removed, undone.skipped
    singular = {"conversations": "conversation", "messages": "message", "memories": "memory", "summaries": "summary"}
    shown = ", ".join(counted(removed[what], singular[what], what)
                      for what in ("conversations", "messages", "memories", "summaries") if removed.get(what)) \
        or "nothing"
    names = {"chatgpt": "ChatGPT export", "claude": "Claude export", "jsonl": "JSON Lines", "ical": "calendar"}
    text = (f"Undid the last import{' that added something' if skipped else ''} (#{record.id}, "
            f"{names.get(record.format, record.format)} {Path(record.source).name}, "
            f"{runtime.clock.stamp(record.started_at)}): removed {shown}.")
    if skipped:
        ids = ", ".join(f"#{i}" for i in sorted(skipped))
        text += (f" The import after it ({ids}) added nothing." if len(skipped) == 1 else
                 f" The {counted(len(skipped), 'import')} after it ({ids}) added nothing.")
    emit(args, {"undone": {"import_id": record.id, "format": record.format, "source": record.source,
                           "started_at": record.started_at, "removed": removed,
                           "passed_over": sorted(skipped)}}, text)
    return 0


def _embed_imported(runtime: Runtime, within: float | None) -> EmbeddingProgress | None:
    """Embed what an import left waiting (see _embed_waiting); when the model cannot load, the import
    stands and the user is told that search finds the new texts by keywords until they are embedded."""
    from memory.errors import EmbedderUnavailable

    try:
        return _embed_waiting(runtime, within)
    except EmbedderUnavailable as exc:
        note(f"assistant: the imported texts could not be embedded ({exc})")
        _backlog_note(runtime)
        return None


IMPORT_LINE_LIMIT = 16 * 1024 * 1024  # one record; a longer line is not something we wrote


def _read_import(name: str) -> str:
    """The text of an import file (or "-", stdin), refused with one clear line when it is a device
    or directory, is not UTF-8, or has a line no record could need (/dev/zero would fill memory)."""

    path = Path(name)
    label = "standard input" if name == "-" else str(path)
    try:
        if name != "-" and not stat.S_ISREG(path.stat().st_mode):
            raise InvalidInput(f"cannot import {path}: not a regular file")
        with (open(sys.stdin.fileno(), encoding="utf-8", closefd=False) if name == "-"
              else path.open(encoding="utf-8")) as stream:
            lines: list[str] = []
            while line := stream.readline(IMPORT_LINE_LIMIT + 1):
                if len(line) > IMPORT_LINE_LIMIT:
                    raise InvalidInput(f"cannot import {label}: line {len(lines) + 1} is longer than "
                                       f"{IMPORT_LINE_LIMIT // 2**20} MB; nothing was imported")
                lines.append(line)
    except (OSError, UnicodeDecodeError) as exc:
        why = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc.strerror or exc
        raise InvalidInput(f"cannot read {label}: {why}") from None
    return "".join(lines)


def _embed_waiting(runtime: Runtime, within: float | None = None) -> EmbeddingProgress:
    """Embed the waiting texts, newest first, saying the rate measured here and the time left (a bar on a
    terminal, else a line now and then): all of them, or with `within`, a sample first (embed_sample), and
    the rest only when at the sample's pace they take no longer than `within` seconds in all (the pace it
    measured is kept on the progress: `ahead`). Each batch is its own transaction: Ctrl+C keeps what was done."""
    from assistant.cli.progress import EmbeddingProgress
    from assistant.errors import AssistantError
    from memory.search.embeddings import embed_sample, pending_count, sync_embeddings, waiting_characters

    store, embedder = runtime.store, runtime.embedder
    if embedder is None:
        raise AssistantError("embeddings are turned off (embedding_model = \"none\"): search uses keywords only")
    load = getattr(embedder, "load", None)
    if callable(load):
        load()  # the model is loaded before the clock starts: the rate measured is the texts'
    with EmbeddingProgress(pending_count(store)) as progress:
        if within is not None:
            sample = embed_sample(store, embedder, SAMPLE)
            progress.update(sample.texts)
            progress.ahead = sample.seconds_for(waiting_characters(store))
            spent = time.monotonic() - progress.started
            if not pending_count(store) or progress.ahead is None or spent + progress.ahead > within:
                return progress
        before = progress.done
        sync_embeddings(store, embedder, progress=lambda done, _total: progress.update(before + done))
    return progress


def _backlog_note(runtime: Runtime) -> None:
    """After a big import: say that search finds the new texts by keywords until they are embedded."""
    from memory.search import EMBED_PER_SEARCH
    from memory.search.embeddings import pending_count

    waiting = pending_count(runtime.store)
    if waiting > EMBED_PER_SEARCH and runtime.embedder is not None:
        note(f"assistant: {waiting:,} texts are waiting for their embeddings; until then search finds them by "
             "keywords only. `assistant index` embeds them; the app does it while idle.")


def cmd_index(runtime: Runtime, args: argparse.Namespace) -> int:
    from assistant.cli.progress import per_second
    from memory.search.embeddings import pending_count

    progress = _embed_waiting(runtime)
    done, left = progress.done, pending_count(runtime.store)
    rate = progress.rate()
    emit(args, {"embedded": done, "pending": left},
         f"Embedded {counted(done, 'text')}" + (f" ({per_second(rate)} here)" if rate else "") +
         (f"; {left:,} still waiting (changed meanwhile)" if left else "") + ".")
    return 0
