"""The app's desktop notifications: sent by the one sender the notifier also uses (assistant.desktop:
freedesktop Notifications over D-Bus, else notify-send; nothing on a machine without a desktop)."""
from __future__ import annotations

from assistant.desktop import notify_desktop

__all__ = ["notify_desktop"]
