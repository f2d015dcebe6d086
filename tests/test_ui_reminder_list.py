"""The reminder list acts on the reminder you see (issue 22, SPEC F8): the highlight is a reminder (by
id), always in view, kept across refreshes, insertions, removals, due notices and undo; a sentence
typed into the list by mistake changes nothing and reaches the message box whole; ctrl+z undoes the
last reminder change wherever it was made; the details dialog edits and forgets; a store with
hundreds of open reminders shows the most urgent ones and a count, and one launch notice."""
from __future__ import annotations

from datetime import UTC, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from memory import memories
from memory.errors import NotFound
from memory.store import Store
from memory.time.clock import Clock
from tests.conftest import T0, make_runtime, present
from tests.ui_helpers import notices, settle, sidebar_text, type_and_send, wait_until
from ui.app import AssistantApp
from ui.screens.dialogs import DetailScreen, SnoozeScreen
from ui.widgets.composer import Composer
from ui.widgets.reminders import ReminderItem, ReminderList

if TYPE_CHECKING:
    from textual.widget import Widget

    from memory.memories import Memory


def many_app(tmp_path: Path, count: int = 30, overdue: int = 0) -> AssistantApp:
    """`count` reminders an hour apart from T0 + 1 h ("Task 01", ...), and `overdue` more before T0."""
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="offline")
    for i in range(count):
        memories.remember(rt.store, f"Task {i + 1:02d}", due_at=T0 + timedelta(hours=i + 1))
    for i in range(overdue):
        memories.remember(rt.store, f"Late {i + 1:03d}", due_at=T0 - timedelta(hours=i + 1), allow_past=True)
    rt.close()
    return AssistantApp(rt.settings)


def other_process(app: AssistantApp) -> Store:
    return Store(app.runtime.store.path, Clock(UTC, app.runtime.clock.now()))


def highlighted(app: AssistantApp) -> ReminderItem:
    item = app.query_one(ReminderList).highlighted_child
    assert isinstance(item, ReminderItem)
    return item


def in_view(app: AssistantApp, item: Widget) -> bool:
    """The row is on screen: what is drawn at its first and last text line is this row (not another
    widget, not the footer), and inside the sidebar."""
    region = item.region
    if region.height <= 0 or not app.screen.region.contains_region(region):
        return False
    for y in (region.y, region.bottom - 2):  # the text lines (the row ends with a blank one)
        widget, _ = app.screen.get_widget_at(region.x + 1, y)
        if widget is not item and item not in widget.ancestors:
            return False
    return True


def keys(text: str) -> list[str]:
    return ["space" if c == " " else c for c in text]


def find(app: AssistantApp, content: str) -> Memory:
    row = app.runtime.store.one("SELECT id FROM knowledge WHERE content = ?", (content,))
    return present(memories.get_memory(app.runtime.store, row[0]))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_highlight_stays_in_view_and_enter_opens_what_is_seen(tmp_path: Path, size: tuple[int, int]) -> None:
    app = many_app(tmp_path)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot, app)
        app.notify("A notice that stays a while, long enough to wrap over a few lines of the screen " * 2,
                   timeout=60)  # toasts must not hide the highlighted row either
        await pilot.press("ctrl+l")
        for _ in range(20):
            await pilot.press("down")
            await pilot.pause()
            assert in_view(app, highlighted(app)), highlighted(app).reminder.content
        assert highlighted(app).reminder.content == "Task 21"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DetailScreen), what="details")
        assert "Task 21" in str(app.screen.query_one("#detail-text").render())


