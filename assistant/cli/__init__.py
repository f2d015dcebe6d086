"""The `assistant` command line (SPEC F9): the parser and exit codes in `program`, one module per group of commands."""
from assistant.cli.program import main

__all__ = ["main"]
