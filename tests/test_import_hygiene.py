"""Import hygiene (as Harlequin's tests/unit_tests/test_import_hygiene.py): the commands that read or
change a few rows start in a fresh interpreter without importing a heavy module.

Each heavy module costs tenths of a second to import (numpy alone about 0.3 s on 2 cores, which
sqlite_utils and the sqlite_vec package pull in), and `assistant reminders` must answer within
150 ms. Embedding, clustering, natural-language dates, the model SDKs and the TUI are imported
by the commands that use them, when they use them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts a fresh interpreter

HEAVY = ("numpy", "onnxruntime", "fastembed", "tokenizers", "sklearn", "scipy", "sqlite_utils", "dateparser",
         "textual", "rich", "anthropic", "ollama", "httpx", "icalendar", "recurrent", "mcp")

LIGHT_COMMANDS = [
    ["remember", "call the plumber", "--due", "2026-11-23T10:00:00Z"],
    ["remember", "the plumber is called Ana", "--kind", "person"],
    ["reminders"],
    ["reminders", "--within-days", "30", "--json"],
    ["update", "1", "--reminded", "now"],
    ["snooze", "1", "2026-11-24T09:00:00Z"],
    ["done", "1"],
    ["forget", "2"],
    ["recap", "--hours", "72"],
    ["prompt"],
    ["status"],
    ["tiers"],
]

SCRIPT = """
import contextlib, io, json, sys
import ui.entry  # the console script's module: the TUI is imported only when launched
from assistant.cli import main

heavy, commands, report = set(json.loads(sys.argv[1])), json.loads(sys.argv[2]), []
for argv in commands:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(argv)
    loaded = sorted({name.split(".")[0] for name in sys.modules} & heavy)
    report.append({"argv": argv, "code": code, "heavy": loaded, "output": out.getvalue()[-300:]})
print(json.dumps(report))
"""


def test_light_commands_import_no_heavy_module(tmp_path: Path) -> None:
    env = {**os.environ, "ASSISTANT_DB": str(tmp_path / "m.db"), "ASSISTANT_NOW": "2026-11-22T14:00:00Z",
           "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_PROVIDER": "offline"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(HEAVY), json.dumps(LIGHT_COMMANDS)], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for step in report:
        assert step["code"] == 0, step
        assert step["heavy"] == [], f"`assistant {' '.join(step['argv'])}` imported {step['heavy']}"
    assert "call the plumber" in report[2]["output"]  # it did real work, not an early exit


def test_sqlite_vec_loads_without_its_package_import(tmp_path: Path) -> None:
    """memory.connection loads the extension by its file: `import sqlite_vec` would import numpy.typing."""
    probe = ("import sys; from memory.connection import connect; c = connect(sys.argv[1]); "
             "print(c.execute('select vec_version()').fetchone()[0], 'sqlite_vec' in sys.modules, "
             "'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "x.db")], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["v0.1.9", "False", "False"]


def test_reading_the_reminders_builds_no_validator(tmp_path: Path) -> None:
    """The checks of a new memory (pydantic, about 0.08 s to import and build) are loaded by the code that
    writes one: `assistant reminders` never pays for them, nor for pydantic to validate the settings
    (msgspec does, at every start)."""
    env = {**os.environ, "ASSISTANT_DB": str(tmp_path / "m.db"), "ASSISTANT_NOW": "2026-11-22T14:00:00Z",
           "ASSISTANT_TIMEZONE": "UTC", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    from memory.store import Store

    Store(tmp_path / "m.db").close()  # an empty store: `reminders` reads one, and creates none
    probe = ("import sys; from assistant.cli import main; code = main(['reminders']); "
             "print(code, 'pydantic' in sys.modules, 'memory.new_memory' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60,
                           check=True).stdout.split()[-3:] for _ in range(2)]
    assert runs == [["0", "False", "False"], ["0", "False", "False"]]  # the first start as the next


def test_the_doctor_imports_sqlite_utils_and_nothing_else_heavy(tmp_path: Path) -> None:
    """The doctor looks into the file with sqlite-utils (and so pays for numpy): no other heavy module."""
    env = {**os.environ, "ASSISTANT_DB": str(tmp_path / "m.db"), "ASSISTANT_NOW": "2026-11-22T14:00:00Z",
           "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_PROVIDER": "offline"}
    commands = [["remember", "x"], ["doctor"]]
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(HEAVY), json.dumps(commands)], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert [step["code"] for step in report] == [0, 0]
    assert report[1]["heavy"] == ["numpy", "sqlite_utils"] and "Integrity: ok" in report[1]["output"]

