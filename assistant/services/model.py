"""The chat model and the turn, for a front end: which responder answers (chosen once, asked again when
none answered at launch), how it is named, and one turn as a stream of events.

`connect` and `reconnect` block (they may probe servers briefly): call them from thread workers; `turn`
is an async iterator for an async worker.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from assistant.errors import ProviderError
from assistant.providers.select import Choice, choose_provider, provider_for
from assistant.runtime import Runtime
from assistant.turn.events import Event

if TYPE_CHECKING:  # the agent (pydantic, the providers) is imported when a model is chosen, after the first frame
    from assistant.providers.base import Provider
    from assistant.responders.protocol import Responder
    from assistant.turn.agent import Agent


def responder_for(runtime: Runtime, provider: Provider | None) -> Responder:
    """What answers turns: the chat model through the gate, or the offline mode when there is none."""
    if provider is None:
        from assistant.responders.offline import OfflineResponder

        return OfflineResponder(runtime)
    from assistant.responders.model import ModelResponder

    return ModelResponder(runtime, provider)


class ModelService:
    """The agent that answers, and the model behind it. The conversations and incognito services act on
    the same agent (closing, resuming, keeping nothing)."""

    def __init__(self, runtime: Runtime, defer: Callable[[Callable[[], object]], None] | None = None) -> None:
        self.runtime = runtime
        self.agent: Agent | None = None
        self.choice: Choice | None = None  # why the responder is the one it is
        # How slow follow-up work (model titles of closed conversations) is run; the TUI passes a
        # background runner so that closing a conversation never delays the next answer.
        self.defer = defer
        self._connecting = threading.Lock()

    def connect(self, strict: bool = False) -> str:
        """Pick the responder once (may probe servers briefly); returns "provider · model". A configured
        model that cannot work is said and the offline mode answers instead, unless `strict` (the CLI's
        `chat`), which raises the ProviderError.

        Safe to call from several threads: later callers wait for the first and reuse its agent.
        """
        with self._connecting:
            if self.agent is None:
                self.choice = choose_provider(self.runtime)
                try:
                    provider = provider_for(self.runtime, self.choice)
                except ProviderError as exc:
                    if strict:
                        raise
                    self.runtime.notice(f"{exc}; using the offline mode")
                    provider = None
                from assistant.turn.agent import Agent

                self.agent = Agent(self.runtime, responder_for(self.runtime, provider), defer=self.defer)
        return self.provider_label

    @property
    def may_find_a_model(self) -> bool:
        """Offline only because nothing answered at launch (not by choice): worth asking again."""
        return (self.agent is not None and self.agent.responder.local and self.choice is not None
                and self.choice.reason.startswith("auto"))

    def reconnect(self) -> bool:
        """Ask again for a model (one that was down or busy at launch); True when one answers now: the
        next turn is its."""
        choice = choose_provider(self.runtime)
        if choice.name == "offline" or self.agent is None:
            return False
        try:
            provider = provider_for(self.runtime, choice)
        except ProviderError:
            return False
        self.choice = choice
        self.agent.responder = responder_for(self.runtime, provider)
        return True

    @property
    def provider_label(self) -> str:
        if self.agent is None:
            return "connecting…"
        return f"{self.agent.responder.name} · {self.agent.responder.model}"

    @property
    def model_name(self) -> str:
        """The model as a person names it ("the model" before one is chosen)."""
        return self.agent.responder.model if self.agent is not None and self.has_model else "The model"

    @property
    def has_model(self) -> bool:
        return self.agent is not None and not self.agent.responder.local

    async def turn(self, text: str) -> AsyncIterator[Event]:
        """One turn; a message sent while the app is still starting waits for the model choice."""
        if self.agent is None:
            await asyncio.to_thread(self.connect)
        assert self.agent is not None
        async for event in self.agent.turn(text):
            yield event
