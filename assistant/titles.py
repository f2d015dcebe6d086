"""Titles and summaries of closed conversations: the local Ollama model when it answers, else a heuristic."""
from __future__ import annotations

import json

from assistant.runtime import Runtime
from memory.episodes import Message, heuristic_title_and_summary
from memory.redact import redact

TITLE_SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}, "summary": {"type": "string"}},
                "required": ["title", "summary"]}


def title_and_summary(runtime: Runtime, messages: list[Message], use_model: bool = True) -> tuple[str, str]:
    if use_model:
        try:
            return _from_model(runtime, messages)
        except Exception:  # noqa: BLE001 - any failure of the local model means: use the heuristic
            pass
    return heuristic_title_and_summary(messages)


def _from_model(runtime: Runtime, messages: list[Message]) -> tuple[str, str]:
    import ollama

    from assistant.providers.select import ollama_reachable

    host = runtime.settings.ollama.host
    if not ollama_reachable(host):
        raise ConnectionError(host)
    transcript = "\n".join(f"{m.role}: {m.content[:500]}" for m in messages if m.role in ("user", "assistant"))[:6000]
    client = ollama.Client(host=host, timeout=min(30.0, runtime.settings.ollama.timeout_seconds))
    response = client.chat(model=runtime.settings.ollama.model, format=TITLE_SCHEMA, stream=False, messages=[
        {"role": "system", "content": "Give this conversation a short title (at most 6 words) and a one-sentence "
                                      "summary. Answer as JSON with keys title and summary."},
        {"role": "user", "content": redact(transcript)}])
    data = json.loads(response.message.content)
    title, summary = str(data["title"]).strip()[:80], str(data["summary"]).strip()[:400]
    if not title:
        raise ValueError("empty title")
    return title, summary
