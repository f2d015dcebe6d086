"""The built-in offline mode as a responder: no model, no prompt, the same tools a model would call.

It takes the turn's reading of the message (assistant.reading), plans with the offline mode
(assistant.offline: the answer to a question it asked, else what the reading asks for), acts through
the tools (so memory changes exactly as with a model), then words the tool results from their
structured data. It is also the agent's fallback when the configured model cannot be reached: the
reply then says so first.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

from assistant.conversation import Item, ToolResults, ToolUse
from assistant.offline import planner
from assistant.offline.plan import Plan, Situation, text_of
from assistant.offline.wording import word_results
from assistant.outbound.gate import LOCAL_GATE, Gate
from assistant.providers.base import Delta
from assistant.reading import Reading
from assistant.responders.protocol import TurnInput
from assistant.runtime import Runtime
from memory.search import cited
from memory.store import Store
from memory.turn_records import OpenQuestion, TurnRecord


class OfflineResponder:
    name = "offline"
    model = "built-in"
    local = True
    reached = False

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._turn: TurnInput | None = None
        self._plan = Plan()  # this turn's: its results are worded with it
        self._used: list[int] = []  # the memories this turn's answer showed (its Why record)
        self._unreachable_said = False  # why the model was not used: said once a turn

    def gate_for(self, store: Store, reading: Reading) -> Gate:
        return LOCAL_GATE  # nothing leaves the machine: the person's own values show on their own screen

    async def prepare(self, turn: TurnInput) -> None:
        self._turn, self._plan, self._used, self._unreachable_said = turn, Plan(), [], False

    def asked(self) -> OpenQuestion | None:
        return self._plan.asked

    def recover(self) -> bool:
        return False  # nothing left to recover: no model

    async def warm(self, conversation: list[Item]) -> bool:
        return False  # no server to read anything

    def explain(self, record: TurnRecord) -> TurnRecord:
        # Nothing left the machine; the reading (recorded by the agent) is what it understood, and these
        # are the memories the answer showed.
        return replace(record, memories=tuple(self._used))

    async def round(self, conversation: list[Item]) -> AsyncIterator[Delta | ToolUse]:
        turn = self._turn
        assert turn is not None, "prepare() comes first"
        last = conversation[-1]
        if isinstance(last, ToolResults):
            text = await asyncio.to_thread(word_results, self.runtime, self._plan, conversation)
            if text:
                yield Delta(self._prefixed(text))
            return
        situation = Situation(turn.unreachable, turn.incognito)
        # Planning may search memory (SQLite, embeddings): never on the event loop.
        with cited() as used:
            self._plan = await asyncio.to_thread(planner.plan, self.runtime, text_of(last), conversation, situation,
                                                 turn.reading)
        self._used += [i for i in used if i not in self._used]
        if self._plan.said:
            yield Delta(self._prefixed(self._plan.said))
        elif turn.unreachable:  # why the model did not answer is said, also when nothing else is
            yield Delta(self._prefixed(""))
        for n, (name, args) in enumerate(self._plan.calls, start=1):
            yield ToolUse(f"offline_{n}", name, args)

    def _prefixed(self, text: str) -> str:
        unreachable = self._turn.unreachable if self._turn is not None else None
        if not unreachable or self._unreachable_said:
            return text
        self._unreachable_said = True  # a turn that acts says it before the action, not again after it
        note = f"(I couldn't reach the chat model: {unreachable}. I handled this offline.)"
        return f"{note}\n\n{text}" if text else note + "\n\n"
