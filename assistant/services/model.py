"""The chat model and the turn, for a front end: which responder answers (chosen once, asked again when
none answered at launch), how it is named, and one turn as a stream of events.

`connect` and `reconnect` block (they may probe servers briefly): call them from thread workers; `turn`
is an async iterator for an async worker.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from assistant.errors import ProviderError
from assistant.providers.select import Choice, choose_provider, provider_for
from assistant.runtime import Runtime
from assistant.turn.events import Done, Event, Failed

if TYPE_CHECKING:  # the agent (pydantic, the providers) is imported when a model is chosen, after the first frame
    from assistant.providers.base import Provider
    from assistant.responders.protocol import Responder
    from assistant.turn.agent import Agent


# A failure of the last turn, as the status bar says it beside the model's name.
TROUBLE = {"network": "not answering", "timeout": "not answering", "cut": "stopped mid-answer",
           "empty": "gave no answer", "context": "conversation too long", "overloaded": "overloaded",
           "rate_limit": "rate limited", "auth": "key refused"}


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

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.agent: Agent | None = None
        self.choice: Choice | None = None  # why the responder is the one it is
        # What went wrong with the model in the last turn (a failure kind), said beside its name until a
        # turn goes well: the status changes when the server dies in the middle of an answer.
        self.trouble: str | None = None
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

                self.agent = Agent(self.runtime, responder_for(self.runtime, provider))
        return self.provider_label

    @property
    def launch_note(self) -> str | None:
        """The one line to say at launch when the server the settings name is not answering."""
        return self.choice.not_answering() if self.choice is not None else None

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
        self.trouble = None
        return True

    @property
    def provider_label(self) -> str:
        if self.agent is None:
            return "connecting…"
        responder = self.agent.responder
        # A server that listed no model at launch has none to name yet: the label is not left with a gap.
        label = f"{responder.name} · {responder.model}" if responder.model else responder.name
        trouble = TROUBLE.get(self.trouble or "", self.trouble and "failing")
        return f"{label} ({trouble})" if trouble else label

    @property
    def model_name(self) -> str | None:
        """The model as a person names it; None without one (the offline mode, or none chosen yet)."""
        return self.agent.responder.model if self.agent is not None and self.has_model else None

    @property
    def has_model(self) -> bool:
        return self.agent is not None and not self.agent.responder.local

    async def turn(self, text: str) -> AsyncIterator[Event]:
        """One turn; a message sent while the app is still starting waits for the model choice."""
        if self.agent is None:
            await asyncio.to_thread(self.connect)
        assert self.agent is not None
        async for event in self.agent.turn(text):
            if isinstance(event, Failed):
                self.trouble = event.kind
            elif isinstance(event, Done) and (event.failure or self.agent.responder.reached):
                self.trouble = event.failure  # a turn the app answered alone leaves the model's state as it was
            yield event

    async def warm(self) -> bool:
        """After a turn the model answered: its server (the person's own) reads the conversation while
        they read and type, and the next answer starts sooner (SPEC F4). Nothing is said of it."""
        if self.agent is None or self.trouble or not self.has_model:
            return False
        return await self.agent.warm()
