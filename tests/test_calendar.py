"""SPEC F1 calendars: `export --ics` and `import FILE.ics`, with files as real calendar apps write them."""
from __future__ import annotations

import json
import os
import stat
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from icalendar import Calendar, Component, vDDDTypes

from memory import memories
from memory.errors import ImportFailed, InvalidInput
from memory.reminders import mark_done, snooze
from memory.store import Store
from memory.transfer.ical import build_calendar, calendar_text, import_calendar, looks_like_calendar, write_calendar
from tests.conftest import fresh_store_file, make_clock, present

if TYPE_CHECKING:
    from memory.time.clock import Clock

NOW = "2026-11-22T14:00:00+00:00"  # a Sunday


def crlf(text: str) -> str:
    """Calendar files on disk end their lines with CRLF (RFC 5545); write the fixtures that way."""
    return text.strip("\n").replace("\n", "\r\n") + "\r\n"


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based line of the nth line equal to `needle`."""
    hits = [n for n, line in enumerate(text.splitlines(), start=1) if line == needle]
    return hits[nth - 1]


def open_store(tmp_path: Path, name: str = "memory.db", zone: str = "Europe/Berlin", now: str = NOW) -> Store:
    return Store(fresh_store_file(tmp_path / name), make_clock(now, zone))


def reminders(store: Store) -> dict[str, dict[str, Any]]:
    rows = store.query("SELECT * FROM knowledge WHERE done_at IS NULL ORDER BY id")
    return {row["content"]: dict(row) for row in rows}


def rule_of(row: dict[str, Any]) -> str | None:
    return present(memories.Memory.from_row(row).rule).rule if row["recurrence"] else None


def local(row: dict[str, Any], zone: str = "Europe/Berlin", field: str = "due_at") -> str:
    from zoneinfo import ZoneInfo

    return datetime.fromisoformat(row[field]).astimezone(ZoneInfo(zone)).strftime("%a %Y-%m-%d %H:%M")


# Google Calendar export ("Export" in settings): X-WR-TIMEZONE, a VTIMEZONE, CRLF, a weekly series
# with a TZID, a weekly series written in UTC (Google does this for events made through its API),
# a yearly all-day birthday, a one-off with a description, a past event and a cancelled one.
GOOGLE = crlf("""
BEGIN:VCALENDAR
PRODID:-//Google Inc//Google Calendar 70.9054//EN
VERSION:2.0
CALSCALE:GREGORIAN
METHOD:PUBLISH
X-WR-CALNAME:Personal
X-WR-TIMEZONE:Europe/Berlin
BEGIN:VTIMEZONE
TZID:Europe/Berlin
X-LIC-LOCATION:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE
BEGIN:VEVENT
DTSTART;TZID=Europe/Berlin:20261006T190000
DTEND;TZID=Europe/Berlin:20261006T200000
RRULE:FREQ=WEEKLY;BYDAY=TU
DTSTAMP:20261120T101010Z
UID:7kq3b0c9f1a2d4e6@google.com
CREATED:20261001T080000Z
LAST-MODIFIED:20261001T080000Z
SEQUENCE:0
STATUS:CONFIRMED
SUMMARY:Choir rehearsal
TRANSP:OPAQUE
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:This is an event reminder
TRIGGER:-P0DT0H30M0S
END:VALARM
END:VEVENT
BEGIN:VEVENT
DTSTART:20261008T160000Z
DTEND:20261008T170000Z
RRULE:FREQ=WEEKLY;BYDAY=TH
DTSTAMP:20261120T101010Z
UID:3h5j7k9m1n3p5q7r@google.com
SUMMARY:Swimming
STATUS:CONFIRMED
END:VEVENT
BEGIN:VEVENT
DTSTART;VALUE=DATE:19900315
DTEND;VALUE=DATE:19900316
RRULE:FREQ=YEARLY
DTSTAMP:20261120T101010Z
UID:2ab4cd6ef8gh0ij2@google.com
CLASS:PRIVATE
SUMMARY:Anna's birthday
TRANSP:TRANSPARENT
END:VEVENT
BEGIN:VEVENT
DTSTART:20261201T090000Z
DTEND:20261201T100000Z
DTSTAMP:20261120T101010Z
UID:5kl7mn9op1qr3st5@google.com
SUMMARY:Dentist
DESCRIPTION:Bring the insurance card
LOCATION:Praxis Dr. Weber\\, Hauptstr. 5
END:VEVENT
BEGIN:VEVENT
DTSTART:20261101T090000Z
DTEND:20261101T100000Z
DTSTAMP:20261120T101010Z
UID:9uv1wx3yz5ab7cd9@google.com
SUMMARY:Car service
END:VEVENT
BEGIN:VEVENT
DTSTART:20261203T090000Z
DTEND:20261203T100000Z
DTSTAMP:20261120T101010Z
UID:1ef3gh5ij7kl9mn1@google.com
STATUS:CANCELLED
SUMMARY:Team lunch
END:VEVENT
END:VCALENDAR
""")

# Apple Calendar / iCloud: its own VTIMEZONE (DAYLIGHT/STANDARD), alarms as
# TRIGGER;VALUE=DURATION, X-WR-ALARMUID, a long SUMMARY folded at 75 octets, an all-day yearly
# event with Apple's "1 day before at 9 AM" alarm (-PT15H), a series with a UTC UNTIL, and Apple's
# "no alert" placeholder alarm (ACTION:NONE, triggered in 1976).
APPLE = crlf("""
BEGIN:VCALENDAR
METHOD:PUBLISH
VERSION:2.0
X-WR-CALNAME:Home
PRODID:-//Apple Inc.//macOS 15.1//EN
X-APPLE-CALENDAR-COLOR:#34AADC
X-WR-TIMEZONE:America/New_York
CALSCALE:GREGORIAN
BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
TZOFFSETFROM:-0500
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
DTSTART:20070311T020000
TZNAME:EDT
TZOFFSETTO:-0400
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:-0400
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
DTSTART:20071104T020000
TZNAME:EST
TZOFFSETTO:-0500
END:STANDARD
END:VTIMEZONE
BEGIN:VEVENT
TRANSP:OPAQUE
DTEND;TZID=America/New_York:20261203T090000
UID:4F1B6C2E-8D3A-4E5F-9A7B-1C2D3E4F5A6B
DTSTAMP:20261120T150000Z
SEQUENCE:1
X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC
SUMMARY:Pick up the framed photos from the gallery on Main Street before it c
 loses at nine
