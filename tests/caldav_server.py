"""A real CalDAV server for the sync tests and benchmarks/bench_caldav.py: Radicale (PyPI `radicale`, the test
extra) on 127.0.0.1 with a throwaway storage folder and htpasswd users, and a `Phone`: the real `caldav`
client acting as the other device (what DAVx5 on a phone does to the same calendar)."""
from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
FOLD = re.compile(r"\r?\n[ \t]")  # RFC 5545 3.1: a line break and one space or tab, taken out when read
ESCAPED = re.compile(r"\\([\\;,nN])")  # RFC 5545 3.3.11: TEXT's escapes
USERS = {"alice": "correct horse battery", "bob": "hunter2-bob"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Radicale:
    """`python -m radicale` in a folder of its own; `url` is its base address."""

    def __init__(self, folder: Path, port: int | None = None, tls: tuple[Path, Path] | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.port = port or free_port()
        users = folder / "users"
        users.write_text("".join(f"{name}:{password}\n" for name, password in USERS.items()))
        config = folder / "config"
        ssl = f"ssl = True\ncertificate = {tls[0]}\nkey = {tls[1]}\n" if tls else ""
        config.write_text(f"[server]\nhosts = 127.0.0.1:{self.port}\n{ssl}"
                          f"[auth]\ntype = htpasswd\nhtpasswd_filename = {users}\nhtpasswd_encryption = plain\n"
                          "delay = 0.1\n"
                          f"[storage]\nfilesystem_folder = {folder / 'storage'}\n"
                          "[rights]\ntype = owner_only\n[logging]\nlevel = warning\n")
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}/"
        self.log = open(folder / "radicale.log", "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen([sys.executable, "-m", "radicale", "--config", str(config)],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"radicale ended at start: {(folder / 'radicale.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("radicale did not start in 30 s")

    def holds(self, secret: str) -> bool:
        """Whether anything the server keeps on disk (its items and its cache of them) holds `secret` as a whole
        word, as the app masks one (never inside another word), read as iCalendar text: lines unfolded (they are
        folded at 75 octets, anywhere in a word) and escapes undone (a comma is stored as a backslash and a comma).
        The server's own ids are left out: a uuid4's group of four hex digits is a whole word, the PIN once in
        16,000 items. Its etags and cache keys (hashes: a "4471" in one failed this check in CI once) are runs of
        hex, never a shorter secret's whole word; a secret that is itself hex is still seen."""
        text = "\n".join(p.read_text(errors="replace") for p in (self.folder / "storage").rglob("*") if p.is_file())
        text = UUID.sub("<id>", ESCAPED.sub(lambda m: "\n" if m[1] in "nN" else m[1], FOLD.sub("", text)))
        return re.search(rf"(?<!\w){re.escape(secret)}(?!\w)", text) is not None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by itself (openssl), and its key."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@dataclass
class Todo:
    """A to-do as the phone sees it."""

    href: str
    uid: str
    summary: str
    due: datetime | None
    status: str
    rrule: str
    alarms: list[str]
    data: str
    obj: Any


class Phone:
    """The other device: the real caldav client on the same account and calendar."""

    def __init__(self, url: str, user: str, calendar: str, ca_bundle: str | None = None) -> None:
        from caldav.davclient import DAVClient

        self.client: Any = DAVClient(url=url, username=user, password=USERS[user], ssl_verify_cert=ca_bundle or True)
        self.calendar_name = calendar

    def calendar(self) -> Any:
        for calendar in self.client.principal().calendars():
            if calendar.get_display_name() == self.calendar_name:
                return calendar
        raise AssertionError(f"no calendar {self.calendar_name!r} on the server")

    def calendars_named(self) -> list[str]:
        return [c.get_display_name() for c in self.client.principal().calendars()]

    def todos(self) -> list[Todo]:
        found = []
        for obj in self.calendar().search(todo=True, include_completed=True):
            component = obj.icalendar_component
            due = component.get("DUE")
            found.append(Todo(str(obj.url.path), str(component.get("UID")), str(component.get("SUMMARY", "")),
                              due.dt if due is not None else None, str(component.get("STATUS", "")),
                              component.get("RRULE").to_ical().decode() if component.get("RRULE") else "",
                              [a.get("TRIGGER").to_ical().decode() + ";" + str(a.get("ACTION"))
                               for a in component.subcomponents if a.name == "VALARM"],
                              obj.data, obj))
        return sorted(found, key=lambda t: t.summary)

    def summaries(self) -> list[str]:
        """The to-dos' SUMMARYs, sorted; none while the calendar is not there yet."""
        try:
            return [t.summary for t in self.todos()]
        except AssertionError:
            return []

    def todo(self, summary_part: str) -> Todo:
        matching = [t for t in self.todos() if summary_part in t.summary]
        assert len(matching) == 1, [t.summary for t in self.todos()]
        return matching[0]

    def edit(self, todo: Todo, modified: datetime | None = None, **changes: Any) -> None:
        """Change a to-do as a task app does: its properties, LAST-MODIFIED (now, or `modified`), saved."""
        component = todo.obj.icalendar_component
        for name, value in changes.items():
            prop = name.upper().replace("_", "-")
            if prop in component:
                del component[prop]
            if value is not None:
                component.add(prop, value)
        if "LAST-MODIFIED" in component:
            del component["LAST-MODIFIED"]
        component.add("LAST-MODIFIED", modified or datetime.now(UTC))
        todo.obj.save()

    def complete(self, todo: Todo, modified: datetime | None = None) -> None:
        self.edit(todo, modified, status="COMPLETED", completed=modified or datetime.now(UTC))

    def create(self, summary: str, due: datetime, uid: str = "phone-made-1", rrule: str | None = None) -> None:
        rule = f"RRULE:{rrule}\r\n" if rrule else ""
        self.calendar().save_todo(ical=(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//tasks//EN\r\nBEGIN:VTODO\r\n"
            f"UID:{uid}\r\nDTSTAMP:20261122T120000Z\r\nSUMMARY:{summary}\r\n"
            f"DUE:{due.astimezone(UTC):%Y%m%dT%H%M%SZ}\r\n{rule}STATUS:NEEDS-ACTION\r\n"
            "END:VTODO\r\nEND:VCALENDAR\r\n"))

    def delete(self, todo: Todo) -> None:
        todo.obj.delete()


def iter_lines(text: str) -> Iterator[str]:
    yield from (line for line in text.replace("\r\n ", "").splitlines())
