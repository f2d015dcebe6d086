"""Vocabulary kept as data beside the code that reads it (SPEC F14): a folder `vocabulary/` of one TOML file
per language (en.toml, es.toml, ...), each holding the same tables (month names, the words a request opens
with, ...). A table is read across the languages in the order given, English first, each file once.

A new word, a new language: a line in a data file, not in the code. The one loader for every such folder
(the secret detector's words, the reading's keywords, the clock's month and weekday names).
"""
from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any


@cache
def language(folder: Path, name: str) -> dict[str, Any]:
    """One language's file in `folder`, read once ({} when the folder has none for it)."""
    path = folder / f"{name}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def table(folder: Path, name: str, languages: tuple[str, ...] = ("en",)) -> list[Any]:
    """A table's entries over `languages`, in order: a list table's items, a text table's words, a
    keyed table's (key, value) pairs."""
    out: list[Any] = []
    for code in languages:
        value = language(folder, code).get(name)
        if value is None:
            continue
        if isinstance(value, str):
            out += value.split()
        elif isinstance(value, dict):
            out += list(value.items())
        else:
            out += list(value)
    return out
