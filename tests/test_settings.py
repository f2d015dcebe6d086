"""SPEC F10: layers (defaults < file < env < flags) and clear errors naming key and file."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assistant.settings import SettingsError, load_settings
from tests.conftest import present

if TYPE_CHECKING:
    from tests.conftest import Cli


def test_layers(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('timezone = "Europe/Berlin"\nmodel = "from-file"\n[ollama]\nmodel = "file-model"\n'
                      "[prompt]\nmax_memory_tokens = 3000\n")
    s = load_settings(str(config), env={})
    assert (s.timezone, s.model, s.ollama.model, s.prompt.max_memory_tokens) == \
        ("Europe/Berlin", "from-file", "file-model", 3000)
    env = {"ASSISTANT_MODEL": "from-env", "ASSISTANT_OLLAMA_MODEL": "env-model", "ASSISTANT_TIMEZONE": "Asia/Tokyo",
           "ASSISTANT_TEMPORAL_CONTEXT_ENABLED": "false", "OLLAMA_HOST": "http://127.0.0.1:5",
           "ASSISTANT_PROMPT__MAX_MEMORY_TOKENS": "4000", "ASSISTANT_DB": "/tmp/x.db"}
    s = load_settings(str(config), env=env)
    assert (s.model, s.ollama.model, s.timezone, s.temporal_context_enabled, s.ollama.host,
            s.prompt.max_memory_tokens) == ("from-env", "env-model", "Asia/Tokyo", False, "http://127.0.0.1:5", 4000)
    s = load_settings(str(config), {"db": "/tmp/flag.db", "now": None}, env=env)
    assert s.db == "/tmp/flag.db"


@pytest.mark.parametrize("text, fragment", [
    ("colour = 'blue'\n", "unknown setting 'colour'"),
    ("[prompt]\nmax_memory_tokens = 'x'\n", "prompt.max_memory_tokens"),
    ("provider = 'gpt'\n", "provider must be one of"),
    ("timezone = 'Mars/Olympus'\n", "unknown time zone"),
    ("this is = not toml [\n", "not valid TOML"),
])
def test_bad_file_names_key_and_file(tmp_path: Path, text: str, fragment: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(SettingsError) as info:
        load_settings(str(config), env={})
    assert fragment in str(info.value) and str(config) in str(info.value)


def test_bad_env_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="ASSISTANT_TEMPORAL_CONTEXT_ENABLED"):
        load_settings(env={"ASSISTANT_TEMPORAL_CONTEXT_ENABLED": "maybe"})


def test_missing_explicit_config() -> None:
    with pytest.raises(SettingsError, match="config file not found"):
        load_settings("/nonexistent/config.toml", env={})


@pytest.mark.slow
@pytest.mark.parametrize("text", ["a" + ".a" * 50_000 + " = 1\n", "[" + ".".join(["a"] * 50_000) + "]\n",
                                  "ui = {" + ".".join(['"a"'] * 50_000) + " = 1}\n",
                                  "[[" + " . ".join(["'a b'"] * 50_000) + "]]\n"],
                         ids=["key", "table", "inline", "quoted-array-table"])
def test_a_key_nested_50000_levels_deep_is_refused_at_once(tmp_path: Path, text: str) -> None:
    """Issue 20: tomllib takes quadratic time in a dotted key's depth, so such a config file hung every
    command. Run in a fresh process with a time limit, so that a hang fails this test instead of stalling
    the suite (the limit is a guard against hanging, far above the time it takes)."""
    import subprocess
    import sys

    path = tmp_path / "config.toml"
    path.write_text(text)
    code = "import sys; from assistant.cli.program import main; sys.exit(main(sys.argv[1:]))"
    out = subprocess.run([sys.executable, "-c", code, "status", "--config", str(path), "--db", str(tmp_path / "m.db")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "levels deep" in out.stderr, out.stderr
    assert not (tmp_path / "m.db").exists()


def test_dotted_keys_of_real_depth_still_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('openai.headers."X-Title" = "assistant"\nollama . host = "http://127.0.0.1:11434"\n'
                    'ui.theme = "nord"  # a.b.c.d.e.f.g.h in a comment is no key\n')
    settings = load_settings(str(path), env={})
    assert settings.openai.headers == {"X-Title": "assistant"} and settings.ui.theme == "nord"


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(config: Path | None, env: dict[str, str] | None = None,
            overrides: dict[str, Any] | None = None) -> str:
    """The one message a bad layer gets (one line)."""
    with pytest.raises(SettingsError) as info:
        load_settings(str(config) if config else None, overrides, env=env or {})
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message, message
    return message


# -- the keys of this round: context_window, first_token_timeout, notify.briefing_time, embedding_unload_minutes

def test_the_new_keys_default_to_what_the_example_config_says() -> None:
    from datetime import time

    s = load_settings(env={})
    assert (s.context_window, s.first_token_timeout, s.embedding_unload_minutes, s.notify.briefing_time) == \
        (None, 120.0, 15, "")
    assert s.notify.briefing_clock_time() is None and s.reminders.default_clock_time() == time(9, 0)


@pytest.mark.parametrize("text, expected", [
    ("context_window = 8192\n", ("context_window", 8192)),
    ("context_window = 512\n", ("context_window", 512)),
    ("first_token_timeout = 30.5\n", ("first_token_timeout", 30.5)),
    ("first_token_timeout = 5\n", ("first_token_timeout", 5.0)),
    ("embedding_unload_minutes = 0\n", ("embedding_unload_minutes", 0)),
    ("embedding_unload_minutes = 45\n", ("embedding_unload_minutes", 45)),
])
def test_new_keys_from_the_file(tmp_path: Path, text: str, expected: tuple[str, float]) -> None:
    name, value = expected
    assert getattr(load_settings(str(write(tmp_path, text)), env={}), name) == value


@pytest.mark.parametrize("written, clock", [("07:30", (7, 30)), (" 6:05 ", (6, 5)), ("23:59", (23, 59)), ("", None)])
def test_briefing_time_from_the_file(tmp_path: Path, written: str, clock: tuple[int, int] | None) -> None:
    from datetime import time

    s = load_settings(str(write(tmp_path, f'[notify]\nbriefing_time = "{written}"\n')), env={})
    assert s.notify.briefing_clock_time() == (time(*clock) if clock else None)


@pytest.mark.parametrize("text, fragment", [
    ("context_window = 100\n", "context_window must be at least 512, got 100"),
    ("context_window = 0\n", "context_window must be at least 512"),
    ("context_window = -4096\n", "context_window must be at least 512"),
    ("context_window = 4096.5\n", "context_window: expected a whole number, got 4096.5"),
    ("context_window = 'big'\n", "context_window: expected a whole number, got 'big'"),
    ("context_window = true\n", "context_window: expected a number, got true"),
    ("first_token_timeout = 0\n", "first_token_timeout must be more than 0"),
    ("first_token_timeout = -1.5\n", "first_token_timeout must be more than 0"),
    ("first_token_timeout = nan\n", "first_token_timeout must be"),
    ("first_token_timeout = 'soon'\n", "first_token_timeout: expected a number, got 'soon'"),
    ("embedding_unload_minutes = -1\n", "embedding_unload_minutes must be at least 0"),
    ("embedding_unload_minutes = 'never'\n", "embedding_unload_minutes: expected a number"),
    ('[notify]\nbriefing_time = "25:00"\n', "notify.briefing_time: must be a time of day such as \"09:00\""),
    ('[notify]\nbriefing_time = "7am"\n', "notify.briefing_time: must be a time of day"),
    ('[notify]\nbriefing_time = "07:5"\n', "notify.briefing_time: must be a time of day"),
    ("[notify]\nbriefing_time = 730\n", "notify.briefing_time: expected text, got 730"),
    ('[notify]\nbriefing = "07:00"\n', "unknown setting 'notify.briefing'"),
    ("notify = 5\n", "notify must be a table"),
])
def test_new_keys_bad_in_the_file_name_key_and_file(tmp_path: Path, text: str, fragment: str) -> None:
    config = write(tmp_path, text)
    message = refused(config)
    assert fragment in message and message.startswith(f"{config}: "), message


@pytest.mark.parametrize("var, value, name, expected", [
    ("ASSISTANT_CONTEXT_WINDOW", "4096", "context_window", 4096),
    ("ASSISTANT_FIRST_TOKEN_TIMEOUT", "2.5", "first_token_timeout", 2.5),
    ("ASSISTANT_EMBEDDING_UNLOAD_MINUTES", "0", "embedding_unload_minutes", 0),
    ("ASSISTANT_NOTIFY__BRIEFING_TIME", "06:45", "notify.briefing_time", "06:45"),
])
def test_new_keys_from_the_environment_over_the_file(tmp_path: Path, var: str, value: str, name: str,
                                                     expected: float | str) -> None:
    config = write(tmp_path, "context_window = 8192\nfirst_token_timeout = 60\nembedding_unload_minutes = 30\n"
                             '[notify]\nbriefing_time = "08:00"\n')
    s = load_settings(str(config), env={var: value})
    section, _, key = name.rpartition(".")
    assert getattr(getattr(s, section) if section else s, key) == expected


@pytest.mark.parametrize("var, value, fragment", [
    ("ASSISTANT_CONTEXT_WINDOW", "256", "context_window must be at least 512, got '256'"),
    ("ASSISTANT_CONTEXT_WINDOW", "lots", "context_window: expected a whole number, got 'lots'"),
    ("ASSISTANT_CONTEXT_WINDOW", "", "context_window: expected a whole number"),
    ("ASSISTANT_FIRST_TOKEN_TIMEOUT", "0", "first_token_timeout must be more than 0"),
    ("ASSISTANT_FIRST_TOKEN_TIMEOUT", "later", "first_token_timeout: expected a number"),
    ("ASSISTANT_EMBEDDING_UNLOAD_MINUTES", "-5", "embedding_unload_minutes must be at least 0"),
    ("ASSISTANT_NOTIFY__BRIEFING_TIME", "24:00", "notify.briefing_time: must be a time of day"),
])
def test_new_keys_bad_in_the_environment_name_the_variable(var: str, value: str, fragment: str) -> None:
    message = refused(None, env={var: value})
    assert message.startswith(f"environment variable {var}: ") and fragment in message, message


def test_a_bad_new_key_stops_the_cli_with_one_line(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSISTANT_CONTEXT_WINDOW", "100")
    code, out, err = cli("reminders")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "ASSISTANT_CONTEXT_WINDOW" in err


# -- layers and their messages -----------------------------------------------------------------------------

def test_a_bad_file_is_reported_even_where_a_variable_overrides_the_key(tmp_path: Path) -> None:
    config = write(tmp_path, "[prompt]\nmax_memory_tokens = 'lots'\n")
    message = refused(config, env={"ASSISTANT_PROMPT__MAX_MEMORY_TOKENS": "4000"})
    assert message.startswith(f"{config}: prompt.max_memory_tokens: expected a whole number"), message


def test_a_variable_sets_one_key_of_a_table_and_keeps_the_others(tmp_path: Path) -> None:
    config = write(tmp_path, "[prompt]\nmax_memory_tokens = 3000\ntimeline_tokens = 900\n")
    s = load_settings(str(config), env={"ASSISTANT_PROMPT__MAX_MEMORY_TOKENS": "4000"})
    assert (s.prompt.max_memory_tokens, s.prompt.timeline_tokens, s.prompt.time_tokens) == (4000, 900, 80)


def test_the_clients_own_variables_and_the_apps_own_winning_over_them() -> None:
    s = load_settings(env={"OLLAMA_HOST": "127.0.0.1:5", "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1",
                           "ASSISTANT_OLLAMA_MODEL": "qwen"})
    assert (s.ollama.host, s.openai.base_url, s.ollama.model) == ("127.0.0.1:5", "http://127.0.0.1:8080/v1", "qwen")
    assert not s.endpoint_in_file  # the variable alone does not select the endpoint (SPEC F7)
    s = load_settings(env={"OLLAMA_HOST": "127.0.0.1:5", "ASSISTANT_OLLAMA__HOST": "http://127.0.0.1:6",
                           "ASSISTANT_OLLAMA_MODEL": "qwen", "ASSISTANT_OLLAMA__MODEL": "llama"})
    assert (s.ollama.host, s.ollama.model) == ("http://127.0.0.1:6", "llama")
    message = refused(None, env={"OLLAMA_HOST": "http://bad host"})
    assert message.startswith("environment variable OLLAMA_HOST: ollama.host: ") and "is not an address" in message


def test_another_tools_variable_set_to_nothing_leaves_the_config_files_address(tmp_path: Path) -> None:
    """`OPENAI_BASE_URL= assistant`: the config file's server was replaced by an empty address, and the app
    looked for https://api.openai.com/v1 instead (it never said the configured server was down)."""
    config = write(tmp_path, '[openai]\nbase_url = "http://127.0.0.1:9/v1"\n')
    s = load_settings(str(config), env={"OPENAI_BASE_URL": "", "OLLAMA_HOST": ""})
    assert s.openai.base_url == "http://127.0.0.1:9/v1" and s.ollama.host == load_settings(env={}).ollama.host


