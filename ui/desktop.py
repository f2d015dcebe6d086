"""Desktop notifications through `notify-send` where the session has one (absent on headless machines)."""
from __future__ import annotations

import html
import shutil
import subprocess

from ui.text import one_line


def notify_desktop(title: str, body: str) -> bool:
    """Send one notification; False when there is no notify-send or it failed. Never raises."""
    exe = shutil.which("notify-send")
    if exe is None:
        return False
    # Stored text: control characters shown as symbols, and the body escaped, since notification
    # servers read it as markup ("<a href=...>"); "--" so a title starting with "-" is not an option.
    title, body = one_line(title, 120), html.escape(one_line(body, 400), quote=False)
    try:
        done = subprocess.run([exe, "--app-name=assistant", "--", title, body], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
