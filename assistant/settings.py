"""Settings (SPEC F10): defaults < config file < ASSISTANT_* environment < command-line flags.

Every key is documented in config.example.toml. The settings are plain dataclasses whose annotations
carry the rules (a type, `Range`, `Check`, a `Literal` of choices); pydantic-settings reads them to load
the layers: the file's table, the ASSISTANT_* variables (nested with "__"), then the flags. An invalid
file or variable is one clear error naming the key and where it came from. API keys are read from the
environment only (ANTHROPIC_API_KEY; OPENAI_API_KEY or the variable `openai.api_key_env` names) and are
never a setting, never stored.

Importing pydantic-settings costs about 150 ms of CPU here, as much as a whole `assistant reminders`:
so a validated result is kept in the cache dir under the exact inputs it came from, and a command whose
file, variables and flags did not change since reads it back without importing pydantic at all.
"""
from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from datetime import datetime, time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast, get_args, get_type_hints
from urllib.parse import urlsplit

from assistant import paths
from assistant.errors import BadInput
from memory.consolidation import options as consolidation_options
from memory.consolidation.options import Options
from memory.errors import InvalidInput
from memory.files import expand
from memory.store import check_path
from memory.text import CONTROL
from memory.time.instants import UTC, check_instant
from memory.time.zones import zone_from_name

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, TypeAdapter
    from pydantic_settings import BaseSettings

ENV_PREFIX = "ASSISTANT_"
# The clients' own variables, read as the settings they name; the app's own variable wins when both are set.
ENV_ALIASES = {"OLLAMA_HOST": "ASSISTANT_OLLAMA__HOST", "OPENAI_BASE_URL": "ASSISTANT_OPENAI__BASE_URL",
               "ASSISTANT_OLLAMA_MODEL": "ASSISTANT_OLLAMA__MODEL"}
NOT_SETTINGS = ("ASSISTANT_CONFIG", "ASSISTANT_NOW")  # where the file is, the frozen clock: read on their own
MINUTES_A_MONTH, MINUTES_A_YEAR = 60 * 24 * 30, 60 * 24 * 365


class SettingsError(BadInput):
    """A setting that cannot be used; the message names the key and its source."""


# -- the rules, as annotations pydantic reads when it validates (it is imported only then) ------------------

class Range:
    """The bounds of a number; true and false are refused (Python would count them as 1 and 0).
    (Plain classes, these two: a dataclass costs a millisecond of every start-up.)"""

    def __init__(self, ge: float | None = None, gt: float | None = None, le: float | None = None,
                 lt: float | None = None) -> None:
        self.ge, self.gt, self.le, self.lt = ge, gt, le, lt

    def __repr__(self) -> str:
        return f"Range(ge={self.ge}, gt={self.gt}, le={self.le}, lt={self.lt})"

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from pydantic import BeforeValidator, Field

        bounds = Field(ge=self.ge, gt=self.gt, le=self.le, lt=self.lt)
        return handler.generate_schema(Annotated[source, bounds, BeforeValidator(_not_a_boolean)])


class Check:
    """A rule beyond the type: `rule` raises ValueError saying what is wrong with the value."""

    def __init__(self, rule: Callable[[Any], None]) -> None:
        self.rule = rule

    def __repr__(self) -> str:
        return f"Check({self.rule.__qualname__})"

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from pydantic import AfterValidator

        def checked(value: Any) -> Any:
            self.rule(value)
            return value

        return handler.generate_schema(Annotated[source, AfterValidator(checked)])


def _not_a_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {str(value).lower()}")
    return value


def _shown(value: Any) -> str:
    """A value quoted in a message: repr (control characters escaped), a pasted megabyte cut short."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _address(example: str, empty_allowed: bool = False) -> Callable[[str], None]:
    """A server address a client can use: http(s)://host[:port][/path], or host[:port]."""
    def rule(host: str) -> None:


        if empty_allowed and not host:
            return
        try:
            parts = urlsplit(host if "://" in host else f"http://{host}")
            parts.port  # noqa: B018  # reading it checks it
            good = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:
            good = False
        if any(c.isspace() for c in host) or CONTROL.search(host):
            good = False  # urlsplit drops tabs and line breaks silently; they would reach messages and headers
        if not good:
            raise ValueError(f"{_shown(host)} is not an address such as {example}")
    return rule


