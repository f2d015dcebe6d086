"""Desktop notifications through `notify-send` where the session has one (absent on headless machines)."""
from __future__ import annotations

import shutil
import subprocess


def notify_desktop(title: str, body: str) -> bool:
    """Send one notification; False when there is no notify-send or it failed. Never raises."""
    exe = shutil.which("notify-send")
    if exe is None:
        return False
    try:
        done = subprocess.run([exe, "--app-name=assistant", title, body], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
