"""`assistant status`: what is stored, where, and what the background work is doing."""
from __future__ import annotations

from typing import Any

from assistant.providers.base import short_name
from assistant.providers.local import local_choice, reachable
from assistant.providers.select import choose_provider
from assistant.runtime import Runtime
from memory.consolidation.runs import latest_run
from memory.schema import SCHEMA_VERSION
from memory.store import counts
from memory.time.zones import zone_name


def models_status(runtime: Runtime) -> dict[str, Any]:
    """Which chat model and which local model are in use, where, and whether they answer."""

    chat = choose_provider(runtime)
    s = runtime.settings
    local: dict[str, Any] = {"provider": local_choice(runtime)}
    if local["provider"] == "openai":
        from assistant.providers.openai_provider import api_key, chat_model, endpoint_url, probe

        o = s.openai
        if chat.name == "openai" and chat.url == endpoint_url(o.base_url):
            found_models, answered = chat.offers, chat.answers
        else:
            found = probe(o.base_url, api_key(o.api_key_env), o.headers)
            found_models, answered = found.models, found.answered
        local.update(url=endpoint_url(o.base_url), model=s.local_model or chat_model(s, lambda: found_models),
                     answers=answered)
    else:

        answered = chat.answers if chat.name == "ollama" else reachable(s.ollama.host)
        local.update(url=s.ollama.host, model=s.local_model or s.ollama.model, answers=answered)
    named = short_name(local["model"]) or "(model not known yet)"  # as the status bar names it
    return {"chat": chat.to_json(), "chat_line": chat.line(), "local": local,
            "local_line": f"{local['provider']} {named} at {local['url']}, "
                          f"{'answers' if local['answers'] else 'not answering'}"}


def collect_status(runtime: Runtime) -> dict[str, Any]:
    store = runtime.store
    last = latest_run(store)
    settings = runtime.settings
    return {
        "db": str(settings.db_path()),
        "schema_version": SCHEMA_VERSION,
        "config": settings.config_path or None,
        "timezone": zone_name(runtime.clock.zone),
        "now": runtime.clock.now_iso(),
        **_models(runtime),
        **counts(store),
        "embedding_model": store.get_meta("embedding_model"),
        "consolidation": None if last is None else {
            "last_run_id": last.id, "started_at": last.started_at, "completed_at": last.completed_at,
            "status": last.status, "phase": last.phase, "counts": last.counts},
        **_calendar(runtime),
    }


def _calendar(runtime: Runtime) -> dict[str, Any]:
    """The calendar sync (SPEC F15): how its last run ended, whichever process ran it."""
    if not runtime.settings.caldav.url:
        return {"calendar": "not set up (docs/caldav.md)", "calendar_sync": None}
    from assistant.caldav.background import sync_words  # the sync's state: only a store that syncs
    from memory.transfer.caldav import last_sync

    last = last_sync(runtime.store)
    return {"calendar": f"{runtime.settings.caldav.url}: {sync_words(last, runtime.clock.short)}",
            "calendar_sync": last}


def _models(runtime: Runtime) -> dict[str, Any]:
    models = models_status(runtime)
    return {"provider": models["chat_line"], "local_model": models["local_line"],
            "models": {"chat": models["chat"], "local": models["local"]}}
