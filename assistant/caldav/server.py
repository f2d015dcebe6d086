"""The calendar server, through the `caldav` client library (PyPI `caldav`; it and its HTTP client cost about
0.45 s and 33 MB when imported, so only a sync imports them, and the app and the notifier run a sync as a
short-lived child process).

Every exchange is counted (`requests`): a sync with nothing changed is one REPORT. The TLS certificate is
always verified, against caldav.ca_bundle when set (a server with its own certificate authority), never
skipped. Basic authentication is sent at once (no 401 round trip per process); a server that wants another
scheme is asked again, once, the way it says.

Failures are one line: CalendarUnreachable (the server cannot be reached, refuses the login, or answers
what a calendar server should not) is exit 1 and nothing is lost; BadInput (a calendar that takes no
to-dos) is exit 2.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

from assistant.caldav.config import CalendarConfig
from assistant.errors import AssistantError, BadInput
from memory.transfer.caldav import Found, href_of

T = TypeVar("T")


class CalendarUnreachable(AssistantError):
    """The calendar server cannot be reached or refused the login: exit 1, nothing lost."""


class CalendarGone(AssistantError):
    """The calendar the store knows is no longer on the server."""


@dataclass
class Report:
    """What a sync-collection REPORT said: to-dos new or changed (href, ETag, data when already loaded),
    hrefs removed, the new token, and whether it listed the whole calendar (a first sync, or a server
    without sync tokens: then what it does not list is gone)."""

    changed: list[tuple[str, str | None, str | None]]
    deleted: list[str]
    token: str | None
    whole: bool
    truncated: bool = False


class Server:
    def __init__(self, config: CalendarConfig) -> None:
        from caldav.davclient import DAVClient  # about 0.45 s and 33 MB: a sync only

        self.config = config
        self.requests = 0
        # The client's methods are partly untyped: it is held as Any, and what it gives typed where it lands.
        self.client: Any = DAVClient(url=config.url, username=config.username, password=config.password,
                                     auth_type="basic", timeout=int(config.timeout),
                                     ssl_verify_cert=config.ca_bundle or True, enable_rfc6764=False)
        session: Any = self.client.session
        send = session.request

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.requests += 1
            return send(*args, **kwargs)

        session.request = counted
        self._calendar: Any = None

    def close(self) -> None:
        self.client.close()

    # -- the calendar --------------------------------------------------------------------------------------

    def open_calendar(self, known: str | None) -> str:
        """The calendar's URL: the one the store knows (no request), else found (the configured URL when it
        is a calendar, else the calendar of the configured name) or made, taking to-dos."""
        if known:
            self._calendar = self.client.calendar(url=known)
            return known
        url = self._guarded(self._find_or_make)
        self._calendar = self.client.calendar(url=url)
        return url

    def _find_or_make(self) -> str:
        principal = self.client.principal()
        calendars = principal.calendars()
        wanted = href_of(self.config.url).rstrip("/")
        chosen = next((c for c in calendars if href_of(str(c.url)).rstrip("/") == wanted), None) or \
            next((c for c in calendars if (c.get_display_name() or "") == self.config.calendar), None)
        if chosen is None:
            # A name the same for every process and machine: two first syncs at once make one calendar.
            digest = hashlib.sha256(self.config.calendar.encode("utf-8")).hexdigest()[:12]
            try:
                chosen = principal.make_calendar(name=self.config.calendar, cal_id=f"assistant-{digest}",
                                                 supported_calendar_component_set=["VTODO"])
            except Exception as exc:  # made meanwhile by another process: found now
                if not _is_dav_error(exc):
                    raise
                calendars = principal.calendars()
                chosen = next((c for c in calendars if (c.get_display_name() or "") == self.config.calendar), None)
                if chosen is None:
                    raise
            return str(chosen.url)
        components = chosen.get_supported_components()
        if components and "VTODO" not in components:
            raise BadInput(f"the calendar {chosen.get_display_name() or chosen.url!s} takes no to-dos (VTODO), only "
                           f"{', '.join(components)}: name another one in caldav.calendar")
        return str(chosen.url)

    # -- its changes -----------------------------------------------------------------------------------

    def report(self, token: str | None) -> Report:
        """What changed since `token` (everything when None), without the objects' data."""
        def ask() -> Any:
            return self._calendar.get_objects_by_sync_token(token, load_objects=False)

        result = self._guarded(ask, gone_is_error=True)
        new_token = str(result.sync_token) if result.sync_token else None
        deleted = [href_of(str(url)) for url in result.deleted_urls]
        gone = set(deleted)
        changed = []
        for obj in result:
            href = href_of(str(obj.url))
            if href in gone:
                continue
            data = obj.data if obj.is_loaded() else None
            changed.append((href, _etag(obj), data))
        fake = bool(new_token and new_token.startswith("fake-"))
        whole = token is None or (fake and (bool(changed) or new_token != token))
        return Report(changed, deleted, new_token, whole, bool(getattr(result, "truncated", False)))

    def fetch(self, hrefs: list[str]) -> list[Found]:
        """The data of these to-dos, in one calendar-multiget REPORT."""
        if not hrefs:
            return []
        base = self._calendar.url
        objects = self._guarded(lambda: self._calendar.multiget([base.join(quote(h, safe='/:@')) for h in hrefs]))
        return [Found(href_of(str(o.url)), _etag(o), o.data) for o in objects if o.data]

    # -- writing -----------------------------------------------------------------------------------------

    def put(self, href: str, body: str, etag: str | None, new: bool) -> tuple[int, str | None]:
        """Write a to-do: a new one only where none is (If-None-Match: *), a known one only as last seen
        (If-Match). (status, new ETag): 412 when the condition failed (another writer was first)."""
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        if new:
            headers["If-None-Match"] = "*"
        elif etag:
            headers["If-Match"] = etag
        url = self._url(href)
        response = self._guarded(lambda: self.client.put(url, body, headers))
        status = int(response.status)
        if status not in (200, 201, 204, 412):
            raise CalendarUnreachable(f"the calendar server refused a reminder ({status} {response.reason}) "
                                      f"at {href}")
        return status, response.headers.get("ETag") if status != 412 else None

    def delete(self, href: str) -> None:
        url = self._url(href)
        response = self._guarded(lambda: self.client.delete(url))
        status = int(response.status)
        if status not in (200, 204, 404, 410):
            raise CalendarUnreachable(f"the calendar server refused to remove {href} ({status} {response.reason})")

    def _url(self, href: str) -> str:
        return str(self._calendar.url.join(quote(href, safe="/:@")))

    # -- failures, one line each ---------------------------------------------------------------------------

    def _guarded(self, call: Callable[[], T], gone_is_error: bool = False) -> T:
        with self._failures(gone_is_error):
            return call()
        raise AssertionError("unreachable")  # pragma: no cover - _failures re-raises

    @contextmanager
    def _failures(self, gone_is_error: bool) -> Iterator[None]:
        from caldav.lib import error
        from niquests import exceptions as http

        where = _where(self.config.url)
        try:
            yield
        except error.AuthorizationError:
            raise CalendarUnreachable(f"the calendar server {where} refused the login of {self.config.username!r} "
                                      f"(check caldav.username and ASSISTANT_CALDAV_PASSWORD); nothing was lost: "
                                      "changes here go at the next sync") from None
        except error.NotFoundError:
            if gone_is_error:
                raise CalendarGone("the calendar is gone from the server") from None
            raise CalendarUnreachable(f"the calendar server {where} has no such address: check caldav.url") from None
        except http.SSLError as exc:
            raise CalendarUnreachable(f"the calendar server {where} cannot be trusted ({_reason(exc)}); for a server "
                                      "with its own certificate authority set caldav.ca_bundle to its CA file; "
                                      "nothing was sent") from None
        except (http.ConnectionError, http.Timeout, OSError) as exc:
            raise CalendarUnreachable(f"cannot reach the calendar server {where} ({_reason(exc)}); nothing was "
                                      "lost: changes here go at the next sync") from None
        except error.DAVError as exc:
            raise CalendarUnreachable(f"the calendar server {where} answered what a calendar server should not "
                                      f"({type(exc).__name__}: {_reason(exc)}); nothing was lost") from None


def _is_dav_error(exc: BaseException) -> bool:
    from caldav.lib import error

    return isinstance(exc, error.DAVError)


def _etag(obj: Any) -> str | None:
    from caldav.elements import dav

    value = (getattr(obj, "props", None) or {}).get(dav.GetEtag.tag)
    return str(value) if value else None


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _reason(exc: BaseException) -> str:
    """The end of a client error, the part that says why ("Connection refused", "certificate verify failed"),
    in one short line."""
    text = " ".join(str(exc).split())
    for marker in ("certificate verify failed", "Connection refused", "timed out", "Name or service not known",
                   "No route to host", "Temporary failure in name resolution", "WRONG_VERSION_NUMBER"):
        if marker.lower() in text.lower():
            return marker
    return text[:160]
