"""The `assistant` console script: the CLI, with the TUI as what runs when no command is given.

It lives in `ui` so that `assistant` never imports `ui` (SPEC section 1); the TUI itself is
imported only when it is launched, so CLI commands start fast.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from assistant.cli.program import main as cli_main

if TYPE_CHECKING:
    from assistant.settings import Settings


def launch(settings: Settings) -> int:
    from ui.app import run_app

    return run_app(settings)


def main() -> int:
    return cli_main(sys.argv[1:], launch=launch)


if __name__ == "__main__":
    sys.exit(main())