def test_variables_that_are_no_setting_are_ignored_and_a_wrong_key_of_a_table_is_named() -> None:
    load_settings(env={"ASSISTANT_WHATEVER": "1", "ASSISTANT_": "x"})  # as before: not ours to judge
    message = refused(None, env={"ASSISTANT_PROMPT__BOGUS": "1"})
    assert message == "environment variable ASSISTANT_PROMPT__BOGUS: unknown setting 'prompt.bogus'"


def test_tables_from_the_environment_key_by_key_or_as_json() -> None:
    s = load_settings(env={"ASSISTANT_KEYMAP__RECAP": "ctrl+r"})
    assert s.keymap == {"recap": "ctrl+r"}
    s = load_settings(env={"ASSISTANT_KEYMAP": '{"recap": "ctrl+r", "help": "f2"}'})
    assert s.keymap == {"recap": "ctrl+r", "help": "f2"}
    message = refused(None, env={"ASSISTANT_KEYMAP": "recap=ctrl+r"})
    assert message.startswith("environment variable ASSISTANT_KEYMAP: keymap must be a table, written as JSON")
    message = refused(None, env={"ASSISTANT_PROMPT": "5"})
    assert message == "environment variable ASSISTANT_PROMPT: prompt must be a table"


@pytest.mark.parametrize("text, fragment", [
    ("max_tool_rounds = true\n", "max_tool_rounds: expected a number, got true"),
    ("max_tool_rounds = 99\n", "max_tool_rounds must be at most 50, got 99"),
    ("[consolidation]\nmin_cluster = 9\nmax_cluster = 4\n",
     "consolidation: min_cluster (9) is larger than max_cluster (4)"),
    ("[consolidation]\nsimilarity_threshold = 1\n", "consolidation.similarity_threshold must be less than 1"),
    ("[consolidation]\nsupersession_confidence = 0\n", "consolidation.supersession_confidence must be more than 0"),
    ('[ollama]\nhost = "http://x\\ty:1"\n', "ollama.host: 'http://x\\ty:1' is not an address"),
    ('[reminders]\ndefault_time = "9"\n', "reminders.default_time: must be a time of day"),
    ("[keymap]\nrecap = 5\n", "keymap.recap: expected text, got 5"),
    ('model = "' + "x" * 500 + '"\nmax_tokens = "' + "9" * 500 + '"\n', "max_tokens must be at most 200000, got '999"),
    ("now = '2024-01-01T00:00:00Z'\n", "unknown setting 'now'"),
    ("config_path = '/x'\n", "unknown setting 'config_path'"),
])
def test_more_bad_files(tmp_path: Path, text: str, fragment: str) -> None:
    config = write(tmp_path, text)
    message = refused(config)
    assert message.startswith(f"{config}: ") and fragment in message and len(message) < 300, message