def _variable_name(name: str) -> None:

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        # The name of a variable, never the key: a value that looks like a key is refused, not echoed.
        raise ValueError("must name an environment variable (such as OPENAI_API_KEY), not hold the key")


def _usable_headers(headers: dict[str, str]) -> None:

    for header, value in headers.items():
        if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", header) or any(c in value for c in "\r\n\0"):
            raise ValueError(f"{_shown(header[:40])} is not a usable header")


def _zone(name: str) -> None:
    if name:

        try:
            zone_from_name(name)
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None


def _store_path(path: str) -> None:
    """The store is a file the app keeps: not an SQLite URI, not ":memory:" (nothing would be saved)."""
    if not path:
        return  # the default place

    if not path.strip():
        raise ValueError("names no file (only spaces); give the path of a database file")
    try:
        check_path(path, in_memory=False)
    except InvalidInput as exc:
        raise ValueError(str(exc)) from None


def _clock_time(text: str) -> time | None:
    """24-hour "HH:MM" (spaces around allowed), else None."""
    hour, sep, minute = text.strip().partition(":")
    if sep and hour.isascii() and hour.isdigit() and len(hour) <= 2 and minute.isascii() and minute.isdigit() \
            and len(minute) == 2 and int(hour) < 24 and int(minute) < 60:
        return time(int(hour), int(minute))
    return None


def _time_of_day(empty_allowed: bool) -> Callable[[str], None]:
    def rule(text: str) -> None:
        if not (empty_allowed and not text) and _clock_time(text) is None:
            raise ValueError(f"must be a time of day such as \"09:00\", got {_shown(text[:40])}")
    return rule


# -- the settings ----------------------------------------------------------------------------------------

Provider = Literal["", "anthropic", "openai", "ollama", "offline"]
LocalProvider = Literal["", "ollama", "openai"]
JsonFormat = Literal["auto", "json_schema", "json_object", "prompt"]
Seconds = Annotated[float, Range(ge=1, le=3600)]
Tokens = Annotated[int, Range(ge=0, le=1_000_000)]


class Table:
    """A table of the config file (the file itself is the outer one): a key it does not declare is an
    error, not ignored."""
    __pydantic_config__ = {"extra": "forbid"}


@dataclass
class OllamaSettings(Table):
    host: Annotated[str, Check(_address("http://127.0.0.1:11434"))] = "http://127.0.0.1:11434"
    model: str = "llama3.2:3b"  # consolidation and titles
    chat_model: str = ""  # chat with the ollama provider; empty = same as model
    timeout_seconds: Seconds = 60.0


@dataclass
class OpenAISettings(Table):
    """Any OpenAI-compatible endpoint (LM Studio, llama-server, vLLM, Ollama's /v1, OpenRouter)."""
    # e.g. http://127.0.0.1:1234/v1; empty = OpenAI's own API
    base_url: Annotated[str, Check(_address("http://127.0.0.1:1234/v1", empty_allowed=True))] = ""
    model: str = ""  # empty: ASSISTANT_MODEL if set, else the first model the server lists
    # the variable that holds the key (never the key itself)
    api_key_env: Annotated[str, Check(_variable_name)] = "OPENAI_API_KEY"
    # extra headers on every request
    headers: Annotated[dict[str, str], Check(_usable_headers)] = field(default_factory=dict)
    timeout_seconds: Seconds = 120.0
    max_retries: Annotated[int, Range(ge=0, le=10)] = 2  # 429 and 5xx are retried this many times with backoff
    json_format: JsonFormat = "auto"  # how structured answers are asked for


