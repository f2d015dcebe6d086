"""The keyboard and the screen as people use them (issue 10): focus and Escape, scrolling and
pinning, resize, newline, welcome, persisted history and theme, one table for palette/help/footer,
copy, literal text, the narrow layout, and closing an idle conversation in the background."""
from __future__ import annotations

import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual import events
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit
from textual.widgets._footer import FooterKey

from assistant.paths import history_file
from tests.conftest import make_runtime, present
from tests.ui_helpers import make_app, notices, settle, type_and_send, wait_until
from ui import actions
from ui.app import AssistantApp
from ui.commands import ActionCommands
from ui.screens.dialogs import DetailScreen, HelpScreen
from ui.widgets.chat import ChatLog, UserMessage
from ui.widgets.composer import Composer
from ui.widgets.reminders import ReminderList
from ui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from assistant.runtime import Runtime


async def test_escape_returns_to_the_message_box_and_letters_never_act_there(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+l")
        assert isinstance(app.focused, ReminderList)
        footer_keys = {k.key for k in app.main_screen.footer.query(FooterKey)}
        assert {"d", "s"} <= footer_keys  # the list's letters are shown while it has the focus
        await pilot.press("escape")
        assert isinstance(app.focused, Composer)
        await pilot.pause()
        assert not {"d", "s"} & {k.key for k in app.main_screen.footer.query("FooterKey")}
        await pilot.press(*"ok sure")  # typed in the message box: no dialog, nothing done
        await settle(pilot, app)
        assert app.main_screen.composer.text == "ok sure" and app.screen is app.main_screen
        # A letter typed while the list has the focus goes to the message box (d and s stay list keys).
        app.main_screen.composer.clear()
        await pilot.press("ctrl+l", "o", "k")
        assert isinstance(app.focused, Composer) and app.main_screen.composer.text == "ok"
        # Escape in a dialog closes the dialog first; the next one returns to the message box.
        await pilot.press("ctrl+l", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DetailScreen), what="details dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        assert isinstance(app.focused, ReminderList)
        await pilot.press("escape")
        assert isinstance(app.focused, Composer)


async def test_tab_reaches_the_chat_which_shows_it_has_the_focus(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("shift+tab")
        assert isinstance(app.focused, ChatLog)
        assert app.main_screen.chat.chat_log.styles.border_left[0] != app.main_screen.composer.styles.border_left[0] or app.main_screen.chat.chat_log.has_focus
        assert app.main_screen.chat.chat_log.styles.border_left[0] == "thick"  # the focused pane is marked


async def fill_chat(app: AssistantApp, n: int = 60) -> None:
    await app.main_screen.chat.chat_log.mount_all([UserMessage(f"note line {i:02d}") for i in range(1, n + 1)])


async def test_page_keys_scroll_while_typing_and_the_chat_stays_pinned(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await fill_chat(app)
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.max_scroll_y > 0 and app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y,
                         what="pinned to the newest")
        app.main_screen.composer.insert("half a thought")
        await pilot.press("pageup", "pageup")
        assert isinstance(app.focused, Composer) and app.main_screen.composer.text == "half a thought"
        assert app.main_screen.chat.chat_log.scroll_y < app.main_screen.chat.chat_log.max_scroll_y - 10
        # Not pinned any more: what arrives does not pull the view down.
        where = app.main_screen.chat.chat_log.scroll_y
        await app.main_screen.chat.chat_log.mount(UserMessage("arrives while reading"))
        await pilot.pause()
        assert app.main_screen.chat.chat_log.scroll_y == where
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y)
        await app.main_screen.chat.chat_log.mount(UserMessage("follows again"))
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y, what="following again")
        # Home/End on an empty message box jump through the chat; with text they move the cursor.
        app.main_screen.composer.clear()
        await pilot.press("home")
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == 0, what="top")
        await pilot.press("end")
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y, what="bottom")
        await pilot.press("pageup")
        await pilot.press(*["pagedown"] * 3)
        await mount_and_check_followed(pilot, app)


