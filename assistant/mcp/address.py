"""Where `assistant mcp --http` may listen and the token a client must show: loopback only, a bearer token
kept in a 0600 file of the state dir (or the `mcp_token` setting)."""
from __future__ import annotations

import ipaddress
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from assistant import paths
from memory.errors import InvalidInput

TOKEN_FILE = "mcp-token"
DEFAULT_HOST = "127.0.0.1"


@dataclass(frozen=True)
class ListenAddress:
    host: str  # an IP address literal on the loopback interface
    port: int  # 0: any free port (the one taken is printed)

    @property
    def url_host(self) -> str:
        return f"[{self.host}]" if ":" in self.host else self.host


def listen_address(text: str) -> ListenAddress:
    """`[HOST:]PORT` as `--http` takes it ("8765", "127.0.0.1:8765", "[::1]:8765", "localhost:8765"). A host
    that is not on the loopback interface is refused: the server holds your memory and is not for the network."""
    text = text.strip()
    match = re.fullmatch(r"(?:(?:\[(?P<v6>[^\]]*)\]|(?P<host>[^:\[\]]*)):)?(?P<port>\d{1,5})", text)
    if match is None:
        raise InvalidInput(f"--http takes [HOST:]PORT, such as 8765 or 127.0.0.1:8765, not {text[:60]!r}")
    port = int(match.group("port"))
    if port > 65535:
        raise InvalidInput(f"--http: port {port} is out of range (0 to 65535)")
    host = match.group("v6") if match.group("v6") is not None else (match.group("host") or DEFAULT_HOST)
    if host.lower() == "localhost":
        return ListenAddress(DEFAULT_HOST, port)
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False  # a name other than localhost could resolve anywhere
    if not loopback:
        raise InvalidInput(f"--http: refusing to listen on {host[:60]!r}: only a loopback address (127.0.0.1, ::1 or "
                           "localhost) is allowed, so nothing off this machine can reach your memory")
    return ListenAddress(host, port)


def token_file() -> Path:
    return paths.state_dir() / TOKEN_FILE


def bearer_token(configured: str = "") -> tuple[str, Path | None]:
    """The token an HTTP client must send, and the file it is kept in: the `mcp_token` setting when set
    (no file), else the state dir's file, made 0600 with a new random token the first time."""
    if configured.strip():
        return configured.strip(), None
    path = token_file()
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if not token:
        token = secrets.token_urlsafe(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
    os.chmod(path, 0o600)  # only ever this: a token others can read lets them read your memory
    return token, path
