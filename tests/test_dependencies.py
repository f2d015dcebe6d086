"""Every third-party package the code imports is declared in pyproject.toml (issue 20 item 9).

numpy, pydantic, python-dateutil, markdown-it-py, rich and onnxruntime were imported but arrived only
through other packages' requirements: a release of one of those that drops them would break an install.
"""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from tests.conftest import present

ROOT = Path(__file__).resolve().parent.parent
OURS = {"assistant", "memory", "ui", "tests", "benchmarks"}


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", present(re.match(r"[A-Za-z0-9_.-]+", requirement)).group(0)).lower()


def _imported(folders: tuple[str, ...]) -> dict[str, str]:
    """{top-level module: the first file importing it} for modules outside the standard library and ours."""
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in OURS:
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def _undeclared(modules: dict[str, str], declared: set[str]) -> list[str]:
    owners = packages_distributions()
    missing = []
    for module, where in sorted(modules.items()):
        dists = {_name(d) for d in owners.get(module, [module])}
        if not dists & declared:
            missing.append(f"{module} ({' or '.join(sorted(dists))}, imported in {where})")
    return missing


@pytest.mark.slow
def test_every_imported_package_is_a_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {_name(r) for r in project["dependencies"]}
    assert _undeclared(_imported(("assistant", "memory", "ui")), runtime) == []
    test_extra = runtime | {_name(r) for r in project["optional-dependencies"]["test"]}
    assert _undeclared(_imported(("tests",)), test_extra) == []
