"""The background notifier (`assistant notify`, SPEC F1): reminders reach you with the app closed.

A light process (the store and a D-Bus client; no Textual, no embedder) that raises one desktop
notification per occurrence of a reminder when it falls due. It sleeps until the next due instant,
and once a second asks the store whether another process committed (PRAGMA data_version, a read of
one page header), so a reminder written later by the CLI or the app is seen within a second.

Exactly one notification per occurrence, whichever of the app and any number of notifiers runs: a
process first claims the occurrence in the store (memory.reminders.claim_notification, one
INSERT OR IGNORE on a unique key), and only the one that claimed it sends. A send that fails gives
the claim back, so another process that can reach the desktop may send it.

At start, reminders that fell due in the last LOOKBACK while nothing notified them are notified
once (the latest few by name, the rest in one summary); older ones are left to the app's launch
notice, since a desktop notification for something due days ago helps nobody.

With a calendar server set up ([caldav], SPEC F15), it also keeps the reminders in step with it: a
short-lived `assistant sync` child soon after each change and every caldav.interval_minutes (given by the
command line as `calendar`: assistant.caldav.background, whose client the notifier never loads).

With `notify.briefing_time` set, the day's briefing (assistant.briefing) is posted once a day at that
local time, claimed in the store the same way (one notifier posts it), and not at all on a day with
nothing in it.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime, time, timedelta
from typing import Any, Protocol

from assistant.briefing import NOTIFIED_KEY, build_briefing, day_start
from assistant.desktop import NO_BUS, DesktopSender, Sent, reminder_text
from memory import reminders
from memory.store import Store
from memory.time.clock import Clock
from memory.time.instants import UTC, parse_stored

LOOKBACK = timedelta(hours=24)  # at start (and after a sleep), reminders due this long ago are still notified
POLL_SECONDS = 1.0  # how often the store is asked whether another process wrote to it
SHOWN_PER_ROUND = 3  # reminders due together beyond this go in one summary notification (as the app shows 3)
CLAIMS_PER_ROUND = 1000  # a bound on one round's work; what is left is taken in the next round
BRIEFING_LATE = timedelta(hours=4)  # a notifier started this long after the briefing time still posts it

Say = Callable[[dict[str, Any], str], None]  # (event as JSON, the same as a line of text)


class CalendarEnded(Protocol):
    ok: bool
    status: str
    notice: str | None


class Calendar(Protocol):
    """The background sync of the reminders with a calendar server (assistant.caldav.background)."""

    def tick(self) -> CalendarEnded | None: ...

    def stop(self) -> None: ...


def deliver(store: Store, memory_id: int, occurrence_at: str, title: str, body: str,
            send: Callable[[str, str], bool], by: str) -> bool:
    """Claim this occurrence in the store, then send it; True when this process showed it.

    False when another process had claimed it (it was shown there) or the send failed, in which
    case the claim is given back for a process that can reach the desktop.
    """
    if not reminders.claim_notification(store, memory_id, occurrence_at, by):
        return False
    if send(title, body):
        return True
    reminders.release_notification(store, memory_id, occurrence_at, by)
    return False


class Notifier:
    """Watches one store and notifies each occurrence once. `run` until `stop` is set."""

    def __init__(self, store: Store, clock: Clock, say: Say, sender: DesktopSender | None = None,
                 lookback: timedelta = LOOKBACK, poll: float = POLL_SECONDS, briefing_at: time | None = None,
                 calendar: Calendar | None = None) -> None:
        """`briefing_at`: the local time the day's briefing is posted (notify.briefing_time); None: never.
        `calendar`: the background sync with a calendar server, ticked each round; None: none set up."""
        self.store, self.clock, self.say = store, clock, say
        self.briefing_at = briefing_at
        self.calendar = calendar
        self._briefed = ""  # the local day whose briefing this process has settled (posted, or not to be)
        self.sender = sender or DesktopSender()
        self.lookback, self.poll = lookback, poll
        self.by = f"notifier {os.getpid()}"
        self._said = ""  # why the desktop cannot be reached, as last said ("" while it can)
        self._last: Sent | None = None  # the last send that failed
        self._failed: dict[tuple[int, str], datetime] = {}  # occurrences not shown here: not retried in a loop
        self.cycles = 0

    def run(self, stop: threading.Event, cycles: int | None = None) -> None:
        """Notify what fell due lately, then watch until `stop` is set (or `cycles` polls have run)."""
        version = self.store.data_version()
        ready = self.sender.check()
        if not ready.ok:  # normal on a server or in CI: said once, and the watch goes on
            self._say_problem(ready.problem)
        shown = self.sweep()
        self.brief()
        self.say({"event": "started", "db": self.store.path, "pid": os.getpid(), "shown": shown,
                  "lookback_hours": self.lookback.total_seconds() / 3600},
                 f"watching {self.store.path} for reminders (pid {os.getpid()}); {_count(shown)} that fell due in "
                 f"the last {self.lookback.total_seconds() / 3600:g} h notified now; stop with SIGTERM or Ctrl+C")
        next_due = reminders.next_due_after(self.store, self.clock.now())
        try:
            self._watch(stop, cycles, version, next_due)
        finally:
            if self.calendar is not None:
                self.calendar.stop()

    def _watch(self, stop: threading.Event, cycles: int | None, version: int, next_due: datetime | None) -> None:
        while not stop.is_set() and (cycles is None or self.cycles < cycles):
            self.sync_calendar()
            if stop.wait(self._wait(next_due)):
                break
            self.cycles += 1
            self.brief()
            current = self.store.data_version()
            changed, version = current != version, current
            if changed or (next_due is not None and self.clock.now() >= next_due):
                self.sweep()
                next_due = reminders.next_due_after(self.store, self.clock.now())

    def sync_calendar(self) -> None:
        """Start or reap a background sync with the calendar server, and say how one ended (ids and
        times only: never what a reminder says)."""
        if self.calendar is None:
            return
        ended = self.calendar.tick()
        if ended is not None:
            event = {"event": "calendar", "ok": ended.ok, "status": ended.status}
            self.say(event, ended.status + (f": {ended.notice}" if ended.notice and not ended.ok else ""))

    def _wait(self, next_due: datetime | None) -> float:
        """Seconds until the next poll, or until just after the next due instant when that is sooner.

        The clock has whole seconds, so the wait is measured on the real time (a hair late rather than
        early: early means a wasted round); a frozen clock never reaches a later instant, so its
        reminders are the ones written already due, found by the poll."""
        if next_due is None or self.clock.fixed:
            return self.poll
        return max(0.0, min(self.poll, (next_due - datetime.now(UTC)).total_seconds() + 0.05))

    def sweep(self) -> int:
        """Notify every occurrence due in the lookback window that no process has claimed; returns
        how many notifications this process showed."""
        now = self.clock.now()
        since = now - self.lookback
        self._failed = {key: at for key, at in self._failed.items() if at > since}
        due, _ = reminders.due_unnotified(self.store, since, now, CLAIMS_PER_ROUND)
        due = [r for r in due if (r.memory.id, r.due_at) not in self._failed]
        if not due:
            return 0
        if not self.sender.available():
            self._not_shown(NO_BUS, due)
            return 0
        shown = 0
        for position, r in enumerate(due[:SHOWN_PER_ROUND]):
            title, body = reminder_text(r.memory.content, self.clock.short(r.due_at))
            self._last = None
            if deliver(self.store, r.memory.id, r.due_at, title, body, self._send, self.by):
                shown += 1
                self.say({"event": "notified", "id": r.memory.id, "due_at": r.due_at},
                         f"notified: reminder #{r.memory.id}, due {self.clock.short(r.due_at)}")
            elif self._last is not None:  # claimed, but the send failed: the claim was given back
                self._not_shown(self._last.problem, due[position:])
                return shown
        rest = due[SHOWN_PER_ROUND:]
        if rest:
            shown += self._summary(rest)
        return shown

    def brief(self) -> bool:
        """Post the day's briefing once, at or after the briefing time (not when it is more than
        BRIEFING_LATE past), claimed in the store so that one of any number of notifiers posts it; a day
        with nothing in it posts nothing. True when this process posted it."""
        if self.briefing_at is None:
            return False
        now = self.clock.now()
        today = self.clock.local(now).date()
        day = today.isoformat()
        at = day_start(self.clock, today) + timedelta(hours=self.briefing_at.hour, minutes=self.briefing_at.minute)
        if day == self._briefed or not at <= now <= at + BRIEFING_LATE:
            return False
        self._briefed = day  # settled here for today, whatever comes of it: never retried in a loop
        previous = self.store.get_meta(NOTIFIED_KEY)
        if previous is not None and previous >= day:
            return False  # another notifier posted it
        briefing = build_briefing(self.store, self.clock)
        if briefing.empty:
            self.say({"event": "briefing_empty", "day": day}, f"nothing in today's briefing ({briefing.label}): "
                     "nothing posted")
            return False
        if not self.sender.available():
            self._say_problem(NO_BUS)
            return False
        if not self.store.advance_meta(NOTIFIED_KEY, day):
            return False
        title, body = briefing.notification()
        if self._send(title, body):
            self.say({"event": "briefing", "day": day}, f"posted the briefing for {briefing.label}")
            return True
        self.store.retreat_meta(NOTIFIED_KEY, day, previous)  # another process that can reach the desktop may
        self._say_problem(self._last.problem if self._last else "")
        return False

    def _summary(self, rest: list[reminders.Reminder]) -> int:
        """One notification for the reminders due together beyond the first few, each claimed."""
        won = [r for r in rest if reminders.claim_notification(self.store, r.memory.id, r.due_at, self.by)]
        if not won:
            return 0
        more = f"{len(won)} more reminder{'s' if len(won) != 1 else ''}"
        latest = self.clock.short(won[0].due_at)
        body = f"and {more} fell due (the latest {latest}); `assistant reminders` lists them"
        if self._send("Reminders", body):
            ids = ", ".join(f"#{r.memory.id}" for r in won[:10])
            self.say({"event": "notified", "ids": [r.memory.id for r in won]},
                     f"notified: {more} in one summary ({ids}{', ...' if len(won) > 10 else ''})")
            return 1
        for r in won:
            reminders.release_notification(self.store, r.memory.id, r.due_at, self.by)
        self._not_shown(self._last.problem if self._last else "", won)
        return 0

    def _send(self, title: str, body: str) -> bool:
        self._last = sent = self.sender.send(title, body)
        if not sent.ok:
            return False
        self._last = None
        if self._said:
            self.say({"event": "recovered", "via": sent.via}, f"desktop notifications work again (via {sent.via})")
            self._said = ""
            self._failed.clear()
        return True

    def _say_problem(self, problem: str) -> None:
        if problem != self._said:
            self._said = problem
            self.say({"event": "no_desktop", "problem": problem},
                     f"{problem}: reminders that fall due are not shown on the desktop; still watching")

    def _not_shown(self, problem: str, items: list[reminders.Reminder]) -> None:
        """Say once why the desktop cannot be reached, and list each occurrence not shown once. Those are
        not retried here until a notification gets through: two notifiers without a desktop would
        otherwise hand one claim back and forth."""
        self._say_problem(problem)
        for r in items:
            key = (r.memory.id, r.due_at)
            if key not in self._failed:
                self._failed[key] = parse_stored(r.due_at)
                self.say({"event": "not_shown", "id": r.memory.id, "due_at": r.due_at},
                         f"not shown: reminder #{r.memory.id}, due {self.clock.short(r.due_at)}")


def _count(n: int) -> str:
    return f"{n} reminder{'s' if n != 1 else ''}"