@dataclass
class PromptSettings(Table):
    max_memory_tokens: Annotated[int, Range(ge=200, le=1_000_000)] = 6000
    time_tokens: Tokens = 80
    reminders_tokens: Tokens = 800
    recent_tokens: Tokens = 400
    timeline_tokens: Tokens = 1800
    episodes_tokens: Tokens = 600
    summaries_tokens: Tokens = 2000
    timeline_memories: Annotated[int, Range(ge=1, le=1000)] = 12


@dataclass
class ConsolidationSettings(Options, Table):
    """When consolidation runs, and the pipeline's own options: an Options, so its fields and defaults are
    written once (memory.consolidation) and this only adds the bounds a config file is held to."""
    enabled: bool = True
    idle_minutes: Annotated[float, Range(ge=0, le=MINUTES_A_YEAR)] = 30
    memory_threshold: Annotated[int, Range(ge=1, le=10_000_000)] = 50
    min_interval_hours: Annotated[float, Range(ge=0, le=24 * 365)] = 24
    similarity_threshold: Annotated[float, Range(gt=0, lt=1)] = Options.similarity_threshold
    min_cluster: Annotated[int, Range(ge=2, le=1000)] = Options.min_cluster
    max_cluster: Annotated[int, Range(ge=2, le=1000)] = Options.max_cluster
    neighbours: Annotated[int, Range(ge=1, le=200)] = Options.neighbours
    supersession_similarity: Annotated[float, Range(gt=0, lt=1)] = Options.supersession_similarity
    supersession_confidence: Annotated[float, Range(gt=0, le=1)] = Options.supersession_confidence

    def __post_init__(self) -> None:
        if self.min_cluster > self.max_cluster:
            raise ValueError(f"min_cluster ({self.min_cluster}) is larger than max_cluster ({self.max_cluster})")


@dataclass
class ReminderSettings(Table):
    # when a day without a clock time is due ("tomorrow", "every Monday")
    default_time: Annotated[str, Check(_time_of_day(empty_allowed=False))] = "09:00"

    def default_clock_time(self) -> time:
        return _clock_time(self.default_time) or time(9, 0)


@dataclass
class NotifySettings(Table):
    # local time of a daily briefing of the day's reminders, "HH:MM"; empty = none
    briefing_time: Annotated[str, Check(_time_of_day(empty_allowed=True))] = ""

    def briefing_clock_time(self) -> time | None:
        return _clock_time(self.briefing_time)


def _calendar_address(url: str) -> None:
    """A CalDAV address: http(s)://host[:port][/path], with no password in it (that is
    ASSISTANT_CALDAV_PASSWORD's, never the config's)."""
    if not url:
        return
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"{_shown(url)} is not an address such as https://dav.example.com/ (http:// or https://)")
    _address("https://dav.example.com/")(url)
    if "@" in urlsplit(url).netloc:
        raise ValueError("must not hold a user or password (give username here and the password in "
                         "ASSISTANT_CALDAV_PASSWORD)")


def _calendar_name(name: str) -> None:
    if not name.strip() or CONTROL.search(name) or len(name) > 200:
        raise ValueError(f"must be a calendar's name (1 to 200 characters, no control characters), got {_shown(name)}")


@dataclass
class CaldavSettings(Table):
    """Reminders on every device (SPEC F15): the password only from ASSISTANT_CALDAV_PASSWORD."""
    url: Annotated[str, Check(_calendar_address)] = ""  # the server, or a calendar's own address; empty = no sync
    username: str = ""
    calendar: Annotated[str, Check(_calendar_name)] = "Assistant"  # its display name; made when missing
    interval_minutes: Annotated[float, Range(ge=0.05, le=MINUTES_A_MONTH)] = 5  # how often the app and notifier sync
    ca_bundle: str = ""  # a PEM file of the certificate authority of a server with its own; empty = the system's


@dataclass
class UiSettings(Table):
    theme: str = ""  # a Textual theme name; empty = Textual's default. Saved when picked from the palette.
    desktop_notifications: bool = True  # a desktop notification when a reminder falls due (none on headless machines)


