"""Settings (SPEC F10): defaults < config file < ASSISTANT_* environment < command-line flags.

Every key is documented in config.example.toml. The settings are plain dataclasses whose annotations
carry the rules: the type, `Range` (msgspec's Meta: the bounds of a number), a `Literal` of choices, and
`Check(rule)` for what a type cannot say (an address, a zone, a time of day). Each layer is a table:
tomllib reads the file, `_environment` the ASSISTANT_* variables (nested with "__", a whole table as
JSON) and the clients' own (ENV_ALIASES), the flags come as they are; msgspec converts the layers
merged so far into the dataclasses (types, bounds, choices, `__post_init__`), layer by layer, so an
invalid value is one line naming the key and the layer that brought it (the file, or the variable).
msgspec imports in a few milliseconds, so every start-up validates: nothing is cached. API keys are
read from the environment only (ANTHROPIC_API_KEY; OPENAI_API_KEY or the variable `openai.api_key_env`
names) and are never a setting, never stored.

A new table (`[caldav]`, say) is three steps: a dataclass `CaldavSettings(Table)` with its keys, their
defaults and rules; a field `caldav: CaldavSettings = field(default_factory=CaldavSettings)` in
`Settings`; its keys, commented, in config.example.toml (tests/test_openai.py checks that every key is
there). The file, `ASSISTANT_CALDAV__<KEY>` and the messages then work by themselves. A secret (a
password) is never a key: read it from its own variable where it is used, as the API keys are.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, time
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints
from urllib.parse import urlsplit

import msgspec

from assistant import paths
from assistant.errors import BadInput
from assistant.replicas import Access, parse_replica
from memory.consolidation.options import Options
from memory.errors import InvalidInput
from memory.files import expand
from memory.store import check_path
from memory.text import CONTROL
from memory.time.instants import UTC, check_instant
from memory.time.zones import zone_from_name

ENV_PREFIX = "ASSISTANT_"
# The clients' own variables, read as the settings they name; the app's own variable wins when both are set.
ENV_ALIASES = {"OLLAMA_HOST": "ASSISTANT_OLLAMA__HOST", "OPENAI_BASE_URL": "ASSISTANT_OPENAI__BASE_URL",
               "ASSISTANT_OLLAMA_MODEL": "ASSISTANT_OLLAMA__MODEL"}
NOT_SETTINGS = ("ASSISTANT_CONFIG", "ASSISTANT_NOW")  # where the file is, the frozen clock: read on their own
MINUTES_A_MONTH, MINUTES_A_YEAR = 60 * 24 * 30, 60 * 24 * 365


class SettingsError(BadInput):
    """A setting that cannot be used; the message names the key and its source."""


# -- the rules, as annotations: msgspec reads the types, Range and Literal; Check is run after it -----------

Range = msgspec.Meta
"""The bounds of a number (ge, gt, le, lt). true and false are never a number (msgspec refuses them)."""


class Check:
    """A rule beyond the type: `rule` raises ValueError saying what is wrong with the value.
    (A plain class: a dataclass costs a millisecond of every start-up.)"""

    def __init__(self, rule: Callable[[Any], None]) -> None:
        self.rule = rule

    def __repr__(self) -> str:
        return f"Check({self.rule.__qualname__})"


def _shown(value: Any) -> str:
    """A value quoted in a message: as TOML writes a boolean, else repr (control characters escaped), a
    pasted megabyte cut short."""
    text = str(value).lower() if isinstance(value, bool) else repr(value)
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
    error, not ignored (`_unknown_key`)."""


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


def _replica(url: str) -> None:
    if url:
        try:
            parse_replica(url)
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None


@dataclass
class BackupSettings(Table):
    """Continuous replication with Litestream (SPEC F16); nothing is replicated unless `replica` is set."""
    # where the replica goes: file:///absolute/folder, sftp://user@host/path, s3://bucket/path
    replica: Annotated[str, Check(_replica)] = ""
    # an S3-compatible store's address (MinIO, Backblaze, R2, ...); empty: AWS itself
    endpoint: Annotated[str, Check(_address("https://s3.example.com", empty_allowed=True))] = ""
    region: str = ""  # the bucket's region, where the storage asks for one
    # the private key for an sftp:// replica; empty: ~/.ssh/id_ed25519, id_ecdsa or id_rsa, the first there
    ssh_key: str = ""

    def access(self) -> Access:
        return Access(self.endpoint, self.region, self.ssh_key)


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
    backup: BackupSettings = field(default_factory=BackupSettings)
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
    now_flag = "now" in flags  # an empty --now is a value, refused; an empty ASSISTANT_NOW is unset, as ASSISTANT_DB
    now_source, now = ("command line", str(flags.pop("now"))) if now_flag else \
        (f"environment variable {NOT_SETTINGS[1]}", env.get(NOT_SETTINGS[1], ""))
    explicit = config or env.get(NOT_SETTINGS[0])

    path = expand(explicit) if explicit else paths.config_file()
    if explicit and not path.is_file():
        raise SettingsError(f"config file not found: {path}")
    content = _read_config(path) if path.is_file() else None
    settings = _validated(path, content, env, flags)
    settings.config_path = str(path) if content is not None else ""
    if now or now_flag:
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
        if moment is None:  # an empty value, which frozen_now reads as no frozen clock
            raise ValueError(settings.now)
        check_instant(moment, "frozen clock (--now)")
    except ValueError:
        raise SettingsError(f"{source}: now must be an ISO 8601 instant, got {_shown(settings.now[:80])}") from None
    except InvalidInput as exc:
        raise SettingsError(f"{source}: {exc}") from None


