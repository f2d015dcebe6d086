"""The diagnostics log: written only when something is logged, 0600, secrets redacted; warnings for
the user are one line on stderr; an error the CLI reports in its own words is not said twice."""
from __future__ import annotations

import argparse
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from assistant import logs, paths

if TYPE_CHECKING:
    from assistant.runtime import Runtime


@pytest.fixture
def fresh_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved = (list(root.handlers), {n: list(logging.getLogger(n).handlers) for n in ("memory", "assistant")})
    root.handlers = []
    for name in saved[1]:
        logging.getLogger(name).handlers = []
    root.__dict__.pop("_assistant_configured", None)
    yield
    root.handlers = saved[0]
    for name, handlers in saved[1].items():
        logging.getLogger(name).handlers = handlers
    root.__dict__.pop("_assistant_configured", None)


def test_a_warning_is_one_line_on_stderr_and_a_redacted_0600_line_in_the_file(
        fresh_logging: None, capsys: pytest.CaptureFixture[str]) -> None:
    logs.setup_logging(stderr_warnings=True)
    log_file = paths.log_dir() / logs.LOG_FILE
    assert not log_file.exists()  # nothing logged yet, no file (and no handlers module imported for it)
    logging.getLogger("memory.test").warning("skipped a row: password=hunter2\n\x1b[2J")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("assistant: warning: skipped a row") and "\x1b" not in err
    text = log_file.read_text()
    assert "skipped a row" in text and "hunter2" not in text
    assert stat.S_IMODE(os.stat(log_file).st_mode) == 0o600


def test_a_quiet_record_goes_to_the_file_only(fresh_logging: None, capsys: pytest.CaptureFixture[str]) -> None:
    logs.setup_logging(stderr_warnings=True)
    logging.getLogger("assistant").error("unexpected error", extra={"quiet": True})
    assert capsys.readouterr().err == ""
    assert "unexpected error" in (paths.log_dir() / logs.LOG_FILE).read_text()


def test_an_unexpected_error_is_one_line_and_its_trace_is_in_the_log(fresh_logging: None,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    from assistant.cli import maintenance, program

    def broken(runtime: Runtime, args: argparse.Namespace) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(maintenance, "cmd_status", broken)
    assert program.main(["status", "--db", str(tmp_path / "m.db")]) == 1
    err = capsys.readouterr().err
    assert err == "assistant: unexpected error: RuntimeError: boom (details in the log)\n"
    assert "Traceback" in (paths.log_dir() / logs.LOG_FILE).read_text()
