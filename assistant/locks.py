"""Advisory file locks held by one process at a time (the CalDAV sync's, the replicator's)."""
from __future__ import annotations

import fcntl
import time


def lock_within(fd: int, patience: float, step: float = 0.05) -> bool:
    """Take an exclusive lock on the open file `fd`, trying for up to `patience` seconds (every `step`);
    False when another process still holds it then."""
    deadline = time.monotonic() + patience
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(step)
