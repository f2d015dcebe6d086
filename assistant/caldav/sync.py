"""One two-way sync of the reminders with the CalDAV calendar (SPEC F15, `assistant sync`).

1. The lock: one sync of a store at a time, whatever the process (a file lock beside the store, released by
   the system when its process ends, a crash included); another sync waits for it.
2. The calendar: its URL as the store knows it (no request), else found or made (see server.Server).
3. The server's changes since the last sync token (RFC 6578): one REPORT; the to-dos whose ETag differs
   from the one recorded are fetched in one multiget; they and the removed ones are applied to the
   reminders, with the new token, in one transaction (memory.transfer.caldav.take_remote).
4. The reminders' changes: each one new or changed here is written (If-None-Match / If-Match), each one
   forgotten, made private or no longer due is removed; each recorded as it succeeds. A write refused
   because the to-do changed meanwhile (412) is read back and merged, and written again once.

So a sync with nothing changed is one request, and a sync cut short anywhere leaves nothing twice: what was
recorded is known, what was not is found again by its href or UID.
"""
from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from assistant.caldav.config import CalendarConfig
from assistant.caldav.server import CalendarGone, CalendarUnreachable, Server
from assistant.errors import AssistantError
from assistant.locks import lock_within
from memory.store import Store
from memory.transfer import caldav as state
from memory.transfer.caldav import Cancel, Found, Outcome, Push
from memory.transfer.exits import Exit

LOCK_WAIT_SECONDS = 120.0  # a first sync of thousands of reminders takes minutes; a waiting one says so after this


class SyncBusy(AssistantError):
    """Another process's sync of this store did not end in time."""


@dataclass
class SyncResult:
    outcome: Outcome = field(default_factory=Outcome)
    sent: int = 0  # to-dos written (new or changed)
    removed: int = 0  # to-dos removed from the server
    fetched: int = 0  # to-dos read from the server
    requests: int = 0
    seconds: float = 0.0
    calendar: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"ok": True, "calendar": self.calendar, "sent": self.sent, "removed_there": self.removed,
                "fetched": self.fetched, **self.outcome.to_json(), "requests": self.requests,
                "seconds": round(self.seconds, 3)}

    def describe(self) -> str:
        """"Synced with https://dav.example.com: sent 3, 1 done here, 1 new here (2 requests, 0.4 s)."."""
        o = self.outcome
        parts = [f"sent {self.sent}" if self.sent else "", f"removed {self.removed} there" if self.removed else "",
                 f"{len(o.created)} new here" if o.created else "",
                 *(f"#{i} {change} here" for i, change in o.changed[:5]),
                 f"{len(o.changed) - 5} more changed here" if len(o.changed) > 5 else "",
                 f"{len(o.cancelled)} cancelled here (deleted there; undo brings the last one back)" if o.cancelled
                 else "",
                 f"{len(o.unreadable)} unreadable item{'s' if len(o.unreadable) != 1 else ''} there left alone"
                 if o.unreadable else ""]
        said = ", ".join(p for p in parts if p) or "nothing to change"
        return f"Synced with {self.calendar}: {said} ({self.requests} request{'s' if self.requests != 1 else ''}, " \
               f"{self.seconds:.1f} s)."


@contextmanager
def sync_lock(db_path: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold the store's sync lock (a file beside it, 0600), waiting up to `wait` seconds for another sync."""
    lock_path = Path(f"{db_path}.caldav-lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if not lock_within(fd, wait, step=0.1):
            raise SyncBusy("another sync of this store is still running; try again when it ends")
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def run_sync(store: Store, db_path: Path, config: CalendarConfig, cancel: Cancel,
             progress: Callable[[int, int], None] | None = None, wait: float = LOCK_WAIT_SECONDS) -> SyncResult:
    """One sync; raises CalendarUnreachable (exit 1: nothing lost), BadInput (exit 2) or SyncBusy."""
    started = time.monotonic()
    result = SyncResult(calendar=_shown_server(config.url))
    with sync_lock(db_path, wait):
        server = Server(config)
        try:
            _sync(store, server, config, cancel, result, progress)
        finally:
            result.requests = server.requests
            result.seconds = time.monotonic() - started
            server.close()
    return result


def _sync(store: Store, server: Server, config: CalendarConfig, cancel: Cancel, result: SyncResult,
          progress: Callable[[int, int], None] | None) -> None:
    exit_ = Exit(store)
    known, token = state.use_account(store, config.account)
    for _ in range(2):
        url = server.open_calendar(known)
        state.use_calendar(store, url)
        try:
            report = server.report(token)
            break
        except CalendarGone:  # deleted on the server: found (or made) again, and everything sent again
            state.forget_calendar(store)
            known = token = None
    else:
        raise CalendarUnreachable("the calendar vanished from the server twice during one sync; try again")
    etags = state.known_etags(store)
    missing = object()
    wanted = [(h, e, d) for h, e, d in report.changed if e is None or etags.get(h, missing) != e]
    loaded = [Found(h, e, d) for h, e, d in wanted if d]
    found = loaded + server.fetch([h for h, _, d in wanted if not d])
    result.fetched = len(found)
    deleted = list(report.deleted)
    if report.whole:  # the whole calendar was listed: what it does not list is gone
        listed = {h for h, _, _ in report.changed}
        deleted += [h for h in etags if h not in listed and h not in deleted]
    _merge_outcome(result.outcome, state.take_remote(store, found, deleted,
                                                      None if report.truncated else report.token, exit_, cancel))
    folder = _path(url)
    for round_ in range(2):
        pushes, removals = state.local_changes(store, folder, exit_)
        refused = _send(store, server, pushes, result, progress)
        for removal in removals:
            server.delete(removal.href)
            state.removed(store, removal.href)
            result.removed += 1
        if not refused or round_:
            break
        # Changed on the server meanwhile (or there already, from a sync cut short): read back and merged.
        again = server.fetch(refused)
        result.fetched += len(again)
        _merge_outcome(result.outcome, state.take_remote(store, again, [], None, exit_, cancel))


def _send(store: Store, server: Server, pushes: list[Push], result: SyncResult,
          progress: Callable[[int, int], None] | None) -> list[str]:
    """Write each to-do and record it; the hrefs the server refused because they changed there (412)."""
    refused = []
    for done, push in enumerate(pushes, start=1):
        status, etag = server.put(push.href, push.body, push.etag, push.new)
        if status == 412:
            refused.append(push.href)
        else:
            state.sent(store, push, etag)
            result.sent += 1
        if progress is not None:
            progress(done, len(pushes))
    return refused


def _merge_outcome(into: Outcome, more: Outcome) -> None:
    into.created += more.created
    into.changed += more.changed
    into.cancelled += more.cancelled
    into.conflicts += more.conflicts
    into.unreadable += more.unreadable


def _path(url: str) -> str:
    return state.href_of(url)


def _shown_server(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
