"""The app's background jobs (moved here from test_hostile_input.py and test_backlog.py: they drive the
app, and the files that do are the slow ones): a store that cannot be used ends the app with one line;
bad input in a job is a notice, not the end of the app; the backlog of an import is embedded while
nobody types."""
from __future__ import annotations

from memory import vectors
from memory.search.embeddings import pending_count
from tests.test_backlog import BACKLOG, _runtime_with_backlog
from tests.ui_helpers import make_app, notices, settle, wait_until
from ui.app import AssistantApp


async def test_the_app_ends_with_one_line_when_its_store_is_damaged(tmp_path):
    import sqlite3

    app = make_app(tmp_path)
    path = app.runtime.settings.db_path()
    app.runtime.store.close()
    del app.runtime.__dict__["store"]
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(path, "r+b") as handle:  # the schema page is overwritten: nothing can be read
        handle.seek(100)
        handle.write(b"\xde\xad" * 1500)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(100):
            if app.exit_line:
                break
            await pilot.pause(0.05)
    assert app.return_code == 1
    assert "cannot be read" in app.exit_line and "assistant doctor" in app.exit_line


async def test_bad_input_in_a_background_job_is_a_notice_not_the_end_of_the_app(tmp_path):
    """Issue 20, item 5: continuing a conversation that no longer exists (forgotten in another window)
    ended the app with exit 1; only a store that cannot be used may end it."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.main_screen.chat.continue_conversation(99999)
        await wait_until(pilot, lambda: any("no episode with id 99999" in n for n in notices(app)),
                         what="a notice")
        assert app.is_running and not app.exit_line
        app.main_screen.composer.insert("still here")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.main_screen.chat.chat_log.query(".answer")) == 1, what="an answer")


async def test_the_app_embeds_the_backlog_while_nobody_types(tmp_path):
    runtime, embedder, _ = _runtime_with_backlog(tmp_path, ASSISTANT_PROVIDER="offline")
    app = AssistantApp(runtime.settings, embedder=embedder)
    async with app.run_test(size=(100, 30)) as pilot:
        app.main_screen.jobs.embed_idle_seconds = 1000.0
        await app.workers.wait_for_complete()
        texts = embedder.texts
        app.main_screen.jobs.embed_while_idle()  # someone typed a moment ago: nothing is embedded
        await app.workers.wait_for_complete()
        assert embedder.texts == texts and pending_count(runtime.store) > 0
        app.main_screen.jobs.embed_idle_seconds = 0.0
        app.main_screen.jobs.embed_while_idle()
        await wait_until(pilot, lambda: pending_count(runtime.store) == 0, timeout=120, what="the backlog embedded")
    assert vectors.count(runtime.store) == BACKLOG
