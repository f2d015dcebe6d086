"""Reminders on every device (SPEC F15): a two-way sync with a CalDAV calendar.

config.py      the [caldav] settings and ASSISTANT_CALDAV_PASSWORD, checked (a bad one: exit 2)
server.py      the calendar server, through the `caldav` client library (imported only here, when a sync runs)
sync.py        one sync: the lock, the server's changes in, the reminders' changes out
background.py  how the app and the notifier sync by themselves: an `assistant sync` child, soon after a
               change and every caldav.interval_minutes

What a sync decides, and the state it keeps in the store, is memory.transfer.caldav's; the to-do written for
a reminder is memory.transfer.ical.todo's; docs/caldav.md says it for people.
"""