def test_flags_are_the_top_layer_and_named_so(tmp_path: Path) -> None:
    s = load_settings(str(write(tmp_path, 'db = "/tmp/file.db"\n')), {"db": "/tmp/flag.db"},
                      env={"ASSISTANT_DB": "/tmp/env.db"})
    assert s.db == "/tmp/flag.db"
    assert refused(None, overrides={"db": "file:x.db?mode=memory"}).startswith("command line: db: ")
    assert refused(None, overrides={"now": "yesterday-ish"}).startswith("command line: now must be an ISO 8601")
    message = refused(None, env={"ASSISTANT_NOW": "soon"})
    assert message.startswith("environment variable ASSISTANT_NOW: now must be an ISO 8601")
    # An empty --now is a value, and no instant; an empty ASSISTANT_NOW is unset (as `ASSISTANT_NOW= cmd` means).
    assert refused(None, overrides={"now": ""}) == "command line: now must be an ISO 8601 instant, got ''"
    assert load_settings(None, env={"ASSISTANT_NOW": ""}).frozen_now() is None


# -- the declarations ----------------------------------------------------------------------------------------

def test_every_number_has_bounds() -> None:
    """A number without bounds would take any value a typo gives it; Range is also what refuses true/false."""
    import dataclasses
    import typing

    from assistant.settings import SECTIONS, Range, Settings, Table

    owners: list[type[Table]] = [Settings, *SECTIONS.values()]
    for owner in owners:
        assert dataclasses.is_dataclass(owner)
        for f in dataclasses.fields(owner):
            hint = typing.get_type_hints(owner, include_extras=True)[f.name]
            inner = [a for a in typing.get_args(hint) if a is not type(None)] if typing.get_origin(hint) is \
                typing.Union or type(hint).__name__ == "UnionType" else [hint]
            for kind in inner:
                base = typing.get_args(kind)[0] if hasattr(kind, "__metadata__") else kind
                if base in (int, float):
                    assert any(isinstance(m, Range) for m in getattr(kind, "__metadata__", ())), \
                        f"{owner.__name__}.{f.name} has no Range"


