"""The `assistant` console script: the CLI, with the TUI as what runs when no command is given.

It lives in `ui` so that `assistant` never imports `ui` (SPEC section 1); the TUI itself is
imported only when it is launched, so CLI commands start fast.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from assistant.cli.program import main as cli_main

if TYPE_CHECKING:
    from assistant.settings import Settings


M_ARENA_MAX = -8  # glibc's malloc.h
M_MMAP_THRESHOLD = -3
MALLOC_ARENAS = 2
MMAP_THRESHOLD = 256 * 1024


def bound_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Two malloc arenas for the whole app, as MALLOC_ARENA_MAX=2 would (an arena is the heap glibc gives
    a thread that allocates while another holds the main one: up to 8 per core, each keeping what was
    freed in it). The app's threads (workers, onnxruntime's and tokenizers' pools, Markdown's parser)
    each took one, and its resident memory moved between 220 and 330 MB from turn to turn with what
    they held. glibc fixes its limit when a thread first needs an arena beyond the eighth, so mallopt
    works here, before the app starts its threads, without a launcher that re-executes the process
    (measured in docs/footprint.md). A MALLOC_ARENA_MAX set by the person stands. True when set."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        import ctypes

        return bool(ctypes.CDLL("libc.so.6").mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False  # not glibc: its own allocator, nothing to bound


def fix_mmap_threshold(size: int = MMAP_THRESHOLD) -> bool:
    """Blocks of `size` bytes and more mapped on their own, and given back when freed, as
    MALLOC_MMAP_THRESHOLD_=262144 would. glibc raises its threshold (up to 32 MB) after the first such
    block is freed; from then on the model's tensors (a batch of long texts: 10 to 100 MB each) came from
    the heap, which kept them: embedding 64 long chat messages in batches of 8 took the app's process
    from 191 to 671-693 MB, with this to 268 MB, for ~10% more CPU a text (docs/footprint.md, issue 46).
    A MALLOC_MMAP_THRESHOLD_ set by the person stands. True when set."""
    if os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        return False
    try:
        import ctypes

        return bool(ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, size))
    except (OSError, AttributeError):
        return False


def launch(settings: Settings) -> int:
    bound_malloc_arenas()
    fix_mmap_threshold()
    from ui.app import run_app

    return run_app(settings)


def main() -> int:
    return cli_main(sys.argv[1:], launch=launch)


if __name__ == "__main__":
    sys.exit(main())
