"""Where toasts stand: at the foot of the chat, above the message box, never over the newest lines.

At the bottom, Textual's rack of toasts covers the message box while one types; beside it, over the
sidebar, it hides the highlighted reminder; right above the message box it covered the briefing card,
and the chat's newest lines (at 80x24 "Copied the last answer" hid the end of the answer just given).
Textual's documented way to move toasts is to style the `ToastRack` (app.tcss gives it its place for
a message box of three lines). Here, on each layout of the screen (a toast comes or goes, the message
box grows, the briefing card or the working line shows, the terminal is resized), the rack's bottom
margin puts the toasts right above what stands under the chat, its width keeps them in the chat's
column, and the chat gets as much room at its bottom as they take, so that it ends above them (still
pinned to its newest line) and has its whole height again when they go.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.geometry import Region, Spacing
from textual.screen import Screen
from textual.widget import Widget

RACK = "ToastRack"  # Textual's container of toasts, by its CSS type name
TOAST = "Toast"  # one toast in it


def place_toasts(screen: Screen[Any], chat: Widget, under: Iterable[Widget]) -> None:
    """Put the screen's toasts right above the first shown of `under` (what stands below `chat`, top
    first), no wider than the column; and give `chat` padding at its bottom for what they cover of it."""
    shown = [w.region for w in under if w.region.height]
    if shown:
        box = shown[0]
    else:  # the chat column is hidden (the reminder list fills a narrow screen): above the status bar
        box = Region(0, screen.size.height - 2, screen.size.width, 0)  # and the footer
    margin = Spacing(0, 0, max(1, screen.size.height - box.y), 0)
    for rack in screen.query(RACK):
        if rack.styles.margin != margin:
            rack.styles.margin = margin
        width = rack.styles.width
        if width is None or width.value != box.right:
            rack.styles.width = box.right
    area = chat.region
    covered = 0
    for toast in screen.query(TOAST):  # the toasts themselves: their rack is invisible, with no region
        where = toast.region
        if where.height and where.overlaps(area):
            covered = max(covered, area.bottom - max(where.y - 1, area.y))  # and the blank line above it
    covered = min(covered, max(0, area.height - 1))  # toasts over the whole chat: its last line still shows
    padding = chat.styles.padding
    if padding.bottom != covered:
        chat.styles.padding = Spacing(padding.top, padding.right, covered, padding.left)
