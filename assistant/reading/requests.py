"""Which messages are clear requests that the app carries out itself when a model answered without
doing them (SPEC F7: actions never depend on a model's diligence).

A clear request is one the offline reading understands fully and that is said as a request: a reminder
with its task and its time, a memory with its text ("remember that ..."), a change to a reminder named
by its number, "it"/"that" or as a reminder, with its new time where it needs one, a forget by number,
an undo. A question, a wish ("I should remind my sister"), a memory of the past ("remember when we
went to Rome?", "remember the time ..."), a reminder without a time, or words that only look like a
command ("cancel culture is weird", "mark my words") are no such request: the model's answer stands
alone. tests/data/requests.tsv is the labelled set (its precision and recall: docs/real-model.md).
"""
from __future__ import annotations

import re

from assistant.reading import Reading
from assistant.reading.actions import Cancel, Done, Forget, Move, Remember, Remind, Snooze, Undo
from assistant.reading.languages import english_forms

CARRIED_OUT = ("remind", "remember", "done", "snooze", "cancel", "move", "forget", "undo")  # by name: the labels
# How a memory is asked for: "remember that/this/:", "note that", "make/take a note", "keep in mind".
_REMEMBER = re.compile(r"^\W*(?:(?:hey|ok|okay|so|please|pls)\W+)*(?:(?:can|could|would) you\s+)?(?:please\s+)?"
                       r"(?:remember(?:\s+that|\s+this|\s*[:,-])|remember\s+my\b|note(?:\s+that|\s*:)(?!\s*to self)|"
                       r"(?:make|take) a note|keep in mind that|(?:don'?t|do not) forget that|fyi\b)", re.I)
# What follows "remember" when it is memory of the past, not something to keep.
_REMEMBERED = re.compile(r"(?:remember|the (?:time|day|night|moment)|how|when|where|what)\b", re.I)
# Words that make a "command" a statement about something else ("the cake is done", "buttons are evil").
_STATEMENT = re.compile(r"\b(?:is|are|was|were|am|be|been|my words|for today|for now|here|today|conversation|chat|"
                        r"topic|discussion)\b", re.I)
_NAMED = re.compile(r"#\d|\b\d+\b|\breminders?\b|^\W*(?:\w+\W+){0,3}(?:it|that|this)(?:\s+one)?\W*$", re.I)
# Done said as a request: "done with X", "mark X (as) done", "tick/check/cross off X", "finished X", "did X".
_DONE_SAID = re.compile(r"^\W*(?:(?:i'?m|i am|i have|i've|just)\s+)?(?:done with|finished|completed?|did|done)\s+\S"
                        r"|^\W*mark\s+.+\s+(?:as\s+)?(?:done|complete|completed|finished)\W*$"
                        r"|^\W*(?:tick|check|cross)\s+off\b", re.I)


def clear_request(reading: Reading) -> bool:
    """Whether the app may carry this reading out after a model's answer (when no tool call of the turn did)."""
    action, text = reading.action, reading.text
    if text.rstrip().endswith("?"):
        return False  # a question, however it starts
    match action:
        case Remind():
            return bool(action.content)
        case Remember():
            said = action.content.strip()
            return bool(said) and bool(_REMEMBER.match(english_forms(text))) and not _REMEMBERED.match(said)
        case Forget():
            return action.target is not None
        case Undo():
            return True
        case Done() | Snooze() | Cancel() | Move():
            return _clear_change(action, text)
    return False


def _clear_change(action: Done | Snooze | Cancel | Move, text: str) -> bool:
    if action.target is None and _STATEMENT.search(action.content):
        return False
    if isinstance(action, Done):
        if action.target is None and not (_DONE_SAID.match(text) or _NAMED.search(text)):
            return False  # "the cake is done", "mark my words", "I'm done for today"
        if re.match(r"^\W*(?:i'?m|i am)\s+done\s+(?!with\b)", text, re.I):
            return False
    if isinstance(action, Move) and action.due is None and action.shift is None and action.rule is None:
        return False  # "move the dentist": to when? the offline mode asks; after a model, nothing is done
    if isinstance(action, Cancel | Snooze) and action.target is None:
        return bool(_NAMED.search(text)) or action.content in ("that", "it")
    return action.target is not None or bool(action.content)


def request_intent(reading: Reading) -> str:
    """The intent a clear request carries out, "none" for every other reading (the labelled set's terms)."""
    return reading.action.intent if clear_request(reading) else "none"
