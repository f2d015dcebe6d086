"""Diagnostics: stdlib logging to a rotating file in the state dir (0600, secrets redacted), and
warnings worth the user's attention ("skipped an unreadable reminder") as one line on stderr."""
from __future__ import annotations

import logging
import logging.handlers
import os
import sys

from assistant import paths
from memory.redact import redact

LOG_FILE = "assistant.log"


class _Redacting(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        return True


class _PrivateRotatingFile(logging.handlers.RotatingFileHandler):
    def _open(self):  # every file it opens (also after a rollover) is 0600: messages quote memories
        stream = super()._open()
        os.chmod(self.baseFilename, 0o600)
        return stream


class _StderrLine(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "quiet", False):  # the caller says it in its own words
            return
        from assistant.terminal import visible

        print(f"assistant: warning: {visible(' '.join(record.getMessage().split()))}", file=sys.stderr)


def setup_logging(stderr_warnings: bool = True) -> None:
    """Once per process: the log file, and (for the CLI) warnings on stderr."""
    root = logging.getLogger()
    if getattr(root, "_assistant_configured", False):
        return
    root._assistant_configured = True  # type: ignore[attr-defined]
    root.setLevel(logging.INFO)
    try:
        handler = _PrivateRotatingFile(paths.log_dir() / LOG_FILE, maxBytes=1_000_000, backupCount=3,
                                       encoding="utf-8", delay=True)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(_Redacting())
        root.addHandler(handler)
    except OSError:
        pass  # no writable state dir: the app works without its log
    if stderr_warnings:
        warn = _StderrLine(logging.WARNING)
        for name in ("memory", "assistant"):
            logging.getLogger(name).addHandler(warn)