LAST-MODIFIED:20261120T150000Z
CREATED:20261120T145900Z
DTSTART;TZID=America/New_York:20261203T081500
BEGIN:VALARM
X-WR-ALARMUID:7E2A3F4B-5C6D-4E7F-8091-A2B3C4D5E6F7
UID:7E2A3F4B-5C6D-4E7F-8091-A2B3C4D5E6F7
TRIGGER;VALUE=DATE-TIME:19760401T005545Z
ACTION:NONE
END:VALARM
BEGIN:VALARM
X-WR-ALARMUID:0A1B2C3D-4E5F-6789-ABCD-EF0123456789
UID:0A1B2C3D-4E5F-6789-ABCD-EF0123456789
TRIGGER;VALUE=DURATION:-PT15M
DESCRIPTION:Reminder
ACTION:DISPLAY
END:VALARM
END:VEVENT
BEGIN:VEVENT
TRANSP:TRANSPARENT
DTEND;VALUE=DATE:20270111
UID:8C7D6E5F-4A3B-2C1D-0E9F-8A7B6C5D4E3F
DTSTAMP:20261120T150000Z
SUMMARY:Mum's birthday
DTSTART;VALUE=DATE:20270110
RRULE:FREQ=YEARLY
BEGIN:VALARM
X-WR-ALARMUID:1B2C3D4E-5F60-7182-93A4-B5C6D7E8F901
TRIGGER;VALUE=DURATION:-PT15H
ACTION:DISPLAY
DESCRIPTION:Reminder
END:VALARM
END:VEVENT
BEGIN:VEVENT
DTEND;TZID=America/New_York:20260908T173000
UID:D4C3B2A1-0F9E-8D7C-6B5A-493827161504
DTSTAMP:20261120T150000Z
SUMMARY:Piano lesson
DTSTART;TZID=America/New_York:20260908T163000
RRULE:FREQ=WEEKLY;UNTIL=20270601T203000Z;BYDAY=TU
BEGIN:VALARM
TRIGGER;VALUE=DURATION:-PT15M
ACTION:DISPLAY
DESCRIPTION:Reminder
END:VALARM
BEGIN:VALARM
TRIGGER;VALUE=DURATION:-PT1H
ACTION:AUDIO
ATTACH;VALUE=URI:Chord
END:VALARM
END:VEVENT
END:VCALENDAR
""")

# Outlook / Exchange: Windows zone names in TZID with their own VTIMEZONE, a weekly series with
# an EXDATE and a moved occurrence (RECURRENCE-ID), PRIORITY and CLASS, X-MICROSOFT-* noise, and
# a one-off in a zone only its VTIMEZONE defines.
OUTLOOK = crlf("""
BEGIN:VCALENDAR
METHOD:PUBLISH
PRODID:Microsoft Exchange Server 2010
VERSION:2.0
X-WR-CALNAME:Calendar
BEGIN:VTIMEZONE
TZID:W. Europe Standard Time
BEGIN:STANDARD
DTSTART:16010101T030000
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VTIMEZONE
TZID:Customized Time Zone
BEGIN:STANDARD
DTSTART:16010101T000000
TZOFFSETFROM:+0530
TZOFFSETTO:+0530
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T000000
TZOFFSETFROM:+0530
TZOFFSETTO:+0530
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
DESCRIPTION:\\n
RRULE:FREQ=WEEKLY;UNTIL=20270630T070000Z;INTERVAL=1;BYDAY=MO,WE;WKST=MO
EXDATE;TZID=W. Europe Standard Time:20261123T090000
UID:040000008200E00074C5B7101A82E00800000000D0F2B8D2A7F1DA0100000000000000001000000011AA22BB
SUMMARY:Stand-up
DTSTART;TZID=W. Europe Standard Time:20260907T090000
DTEND;TZID=W. Europe Standard Time:20260907T091500
CLASS:PUBLIC
PRIORITY:5
DTSTAMP:20261120T100000Z
TRANSP:OPAQUE
STATUS:CONFIRMED
SEQUENCE:0
LOCATION:Microsoft Teams Meeting
X-MICROSOFT-CDO-APPT-SEQUENCE:0
X-MICROSOFT-CDO-BUSYSTATUS:BUSY
X-MICROSOFT-CDO-IMPORTANCE:1
X-MICROSOFT-DISALLOW-COUNTER:FALSE
BEGIN:VALARM
DESCRIPTION:REMINDER
TRIGGER;RELATED=START:-PT15M
ACTION:DISPLAY
END:VALARM
END:VEVENT
BEGIN:VEVENT
DESCRIPTION:\\n
RECURRENCE-ID;TZID=W. Europe Standard Time:20261125T090000
UID:040000008200E00074C5B7101A82E00800000000D0F2B8D2A7F1DA0100000000000000001000000011AA22BB
SUMMARY:Stand-up (moved)
DTSTART;TZID=W. Europe Standard Time:20261125T110000
DTEND;TZID=W. Europe Standard Time:20261125T111500
DTSTAMP:20261120T100000Z
SEQUENCE:1
BEGIN:VALARM
DESCRIPTION:REMINDER
TRIGGER;RELATED=START:-PT15M
ACTION:DISPLAY
END:VALARM
END:VEVENT
BEGIN:VEVENT
UID:040000008200E00074C5B7101A82E0080000000050C3A1E4A7F1DA0100000000000000001000000033CC44DD
SUMMARY:Performance review
DTSTART;TZID=W. Europe Standard Time:20261126T140000
DTEND;TZID=W. Europe Standard Time:20261126T150000
CLASS:PRIVATE
PRIORITY:1
DTSTAMP:20261120T100000Z
STATUS:CONFIRMED
END:VEVENT
BEGIN:VEVENT
UID:040000008200E00074C5B7101A82E00800000000A1B2C3D4A7F1DA0100000000000000001000000055EE66FF
SUMMARY:Call with the Bangalore office
DTSTART;TZID=Customized Time Zone:20261127T160000
DTEND;TZID=Customized Time Zone:20261127T170000
DTSTAMP:20261120T100000Z
END:VEVENT
END:VCALENDAR
""")

# Thunderbird (Lightning) tasks: VTODO with DUE, an alarm relative to DUE (RELATED=END), an
# overdue task, a completed one, one without any date, and a weekly task.
THUNDERBIRD = crlf("""
BEGIN:VCALENDAR
PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN
VERSION:2.0
BEGIN:VTIMEZONE
TZID:Europe/Berlin
X-LIC-LOCATION:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
END:STANDARD
END:VTIMEZONE
BEGIN:VTODO
CREATED:20261115T101500Z
LAST-MODIFIED:20261115T101612Z
DTSTAMP:20261115T101612Z
UID:b5f0c7d2-4e1a-4c59-9d0e-3c2b8a7f6e10
SUMMARY:Renew passport
STATUS:NEEDS-ACTION
DTSTART;TZID=Europe/Berlin:20261128T090000
DUE;TZID=Europe/Berlin:20261130T170000
X-MOZ-GENERATION:1
BEGIN:VALARM
ACTION:DISPLAY
TRIGGER;VALUE=DURATION;RELATED=END:-PT1H
DESCRIPTION:Default Mozilla Description
END:VALARM
END:VTODO
BEGIN:VTODO
CREATED:20261110T080000Z
DTSTAMP:20261110T080000Z
UID:0c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e
SUMMARY:Water the plants
STATUS:NEEDS-ACTION
DUE;TZID=Europe/Berlin:20261120T180000
END:VTODO
BEGIN:VTODO
CREATED:20261110T080000Z
DTSTAMP:20261118T120000Z
UID:9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d
SUMMARY:Buy milk
STATUS:COMPLETED
COMPLETED:20261118T120000Z
PERCENT-COMPLETE:100
DUE;TZID=Europe/Berlin:20261125T180000
END:VTODO
BEGIN:VTODO
CREATED:20261110T080000Z
DTSTAMP:20261110T080000Z
UID:77f1e2d3-c4b5-4a69-8788-99aabbccddee
SUMMARY:Learn Italian someday
END:VTODO
BEGIN:VTODO
CREATED:20261110T080000Z
DTSTAMP:20261110T080000Z
UID:1234abcd-5678-4ef0-9abc-def012345678
SUMMARY:Take out the bins
RRULE:FREQ=WEEKLY;BYDAY=TU
DTSTART;TZID=Europe/Berlin:20261117T190000
DUE;TZID=Europe/Berlin:20261117T190000
END:VTODO
END:VCALENDAR
""")


def test_google_export(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    result = import_calendar(store, GOOGLE)
    assert (result.imported, result.past, result.cancelled) == (4, 1, 1)
    got = reminders(store)
    assert set(got) == {"Choir rehearsal", "Swimming", "Anna's birthday", "Dentist — Bring the insurance card"}
    choir = got["Choir rehearsal"]
    # The 30-minute alarm: due 18:30 local every Tuesday, the series kept in the event's zone.
    assert local(choir) == "Tue 2026-11-24 18:30" and choir["due_at"] == "2026-11-24T17:30:00+00:00"
    assert rule_of(choir) == "FREQ=WEEKLY;BYDAY=TU" and choir["occurrence_at"] == choir["due_at"]
    assert "TZID=Europe/Berlin:20261006T183000" in choir["recurrence"]
    assert choir["uid"] == "7kq3b0c9f1a2d4e6@google.com" and choir["kind"] == "reminder"
    # Written in UTC in October (CEST), read in X-WR-TIMEZONE: still 18:00 local after the change.
    assert local(got["Swimming"]) == "Thu 2026-11-26 18:00"
    assert got["Swimming"]["due_at"] == "2026-11-26T17:00:00+00:00"
    # All-day, no alarm: 09:00 on the day, every year.
    birthday = got["Anna's birthday"]
    assert local(birthday) == "Mon 2027-03-15 09:00" and birthday["private"] == 1
    assert present(memories.Memory.from_row(birthday).rule).describe() == "every year on Mar 15"
    assert got["Dentist — Bring the insurance card"]["due_at"] == "2026-12-01T09:00:00+00:00"


def test_reimport_adds_nothing(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    import_calendar(store, GOOGLE)
    before = store.query("SELECT id, due_at, uid FROM knowledge ORDER BY id")
    again = import_calendar(store, GOOGLE)
    assert again.imported == 0 and again.already_present == 4
    assert "4 already present" in again.describe()
    assert store.query("SELECT id, due_at, uid FROM knowledge ORDER BY id") == before


def test_apple_calendar(tmp_path: Path) -> None:
    store = open_store(tmp_path, zone="America/New_York")
    result = import_calendar(store, APPLE)
    assert result.imported == 3
    got = reminders(store)
    # The folded SUMMARY is one line again (the fold's leading space removed, nothing else).
    photos = got["Pick up the framed photos from the gallery on Main Street before it closes at nine"]
    assert photos["due_at"] == "2026-12-03T13:00:00+00:00"  # 08:15 EST minus 15 minutes
    # All-day with "-PT15H": 09:00 the day before, every year.
    mum = got["Mum's birthday"]
    assert local(mum, "America/New_York") == "Sat 2027-01-09 09:00"
    assert present(memories.Memory.from_row(mum).rule).describe() == "every year on Jan 9"
    # Two alarms: the earlier one (an hour before) is when the reminder is due; UNTIL kept.
    piano = got["Piano lesson"]
    assert local(piano, "America/New_York") == "Tue 2026-11-24 15:30"
    rule = present(memories.Memory.from_row(piano).rule)
    # UNTIL (June 1 16:30 EDT, the last lesson) moves with the alarm: the last reminder is June 1 15:30.
    assert rule.zone == "America/New_York" and "UNTIL=20270601T153000" in rule.rule
    last = rule.next_after(datetime.fromisoformat("2027-05-26T00:00:00+00:00"))
    assert last == datetime.fromisoformat("2027-06-01T19:30:00+00:00") and rule.next_after(last) is None


def test_outlook_windows_zones_exdate_and_moved_occurrence(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    result = import_calendar(store, OUTLOOK)
    assert result.imported == 3
    got = reminders(store)
    standup = got["Stand-up"]
    # "W. Europe Standard Time" is Europe/Berlin; Mon Nov 23 is excluded, Wed Nov 25 moved to 11:00.
    assert present(memories.Memory.from_row(standup).rule).zone == "Europe/Berlin"
    assert rule_of(standup) == "FREQ=WEEKLY;BYDAY=MO,WE;WKST=MO;UNTIL=20270630T084500"  # alarm-shifted
    assert local(standup) == "Wed 2026-11-25 10:45"
    assert local(standup, field="occurrence_at") == "Wed 2026-11-25 08:45"
    review = got["Performance review"]
    assert local(review) == "Thu 2026-11-26 14:00" and review["private"] == 1 and review["importance"] == 5
    assert standup["importance"] == 3 and standup["private"] == 0
    # A zone only its VTIMEZONE defines (+05:30) still gives the right instant for a one-off.
    assert got["Call with the Bangalore office"]["due_at"] == "2026-11-27T10:30:00+00:00"


def test_outlook_series_in_an_unknown_zone_is_a_clear_error(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    text = OUTLOOK.replace("DTSTART;TZID=Customized Time Zone:20261127T160000",
                           "DTSTART;TZID=Customized Time Zone:20261127T160000\r\nRRULE:FREQ=DAILY")
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, text)
    assert info.value.line == line_of(text, "BEGIN:VEVENT", 4)
    assert "time zone" in str(info.value) and "Bangalore" in str(info.value)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0


def test_thunderbird_tasks(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    result = import_calendar(store, THUNDERBIRD)
    assert (result.imported, result.completed, result.undated) == (3, 1, 1)
    got = reminders(store)
    assert local(got["Renew passport"]) == "Mon 2026-11-30 16:00"  # DUE 17:00, alarm an hour before DUE
    # A task stays open until it is done: an overdue one comes in overdue.
    assert local(got["Water the plants"]) == "Fri 2026-11-20 18:00"
    bins = got["Take out the bins"]
    assert local(bins) == "Tue 2026-11-24 19:00" and rule_of(bins) == "FREQ=WEEKLY;BYDAY=TU"


def test_floating_and_utc_times_without_calendar_zone(tmp_path: Path) -> None:
    store = open_store(tmp_path, zone="Asia/Tokyo")
    text = crlf("""
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Example Corp.//CalDAV Client//EN
BEGIN:VEVENT
UID:floating-1@example.com
DTSTAMP:20261120T000000Z
DTSTART:20261201T080000
SUMMARY:Floating breakfast
END:VEVENT
BEGIN:VEVENT
UID:utc-1@example.com
DTSTAMP:20261120T000000Z
DTSTART:20261201T080000Z
SUMMARY:UTC call
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:x
TRIGGER;VALUE=DATE-TIME:20261201T070000Z
END:VALARM
END:VEVENT
END:VCALENDAR
""")
    import_calendar(store, text)
    got = reminders(store)
    assert got["Floating breakfast"]["due_at"] == "2026-11-30T23:00:00+00:00"  # 08:00 in the user's zone
    assert got["UTC call"]["due_at"] == "2026-12-01T07:00:00+00:00"  # the absolute alarm


def test_daily_at_eight_stays_eight_across_the_october_change(tmp_path: Path) -> None:
    store = open_store(tmp_path, now="2026-10-23T12:00:00+00:00")
    text = crlf("""
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Example Corp.//CalDAV Client//EN
BEGIN:VEVENT
UID:vitamins@example.com
DTSTAMP:20261001T000000Z
DTSTART;TZID=Europe/Berlin:20261001T080000
RRULE:FREQ=DAILY
SUMMARY:Vitamins
END:VEVENT
END:VCALENDAR
""")
    import_calendar(store, text)
    row = reminders(store)["Vitamins"]
    assert row["due_at"] == "2026-10-24T06:00:00+00:00"  # 08:00 CEST
    for expected in ("2026-10-25T07:00:00+00:00", "2026-10-26T07:00:00+00:00"):  # 08:00 CET
        done = mark_done(store, row["id"])
        assert done.due_at == expected and local({"due_at": done.due_at}).endswith("08:00")


def test_hourly_series_begun_in_1970_are_followed_from_now(tmp_path: Path) -> None:
    """Issue 22: ten hourly series starting in 1970 took 1 min 47 s to import and `done` 10 s: every
    occurrence since 1970 was walked (benchmarks/bench_rules.py measures it)."""
    store = open_store(tmp_path)
    events = "".join(f"BEGIN:VEVENT\nUID:h{i}\nSUMMARY:series {i}\n"
                     f"DTSTART;TZID=Europe/Berlin:197001{i + 1:02d}T0{i}1500\nRRULE:FREQ=HOURLY\nEND:VEVENT\n"
                     for i in range(10))
    result = import_calendar(store, crlf(f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\n{events}END:VCALENDAR\n"))
    assert result.imported == 10
    rows = reminders(store)
    assert {row["due_at"] for row in rows.values()} == {"2026-11-22T14:15:00+00:00"}  # 15:15 CET, the next :15
    done = mark_done(store, rows["series 3"]["id"])
    assert done.due_at == "2026-11-22T15:15:00+00:00"


@pytest.mark.parametrize("rule", ["FREQ=HOURLY;BYMINUTE=" + ",".join(map(str, range(60))) + ";BYSECOND="
                                  + ",".join(map(str, range(60))), "FREQ=DAILY;BYHOUR=9;BYMINUTE=0,15,30,45"])
def test_a_series_finer_than_hourly_through_by_lists_is_refused(tmp_path: Path, rule: str) -> None:
    """Issue 22: BYMINUTE/BYSECOND lists made an every-second series that validate accepted."""
    store = open_store(tmp_path)
    text = crlf(f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\nBEGIN:VEVENT\nUID:s\nSUMMARY:tick\n"
                f"DTSTART;TZID=Europe/Berlin:20261122T150000\nRRULE:{rule}\nEND:VEVENT\nEND:VCALENDAR\n")
    with pytest.raises(ImportFailed, match="more often than every hour") as info:
        import_calendar(store, text)
    assert "RRULE (line 8)" in str(info.value) and store.one("SELECT count(*) FROM knowledge")[0] == 0


def test_a_refused_item_is_named_without_the_secret_its_title_holds(tmp_path: Path) -> None:
    """An attacker's: the error named the to-do 'Door code 4471' on stderr, its code in clear."""
    store = open_store(tmp_path)
    text = crlf("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\nBEGIN:VTODO\nUID:s\nSUMMARY:Door code 4471\n"
                "DUE:20261201T090000Z\nRRULE:FREQ=SECONDLY\nEND:VTODO\nEND:VCALENDAR\n")
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, text)
    assert "Door code [secret]" in str(info.value) and "4471" not in str(info.value)


