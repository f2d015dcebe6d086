"""The app's background jobs (moved here from test_hostile_input.py and test_backlog.py: they drive the
app, and the files that do are the slow ones): a store that cannot be used ends the app with one line;
bad input in a job is a notice, not the end of the app; the backlog of an import is embedded while
nobody types."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory import vectors
from memory.search.embeddings import LocalEmbedder, pending_count
from tests.test_backlog import BACKLOG, _runtime_with_backlog
from tests.test_consolidation import smart_ollama  # noqa: F401 - a fixture: the Ollama stand-in that summarises
from tests.ui_helpers import make_app, notices, settle, wait_until
from ui.app import AssistantApp

if TYPE_CHECKING:
    from ui.messages import StatusNews


async def test_the_app_ends_with_one_line_when_its_store_is_damaged(tmp_path: Path) -> None:
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


async def test_bad_input_in_a_background_job_is_a_notice_not_the_end_of_the_app(tmp_path: Path) -> None:
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


async def test_the_app_embeds_the_backlog_while_nobody_types(tmp_path: Path) -> None:
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


async def test_the_embedder_goes_after_a_quiet_while_and_the_next_key_brings_it_back(tmp_path: Path) -> None:
    """Issue 37: embedding_unload_minutes of quiet (no key, nothing embedded) unloads the model; the
    next key loads it again, and the turn after it is answered as before."""
    app = make_app(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled", ASSISTANT_EMBEDDING_UNLOAD_MINUTES="0.001")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        jobs, embedder = app.main_screen.jobs, app.runtime.embedder
        assert isinstance(embedder, LocalEmbedder)
        await pilot.press("h")
        await wait_until(pilot, lambda: embedder.loaded, timeout=30, what="the model loaded at the first key")
        await settle(pilot, app)
        jobs.maybe_unload_embedder()  # the job's minute timer, called now: 0.06 s of quiet is long enough
        await wait_until(pilot, lambda: not embedder.loaded, what="the model unloaded")
        await settle(pilot, app)
        await pilot.press("i")
        await wait_until(pilot, lambda: embedder.loaded and embedder.loads == 2, timeout=30, what="loaded again")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.main_screen.chat.chat_log.query(".answer")) == 1, what="an answer")


async def test_the_embedder_stays_while_someone_types_and_with_zero_minutes(tmp_path: Path) -> None:
    app = make_app(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled", ASSISTANT_EMBEDDING_UNLOAD_MINUTES="0")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        embedder = app.runtime.embedder
        assert isinstance(embedder, LocalEmbedder)
        await wait_until(pilot, lambda: embedder.loaded, timeout=30, what="the model loaded")
        await settle(pilot, app)
        app.main_screen.jobs.maybe_unload_embedder()
        await settle(pilot, app)
        assert embedder.loaded  # 0: never
        app.runtime.settings.embedding_unload_minutes = 60
        embedder._last_used -= 2 * 3600  # the model idle for two hours, but a key a moment ago
        app.main_screen.jobs.maybe_unload_embedder()
        await settle(pilot, app)
        assert embedder.loaded


@pytest.mark.usefixtures("smart_ollama")
async def test_consolidation_runs_in_a_child_process_and_the_app_shows_its_progress_and_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: scipy and the memory a consolidation takes leave with the process that consolidates.
    The pipeline is made to fail in this process: the run succeeds all the same, in its child."""
    import json

    from memory.consolidation import pipeline
    from memory.transfer.jsonl_import import import_records
    from tests.test_consolidation import fixture_records

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("consolidation ran in the app's own process")

    monkeypatch.setattr(pipeline.Consolidator, "run", not_here)
    app = make_app(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled", ASSISTANT_OLLAMA__MODEL="stand-in:latest")
    import_records(app.runtime.store, [json.dumps(r) for r in fixture_records()])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        said: list[str] = []
        status = app.main_screen.status
        real_news = status.news

        def news(event: StatusNews) -> None:
            said.append(event.consolidation or "")
            real_news(event)

        monkeypatch.setattr(status, "news", news)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: any(n.startswith("Consolidated ") for n in notices(app)), timeout=120,
                         what="the result")
        [result] = [n for n in notices(app) if n.startswith("Consolidated ")]
        assert "3 summaries" in result, result
        assert any(s.startswith("consolidating ") and "/" in s for s in said), said  # the child's progress
        assert said[-1] == "idle"
        assert app.runtime.store.one("SELECT count(*) FROM summaries")[0] == 3


async def test_a_consolidation_that_fails_in_its_process_is_said_and_the_app_goes_on(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        app.runtime.settings.db = str(tmp_path)  # the child is given a folder for a store: it cannot open it
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: any(n.startswith("Consolidation failed: ") for n in notices(app)),
                         timeout=60, what="the failure said")
        assert app.is_running and not app.main_screen.jobs.running


async def test_what_a_turn_wrote_is_embedded_as_it_ends_not_after_ten_quiet_seconds(tmp_path: Path) -> None:
    """A newcomer typing turn after turn never left 10 s of quiet: 53 texts waited for their embeddings,
    search found them by keywords only, and a notice covered the chat. What a turn writes is embedded as the
    turn ends, while its answer is read."""
    app = make_app(tmp_path, ASSISTANT_EMBEDDING_MODEL="bundled")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        jobs, store = app.main_screen.jobs, app.runtime.store
        jobs.embed_idle_seconds = 1e9  # the idle path never runs here
        for said in ("remember that my bike is a blue Brompton", "remember that the gym opens at 6"):
            app.main_screen.chat.composer.text = said
            await pilot.press("enter")
            await wait_until(pilot, lambda: not app.main_screen.chat.busy, timeout=30, what="the answer")
            await wait_until(pilot, lambda: pending_count(store) == 0, timeout=10, what="the turn's texts embedded")
    assert vectors.count(store) >= 6  # two turns: each message, its answer and its memory
