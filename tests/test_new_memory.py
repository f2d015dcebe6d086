"""memory.new_memory: a memory about to be stored, checked by pydantic as it is made.

Every bad value is one InvalidInput sentence (the CLI shows it as is); several bad values name the first
in the order the checks always had; nothing bad reaches the table.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import pytest

from memory.errors import InvalidInput
from memory.memories import get_memory, insert_memory, remember
from memory.new_memory import MAX_CONTENT, NewMemory, check_field
from memory.reminders import update_memory

if TYPE_CHECKING:
    from memory.store import Store

BAD = [
    ({"content": 5}, "the memory text must be text, not int"),
    ({"content": "   \n"}, "the memory text is empty"),
    ({"content": " " * (MAX_CONTENT + 1)}, "the memory text is empty"),
    ({"content": "x" * (MAX_CONTENT + 1)},
     f"the memory text is too long ({MAX_CONTENT + 1} characters, at most {MAX_CONTENT})"),
    ({"kind": "wish"}, "unknown kind 'wish' (one of: fact, preference, event, person, mood, decision, note, "
                       "reminder)"),
    ({"kind": ["fact"]}, "unknown kind ['fact'] (one of: fact, preference, event, person, mood, decision, note, "
                         "reminder)"),
    ({"importance": 9}, "importance must be a whole number from 1 to 5, not 9"),
    ({"importance": True}, "importance must be a whole number from 1 to 5, not True"),
    ({"importance": 3.0}, "importance must be a whole number from 1 to 5, not 3.0"),
    ({"importance": "3"}, "importance must be a whole number from 1 to 5, not '3'"),
    ({"trust": 11}, "trust must be a whole number from 0 to 10, not 11"),
    ({"tension": -1}, "tension must be a whole number from 0 to 10, not -1"),
    ({"tension": False}, "tension must be a whole number from 0 to 10, not False"),
    ({"private": 1}, "private must be true or false, not 1"),
    ({"private": "no" * 100}, f"private must be true or false, not {'no' * 100!r}"[:120]),
    ({"relation": 3}, "relation must be text"),
    ({"message_ids": (1, 2)}, "message_ids must be a list of integers"),
    ({"message_ids": [1, True]}, "message_ids must be a list of integers"),
    ({"message_ids": [1, "2"]}, "message_ids must be a list of integers"),
    ({"recurrence": "DTSTART:20261124T190000\nRRULE:FREQ=WEEKLY"}, "a repeating reminder needs due_at"),
    ({"source": "pasted"}, "unknown source 'pasted' (typed, imported or mcp:<client>)"),
    ({"source": 7}, "unknown source '7' (typed, imported or mcp:<client>)"),
    ({"source": "mcp:" + "c" * 80}, f"unknown source {('mcp:' + 'c' * 80)[:40]!r} (typed, imported or mcp:<client>)"),
    ({"pinned": "yes"}, "pinned must be true or false, not 'yes'"),
]


@pytest.mark.parametrize("fields, message", BAD)
def test_each_bad_value_is_one_sentence_and_nothing_is_written(store: Store, fields: dict[str, Any],
                                                                message: str) -> None:
    values = {"content": "call the plumber", **fields}
    with pytest.raises(InvalidInput) as info:
        insert_memory(store, NewMemory(**values))
    assert str(info.value) == message
    assert store.one("SELECT count(*) FROM knowledge")[0] == 0


def test_the_positional_text_is_named_like_the_keyword_one() -> None:
    with pytest.raises(InvalidInput, match="^the memory text is empty$"):
        NewMemory("  ", kind="fact")


def test_several_bad_values_name_the_first_in_the_order_of_the_checks() -> None:
    # Values of the wrong types on purpose: what a model or a file may send (the checks refuse them).
    with pytest.raises(InvalidInput, match="^unknown kind"):
        NewMemory("x", kind="wish", importance=9, private=1, source="?")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="^trust"):  # trust and tension come before private
        NewMemory("x", private=1, tension=11, trust=11)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="^a repeating reminder needs due_at$"):  # before the source
        NewMemory("x", recurrence="RRULE:FREQ=DAILY", source="?")
    with pytest.raises(InvalidInput, match="^the memory text is empty$"):
        NewMemory("", message_ids="x", relation=1)  # type: ignore[arg-type]


def test_a_memory_is_checked_when_it_is_made_and_cannot_be_changed_after() -> None:
    with pytest.raises(InvalidInput):
        NewMemory("x", importance=0)
    new = NewMemory("  the door code  ", kind="fact")
    assert new.content == "the door code"
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.importance = 0  # type: ignore[misc]


def test_defaults_and_the_values_an_import_may_carry(store: Store) -> None:
    """An empty kind takes the default; a sequence that is not a whole number is not an error."""
    # kind "" and sequence "soon": what an import may carry, not of the declared types (on purpose)
    empty_kind = NewMemory("pay rent", kind="", due_at="2026-12-01T09:00:00Z")  # type: ignore[arg-type]
    reminder = get_memory(store, insert_memory(store, empty_kind))
    note = get_memory(store, insert_memory(store, NewMemory("rent is 900", sequence="soon")))  # type: ignore[arg-type]
    assert (reminder.kind, note.kind) == ("reminder", "note")
    assert note.sequence == reminder.sequence + 1
    kept = get_memory(store, insert_memory(store, NewMemory("said early", sequence=0, source="mcp:claude-desktop",
                                                            pinned=True)))
    assert (kept.sequence, kept.source, kept.pinned) == (0, "mcp:claude-desktop", True)


def test_one_field_alone_follows_the_same_rule(store: Store) -> None:
    assert check_field("content", "  x  ") == "x"
    with pytest.raises(InvalidInput, match=r"^importance must be a whole number from 1 to 5, not 6$"):
        check_field("importance", 6)
    with pytest.raises(InvalidInput, match=r"^unknown kind ''"):  # remember names an empty kind
        remember(store, "x", kind="")
    memory = remember(store, "x")
    with pytest.raises(InvalidInput, match="^the memory text is empty$"):
        update_memory(store, memory.id, content=" ")
    with pytest.raises(InvalidInput, match="^importance must be a whole number from 1 to 5, not 0$"):
        update_memory(store, memory.id, importance=0)
    assert get_memory(store, memory.id).content == "x"


@pytest.mark.parametrize("text", ["!!!", "((((", "* - ^"])
def test_a_typed_memory_of_signs_alone_is_refused(store: Store, text: str) -> None:
    """A re-check stored "!!!" (exit 0) that no search could find; an import still keeps what a backup holds."""
    from memory import memories

    with pytest.raises(InvalidInput, match="^the memory text has no words, only signs$"):
        memories.remember(store, text)
    assert memories.count_memories(store) == 0