async def test_the_highlight_stays_on_its_reminder_through_insertions_removals_and_due_notices(tmp_path: Path) -> None:
    app = many_app(tmp_path, count=8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+l", "down", "down", "down")
        assert present(app.main_screen.sidebar.selected).content == "Task 04"
        with other_process(app) as cli:  # inserted above it
            memories.remember(cli, "Feed the cat", due_at=T0 + timedelta(minutes=30))
        await wait_until(pilot, lambda: "Feed the cat" in sidebar_text(app), timeout=3)
        await settle(pilot, app)
        assert highlighted(app).reminder.content == "Task 04"
        with other_process(app) as cli:  # one above it removed
            memories.forget(cli, find(app, "Task 02").id)
        await wait_until(pilot, lambda: "Task 02" not in sidebar_text(app), timeout=3)
        await settle(pilot, app)
        assert highlighted(app).reminder.content == "Task 04"
        # Two fall due: the notices come, the rows are redrawn ("overdue"), the highlight stays.
        app.runtime.clock.fixed = T0 + timedelta(hours=1, seconds=1)
        await wait_until(pilot, lambda: any("Task 01" in n for n in notices(app)), timeout=3, what="due notice")
        await settle(pilot, app)
        assert highlighted(app).reminder.content == "Task 04"
        await pilot.press("d")
        await settle(pilot, app)
        assert find(app, "Task 04").done_at is not None
        assert find(app, "Task 03").done_at is None and find(app, "Task 05").done_at is None
        # The done one is gone: the highlight is on the one now in its place, and in view.
        assert highlighted(app).reminder.content == "Task 05" and in_view(app, highlighted(app))


async def test_after_undo_the_highlight_is_on_the_reminder_that_came_back(tmp_path: Path) -> None:
    app = many_app(tmp_path, count=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+l", "down", "down")
        await pilot.press("d")
        await settle(pilot, app)
        assert find(app, "Task 03").done_at is not None
        await pilot.press("down")  # to Task 05
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert find(app, "Task 03").done_at is None
        assert highlighted(app).reminder.content == "Task 03" and in_view(app, highlighted(app))
        await pilot.press("s")
        # The dialog is the screen before its lines are composed: wait for its title.
        await wait_until(pilot, lambda: isinstance(app.screen, SnoozeScreen) and app.screen.query(".screen-title"),
                         what="snooze")
        assert "Task 03" in str(app.screen.query_one(".screen-title").render())


async def test_a_sentence_typed_into_the_list_reaches_the_message_box_whole(tmp_path: Path) -> None:
    app = many_app(tmp_path, count=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        for sentence in ("show me", "done with that", "d"):
            app.main_screen.composer.clear()
            await pilot.press("ctrl+l", *keys(sentence))
            if sentence == "d":  # a lone letter acts, after its pause
                await settle(pilot, app)
                assert find(app, "Task 01").done_at is not None
                assert app.main_screen.composer.text == ""
                continue
            await settle(pilot, app)
            assert isinstance(app.focused, Composer)
            assert app.main_screen.composer.text == sentence
            assert app.screen is app.main_screen  # no snooze dialog
            assert all(find(app, f"Task {i:02d}").done_at is None for i in (1, 2, 3))
            assert find(app, "Task 01").due_at == "2026-11-22T15:00:00+00:00"  # not snoozed


async def test_a_sentence_arriving_in_one_burst_changes_no_reminder_and_loses_no_letter(tmp_path: Path) -> None:
    """A newcomer's: a sentence pasted without bracketed paste (or keys arriving in a batch over ssh) into the
    list reached the box without its last letter, and that letter ("d", "s") acted on a reminder: every key of
    the burst was the list's before the focus moved, and the last one waited as a list letter, then acted."""
    from textual import events

    app = many_app(tmp_path, count=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        for sentence in ("we went to bed", "Tom likes cats"):
            app.main_screen.composer.clear()
            await pilot.press("ctrl+l")
            await settle(pilot, app)
            driver = app._driver
            assert driver is not None
            for key in keys(sentence):  # all at once, as a terminal delivers a paste: no pause between keys
                event = events.Key(key, " " if key == "space" else key)
                event.set_sender(app)
                driver.send_message(event)
            await pilot.pause(0.6)
            await settle(pilot, app)
            assert app.main_screen.composer.text == sentence
            assert app.screen is app.main_screen  # no snooze dialog
            assert all(find(app, f"Task {i:02d}").done_at is None for i in (1, 2, 3))


async def test_ctrl_z_in_the_message_box_undoes_a_done_said_in_the_chat(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="offline")
    memories.remember(rt.store, "stretch", due_at=T0 + timedelta(hours=1))
    rt.close()
    app = AssistantApp(rt.settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "done with stretch")
        assert find(app, "stretch").done_at is not None
        assert isinstance(app.focused, Composer) and app.main_screen.composer.text == ""
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert find(app, "stretch").done_at is None
        assert app.main_screen.composer.text == ""  # the sent message did not come back
        assert any(n.startswith("Undone: #") and "stretch" in n for n in notices(app))
        assert "stretch" in sidebar_text(app)


async def test_ctrl_z_in_the_message_box_undoes_a_change_made_while_a_draft_waited(tmp_path: Path) -> None:
    """A draft typed before a reminder changed is not the box's to undo: ctrl+z puts the reminder back
    and keeps the draft; once the draft is edited, ctrl+z is the box's own again."""
    app = many_app(tmp_path, count=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press(*keys("a draft"), "ctrl+l", "d")
        await settle(pilot, app)
        assert find(app, "Task 01").done_at is not None
        await pilot.press("escape", "ctrl+z")
        await settle(pilot, app)
        assert find(app, "Task 01").done_at is None and app.main_screen.composer.text == "a draft"
        await pilot.press("!", "ctrl+z")
        await settle(pilot, app)
        assert app.main_screen.composer.text == "a draft" and find(app, "Task 01").done_at is None
        assert sum(n.startswith("Undone") for n in notices(app)) == 1  # the box's own undo, not another one


async def test_the_details_dialog_edits_text_and_time_and_forgets_with_undo(tmp_path: Path) -> None:
    app = many_app(tmp_path, count=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        first = find(app, "Task 01")
        await pilot.press("ctrl+l", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DetailScreen), what="details")
        await pilot.press("e")
        content = app.screen.query_one("#detail-content", Input)
        assert content.value == "Task 01" and app.focused is content
        content.value = ""
        await pilot.press(*"Call mum", "tab", *"tomorrow at 25:00", "enter")
        await settle(pilot, app)
        assert isinstance(app.screen, DetailScreen)  # a bad time: said here, nothing changed
        assert "25:00" in str(app.screen.query_one("#detail-error").render())
        assert memories.get_memory(app.runtime.store, first.id) == first
        app.screen.query_one("#detail-when", Input).value = ""
        await pilot.press(*"tomorrow at 8am", "enter")
        await settle(pilot, app)
        assert app.screen is app.main_screen  # type: ignore[comparison-overlap]  # no longer the one asserted above
        changed = present(memories.get_memory(app.runtime.store, first.id))
        assert changed.content == "Call mum" and changed.due_at == "2026-11-23T08:00:00+00:00"
        assert "Call mum" in sidebar_text(app) and "Mon Nov 23 08:00" in sidebar_text(app)
        # Forget from the dialog, then ctrl+z brings it back with its id.
        app.main_screen.sidebar.select(first.id)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DetailScreen), what="details")
        await pilot.press("f")
        await settle(pilot, app)
        with pytest.raises(NotFound):
            memories.get_memory(app.runtime.store, first.id)
        assert "Call mum" not in sidebar_text(app)
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert memories.get_memory(app.runtime.store, first.id).content == "Call mum"
        assert highlighted(app).reminder.id == first.id


async def test_many_reminders_show_the_urgent_ones_a_count_and_one_launch_notice(tmp_path: Path) -> None:
    app = many_app(tmp_path, count=150, overdue=90)  # every one within the 7-day window
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        rows = [item.reminder.content for item in app.query(ReminderItem)]
        assert len(rows) == 50
        # Overdue first (the latest of them, not last year's), then the soonest upcoming.
        assert rows[:25] == [f"Late {i:03d}" for i in range(25, 0, -1)]
        assert rows[25:] == [f"Task {i:02d}" for i in range(1, 26)]
        assert str(app.query_one("#reminder-more").render()) == "+190 more: assistant reminders"
        launch = [n for n in notices(app) if n.startswith("While the app was closed")]
        assert launch == ["While the app was closed, 90 reminders fell due; the latest: Late 001 (Sun Nov 22 13:00); "
                          "Late 002 (Sun Nov 22 12:00); Late 003 (Sun Nov 22 11:00); and 87 more."]
        lines = [str(w.render()) for w in app.main_screen.chat.chat_log.query(".reminder")]
        assert len(lines) == 1 and "90 reminders fell due" in lines[0]
    narrow = AssistantApp(app.runtime.settings)
    async with narrow.run_test(size=(80, 24)) as pilot:
        await settle(pilot, narrow)
        assert str(narrow.main_screen.bar.render()).startswith("⏰ 240 reminders · 90 overdue · next: Task 01")


async def test_at_80_columns_nothing_is_cut_mid_word_and_toasts_leave_the_message_box_free(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="offline")
    memories.remember(rt.store, "Renew the passport application before the consulate closes for the holidays",
                      due_at=T0 - timedelta(minutes=1), allow_past=True)
    memories.remember(rt.store, "Water the plants", due_at=T0 + timedelta(minutes=2))
    rt.close()
    app = AssistantApp(rt.settings)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+b")  # the list, full width
        await settle(pilot, app)
        width = app.query_one(ReminderList).region.width
        words = set()
        for item in app.query(ReminderItem):
            for line in str(item.query_one("ReminderText").render()).splitlines():
                assert len(line) <= width
                words.update(line.split())
        assert {"overdue", "1", "min", "consulate", "passport"} <= words
        await pilot.press("escape")
        await pilot.pause()
        # The footer keeps the reminder and conversation keys, each drawn whole.
        shown = {k.key: k for k in app.main_screen.footer.query(FooterKey)}
        assert {"ctrl+q", "ctrl+o", "ctrl+l", "ctrl+b", "f1"} <= set(shown)
        for key in shown.values():
            assert key.region.width >= len(key.key_display) + 1 + len(key.description), key.description
        app.runtime.clock.fixed = T0 + timedelta(minutes=2)
        await wait_until(pilot, lambda: any("Water the plants" in n for n in notices(app)), timeout=3)
        await pilot.pause(0.3)
        composer = app.main_screen.composer.region
        toasts = list(app.screen.query("Toast"))
        assert toasts
        for toast in toasts:
            assert not toast.region.overlaps(composer), (toast.region, composer)
    # The sidebar at 120 columns: the time and "overdue 1 min" are never split over two lines.
    wide = AssistantApp(rt.settings)
    async with wide.run_test(size=(120, 40)) as pilot:
        await settle(pilot, wide)
        assert "\n  Sun Nov 22 13:59 · overdue 1 min" in sidebar_text(wide)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_toasts_stand_above_the_message_box_and_beside_the_reminders(tmp_path: Path,
                                                                           size: tuple[int, int]) -> None:
    """Placed through the styles of Textual's ToastRack (ui/toasts.py): never on the message box, as it
    grows with its text, nor on the status bar; beside the sidebar on a wide screen; and where the list
    fills a narrow screen, on the right, clear of where the highlighted reminder is read."""
    app = many_app(tmp_path, count=8)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot, app)
        screen = app.main_screen
        screen.composer.insert("\n".join(f"a draft of line {i}" for i in range(6)))  # the box grows
        for i in range(3):
            app.notify(f"Notice {i}: long enough to wrap over a few lines of the toast " * 2, timeout=60)
        await pilot.pause(0.3)

        def toasts_clear_of(*widgets: Widget) -> bool:
            toasts = list(app.screen.query("Toast"))
            return bool(toasts) and all(not t.region.overlaps(w.region) for t in toasts for w in widgets)

        await wait_until(pilot, lambda: toasts_clear_of(screen.composer, screen.sidebar, screen.status),
                         what="toasts clear of the message box and the sidebar")
        assert screen.composer.region.height >= 6
        await pilot.press("ctrl+l")  # the list (the whole screen at 80 columns), a row highlighted
        await settle(pilot, app)
        await wait_until(pilot, lambda: toasts_clear_of(screen.status) and in_view(app, highlighted(app)),
                         what="toasts clear of the highlighted reminder")
        if size[0] >= 90:
            assert toasts_clear_of(screen.sidebar)


@pytest.mark.parametrize("key", ["ctrl+b", "ctrl+l"])
async def test_coming_back_to_the_list_starts_at_the_most_urgent_not_an_old_highlight(tmp_path: Path, key: str) -> None:
    """A newcomer left the highlight on one reminder, came back later with ctrl+b at 80x24 and `d`
    completed that one, not the overdue one at the top."""
    app = many_app(tmp_path, count=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+l", "down", "down", "escape")  # Task 03 highlighted, then away
        await settle(pilot, app)
        await pilot.press(key)
        await settle(pilot, app)
        assert highlighted(app).reminder.content == "Task 01"


async def test_what_lies_beyond_the_window_is_counted_in_the_sidebar_and_the_bar(tmp_path: Path) -> None:
    """A reminder moved 11 days ahead vanished from every view with no "1 later" line (issue 36)."""
    from memory import memories
    from tests.conftest import make_runtime

    rt = make_runtime(tmp_path, ASSISTANT_PROVIDER="offline")
    memories.remember(rt.store, "renew the passport", due_at="2026-12-03T09:00:00+00:00")
    rt.close()
    app = AssistantApp(rt.settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert str(app.query_one("#reminder-more").render()) == "and 1 later: next on Thu Dec 3"
        # the line continues "Nothing due in the next 7 days.", so it stands under it (a tester saw it above)
        empty, more = app.query_one("#reminder-empty"), app.query_one("#reminder-more")
        assert str(empty.render()) == "Nothing due in the next 7 days." and empty.region.y < more.region.y
        await pilot.resize_terminal(80, 24)
        await settle(pilot, app)
        assert "and 1 later: next on Thu Dec 3" in str(app.query_one("#reminder-bar").render())


@pytest.mark.parametrize("keys_before", [("ctrl+l",), ("ctrl+b",), ("ctrl+l", "down", "down"), ("ctrl+b", "end")],
                         ids=["ctrl+l", "ctrl+b", "third row", "last row"])
async def test_one_d_in_the_80x24_list_says_done_once(tmp_path: Path, keys_before: tuple[str, ...]) -> None:
    """Issue 46 saw "Done: buy milk. ctrl+z to undo." twice for one d at 80x24 (not reproduced here, by
    pilot or in tmux: this holds the count, and the toasts on screen, to one)."""
    app = many_app(tmp_path, count=5, overdue=1)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, app)
        await pilot.press(*keys_before)
        await settle(pilot, app)
        content = highlighted(app).reminder.content
        await pilot.press("d")
        await settle(pilot, app)
        await pilot.pause(0.3)
        done = [n for n in notices(app) if n.startswith("Done:")]
        assert done == [f"Done: {content}. ctrl+z to undo."]
        assert sum(str(t.render()).startswith("Done:") for t in app.screen.query("Toast")) == 1
        await pilot.press("escape")  # back to the chat: the toast moves above the message box, still one
        await pilot.pause(0.3)
        assert sum(str(t.render()).startswith("Done:") for t in app.screen.query("Toast")) == 1
