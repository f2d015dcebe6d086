"""Incognito (SPEC F12): a conversation that reads memory as usual and changes no stored row. It is the
agent's state (the model service's); a new conversation or quitting ends it too (the conversations
service)."""
from __future__ import annotations

from assistant.services.model import ModelService
from memory import episodes


class IncognitoService:
    def __init__(self, model: ModelService) -> None:
        self.model = model

    @property
    def active(self) -> bool:
        return self.model.agent is not None and self.model.agent.incognito is not None

    def start(self) -> episodes.Episode | None:
        """An incognito conversation: memory is read as usual, nothing of it is stored (no message,
        title, memory, Why or undo record, no activation). The conversation in progress is closed first."""
        if self.model.agent is None:
            self.model.connect()
        agent = self.model.agent
        assert agent is not None
        closed = agent.close_episode()
        agent.incognito = []
        return closed

    def end(self) -> None:
        """Leave it: what was said in it is gone with this process's memory of it."""
        if self.model.agent is not None:
            self.model.agent.incognito = None
