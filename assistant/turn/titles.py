"""Model-written titles of closed conversations (SPEC F7: quit never waits for a model).

A conversation closes at once with its quick title (memory.episodes.heuristic_title_and_summary) and
owes a model-written one when it was a real exchange: `owed_titles` writes them, oldest first, whenever
a process has a local model that answers (the app when idle or right after a close, the CLI after a
chat turn). A model that is down costs one quick probe; a title it cannot write leaves the quick one.
"""
from __future__ import annotations

import logging

from assistant.outbound import requests, send
from assistant.outbound.gate import Gate
from assistant.providers.local import StructuredModel, local_model
from assistant.runtime import Runtime
from memory import episodes
from memory.episodes import Message, heuristic_title_and_summary
from memory.errors import MalformedAnswer, ModelUnavailable, RequestTooLong

log = logging.getLogger(__name__)
TITLE_TIMEOUT = 30.0  # seconds: a title is not worth a longer wait


def model_title(runtime: Runtime, model: StructuredModel, messages: list[Message]) -> tuple[str, str] | None:
    """The local model's title and summary of a conversation; None when it could not write one. The
    transcript goes through the gate like a chat turn: the local model is a model too. A model that is
    unreachable raises ModelUnavailable."""
    try:
        data = send.ask_local(model, requests.title(Gate(runtime.store), messages))
    except MalformedAnswer as exc:
        log.info("the local model gave no usable title (%s); the quick one stays", exc)
        return None
    except RequestTooLong as exc:
        log.warning("no title from the local model: %s; the quick one stays", exc)
        return None
    title, summary = str(data["title"]).strip()[:80], str(data["summary"]).strip()[:400]
    return (title, summary) if title else None


def title_and_summary(runtime: Runtime, messages: list[Message]) -> tuple[str, str]:
    """A title and summary now: the local model's when it answers, else the quick ones."""
    model = local_model(runtime, timeout=TITLE_TIMEOUT, retries=0)
    if model.reachable():  # a quick probe: without a local model there is no wait at all
        try:
            written = model_title(runtime, model, messages)
        except ModelUnavailable as exc:
            log.info("no title from the local model (%s); using the first messages", exc)
            written = None
        if written is not None:
            return written
    return heuristic_title_and_summary(messages, runtime.store, runtime.embedder)


def owed_titles(runtime: Runtime, limit: int = 5) -> int:
    """Write up to `limit` owed titles while the local model answers; returns how many are still owed."""
    store = runtime.store
    pending = episodes.needing_titles(store, limit)
    if not pending:
        return 0
    model = local_model(runtime, timeout=TITLE_TIMEOUT, retries=0)
    if model.reachable():
        for episode_id in pending:
            episode = episodes.get_episode(store, episode_id)
            try:
                written = model_title(runtime, model, episodes.episode_messages(store, episode_id))
            except ModelUnavailable as exc:
                log.info("no title from the local model (%s); the quick titles stay for now", exc)
                break
            title, summary = written or (episode.title or "Untitled", episode.summary or "")
            episodes.give_title(store, episode_id, title, summary)
    return len(episodes.needing_titles(store, 10_000))
