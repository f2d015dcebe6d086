"""The single clock (now, frozen for a whole run by --now / ASSISTANT_NOW) and how instants are
shown in the user's zone. Every boundary is computed in Python from this clock. It also carries the
user's default time of day, the time a date without a clock time is due at ("tomorrow": 09:00)."""
from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, tzinfo

from memory.time.due_phrases import DEFAULT_TIME
from memory.time.instants import parse_stored, to_utc_iso

# Names as strftime's %a and %b write them (Python never sets LC_TIME, so they are always these), looked
# up rather than formatted: a list of thousands of reminders formats thousands of dates.
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class Clock:
    """Now, in UTC; frozen when a fixed instant is given (--now / ASSISTANT_NOW)."""

    def __init__(self, zone: tzinfo = UTC, fixed: datetime | None = None, default_time: time = DEFAULT_TIME) -> None:
        self.zone = zone
        self.fixed = fixed.astimezone(UTC) if fixed else None
        self.default_time = default_time
        self._year: tuple[datetime, int] | None = None  # (now, this year in the user's zone), for labels

    def _this_year(self) -> int:
        now = self.now()
        if self._year is None or self._year[0] != now:
            self._year = (now, now.astimezone(self.zone).year)
        return self._year[1]

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
        year = "" if local.year == self._this_year() else f" {local.year}"
        return f"{_WEEKDAYS[local.weekday()]} {_MONTHS[local.month - 1]} {local.day}{year}"

    def short(self, moment: datetime | str) -> str:
        """Compact local form used in labels: "Mon Nov 23 09:00" (year added when not this year)."""
        local = self.local(moment)
        year = "" if local.year == self._this_year() else f" {local.year}"
        return (f"{_WEEKDAYS[local.weekday()]} {_MONTHS[local.month - 1]} {local.day}{year} "
                f"{local.hour:02d}:{local.minute:02d}")
