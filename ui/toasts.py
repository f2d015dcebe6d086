"""Where toasts stand: above the message box, over the chat column.

At the bottom, Textual's rack of toasts covers the message box while one types; beside it, over the
sidebar, it hides the highlighted reminder. Textual's documented way to move toasts is to style the
`ToastRack` (app.tcss gives it its place for a message box of three lines); the box grows with its
text and the sidebar comes and goes, so the rack's bottom margin and width follow them here, set on
the rack found by that same CSS type name.
"""
from __future__ import annotations

from textual.geometry import Region, Spacing
from textual.screen import Screen
from textual.widget import Widget

RACK = "ToastRack"  # Textual's container of toasts, by its CSS type name


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
