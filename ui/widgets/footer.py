"""The footer: Textual's, thinned out on narrow terminals."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ui import actions


class KeyFooter(Footer):
    """Textual's footer, thinned out on narrow terminals to the keys marked essential in the table."""

    narrow = reactive(False)

    def watch_narrow(self) -> None:
        self.compact = self.narrow
        if self.is_attached and self._bindings_ready:
            self.call_after_refresh(self.recompose)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        keep = actions.narrow_ids()
        active = self.screen.active_bindings
        # The focused widget's own keys first (d, s while in the list), then the screen's and the app's,
        # in table order; keys that do not fit the width are left out rather than cut in half (f1 lists
        # them all).
        general = (self.app, self.screen)
        ordered = sorted(active.values(), key=lambda b: (b[0] in general, actions.footer_rank(b[1].id)))
        budget = self.app.size.width - (0 if self.narrow else 14)

        def width(binding: Binding) -> int:
            return len(self.app.get_key_display(binding)) + len(binding.description) + (2 if self.narrow else 4)

        # The key that lists every other is the last to give way: room for it is kept until it is placed.
        help_key = next((b for _n, b, _e, _t in ordered if b.id == actions.HELP_ID and b.show), None)
        reserved = width(help_key) if help_key is not None else 0
        seen: set[str] = set()
        keys = []
        for node, binding, enabled, tooltip in ordered:
            if not binding.show or binding.action in seen:
                continue
            if self.narrow and node in general and binding.id not in keep:
                continue
            if binding is help_key:
                reserved = 0
            if width(binding) > budget - reserved:
                continue
            budget -= width(binding)
            seen.add(binding.action)
            keys.append((binding, enabled, tooltip))
        self.styles.grid_size_columns = max(1, len(keys))
        for binding, enabled, tooltip in keys:
            key = FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip or binding.tooltip)
            # Set, not data_bind(compact=...) as Textual's footer does: a bound key stays among the
            # footer's watchers until `compact` changes, and the footer is composed again at every
            # change of screen or focus (11 keys kept alive each time, 700 after a day's 500 turns).
            # A change of `narrow` composes the keys again anyway.
            key.compact = self.compact
            yield key
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and not self.narrow:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, tooltip = palette
                yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                                classes="-command-palette", disabled=not enabled,
                                tooltip=binding.tooltip or binding.description)

    def on_resize(self) -> None:
        if self._bindings_ready:
            self.call_after_refresh(self.recompose)