@dataclass
class Settings(Table):
    db: Annotated[str, Check(_store_path)] = ""
    timezone: Annotated[str, Check(_zone)] = ""
    provider: Provider = ""
    model: str = "claude-sonnet-5-5"
    max_tokens: Annotated[int, Range(ge=1, le=200_000)] = 2048
    max_tool_rounds: Annotated[int, Range(ge=1, le=50)] = 5
    # the model's context window in tokens; None = ask the server
    context_window: Annotated[int, Range(ge=512, le=10_000_000)] | None = None
    first_token_timeout: Annotated[float, Range(gt=0, le=3600)] = 120.0  # seconds until the first token of an answer
    temporal_context_enabled: bool = True
    idle_gap_minutes: Annotated[float, Range(ge=1, le=MINUTES_A_MONTH)] = 30
    embedding_model: str = "bundled"
    # minutes of idle after which the embedder is unloaded; 0 = never
    embedding_unload_minutes: Annotated[float, Range(ge=0, le=MINUTES_A_YEAR)] = 15
    local_provider: LocalProvider = ""  # who serves titles, summaries, the judge; empty: see local_choice
    local_model: str = ""  # its model; empty: ollama.model, or the openai chat model
    ollama: OllamaSettings = field(default_factory=OllamaSettings)
    openai: OpenAISettings = field(default_factory=OpenAISettings)
    prompt: PromptSettings = field(default_factory=PromptSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)
    reminders: ReminderSettings = field(default_factory=ReminderSettings)
    notify: NotifySettings = field(default_factory=NotifySettings)
    ui: UiSettings = field(default_factory=UiSettings)
    caldav: CaldavSettings = field(default_factory=CaldavSettings)
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> keys
    mcp_token: str = ""  # the bearer token of `assistant mcp --http`; empty: a random one in the state dir
    # Not settable from the file: where the settings came from and the frozen clock.
    config_path: str = field(default="", init=False)
    now: str = field(default="", init=False)
    endpoint_in_file: bool = field(default=False, init=False)  # the file names an openai.base_url (SPEC F7)

    def db_path(self) -> Path:

        if not self.db:
            return paths.default_db()
        try:  # settings built without load_settings are held to the same rule
            _store_path(self.db)
        except ValueError as exc:
            raise SettingsError(f"settings: db: {exc}") from None
        return expand(self.db)

    def frozen_now(self) -> datetime | None:
        if not self.now:
            return None

        moment = datetime.fromisoformat(self.now)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _sections() -> dict[str, type[Table]]:
    found: dict[str, type[Table]] = {}
    for f in fields(Settings):
        kind = f.default_factory
        if isinstance(kind, type) and issubclass(kind, Table):
            found[f.name] = kind
    return found


SECTIONS = _sections()  # the [tables]: name -> its dataclass
SETTABLE = frozenset(f.name for f in fields(Settings) if f.init)  # from the file, or as ASSISTANT_<NAME>


# -- loading ---------------------------------------------------------------------------------------------

def load_settings(config: str | None = None, overrides: Mapping[str, Any] | None = None,
                  env: Mapping[str, str] | None = None) -> Settings:
    """Build the settings from every layer; `overrides` are command-line flags (None = not given)."""
    env = dict(os.environ if env is None else env)
    flags = {key: value for key, value in (overrides or {}).items() if value is not None}
    now_source, now = ("command line", str(flags.pop("now"))) if "now" in flags else \
        (f"environment variable {NOT_SETTINGS[1]}", env.get(NOT_SETTINGS[1], ""))
    explicit = config or env.get(NOT_SETTINGS[0])

    path = expand(explicit) if explicit else paths.config_file()
    if explicit and not path.is_file():
        raise SettingsError(f"config file not found: {path}")
    content = _read_config(path) if path.is_file() else None
    inputs = _inputs(path, content, env, flags)
    found = _cached(inputs)
    if found is None:
        found = _validated(path, content, env, flags)
        _keep(inputs, found)
    settings = found
    settings.config_path = str(path) if content is not None else ""
    if now:
        settings.now = now
        _check_now(settings, now_source)
    return settings


def _read_config(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror})") from None


