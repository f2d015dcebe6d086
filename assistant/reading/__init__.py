"""Reading a message without a model, once per turn (SPEC 1): what it asks (a recap, the recent past,
a when), which memories it names by id, and the action it requests (remind, remember, done, snooze,
...). The prompt, the gate and the offline mode all take this one Reading."""
from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.reading.actions import Action
from assistant.reading.intent import is_recap_query, temporal_recency
from assistant.reading.languages import english_forms
from assistant.reading.understand import read_message, states_something
from memory.time.clock import Clock
from memory.time.references import asks_when

__all__ = ["Action", "Reading", "mentioned_ids", "read"]

_ID_MENTION = re.compile(r"(?:#\s*|\b(?:memory|reminder|note|item|number|no\.?|id)\s*#?\s*)(\d+)(?!\d)",
                         re.IGNORECASE)


def mentioned_ids(message: str) -> frozenset[int]:
    """The memory ids a message names ("#12", "memory 12"): one scan, whatever the number of memories."""
    return frozenset(int(n) for n in _ID_MENTION.findall(message) if len(n) < 19)


@dataclass(frozen=True)
class Reading:
    text: str  # the message as typed
    action: Action  # what it asks the assistant to do, as the offline mode understands it
    recap: bool  # an explicit request to recap our conversations
    temporal_recency: float  # in [0, 1]: about the recent past of our own exchanges
    asks_when: bool  # when / what date / how long ago: reasoning with resolved dates
    ids: frozenset[int]  # memory ids it names
    statement: bool = False  # it tells something (evidence of a fact), asks nothing of the assistant

    @property
    def boosted(self) -> bool:
        """A recap or a question about the recent past: more conversations, with summaries, in time order."""
        return self.recap or self.temporal_recency > 0.5


def read(text: str, clock: Clock) -> Reading:
    """The one reading of a message."""
    action = read_message(english_forms(text), clock.now(), clock.zone)
    return Reading(text, action, is_recap_query(text), temporal_recency(text), asks_when(text), mentioned_ids(text),
                   states_something(action, text))
