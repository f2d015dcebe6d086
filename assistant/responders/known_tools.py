"""What a server's model was found to do with tools, kept between launches: a model that refused them or
answered nothing when offered them is chatted with without them (SPEC F7). Learned again at each launch,
the first message went out twice (with the tools, then without: the server read the whole prompt twice,
what it had read at launch was lost) and the line saying why came back at every launch.

Kept a week in the store's `meta` table, per provider, server and model: a server started again with
what tools need (llama.cpp's `--jinja`) is offered them again within a week at most."""
from __future__ import annotations

from datetime import timedelta

from assistant.providers.base import Provider
from memory.store import Store
from memory.time.instants import parse_stored

KEPT_FOR = timedelta(days=7)


def _key(provider: Provider) -> str:
    return f"no_tools:{provider.name}:{provider.url}:{provider.model}"


def found_without_tools(store: Store, provider: Provider) -> bool:
    """Whether this server's model was found, within KEPT_FOR, to take no tools."""
    said = store.get_meta(_key(provider))
    if not said:
        return False
    try:
        return store.clock.now() - parse_stored(said) < KEPT_FOR
    except ValueError:
        return False


def keep_without_tools(store: Store, provider: Provider) -> None:
    """This server's model takes no tools: kept for the next launches (none in a read-only store)."""
    if not store.read_only:
        store.set_meta(_key(provider), store.clock.now_iso())