@pytest.mark.parametrize("damage, component, why", [
    (("DTSTART;TZID=Europe/Berlin:20261006T190000", "DTSTART;TZID=Europe/Berlin:2026-10-06 19:00"), 1, "DTSTART"),
    (("DTSTART:20261201T090000Z", "DTSTART:20261301T090000Z"), 4, "DTSTART"),
    (("RRULE:FREQ=WEEKLY;BYDAY=TU", "RRULE:FREQ=WEEKLY;BYDAY=XX"), 1, "RRULE"),
    (("RRULE:FREQ=WEEKLY;BYDAY=TU", "RRULE:FREQ=SECONDLY"), 1, "FREQ=SECONDLY"),
    (("TRIGGER:-P0DT0H30M0S", "TRIGGER:soon"), None, "TRIGGER"),
    (("DTSTART:20261201T090000Z", "DTSTART;TZID=Mars/Olympus_Mons:20261201T090000"), 4, "unknown time zone"),
    (("SUMMARY:Dentist\r\n", "SUMMARY:Dentist\r\nEND:VEVENT\r\n"), None, "END:VEVENT"),
])
def test_bad_component_names_its_line_and_nothing_is_written(tmp_path: Path, damage: tuple[str, str],
                                                             component: int | None, why: str) -> None:
    store = open_store(tmp_path)
    text = GOOGLE.replace(*damage)
    assert text != GOOGLE
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, text)
    if component is not None:  # the line where the damaged VEVENT starts
        assert info.value.line == line_of(text, "BEGIN:VEVENT", component)
    assert why in str(info.value) and "nothing was imported" in str(info.value)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0


