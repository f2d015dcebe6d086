"""Replica URLs (SPEC F16): the places Litestream copies the store to, checked before it is asked.

One rule for the config key `backup.replica`, `assistant backup run` and `assistant restore --from`: a
URL Litestream 0.5 takes (its schemes below), with what each needs (an absolute folder for file://, a
bucket or a host for the others), no spaces or control characters. A URL may carry a password
(sftp://user:secret@host/path): it is never shown, and `key` (what names a replica, to tell whether a
store was replicated there before) leaves it and the query out.
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from memory.errors import InvalidInput

# The schemes Litestream 0.5.17 has a replica client for (its cmd/litestream/main.go).
SCHEMES = ("file", "s3", "sftp", "gs", "abs", "webdav", "webdavs", "nats", "oss")
EXAMPLES = "file:///absolute/folder, sftp://user@host/path or s3://bucket/path"
OBJECT_STORES = ("s3", "oss")  # take endpoint and region (from the query or the config)


@dataclass(frozen=True)
class Access:
    """How to reach a replica beyond its URL: an object store's endpoint and region (a URL's own query wins),
    the SSH key of an sftp:// replica (empty: ~/.ssh/id_ed25519, id_ecdsa or id_rsa)."""

    endpoint: str = ""
    region: str = ""
    ssh_key: str = ""


@dataclass(frozen=True)
class ReplicaURL:
    """A checked replica URL. `text` is as given (it may hold a password: never print it)."""

    text: str
    scheme: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...]

    @property
    def is_file(self) -> bool:
        return self.scheme == "file"

    @property
    def folder(self) -> str:
        """The local folder of a file:// replica."""
        return self.path

    def key(self) -> str:
        """What names this replica: scheme, host (without user or password) and path; no query."""
        if self.is_file:
            return f"file://{self.path}"
        return f"{self.scheme}://{self.host}/{self.path.strip('/')}"

    def shown(self) -> str:
        """The URL to print: no password, the query kept (endpoint and region say where it is)."""
        parts = urlsplit(self.text)
        if self.is_file:
            return f"file://{self.path}"
        netloc = self.host
        if parts.username:
            netloc = f"{parts.username}@{netloc}"
        return urlunsplit((self.scheme, netloc, parts.path, parts.query, ""))

    def option(self, name: str) -> str:
        return dict(self.query).get(name, "")

    def for_litestream(self, access: Access | None = None) -> str:
        """The URL Litestream gets: an object store's endpoint and region added to the query from the
        config when the URL names none (the URL's own win), so that one URL says everything."""
        endpoint, region = (access.endpoint, access.region) if access is not None else ("", "")
        if self.scheme not in OBJECT_STORES or not (endpoint or region):
            return self.text
        query = list(self.query)
        if endpoint and not self.option("endpoint"):
            query.append(("endpoint", endpoint))
        if region and not self.option("region"):
            query.append(("region", region))
        if len(query) == len(self.query):
            return self.text
        parts = urlsplit(self.text)
        return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def parse_replica(text: str) -> ReplicaURL:
    """The replica URL in `text`, checked; InvalidInput (one line, the password never echoed) when
    Litestream would not take it."""
    raw = text.strip()
    if not raw:
        raise InvalidInput(f"a replica URL is empty; give one such as {EXAMPLES}")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in raw):
        raise InvalidInput("a replica URL cannot hold spaces or control characters")
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018  # reading it checks it
    except ValueError:
        raise InvalidInput(f"not a replica URL: {_safe(raw)!r} (such as {EXAMPLES})") from None
    scheme = parts.scheme.lower()
    if "://" not in raw or scheme not in SCHEMES:
        raise InvalidInput(f"not a replica URL Litestream takes: {_safe(raw)!r}; use {EXAMPLES} (schemes: "
                       f"{', '.join(SCHEMES)})")
    query = tuple(parse_qsl(parts.query, keep_blank_values=True))
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise InvalidInput(f"a file replica needs an absolute folder: file:///{parts.netloc}{parts.path} (three "
                           "slashes), not file://" + _safe(parts.netloc + parts.path))
        path = parts.path.rstrip("/")
        if not path.startswith("/") or not path:
            raise InvalidInput("a file replica needs an absolute folder other than /, such as file:///mnt/nas/assistant")
        if "%" in path:
            path = unquote(path)
        return ReplicaURL(raw, scheme, "", path, ())
    host = parts.hostname or ""
    if not host:
        what = "bucket" if scheme in ("s3", "gs", "abs", "oss") else "host"
        raise InvalidInput(f"a {scheme} replica URL needs a {what}: {scheme}://{what}/path")
    if scheme in ("s3", "gs", "abs", "oss", "sftp", "webdav", "webdavs") and not parts.path.strip("/"):
        # The store's files would land at the bucket's or the account's top level, among anything else there.
        raise InvalidInput(f"give the replica a folder of its own: {scheme}://{host}/assistant rather than "
                       f"{scheme}://{host}")
    host_port = host if parts.port is None else f"{host}:{parts.port}"
    return ReplicaURL(raw, scheme, host_port, parts.path, query)


def _safe(text: str) -> str:
    """`text` without the password a URL may carry, cut short."""
    try:
        parts = urlsplit(text)
        if parts.password is not None:
            netloc = f"{parts.username}:***@{parts.hostname or ''}"
            text = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    except ValueError:
        pass
    return text if len(text) <= 80 else text[:77] + "..."