def test_consolidation_settings_are_the_pipelines_options() -> None:
    import dataclasses

    from assistant.settings import ConsolidationSettings
    from memory.consolidation.options import Options

    settings = ConsolidationSettings()
    assert isinstance(settings, Options)
    assert all(getattr(settings, f.name) == getattr(Options(), f.name) for f in dataclasses.fields(Options))


# -- every start-up validates (msgspec), none pays for pydantic -------------------------------------------------

@pytest.mark.slow
def test_a_fresh_process_validates_the_settings_without_pydantic_and_keeps_nothing(tmp_path: Path) -> None:
    """The settings were once kept in the cache dir to spare each start-up pydantic's import; msgspec
    validates the whole example config in a millisecond: the same settings, nothing written, no pydantic."""
    import dataclasses
    import json
    import os
    import shutil
    import subprocess
    import sys

    config = tmp_path / "config.toml"
    shutil.copy(Path(__file__).resolve().parent.parent / "config.example.toml", config)
    env = {"ASSISTANT_PROMPT__MAX_MEMORY_TOKENS": "4000", "OLLAMA_HOST": "127.0.0.1:5", "ASSISTANT_DB": "/tmp/x.db"}
    cache = tmp_path / "cache"
    code = ("import sys, dataclasses, json; from assistant.settings import load_settings; "
            "s = load_settings(sys.argv[1]); "
            "print(json.dumps(dataclasses.asdict(s), sort_keys=True)); print('pydantic' in sys.modules)")
    env = {**os.environ, **env, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run([sys.executable, "-c", code, str(config)], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    read, imported = out.stdout.splitlines()
    here = json.dumps(dataclasses.asdict(load_settings(str(config), env=env)), sort_keys=True)
    assert (read, imported) == (here, "False") and '"max_memory_tokens": 4000' in read
    assert not cache.exists() or not list(cache.rglob("*"))


def test_no_credential_is_ever_written_by_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """API keys only from the environment: a saved setting holds none, nor does any file the settings
    write (a header or an address with a password in it stays where it came from)."""
    import json
    import os

    from assistant.settings import save_setting

    home = os.environ["HOME"]
    secret = "sk-SECRET-0123456789"
    env = {"ANTHROPIC_API_KEY": secret, "OPENAI_API_KEY": secret, "ASSISTANT_API_KEY": secret,
           "OLLAMA_HOST": f"http://me:{secret}@127.0.0.1:11434"}
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    save_setting(settings, "ui", "theme", "nord")
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:11434")
    monkeypatch.setenv("ASSISTANT_OPENAI", json.dumps({"headers": {"Authorization": f"Bearer {secret}"}}))
    assert load_settings().openai.headers == {"Authorization": f"Bearer {secret}"}
    headers = write(tmp_path, f'[openai.headers]\nAuthorization = "Bearer {secret}"\n', "with-headers.toml")
    assert load_settings(str(headers)).openai.headers == {"Authorization": f"Bearer {secret}"}
    written = [p for root in (home, tmp_path) for p in Path(root).rglob("*") if p.is_file() and p != headers]
    assert any(p.name == "config.toml" for p in written)
    assert not [p for p in written if secret.encode() in p.read_bytes()]


# -- writing one setting back ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ['ui.theme = "nord"  # mine\n',
                                  'ui = {theme = "nord", desktop_notifications = false}\n',
                                  "# top\n[ui]\n# my theme\ntheme = 'nord'\n\n[keymap]\n# mine\nrecap = \"ctrl+r\"\n",
                                  "", "# only a comment\n"])
