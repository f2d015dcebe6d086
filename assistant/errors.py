"""The one exception hierarchy of the assistant package.

The CLI maps errors once, at its edge: BadInput (and memory's InvalidInput) is the user's to fix,
exit 2; any other AssistantError (and memory's StoreError) is a failure, exit 1. Each message is
one line for the user.
"""
from __future__ import annotations


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
