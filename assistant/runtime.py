"""The objects one run of the app shares: settings, one clock, one store, one embedder.

Built once at the edge (CLI or UI) and passed in; nothing here is global. Heavy parts (the store's
extension, the embedder) are created on first use.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.settings import Settings

if TYPE_CHECKING:
    from memory.search import Searcher
    from memory.search.embeddings import Embedder
from assistant import paths
from memory.errors import InvalidInput
from memory.store import Store
from memory.time.clock import Clock
from memory.time.zones import system_zone, zone_from_name


class Runtime:
    def __init__(self, settings: Settings, notice: Callable[[str], None] | None = None,
                 embedder: Embedder | None = None, command: str | None = None, reads: bool = False) -> None:
        """`embedder`: one to use instead of the configured one (a test's counting stand-in). `command`: the
        CLI command this runtime serves, held to check_store_path when it opens the store (`reads`: one that
        works on what a store holds)."""
        self.settings = settings
        self.command = command
        self.reads = reads
        # Open the store for reading only (`assistant mcp --read-only`): the file does not change, not even
        # by bookkeeping (embeddings of waiting texts, activation); set before the store is first used.
        self.read_only = False
        if embedder is not None:
            self.__dict__["embedder"] = embedder  # what the cached property below would hold
        zone = zone_from_name(settings.timezone) if settings.timezone else system_zone()
        self.clock = Clock(zone, settings.frozen_now(), settings.reminders.default_clock_time())
        self.notice = notice or (lambda text: None)

    @cached_property
    def store(self) -> Store:
        # With a replica set, Litestream reads the WAL: closing leaves it for Litestream (SPEC F16).
        return Store(self.store_path(), self.clock, read_only=self.read_only,
                     keep_wal=bool(self.settings.backup.replica))

    def store_path(self) -> Path:
        """The store's path, held to check_store_path for a CLI command (before anything can create it)."""
        if self.command is not None:
            check_store_path(self.settings, self.command if self.reads else None)
        return self.settings.db_path()

    @cached_property
    def embedder(self) -> Embedder | None:
        """The local embedder, or None when embeddings are turned off (embedding_model = "none")."""
        if self.settings.embedding_model.lower() in ("none", "off", ""):
            return None
        from memory.search.embeddings import LocalEmbedder

        return LocalEmbedder(self.settings.embedding_model, cache_dir=paths.cache_dir())

    @cached_property
    def searcher(self) -> Searcher:
        from memory.search import Searcher

        return Searcher(self.store, self.embedder, on_notice=self.notice, on_backlog=self._backlog_notice)

    def unload_embedder(self, idle_seconds: float) -> bool:
        """Let the embedding model go when it has not embedded anything for `idle_seconds` (the next
        text to embed loads it again); True when it was loaded and is not any more."""
        embedder = self.__dict__.get("embedder")  # never created: nothing to unload
        unload = getattr(embedder, "unload", None)  # a test's stand-in may have no model to let go
        return bool(unload(idle_seconds)) if unload is not None else False

    def _backlog_notice(self, waiting: int) -> None:
        self.notice(f"{waiting:,} texts are still waiting for their embeddings: until then search finds them by "
                    "keywords only (`assistant index` embeds them now; the app does it while idle).")

    def close(self, wait: float = -1) -> None:
        """Close the store (`wait`: Store.close's, for a process that is ending)."""
        if "store" in self.__dict__:
            self.store.close(wait)


def check_store_path(settings: Settings, reading: str | None) -> None:
    """A store path someone gave (--db, ASSISTANT_DB, the config) is taken as typed: a mistyped one must not
    quietly become a new empty store, nor make folders (as root, `--db /nonexistent/dir/x.db` made
    /nonexistent/dir). `reading` (the command's name): a command that works on what a store holds needs
    the file to exist; any other needs its folder to. The default store is made on first use, folders too."""
    if not settings.db:
        return
    path = settings.db_path()
    if path.exists():
        return
    default = "leave --db out to use the default store"
    if reading is not None:
        raise InvalidInput(f"no store at {path}: `assistant {reading}` works on an existing store and creates none; "
                           f"give the path of an existing store, or {default}")
    if not path.parent.is_dir():
        raise InvalidInput(f"no folder {path.parent} for the store {path}: make the folder first (a store path "
                           f"is taken as typed), or {default}")