def test_bad_alarm_names_the_alarm_line(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, GOOGLE.replace("TRIGGER:-P0DT0H30M0S", "TRIGGER:soon"))
    assert info.value.line == line_of(GOOGLE, "BEGIN:VALARM")


def test_missing_end_names_the_unclosed_begin(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    lines = GOOGLE.split("\r\n")
    # Drop the END:VEVENT of the third event (the birthday): its BEGIN is never closed.
    third_end = [n for n, line in enumerate(lines) if line == "END:VEVENT"][2]
    text = "\r\n".join(lines[:third_end] + lines[third_end + 1:])
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, text)
    assert info.value.line == line_of(text, "BEGIN:VEVENT", 3)
    assert "BEGIN:VEVENT has no END:VEVENT" in str(info.value)
    truncated = GOOGLE[:GOOGLE.index("END:VCALENDAR")]
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, truncated)
    assert info.value.line == 1 and "VCALENDAR" in str(info.value)
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0


def test_line_numbers_count_folded_lines_as_the_file_shows_them(tmp_path: Path) -> None:
    store = open_store(tmp_path, zone="America/New_York")
    text = APPLE.replace("RRULE:FREQ=WEEKLY;UNTIL=20270601T203000Z;BYDAY=TU", "RRULE:FREQ=WEEKLY;BYDAY=ZZ")
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, text)
    assert info.value.line == line_of(text, "BEGIN:VEVENT", 3)
    assert f"RRULE (line {line_of(text, 'RRULE:FREQ=WEEKLY;BYDAY=ZZ')})" in str(info.value)


