"""A private D-Bus session bus with a notification server on it: the real parts the desktop
notification tests (and benchmarks/bench_notify.py) talk to.

dbus-daemon runs the bus; python-dbusmock's notification_daemon template (Debian's python3-dbusmock,
run by the system Python, which has its dbus and GLib bindings) owns org.freedesktop.Notifications
on it and logs each call with its time, which is how a test sees what arrived and when.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SYSTEM_PYTHON = "/usr/bin/python3"
INSTALL_HINT = "apt-get install dbus-daemon python3-dbusmock (.ci/run does)"

# 1795529897.120 Notify "assistant" 0 "appointment-soon" "Reminder" "body" [] {} -1
_NOTIFY = re.compile(r'^(?P<time>\d+\.\d+) Notify "(?P<app>[^"]*)" (?P<replaces>\d+) "(?P<icon>[^"]*)" '
                     r'"(?P<title>[^"]*)" "(?P<body>.*)" \[.*\] \{.*\} -?\d+$')


@dataclass(frozen=True)
class Notification:
    time: float  # when the server received the call (Unix time)
    app: str
    icon: str
    title: str
    body: str


def missing() -> str | None:
    """Why a private bus with a notification server cannot be started here, or None when it can."""
    if shutil.which("dbus-daemon") is None:
        return f"dbus-daemon is not installed ({INSTALL_HINT})"
    if not Path(SYSTEM_PYTHON).exists():
        return f"{SYSTEM_PYTHON} is missing (python3-dbusmock runs on the system Python)"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import dbusmock"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        return f"python3-dbusmock is not installed ({INSTALL_HINT})"
    return None


class SessionBus:
    """dbus-daemon plus the mock notification server; `address` goes into DBUS_SESSION_BUS_ADDRESS."""

    def __init__(self, folder: Path, capabilities: list[str] | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / "notifications.log"
        self.log.touch()
        self.daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = (self.daemon.stdout.readline() if self.daemon.stdout else "").strip()
        if not self.address:
            self.close()
            raise RuntimeError("dbus-daemon printed no address")
        # The template's capabilities (body-markup among them) unless others are asked for.
        parameters = ["-p", json.dumps({"capabilities": " ".join(capabilities)})] if capabilities is not None else []
        self.server = subprocess.Popen(
            [SYSTEM_PYTHON, "-m", "dbusmock", "--template", "notification_daemon", "-l", str(self.log), *parameters],
            env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.address}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self._wait_for_server()

    def _wait_for_server(self, timeout: float = 30.0) -> None:
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        from jeepney.wrappers import unwrap_msg

        deadline = time.monotonic() + timeout
        with open_dbus_connection(self.address) as conn:
            while time.monotonic() < deadline:
                if self.server.poll() is not None:
                    raise RuntimeError(f"the mock notification server ended (exit {self.server.returncode})")
                call = message_bus.NameHasOwner("org.freedesktop.Notifications")
                if unwrap_msg(conn.send_and_get_reply(call, timeout=5))[0]:
                    return
                time.sleep(0.05)
        raise RuntimeError("the mock notification server did not appear on the bus")

    def notifications(self) -> list[Notification]:
        """Every Notify call the server received, oldest first."""
        found = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            match = _NOTIFY.match(line)
            if match:
                found.append(Notification(float(match["time"]), match["app"], match["icon"], match["title"],
                                          match["body"]))
        return found

    def close(self) -> None:
        for proc in (getattr(self, "server", None), self.daemon):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self.daemon.stdout:
            self.daemon.stdout.close()
