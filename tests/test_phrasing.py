"""The offline mode's reading of messages (issues 9 and 11): a labelled table of phrasings people use.

Sources for the phrasings: Amazon's Alexa reminder guidelines ("remind you to check your account
balance every Thursday at 8 AM", "every day at noon", "on weekdays at 7 AM"), Siri habits seen in
the wild ("Remind me at 8PM take the chicken out of the freezer", "Remind me to watch New
Amsterdam"), Google Assistant's "set a reminder for 3pm to pick up the kids", and the failures
reported against this app ("remind me tomorrow at 8am to water the plants", "done with call the
plumber"). Clock: Sunday 22 Nov 2026 14:00 UTC.
"""
from __future__ import annotations

import pytest

from assistant.offline.understand import read_message
from memory.time.instants import UTC
from tests.conftest import T0

R = "remind"
# (message, intent, content, due (UTC ISO, or "rule:<RRULE>@<first due>"))
TABLE = [
    # time after the task
    ("remind me to call mom tomorrow at 6pm", R, "call mom", "2026-11-23T18:00"),
    ("Remind me to water the plants tomorrow at 9am.", R, "water the plants", "2026-11-23T09:00"),
    ("please remind me to pay rent on friday at 10", R, "pay rent", "2026-11-27T10:00"),
    ("remind me to take the bins out tonight", R, "take the bins out", "2026-11-22T20:00"),
    ("remind me about the dentist in 2 hours", R, "the dentist", "2026-11-22T16:00"),
    ("set a reminder to renew my passport next week", R, "renew my passport", "2026-11-29T14:00"),
    ("remind me to buy bread tomorrow at 10am", R, "buy bread", "2026-11-23T10:00"),
    ("can you remind me to email Sarah at 4pm", R, "email Sarah", "2026-11-22T16:00"),
    ("remind me to check the oven in 10 minutes", R, "check the oven", "2026-11-22T14:10"),
    ("remind me to call the bank at 12:45", R, "call the bank", "2026-11-23T12:45"),
    ("remind me to stretch at 5", R, "stretch", "2026-11-22T17:00"),
    ("Remind me to pick up the dry cleaning this evening", R, "pick up the dry cleaning", "2026-11-22T18:00"),
    ("remind me to submit the report by friday 5pm", R, "submit the report", "2026-11-27T17:00"),
    ("remind me to go to the gym on monday morning", R, "go to the gym", "2026-11-23T09:00"),
    ("hey, remind me to book flights tomorrow afternoon please", R, "book flights", "2026-11-23T14:00"),
    ("remind me to call the plumber about the sink at 5pm", R, "call the plumber about the sink", "2026-11-22T17:00"),
    ("remind me to buy 2 bottles of wine tomorrow", R, "buy 2 bottles of wine", "2026-11-23T09:00"),
    ("remind me to check your account balance on dec 3 at 8am", R, "check your account balance", "2026-12-03T08:00"),
    ("could you please remind me to feed the cat in an hour?", R, "feed the cat", "2026-11-22T15:00"),
    ("remind me to send the invoice next tuesday at 9", R, "send the invoice", "2026-11-24T09:00"),
    # time before the task
    ("remind me tomorrow at 8am to water the plants", R, "water the plants", "2026-11-23T08:00"),
    ("remind me in 10 minutes to check the oven", R, "check the oven", "2026-11-22T14:10"),
    ("at 5pm remind me to call Bob", R, "call Bob", "2026-11-22T17:00"),
    ("remind me on Friday about the dentist appointment", R, "the dentist appointment", "2026-11-27T09:00"),
    ("set a reminder for 3pm to pick up the kids", R, "pick up the kids", "2026-11-22T15:00"),
    ("Remind me at 8PM take the chicken out of the freezer", R, "take the chicken out of the freezer",
     "2026-11-22T20:00"),
    ("remind me tomorrow morning to buy milk", R, "buy milk", "2026-11-23T09:00"),
    ("tomorrow at noon remind me to call the vet", R, "call the vet", "2026-11-23T12:00"),
    ("remind me in 2 hours that the laundry is done", R, "the laundry is done", "2026-11-22T16:00"),
    ("remind me next week to renew the car insurance", R, "renew the car insurance", "2026-11-29T14:00"),
    ("on Monday, remind me to order the cake", R, "order the cake", "2026-11-23T09:00"),
    ("remind me at 7 to take my medicine", R, "take my medicine", "2026-11-22T19:00"),
    ("in 30 minutes remind me to turn off the stove", R, "turn off the stove", "2026-11-22T14:30"),
    ("remind me tonight at 9 to lock the back door", R, "lock the back door", "2026-11-22T21:00"),
    ("set a reminder for tomorrow at 7:30 to leave for the airport", R, "leave for the airport",
     "2026-11-23T07:30"),
    ("don't let me forget to call grandma on sunday", R, "call grandma", "2026-11-29T09:00"),
    ("reminder: dentist appointment on thursday at 2pm", R, "dentist appointment", "2026-11-26T14:00"),
    ("ping me in 45 minutes to move the car", R, "move the car", "2026-11-22T14:45"),
    # repeating
    ("remind me to take out the bins every Tuesday at 7pm", R, "take out the bins",
     "rule:FREQ=WEEKLY;BYDAY=TU@2026-11-24T19:00"),
    ("remind me to check my account balance every Thursday at 8 AM", R, "check my account balance",
     "rule:FREQ=WEEKLY;BYDAY=TH@2026-11-26T08:00"),
    ("remind me to meditate every day at noon", R, "meditate", "rule:FREQ=DAILY@2026-11-23T12:00"),
    ("remind me every weekday at 7:30 to check the train status", R, "check the train status",
     "rule:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR@2026-11-23T07:30"),
    ("remind me to pay the rent on the 1st of every month at 10", R, "pay the rent",
     "rule:FREQ=MONTHLY;BYMONTHDAY=1@2026-12-01T10:00"),
    ("remind me to water the plants every 2 weeks on Friday", R, "water the plants",
     "rule:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR@2026-11-27T09:00"),
    ("every morning remind me to take my vitamins", R, "take my vitamins", "rule:FREQ=DAILY@2026-11-23T09:00"),
    ("remind me to call Mum every Sunday at 6pm", R, "call Mum", "rule:FREQ=WEEKLY;BYDAY=SU@2026-11-22T18:00"),
    ("remind me about Anna's birthday every year on March 3", R, "Anna's birthday",
     "rule:FREQ=YEARLY;BYMONTHDAY=3;BYMONTH=3@2027-03-03T09:00"),
    # no time: the assistant asks when
    ("remind me to file taxes", "remind_no_time", "file taxes", None),
    ("Remind me to watch New Amsterdam", "remind_no_time", "watch New Amsterdam", None),
    ("set a reminder to call the landlord", "remind_no_time", "call the landlord", None),
    ("remind me to buy eggs", "remind_no_time", "buy eggs", None),
    # remember
    ("remember that the boiler code is 4471", "remember", "the boiler code is 4471", None),
    ("note that my passport number ends in 1234", "remember", "my passport number ends in 1234", None),
    ("remember: Sara moved to Lisbon last month", "remember", "Sara moved to Lisbon last month", None),
    ("please remember my sister's birthday is March 3", "remember", "my sister's birthday is March 3", None),
    ("make a note that the wifi password is on the fridge", "remember", "the wifi password is on the fridge",
     None),
    ("keep in mind that I'm allergic to peanuts", "remember", "I'm allergic to peanuts", None),
    # lists and recaps
    ("what's coming up?", "upcoming", "", None),
    ("what's due this week", "upcoming", "", None),
    ("show me my reminders", "upcoming", "", None),
    ("reminders", "upcoming", "", None),
    ("what do I have tomorrow?", "upcoming", "", None),
    ("what did we talk about?", "recap", "", None),
    ("catch me up", "recap", "", None),
    ("remind me what we discussed yesterday", "recap", "", None),
    # done and forget
    ("done with 3", "done", "3", None),
    ("done with call the plumber", "done", "call the plumber", None),
    ("I'm done with the electricity bill", "done", "the electricity bill", None),
    ("finished the report", "done", "the report", None),
    ("mark #4 as done", "done", "4", None),
    ("mark the dentist as done", "done", "the dentist", None),
    ("forget 12", "forget", "12", None),
    ("forget #7", "forget", "7", None),
    # questions answered from memory
    ("what is the boiler code?", "question", "what is the boiler code?", None),
    ("when is my sister's birthday", "question", "when is my sister's birthday", None),
    ("where did I put the spare key?", "question", "where did I put the spare key?", None),
    ("do you remember the wifi password?", "question", "do you remember the wifi password?", None),
    ("remind me of the gate code", "question", "remind me of the gate code", None),
    # chat
    ("hello", "chat", "hello", None),
    ("thanks!", "chat", "thanks!", None),
]


@pytest.mark.parametrize("message, intent, content, due", TABLE)
def test_phrasing_table(message, intent, content, due):
    reading = read_message(message, T0, UTC)
    assert (reading.intent, reading.content) == (intent, content)
    if due is None:
        assert reading.due is None
    elif due.startswith("rule:"):
        rule, first = due[5:].split("@")
        assert reading.rule is not None and reading.rule.rule == rule
        assert reading.due.isoformat().startswith(first)
    else:
        assert reading.rule is None and reading.due.isoformat().startswith(due)


def test_when_questions_are_flagged():
    assert read_message("when did Sara move to Lisbon?", T0, UTC).asks_when
    assert not read_message("what is the boiler code?", T0, UTC).asks_when
