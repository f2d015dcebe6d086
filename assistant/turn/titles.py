"""Titles and summaries of closed conversations: the local model when it answers, else a heuristic."""
from __future__ import annotations

import logging

from assistant.runtime import Runtime
from memory.episodes import Message, heuristic_title_and_summary
from memory.errors import MalformedAnswer, ModelUnavailable

log = logging.getLogger(__name__)
TITLE_TIMEOUT = 30.0  # seconds: a title is not worth a longer wait


def title_and_summary(runtime: Runtime, messages: list[Message], use_model: bool = True) -> tuple[str, str]:
    if use_model:
        from assistant.providers.local import local_model

        model = local_model(runtime, timeout=TITLE_TIMEOUT, retries=0)
        if model.reachable():  # a quick probe: without a local model there is no wait at all
            from assistant.outbound import Outbound

            # The local model is a model too: secrets and private memories stay out of its transcript.
            gate = Outbound(runtime.store, "")
            transcript = "\n".join(f"{m.role}: {gate.text(m.content[:500], f'message #{m.id}')}" for m in messages
                                   if m.role in ("user", "assistant"))[:6000]
            try:
                return model.title(transcript)
            except (ModelUnavailable, MalformedAnswer) as exc:
                log.info("no title from the local model (%s); using the first messages", exc)
    return heuristic_title_and_summary(messages)
