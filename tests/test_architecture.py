"""The shape of the house (SPEC section 1): ui -> assistant -> memory, no import cycles, inside each
package its sub-packages and loose modules in layers, and a library that does not speak the app.

The rules are import-linter contracts in pyproject.toml ([tool.importlinter]; `lint-imports` runs them
in .ci/run, and the first test here runs them too). How to place a new module in a layer:
docs/development.md#layout.
"""
from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("memory", "assistant", "ui")


@pytest.fixture(autouse=True)
def loggers_left_working() -> Iterator[None]:
    """lint_imports configures logging with dictConfig, which disables every logger that exists by then (ours
    too): a test after this one in the same worker never saw the titles' warning. Each is enabled again."""
    import logging

    def states() -> dict[str, bool]:
        return {name: logger.disabled for name, logger in logging.root.manager.loggerDict.items()
                if isinstance(logger, logging.Logger)}

    before = states()
    yield
    for name, disabled in before.items():
        logging.getLogger(name).disabled = disabled


def import_linter_options() -> dict[str, Any]:
    options: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return options


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out  # the report names each import that breaks a contract


def test_every_package_stands_in_exhaustive_layers() -> None:
    """A module new to a package is in no layer until someone places it: the contract says so."""
    layered = {contract["containers"][0]: contract.get("exhaustive") for contract in
               import_linter_options()["contracts"] if contract["type"] == "layers"}
    assert layered == dict.fromkeys(PACKAGES, True)


def test_the_contracts_see_a_lazy_import_and_not_a_type_checking_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An import inside a function is an import (a lazy one may keep start-up fast, never hide a layer
    broken); one under `if TYPE_CHECKING:` is for the type checker only. Our session options, a small
    package of three layers."""
    package = tmp_path / "house"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "top.py").write_text("")
    (package / "high.py").write_text("")
    (package / "low.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import house.top\n"
                                    "def f() -> None:\n    from house import high\n")
    session = {**import_linter_options(), "root_packages": ["house"]}
    del session["contracts"]
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.importlinter]\n" + "".join(f"{key} = {value!r}\n".replace("True", "true")
                                                        for key, value in session.items())
                      + '[[tool.importlinter.contracts]]\nname = "house"\ntype = "layers"\n'
                        'containers = ["house"]\nlayers = ["top", "high", "low"]\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 1
    report = capsys.readouterr().out
    assert "house.low -> house.high" in report and "house.top" not in report, report


def test_the_library_does_not_speak_the_app() -> None:
    """Messages of `memory` say what is wrong; the commands that fix it are the front end's to add."""
    app_words = re.compile(r"`assistant |--db\b|assistant doctor")
    found = []
    for path in (ROOT / "memory").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and app_words.search(node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
    assert found == []