Key = tuple[str, ...]  # a key's place: ("prompt", "max_memory_tokens"), ("keymap", "recap")


class _Refused(Exception):
    """A value a layer cannot have: its key, and a line that names it and says what is wrong (the
    layer's name goes before it: the file, the variable)."""

    def __init__(self, key: Key, line: str) -> None:
        super().__init__(line)
        self.key, self.line = key, line


def _validated(path: Path, content: bytes | None, env: Mapping[str, str], flags: Mapping[str, Any]) -> Settings:
    """The layers validated one on the other, so an error names the layer that brought the value: a bad
    file is reported even where a variable would override that key."""
    file_data = _parse_toml(path, content) if content is not None else {}
    variables, given_by = _environment(env)
    layers: list[tuple[dict[str, Any], Callable[[Key], str]]] = [
        (file_data, lambda key: str(path)),
        (variables, lambda key: _variable_for(key, given_by)),
        (dict(flags), lambda key: "command line")]
    merged: dict[str, Any] = {}
    settings = Settings()
    for data, source_of in layers:
        merged = _merged(merged, data)
        try:
            unknown = _unknown_key(data, Settings)
            if unknown:
                raise _Refused(unknown, f"unknown setting {'.'.join(unknown)!r}")
            try:
                # strict=False: a variable is text, and "4000" is read as the number a key wants
                settings = msgspec.convert(merged, Settings, strict=False)
            except msgspec.ValidationError as exc:
                raise _refusal(str(exc), merged) from None
            _check_rules(settings)
        except _Refused as refused:
            raise SettingsError(f"{source_of(refused.key)}: {refused.line}") from None
    settings.endpoint_in_file = bool(file_data.get("openai", {}).get("base_url"))  # valid: a table, a text
    return settings


def _environment(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[Key, str]]:
    """The ASSISTANT_* variables that name a setting (ASSISTANT_<KEY>, ASSISTANT_<TABLE>__<KEY>; a whole
    table as JSON) and the clients' own (ENV_ALIASES), as one nested table, with the variable that gave
    each key (for messages). A variable that names no setting is not ours: it is left alone."""
    def key_of(name: str) -> Key:
        return tuple(name[len(ENV_PREFIX):].lower().split("__"))

    def names_a_setting(key: Key) -> bool:  # or a key of a table: ASSISTANT_PROMPT__BOGUS is refused, by name
        return key[0] in SETTABLE and all(_is_table(_annotation(key[:depth])) or _annotation(key[:depth]) is None
                                          for depth in range(1, len(key)))  # ASSISTANT_MODEL__X: model has none

    given_by = {key_of(name): name for name in env
                if name.upper().startswith(ENV_PREFIX) and name.upper() not in NOT_SETTINGS
                and names_a_setting(key_of(name))}
    for alias, canonical in ENV_ALIASES.items():
        # Another tool's variable set to nothing (`OPENAI_BASE_URL= assistant`) is one not set, as that
        # tool reads it: it took the place of the config file's address with an empty one.
        if env.get(alias, "") != "" and key_of(canonical) not in given_by:
            given_by[key_of(canonical)] = alias
    table: dict[str, Any] = {}
    for key, name in sorted(given_by.items(), key=lambda item: (len(item[0]), item[0])):  # a whole table first
        value: Any = env[name]
        if _is_table(_annotation(key)):
            try:
                value = json.loads(value)
            except ValueError:
                raise SettingsError(f"environment variable {name}: {'.'.join(key)} must be a table, written as "
                                    "JSON such as {\"name\": \"value\"}") from None
        inner = table
        for part in key[:-1]:
            inner = inner.setdefault(part, {})
            if not isinstance(inner, dict):
                break  # under a table given as something else: that one is reported
        else:
            inner[key[-1]] = value
    return table, given_by


def _variable_for(key: Key, given_by: Mapping[Key, str]) -> str:
    names = sorted(name for path, name in given_by.items() if path[:len(key)] == key or key[:len(path)] == path)
    return f"environment variable {names[0]}" if len(names) == 1 else "environment"


