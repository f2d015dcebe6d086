"""Issue 32 with the app running: a reminder another AI tool sets through `assistant mcp` shows in the
sidebar within 2 s (the app polls PRAGMA data_version), and ctrl+z in the app undoes that tool's last
change as any change, a memory it added included."""
from __future__ import annotations

from pathlib import Path

from memory import memories
from tests.mcp_helpers import call, server, stdio_session
from tests.ui_helpers import make_app, notices, settle, sidebar_text, wait_until


async def test_a_reminder_set_through_mcp_shows_live_and_ctrl_z_undoes_the_tools_change(tmp_path: Path) -> None:
    app = make_app(tmp_path)  # its store: tmp_path/m.db, at the tests' frozen clock
    db = str(tmp_path / "m.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert "call the bank" not in sidebar_text(app)
        async with stdio_session(server(db), client="claude-code") as s:
            made = await call(s, "remember", content="call the bank", due_at="tomorrow at 10")
            bank = int(made.split("#")[1].split(":")[0])
            took = await wait_until(pilot, lambda: "call the bank" in sidebar_text(app), timeout=5,
                                    what="the sidebar to show the reminder set over MCP")
            assert took < 2.0
            await call(s, "done", id=bank)
            await wait_until(pilot, lambda: "call the bank" not in sidebar_text(app), timeout=5,
                             what="the sidebar to drop the reminder done over MCP")
        assert memories.get_memory(app.runtime.store, bank).source == "mcp:claude-code"
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: "call the bank" in sidebar_text(app), timeout=5,
                         what="ctrl+z to bring the reminder back")
        assert memories.get_memory(app.runtime.store, bank).done_at is None
        # A reminder the other tool adds is a change too: ctrl+z takes it away again.
        async with stdio_session(server(db), client="claude-code") as s:
            await call(s, "remember", content="renew the parking permit", due_at="tomorrow at 9")
        await wait_until(pilot, lambda: "renew the parking permit" in sidebar_text(app), timeout=5,
                         what="the second reminder")
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: "renew the parking permit" not in sidebar_text(app), timeout=5,
                         what="ctrl+z to take the added reminder away")
        await wait_until(pilot, lambda: any("is gone again" in n for n in notices(app)), timeout=5,
                         what="the undo notice")
