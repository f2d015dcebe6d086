"""The shape of the house (SPEC section 1): ui -> assistant -> memory, no import cycles, a library
that does not speak the app.

Every import counts, also one inside a function: a lazy import may keep start-up fast, but it
must not hide a cycle."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("memory", "assistant", "ui")
LAYER = {"memory": 0, "assistant": 1, "ui": 2}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `path` imports (a name imported from a package is that package's module
    when it is one, else the package itself)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in known:
                    out.add(full)
                elif node.module in known:
                    out.add(node.module)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(path, known) - {name} for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_only_point_down_the_layers():
    backwards = [(module, target) for module, targets in graph().items() for target in targets
                 if LAYER[target.split(".")[0]] > LAYER[module.split(".")[0]]]
    assert backwards == []


def test_the_library_does_not_speak_the_app():
    """Messages of `memory` say what is wrong; the commands that fix it are the front end's to add."""
    app_words = re.compile(r"`assistant |--db\b|assistant doctor")
    found = []
    for name, path in modules().items():
        if not name.startswith("memory"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and app_words.search(node.value):
                found.append(f"{name}:{node.lineno}: {node.value[:60]!r}")
    assert found == []
