"""The command palette: one entry per row of the action table, with its real description."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ui import actions


class ActionCommands(Provider):
    def _entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        keymap = getattr(app, "keymap_settings", {})
        out: list[tuple[str, str, Callable[[], object]]] = []
        for a in actions.palette_actions():
            key = keymap.get(a.id, a.key)
            help_text = a.description + (f"  ({key.replace(',', ' / ')})" if key else "")
            target = app.screen_stack[0] if a.scope == "main" else app  # main-screen actions act there
            out.append((a.label, help_text, partial(target.run_action, a.action)))
        return out

    async def discover(self) -> Hits:
        for label, help_text, command in self._entries():
            yield DiscoveryHit(label, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, command in self._entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), command, help=help_text)
