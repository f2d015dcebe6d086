"""Reminders as iCalendar (SPEC F1): open reminders exported as a calendar, calendar files imported as reminders.

Export writes every open reminder as a VEVENT, not a VTODO: people want to see their reminders
in the calendar they already look at, and Google Calendar ignores VTODO on import, while every
calendar app shows a VEVENT. Each event starts at the reminder's due
time (TZID-qualified, with a VTIMEZONE made from the zone database) and carries a VALARM at that
start, so the calendar notifies at the same moment the assistant would. A repeating reminder is
one VEVENT with its RRULE and DTSTART = the series start; when the current occurrence is not
simply the next one of the series (it was snoozed, or it is overdue, or an earlier one was done
ahead of time) a second VEVENT with the same UID and a RECURRENCE-ID moves that one occurrence,
which is how calendars say "this occurrence, moved". UIDs are the memory's own `uid` when it came
from elsewhere, else "<store uid>/memory/<id>" (the uid a JSON Lines export gives), so a calendar updates rather than
duplicates an event on a second import, and so do we.

Import reads VEVENT and VTODO as reminders (kind "reminder"):
- Content is SUMMARY, then " — " and the DESCRIPTION on the same line when the description is
  short (MAX_DESCRIPTION characters): a reminder is read in one line, in the list, the sidebar and
  the prompt. Longer descriptions (invitations paste pages of dial-in text) stay in the calendar.
  CLASS:PRIVATE/CONFIDENTIAL makes the memory private; PRIORITY maps to importance.
- The due time is the earliest VALARM's trigger when the item has one (relative to its start, or
  its end/DUE with RELATED=END; the earliest because that is when the user asked to hear of it
  first), else DTSTART for an event, DUE (else DTSTART) for a to-do.
- All-day items (DATE values) have no clock time: they are read in the user's zone, their alarms
  count from midnight of the day (so Apple's "-PT15H" reminds at 09:00 the day before), and without
  an alarm they are due at 09:00 on the day. VALARMs with ACTION:NONE (Apple's "no alert") are
  not alarms.
- Times with a TZID keep their zone (IANA names, Windows names such as "W. Europe Standard Time",
  and "/vendor/Europe/Berlin" ids are mapped; other names work for one-off items through the
  file's own VTIMEZONE, but a repeating item needs a zone we know, else the import fails naming
  it). UTC times are read in the calendar's X-WR-TIMEZONE when it has one (what Google means by
  it: the wall-clock time there, which matters for a weekly event across a DST change); floating
  times in X-WR-TIMEZONE, else in the user's zone.
- RRULE becomes the reminder's Recurrence, a series of reminder times: its start is the first
  occurrence's alarm, UNTIL moves with the alarm and is kept as wall-clock time in the event's
  zone, and an alarm on another day than its occurrence moves a BYDAY list with it (see
  _shifted_rule). The reminder is due at the first occurrence that has not passed, skipping
  EXDATEs and applying a RECURRENCE-ID override of that occurrence. RDATE is not read, and later
  EXDATEs and overrides are not kept (a Recurrence is a rule, not a list of exceptions).
- Skipped, and counted in the result: cancelled items (STATUS:CANCELLED), completed to-dos,
  to-dos without any date, and items that are over (a one-off event that started before now, an
  all-day one whose day has ended, a series with no occurrence left). Past events are history that
  the calendar keeps; as open reminders they would only flood the overdue list. A to-do, though,
  stays open until it is completed, so an overdue one comes in overdue; and a file that we wrote
  ourselves (our PRODID) holds only open reminders, so its overdue ones come back open too.
- Re-importing adds nothing: an item is matched on knowledge.uid = its UID (or, for our own
  export read back into the store that wrote it, on the row id inside the UID).
- All or nothing, as the JSON Lines import: any bad item raises ImportFailed naming the line of
  the file (as the user sees it, folded lines counted) where the component starts, and nothing
  is written.

X-WR-TIMEZONE is applied here rather than with the `x-wr-timezone` package: every date-time
already passes through one function that gives it a zone (floating times need the user's zone,
TZIDs need mapping), the rule is one line there, and it covers VTODO too.

The occurrence a series is due at is found with memory.time.rules rather than recurring-ical-events
(tried, docs/calendar-expansion.md): that library walks every occurrence from DTSTART (ten hourly
series begun in 1970: 142 s against 0.05 s, the slowness issue 22 removed), and it reads RDATE and
moved occurrences differently from what this import documents above.
"""
from memory.transfer.ical.export import build_calendar, calendar_text, calendar_uid, write_calendar
from memory.transfer.ical.lines import PRODID, looks_like_calendar
from memory.transfer.ical.plan import CalendarImport, import_calendar
from memory.transfer.ical.read import read_calendar, zone_for_tzid

__all__ = ["PRODID", "CalendarImport", "build_calendar", "calendar_text", "calendar_uid", "import_calendar",
           "looks_like_calendar", "read_calendar", "write_calendar", "zone_for_tzid"]