async def mount_and_check_followed(pilot: Pilot[int], app: AssistantApp) -> None:
    await app.main_screen.chat.chat_log.mount(UserMessage("newest"))
    await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y, what="paging down re-pins")


async def test_mouse_wheel_scrolls_the_chat(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await fill_chat(app)
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y > 0)
        before = app.main_screen.chat.chat_log.scroll_y
        await pilot._post_mouse_events([events.MouseScrollUp], ChatLog, offset=(5, 5))  # no public pilot wheel
        await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y < before, what="wheel scroll")


async def test_sending_and_resizing_keep_the_newest_message_in_view(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await fill_chat(app)
        await pilot.press("pageup", "pageup")  # reading old lines, then sending brings you back down
        await type_and_send(pilot, app, "remember that zebra stripes are unique")
        newest = list(app.main_screen.chat.chat_log.children)[-1]
        for size in ((80, 24), (50, 15), (100, 30)):
            await pilot.resize_terminal(*size)
            await wait_until(pilot, lambda: app.main_screen.chat.chat_log.scroll_y == app.main_screen.chat.chat_log.max_scroll_y, what=f"pinned at {size}")
            assert newest.region.bottom <= app.main_screen.chat.chat_log.region.bottom  # visible, not below the fold


async def test_newline_key_and_enter_sends_both_lines(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"first", "ctrl+j", *"second")
        assert app.main_screen.composer.text == "first\nsecond"
        await pilot.press("shift+enter", *"third")
        assert app.main_screen.composer.text == "first\nsecond\nthird"
        await pilot.press("enter")
        await settle(pilot, app)
        stored = app.runtime.store.one("SELECT content FROM messages WHERE role = 'user'")[0]
        assert stored == "first\nsecond\nthird"


async def test_first_run_welcome_gives_way_once_you_type(tmp_path: Path) -> None:
    app = make_app(tmp_path, seed=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        text = app.query_one(Welcome).text
        assert "remind me to" in text and "ANTHROPIC_API_KEY" in text and "ollama serve" in text
        assert "No model connected" in text and "ctrl+r recap" in text and "f1" in text
        assert not app.main_screen.chat.chat_log.display  # the welcome stands in for the (empty) chat
        await pilot.press("h")
        await wait_until(pilot, lambda: not app.query(Welcome) and app.main_screen.chat.chat_log.display, what="welcome gone")


async def test_the_welcome_scrolls_in_a_small_terminal(tmp_path: Path) -> None:
    """At 50x15 the welcome was cut after its first paragraph and no key reached the rest."""
    app = make_app(tmp_path, seed=False)
    async with app.run_test(size=(50, 15)) as pilot:
        await settle(pilot, app)
        welcome = app.query_one(Welcome)
        assert welcome.max_scroll_y > 0 and welcome.scroll_y == 0
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: welcome.scroll_y > 0, what="welcome scrolled")
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: welcome.scroll_y == welcome.max_scroll_y, what="welcome at its end")
        assert app.query(Welcome)  # scrolling is not typing: the welcome stays


async def test_no_welcome_once_something_is_stored(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert not app.query(Welcome)


async def test_input_history_is_kept_between_launches(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "remember that the spare key is under the pot")
        await type_and_send(pilot, app, "two\nlines")
    path = history_file()
    assert path.stat().st_mode & 0o777 == 0o600
    again = AssistantApp(make_runtime(tmp_path, ASSISTANT_PROVIDER="offline").settings)
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot, again)
        await pilot.press("up")
        assert again.main_screen.composer.text == "two\nlines"
        again.main_screen.composer.move_cursor((0, 0))
        await pilot.press("up")
        assert again.main_screen.composer.text == "remember that the spare key is under the pot"


