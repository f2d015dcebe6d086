"""What went into each answer, recorded when its turn ran (SPEC F12, "Why this answer"): the prompt's
sections as sent, the memories and conversations in it, what the gate withheld and why, the tool calls
and their results; for an offline answer, what the reading understood and that nothing left the machine.

One record per answer (keyed by the answer's message id, gone with it), one typed class (`TurnRecord`)
written by the turn and read by the Why view, the service and recall. It is stored as JSON and validated
when read (msgspec); records written before a field existed read with its default, and one that does not
validate reads as no record. A record is data the app wrote about a turn: it is shown on the person's
own screen, never sent to a model. Forget scrubs what a record quotes of a forgotten memory
(memory.memories.forget), and undo puts it back.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any

import msgspec

from memory.store import Store


@dataclass(frozen=True)
class Section:
    """A section of the prompt as it was sent (through the gate), with its tokens."""
    label: str
    tokens: int
    content: str


@dataclass(frozen=True)
class Withheld:
    """A placeholder the gate left in what was sent, and why."""
    what: str
    why: str


@dataclass(frozen=True)
class ToolCallRecord:
    name: str
    arguments: Any  # as the call gave them: an object, or what a model wrote when it was not one
    result: str
    is_error: bool = False
    by: str = "model"  # model | app (a clear request the model did not carry out)


@dataclass(frozen=True)
class ReadingRecord:
    """What the reading of the message understood (the parts it found; the others are None)."""
    intent: str
    recap: bool = False
    asks_when: bool = False
    ids: tuple[int, ...] = ()
    statement: bool | None = None  # None: recorded before this verdict was (read the message again)
    content: str | None = None
    when: str | None = None
    target: int | None = None
    event: str | None = None
    new_text: str | None = None
    due: str | None = None  # UTC ISO 8601

    def parts(self) -> dict[str, Any]:
        """The parts that say something, in order (a flag that is off, an empty list and None say nothing)."""
        found = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in found.items()
                if v not in (None, False, (), "")}


class Asking(Enum):
    """What a question of the offline mode asks for."""
    WHEN = "when"  # "When should I remind you to ...?": a time for the task of `request`
    EVENT = "event"  # "When is the budget review?": the event's date (`ids`: the memories that give one)
    WHICH = "which"  # "Which one did you mean?": one or more of the memories in `ids`
    SUGGESTION = "suggestion"  # "Did you mean "..."?": yes carries out `request`, the message as meant
    FORGET = "forget"  # "Forget #4 "..."?": yes forgets the memory in `ids`
    WHAT = "what"  # "What should I remind you about on ...?": the task for the time of `request`


@dataclass(frozen=True)
class OpenQuestion:
    """A question the offline mode's answer asked, waiting for the next message: data kept with the
    answer's record, never read back from its wording."""
    kind: Asking
    request: str  # the message it is about (SUGGESTION: that message as it was probably meant)
    ids: tuple[int, ...] = ()  # the memories it offers (WHICH, EVENT) or would forget (FORGET)


@dataclass(frozen=True)
class TurnRecord:
    responder: str  # anthropic | openai | ollama | offline
    model: str  # as a person names it
    left_the_machine: bool
    reading: ReadingRecord | None = None
    tools: tuple[ToolCallRecord, ...] = ()
    memories: tuple[int, ...] = ()  # in the prompt (a model), or shown in the answer (the offline mode)
    conversations: tuple[int, ...] = ()  # past conversations in the prompt
    sections: tuple[Section, ...] = ()
    instructions_tokens: int | None = None
    withheld: tuple[Withheld, ...] = ()
    did_not_fit: tuple[str, ...] = ()  # what the fit to the window left out ("2 earlier messages", "Timeline")
    context_window: int | None = None
    asked: OpenQuestion | None = None  # the question the answer asked (the offline mode's own)
    cut: str = ""  # why the answer stops where it does, when the model stopped in the middle of it
    fallback: str = ""  # why the model did not answer this turn, when the offline mode answered it instead


def _read(kind: type[Any], data: str) -> Any:
    """`data` (JSON) as `kind`, or None when it is not one."""
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.MsgspecError:
        return None


