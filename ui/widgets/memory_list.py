"""The list of the Memories screen: one line per memory, drawn line by line (Textual's line API), so a
list of any length is one widget and only the lines on screen are drawn. It holds the rows loaded so
far and asks for more (`NeedMore`) as the highlight or the view nears their end; the screen loads the
next page. A secret is shown masked (the rows come masked), a search's matched words marked. And the
filters above it, one line and one widget too (six Select widgets were 36 widgets, and half of the
screen's opening time went to styling them)."""
from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from assistant.views import MemoryRow
from memory.schema import KINDS, TIERS
from ui.text import visible

AHEAD = 40  # rows left below the highlight or the view when the next page is asked for
# Each column as wide as its longest word and a space ("archived" ran into "secret", "preference" into "hot").
KIND_WIDTH = max(map(len, KINDS)) + 1
TIER_WIDTH = max(map(len, TIERS)) + 1


NARROW = 100  # columns under which a row leaves out the weekday and the tier, for its text (80x24: 38 -> 53)


def row_text(row: MemoryRow, narrow: bool = False) -> Text:
    """The line of one memory: when, kind, tier, marks (and what replaced it), then its text (matched words
    marked). `narrow`: without the weekday and the tier (the filters and the opened memory still say it), so the
    text has room on a small terminal (a newcomer had to open each row at 80x24 to read it)."""
    marks = "".join(mark for flag, mark in ((row.done, "done "), (row.pinned, "pinned "), (row.private, "private "),
                                            (row.sensitive, "secret ")) if flag)
    if narrow:
        when = row.when.split(" ", 1)[-1] if row.when[:3].isalpha() and " " in row.when else row.when
        line = Text(f"{when:<13}{row.kind:<{KIND_WIDTH}}", no_wrap=True)
    else:
        line = Text(f"{row.when:<17}{row.kind:<{KIND_WIDTH}}{row.tier:<{TIER_WIDTH}}", no_wrap=True)
    if marks:
        line.append(marks, style="bold")
    if row.replaced_by is not None:
        line.append(f"replaced by #{row.replaced_by} ", style="italic")  # an older value: never read as current
    start = len(line)
    line.append(visible(row.text))
    for a, b in row.matched:
        line.stylize("reverse", start + a, start + b)
    if row.by_meaning:
        line.append("  (by meaning)", style="italic dim")
    if row.source != "typed":
        line.append(f"  [{row.source}]", style="dim")
    return line