MAX_KEY_DEPTH = 32  # the deepest real key is three levels (openai.headers."X-Name")


def _parse_toml(path: Path, content: bytes) -> dict[str, Any]:
    """The file's table; a file tomllib would take minutes over (a key 50,000 levels deep) is refused first."""
    import tomllib

    # A chain of more than MAX_KEY_DEPTH dotted key segments, found in linear time: it starts only where a
    # bare word starts and never backtracks into a segment (a plain pattern took 76 s on one 40,000-letter word).
    segment = r"""(?:[A-Za-z0-9_-]++|"[^"\n]*+"|'[^'\n]*+')"""
    deep_key = rf"(?<![A-Za-z0-9_-]){segment}(?:[ \t]*+\.[ \t]*+{segment}){{{MAX_KEY_DEPTH},}}"
    try:
        text = content.decode("utf-8")
        if re.search(deep_key, text):  # tomllib takes quadratic time in a key's depth: 50,000 levels never end
            raise SettingsError(f"{path}: not a config file (a key nested more than {MAX_KEY_DEPTH} levels deep)")
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise SettingsError(f"{path}: not a config file (nested too deeply)") from None


def _check_now(settings: Settings, source: str) -> None:

    try:
        moment = settings.frozen_now()
        if moment is not None:
            check_instant(moment, "frozen clock (--now)")
    except ValueError:
        raise SettingsError(f"{source}: now must be an ISO 8601 instant, got {_shown(settings.now[:80])}") from None
    except InvalidInput as exc:
        raise SettingsError(f"{source}: {exc}") from None


@cache
def _validator() -> TypeAdapter[Settings]:
    """Pydantic reading the dataclasses: their types, Range, Check, Literal choices, __post_init__."""
    from pydantic import TypeAdapter

    return TypeAdapter(Settings)


@cache
def _variables_model() -> type[BaseSettings]:
    """Settings as a pydantic-settings model (the same fields, read from the dataclass), for the one thing
    pydantic-settings does here: reading the variables (prefix, "__" nesting, JSON tables). Never validated
    itself: its __init__ would read os.environ, and a test's variables are its own."""
    from pydantic import Field
    from pydantic_settings import BaseSettings, SettingsConfigDict

    class Layers(BaseSettings):
        model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid")

    hints = get_type_hints(Settings, include_extras=True)
    declared: dict[str, Any] = {
        f.name: (hints[f.name], f.default if f.default is not MISSING
                 else Field(default_factory=cast(Callable[[], Any], f.default_factory)))
        for f in fields(Settings) if f.init}
    from pydantic import create_model

    return create_model("Settings", __base__=Layers, **declared)


def _validated(path: Path, content: bytes | None, env: Mapping[str, str], flags: Mapping[str, Any]) -> Settings:
    """The layers validated one on the other, so an error names the layer that brought the value: a bad
    file is reported even where a variable would override that key."""
    from pydantic import ValidationError

    validator = _validator()
    file_data = _parse_toml(path, content) if content is not None else {}
    variables, given_by = _environment(env)
    layers: list[tuple[dict[str, Any], Callable[[tuple[int | str, ...]], str]]] = [
        (file_data, lambda loc: str(path)),
        (variables, lambda loc: _variable_for(loc, given_by)),
        (dict(flags), lambda loc: "command line")]
    merged: dict[str, Any] = {}
    for data, source_of in layers:
        merged = _merged(merged, data)
        try:
            settings = validator.validate_python(merged)
        except ValidationError as exc:
            error = exc.errors()[0]
            raise SettingsError(_explained(error, source_of(error["loc"]))) from None
    settings.endpoint_in_file = bool(file_data.get("openai", {}).get("base_url"))  # valid: a table, a text
    return settings