def test_save_setting_writes_the_theme_and_keymap_entries_in_any_form_keeping_comments(tmp_path: Path,
                                                                                       text: str) -> None:
    from assistant.settings import save_setting

    config = write(tmp_path, text)
    settings = load_settings(str(config), env={})
    assert save_setting(settings, "ui", "theme", "gruvbox") == config
    save_setting(settings, "keymap", "new-conversation", "ctrl+n")
    assert (settings.ui.theme, settings.keymap["new-conversation"]) == ("gruvbox", "ctrl+n")
    again = load_settings(str(config), env={})
    assert (again.ui.theme, again.keymap["new-conversation"]) == ("gruvbox", "ctrl+n")
    after = config.read_text()
    assert all(line in after for line in text.splitlines() if line.lstrip().startswith("#"))
    assert ("recap" not in text) or again.keymap["recap"] == "ctrl+r"


def test_save_setting_refuses_what_would_not_load_and_changes_nothing(tmp_path: Path) -> None:
    from assistant.settings import save_setting

    config = write(tmp_path, "# mine\n[ui]\ntheme = \"nord\"\n")
    settings = load_settings(str(config), env={})
    for section, key, value, fragment in [("reminders", "default_time", "25:00", "reminders.default_time"),
                                          ("ui", "colour", "red", "unknown setting ui.colour"),
                                          ("prompt", "max_memory_tokens", "9", "unknown setting"),
                                          ("nowhere", "x", "y", "unknown setting nowhere.x")]:
        with pytest.raises(SettingsError, match=fragment):
            save_setting(settings, section, key, value)
    assert config.read_text() == "# mine\n[ui]\ntheme = \"nord\"\n" and settings.reminders.default_time == "09:00"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_save_setting_keeps_the_files_permissions_and_writes_through_a_symlink(tmp_path: Path) -> None:
    import os

    from assistant.settings import save_setting

    real = write(tmp_path, '[ui]\ntheme = "nord"\n', "dotfiles.toml")
    os.chmod(real, 0o640)
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    save_setting(load_settings(str(link), env={}), "ui", "theme", "gruvbox")
    assert link.is_symlink() and load_settings(str(link), env={}).ui.theme == "gruvbox"
    assert os.stat(real).st_mode & 0o777 == 0o640


