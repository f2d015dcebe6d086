"""How the CLI prints: JSON with --json, else human text; stored text never reaches the terminal raw."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from memory.text import safe_json, visible


def json_text(data: Any) -> str:
    """JSON for a terminal: readable Unicode, every control character escaped."""
    return safe_json(data, indent=2)


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print a result: JSON with --json, else the human text, never a raw control character."""
    if getattr(args, "json", False):
        print(json_text(data))
    else:
        out = text() if callable(text) else text
        if out:
            print(visible(out))


def note(text: str) -> None:
    """A side remark on stderr (progress, what was written where)."""
    print(visible(text), file=sys.stderr)


def written(args: argparse.Namespace, data: Any, text: str) -> None:
    """Say what a command wrote to a file: JSON on stdout with --json, as `emit` prints it, else a note on
    stderr (the same command writes its records to stdout when it is given no file)."""
    if getattr(args, "json", False):
        emit(args, data, text)
    else:
        note(text)
