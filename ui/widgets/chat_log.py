"""The chat log: a conversation of any length at the cost of a few screenfuls.

Every message is an `Entry` (its kind and text, a few hundred bytes); only the entries near the viewport
are widgets, the window. The rest wait as entries before it (`earlier`) and after it (`later`), and a
line at each end of the window says how many. Scrolling near an end of the window mounts the next page
of entries there; widgets more than a few screens away from the viewport go back to being entries. A
reopened conversation of 2,000 messages lays out one screenful, as one of 20 does; a day of turns keeps
the widget count of a few screens (a Markdown answer is a dozen widgets, and laying out Markdown is
the slow part: about a second per 5,000 characters on a busy 2-core machine).

The window reaches the newest entry while the log follows new messages (pinned); a message that
arrives while the reader is far up waits among the later entries, and ctrl+end (or sending) brings the
window back to the newest. The answer being written is never taken out of the window (`live`).
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from textual import events, on
from textual.await_complete import AwaitComplete
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult, WidgetPlacement
from textual.widget import Widget
from textual.widgets import Static

from ui.text import visible
from ui.widgets.entry import NEAR, SHOWN_CHARACTERS, Entry, budget, next_page

if TYPE_CHECKING:
    from assistant.views import MessageView

KEEP = 3.0  # screens: widgets further than this beyond the viewport go back to being entries

class UserMessage(Static):
    """What the user sent, shown exactly as typed (no markup, control characters made visible)."""

    def __init__(self, text: str) -> None:
        shown = visible(text[:SHOWN_CHARACTERS])
        if len(text) > SHOWN_CHARACTERS:
            shown += (f"\n… {len(text) - SHOWN_CHARACTERS:,} more characters, not shown here "
                      "(the whole message is saved)")
        super().__init__(shown, markup=False, classes="user-message")
        self.entry = Entry("user", text)


class ToolLine(Static):
    """A line in the chat that is not a message: a tool call, an error, a reminder falling due."""

    def __init__(self, text: str, error: bool = False, reminder: bool = False, hint: bool = False) -> None:
        prefix = "" if reminder or hint else "⚠ " if error else "↳ "
        kind = " error" if error else " reminder" if reminder else ""
        super().__init__(prefix + visible(text), markup=False, classes="tool-line" + kind)
        self.entry = Entry("line", text, "error" if error else "reminder" if reminder else "hint" if hint else "")


class PlainAnswer(Static):
    """An answer of the built-in offline mode: it quotes stored text, so it is shown literally."""

    def __init__(self, text: str = "") -> None:
        super().__init__(visible(text), markup=False, classes="answer plain")
        self.entry = Entry("plain", text)

    @property
    def text(self) -> str:
        return self.entry.text

    def append(self, chunk: str) -> None:
        self.entry.text += chunk
        self.update(visible(self.entry.text))


def answer_view(markdown: str | None = None) -> Any:
    """A model's answer (ui.widgets.answer.AnswerView, imported on first use: Markdown is slow to import)."""
    from ui.widgets.answer import AnswerView

    return AnswerView(markdown)


def entry_for(message: MessageView) -> Entry:
    """A stored message as the log keeps it: an offline answer literal, as it was shown when written (a
    Markdown view would join its lines); a model's answer Markdown."""
    if message.role == "user":
        return Entry("user", message.content)
    return Entry("plain" if message.plain else "answer", message.content)


def widget_for(entry: Entry) -> Widget:
    if entry.kind == "user":
        return UserMessage(entry.text)
    if entry.kind == "answer":
        view: Widget = answer_view(entry.text)
        return view
    if entry.kind == "plain":
        return PlainAnswer(entry.text)
    return ToolLine(entry.text, error=entry.style == "error", reminder=entry.style == "reminder",
                    hint=entry.style == "hint")


def entry_of(widget: Widget) -> Entry | None:
    """The entry a widget of the log shows (an answer's as written so far); None for anything else."""
    entry = getattr(widget, "entry", None)
    return entry if isinstance(entry, Entry) else None


