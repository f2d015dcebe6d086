"""Time zones: by name, the machine's own, POSIX TZ rules, and the name stored with repeating rules."""
from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.errors import InvalidInput


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