def _environment(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[tuple[str, ...], str]]:
    """The ASSISTANT_* variables (and the clients' own, ENV_ALIASES) as one nested table, read by
    pydantic-settings, with the variable that gave each key (for messages)."""
    from pydantic_settings import EnvSettingsSource
    from pydantic_settings import SettingsError as UnreadableVariable

    named = {name: value for name, value in env.items() if name.upper() not in NOT_SETTINGS}
    given_by = {name.lower(): name for name in named}
    for alias, canonical in ENV_ALIASES.items():
        if alias in named and canonical.lower() not in given_by:
            named[canonical] = named[alias]
            given_by[canonical.lower()] = alias
    source = EnvSettingsSource(_variables_model())
    source.env_vars = {name.lower(): value for name, value in named.items()}  # this mapping, not os.environ
    paths_given = {tuple(name[len(ENV_PREFIX):].split("__")): given for name, given in given_by.items()
                   if name.startswith(ENV_PREFIX.lower())}
    try:
        return source(), paths_given
    except UnreadableVariable as exc:  # a table given whole, as JSON, that is not JSON
        for key, name in sorted(paths_given.items()):
            if len(key) == 1 and key[0] in (*SECTIONS, "keymap"):
                try:
                    json.loads(env[name])
                except ValueError:
                    raise SettingsError(f"environment variable {name}: {key[0]} must be a table, written as "
                                        "JSON such as {\"name\": \"value\"}") from None
        raise SettingsError(f"environment: {exc}") from None


def _variable_for(loc: tuple[int | str, ...], given_by: Mapping[tuple[str, ...], str]) -> str:
    key = tuple(str(part) for part in loc)
    names = sorted(name for path, name in given_by.items() if path[:len(key)] == key or key[:len(path)] == path)
    return f"environment variable {names[0]}" if len(names) == 1 else "environment"


