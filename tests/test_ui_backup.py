"""The app and the replica (SPEC F16): with a replica set, the app starts the store's replicator when none
runs and stops its own at quit after a last sync, within the quit's budget. The real litestream binary."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from assistant.backup.place import holder, place_of
from tests.test_backup import needs_litestream
from tests.ui_helpers import make_app, wait_until


@needs_litestream
async def test_the_app_replicates_while_it_runs_and_stops_its_replicator_at_quit(tmp_path: Path) -> None:
    app = make_app(tmp_path, ASSISTANT_BACKUP__REPLICA=f"file://{tmp_path / 'replica'}")
    place = place_of(app.runtime.settings.db_path())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.services.backup.keeper is not None and app.services.backup.keeper.owns,
                         timeout=30, what="the replicator to start")
        assert holder(place) is not None
        await wait_until(pilot, lambda: any((tmp_path / "replica").rglob("*.ltx")), timeout=30,
                         what="the first copy in the replica")
        began = time.monotonic()
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert time.monotonic() - began < 2.5  # the conversation closed, a last sync, within the quit's budget
    assert app.services.backup.keeper is not None and not app.services.backup.keeper.owns
    pytest.importorskip("fcntl")
    deadline = time.monotonic() + 15  # Litestream's own last sync as it stops, on its own time
    while holder(place) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert holder(place) is None
