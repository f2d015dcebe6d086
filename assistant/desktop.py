"""Desktop notifications: the one sender the app and the background notifier share.

freedesktop Notifications (org.freedesktop.Notifications.Notify on the session bus) through jeepney,
a pure-Python D-Bus client: importing it costs about 3 MB and 20-60 ms (desktop-notifier, on
dbus-fast and asyncio, costs about 14 MB and 0.2 s, too much for a notifier that should stay
small). Where D-Bus cannot be used, `notify-send` is tried when it is installed, and on macOS
`osascript` (Notification Center). No session bus is normal (a server, CI, an SSH session): the
sender says so and nothing is raised.

Text from storage is data: control characters are shown as symbols, lines folded, lengths bounded,
and the body is escaped as markup where the server reads markup (servers read a subset of HTML, so
"<a href=...>" in a reminder would otherwise become a link).
"""
from __future__ import annotations

import html
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memory.text import flat, visible

APP_NAME = "assistant"
ICON = "appointment-soon"  # the freedesktop icon name for a reminder
TITLE_LIMIT = 120
BODY_LIMIT = 400
REPLY_TIMEOUT = 5.0  # seconds a notification server may take to answer

NO_BUS = "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)"

_OBJECT = "/org/freedesktop/Notifications"
_NAME = "org.freedesktop.Notifications"


@dataclass(frozen=True)
class Sent:
    """What came of one send: ok, or why not (`no_bus` marks a session without a bus, a normal case)."""

    ok: bool
    via: str = ""  # "dbus" | "notify-send"
    problem: str = ""
    no_bus: bool = False


def one_line(text: str, limit: int) -> str:
    """Stored text as one line for a notification: control characters shown, bounded."""
    return flat(visible(text), limit)


def reminder_text(content: str, when: str) -> tuple[str, str]:
    """The title and the plain body of a due reminder's notification."""
    return "Reminder", f"{one_line(content, BODY_LIMIT - 40)} (due {one_line(when, 30)})"


def session_bus_address() -> str | None:
    """The session bus as libdbus finds it: DBUS_SESSION_BUS_ADDRESS, else the per-user bus socket
    that systemd provides ($XDG_RUNTIME_DIR/bus), which a user service may see without the variable."""
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "").strip()
    if address:
        return address
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and Path(runtime, "bus").exists():
        return f"unix:path={Path(runtime, 'bus')}"
    return None


