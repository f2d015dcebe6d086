"""Screens: the main screen, the dialogs (recap, help, snooze, reminder details) and the conversations."""
