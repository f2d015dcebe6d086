"""Instants as stored: ISO 8601 text in UTC with an explicit offset, to the second, so that string
order is time order; and the years the store accepts."""
from __future__ import annotations

from datetime import UTC, datetime, tzinfo

from memory.errors import InvalidInput

__all__ = ["MAX_YEAR", "MIN_YEAR", "UTC", "check_instant", "parse_iso", "parse_stored", "to_utc_iso"]

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
