"""SPEC F12, the morning briefing: today's reminders in time order, what is overdue, yesterday's
conversations by title, the memories that changed; shown by the app on the first launch of a day only,
printed by `assistant briefing`, posted once a day by `assistant notify` at notify.briefing_time (with
a private session bus, as tests/test_notify.py does), and nothing at all on a day with nothing in it."""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant.briefing import NOTHING, briefing_for_launch, build_briefing
from memory import episodes, memories, reminders
from memory.store import Store
from memory.time.clock import Clock
from tests.conftest import T0, Cli, make_clock
from tests.test_notify import Desktop, NotifierProcess, notifiers, session_bus  # noqa: F401 - the fixtures

if TYPE_CHECKING:
    from tests.desktop_bus import SessionBus

DAY = "2026-11-22T{}:00+00:00"  # T0 is Sunday Nov 22 14:00 UTC


def seeded(store: Store) -> dict[str, int]:
    """A Sunday: reminders today (written out of order), one overdue, one done, one tomorrow; a
    conversation yesterday and an abandoned one; memories new, edited and old."""
    at = store.clock.fixed
    ids = {}
    store.clock.fixed = datetime.fromisoformat("2026-11-20T09:00:00+00:00")
    ids["old"] = memories.remember(store, "the boiler is a Vaillant", kind="fact").id
    ids["edited"] = memories.remember(store, "the gym opens at 6", kind="fact").id
    store.clock.fixed = datetime.fromisoformat("2026-11-21T10:00:00+00:00")
    talk = episodes.open_episode(store)
    episodes.add_message(store, talk.id, "user", "let's plan the ski trip")
    episodes.add_message(store, talk.id, "assistant", "Sure.")
    episodes.close_episode(store, talk.id, "Ski Trip Planning", "", "success")
    idle = episodes.open_episode(store)
    episodes.add_message(store, idle.id, "user", "hi")
    episodes.close_episode(store, idle.id, "Hi", "", "abandoned")
    reminders.update_memory(store, ids["edited"], content="the gym opens at 7")
    store.clock.fixed = at
    ids["late"] = memories.remember(store, "call the plumber", due_at=DAY.format("16")).id
    ids["early"] = memories.remember(store, "walk the dog", due_at=DAY.format("15")).id
    ids["overdue"] = memories.remember(store, "pay the rent", due_at="2026-11-21T09:00:00+00:00").id
    done = memories.remember(store, "water the plants", due_at=DAY.format("17"))
    reminders.mark_done(store, done.id)
    memories.remember(store, "book the dentist", due_at="2026-11-23T09:00:00+00:00")
    ids["new"] = memories.remember(store, "the door code is 5829", kind="fact").id
    return ids


def test_the_briefing_holds_today_in_time_order_the_overdue_yesterday_and_what_changed(store: Store) -> None:
    ids = seeded(store)
    b = build_briefing(store, store.clock)
    assert b.label == "Sun Nov 22"
    assert [(i.id, i.when) for i in b.today] == [(ids["early"], "15:00"), (ids["late"], "16:00")]
    assert [i.id for i in b.overdue] == [ids["overdue"]] and b.overdue_total == 1
    assert [i.text for i in b.yesterday] == ["Ski Trip Planning"] and b.yesterday_total == 1
    assert [(i.id, i.when, i.text) for i in b.changed] == [(ids["new"], "new", "the door code is ••••"),
                                                          (ids["edited"], "changed", "the gym opens at 7")]
    text = b.text()
    assert text.splitlines()[0] == "Briefing for Sun Nov 22" and "5829" not in text
    assert text.index("15:00  walk the dog") < text.index("16:00  call the plumber")
    assert "book the dentist" not in text and "water the plants" not in text and "Vaillant" not in text


def test_a_memory_replaced_since_is_not_listed_as_new(store: Store) -> None:
    # A newcomer's briefing listed "new: Tom (my brother) lives in Bristol" after Tom had moved to Cardiff.
    old = memories.remember(store, "my brother Tom lives in Bristol", kind="fact")
    new = memories.remember(store, "Tom moved to Cardiff last month", kind="fact")
    b = build_briefing(store, store.clock)
    assert [i.id for i in b.changed] == [new.id] and b.changed_total == 1, (old.id, b.changed)


def test_a_day_with_nothing_in_it_has_no_briefing(store: Store) -> None:
    memories.remember(store, "the boiler is a Vaillant", kind="fact")  # said long before yesterday
    long_ago = "2026-01-01T00:00:00+00:00"
    store.execute("UPDATE knowledge SET created_at = ?, updated_at = ?", (long_ago, long_ago))
    b = build_briefing(store, store.clock)
    assert b.empty and b.text() == NOTHING


def test_the_day_is_local(tmp_path: Path) -> None:
    """Late on Sunday in New York is Monday in UTC: "today" is the person's day."""
    clock = make_clock("2026-11-23T03:00:00+00:00", "America/New_York")  # Sun Nov 22 22:00 local
    with Store(tmp_path / "m.db", clock) as store:
        memories.remember(store, "take out the bins", due_at="2026-11-23T04:00:00+00:00")  # Sun 23:00 local
        memories.remember(store, "standup", due_at="2026-11-23T14:00:00+00:00")  # Monday local
        b = build_briefing(store, clock)
    assert b.label == "Sun Nov 22" and [(i.text, i.when) for i in b.today] == [("take out the bins", "23:00")]


