"""NewMemory: a memory about to be stored, checked by pydantic as it is made.

Every writer (remember, the JSON Lines import, the calendar import) fills one and
`memory.memories.insert_memory` writes it: one set of rules, declared on the fields. A bad value raises
InvalidInput with one sentence naming it; when several are bad, the one named is the first of
`_PRECEDENCE` (the order the checks had when they were written by hand, which tests and the CLI show).

Its own module, imported by the code that writes: pydantic and the building of this validator take
about 80 ms, which the commands that only read (`reminders`, `status`) must not pay.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, get_type_hints

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.dataclasses import dataclass

from memory.errors import InvalidInput
from memory.schema import KINDS, Kind

MAX_CONTENT = 100_000  # characters; a memory is a note, not a document
SOURCES = ("typed", "imported", "mcp")  # "mcp" carries its client: "mcp:claude-desktop"


def _has_text(text: str) -> str:
    if not text.strip():
        raise ValueError("empty")
    return text


def _known_source(source: str) -> str:
    if source.split(":", 1)[0] not in SOURCES:
        raise ValueError("unknown")
    return source


# Applied in this order: words before length (a megabyte of spaces is "empty", not "too long"), and the
# length is the text's as given.
Content = Annotated[str, AfterValidator(_has_text), Field(max_length=MAX_CONTENT), AfterValidator(str.strip)]
Importance = Annotated[int, Field(ge=1, le=5)]
Scale = Annotated[int, Field(ge=0, le=10)]
Source = Annotated[str, Field(max_length=80), AfterValidator(_known_source)]


@dataclass(config=ConfigDict(strict=True), frozen=True)
class NewMemory:
    content: Content  # stored without its surrounding blanks
    kind: Kind | None = None  # default: "reminder" with a due date, else "note"
    importance: Importance = 3
    private: bool = False
    due_at: str | None = None  # stored UTC text (resolve a phrase with memory.time.schedule first)
    reminded_at: str | None = None
    done_at: str | None = None
    message_ids: list[int] = dataclasses.field(default_factory=list)
    sequence: int | None = None  # default (and for anything not a whole number): after everything so far
    created_at: str | None = None  # default: now
    updated_at: str | None = None  # default: created_at
    relation: str | None = None
    trust: Scale | None = None
    tension: Scale | None = None
    recurrence: str | None = None  # stored RFC 5545 text of a repeating reminder
    occurrence_at: str | None = None  # default for a repeating reminder: due_at
    time_refs: list[dict[str, Any]] | None = None  # default: resolved from the text when it was written
    uid: str | None = None  # the identity of a row that came from elsewhere (an export, a calendar UID)
    id: int | None = None  # kept when free (an import reproduces an export's ids)
    sensitive: bool | None = None  # default: what the detector finds in the text; True when a caller knows
    source: Source = "typed"  # typed | imported | mcp:<client>
    pinned: bool = False

    @field_validator("kind", mode="before")
    @classmethod
    def _default_kind(cls, kind: Any) -> Any:
        return kind or None  # "" (an import's empty field) takes the default too

    @field_validator("sequence", mode="before")
    @classmethod
    def _whole_sequence(cls, sequence: Any) -> Any:
        # An import's sequence of another type is not an error: the memory goes after everything so far.
        return sequence if isinstance(sequence, int) and not isinstance(sequence, bool) else None

    @field_validator("recurrence")
    @classmethod
    def _recurrence_needs_due(cls, recurrence: str | None, info: ValidationInfo) -> str | None:
        if recurrence and not info.data.get("due_at"):
            raise ValueError("a repeating reminder needs due_at")
        return recurrence

    @model_validator(mode="wrap")
    @classmethod
    def _one_sentence(cls, values: Any, handler: Any) -> Any:
        try:
            return handler(values)
        except ValidationError as exc:
            named: dict[str, Mapping[str, Any]] = {}
            for error in exc.errors():
                named.setdefault(_field_name(error), error)
            first = min(named, key=lambda name: _PRECEDENCE.index(name) if name in _PRECEDENCE else len(_PRECEDENCE))
            # InvalidInput is not a ValueError: pydantic lets it out of the constructor as it is.
            raise InvalidInput(problem(first, named[first])) from None


_PRECEDENCE = ("content", "kind", "importance", "trust", "tension", "private", "relation", "message_ids",
               "recurrence", "source")
_FIELDS = tuple(f.name for f in dataclasses.fields(NewMemory))


def _field_name(error: Mapping[str, Any]) -> str:
    where = error["loc"][0] if error["loc"] else ""
    return _FIELDS[where] if isinstance(where, int) else where  # a positional argument is named by its place


def problem(name: str, error: Mapping[str, Any]) -> str:
    """The sentence that says what is wrong with one field."""
    value = error["input"]
    if name == "content":
        if error["type"] == "value_error":
            return "the memory text is empty"
        if error["type"] == "too_long":
            return f"the memory text is too long ({len(value)} characters, at most {MAX_CONTENT})"
        return f"the memory text must be text, not {type(value).__name__}"
    if name == "kind":
        return f"unknown kind {value!r} (one of: {', '.join(KINDS)})"
    if name == "importance":
        return f"importance must be a whole number from 1 to 5, not {value!r}"
    if name in ("trust", "tension"):
        return f"{name} must be a whole number from 0 to 10, not {value!r}"
    if name in ("private", "pinned", "sensitive"):
        return f"{name} must be true or false, not {value!r}"[:120]
    if name == "relation":
        return "relation must be text"
    if name == "message_ids":
        return "message_ids must be a list of integers"
    if name == "recurrence" and error["type"] == "value_error":
        return "a repeating reminder needs due_at"
    if name == "source":
        return f"unknown source {str(value)[:40]!r} (typed, imported or mcp:<client>)"
    return f"{name}: {error['msg']}"[:160]


@cache
def _field_check(name: str) -> TypeAdapter[Any]:
    return TypeAdapter(get_type_hints(NewMemory, include_extras=True)[name], config=ConfigDict(strict=True))


def check_field(name: str, value: Any) -> Any:
    """One field checked alone by the rule NewMemory holds it to (an edit changes one field, and `remember`
    names a bad text or kind before a bad date); returns the value as it would be stored."""
    try:
        return _field_check(name).validate_python(value)
    except ValidationError as exc:
        raise InvalidInput(problem(name, exc.errors()[0])) from None
