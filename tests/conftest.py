"""Shared fixtures: a frozen clock, a fresh store per test, the real bundled embedder (once)."""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from memory.clock import UTC, Clock, zone_from_name
from memory.store import Store

T0 = datetime(2026, 11, 22, 14, 0, tzinfo=UTC)  # a Sunday


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test sees the developer's config, data, keys or a real Ollama."""
    home = tmp_path_factory.mktemp("home")
    for var in list(os.environ):
        if var.startswith(("ASSISTANT_", "ANTHROPIC_", "OLLAMA_")):
            monkeypatch.delenv(var, raising=False)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("ASSISTANT_TIMEZONE", "UTC")


@pytest.fixture
def clock() -> Clock:
    return Clock(UTC, T0)


@pytest.fixture
def store(tmp_path: Path, clock: Clock):
    s = Store(tmp_path / "memory.db", clock)
    yield s
    s.close()


def make_clock(when: datetime | str, zone: str = "UTC") -> Clock:
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return Clock(zone_from_name(zone), when)


@pytest.fixture(scope="session")
def embedder(tmp_path_factory):
    from memory.embeddings import LocalEmbedder

    e = LocalEmbedder(cache_dir=tmp_path_factory.mktemp("embcache"))
    e.load()
    return e


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