def test_the_app_gets_it_on_the_first_launch_of_a_day_only(store: Store) -> None:
    seeded(store)
    assert briefing_for_launch(store, store.clock) is not None
    assert briefing_for_launch(store, store.clock) is None  # the second launch that day
    other = Store(store.path, store.clock)  # another window, another process
    assert briefing_for_launch(other, other.clock) is None
    other.close()
    tomorrow = Clock(store.clock.zone, T0 + timedelta(days=1))
    with Store(store.path, tomorrow) as next_day:
        assert briefing_for_launch(next_day, tomorrow) is not None


def test_an_empty_day_shows_nothing_and_a_later_launch_that_day_neither(store: Store) -> None:
    assert briefing_for_launch(store, store.clock) is None
    memories.remember(store, "call the plumber", due_at=DAY.format("16"))
    assert briefing_for_launch(store, store.clock) is None


def test_the_command_prints_it_and_says_one_line_on_an_empty_day(cli: Cli) -> None:
    Store(cli.db).close()  # a new, empty store
    code, out, err = cli("briefing")
    assert (code, out, err) == (0, NOTHING + "\n", "")
    code, out, _ = cli("briefing", "--json")
    data = json.loads(out)
    assert code == 0 and data["empty"] is True and data["today"] == [] and data["day"] == "2026-11-22"
    with Store(cli.db, make_clock(T0)) as store:
        seeded(store)
    code, out, _ = cli("briefing")
    assert code == 0 and out.startswith("Briefing for Sun Nov 22\n") and "15:00  walk the dog" in out
    data = json.loads(cli("briefing", "--json")[1])
    assert [i["text"] for i in data["today"]] == ["walk the dog", "call the plumber"] and data["overdue_total"] == 1
    assert cli("briefing")[1] == out  # reading it marks nothing


# -- the notifier posts it once a day at the briefing time --------------------------------------

@pytest.fixture
def desktop(session_bus: SessionBus, monkeypatch: pytest.MonkeyPatch) -> Desktop:  # noqa: F811 - the fixture imported above
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", session_bus.address)
    monkeypatch.setenv("ASSISTANT_NOTIFY__BRIEFING_TIME", "08:00")
    return Desktop(session_bus)


def at(now: str) -> tuple[str, ...]:
    """A notifier's arguments for a frozen clock (test_notify's `notifiers` starts it)."""
    return ("--json", "--now", now)


@pytest.mark.slow
def test_two_notifiers_post_the_briefing_once_and_not_before_its_time(
        tmp_path: Path, desktop: Desktop, notifiers: Callable[..., NotifierProcess]) -> None:  # noqa: F811 - the fixture imported above
    db = str(tmp_path / "m.db")
    with Store(db, make_clock(T0)) as store:
        seeded(store)
        store.execute("INSERT INTO notified (memory_id, occurrence_at, notified_at, by) SELECT id, due_at, ?, 'test' "
                      "FROM knowledge WHERE due_at IS NOT NULL", (T0.isoformat(),))  # no reminder notification
    early = notifiers(db, *at("2026-11-22T07:59:00+00:00"))  # before the briefing time (08:00): nothing yet
    early.wait_for_event("started")
    pair = [notifiers(db, *at("2026-11-22T08:00:30+00:00")) for _ in range(2)]
    for n in pair:
        n.wait_for_event("started")  # said after each has settled today's briefing
    desktop.wait_for("Today: 15:00 walk the dog")
    for n in [early, *pair]:
        assert n.stop()[0] == 0
    posted = [n for n in desktop.arrived() if n.title == "Briefing for Sun Nov 22"]
    assert len(posted) == 1 and "Overdue: 1" in posted[0].body and "5829" not in posted[0].body
    assert sum(e["event"] == "briefing" for n in [early, *pair] for e in n.events()) == 1
    with Store(db, make_clock(T0)) as store:
        assert store.get_meta("briefing_notified_on") == "2026-11-22"
    again = notifiers(db, *at("2026-11-22T08:10:00+00:00"))  # restarted that day: nothing again
    again.wait_for_event("started")
    assert again.stop()[0] == 0 and not [e for e in again.events() if e["event"] == "briefing"]
    assert len([n for n in desktop.arrived() if n.title.startswith("Briefing")]) == 1


@pytest.mark.slow
def test_a_day_with_nothing_in_it_posts_nothing(tmp_path: Path, desktop: Desktop,
                                                notifiers: Callable[..., NotifierProcess]) -> None:  # noqa: F811 - the fixture imported above
    db = str(tmp_path / "m.db")
    Store(db, make_clock(T0)).close()
    notifier = notifiers(db, *at("2026-11-22T08:00:30+00:00"))
    notifier.wait_for_event("briefing_empty")
    assert notifier.stop()[0] == 0
    assert not [n for n in desktop.arrived() if n.title.startswith("Briefing")]
