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
            from assistant.outbound import requests, send
            from assistant.outbound.gate import Gate

            # The local model is a model too: the transcript goes through the gate like a chat turn.
            try:
                data = send.ask_local(model, requests.title(Gate(runtime.store), messages))
                title, summary = str(data["title"]).strip()[:80], str(data["summary"]).strip()[:400]
                if title:
                    return title, summary
                log.info("the local model gave an empty title; using the first messages")
            except (ModelUnavailable, MalformedAnswer) as exc:
                log.info("no title from the local model (%s); using the first messages", exc)
    return heuristic_title_and_summary(messages)
