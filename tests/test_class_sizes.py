"""No class of the app is a drawer for everything (issue 41): a class in assistant/ or ui/ has at most
MOST methods, properties and Textual handlers counted alike. A class that grows past it is split by
subject (as AssistantService became assistant/services/) or into the pieces it is made of (as the chat
log's page reckoning went to its entries), not given one more method."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOST = 30
# Over MOST when this test was written, each being split on its own branch: it may not grow, and its
# line goes once it is back under (the test says so).
KNOWN: dict[str, int] = {}


def method_counts(source: str) -> dict[str, int]:
    """Each class of `source` and how many functions its own body defines (a nested class counts for itself)."""
    return {node.name: sum(isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) for child in node.body)
            for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)}


def classes() -> dict[str, int]:
    found = {}
    for package in ("assistant", "ui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for name, count in method_counts(path.read_text()).items():
                found[f"{path.relative_to(ROOT).as_posix()}:{name}"] = count
    return found


def test_no_class_has_more_than_MOST_methods() -> None:
    counts = classes()
    over = {name: count for name, count in counts.items() if count > MOST and count > KNOWN.get(name, 0)}
    assert over == {}, f"split these by subject or into their pieces (at most {MOST} methods): {over}"
    back_under = [name for name in KNOWN if counts.get(name, 0) <= MOST]
    assert back_under == [], f"back under {MOST} (or gone): remove from KNOWN: {back_under}"


def test_the_count_sees_properties_handlers_and_async_methods() -> None:
    source = """
class Pane:
    class Loaded:
        def __init__(self) -> None: ...
    @property
    def shown(self) -> int: ...
    @on(Resize)
    def laid_out(self) -> None: ...
    async def load(self) -> None: ...
    def on_mount(self) -> None:
        def inner() -> None: ...
"""
    assert method_counts(source) == {"Pane": 4, "Loaded": 1}
