"""Widgets of the main screen: the chat pane (which owns the turn), the composer, the reminder panel,
the welcome, the status bar and the footer."""