class DesktopSender:
    """Sends notifications over one D-Bus connection, opened on first use and again after a failure.

    Not thread-safe: one sender per thread (the notifier has one; the app opens one per send).
    """

    def __init__(self, app_name: str = APP_NAME) -> None:
        self.app_name = app_name
        self._conn = None
        self._markup: bool | None = None  # does the server read markup in the body (its capabilities)

    def available(self) -> bool:
        """Is there anything to try (a session bus, or notify-send)? Cheap: nothing is connected."""
        return session_bus_address() is not None or any(shutil.which(tool) for tool in ("notify-send", "osascript"))

    def check(self) -> Sent:
        """Can notifications be shown? Connects and asks the server its capabilities; sends nothing."""
        sent = self._send_dbus("", "", probe=True)
        if not sent.ok:
            for tool in ("notify-send", "osascript"):
                if shutil.which(tool) is not None:
                    return Sent(True, via=tool)
        return sent

    def send(self, title: str, body: str) -> Sent:
        """One notification; never raises. D-Bus first, then notify-send where it is installed."""
        title = one_line(title, TITLE_LIMIT)
        body = one_line(body, BODY_LIMIT)
        sent = self._send_dbus(title, body)
        if sent.ok:
            return sent
        for fallback in (_notify_send, _osascript):
            tried = fallback(self.app_name, title, body)
            if tried.ok:
                return tried
        return sent

    def _send_dbus(self, title: str, body: str, probe: bool = False) -> Sent:
        address = session_bus_address()
        if address is None:
            return Sent(False, problem=NO_BUS, no_bus=True)
        try:
            from jeepney import DBusErrorResponse
        except ImportError:
            return Sent(False, problem="the D-Bus client (jeepney) is not installed")
        reused = self._conn is not None
        try:
            try:
                return self._notify(address, title, body, probe)
            except (OSError, TimeoutError):
                if not reused:
                    raise
                self.close()  # a connection kept from before (the bus restarted): one more try on a new one
                return self._notify(address, title, body, probe)
        except DBusErrorResponse as exc:  # the bus answered: no notification server on it, or it refused
            self.close()
            if exc.name in ("org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"):
                return Sent(False, problem="no notification server on the session bus")
            return Sent(False, problem=f"the notification server refused ({exc.name})")
        except (OSError, ValueError, RuntimeError, TimeoutError, KeyError) as exc:
            # No socket at that address, an address jeepney cannot use (tcp:), authentication refused,
            # no answer in time.
            self.close()
            if isinstance(exc, (FileNotFoundError, ConnectionRefusedError)):
                return Sent(False, problem=f"no session bus at {address[:100]}", no_bus=True)
            return Sent(False, problem=f"the session bus cannot be used ({type(exc).__name__}: {exc})"[:200])

    def _notify(self, address: str, title: str, body: str, probe: bool = False) -> Sent:
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        from jeepney.wrappers import unwrap_msg

        target = DBusAddress(_OBJECT, bus_name=_NAME, interface=_NAME)
        conn = self._conn
        if conn is None:
            conn = self._conn = open_dbus_connection(address)
            self._markup = None
        if self._markup is None:  # asked once per connection
            caps = unwrap_msg(conn.send_and_get_reply(new_method_call(target, "GetCapabilities"),
                                                      timeout=REPLY_TIMEOUT))[0]
            self._markup = "body-markup" in caps
        if probe:
            return Sent(True, via="dbus")
        shown = html.escape(body, quote=False) if self._markup else body
        message = new_method_call(target, "Notify", "susssasa{sv}i", (self.app_name, 0, ICON, title, shown, [], {}, -1))
        unwrap_msg(conn.send_and_get_reply(message, timeout=REPLY_TIMEOUT))
        return Sent(True, via="dbus")

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except OSError:
                pass
            self._conn = None


def _notify_send(app_name: str, title: str, body: str) -> Sent:
    exe = shutil.which("notify-send")
    if exe is None:
        return Sent(False, problem="notify-send is not installed")
    # notify-send always reads the body as markup; "--" so a title starting with "-" is not an option.
    try:
        done = subprocess.run([exe, f"--app-name={app_name}", "--", title, html.escape(body, quote=False)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=REPLY_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return Sent(False, problem=f"notify-send failed ({exc})")
    return Sent(done.returncode == 0, via="notify-send",
                problem="" if done.returncode == 0 else f"notify-send failed (exit {done.returncode})")


# The text goes in as arguments of the script, never into its source: nothing in it is read as AppleScript.
_APPLESCRIPT = ["-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)",
                "-e", "end run"]


def _osascript(app_name: str, title: str, body: str) -> Sent:
    """macOS, which has no freedesktop notification server: Notification Center through osascript."""
    exe = shutil.which("osascript")
    if exe is None:
        return Sent(False, problem="osascript is not installed")
    try:
        done = subprocess.run([exe, *_APPLESCRIPT, title, body], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=REPLY_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return Sent(False, problem=f"osascript failed ({exc})")
    return Sent(done.returncode == 0, via="osascript",
                problem="" if done.returncode == 0 else f"osascript failed (exit {done.returncode})")


def notify_desktop(title: str, body: str) -> bool:
    """Send one notification on a connection of its own; False when it could not be shown. Never raises."""
    sender = DesktopSender()
    try:
        return sender.send(title, body).ok
    finally:
        sender.close()
