"""The iCalendar text itself: our PRODID, unfolded content lines, and where each BEGIN/END block starts
(so a bad item is reported by the line the user sees in the file)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory.errors import ImportFailed

PRODID = "-//assistant//memory reminders//EN"


@dataclass
class Block:
    """A BEGIN:...END: block of the file and the physical lines of its properties."""

    name: str
    line: int
    props: dict[str, int] = field(default_factory=dict)
    end: int = 0  # the line of its END

    def where(self, prop: str) -> str:
        return f"{prop} (line {self.props[prop]})" if prop in self.props else prop


_CONTENT_LINE = re.compile(r"([A-Za-z0-9-]+)[;:]")


def unfold(text: str) -> list[tuple[int, str]]:
    """(physical line number where it starts, unfolded content line), blank lines dropped."""
    logical: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line[:1] in (" ", "\t"):
            if not logical:
                raise ImportFailed(number, "a continuation line before any content line")
            start, content = logical[-1]
            logical[-1] = (start, content + line[1:])
        elif line.strip():
            logical.append((number, line))
    return logical


def scan(text: str) -> list[Block]:
    """Check the BEGIN/END structure; every block in file order, with the line it starts on."""
    lines = unfold(text)
    if not lines or lines[0][1].strip().upper() != "BEGIN:VCALENDAR":
        raise ImportFailed(lines[0][0] if lines else 1, "not an iCalendar file (it must start with BEGIN:VCALENDAR)")
    blocks: list[Block] = []
    stack: list[Block] = []
    for number, content in lines:
        match = _CONTENT_LINE.match(content)
        if not match or ":" not in content:
            raise ImportFailed(number, f"not an iCalendar content line: {content[:60]!r}")
        name = match.group(1).upper()
        value = content.split(":", 1)[1].strip().upper()
        if name == "BEGIN":
            if not stack and value != "VCALENDAR":
                raise ImportFailed(number, f"BEGIN:{value} outside BEGIN:VCALENDAR")
            block = Block(value, number)
            blocks.append(block)
            stack.append(block)
        elif name == "END":
            if stack and stack[-1].name == value:
                stack.pop().end = number
            elif any(b.name == value for b in stack):
                raise ImportFailed(stack[-1].line, f"BEGIN:{stack[-1].name} has no END:{stack[-1].name}")
            elif stack:
                raise ImportFailed(number, f"END:{value} does not close BEGIN:{stack[-1].name} "
                                           f"(line {stack[-1].line})")
            else:
                raise ImportFailed(number, f"END:{value} without a BEGIN")
        elif stack:
            stack[-1].props.setdefault(name, number)
        else:
            raise ImportFailed(number, "text after END:VCALENDAR")
    if stack:
        raise ImportFailed(stack[-1].line, f"BEGIN:{stack[-1].name} has no END:{stack[-1].name}")
    return blocks


def unreadable(text: str, blocks: list[Block], error: ValueError) -> ImportFailed:
    """Which component icalendar could not read: the innermost block that fails on its own."""
    from icalendar import Component

    lines = text.splitlines()
    failing = blocks[0]
    for block in blocks[1:]:
        try:
            Component.from_ical("\r\n".join(lines[block.line - 1:block.end]))
        except ValueError as exc:
            if block.end - block.line <= failing.end - failing.line or failing is blocks[0]:
                failing, error = block, exc
    what = failing.name
    for number, content in unfold("\r\n".join(lines[failing.line:failing.end - 1])):
        try:
            Component.from_ical(f"BEGIN:{failing.name}\r\n{content}\r\nEND:{failing.name}")
        except ValueError:
            what = f"{failing.name}: {content.split(':')[0].split(';')[0].upper()} (line {failing.line + number})"
            break
    return ImportFailed(failing.line, f"{what} is not readable ({error})")


def looks_like_calendar(name: str, text: str) -> bool:
    """Whether an import file is iCalendar: by its extension or by its first line."""
    if name.lower().endswith((".ics", ".ical", ".icalendar", ".ifb")):
        return True
    return text.lstrip("\ufeff \t\r\n")[:15].upper() == "BEGIN:VCALENDAR"