def test_not_a_calendar(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    with pytest.raises(ImportFailed) as info:
        import_calendar(store, "hello\r\n")
    assert info.value.line == 1 and "BEGIN:VCALENDAR" in str(info.value)
    assert looks_like_calendar("notes.txt", "\ufeffBEGIN:VCALENDAR\r\n") and looks_like_calendar("a.ICS", "")
    assert not looks_like_calendar("export.jsonl", '{"type": "memory"}')


def make_reminders(store: Store) -> None:
    memories.remember(store, "Dentist", due_at="2026-11-25T10:00")
    memories.remember(store, "Overdue call\nabout the flat, with notes", due_at="2026-11-20T18:00")
    memories.remember(store, "Tax return", due_at="2026-12-10T09:00", importance=5, private=True)
    memories.remember(store, "Take out the bins", due_at="every Tuesday at 7pm")
    snoozed = memories.remember(store, "Pay rent", due_at="on the 1st of every month at 10")
    snooze(store, snoozed.id, "2026-12-02T12:00")
    early = memories.remember(store, "Water plants", due_at="every day at 8")
    mark_done(store, early.id)  # done ahead: the next is the day after tomorrow's
    finished = memories.remember(store, "Already done", due_at="2026-11-23T10:00")
    mark_done(store, finished.id)
    memories.remember(store, "I like tea", kind="preference")


def when(component: Component, name: str) -> datetime:
    """The date-time of a component's DTSTART or RECURRENCE-ID."""
    value = component[name]
    assert isinstance(value, vDDDTypes) and isinstance(value.dt, datetime)
    return value.dt


def comparable(store: Store) -> list[tuple[Any, ...]]:
    rows = store.query("SELECT content, due_at, occurrence_at, recurrence, importance, private FROM knowledge "
                       "WHERE due_at IS NOT NULL AND done_at IS NULL ORDER BY due_at, content")
    return [tuple(row) for row in rows]


def test_round_trip_into_a_fresh_store(tmp_path: Path) -> None:
    source = open_store(tmp_path, "a.db")
    make_reminders(source)
    target_file = tmp_path / "reminders.ics"
    assert write_calendar(source, target_file) == 6
    assert stat.S_IMODE(os.stat(target_file).st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == sorted(["a.db", "a.db-wal", "a.db-shm", "reminders.ics"])

    # It is a calendar others can read: events with alarms, rules, a VTIMEZONE for the zone.
    calendar = Calendar.from_ical(target_file.read_bytes())
    events = calendar.walk("VEVENT")
    assert [tz["TZID"] for tz in calendar.walk("VTIMEZONE")] == ["Europe/Berlin"]
    assert all(e.walk("VALARM") for e in events)
    bins = next(e for e in events if str(e["SUMMARY"]) == "Take out the bins")
    assert bins["RRULE"].to_ical() == b"FREQ=WEEKLY;BYDAY=TU"
    assert bins["DTSTART"].params["TZID"] == "Europe/Berlin" and when(bins, "DTSTART").hour == 19
    rent = [e for e in events if str(e["SUMMARY"]) == "Pay rent"]
    assert len(rent) == 2 and when(rent[1], "RECURRENCE-ID").day == 1 and when(rent[1], "DTSTART").day == 2
    assert when(rent[0], "DTSTART").day == 1  # the series start, not the snoozed due time
    assert not any(str(e["SUMMARY"]) in ("Already done", "I like tea") for e in events)
    uids = {str(e["UID"]) for e in events}
    assert all(uid.startswith(source.store_uid() + "/memory/") for uid in uids)  # the JSON Lines uid

    copy = open_store(tmp_path, "b.db")
    result = import_calendar(copy, target_file.read_text(encoding="utf-8"))
    assert result.imported == 6 and result.past == 0
    assert comparable(copy) == comparable(source)
    # Read back into the store that wrote it, or a second time into the copy: nothing new.
    assert import_calendar(source, target_file.read_text()).already_present == 6
    assert import_calendar(copy, target_file.read_text()).already_present == 6
    assert comparable(copy) == comparable(source)


def test_export_keeps_a_calendars_own_uid(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    import_calendar(store, GOOGLE)
    calendar, count = build_calendar(store)
    assert count == 4
    uids = {str(e["UID"]) for e in calendar.walk("VEVENT")}
    assert "7kq3b0c9f1a2d4e6@google.com" in uids and "2ab4cd6ef8gh0ij2@google.com" in uids
    # ... so the Google file read again after our export is still all present.
    assert import_calendar(store, calendar.to_ical().decode()).already_present == 4


def test_failed_export_leaves_no_file(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    memories.remember(store, "Dentist", due_at="2026-11-25T10:00")
    (tmp_path / "taken").mkdir()
    with pytest.raises(InvalidInput, match="cannot write"):
        write_calendar(store, tmp_path / "taken")
    with pytest.raises(InvalidInput, match="cannot write"):
        write_calendar(store, tmp_path / "missing" / "r.ics")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("memory.db")) == ["taken"]
    assert list((tmp_path / "taken").iterdir()) == []


def test_alarm_on_another_day_moves_the_rule_or_falls_back(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    text = crlf("""
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Apple Inc.//iOS 18.1//EN
BEGIN:VEVENT
UID:bins@example.com
DTSTAMP:20261001T000000Z
DTSTART;VALUE=DATE:20261006
RRULE:FREQ=WEEKLY;BYDAY=TU
SUMMARY:Bin day
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Reminder
TRIGGER:-PT15H
END:VALARM
END:VEVENT
BEGIN:VEVENT
SUMMARY:Rent due
DTSTAMP:20261001T000000Z
DTSTART;VALUE=DATE:20261001
RRULE:FREQ=MONTHLY;BYMONTHDAY=1
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Reminder
TRIGGER:-PT15H
END:VALARM
END:VEVENT
END:VCALENDAR
""")
    import_calendar(store, text)
    got = reminders(store)
    # "The day before at 9" of every Tuesday is every Monday at 9.
    assert rule_of(got["Bin day"]) == "FREQ=WEEKLY;BYDAY=MO" and local(got["Bin day"]) == "Mon 2026-11-23 09:00"
    # A day of the month cannot move that way: 09:00 on the day itself rather than a wrong day.
    assert rule_of(got["Rent due"]) == "FREQ=MONTHLY;BYMONTHDAY=1" and local(got["Rent due"]) == "Tue 2026-12-01 09:00"
    # No UID (Rent due has none): a stable one is made up, so a second import still adds nothing.
    assert got["Rent due"]["uid"].startswith("ics-")
    assert import_calendar(store, text).already_present == 2


def test_a_moved_occurrence_in_the_past_does_not_hold_the_series_back(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    text = OUTLOOK.replace("RECURRENCE-ID;TZID=W. Europe Standard Time:20261125T090000",
                           "RECURRENCE-ID;TZID=W. Europe Standard Time:20261118T090000")
    text = text.replace("DTSTART;TZID=W. Europe Standard Time:20261125T110000",
                        "DTSTART;TZID=W. Europe Standard Time:20261118T110000")
    import_calendar(store, text)
    assert local(reminders(store)["Stand-up"]) == "Wed 2026-11-25 08:45"


def test_a_calendar_of_reminders_already_imported_as_json_lines_adds_nothing(tmp_path: Path, clock: Clock) -> None:
    """The .ics UID and the JSON Lines uid are one identity: exporting both and importing both into
    a fresh store gave every reminder twice."""
    from memory.transfer.jsonl_export import export_records
    from memory.transfer.jsonl_import import import_records

    with Store(tmp_path / "a.db", clock) as first, Store(tmp_path / "b.db", clock) as second:
        memories.remember(first, "rem b", due_at="2026-11-23T09:00:00Z")
        ics = calendar_text(first)
        import_records(second, [json.dumps(r) for r in export_records(first)])
        result = import_calendar(second, ics)
        assert (result.imported, result.already_present) == (0, 1)
        assert memories.count_memories(second) == 1


def test_a_repeating_event_with_interval_zero_is_refused(store: Store) -> None:
    text = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:z1\r\n"
            "DTSTART:20261201T090000Z\r\nRRULE:FREQ=DAILY;INTERVAL=0\r\nSUMMARY:water\r\nEND:VEVENT\r\n"
            "END:VCALENDAR\r\n")
    with pytest.raises(ImportFailed, match="line 4"):
        import_calendar(store, text)
    assert memories.count_memories(store) == 0
