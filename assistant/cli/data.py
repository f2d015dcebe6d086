"""Commands that move data in and out: export, import (JSON Lines or iCalendar), index."""
from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from assistant.cli.output import emit, note
from assistant.runtime import Runtime
from memory.errors import InvalidInput, StoreUnusable
from memory.store import Store
from memory.text import visible


def cmd_export(runtime: Runtime, args: argparse.Namespace) -> int:
    from memory.transfer.jsonl_export import Salvage

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


def _write_jsonl(store, args: argparse.Namespace, salvage) -> int:
    from memory.transfer.jsonl_export import write_export

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
    from assistant.cli.progress import ProgressBar

    lines = text.splitlines()
    with ProgressBar("Importing", len(lines)) as bar:
        counts = import_records(runtime.store, lines, progress=bar.update,
                                restore_forgotten=getattr(args, "restore_forgotten", False))
    present = counts.pop("already_present")
    forgotten = counts.pop("forgotten")
    plural = {"memory": "memories", "summary": "summaries"}
    added = ", ".join(f"{n} {plural.get(kind, kind + 's') if n != 1 else kind}" for kind, n in counts.items() if n)
    if not added:
        text = f"Nothing new: all {present} records were already present." if present else "Nothing to import."
    else:
        text = f"Imported {added}" + (f"; {present} records were already present." if present else ".")
    if forgotten:
        text += (f" {forgotten} memor{'y' if forgotten == 1 else 'ies'} forgotten here since the export "
                 "stayed forgotten (--restore-forgotten brings them back).")
    # The new texts are embedded now, so that a search right after the import is as good as one a
    # day later (`--index`, once needed for that, is still accepted and means the same).
    if runtime.embedder is not None:
        _embed_imported(runtime)
    elif getattr(args, "index", False):
        _embed_backlog(runtime)  # says that embeddings are turned off
    emit(args, {"imported": counts, "already_present": present, "forgotten": forgotten}, text)
    return 0


def _embed_imported(runtime: Runtime) -> None:
    """Embed what an import left waiting; when the model cannot load, the import stands and the
    user is told that search finds the new texts by keywords until they are embedded."""
    from memory.errors import EmbedderUnavailable

    try:
        _embed_backlog(runtime)
    except EmbedderUnavailable as exc:
        note(f"assistant: the imported texts could not be embedded ({exc})")
        _backlog_note(runtime)


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
    from assistant.cli.progress import ProgressBar
    from assistant.errors import AssistantError
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
