"""The single clock of the app, and the conversions between stored UTC and the user's zone.

Instants are stored as ISO 8601 text in UTC with an explicit offset, always to the second, so
that string order is time order. Every boundary is computed here, in Python.
"""
from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.errors import InvalidInput

# Instants outside these years are refused at every boundary: a year-1 or year-9999 date overflows
# as soon as it is moved to a zone and would make every later read of the store fail.
MIN_YEAR, MAX_YEAR = 1970, 2200


def check_instant(moment: datetime, what: str = "date") -> datetime:
    """`moment` if it lies within the supported years, else InvalidInput naming it."""
    if not MIN_YEAR <= moment.year <= MAX_YEAR:
        raise InvalidInput(f"the {what} {moment.isoformat()[:19]} is out of range (years {MIN_YEAR} to {MAX_YEAR})")
    return moment


def to_utc_iso(moment: datetime) -> str:
    """Render an aware datetime as stored: UTC, to the second, with +00:00."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: attach a zone before storing it")
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def parse_stored(text: str) -> datetime:
    """Parse an instant as stored (UTC ISO 8601) back into an aware datetime."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_iso(text: str, zone: tzinfo) -> datetime:
    """Parse ISO 8601 from a user; a value without an offset is read in `zone`."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidInput(f"not an ISO 8601 date/time: {text[:80]!r}") from exc
    check_instant(moment)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    try:
        return check_instant(moment.astimezone(UTC))
    except OverflowError:
        raise InvalidInput(f"the date {text[:80]!r} is out of range") from None


def zone_from_name(name: str) -> tzinfo:
    """An IANA zone by name ("Europe/Berlin", "UTC"), or InvalidInput naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidInput(f"unknown time zone {name!r}") from exc


def system_zone() -> tzinfo:
    """The machine's zone: $TZ, else the /etc/localtime link, else the fixed local offset."""
    name = os.environ.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            return posix_zone(name)
    link = Path("/etc/localtime")
    try:
        target = str(link.resolve())
        if "zoneinfo/" in target:
            return ZoneInfo(target.split("zoneinfo/", 1)[1])
    except (OSError, ZoneInfoNotFoundError, ValueError):
        pass
    return datetime.now().astimezone().tzinfo or UTC


def posix_zone(rule: str) -> tzinfo:
    """A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0", "JST-9", "<+0330>-3:30") as a zone that follows its
    daylight-saving changes all year; InvalidInput when no offset within a day can be read from it."""
    from dateutil import tz

    try:
        zone = tz.tzstr(rule, posix_offset=True)  # "UTC+3" is three hours behind, as the C library reads it
        zone.key = rule  # type: ignore[attr-defined]  # its name, stored with repeating rules
        datetime(2026, 1, 1, tzinfo=zone).utcoffset()
        return zone
    except (ValueError, TypeError, OverflowError, IndexError):
        pass
    import time

    try:  # forms dateutil does not read ("<+0330>-3:30"): the C library's current offset
        os.environ["TZ"], saved = rule, os.environ.get("TZ")
        time.tzset()
        offset = -time.altzone if time.daylight and time.localtime().tm_isdst > 0 else -time.timezone
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
    if abs(offset) >= 24 * 3600:
        raise InvalidInput(f"the time zone TZ={rule[:60]!r} cannot be read; set TZ to a name such as "
                           "Europe/Paris, or set timezone in the config")
    return timezone(timedelta(seconds=offset))


def zone_name(zone: tzinfo) -> str:
    """The name stored with repeating rules: an IANA key, a POSIX rule, or a fixed "UTC+03:30"."""
    key = getattr(zone, "key", None)
    if key:
        return key
    if isinstance(zone, timezone) and zone is not UTC:
        offset = zone.utcoffset(None)
        sign = "-" if offset < timedelta(0) else "+"
        minutes = abs(int(offset.total_seconds())) // 60
        return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    return str(zone)


class Clock:
    """Now, in UTC; frozen when a fixed instant is given (--now / ASSISTANT_NOW)."""

    def __init__(self, zone: tzinfo = UTC, fixed: datetime | None = None) -> None:
        self.zone = zone
        self.fixed = fixed.astimezone(UTC) if fixed else None

    def now(self) -> datetime:
        return self.fixed if self.fixed else datetime.now(UTC).replace(microsecond=0)

    def now_iso(self) -> str:
        return to_utc_iso(self.now())

    def local(self, moment: datetime | str) -> datetime:
        """The instant in the user's zone."""
        if isinstance(moment, str):
            moment = parse_stored(moment)
        return moment.astimezone(self.zone)

    def offset_text(self, moment: datetime | None = None) -> str:
        """The user's UTC offset at `moment`, as "UTC+01:00"."""
        local = self.local(moment or self.now())
        offset = local.utcoffset() or timedelta(0)
        sign = "-" if offset < timedelta(0) else "+"
        minutes = abs(int(offset.total_seconds())) // 60
        return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"

    def stamp(self, moment: datetime | str) -> str:
        """The conversation-list form: "Nov 22 13:05" in the user's zone."""
        local = self.local(moment)
        return f"{local:%b} {local.day:02d} {local:%H:%M}"

    def day(self, moment: datetime | str) -> str:
        """The local day: "Sun Nov 22" (year added when not this year)."""
        local = self.local(moment)
        year = "" if local.year == self.local(self.now()).year else f" {local.year}"
        return f"{local:%a %b} {local.day}{year}"

    def short(self, moment: datetime | str) -> str:
        """Compact local form used in labels: "Mon Nov 23 09:00" (year added when not this year)."""
        local = self.local(moment)
        text = f"{local:%a %b} {local.day} {local:%H:%M}"
        if local.year != self.local(self.now()).year:
            text = f"{local:%a %b} {local.day} {local.year} {local:%H:%M}"
        return text