class MemoryList(ScrollView, can_focus=True):
    """Rows of memories; up/down/page keys move the highlight, enter (or a second click) opens one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False), Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False),
        Binding("home", "ends(0)", show=False), Binding("end", "ends(1)", show=False),
        Binding("enter", "open", show=False)]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"memory-list--highlight"}
    DEFAULT_CSS = """
    MemoryList { height: 1fr; }
    MemoryList > .memory-list--highlight { background: $accent 30%; }
    MemoryList:focus > .memory-list--highlight { background: $accent 60%; text-style: bold; }
    """

    highlighted: reactive[int] = reactive(0)

    class NeedMore(Message):
        """The highlight or the view is near the end of what is loaded."""

    class Opened(Message):
        def __init__(self, row: MemoryRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[MemoryRow] = []
        self.more = False  # the store has rows after the last one loaded

    # -- what it holds --------------------------------------------------------------------------

    def show(self, rows: list[MemoryRow], more: bool) -> None:
        """A new list (a new search or filter): the highlight goes to its first row."""
        self.rows, self.more = list(rows), more
        self.highlighted = 0
        self._resized()
        self.scroll_to(0, 0, animate=False)

    def add_rows(self, rows: list[MemoryRow], more: bool) -> None:
        self.rows += rows
        self.more = more
        self._resized()

    def replace(self, row: MemoryRow) -> None:
        for index, old in enumerate(self.rows):
            if old.id == row.id:
                self.rows[index] = row
                self.refresh()
                return

    def drop(self, memory_id: int) -> None:
        self.rows = [r for r in self.rows if r.id != memory_id]
        self.highlighted = min(self.highlighted, max(0, len(self.rows) - 1))
        self._resized()

    def select(self, memory_id: int) -> bool:
        for index, row in enumerate(self.rows):
            if row.id == memory_id:
                self.highlighted = index
                return True
        return False

    @property
    def selected(self) -> MemoryRow | None:
        return self.rows[self.highlighted] if 0 <= self.highlighted < len(self.rows) else None

    def _resized(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows))
        self.refresh()

    # -- drawing --------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width  # the scrollbar's columns are not the row's
        base = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, base)
        text = row_text(self.rows[index], narrow=width < NARROW)
        text.truncate(width, overflow="ellipsis")
        if index == self.highlighted:
            text.stylize(self.get_component_rich_style("memory-list--highlight"))
        text.stylize_before(base if isinstance(base, Style) else Style())
        strip = Strip(text.render(self.app.console), text.cell_len)
        return strip.extend_cell_length(width, base).crop(0, width)

    def watch_highlighted(self, old: int, new: int) -> None:
        self.scroll_to_region(Region(0, new, max(1, self.size.width), 1), animate=False, immediate=True)
        self.refresh()
        self._maybe_more(new)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._maybe_more(int(new) + self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._resized()

    def _maybe_more(self, position: int) -> None:
        if self.more and position >= len(self.rows) - AHEAD:
            self.post_message(self.NeedMore())

    # -- keys and clicks --------------------------------------------------------------------------

    def _move_to(self, index: int) -> None:
        if self.rows:
            self.highlighted = max(0, min(len(self.rows) - 1, index))

    def action_move(self, step: int) -> None:
        self._move_to(self.highlighted + step)

    def action_page(self, direction: int) -> None:
        self._move_to(self.highlighted + direction * max(1, self.size.height - 1))

    def action_ends(self, last: int) -> None:
        self._move_to(len(self.rows) - 1 if last else 0)

    def action_open(self) -> None:
        row = self.selected
        if row is not None:
            self.post_message(self.Opened(row))

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < len(self.rows):
            if index == self.highlighted and event.chain >= 2:
                self.action_open()
            self.highlighted = index


class FilterBar(Widget, can_focus=True):
    """The Memories screen's filters on one line, one widget: left/right choose a filter, up/down (or
    space) change its value, a click changes the one under the mouse. Says what it holds with Changed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "field(-1)", show=False), Binding("right", "field(1)", show=False),
        Binding("down,space", "cycle(1)", show=False), Binding("up", "cycle(-1)", show=False)]
    DEFAULT_CSS = """
    FilterBar { height: auto; }
    FilterBar > .filter-bar--current { text-style: reverse; }
    FilterBar:focus > .filter-bar--current { background: $accent; color: $text; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"filter-bar--current"}

    field: reactive[int] = reactive(0)

    class Changed(Message):
        def __init__(self, values: dict[str, str]) -> None:
            super().__init__()
            self.values = values  # filter name -> value ("" for any)

    def __init__(self, fields: list[tuple[str, str, list[tuple[str, str]]]], *, id: str | None = None) -> None:
        """`fields`: (name, label, [(shown, value)]); the first option of each is "any" (value "")."""
        super().__init__(id=id)
        self.fields = fields
        self.chosen = [0] * len(fields)

    @property
    def values(self) -> dict[str, str]:
        return {name: options[self.chosen[i]][1] for i, (name, _, options) in enumerate(self.fields)}

    def _parts(self) -> list[str]:
        return [f"{label}: {options[self.chosen[i]][0]}" for i, (_, label, options) in enumerate(self.fields)]

    def _lines(self, width: int) -> list[list[int]]:
        """The filters (their indexes) on each line: one line when they fit, else as many as they need
        (at 80 columns "kind: preference" and "source: imported" pushed the last one off)."""
        lines: list[list[int]] = [[]]
        used = 0
        for i, part in enumerate(self._parts()):
            if lines[-1] and used + 2 + len(part) > width:
                lines.append([])
                used = 0
            used += (2 if lines[-1] else 0) + len(part)
            lines[-1].append(i)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Text:
        parts = self._parts()
        out = Text(no_wrap=True, overflow="ellipsis")
        for n, line in enumerate(self._lines(self.content_size.width or 80)):
            if n:
                out.append("\n")
            for k, i in enumerate(line):
                if k:
                    out.append("  ")
                current = self.get_component_rich_style("filter-bar--current") if i == self.field else ""
                out.append(parts[i], style=current)
        return out

    def watch_field(self) -> None:
        self.refresh()

    def action_field(self, step: int) -> None:
        self.field = (self.field + step) % len(self.fields)

    def action_cycle(self, step: int) -> None:
        options = self.fields[self.field][2]
        self.chosen[self.field] = (self.chosen[self.field] + step) % len(options)
        self.refresh(layout=True)  # a longer value may take the bar to a second line
        self.post_message(self.Changed(self.values))

    def on_click(self, event: events.Click) -> None:
        parts = self._parts()
        lines = self._lines(self.content_size.width or 80)
        position = 0
        for i in lines[event.y] if 0 <= event.y < len(lines) else []:
            if position <= event.x < position + len(parts[i]):
                self.field = i
                self.action_cycle(1)
                return
            position += len(parts[i]) + 2
