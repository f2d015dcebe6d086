"""What the app says when reminders fall due, in one place: the launch notice, the toasts, the lines
the chat keeps, and which reminders get a desktop notification."""
from __future__ import annotations

from dataclasses import dataclass

from assistant.views import DueNotice, ReminderView
from ui.text import one_line

LAUNCH_NAMED = 3  # reminders named in the one launch notice; the rest are counted
TOASTS_AT_ONCE = 3  # due reminders shown as toasts (and desktop notifications); the rest are counted in one more
DUE_LINES = 5  # reminders falling due together that get a chat line each; the rest are counted


@dataclass(frozen=True)
class Toast:
    text: str
    title: str
    timeout: float


def launch_text(notice: DueNotice) -> str:
    """The one notice at launch, however many fell due: how many, and the latest few by name."""
    named = "; ".join(f"{one_line(r.content, 50)} ({r.when})" for r in notice.items[:LAUNCH_NAMED])
    n = notice.total
    if n <= LAUNCH_NAMED:
        return f"While the app was closed, {n} reminder{'s' if n != 1 else ''} fell due: {named}."
    return f"While the app was closed, {n:,} reminders fell due; the latest: {named}; and {n - LAUNCH_NAMED:,} more."


def toasts(notice: DueNotice) -> list[Toast]:
    """At launch one toast; later one per reminder for the first few, in due order, and a count of the rest."""
    if notice.at_launch:
        return [Toast(launch_text(notice), "Reminders due", 20)]
    shown = on_desktop(notice)
    out = [Toast(f"{one_line(r.content, 120)} (due {r.when})", "Reminder", 12) for r in shown]
    if notice.total > len(shown):
        out.append(Toast(f"and {notice.total - len(shown):,} more reminders are due now.", "Reminder", 30))
    return out


def on_desktop(notice: DueNotice) -> list[ReminderView]:
    """The reminders a toast (and, when switched on, a desktop notification) names: the first few, in
    due order; none at launch (one summary toast then)."""
    return [] if notice.at_launch else list(reversed(notice.items[:TOASTS_AT_ONCE]))


def chat_lines(notice: DueNotice) -> list[str]:
    """A toast goes away; a line in the chat stays, for whoever was away from the keyboard. At launch one
    line, however many fell due; later a line each for a few and a count of the rest."""
    if notice.at_launch:
        return [f"⏰ {launch_text(notice)}"]
    shown = list(reversed(notice.items[:DUE_LINES]))  # in due order
    lines = [f"⏰ {one_line(r.content, 120)} is due ({r.when})" for r in shown]
    if notice.total > len(shown):
        lines.append(f"⏰ and {notice.total - len(shown):,} more reminders are due now")
    return lines
