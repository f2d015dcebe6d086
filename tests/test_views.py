"""What the front ends are given (assistant.views, built by assistant.services): a reminder as fields,
never a label to take apart; one reminder's details; the status; the due timer's wait; and the words
the app makes of them (the status line, the notices when reminders fall due). No app is driven here."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from assistant.services import Services
from assistant.views import DueNotice, ReminderView, StatusView
from memory import memories
from memory.errors import InvalidInput
from tests.conftest import T0, make_runtime
from ui import due_notices
from ui.widgets.status import status_line


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    services = Services(make_runtime(tmp_path, ASSISTANT_PROVIDER="offline"))
    yield services
    services.runtime.close()


def by_content(services: Services) -> dict[str, ReminderView]:
    return {r.content: r for r in services.reminders.page().items}


def test_a_reminder_is_given_as_fields(services: Services) -> None:
    store = services.runtime.store
    memories.remember(store, "Water the plants", due_at="every tuesday at 7pm")
    memories.remember(store, "Pay the rent", due_at=T0 - timedelta(hours=2))
    memories.remember(store, "Stretch", due_at=T0 + timedelta(seconds=20))
    shown = by_content(services)
    plants, rent, stretch = shown["Water the plants"], shown["Pay the rent"], shown["Stretch"]
    assert (plants.status, plants.when, plants.relative, plants.rule) == ("due", "Tue Nov 24 19:00", "in 2 d",
                                                                          "every Tue")
    assert plants.due_at == "2026-11-24T19:00:00+00:00" and not plants.due_now
    assert (rent.status, rent.when, rent.relative, rent.rule) == ("overdue", "Sun Nov 22 12:00", "overdue 2 h", None)
    assert stretch.due_now and stretch.relative == "now" and stretch.status == "due"
    assert not hasattr(plants, "label")


def test_the_details_of_a_reminder_and_one_done_elsewhere(services: Services) -> None:
    store = services.runtime.store
    tea = memories.remember(store, "Buy tea", due_at=T0 + timedelta(hours=3), importance=4)
    detail = services.reminders.detail(tea.id)
    assert detail.reminder.content == "Buy tea" and detail.reminder.when == "Sun Nov 22 17:00"
    assert (detail.kind, detail.importance, detail.created, detail.mentioned) == ("reminder", 4, "Sun Nov 22 14:00",
                                                                                  None)
    services.reminders.mark_done(tea.id)
    with pytest.raises(InvalidInput, match="not an open reminder"):
        services.reminders.detail(tea.id)


def test_a_change_says_its_new_time_and_the_timer_its_wait(services: Services) -> None:
    tea = memories.remember(services.runtime.store, "Buy tea", due_at=T0 + timedelta(hours=3))
    assert services.reminders.snooze(tea.id, "tomorrow at 8am").when == "Mon Nov 23 08:00"
    assert services.due.seconds_until(T0 + timedelta(seconds=90)) == 90.0  # the frozen clock, as it is


def test_the_status_in_fields_and_in_words(services: Services) -> None:
    memories.remember(services.runtime.store, "I like tea")
    view = services.status.view()
    assert view == StatusView("connecting…", 1, None, "Sun Nov 22 14:00")
    assert status_line(view, "idle") == (" ⏸ clock frozen at Sun Nov 22 14:00  ·  connecting…  ·  1 memory  ·  "
                                         "consolidation: idle")
    later = StatusView("offline · built-in", 2, "Sun Nov 22 09:00")
    assert status_line(later, "idle") == (" offline · built-in  ·  2 memories  ·  "
                                          "consolidation: last run Sun Nov 22 09:00")
    assert status_line(later, "consolidating 3/10 (cluster)").endswith("consolidation: consolidating 3/10 (cluster)")


def test_what_is_said_when_reminders_fall_due(services: Services) -> None:
    store = services.runtime.store
    for i in range(6):
        memories.remember(store, f"Task {i}", due_at=T0 + timedelta(minutes=i + 1))
    services.due.take_due_reminders()  # the launch: nothing due yet
    services.runtime.clock.fixed = T0 + timedelta(minutes=10)
    notice = services.due.take_due_reminders()
    assert not notice.at_launch and notice.total == 6
    toasts = due_notices.toasts(notice)
    assert [t.text for t in toasts] == ["Task 3 (due Sun Nov 22 14:04)", "Task 4 (due Sun Nov 22 14:05)",
                                        "Task 5 (due Sun Nov 22 14:06)", "and 3 more reminders are due now."]
    assert [r.content for r in due_notices.on_desktop(notice)] == ["Task 3", "Task 4", "Task 5"]
    assert due_notices.chat_lines(notice)[-1] == "⏰ and 1 more reminders are due now"
    launch = DueNotice(notice.items, notice.total, at_launch=True)
    assert due_notices.on_desktop(launch) == []
    assert [t.title for t in due_notices.toasts(launch)] == ["Reminders due"]
    assert due_notices.chat_lines(launch) == [f"⏰ {due_notices.launch_text(launch)}"]