def record(store: Store, message_id: int, episode_id: int | None, turn: TurnRecord, said: Iterable[str] = ()) -> None:
    """Keep `turn`'s record, each secret it quotes (in what the reading took, the tools' arguments and results)
    as the exports write one: the app's own stored words hold no secret value (SPEC F14; an attacker found "the
    storage locker combo is 3141" in a record). What the offline mode asked (`asked`) is kept as said: the
    next message carries it out. `said`: the secrets of the conversation's messages (memory.secrets.said_in: the
    classifier's too), withheld wherever the record quotes them."""
    turn = _without_secrets(store, turn, list(said))
    data = msgspec.to_builtins(turn)  # written as json.dumps writes: forget finds a quoted text by its JSON
    store.execute("INSERT OR REPLACE INTO turn_records (message_id, episode_id, data, created_at) VALUES (?, ?, ?, ?)",
                  (message_id, episode_id, json.dumps(data, ensure_ascii=False), store.clock.now_iso()))


def _without_secrets(store: Store, turn: TurnRecord, said: list[str]) -> TurnRecord:
    from memory.secrets import SECRET, values
    from memory.sensitive import redact, withhold_fragments

    known = [v.value for v in values(store)] + said

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return withhold_fragments(redact(value, SECRET), known, SECRET) if value else value
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(clean(v) for v in value)
        return value

    reading = turn.reading
    if reading is not None:
        reading = replace(reading, content=clean(reading.content), new_text=clean(reading.new_text),
                          event=clean(reading.event))
    tools = tuple(replace(t, arguments=clean(t.arguments), result=clean(t.result)) for t in turn.tools)
    return replace(turn, reading=reading, tools=tools)


def get(store: Store, message_id: int) -> TurnRecord | None:
    row = store.one("SELECT data FROM turn_records WHERE message_id = ?", (message_id,))
    return None if row is None else _read(TurnRecord, row[0])


def latest(store: Store, episode_id: int | None = None) -> tuple[int, TurnRecord] | None:
    """The newest record (of a conversation): (the answer's message id, the record)."""
    row = store.one("SELECT message_id, data FROM turn_records WHERE (? IS NULL OR episode_id = ?) "
                    "ORDER BY message_id DESC LIMIT 1", (episode_id, episode_id))
    found = None if row is None else _read(TurnRecord, row[1])
    return None if found is None else (row[0], found)


def _marks(ids: list[int]) -> str:
    return ",".join("?" * len(ids))


def readings_of(store: Store, message_ids: list[int]) -> dict[int, ReadingRecord]:
    """What the reading of each of these messages understood when its turn ran (the record of the answer
    that followed it in its conversation), for those that have one: an imported message, or one older
    than the records, has none."""
    ids = sorted(set(message_ids))
    if not ids:
        return {}
    rows = store.query(
        "SELECT u.id, json_extract(r.data, '$.reading') FROM messages u JOIN turn_records r ON r.message_id = "
        "(SELECT min(a.id) FROM messages a WHERE a.episode_id = u.episode_id AND a.id > u.id) "
        f"WHERE u.id IN ({_marks(ids)}) AND u.role = 'user'", tuple(ids))
    read = {row[0]: _read(ReadingRecord, row[1]) for row in rows if row[1]}
    return {message_id: reading for message_id, reading in read.items() if reading is not None}


def questions_of(store: Store, message_ids: list[int]) -> dict[int, OpenQuestion]:
    """The question each of these answers asked, for those that asked one."""
    ids = sorted(set(message_ids))
    if not ids:
        return {}
    rows = store.query(f"SELECT message_id, json_extract(data, '$.asked') FROM turn_records "
                       f"WHERE message_id IN ({_marks(ids)}) AND json_extract(data, '$.asked') IS NOT NULL",
                       tuple(ids))
    read = {row[0]: _read(OpenQuestion, row[1]) for row in rows}
    return {message_id: question for message_id, question in read.items() if question is not None}


def fallbacks_of(store: Store, message_ids: list[int]) -> set[int]:
    """Those of these answers the offline mode wrote because the model could not be reached."""
    ids = sorted(set(message_ids))
    if not ids:
        return set()
    rows = store.query(f"SELECT message_id FROM turn_records WHERE message_id IN ({_marks(ids)}) "
                       "AND coalesce(json_extract(data, '$.fallback'), '') != ''", tuple(ids))
    return {row[0] for row in rows}


def responders_of(store: Store, message_ids: list[int]) -> dict[int, str]:
    """Which responder wrote each of these answers ("offline", or a model's), for those recorded."""
    ids = sorted(set(message_ids))
    if not ids:
        return {}
    rows = store.query(f"SELECT message_id, json_extract(data, '$.responder') FROM turn_records "
                       f"WHERE message_id IN ({_marks(ids)})", tuple(ids))
    return {row[0]: row[1] for row in rows if isinstance(row[1], str)}