def _merged(low: Mapping[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    """`high` over `low`, table by table (a variable that sets one key of [prompt] keeps the file's others)."""
    result = dict(low)
    for key, value in high.items():
        below = result.get(key)
        result[key] = _merged(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
    return result


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(table: type) -> dict[str, Any]:
    """A table's settable keys and their annotations (Annotated kept: Range, Check), read once."""
    if table not in _HINTS:
        hints = get_type_hints(table, include_extras=True)
        _HINTS[table] = {f.name: hints[f.name] for f in fields(table) if f.init}
    return _HINTS[table]


def _bare(annotation: Any) -> Any:
    """The type under Annotated[...] (its rules set aside)."""
    return annotation.__origin__ if get_origin(annotation) is Annotated else annotation


def _is_table(annotation: Any) -> bool:
    kind = _bare(annotation)
    return (isinstance(kind, type) and issubclass(kind, Table)) or get_origin(kind) is dict


def _annotation(key: Key) -> Any:
    """The declared type at `key` (None where nothing is declared): ("openai", "json_format") -> its Literal."""
    owner: Any = Settings
    for part in key:
        kind = _bare(owner)
        if isinstance(kind, type) and issubclass(kind, Table):
            owner = _hints(kind).get(part)
        elif get_origin(kind) is dict:
            owner = get_args(kind)[1]
        else:
            return None
    return owner


def _unknown_key(data: Mapping[str, Any], table: type) -> Key:
    """The first key of `data` that `table` does not declare (msgspec leaves a dataclass's unknown keys
    alone: `forbid_unknown_fields` is for its Structs), with the tables it is in; () when there is none."""
    declared = _hints(table)
    for key, value in data.items():
        if key not in declared:
            return (key,)
        inner = _bare(declared[key])
        if isinstance(value, dict) and isinstance(inner, type) and issubclass(inner, Table):
            deeper = _unknown_key(value, inner)
            if deeper:
                return (key, *deeper)
    return ()


def _check_rules(table: Table, under: Key = ()) -> None:
    """Run the Check rules of every key, in the tables too."""
    for name, annotation in _hints(type(table)).items():
        value = getattr(table, name)
        for rule in getattr(annotation, "__metadata__", ()):
            if isinstance(rule, Check):
                try:
                    rule.rule(value)
                except ValueError as exc:
                    raise _Refused((*under, name), f"{'.'.join((*under, name))}: {exc}") from None
        if isinstance(value, Table):
            _check_rules(value, (*under, name))


_ERROR = re.compile(r"(?P<problem>.*?)(?: - at `\$(?P<path>[^`]*)`)?", re.DOTALL)
_WRONG_TYPE = re.compile(r"Expected `(?P<expected>[^` |]+)[^`]*`, got `[^`]*`")
_OUT_OF_BOUNDS = re.compile(r"Expected `[^`]*` (?P<op>[<>]=?) (?P<bound>\S+)")
_BOUNDS = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}
_EXPECTED = {"int": "a whole number", "float": "a number", "bool": "true or false", "str": "text"}


def _refusal(error: str, data: Mapping[str, Any]) -> _Refused:
    """msgspec's error ("Expected `int` >= 512 - at `$.prompt.time_tokens`") as the key and one plain
    sentence with the value given."""
    found = _ERROR.fullmatch(error)
    problem, path = (found["problem"], found["path"] or "") if found else (error, "")
    key: Key = tuple(part for part in re.split(r"\.|\[\.\.\.\]", path) if part)
    if path.endswith("[...]"):  # an entry of a free-form table ([keymap]): msgspec does not say which one
        entries = _value_at(data, key)
        wanted = _annotation((*key, ""))
        key += next((str(name) for name, value in entries.items() if not _converts(value, wanted)), "?"),
    value, name = _value_at(data, key), ".".join(key)
    if wrong_type := _WRONG_TYPE.fullmatch(problem):
        expected = wrong_type["expected"]
        if expected == "object":
            return _Refused(key, f"{name} must be a table")
        if isinstance(value, bool) and expected in ("int", "float"):
            expected = "float"
        return _Refused(key, f"{name}: expected {_EXPECTED.get(expected, expected)}, got {_shown(value)}")
    if out_of_bounds := _OUT_OF_BOUNDS.fullmatch(problem):
        bound = float(out_of_bounds["bound"])
        shown = int(bound) if bound.is_integer() else bound
        return _Refused(key, f"{name} must be {_BOUNDS[out_of_bounds['op']]} {shown}, got {_shown(value)}")
    if problem.startswith("Invalid enum value"):
        choices = [str(choice) for choice in get_args(_bare(_annotation(key))) if choice]
        wanted = " or ".join(choices) if len(choices) == 2 else "one of " + ", ".join(choices)
        return _Refused(key, f"{name} must be {wanted} (got {_shown(value)})")
    return _Refused(key, f"{name}: {problem}" if name else problem)  # a table's own rule (__post_init__)


def _value_at(data: Any, key: Key) -> Any:
    for part in key:
        data = data.get(part) if isinstance(data, Mapping) else None
    return data


def _converts(value: Any, annotation: Any) -> bool:
    try:
        msgspec.convert(value, annotation, strict=False)
    except msgspec.ValidationError:
        return False
    return True


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