def test_every_variable_spec_f10_names_works(tmp_path: Path) -> None:
    config = write(tmp_path, 'model = "from-file"\n')
    s = load_settings(env={"ASSISTANT_CONFIG": str(config), "ASSISTANT_DB": str(tmp_path / "m.db"),
                           "ASSISTANT_NOW": "2026-11-22T14:00:00Z", "ASSISTANT_TIMEZONE": "Europe/Paris",
                           "ASSISTANT_PROVIDER": "offline", "ASSISTANT_MODEL": "chat",
                           "ASSISTANT_OLLAMA_MODEL": "small",
                           "ASSISTANT_CONTEXT_WINDOW": "8192", "ASSISTANT_FIRST_TOKEN_TIMEOUT": "45",
                           "ASSISTANT_LOCAL_PROVIDER": "openai", "ASSISTANT_LOCAL_MODEL": "tiny",
                           "ASSISTANT_TEMPORAL_CONTEXT_ENABLED": "0", "OLLAMA_HOST": "http://127.0.0.1:7",
                           "OPENAI_BASE_URL": "http://127.0.0.1:8/v1"})
    assert (s.config_path, s.db_path(), present(s.frozen_now()).isoformat(), s.timezone, s.provider, s.model) == \
        (str(config), tmp_path / "m.db", "2026-11-22T14:00:00+00:00", "Europe/Paris", "offline", "chat")
    assert (s.ollama.model, s.context_window, s.first_token_timeout, s.local_provider, s.local_model) == \
        ("small", 8192, 45.0, "openai", "tiny")
    assert (s.temporal_context_enabled, s.ollama.host, s.openai.base_url) == \
        (False, "http://127.0.0.1:7", "http://127.0.0.1:8/v1")