class Marker(Static):
    """The line at an end of the window that says how many entries wait beyond it."""

    def __init__(self, where: Literal["earlier", "later"], entries: list[Entry], key: str) -> None:
        super().__init__("", markup=False, classes="tool-line marker")
        self.where = where
        self.key = key  # the key that goes to that end of the log
        self.say(entries)

    def say(self, entries: list[Entry]) -> None:
        messages = sum(e.is_message for e in entries)
        what = f"{messages} {self.where} message{'s' if messages != 1 else ''}" if messages else \
            f"{len(entries)} {self.where} line{'s' if len(entries) != 1 else ''}"
        if self.where == "earlier":
            self.update(f"{what} above: scroll up to read them ({self.key}: the first)")
        else:
            self.update(f"{what} below: scroll down to read them ({self.key}: the newest)")


@dataclass
class Hold:
    """Keep `widget` where it stands in the view through the next layout that `ready` accepts."""

    widget: Widget
    offset: int  # its top, in lines from the top of the view
    ready: Callable[[set[Widget]], bool]  # given the widgets laid out

    @classmethod
    def where_it_stands(cls, widget: Widget, scroll_y: float, ready: Callable[[set[Widget]], bool]) -> Hold:
        """`widget` held where it stands now, in a view scrolled to `scroll_y`."""
        return cls(widget, widget.virtual_region.y - round(scroll_y), ready)

    def settle(self, placements: list[WidgetPlacement]) -> tuple[bool, int | None]:
        """Whether this layout ends the hold, and the scroll offset that keeps the widget where it stood
        when it ends it by being ready (None: the widget is gone, or the layout is not ready yet)."""
        laid_out = {p.widget for p in placements}
        if self.widget not in laid_out or not self.widget.is_attached:
            return True, None
        if not self.ready(laid_out):
            return False, None
        region = next(p.region for p in placements if p.widget is self.widget)
        return True, max(0, region.y - self.offset)