def _merged(low: Mapping[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    """`high` over `low`, table by table (a variable that sets one key of [prompt] keeps the file's others)."""
    result = dict(low)
    for key, value in high.items():
        below = result.get(key)
        result[key] = _merged(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
    return result


def _explained(error: Mapping[str, Any], where: str) -> str:
    """One line for a pydantic error: where the value came from, the key, what is wrong."""
    key = ".".join(str(part) for part in error["loc"])
    kind, value, context = error["type"], error.get("input"), error.get("ctx", {})
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"{where}: unknown setting {key!r}"
    if kind == "literal_error":
        choices = [str(choice) for choice in get_args(_annotation(error["loc"])) if choice]
        wanted = " or ".join(choices) if len(choices) == 2 else "one of " + ", ".join(choices)
        return f"{where}: {key} must be {wanted} (got {_shown(value)})"
    bounds = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
              "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, name = bounds[kind]
        return f"{where}: {key} must be {words} {context.get(name)}, got {_shown(value)}"
    expected = {"int": "a whole number", "float": "a number", "finite": "a number", "bool": "true or false",
                "string": "text"}
    family = kind.split("_")[0]
    if family in expected:
        return f"{where}: {key}: expected {expected[family]}, got {_shown(value)}"
    if kind in ("dict_type", "dataclass_type", "model_type"):
        return f"{where}: {key} must be a table"
    if kind == "value_error" and "error" in context:
        return f"{where}: {key}: {context['error']}"
    return f"{where}: {key}: {error['msg']}"


def _annotation(loc: tuple[int | str, ...]) -> Any:
    """The declared type at `loc` (e.g. ("openai", "json_format")), its Literal choices included."""
    owner: Any = Settings
    for part in loc:
        owner = get_type_hints(owner, include_extras=True).get(str(part))
    return owner.__origin__ if hasattr(owner, "__metadata__") else owner


# -- the cache of validated settings ---------------------------------------------------------------------

CACHE_FORMAT = 1
CACHE_ENTRIES = 4  # the app, the notifier and a shell or two, each with its own variables


def _inputs(path: Path, content: bytes | None, env: Mapping[str, str], flags: Mapping[str, Any]) -> str:
    """Everything a result depends on: the file's bytes (by checksum), every variable read, the flags, and
    the code that declares the keys and their defaults (by its file's time and size)."""
    code = [[os.stat(source).st_mtime_ns, os.stat(source).st_size]
            for source in (__file__, consolidation_options.__file__)]
    file = None if content is None else [len(content), zlib.crc32(content), zlib.adler32(content)]
    read = sorted((name, value) for name, value in env.items() if name in ENV_ALIASES or (
        name.upper().startswith(ENV_PREFIX) and name[len(ENV_PREFIX):].lower().split("__")[0] in SETTABLE))
    return json.dumps([CACHE_FORMAT, code, str(path), file, read, sorted(flags.items())], default=str)


def _cache_file() -> Path:
    return paths.cache_dir() / "settings.json"


def _cached(inputs: str) -> Settings | None:
    try:
        for kept_inputs, kept in json.loads(_cache_file().read_text(encoding="utf-8")):
            if kept_inputs == inputs:
                return _from_plain(kept)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass  # no cache yet, or one this code cannot read: validate again
    return None


def _keep(inputs: str, settings: Settings) -> None:
    """Keep a validated result, newest first. Never one that may carry a credential (a header, a password
    in an address): those came from the environment or the config file and stay there."""
    if settings.openai.headers or any("@" in url.split("://", 1)[-1].split("/", 1)[0]
                                      for url in (settings.ollama.host, settings.openai.base_url)):
        return
    target = _cache_file()
    try:
        entries = [entry for entry in json.loads(target.read_text(encoding="utf-8")) if entry[0] != inputs]
    except (OSError, ValueError, TypeError, IndexError, KeyError):
        entries = []
    entries = [[inputs, _to_plain(settings)], *entries][:CACHE_ENTRIES]
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
            json.dump(entries, out)
        os.replace(partial, target)  # two processes at once: each replaces the whole file, none reads half
    except OSError:
        pass  # a cache that cannot be written costs the next start-up its speed, nothing else


def _to_plain(settings: Settings) -> dict[str, Any]:
    plain = asdict(settings)
    for name in ("config_path", "now"):  # where the settings are used from, and the clock, are never kept
        plain.pop(name)
    return plain


def _from_plain(plain: dict[str, Any]) -> Settings:
    in_file = plain.pop("endpoint_in_file")
    values: dict[str, Any] = {name: SECTIONS[name](**value) if name in SECTIONS else value
                              for name, value in plain.items()}
    settings = Settings(**values)
    settings.endpoint_in_file = in_file
    return settings


# -- writing one setting back ----------------------------------------------------------------------------

def save_setting(settings: Settings, section: str, key: str, value: str) -> Path:
    """Write one setting chosen inside the app (ui.theme, a keymap entry) into the config file, keeping the
    rest of it, the person's comments included (tomlkit). The new file must load, with the new value, before
    it replaces the old one (atomically; a symlinked config file is written through its link)."""
    text_keys = {name for name, kind in get_type_hints(SECTIONS[section]).items() if kind is str} \
        if section in SECTIONS else set()
    if section != "keymap" and key not in text_keys:
        raise SettingsError(f"unknown setting {section}.{key}")
    path = Path(settings.config_path) if settings.config_path else paths.config_file()
    path = path.resolve() if path.is_symlink() else path
    old = _read_config(path) if path.is_file() else b""
    _parse_toml(path, old)  # the same guards as loading, before tomlkit reads it
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(old.decode("utf-8"))
        if section not in document:
            document[section] = tomlkit.table()
        document[section][key] = value
        new = tomlkit.dumps(document).encode("utf-8")
    except (TOMLKitError, TypeError, KeyError) as exc:
        raise SettingsError(f"{path}: cannot save {section}.{key} ({exc})") from None
    saved = _validated(path, new, {}, {})  # the file alone: it holds only what it held, and the new value
    now_there = saved.keymap.get(key) if section == "keymap" else getattr(getattr(saved, section), key)
    if now_there != value:
        raise SettingsError(f"{path}: cannot save {section}.{key} (the file sets it in a way this edit cannot change)")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(new)
    if old:
        os.chmod(partial, path.stat().st_mode & 0o7777)  # the person's own permissions stay
    partial.replace(path)
    if section == "keymap":
        settings.keymap[key] = value
    else:
        setattr(getattr(settings, section), key, value)
    return path
