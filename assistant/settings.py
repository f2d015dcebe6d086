"""Settings (SPEC F10): defaults < config file < ASSISTANT_* environment < command-line flags.

Every key is documented in config.example.toml. An invalid file or variable is one clear error
naming the key and where it came from. API keys are read from the environment only
(ANTHROPIC_API_KEY; OPENAI_API_KEY or the variable `openai.api_key_env` names) and are never stored here.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path
from typing import Any, get_type_hints

from assistant import paths
from assistant.errors import BadInput
from memory.consolidation.options import Options
from memory.errors import InvalidInput

PROVIDERS = ("", "anthropic", "openai", "ollama", "offline")
LOCAL_PROVIDERS = ("", "ollama", "openai")
JSON_FORMATS = ("auto", "json_schema", "json_object", "prompt")


class SettingsError(BadInput):
    """A setting that cannot be used; the message names the key and its source."""


@dataclass
class OllamaSettings:
    host: str = "http://127.0.0.1:11434"
    model: str = "llama3.2:3b"  # consolidation and titles
    chat_model: str = ""  # chat with the ollama provider; empty = same as model
    timeout_seconds: float = 60.0


@dataclass
class OpenAISettings:
    """Any OpenAI-compatible endpoint (LM Studio, llama-server, vLLM, Ollama's /v1, OpenRouter)."""
    base_url: str = ""  # e.g. http://127.0.0.1:1234/v1; empty = OpenAI's own API
    model: str = ""  # empty: ASSISTANT_MODEL if set, else the first model the server lists
    api_key_env: str = "OPENAI_API_KEY"  # the variable that holds the key (never the key itself)
    headers: dict[str, str] = field(default_factory=dict)  # extra headers on every request
    timeout_seconds: float = 120.0
    max_retries: int = 2  # 429 and 5xx are retried this many times with backoff
    json_format: str = "auto"  # how structured answers are asked for: auto | json_schema | json_object | prompt


@dataclass
class PromptSettings:
    max_memory_tokens: int = 6000
    time_tokens: int = 80
    reminders_tokens: int = 800
    recent_tokens: int = 400
    timeline_tokens: int = 1800
    episodes_tokens: int = 600
    summaries_tokens: int = 2000
    timeline_memories: int = 12


@dataclass
class ConsolidationSettings:
    enabled: bool = True
    idle_minutes: float = 30
    memory_threshold: int = 50
    min_interval_hours: float = 24
    # The pipeline's own defaults, so the calibrated threshold is written down once (memory.consolidation).
    similarity_threshold: float = Options.similarity_threshold
    min_cluster: int = Options.min_cluster
    max_cluster: int = Options.max_cluster
    neighbours: int = Options.neighbours
    supersession_similarity: float = Options.supersession_similarity


@dataclass
class ReminderSettings:
    default_time: str = "09:00"  # when a day without a clock time is due ("tomorrow", "every Monday")

    def default_clock_time(self) -> time:
        hour, minute = self.default_time.strip().split(":")
        return time(int(hour), int(minute))


@dataclass
class UiSettings:
    theme: str = ""  # a Textual theme name; empty = Textual's default. Saved when picked from the palette.
    desktop_notifications: bool = True  # a desktop notification when a reminder falls due (none on headless machines)


@dataclass
class Settings:
    db: str = ""
    timezone: str = ""
    provider: str = ""
    model: str = "claude-sonnet-5-5"
    max_tokens: int = 2048
    max_tool_rounds: int = 5
    temporal_context_enabled: bool = True
    idle_gap_minutes: float = 30
    embedding_model: str = "bundled"
    local_provider: str = ""  # who serves titles, summaries, the judge: ollama | openai; empty: see local_choice
    local_model: str = ""  # its model; empty: ollama.model, or the openai chat model
    ollama: OllamaSettings = field(default_factory=OllamaSettings)
    openai: OpenAISettings = field(default_factory=OpenAISettings)
    prompt: PromptSettings = field(default_factory=PromptSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)
    reminders: ReminderSettings = field(default_factory=ReminderSettings)
    ui: UiSettings = field(default_factory=UiSettings)
    keymap: dict[str, str] = field(default_factory=dict)
    mcp_token: str = ""  # the bearer token of `assistant mcp --http`; empty: a random one in the state dir
    # Not settable from the file: where the settings came from and the frozen clock.
    config_path: str = ""
    now: str = ""
    endpoint_in_file: bool = False  # the config file names an openai.base_url (that selects it, SPEC F7)

    def db_path(self) -> Path:
        from memory.files import expand

        if not self.db:
            return paths.default_db()
        _check_db(self.db, "settings")  # settings built without load_settings are held to the same rule
        return expand(self.db)

    def frozen_now(self) -> datetime | None:
        if not self.now:
            return None
        from memory.time.instants import UTC

        moment = datetime.fromisoformat(self.now)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


_SECTIONS = {"ollama", "openai", "prompt", "consolidation", "reminders", "ui", "keymap"}
_INTERNAL = {"config_path", "now", "endpoint_in_file"}
ENV_ALIASES = {"ASSISTANT_OLLAMA_MODEL": ("ollama", "model"), "OLLAMA_HOST": ("ollama", "host"),
               "OPENAI_BASE_URL": ("openai", "base_url")}


def _coerce(value: Any, kind: Any, where: str) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.strip().lower() in ("1", "true", "yes", "on")
        raise SettingsError(f"{where}: expected true or false, got {value!r}")
    if kind is int:
        if isinstance(value, bool):
            raise SettingsError(f"{where}: expected a whole number, got {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):
            raise SettingsError(f"{where}: expected a whole number, got {value!r}") from None
    if kind is float:
        if isinstance(value, bool):
            raise SettingsError(f"{where}: expected a number, got {value!r}")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise SettingsError(f"{where}: expected a number, got {value!r}") from None
    if kind is str:
        if not isinstance(value, str):
            raise SettingsError(f"{where}: expected text, got {value!r}")
        return value
    return value


def _apply(target: Any, data: dict[str, Any], source: str, prefix: str = "") -> None:
    hints = get_type_hints(type(target))
    for key, value in data.items():
        name = f"{prefix}{key}"
        if key not in hints or key in _INTERNAL:
            raise SettingsError(f"{source}: unknown setting {name!r}")
        current = getattr(target, key)
        if key in ("keymap", "headers"):
            what = 'binding id = "keys"' if key == "keymap" else '"Header-Name" = "value"'
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise SettingsError(f"{source}: {name} must be a table of {what}")
            setattr(target, key, dict(value))
        elif dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise SettingsError(f"{source}: {name} must be a table")
            _apply(current, value, source, f"{name}.")
        else:
            setattr(target, key, _coerce(value, hints[key], f"{source}: {name}"))


def _validate(settings: Settings, source: str) -> None:
    if settings.provider not in PROVIDERS:
        raise SettingsError(f"{source}: provider must be one of anthropic, openai, ollama, offline "
                            f"(got {settings.provider!r})")
    if settings.local_provider not in LOCAL_PROVIDERS:
        raise SettingsError(f"{source}: local_provider must be ollama or openai (got {settings.local_provider!r})")
    a = settings.openai
    if a.json_format not in JSON_FORMATS:
        raise SettingsError(f"{source}: openai.json_format must be one of {', '.join(JSON_FORMATS)} "
                            f"(got {a.json_format!r})")
    if a.base_url:
        _check_host(a.base_url, f"{source}: openai.base_url", "http://127.0.0.1:1234/v1")
    import re

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", a.api_key_env):
        # The name of a variable, never the key: a value that looks like a key is refused, not echoed.
        raise SettingsError(f"{source}: openai.api_key_env must name an environment variable "
                            "(such as OPENAI_API_KEY), not hold the key")
    for header, value in a.headers.items():
        if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", header) or any(c in value for c in "\r\n\0"):
            raise SettingsError(f"{source}: openai.headers: {header[:40]!r} is not a usable header")
    if settings.timezone:
        from memory.time.zones import zone_from_name

        try:
            zone_from_name(settings.timezone)
        except InvalidInput as exc:
            raise SettingsError(f"{source}: timezone: {exc}") from None
    if settings.now:
        from memory.time.instants import check_instant

        try:
            check_instant(settings.frozen_now(), "frozen clock (--now)")
        except ValueError:
            raise SettingsError(f"{source}: now must be an ISO 8601 instant, got {settings.now[:80]!r}") from None
        except InvalidInput as exc:
            raise SettingsError(f"{source}: {exc}") from None
    if settings.db:
        _check_db(settings.db, source)
    c, p, o = settings.consolidation, settings.prompt, settings.ollama
    _check_host(o.host, f"{source}: ollama.host")
    if not re.fullmatch(r"\s*([01]?\d|2[0-3]):[0-5]\d\s*", settings.reminders.default_time):
        raise SettingsError(f"{source}: reminders.default_time must be a time of day such as \"09:00\", "
                            f"got {settings.reminders.default_time[:40]!r}")
    ranges = [  # (name, value, low, high): a value outside is named with where it came from
        ("max_tokens", settings.max_tokens, 1, 200_000), ("max_tool_rounds", settings.max_tool_rounds, 1, 50),
        ("idle_gap_minutes", settings.idle_gap_minutes, 1, 60 * 24 * 30),
        ("ollama.timeout_seconds", o.timeout_seconds, 1, 3600),
        ("openai.timeout_seconds", a.timeout_seconds, 1, 3600), ("openai.max_retries", a.max_retries, 0, 10),
        ("prompt.max_memory_tokens", p.max_memory_tokens, 200, 1_000_000),
        *[(f"prompt.{name}", getattr(p, name), 0, 1_000_000) for name in
          ("time_tokens", "reminders_tokens", "recent_tokens", "timeline_tokens", "episodes_tokens",
           "summaries_tokens")],
        ("prompt.timeline_memories", p.timeline_memories, 1, 1000),
        ("consolidation.idle_minutes", c.idle_minutes, 0, 60 * 24 * 365),
        ("consolidation.memory_threshold", c.memory_threshold, 1, 10_000_000),
        ("consolidation.min_interval_hours", c.min_interval_hours, 0, 24 * 365),
        ("consolidation.min_cluster", c.min_cluster, 2, 1000), ("consolidation.max_cluster", c.max_cluster, 2, 1000),
        ("consolidation.neighbours", c.neighbours, 1, 200),
    ]
    for name, value, low, high in ranges:
        if not low <= value <= high:  # false for nan too
            raise SettingsError(f"{source}: {name} must be between {low:g} and {high:g}, got {value!r}")
    if c.min_cluster > c.max_cluster:
        raise SettingsError(f"{source}: consolidation.min_cluster ({c.min_cluster}) is larger than "
                            f"consolidation.max_cluster ({c.max_cluster})")
    for name in ("similarity_threshold", "supersession_similarity"):
        if not 0 < getattr(c, name) < 1:
            raise SettingsError(f"{source}: consolidation.{name} must be between 0 and 1")


def _check_db(path: str, where: str) -> None:
    """The store is a file the app keeps: not an SQLite URI, not ":memory:" (nothing would be saved)."""
    from memory.store import check_path

    if not path.strip():
        raise SettingsError(f"{where}: db is empty; give the path of a database file")
    try:
        check_path(path, in_memory=False)
    except InvalidInput as exc:
        raise SettingsError(f"{where}: db: {exc}") from None


def _check_host(host: str, where: str, example: str = "http://127.0.0.1:11434") -> None:
    """A server address a client can use: http(s)://host[:port][/path], or host[:port]."""
    from urllib.parse import urlsplit

    from memory.text import CONTROL

    try:
        parts = urlsplit(host if "://" in host else f"http://{host}")
        parts.port  # noqa: B018  # reading it checks it
        good = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        good = False
    if any(c.isspace() for c in host) or CONTROL.search(host):
        good = False  # urlsplit drops tabs and line breaks silently; they would reach messages and headers
    if not good:
        raise SettingsError(f"{where}: {host[:80]!r} is not an address such as {example}")


def _env_layers(env: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """One small settings table per recognised variable, so errors can name the variable."""
    layers: list[tuple[str, dict[str, Any]]] = []
    hints = get_type_hints(Settings)
    for var, value in sorted(env.items()):
        if var in ENV_ALIASES:
            section, key = ENV_ALIASES[var]
            layers.append((var, {section: {key: value}}))
            continue
        if not var.startswith("ASSISTANT_") or var in ("ASSISTANT_CONFIG", "ASSISTANT_NOW"):
            continue
        name = var[len("ASSISTANT_"):].lower()
        if "__" in name:
            section, key = name.split("__", 1)
            if section in _SECTIONS:
                layers.append((var, {section: {key: value}}))
        elif name in hints and name not in _INTERNAL and name not in _SECTIONS:
            layers.append((var, {name: value}))
    return layers


MAX_KEY_DEPTH = 32  # the deepest real key is three levels (openai.headers."X-Name")
# A chain of more than MAX_KEY_DEPTH dotted key segments, found in linear time: it starts only where a
# bare word starts and never backtracks into a segment (a plain pattern took 76 s on one 40,000-letter word).
_SEGMENT = r"""(?:[A-Za-z0-9_-]++|"[^"\n]*+"|'[^'\n]*+')"""
_DEEP_KEY = re.compile(rf"(?<![A-Za-z0-9_-]){_SEGMENT}(?:[ \t]*+\.[ \t]*+{_SEGMENT}){{{MAX_KEY_DEPTH},}}")


def load_settings(config: str | None = None, overrides: dict[str, Any] | None = None,
                  env: dict[str, str] | None = None) -> Settings:
    """Build the settings from every layer; `overrides` are command-line flags (None = not given)."""
    env = dict(os.environ if env is None else env)
    settings = Settings()
    explicit = config or env.get("ASSISTANT_CONFIG")
    from memory.files import expand

    path = expand(explicit) if explicit else paths.config_file()
    if explicit and not path.is_file():
        raise SettingsError(f"config file not found: {path}")
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
            if _DEEP_KEY.search(text):  # tomllib takes quadratic time in a key's depth: 50,000 levels never end
                raise SettingsError(f"{path}: not a config file (a key nested more than {MAX_KEY_DEPTH} levels deep)")
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SettingsError(f"{path}: not valid TOML ({exc})") from None
        except RecursionError:
            raise SettingsError(f"{path}: not a config file (nested too deeply)") from None
        except OSError as exc:
            raise SettingsError(f"{path}: cannot be read ({exc.strerror})") from None
        _apply(settings, data, str(path))
        _validate(settings, str(path))
        settings.config_path = str(path)
        settings.endpoint_in_file = bool(settings.openai.base_url)
    for var, layer in _env_layers(env):
        _apply(settings, layer, f"environment variable {var}")
    if env.get("ASSISTANT_NOW"):
        settings.now = env["ASSISTANT_NOW"]
    _validate(settings, "environment")
    for key, value in (overrides or {}).items():
        if value is not None:
            setattr(settings, key, value)
    _validate(settings, "command line")
    return settings


def save_setting(settings: Settings, section: str, key: str, value: str) -> Path:
    """Write one text setting into the config file (`[section] key = "value"`), keeping the rest.

    Used for choices made inside the app (the theme). The file is edited line by line so the
    user's comments stay; the result is parsed again before it replaces the old file.
    """
    if section not in _SECTIONS - {"keymap"} or key not in get_type_hints(type(getattr(settings, section))):
        raise SettingsError(f"unknown setting {section}.{key}")
    path = Path(settings.config_path) if settings.config_path else paths.config_file()
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    line = f"{key} = {json.dumps(value)}"
    lines = text.splitlines()
    header = next((i for i, raw in enumerate(lines) if raw.strip() == f"[{section}]"), None)
    if header is None:
        lines += ([""] if lines and lines[-1].strip() else []) + [f"[{section}]", line]
    else:
        end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        found = next((i for i in range(header + 1, end)
                      if lines[i].split("=", 1)[0].strip() == key and "=" in lines[i]), None)
        if found is None:
            lines.insert(header + 1, line)
        else:
            lines[found] = line
    new_text = "\n".join(lines) + "\n"
    try:
        saved = tomllib.loads(new_text).get(section, {}).get(key)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: cannot save {section}.{key} ({exc})") from None
    if saved != value:
        raise SettingsError(f"{path}: cannot save {section}.{key} (the file sets it in a way this edit cannot change)")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(new_text, encoding="utf-8")
    tmp.replace(path)
    setattr(getattr(settings, section), key, value)
    return path
