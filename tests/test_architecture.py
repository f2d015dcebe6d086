"""The shape of the house (SPEC section 1): ui -> assistant -> memory, no import cycles, a library
that does not speak the app, and inside each package its sub-packages and loose modules in layers.

Every import counts, also one inside a function: a lazy import may keep start-up fast, but it
must not hide a cycle. An import under `if TYPE_CHECKING:` is for the type checker only.

The layers of assistant/, lowest first. A unit (a sub-package or a loose module) imports only from
the layers below it:
  0  what everything stands on: errors, paths, the typed conversation, the reading of a message,
     the plain views, the input history, the desktop sender
  1  settings, logs, the notifier's installer, the morning briefing
  2  the runtime (one clock, one store, one embedder), the notifier
  3  providers (the chat and local models behind one protocol), forgetting
  4  outbound: the one gate and the one exit to a model
  5  recall, the recap's lines, consolidation wiring (jobs), status
  6  the prompt, the tools, the responder protocol
  7  the offline responder
  8  the turn: the agent loop and the model responder
  9  the service front ends use
  10 the MCP server (other AI tools' front end: above the service, started by the command line)
  11 the command line

The layers of memory/, lowest first:
  0  errors, doc ids, text and word helpers, the connection, the timeline's buckets, tombstone hashes
  1  time, private files, the vector index, the secret detector
  2  the schema and its migrations
  3  the store, a new memory's checks
  4  edges, summaries, episodes, search, the doctor, the records of turns (Why)
  5  supersession
  6  memories
  7  reminders, the undo record (changes), consolidation, the pages of every memory (browse)
  8  import and export

The layers of ui/, lowest first:
  0  text, the action table, shared messages, the desktop sender, toast placement
  1  failures said, due notices, the palette's commands
  2  the due watcher, the idle jobs
  3  widgets
  4  screens
  5  the app
  6  the entry point
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("memory", "assistant", "ui")
LAYER = {"memory": 0, "assistant": 1, "ui": 2}
ASSISTANT_LAYERS = [
    ("errors", "paths", "conversation", "reading", "views", "input_history", "desktop"),
    ("settings", "logs", "autostart", "briefing"),
    ("runtime", "notifier"),
    ("providers", "forgetting"),
    ("outbound",),
    ("recall", "recap", "jobs", "status"),
    ("prompt", "tools", "responder"),
    ("offline",),
    ("turn",),
    ("service",),
    ("mcp",),
    ("cli",),
]
MEMORY_LAYERS = [
    ("errors", "docs", "text", "words", "connection", "timeline", "tombstones"),
    ("time", "files", "vectors", "sensitive"),
    ("schema",),
    ("store", "new_memory"),
    ("secrets",),
    ("edges", "summaries", "episodes", "search", "health", "turn_records"),
    ("supersession",),
    ("memories",),
    ("reminders", "changes", "consolidation", "browse"),
    ("transfer",),
]
UI_LAYERS = [
    ("text", "actions", "messages", "desktop", "toasts"),
    ("failures", "due_notices", "commands"),
    ("due_watcher", "jobs"),
    ("widgets",),
    ("screens",),
    ("app",),
    ("entry",),
]


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The nodes under `if TYPE_CHECKING:` (imports the type checker reads and the program never runs)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for statement in node.body for n in ast.walk(statement))
    return skipped


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `path` imports (a name imported from a package is that package's module
    when it is one, else the package itself), lazy ones too, TYPE_CHECKING ones not."""
    out: set[str] = set()
    tree = ast.parse(path.read_text())
    skipped = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


def unit_of(module: str) -> str:
    """A module's unit: its package's sub-package (assistant.turn) or the loose module (assistant.service)."""
    return ".".join(module.split(".")[:2])


def layer_violations(package: str, layers: list[tuple[str, ...]]) -> list[str]:
    """Imports inside `package` that do not point to a lower layer, and units the table does not place."""
    level = {f"{package}.{unit}": n for n, units in enumerate(layers) for unit in units}
    found = []
    for module, targets in graph().items():
        if not module.startswith(f"{package}.") or unit_of(module) == package:
            continue
        unit = unit_of(module)
        if unit not in level:
            found.append(f"{unit} is in no layer")
            continue
        for target in targets:
            other = unit_of(target)
            if not target.startswith(f"{package}.") or other == unit or other == package:
                continue
            if level.get(other, len(layers)) >= level[unit]:
                found.append(f"{module} -> {target} (layer {level[unit]} -> {level.get(other, '?')})")
    return sorted(set(found))


def test_assistant_stands_in_layers():
    assert layer_violations("assistant", ASSISTANT_LAYERS) == []


def test_memory_stands_in_layers():
    assert layer_violations("memory", MEMORY_LAYERS) == []


def test_ui_stands_in_layers():
    assert layer_violations("ui", UI_LAYERS) == []


def test_the_layer_check_sees_a_lazy_import_that_runs_up(tmp_path):
    """A lazy import inside a function is an import: the check must see it (and not one under TYPE_CHECKING)."""
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import assistant.cli\n"
                      "def f():\n    from assistant.service import AssistantService\n")
    known = {"assistant.cli": source, "assistant.service": source}
    assert imports_of(source, known) == {"assistant.service"}


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
