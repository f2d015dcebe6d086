"""Where toasts stand: above the message box, over the chat column; and the room the chat leaves them.

At the bottom, Textual's rack of toasts covers the message box while one types; beside it, over the
sidebar, it hides the highlighted reminder. Textual's documented way to move toasts is to style the
`ToastRack` (app.tcss gives it its place for a message box of three lines); the box grows with its
text and the sidebar comes and goes, so the rack's bottom margin and width follow them here, set on
the rack found by that same CSS type name.

Above the message box, a toast stood over the chat's newest lines: at 80x24 "Copied the last answer"
hid the end of the answer just given. While toasts are up, the chat ends above them (`leave_room`:
padding at the bottom of the chat log, which stays pinned to its newest line), and has its whole
height again when they go.
"""
from __future__ import annotations

from textual.geometry import Region, Spacing
from textual.screen import Screen
from textual.widget import Widget

RACK = "ToastRack"  # Textual's container of toasts, by its CSS type name
TOAST = "Toast"  # one toast in it


def place_toasts(screen: Screen[object], message_box: Widget) -> None:
    """Put the screen's toasts right above `message_box`, no wider than the column it stands in."""
    box = message_box.region
    if not box.height:  # the message box is hidden (the reminder list fills a narrow screen): above the
        box = Region(0, screen.size.height - 2, screen.size.width, 0)  # status bar and the footer
    margin = Spacing(0, 0, max(1, screen.size.height - box.y), 0)
    for rack in screen.query(RACK):
        if rack.styles.margin != margin:
            rack.styles.margin = margin
        width = rack.styles.width
        if width is None or width.value != box.right:
            rack.styles.width = box.right


def leave_room(screen: Screen[object], chat: Widget) -> None:
    """Give `chat` as much padding at its bottom as the screen's toasts cover of it (none when there are
    none), so that its last lines show above them. Called whenever the screen's layout is refreshed: a
    toast comes or goes, the message box grows, the terminal is resized."""
    area = chat.region
    covered = 0
    for toast in screen.query(TOAST):  # the toasts (their rack is invisible: it has no region of its own)
        shown = toast.region
        if shown.height and shown.overlaps(area):
            covered = max(covered, area.bottom - max(shown.y - 1, area.y))  # and the blank line above it
    covered = min(covered, max(0, area.height - 1))  # toasts over the whole chat: its last line still shows
    padding = chat.styles.padding
    if padding.bottom != covered:
        chat.styles.padding = Spacing(padding.top, padding.right, covered, padding.left)
