"""The one exception hierarchy of the assistant package.

The CLI maps errors once, at its edge: BadInput (and memory's InvalidInput) is the user's to fix,
exit 2; any other AssistantError (and memory's MemoryLibError) is a failure, exit 1. Each message is
one line for the user.
"""
from __future__ import annotations

from memory.errors import StoreUnusable


class AssistantError(Exception):
    """Base class of every error raised by the assistant package."""


class BadInput(AssistantError):
    """The user's input or configuration was wrong; nothing was done."""


class ProviderError(AssistantError):
    """A model call failed; `kind` says how (auth, rate_limit, overloaded, network, timeout, model,
    bad_request), the message is one line for the user."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class ToolError(AssistantError):
    """A tool call that could not be carried out; the message goes back to the model."""


def explain(error: BaseException) -> str:
    """One line for the user: what went wrong and, where this app can help, how to recover.

    The memory library says what is wrong in its own terms; the commands that fix it are this
    app's, so they are added here, at the edge (the CLI and the TUI both end with this line).
    """

    text = str(error)
    if not isinstance(error, StoreUnusable):
        return text
    path = error.path
    db = f" --db {path}" if path else ""
    hints = {
        "damaged": f"`assistant doctor{db}` checks it; `assistant export{db} FILE` saves what can be read, so you "
                   "can move the file aside and `assistant import FILE` into a new one",
        "unreadable": f"`assistant doctor{db}` checks it",
        "newer": "upgrade assistant to open it",
        "read_only": "make the file and its folder writable (chmod u+w) to change it; `assistant reminders`, "
                     "`recall` and `export` "
                     "read it as it is",
    }
    hint = hints.get(error.reason)
    return f"{text}; {hint}" if hint else text