async def test_a_recalled_long_paste_is_walked_past_whole(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "short one")
        await type_and_send(pilot, app, "\n".join(f"note line {i:02d}" for i in range(60)))
        await pilot.press("up")
        assert app.main_screen.composer.text.startswith("note line 00")
        await pilot.press("up")  # unedited: straight to the entry before, wherever the cursor is
        assert app.main_screen.composer.text == "short one"
        await pilot.press("down")
        assert app.main_screen.composer.text.startswith("note line 00")
        await pilot.press("down")
        assert app.main_screen.composer.text == ""
        await pilot.press("up", "x")  # recalled with the cursor at its end, where one edits
        assert app.main_screen.composer.text.endswith("note line 59x")
        await pilot.press("down", "up", "up")  # edited: up and down only move the cursor, the edit stays
        assert app.main_screen.composer.text.startswith("note line 00") and app.main_screen.composer.text.endswith("59x")


async def test_a_draft_survives_a_walk_through_the_history(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "sent before")
        app.main_screen.composer.insert("half a thought")
        app.main_screen.composer.move_cursor((0, 0))
        await pilot.press("up")
        assert app.main_screen.composer.text == "sent before" and app.main_screen.composer.cursor_location == (0, 11)
        await pilot.press("ctrl+u")  # deletes back from the end: the recalled line is gone
        assert app.main_screen.composer.text == ""
        await pilot.press("up", "down")
        assert app.main_screen.composer.text == "half a thought"


def test_input_history_keeps_the_last_500(tmp_path: Path) -> None:
    from assistant.input_history import InputHistory

    history = InputHistory(tmp_path / "h.jsonl")
    for i in range(520):
        history.append(f"message {i}")
    again = InputHistory(tmp_path / "h.jsonl")
    assert again.load() == [f"message {i}" for i in range(20, 520)]


async def test_theme_picked_in_the_palette_is_kept(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.theme = "nord"  # what the palette's theme picker does
        await wait_until(pilot, lambda: app.runtime.settings.ui.theme == "nord", what="theme saved")
    from assistant.paths import config_file

    assert tomllib.loads(config_file().read_text())["ui"]["theme"] == "nord"
    again = AssistantApp(make_runtime(tmp_path, ASSISTANT_PROVIDER="offline").settings)
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot, again)
        assert again.theme == "nord"


async def test_palette_and_help_come_from_one_table(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        provider = ActionCommands(app.screen)
        hits: list[DiscoveryHit] = []
        async for discovered in provider.discover():
            assert isinstance(discovered, DiscoveryHit)
            hits.append(discovered)
        titles = [str(h.display) for h in hits]
        assert len(titles) == len(set(titles))  # no "Quit" twice
        assert "Conversations" in titles and "Theme" in titles and "Keys" not in titles
        for hit in hits:
            assert present(hit.help).split("  (")[0] != str(hit.display)  # a real description, not the title again
        found = []
        async for searched in provider.search("conversations"):
            assert isinstance(searched, Hit)
            found.append(str(searched.match_display))
        assert found and found[0].lower().startswith("conversations")
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        text = app.screen.plain_text
        for key in ("tab", "pageup", "ctrl+j", "ctrl+t", "escape", "ctrl+o", "ctrl+z"):
            assert key in text, key
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0, what="help scrolls at 80x24")


def test_every_table_row_is_a_binding_or_handled_by_its_widget() -> None:
    from ui.screens.conversations import ConversationScreen, ConversationsScreen
    from ui.screens.main import MainScreen
    from ui.screens.memories import MemoriesScreen, MemoryScreen
    from ui.screens.why import WhyScreen
    from ui.widgets.reminders import ReminderPanel

    owners = {"app": AssistantApp, "main": MainScreen, "reminders": ReminderPanel,
              "conversations": ConversationsScreen, "reader": ConversationScreen, "memories": MemoriesScreen,
              "memory": MemoryScreen, "why": WhyScreen}
    bound: set[str | None] = set()
    for scope in owners:
        for binding in actions.bindings(scope):
            assert isinstance(binding, Binding)
            bound.add(binding.id)
    for row in actions.ACTIONS:
        assert row.description and row.description != row.label
        if row.action and row.key:
            assert row.id in bound
            # The binding's action exists where it is bound ("screen.x" on the main screen).
            owner, name = owners[row.scope], row.action.split("(")[0]  # "chat_scroll('end')": the method
            if name.startswith("screen."):
                owner, name = MainScreen, name.removeprefix("screen.")
            assert hasattr(owner, f"action_{name}"), (row.id, owner.__name__, name)


