"""A conversation read back shows the secrets its messages hold hidden (its answers quoted them as placeholders,
the person's own words hold them as said), and r shows the values on the person's own screen (issue 42: no
secret in the app's own words; a newcomer read their own codes in clear above answers that hid them)."""
from __future__ import annotations

from pathlib import Path

from memory import episodes
from tests.ui_helpers import make_app, settle, type_and_send, wait_until
from ui.screens.conversations import ConversationScreen, ConversationsScreen


def shown(screen: ConversationScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query("Static"))


async def test_a_read_back_answer_is_masked_until_r_reveals_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, messages=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, app, "remember that the alarm code is 4471")
        await type_and_send(pilot, app, "what is the alarm code?")
        answers = [m.content for m in episodes.episode_messages(app.runtime.store, episodes.active_episode(
            app.runtime.store).id) if m.role == "assistant"]  # type: ignore[union-attr]
        assert answers and not any("4471" in a for a in answers) and "[secret 1 of memory #" in answers[-1]
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConversationsScreen), what="conversations")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConversationScreen), what="reader")
        reader = app.screen
        assert isinstance(reader, ConversationScreen)
        await wait_until(pilot, lambda: shown(reader).count("••••") >= 2, what="hidden")
        assert "4471" not in shown(reader) and "[secret 1 of memory #" not in shown(reader)
        await pilot.press("r")
        await wait_until(pilot, lambda: shown(reader).count("4471") >= 3, what="revealed")
        await pilot.press("r")
        await wait_until(pilot, lambda: "4471" not in shown(reader), what="hidden again")
