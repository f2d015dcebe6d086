"""Time zones: by name, the machine's own, POSIX TZ rules, and the name stored with repeating rules.

Nothing here touches the process: a POSIX rule is read by a parser, never by setting os.environ["TZ"]
and asking the C library (which is process-wide and races with every other thread).
"""
from __future__ import annotations

import contextlib
import os
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.errors import InvalidInput

# POSIX.1 TZ rules: std offset [dst [offset] [,start[/time],end[/time]]]. A name is three or more
# letters, or anything of letters, digits and signs in angle brackets ("<+0330>"); the offset is hours
# west of Greenwich ("UTC+3" is three hours behind), with optional minutes and seconds.
_NAME = r"(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)"
_OFFSET = r"[+-]?\d{1,2}(?::\d{1,2}){0,2}"
_CHANGE = r"(?:J\d{1,3}|\d{1,3}|M\d{1,2}\.\d\.\d)(?:/[+-]?\d{1,3}(?::\d{1,2}){0,2})?"
_POSIX_RULE = re.compile(rf"({_NAME})({_OFFSET})(?:({_NAME})({_OFFSET})?(?:,{_CHANGE},{_CHANGE})?)?")
_FIXED_NAME = re.compile(r"UTC([+-])(\d{2}):(\d{2})")  # how zone_name() writes a zone known only by its offset


def zone_from_name(name: str) -> tzinfo:
    """An IANA zone by name ("Europe/Berlin", "UTC"), or InvalidInput naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:  # OSError: a name too long to be a file
        raise InvalidInput(f"unknown time zone {name[:60]!r}") from exc


def system_zone() -> tzinfo:
    """The machine's zone: $TZ, else the /etc/localtime link, else the fixed local offset.

    A $TZ that names no zone and is no POSIX rule is InvalidInput: the C library would silently run
    in UTC, and every reminder would be off by the user's offset.
    """
    name = os.environ.get("TZ", "").lstrip(":")  # a leading ":" means "implementation-defined": a name or a file
    if name:
        return zone_from_tz(name)
    link = Path("/etc/localtime")
    try:
        key = _zoneinfo_key(str(link.resolve()))
        if key:
            return ZoneInfo(key)
    except (OSError, ZoneInfoNotFoundError, ValueError):
        pass
    return datetime.now().astimezone().tzinfo or UTC


def zone_from_tz(value: str) -> tzinfo:
    """The zone a TZ value names: an IANA name, a zone file's path, or a POSIX rule; else InvalidInput."""
    if value.startswith("/"):  # a zone file: under a zoneinfo folder it has a name; else it is read as it is
        key = _zoneinfo_key(os.path.realpath(value))
        if key:
            with contextlib.suppress(ZoneInfoNotFoundError, ValueError, OSError):
                return ZoneInfo(key)
        if os.path.isfile(value):  # never a device or a pipe: opening one could wait for ever
            with contextlib.suppress(ValueError, OSError), open(value, "rb") as data:
                return ZoneInfo.from_file(data, key=value)
    else:
        with contextlib.suppress(ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a file
            return ZoneInfo(value)
    if _POSIX_RULE.fullmatch(value) is None:
        raise InvalidInput(f"TZ={value[:60]!r} names no time zone; set TZ to a name such as Europe/Paris (or a "
                           "POSIX rule such as CET-1CEST,M3.5.0,M10.5.0/3), or set timezone in the config")
    return posix_zone(value)


def posix_zone(rule: str) -> tzinfo:
    """A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0", "JST-9", "<+0330>-3:30") as a zone that follows its
    daylight-saving changes all year; InvalidInput when it is not such a rule or its offsets are a day
    or more.

    dateutil's tzstr reads the rule; names in angle brackets, which it does not read, are given
    placeholder letters first (a name only labels the offset). A rule without daylight saving in
    that form is a fixed offset, named "UTC+03:30" by zone_name().
    """
    from dateutil import tz

    match = _POSIX_RULE.fullmatch(rule)
    if match is None:
        raise InvalidInput(f"{rule[:60]!r} is not a POSIX time zone rule")
    try:
        std = _posix_offset(match.group(2))
        if "<" in rule and match.group(3) is None:
            return timezone(-std)
        readable = re.sub(r"<[^>]*>", lambda m: "QQ" + "ABCDEFGH"[m.start() % 8] * 2, rule)
        zone = tz.tzstr(readable, posix_offset=True)  # "UTC+3" is three hours behind, as the C library reads it
        zone.key = rule  # its name, stored with repeating rules
        datetime(2026, 1, 1, tzinfo=zone).utcoffset()
        datetime(2026, 7, 1, tzinfo=zone).utcoffset()
        read: tzinfo = zone  # a tzstr (dateutil publishes no types)
        return read
    except (ValueError, TypeError, OverflowError, IndexError):
        raise InvalidInput(f"the time zone TZ={rule[:60]!r} cannot be read; set TZ to a name such as "
                           "Europe/Paris, or set timezone in the config") from None


def stored_zone(name: str) -> tzinfo:
    """The zone a repeating rule names, as zone_name() writes it (an IANA key, a POSIX rule, a zone file,
    a fixed "UTC+03:30"); InvalidInput naming it when it names none. Every rule entering the store is
    held to this (memory.time.rules.Recurrence.validate), so none is read in a zone it did not mean."""
    offset = _FIXED_NAME.fullmatch(name)
    if offset:  # a system zone known only by its offset
        sign = -1 if offset.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3))))
    try:
        return zone_from_tz(name)
    except InvalidInput:
        raise InvalidInput(f"unknown time zone {name[:60]!r}") from None


def zone_from_stored(name: str) -> tzinfo:
    """The zone of a stored repeating rule; UTC when it can no longer be read (a zone database without
    that name): the rule still repeats, at the wall-clock time in UTC."""
    try:
        return stored_zone(name)
    except InvalidInput:
        return UTC


def zone_name(zone: tzinfo) -> str:
    """The name stored with repeating rules: an IANA key, a POSIX rule, or a fixed "UTC+03:30"."""
    key: str | None = getattr(zone, "key", None)
    if key:
        return key
    if isinstance(zone, timezone) and zone is not UTC:
        offset = zone.utcoffset(None)
        sign = "-" if offset < timedelta(0) else "+"
        minutes = abs(int(offset.total_seconds())) // 60
        return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    return str(zone)


def _posix_offset(text: str) -> timedelta:
    """A POSIX offset ("-3:30") as the time west of Greenwich; ValueError from a day on."""
    sign = -1 if text.startswith("-") else 1
    parts = [int(p) for p in text.lstrip("+-").split(":")] + [0, 0]
    offset = sign * timedelta(hours=parts[0], minutes=parts[1], seconds=parts[2])
    if abs(offset) >= timedelta(hours=24) or parts[1] > 59 or parts[2] > 59:
        raise ValueError("an offset of a day or more")
    return offset


def _zoneinfo_key(path: str) -> str | None:
    """"Europe/Berlin" from ".../zoneinfo/Europe/Berlin" (the /etc/localtime link, a TZ naming a file)."""
    return path.split("zoneinfo/", 1)[1] if "zoneinfo/" in path else None