class ChatLog(VerticalScroll):
    """The conversation. Focusable (tab) so it can be scrolled from the keyboard; anchored so that it
    follows new messages until the user scrolls up, and keeps the newest in view on resize."""

    can_focus = True

    def __init__(self, keys: tuple[str, str] = ("home", "end"), *, id: str | None = None) -> None:
        """`keys`: the keys that go to the first and to the newest entry, named by the markers."""
        super().__init__(id=id)
        self.keys = keys
        self.earlier: list[Entry] = []  # before the window, oldest first
        self.later: list[Entry] = []  # after the window, oldest first
        self.live: Widget | None = None  # the answer being written: stays a widget
        self._lock = asyncio.Lock()  # one change of the window at a time
        self._check_pending = False
        self._hold: Hold | None = None

    def on_mount(self) -> None:
        self.anchor()

    # -- what it holds ------------------------------------------------------------------------------

    @property
    def window(self) -> list[Widget]:
        """The entries shown as widgets, in order (the markers left out)."""
        return [w for w in self.children if not isinstance(w, Marker)]

    @property
    def entries(self) -> list[Entry]:
        """Every entry of the log, oldest first."""
        shown = [e for e in map(entry_of, self.window) if e is not None]
        return [*self.earlier, *shown, *self.later]

    # -- changes from the pane -------------------------------------------------------------------

    def add(self, *widgets: Widget, live: bool = False) -> AwaitComplete:
        """Add messages at the end. They are mounted when the window reaches the newest entry, else they
        wait with the later ones. A live widget (the last given: an answer about to be streamed into)
        is always mounted, the window brought back to the newest first."""
        return AwaitComplete(self._add(list(widgets), live))

    async def _add(self, widgets: list[Widget], live: bool) -> None:
        async with self._lock:
            if self.later and live:
                await self._show_end([*self.entries, *(e for e in map(entry_of, widgets[:-1]) if e)])
                widgets = widgets[-1:]
            if self.later:
                self.later.extend(e for e in map(entry_of, widgets) if e is not None)
                await self._say_markers()
                return
            await self.mount_all(widgets, before=self._marker("later"))
            if live:
                self.live = widgets[-1]
        self._schedule_check()

    def written(self) -> None:
        """The answer being written is finished: it may leave the window like any other."""
        self.live = None
        self._schedule_check()

    def show(self, entries: list[Entry], at_start: bool = False) -> AwaitComplete:
        """Put these entries in place of what is shown: the newest that lay out quickly (pinned to the
        newest), or with `at_start` the first (read from the beginning)."""
        return AwaitComplete(self._show(entries, at_start))

    async def _show(self, entries: list[Entry], at_start: bool) -> None:
        async with self._lock:
            self.live = None
            if at_start:
                await self._show_start(entries)
            else:
                await self._show_end(entries)
        self._schedule_check()

    def clear(self) -> AwaitComplete:
        """Nothing shown, nothing kept."""
        return self.show([])

    # -- scrolling ---------------------------------------------------------------------------------

    def pin(self) -> None:
        """Back to the newest message, following new ones again."""
        if self.later:
            self.run_worker(self._to_end(), group="chat-log", exclusive=True, description="show the newest messages")
            return
        self.anchor()
        self.scroll_end(animate=False, immediate=True)

    async def _to_end(self) -> None:
        async with self._lock:
            if self.later:
                await self._show_end(self.entries)
        self.anchor()
        self.scroll_end(animate=False, immediate=True)
        self._schedule_check()

    def to_start(self) -> None:
        """To the first entry of the log (no longer following new messages)."""
        if self.earlier and self.live is None:
            self.run_worker(self._to_start(), group="chat-log", exclusive=True, description="show the first messages")
            return
        self.scroll_home(animate=False, immediate=True)

    async def _to_start(self) -> None:
        async with self._lock:
            if self.earlier and self.live is None:
                await self._show_start(self.entries)
        self.scroll_home(animate=False, immediate=True)
        self._schedule_check()

    def action_scroll_home(self) -> None:
        self.to_start()

    def action_scroll_end(self) -> None:
        self.pin()

    # -- keeping the window near the viewport ------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._schedule_check()

    @on(events.Resize)
    def _schedule_check(self) -> None:
        if not self._check_pending and self.is_attached:
            self._check_pending = True
            self.call_after_refresh(self._check)

    async def _check(self) -> None:
        """One step towards a window that covers the viewport and a few screens around it: a page
        mounted where the reader is about to run out, or widgets far from the viewport let go. Each
        step changes the layout, which schedules the next check, until nothing is left to do."""
        self._check_pending = False
        height = self.scrollable_content_region.height
        if self._lock.locked() or not self.display or not self.is_attached or height <= 0 or not self.window:
            return
        async with self._lock:
            top = self.scroll_y
            below = self.max_scroll_y - top
            if self.earlier and top < NEAR * height:
                await self._mount_earlier(height)
            elif self.later and below < NEAR * height:
                await self._mount_later(height)
            else:
                await self._let_go(height)

    async def _mount_earlier(self, height: int) -> None:
        page = next_page(reversed(self.earlier), Size(self._room.width, height))
        del self.earlier[len(self.earlier) - len(page):]
        page.reverse()
        first = self.window[0]
        widgets = [widget_for(e) for e in page]
        self._hold = Hold.where_it_stands(first, self.scroll_y, lambda laid_out: widgets[0] in laid_out)
        await self.mount_all(widgets, before=first)
        await self._say_markers()

    async def _mount_later(self, height: int) -> None:
        page = next_page(iter(self.later), Size(self._room.width, height))
        del self.later[:len(page)]
        await self.mount_all([widget_for(e) for e in page], before=self._marker("later"))
        await self._say_markers()
        if not self.later:
            self._follow_at_bottom()

    async def _let_go(self, height: int) -> None:
        """Widgets more than KEEP screens away from the viewport go back to being entries."""
        keep = KEEP * height
        top, bottom = self.scroll_y, self.scroll_y + height
        window = self.window
        above: list[Widget] = []
        for widget in window:
            entry = entry_of(widget)
            if entry is None or widget is self.live or widget.virtual_region_with_margin.bottom > top - keep:
                break
            above.append(widget)
        below: list[Widget] = []
        for widget in reversed(window[len(above):]):
            entry = entry_of(widget)
            if entry is None or widget is self.live or widget.virtual_region_with_margin.y < bottom + keep:
                break
            below.append(widget)
        if not above and not below:
            return
        self.earlier.extend(e for e in map(entry_of, above) if e is not None)
        self.later[:0] = [e for e in map(entry_of, reversed(below)) if e is not None]
        if below:
            self.anchor(False)  # the newest is out of the window: reaching its bottom must not follow
        if above:
            kept = window[len(above)]
            self._hold = Hold.where_it_stands(kept, self.scroll_y, lambda laid_out: above[0] not in laid_out)
        await self.remove_children([*above, *below])
        await self._say_markers()

    def _follow_at_bottom(self) -> None:
        """The window reaches the newest entry again: follow new messages once the reader is back at
        the bottom (Textual re-anchors an anchored view scrolled to its end), not before."""
        y = self.scroll_y
        self.anchor()
        self.release_anchor()
        self.scroll_to(y=y, animate=False, immediate=True)

    # -- the view stays put while the window changes above it ----------------------------------------

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """The layout, and the scroll offset that keeps the held widget where it stood: set here, in the
        same pass, as Textual keeps an anchored view at its bottom, so no frame shows the page that was
        mounted (or let go) above the view in its place."""
        result = super().arrange(size, optimal)
        if self._hold is not None:
            over, y = self._hold.settle(result.placements)
            if over:
                self._hold = None  # (an anchored view is then kept at its bottom by Textual, after this)
            if y is not None:
                self.set_reactive(Widget.scroll_y, y)
                self.set_reactive(Widget.scroll_target_y, y)
                self.vertical_scrollbar.position = y
        return result

    # -- filling the window ----------------------------------------------------------------------

    @property
    def _room(self) -> Size:
        """The columns and lines entries are laid out in (the app's, before the log has a size of its own)."""
        region = self.scrollable_content_region
        return Size(region.width or self.app.size.width, region.height or self.app.size.height)

    async def _show_end(self, entries: list[Entry]) -> None:
        """The newest entries that fit the budget, earlier ones kept as entries."""
        chosen = budget(reversed(entries), self._room)
        self._hold = None
        await self.remove_children()
        self.earlier = list(entries[:len(entries) - chosen])
        self.later = []
        await self.mount_all([widget_for(e) for e in entries[len(entries) - chosen:]])
        await self._say_markers()
        self.anchor()

    async def _show_start(self, entries: list[Entry]) -> None:
        chosen = budget(entries, self._room)
        self._hold = None
        await self.remove_children()
        self.earlier = []
        self.later = list(entries[chosen:])
        await self.mount_all([widget_for(e) for e in entries[:chosen]])
        await self._say_markers()
        self.anchor(False)

    def _marker(self, where: str) -> Widget | None:
        return next((m for m in self.query_children(Marker) if m.where == where), None)

    async def _say_markers(self) -> None:
        """A marker at each end of the window beyond which entries wait, saying how many; none where none do."""
        for where, waiting in (("earlier", self.earlier), ("later", self.later)):
            marker = self._marker(where)
            if marker is not None and not waiting:
                await marker.remove()
            elif marker is not None:
                assert isinstance(marker, Marker)
                marker.say(waiting)
            elif waiting:
                new = Marker("earlier" if where == "earlier" else "later", waiting,
                             self.keys[0] if where == "earlier" else self.keys[1])
                window = self.window
                if where == "earlier" and window:
                    await self.mount(new, before=window[0])
                else:
                    await self.mount(new)
