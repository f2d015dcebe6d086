"""Where the app keeps its files (XDG via platformdirs); directories are created 0700."""
from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "assistant"


def config_file() -> Path:
    return platformdirs.user_config_path(APP) / "config.toml"


def default_db() -> Path:
    return platformdirs.user_data_path(APP) / "memory.db"


def cache_dir() -> Path:
    """Where the embedder lays out its model files; made (0700) by the embedder when it first loads, so
    that a cache folder that cannot be written to costs search its vectors, with a notice, not the command."""
    return platformdirs.user_cache_path(APP)


def log_dir() -> Path:
    path = platformdirs.user_state_path(APP)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def state_dir() -> Path:
    """Small things the app keeps between launches (input history)."""
    path = platformdirs.user_state_path(APP)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def history_file() -> Path:
    """The message box's input history: what you typed may be private, so the file is 0600."""
    return state_dir() / "input_history.jsonl"
