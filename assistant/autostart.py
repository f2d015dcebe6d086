"""`assistant notify --install`: the notifier as a user service that starts with the session.

Linux: a systemd user unit, $XDG_CONFIG_HOME/systemd/user/assistant-notify.service (~/.config by
default). macOS: a launchd agent, ~/Library/LaunchAgents/local.assistant.notify.plist. Either runs
this very `assistant` (its absolute path) with the --db/--config it was given. Nothing is enabled
here: the person runs the command that is printed, so installing never starts anything by surprise.
"""
from __future__ import annotations

import os
import plistlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from assistant import paths
from assistant.errors import BadInput
from memory.files import expand, write_private

UNIT_NAME = "assistant-notify.service"
AGENT_LABEL = "local.assistant.notify"


@dataclass
class Installed:
    kind: str  # "systemd" | "launchd"
    path: Path
    command: list[str]  # what the service runs
    enable: list[str]  # the commands that enable and start it
    content: str
    replaced: bool = False
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "path": str(self.path), "command": self.command, "enable": self.enable,
                "replaced": self.replaced, "content": self.content}


def assistant_executable(argv0: str | None = None) -> Path:
    """The absolute path of the `assistant` command running now (the console script), else the one
    installed beside this Python; BadInput when there is none (run from a source tree)."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    candidates = [Path(argv0)] if Path(argv0).name == "assistant" else []
    candidates.append(Path(sys.executable).with_name("assistant"))
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return Path(os.path.abspath(path))  # not resolve(): a venv's links must stay as they are
    raise BadInput("cannot tell where the `assistant` command is installed (no executable `assistant` beside "
                   f"{sys.executable}); install the package (pip install .) and run --install from it")


def notifier_command(executable: Path, db: str | None, config: str | None) -> list[str]:
    """`assistant notify` with the store and the config this run was given, as absolute paths (a
    service does not start in the folder the command was typed in)."""
    command = [str(executable), "notify"]
    if db:
        command += ["--db", os.path.abspath(expand(db))]
    if config:
        command += ["--config", os.path.abspath(expand(config))]
    for arg in command:
        if "\n" in arg or "\r" in arg or "\x00" in arg:
            raise BadInput("a path with a line break cannot go into a service file")
    return command


_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./-]+")


def systemd_quote(arg: str) -> str:
    """One argument of ExecStart= as systemd reads it (systemd.syntax, systemd.service): quoted where
    needed, with % (specifiers) and $ (variables) escaped, so a path is run as written."""
    text = arg.replace("%", "%%").replace("$", "$$")
    if _PLAIN.fullmatch(arg):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_unit(command: list[str]) -> str:
    return "\n".join([
        "# Written by `assistant notify --install`: desktop notifications for reminders while the app is closed.",
        "[Unit]",
        "Description=assistant reminder notifier",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(systemd_quote(arg) for arg in command),
        "Restart=on-failure",
        "RestartSec=10",
        # SIGTERM to the notifier alone: it stops the replicator it started (F16) after a last sync, once;
        # a second SIGTERM from systemd would cut that sync short. The rest is killed after the timeout.
        "KillMode=mixed",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ])


def launchd_plist(command: list[str], log: Path) -> str:
    return plistlib.dumps({
        "Label": AGENT_LABEL,
        "ProgramArguments": command,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},  # restarted after a crash, not after a clean stop
        "ProcessType": "Background",
        "StandardOutPath": str(log),
        "StandardErrorPath": str(log),
    }).decode("utf-8")


def config_home() -> Path:
    """$XDG_CONFIG_HOME when it is an absolute path (the XDG rule), else ~/.config."""
    value = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".config"


def install(command: list[str], platform: str | None = None, log_dir: Path | None = None) -> Installed:
    """Write the user service for this platform; BadInput (with the path) where it cannot be written."""
    platform = platform or sys.platform
    if platform.startswith("linux"):
        path = config_home() / "systemd" / "user" / UNIT_NAME
        installed = Installed("systemd", path, command, ["systemctl --user daemon-reload",
                                                         f"systemctl --user enable --now {UNIT_NAME}"],
                              systemd_unit(command),
                              notes=[f"its output: journalctl --user -u {UNIT_NAME.removesuffix('.service')}",
                                     f"to remove it: systemctl --user disable --now {UNIT_NAME}; rm {path}"])
    elif platform == "darwin":
        path = Path.home() / "Library" / "LaunchAgents" / f"{AGENT_LABEL}.plist"
        if log_dir is None:

            log_dir = paths.log_dir()
        log = log_dir / "notify.log"
        installed = Installed("launchd", path, command, [f"launchctl bootstrap gui/{os.getuid()} {path}"],
                              launchd_plist(command, log),
                              notes=[f"its output: {log}",
                                     f"to remove it: launchctl bootout gui/{os.getuid()}/{AGENT_LABEL}; rm {path}"])
    else:
        raise BadInput(f"no user service can be written on this system ({platform}): systemd (Linux) and launchd "
                       "(macOS) are supported; start `assistant notify` at login another way")
    installed.replaced = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}") from None
    write_private(path, lambda out: out.write(installed.content.encode("utf-8")))
    return installed
