"""The `assistant` command (SPEC F9). Bad input: exit 2 with one line on stderr, nothing written.

Modules that need fastembed, dateparser or a model SDK are imported inside the commands that use
them, so `assistant reminders` and friends start fast.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from assistant.runtime import Runtime
from assistant.settings import load_settings
from memory.errors import InvalidInput, StoreError

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1


class UsageError(InvalidInput):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not usage + message
        raise UsageError(message)


def _common(json_flag: bool = True) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument("--db", help="database file (default: user data dir; env ASSISTANT_DB)")
    parent.add_argument("--now", help="freeze the clock at this ISO 8601 instant (env ASSISTANT_NOW)")
    parent.add_argument("--config", help="config file (env ASSISTANT_CONFIG)")
    if json_flag:
        parent.add_argument("--json", action="store_true", help="print JSON")
    return parent


def build_parser() -> Parser:
    common = _common()
    parser = Parser(prog="assistant", description="A terminal personal assistant with a local memory.",
                    parents=[common])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def cmd(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, parents=[common])

    p = cmd("chat", "one turn without the TUI (prints the answer)")
    p.add_argument("message")
    p = cmd("remember", "store a memory; with --due it is a reminder")
    p.add_argument("text")
    p.add_argument("--due", help="ISO 8601 or natural language (\"tomorrow at 9am\")")
    p.add_argument("--kind", help="fact, preference, event, person, mood, decision, note, reminder")
    p.add_argument("--importance", type=int, default=3)
    p.add_argument("--private", action="store_true")
    p = cmd("reminders", "upcoming and overdue reminders, labelled")
    p.add_argument("--within-days", type=float, default=7)
    p = cmd("update", "change a memory (update_memory)")
    p.add_argument("id", type=int)
    p.add_argument("--reminded", help="now or a date")
    p.add_argument("--due")
    p.add_argument("--content")
    p.add_argument("--importance", type=int)
    p = cmd("done", "mark a reminder done")
    p.add_argument("id", type=int)
    p = cmd("snooze", "give a reminder a new due date")
    p.add_argument("id", type=int)
    p.add_argument("when", nargs="+")
    p = cmd("forget", "delete a memory for good")
    p.add_argument("id", type=int)
    p = cmd("recap", "recent conversations (list_recent)")
    p.add_argument("--hours", type=float, default=48)
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--outcome", choices=("success", "abandoned"))
    p = cmd("recall", "search memory (hybrid: keywords and meaning)")
    p.add_argument("query", nargs="+")
    p.add_argument("--mode", default="standard", choices=("reflexive", "standard", "deep", "exhaustive"))
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--reason", action="store_true", help="answer with dates resolved, with sources")
    p = cmd("prompt", "the system prompt this turn would send")
    p.add_argument("--query", default="")
    p = cmd("consolidate", "score, tier, cluster and summarise memories now")
    p.add_argument("--full", action="store_true", help="reconsider every memory, not only new ones")
    p.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    cmd("status", "database, counts, provider and consolidation state")
    cmd("tiers", "how many memories are in each tier")
    p = cmd("edges", "links of one memory (supersedes, consolidates)")
    p.add_argument("id", type=int)
    p = cmd("export", "write every record as JSON Lines, or open reminders as iCalendar (--ics)")
    p.add_argument("file", nargs="?")
    p.add_argument("--ics", metavar="FILE", help="write open reminders as an iCalendar file (- for stdout)")
    p = cmd("import", "read JSON Lines or an iCalendar .ics file (all or nothing)")
    p.add_argument("file")
    return parser


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    if getattr(args, "json", False):
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        out = text() if callable(text) else text
        if out:
            print(out)


def _handler(name: str):
    from assistant import commands

    return getattr(commands, "cmd_" + name.replace("-", "_"))


def main(argv: list[str] | None = None, launch: Callable[[Runtime], int] | None = None) -> int:
    """Run one command; with no command, `launch` (given by the ui package) starts the TUI."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        settings = load_settings(getattr(args, "config", None), {"db": getattr(args, "db", None),
                                                                  "now": getattr(args, "now", None)})
        runtime = Runtime(settings, notice=lambda text: print(text, file=sys.stderr))
        try:
            if args.command is None:
                if launch is None:
                    print("assistant: the terminal UI is not available here; see assistant --help", file=sys.stderr)
                    return EXIT_FAILURE
                return launch(runtime)
            return _handler(args.command)(runtime, args) or 0
        finally:
            runtime.close()
    except InvalidInput as exc:
        print(f"assistant: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreError as exc:
        print(f"assistant: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("assistant: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # last line of defence: one clear line, never a traceback
        from memory.sqlite import Error as SQLiteError

        if isinstance(exc, SQLiteError):
            print(f"assistant: database error: {exc}", file=sys.stderr)
            return EXIT_FAILURE
        _log_crash()
        print(f"assistant: unexpected error: {type(exc).__name__}: {exc} (details in the log)", file=sys.stderr)
        return EXIT_FAILURE


def _log_crash() -> None:
    import traceback

    from assistant import paths

    try:
        with open(paths.log_dir() / "crash.log", "a", encoding="utf-8") as log:
            traceback.print_exc(file=log)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
