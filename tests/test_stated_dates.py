"""Issue 46, item 14: "my passport expires in June 2027" was told as "That is Sun Jun 20 2027". A date said
as a month is told as a month, never a made-up day (SPEC F5: a resolution carries its granularity)."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from assistant.reading.dates import stated_date
from assistant.responders.offline import OfflineResponder
from assistant.turn.agent import Agent
from memory.time.instants import UTC
from tests.conftest import make_runtime
from tests.test_offline import say

WRITTEN = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[Agent]:
    rt = make_runtime(tmp_path)
    yield Agent(rt, OfflineResponder(rt))
    rt.close()


@pytest.mark.parametrize("text, granularity, first_day", [
    ("my passport expires in June 2027", "month", (2027, 6, 1)),
    ("the lease ends in March", "month", (2027, 3, 1)),  # the coming March
    ("the boiler warranty runs out in 2029", "year", (2029, 1, 1)),
    ("my Lisbon flight is on Dec 10", "day", (2026, 12, 10)),
    ("the offsite got pushed to the 12th", "day", (2026, 12, 12)),
    ("the dentist is on June 20", "day", (2027, 6, 20)),
    # a newcomer's: a day of the month said beside the month it is in ("That is Sat Dec 12" for March)
    ("in March we're going to Lisbon for a week, flights on the 12th", "day", (2027, 3, 12)),
    ("in June 2027 the lease ends, keys on the 3rd at 10am", "day", (2027, 6, 3)),
    ("in February we go skiing, back on the 30th", "month", (2027, 2, 1)),  # no such day: the month
    ("in March, the dentist is on the 12th of April", "day", (2027, 4, 12)),
])
def test_a_stated_date_carries_how_precisely_it_was_said(text: str, granularity: str,
                                                         first_day: tuple[int, int, int]) -> None:
    stated = stated_date(text, WRITTEN, UTC)
    assert stated is not None
    assert stated.granularity == granularity
    assert (stated.at.year, stated.at.month, stated.at.day) == first_day


async def test_a_month_is_told_as_a_month_never_a_made_up_day(agent: Agent) -> None:
    await say(agent, "remember that my passport expires in June 2027")
    answer, _ = await say(agent, "when does my passport expire?")
    assert "That is June 2027." in answer
    assert "Jun 20 2027" not in answer  # it said "That is Sun Jun 20 2027"


# -- issue 46, item 15: "the bins go out on Monday night" was listed as "[PLAN Mon Dec 7]" -------------------

@pytest.mark.parametrize("text", ["the bins go out on Monday night", "the recycling goes out on Tuesdays",
                                  "I usually swim on Monday mornings", "the cleaner comes every Friday",
                                  "we do the big shop on Saturday", "Mum calls on Sunday evenings"])
def test_a_habit_is_no_plan(text: str) -> None:
    assert stated_date(text, WRITTEN, UTC) is None


@pytest.mark.parametrize("text", ["the dentist is on Friday", "I have the offsite on Thursday",
                                  "my flight leaves on Friday", "the interview is next Tuesday at 10",
                                  "dinner with Sam on Saturday"])
def test_a_plan_keeps_its_day(text: str) -> None:
    stated = stated_date(text, WRITTEN, UTC)
    assert stated is not None and stated.granularity == "day"


async def test_a_habit_is_not_listed_as_a_plan(agent: Agent) -> None:
    await say(agent, "remember that the bins go out on Monday night")
    await say(agent, "remember that the dentist is on Friday")
    answer, _ = await say(agent, "what's coming up?")
    assert "bins" not in answer
    assert "[PLAN Fri Nov 27] the dentist is on Friday" in answer
