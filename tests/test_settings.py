"""SPEC F10: layers (defaults < file < env < flags) and clear errors naming key and file."""
from __future__ import annotations

import pytest

from assistant.settings import SettingsError, load_settings


def test_layers(tmp_path):
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
def test_bad_file_names_key_and_file(tmp_path, text, fragment):
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(SettingsError) as info:
        load_settings(str(config), env={})
    assert fragment in str(info.value) and str(config) in str(info.value)


def test_bad_env_names_the_variable():
    with pytest.raises(SettingsError, match="ASSISTANT_TEMPORAL_CONTEXT_ENABLED"):
        load_settings(env={"ASSISTANT_TEMPORAL_CONTEXT_ENABLED": "maybe"})


def test_missing_explicit_config():
    with pytest.raises(SettingsError, match="config file not found"):
        load_settings("/nonexistent/config.toml", env={})


@pytest.mark.parametrize("text", ["a" + ".a" * 50_000 + " = 1\n", "[" + ".".join(["a"] * 50_000) + "]\n",
                                  "ui = {" + ".".join(['"a"'] * 50_000) + " = 1}\n",
                                  "[[" + " . ".join(["'a b'"] * 50_000) + "]]\n"],
                         ids=["key", "table", "inline", "quoted-array-table"])
def test_a_key_nested_50000_levels_deep_is_refused_at_once(tmp_path, text):
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


def test_dotted_keys_of_real_depth_still_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('openai.headers."X-Title" = "assistant"\nollama . host = "http://127.0.0.1:11434"\n'
                    'ui.theme = "nord"  # a.b.c.d.e.f.g.h in a comment is no key\n')
    settings = load_settings(str(path), env={})
    assert settings.openai.headers == {"X-Title": "assistant"} and settings.ui.theme == "nord"