async def test_copy_the_last_answer(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+t")
        assert "No answer to copy yet." in notices(app)
        await type_and_send(pilot, app, "remember that I like tea")
        await pilot.press("ctrl+t")
        assert app.clipboard == "Okay, I'll remember that I like tea (#3)."


async def test_user_and_stored_text_are_shown_literally(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "remember that the gate code is *77* by the <side door>")
        shown = [str(w.render()) for w in app.main_screen.chat.chat_log.query(".user-message, .answer, .tool-line")]
        assert sum("*77* by the <side door>" in s for s in shown) == 3, shown  # message, tool line, answer


async def test_narrow_terminal_folds_the_sidebar_into_one_line(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert not app.main_screen.sidebar.display and app.main_screen.bar.display
        assert str(app.main_screen.bar.render()).startswith("⏰ 2 reminders · 1 overdue · next: Call the plumber in 20 h")
        footer = app.main_screen.footer
        assert sum(k.region.width for k in footer.query("FooterKey")) <= 80
        # Memories (where a secret is shown) and the key that lists every other fit 80 columns (a newcomer found
        # no way to Memories on the 80-column screen)
        assert {"f2", "f1"} <= {k.key for k in footer.query(FooterKey)}
        await pilot.press("ctrl+b")
        assert app.main_screen.sidebar.display and isinstance(app.focused, ReminderList)
        await pilot.press("escape")
        assert not app.main_screen.sidebar.display and isinstance(app.focused, Composer)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert app.main_screen.sidebar.display and not app.main_screen.bar.display
        await pilot.resize_terminal(50, 15)
        await pilot.pause()
        assert not app.main_screen.sidebar.display
        assert sum(k.region.width for k in app.main_screen.footer.query("FooterKey")) <= 50
        assert "f1" in {k.key for k in app.main_screen.footer.query(FooterKey)}  # the last to give way


async def test_closing_an_idle_conversation_does_not_delay_the_answer(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The model title of the idle conversation (up to 30 s with Ollama) is made in the background, at the
    app's next idle time: not while an answer is written, nor between two turns (a request to the same
    local server then would throw away what it keeps of the conversation)."""
    import assistant.turn.titles
    from memory import episodes

    calls = []

    def slow_titles(runtime: Runtime, limit: int = 5) -> int:
        for episode_id in episodes.needing_titles(runtime.store, limit):
            time.sleep(2.0)
            calls.append("model")
            episodes.give_title(runtime.store, episode_id, "Model title", "Model summary")
        return 0

    monkeypatch.setattr(assistant.turn.titles, "owed_titles", slow_titles)
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "remember that I like tea")
        app.runtime.clock.fixed = app.runtime.clock.now().replace(hour=16)  # two idle hours later
        start = time.monotonic()
        app.main_screen.composer.insert("remember that I like coffee")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.main_screen.chat.chat_log.query(".answer")) == 2, what="second answer")
        assert time.monotonic() - start < 1.5  # not held up by the 2 s title
        first = app.runtime.store.one("SELECT title, ended_at FROM episodes ORDER BY id LIMIT 1 OFFSET 1")
        assert first["ended_at"] is not None
        jobs = app.main_screen.jobs
        jobs.titles_while_idle()
        await pilot.pause(0.3)
        assert calls == []  # the person was just typing: not yet
        jobs._last_input -= jobs.titles_idle_seconds  # nobody has typed for two minutes
        jobs.titles_while_idle()
        await wait_until(pilot, lambda: calls, timeout=5, what="background title")
        await settle(pilot, app)
        title = app.runtime.store.one("SELECT title FROM episodes ORDER BY id LIMIT 1 OFFSET 1")[0]
        assert title == "Model title"
        await pilot.press("ctrl+n")  # ctrl+n closes at once too, with the quick title first
        await wait_until(pilot, lambda: any(n.startswith("Saved “I like coffee”") for n in notices(app)), timeout=1.5)
