"""Diagnostics: stdlib logging to a rotating file in the state dir (0600, secrets redacted), and
warnings worth the user's attention ("skipped an unreadable reminder") as one line on stderr."""
from __future__ import annotations

import io
import logging
import os
import sys
from pathlib import Path

from assistant import paths
from memory.text import visible

LOG_FILE = "assistant.log"


class _LogFile(logging.Handler):
    """The rotating 0600 log file with secrets redacted, built when the first record arrives: most
    commands log nothing, and need not import logging.handlers (socket, pickle) or the redaction
    patterns to say so."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self._file: logging.Handler | None = None
        self._broken = False

    def emit(self, record: logging.LogRecord) -> None:
        if self._file is None and not self._broken:
            try:
                self._file = _rotating_file(paths.log_dir() / LOG_FILE)
            except OSError:
                self._broken = True  # no writable state dir: the app works without its log
        if self._file is not None:
            from memory.sensitive import redact

            record.msg, record.args = redact(record.getMessage()), None
            self._file.handle(record)


def _rotating_file(path: Path) -> logging.Handler:
    import logging.handlers

    class PrivateRotatingFile(logging.handlers.RotatingFileHandler):
        # Every file it opens (also after a rollover) is 0600: messages quote memories.
        def _open(self) -> io.TextIOWrapper:
            stream = super()._open()
            os.chmod(self.baseFilename, 0o600)
            return stream

    handler = PrivateRotatingFile(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    return handler


class _StderrLine(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "quiet", False):  # the caller says it in its own words
            return

        print(f"assistant: warning: {visible(' '.join(record.getMessage().split()))}", file=sys.stderr)


def setup_logging(stderr_warnings: bool = True) -> None:
    """Once per process: the log file, and (for the CLI) warnings on stderr."""
    root = logging.getLogger()
    if getattr(root, "_assistant_configured", False):
        return
    root._assistant_configured = True  # type: ignore[attr-defined]
    root.setLevel(logging.INFO)
    root.addHandler(_LogFile())
    if stderr_warnings:
        warn = _StderrLine(logging.WARNING)
        for name in ("memory", "assistant"):
            logging.getLogger(name).addHandler(warn)
