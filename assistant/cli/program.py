"""The `assistant` command (SPEC F9). Bad input: exit 2 with one line on stderr, nothing written.

Modules that need fastembed, dateparser or a model SDK are imported inside the commands that use
them, so `assistant reminders` and friends start fast.
"""
from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from assistant.errors import AssistantError, BadInput, explain
from assistant.runtime import Runtime, check_store_path
from assistant.settings import Settings, load_settings
from memory.errors import InvalidInput, MemoryLibError, checked_id

EXIT_BAD_INPUT = 2
EXIT_FAILURE = 1


class UsageError(BadInput):
    """A command line argparse could not read."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not usage + message
        raise UsageError(message)


def _dashed_text_hint(message: str, argv: list[str]) -> str:
    """argparse's complaint, and how to give text that starts with a dash when that is what it read as an option
    (an attacker's `assistant recall '-locker'` was told only that a query is required)."""
    if "--" in argv or not ("required" in message or "unrecognized arguments" in message):
        return message
    dashed = next((a for a in argv[1:] if a.startswith("-") and not a.startswith("--") and a != "-h"), None)
    if dashed is None:
        return message
    return f"{message}; to give text that starts with a dash, put -- before it: assistant {argv[0]} -- {dashed}"


def _common(json_flag: bool = True) -> Parser:
    parent = Parser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument("--db", type=_path_text, help="database file (default: user data dir; env ASSISTANT_DB)")
    parent.add_argument("--now", help="freeze the clock at this ISO 8601 instant (env ASSISTANT_NOW)")
    parent.add_argument("--config", type=_path_text, help="config file (env ASSISTANT_CONFIG)")
    if json_flag:
        parent.add_argument("--json", action="store_true", help="print JSON")
    return parent


def row_id(text: str) -> int:
    """An id as typed: a whole number SQLite can hold ("#12" is accepted too)."""
    try:
        value = int(text.strip().lstrip("#"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an id: {text[:40]!r} (a whole number such as 12)") from None
    # NoSuchId is no ValueError, so argparse lets it through to main: the line of the tools and MCP, as is.
    return checked_id(value)


def bounded(kind: type[int] | type[float], low: float, high: float) -> Callable[[str], float]:
    """An argparse type for a number in [low, high]: nan, inf and absurd values are bad input."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {'whole ' if kind is int else ''}number: {text[:40]!r}") from None
        if not low <= value <= high:  # also false for nan
            raise argparse.ArgumentTypeError(f"{text[:40]} is out of range ({low:g} to {high:g})")
        return value
    return parse


def version() -> str:
    """The installed version (the package metadata), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("assistant")
    except PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """argparse's "version" action, reading the package metadata only when asked (importing
    importlib.metadata and reading it is ~15 ms of every command otherwise)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        parser._print_message(f"assistant {version()}\n", sys.stdout)
        parser.exit()


def build_parser() -> Parser:
    from assistant.cli import backup, conversations, data, maintenance, memories, notify, sync

    common = _common()
    parser = Parser(prog="assistant", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
                    description="A terminal personal assistant with a local memory.\n\n"
                                "`assistant` alone (no command) opens the app; each command below does one thing "
                                "without it.",
                    epilog="Chat model: ANTHROPIC_API_KEY, an OpenAI-compatible server (openai.base_url in the "
                           "config, or\nASSISTANT_PROVIDER=openai with OPENAI_BASE_URL), Ollama, or the built-in "
                           "offline mode.\n`assistant status` says which one is in use; config.example.toml lists "
                           "every setting.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def cmd(name: str, handler: Callable[..., int], help_text: str, reads: bool = False) -> argparse.ArgumentParser:
        """`reads`: the command works on what a store holds, and never creates one (see check_store_path)."""
        p = sub.add_parser(name, help=help_text, description=help_text, parents=[common])
        p.set_defaults(handler=handler, reads=reads)
        return p

    allow_past: dict[str, Any] = {"action": "store_true", "help": "accept a due date that has already passed"}
    # remember and update keep a passed due date (overdue at once, and said so); the flag says it was meant
    kept_past: dict[str, Any] = {"action": "store_true", "help": "a due date that has passed is kept either way "
                                 "(overdue at once, said in the text); with --json, no note of it on stderr"}
    p = cmd("chat", conversations.cmd_chat, "one turn without the TUI (prints the answer); it continues the "
            "conversation in progress unless idle longer than the gap")
    p.add_argument("message")
    p.add_argument("--new", action="store_true", help="start a new conversation (the one in progress is closed)")
    p.add_argument("--incognito", action="store_true", help="a turn that reads memory and writes nothing (no "
                   "message, memory, reminder, title or record of it is kept)")
    p = cmd("remember", memories.cmd_remember, "store a memory; with --due it is a reminder")
    p.add_argument("text", nargs="+", help="what to remember; its words need no quotes, as recall's do not")
    p.add_argument("--due", help="ISO 8601, natural language (\"tomorrow at 9am\") or a rule "
                   "(\"every Tuesday at 7pm\")")
    p.add_argument("--kind", help="fact, preference, event, person, mood, decision, note, reminder")
    p.add_argument("--importance", type=bounded(int, 1, 5), default=3)
    p.add_argument("--private", action="store_true")
    p.add_argument("--allow-past", **kept_past)
    p = cmd("reminders", memories.cmd_reminders, "every open reminder in the window, overdue first, labelled",
            reads=True)
    p.add_argument("--within-days", type=bounded(float, 0, 36500), default=7)
    p = cmd("update", memories.cmd_update, "change a memory: mark it mentioned, give it a new time or text",
            reads=True)
    p.add_argument("id", type=row_id)
    p.add_argument("--reminded", help="now or a date")
    p.add_argument("--due")
    p.add_argument("--content")
    p.add_argument("--importance", type=bounded(int, 1, 5))
    p.add_argument("--allow-past", **kept_past)
    p = cmd("done", memories.cmd_done, "mark a reminder done (a repeating one moves to its next occurrence)",
            reads=True)
    p.add_argument("id", type=row_id)
    p = cmd("snooze", memories.cmd_snooze, "give a reminder a new due date", reads=True)
    p.add_argument("id", type=row_id)
    p.add_argument("when", nargs="+")
    p.add_argument("--allow-past", **allow_past)
    p = cmd("forget", memories.cmd_forget, "delete a memory (undo brings it back until the next change)", reads=True)
    p.add_argument("id", type=row_id)
    cmd("undo", memories.cmd_undo, "undo the last change to a reminder or a memory (done, snooze, move, rename, "
        "edit, pin, private, forget, remember), wherever it was made", reads=True)
    p = cmd("recap", conversations.cmd_recap, "recent conversations, the one in progress first", reads=True)
    p.add_argument("--hours", type=bounded(float, 0.001, 24 * 36500), default=48)
    p.add_argument("--limit", type=bounded(int, 1, 10_000), default=10)
    p.add_argument("--outcome", choices=("success", "abandoned"))
    cmd("briefing", conversations.cmd_briefing, "today's briefing: today's reminders in time order, what is "
        "overdue, yesterday's conversations, memories that changed", reads=True)
    p = cmd("recall", conversations.cmd_recall, "search memory (hybrid: keywords and meaning)", reads=True)
    p.add_argument("query", nargs="+")
    p.add_argument("--mode", default="standard", choices=("reflexive", "standard", "deep", "exhaustive"))
    p.add_argument("--limit", type=bounded(int, 1, 1000), default=10)
    p.add_argument("--reason", action="store_true", help="answer with dates resolved, with sources")
    p = cmd("prompt", conversations.cmd_prompt, "the system prompt this turn would send", reads=True)
    p.add_argument("--query", default="")
    p = cmd("consolidate", maintenance.cmd_consolidate, "score, tier, cluster and summarise memories now",
            reads=True)
    p.add_argument("--full", action="store_true", help="reconsider every memory, not only new ones")
    p.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    cmd("status", maintenance.cmd_status, "database, counts, provider and consolidation state", reads=True)
    cmd("doctor", maintenance.cmd_doctor, "check the database file (integrity, permissions) and say how to recover",
        reads=True)
    cmd("tiers", maintenance.cmd_tiers, "how many memories are in each tier", reads=True)
    p = cmd("edges", maintenance.cmd_edges, "links of one memory (supersedes, consolidates)", reads=True)
    p.add_argument("id", type=row_id)
    p = cmd("export", data.cmd_export, "write every record as JSON Lines, open reminders as iCalendar (--ics), or "
            "a Markdown folder (DIR --markdown)", reads=True)
    p.add_argument("file", nargs="?")
    p.add_argument("--markdown", action="store_true", help="write FILE as a folder of Markdown files: a file per "
                   "conversation, a file per kind of memory, an index README.md")
    p.add_argument("--include-secrets", action="store_true", help="with --markdown: write secrets as they are, "
                   "not as [secret]")
    p.add_argument("--ics", metavar="FILE", help="write open reminders as an iCalendar file (- for stdout)")
    p = cmd("import", data.cmd_import, "read a ChatGPT or Claude data export (its ZIP or conversations.json), "
            "JSON Lines or an iCalendar .ics file, told by its content")
    p.add_argument("file", nargs="?")
    p.add_argument("--dry-run", action="store_true", help="say what would be added; write nothing")
    p.add_argument("--undo-last", action="store_true", help="remove everything the last import added")
    p.add_argument("--index", action="store_true", help="embed every new text before returning (without it, a "
                   "big import leaves them to the app's idle time or `assistant index`; keywords find them at once)")
    p.add_argument("--restore-forgotten", action="store_true",
                   help="bring back memories forgotten here since the export (left out by default)")
    cmd("index", data.cmd_index, "embed every text still waiting for its embedding (after a big import)", reads=True)
    p = sub.add_parser("mcp", parents=[_common(json_flag=False)], help=MCP_HELP, description=MCP_HELP)
    p.set_defaults(handler=cmd_mcp)
    p.add_argument("--http", metavar="[HOST:]PORT", help="serve streamable HTTP on this loopback address (e.g. 8765 "
                   "or 127.0.0.1:8765) instead of stdio; clients send the bearer token it prints")
    p.add_argument("--read-only", action="store_true", help="offer no tool that writes (remember, update_memory, "
                   "done, snooze, forget)")
    p = cmd("notify", notify.cmd_notify, "the background notifier: a desktop notification for each reminder as it "
            "falls due, with the app closed (runs until SIGTERM)")
    p.add_argument("--install", action="store_true", help="write a user service that runs it (a systemd user unit, "
                   "or a launchd agent on macOS) and print how to enable it; enables nothing")
    cmd("sync", sync.cmd_sync, "one two-way sync of the reminders with your CalDAV calendar ([caldav] in the config, "
        "the password in ASSISTANT_CALDAV_PASSWORD; docs/caldav.md)")
    p = sub.add_parser("backup", help=BACKUP_HELP, description=BACKUP_HELP, parents=[common])
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser, required=True)
    run_help = ("replicate the store to [backup] replica in the foreground until Ctrl+C or SIGTERM (Litestream "
                "copies each change within a second; the app and the notifier run the same in the background)")
    p = actions.add_parser("run", help=run_help, description=run_help, parents=[common])
    p.set_defaults(handler=backup.cmd_run, reads=True)
    status_help = ("the replica, when the newest change reached it, how long a change has waited for it, and what "
                   "is wrong (exit 1 when something is)")
    p = actions.add_parser("status", help=status_help, description=status_help, parents=[common])
    p.set_defaults(handler=backup.cmd_status, reads=True)
    p = cmd("restore", backup.cmd_restore, "write a replica's newest state (or --timestamp's) into --db, checked "
            "(integrity, schema); an existing file only with --force")
    p.add_argument("--from", dest="source", required=True, metavar="URL", help="the replica URL (file:///folder, "
                   "sftp://..., s3://bucket/path?endpoint=...&region=...); no config needed")
    p.add_argument("--timestamp", metavar="ISO", help="the state at this instant (ISO 8601) instead of the newest")
    p.add_argument("--force", action="store_true", help="replace an existing store (kept as PATH.before-restore)")
    return parser


BACKUP_HELP = "continuous replication of the store with Litestream: `backup run`, `backup status` (docs/backup.md)"


MCP_HELP = ("serve your memory and reminders to other AI tools (Claude Desktop, Claude Code, ...) over the "
            "Model Context Protocol, on stdio; docs/mcp.md has their configs")


def ready_to_serve(runtime: Runtime, read_only: bool) -> None:
    """The store of `assistant mcp`, checked and opened before anything is served (the MCP tests build their
    in-process server with this too)."""
    if read_only:
        runtime.read_only = True  # the file does not change: searches use the embeddings there are
    else:
        from assistant.services.launch import check_launch
        from memory.errors import StoreUnusable

        try:
            check_launch(str(runtime.store_path()))  # it writes: a read-only file is said now, not per request
        except StoreUnusable as exc:
            if exc.reason != "read_only":
                raise
            raise AssistantError(f"the database {exc.path} is read-only; `assistant mcp --read-only` serves it "
                                 "without the tools that write") from None
    runtime.store.read_table_list()  # opened and migrated now: a store that cannot be used never serves


def cmd_mcp(runtime: Runtime, args: argparse.Namespace) -> int:
    """`assistant mcp`: the store is checked before anything is served (a newer, damaged or read-only one is
    one line on stderr and exit 1), then the server runs until its client goes (stdio) or Ctrl+C (HTTP)."""
    from assistant.mcp.address import bearer_token, listen_address

    address = listen_address(args.http) if args.http is not None else None
    ready_to_serve(runtime, args.read_only)
    from assistant.mcp.server import serve  # the SDK: most of a second, for this command only

    if address is None:
        serve(runtime, args.read_only, version=version())  # stdout is the protocol's from here on
        return 0
    token, kept = bearer_token(runtime.settings.mcp_token)

    def announce(url: str) -> None:
        where = f"kept in {kept}" if kept else "the mcp_token setting"
        print(f"assistant mcp: serving {url}\nbearer token: {token} ({where})", flush=True)

    serve(runtime, args.read_only, address, version(), token, announce)
    return 0


def main(argv: list[str] | None = None, launch: Callable[[Settings], int] | None = None) -> int:
    """Run one command; with no command, `launch` (given by the ui package) starts the TUI."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show "␛" or "é" gets an escape, not a crash
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # not on every stream
    try:
        _check_text(argv)
        try:
            args = build_parser().parse_args(argv)
        except UsageError as exc:
            raise UsageError(_dashed_text_hint(str(exc), argv)) from None
        from assistant.logs import setup_logging

        setup_logging(stderr_warnings=args.command is not None)
        settings = load_settings(getattr(args, "config", None), {"db": getattr(args, "db", None),
                                                                  "now": getattr(args, "now", None)})
        if args.command is None:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                # Without a terminal the TUI cannot read keys and would spin; say what works instead.
                raise InvalidInput("the terminal UI needs a terminal on stdin and stdout; for one message "
                                   "without it use: assistant chat \"...\" (assistant --help lists the rest)")
            from assistant.services.launch import check_launch

            check_store_path(settings, None)
            check_launch(str(settings.db_path()))  # one line here, not a blank app
            if launch is None:
                print("assistant: the terminal UI is not available here; see assistant --help", file=sys.stderr)
                return EXIT_FAILURE
            return launch(settings)  # the app builds its runtime, with its own notices
        runtime = Runtime(settings, notice=lambda text: _line(text), command=args.command, reads=_reads(args))
        try:
            status = args.handler(runtime, args) or 0
            sys.stdout.flush()  # a full disk or closed pipe is reported here, not lost at exit
            return status
        finally:
            runtime.close()
    except (InvalidInput, BadInput) as exc:
        _line(f"error: {exc}")
        return EXIT_BAD_INPUT
    except (MemoryLibError, AssistantError) as exc:
        _line(explain(exc))
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("assistant: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:  # the output cannot be written (a full disk): say so, never report success
        _silence_stdout()
        _line(f"cannot write the output: {exc.strerror or exc}")
        return EXIT_FAILURE
    except Exception as exc:  # last line of defence: one clear line, never a traceback
        from memory.connection import Error as SQLiteError

        if isinstance(exc, SQLiteError):
            _line(f"database error: {exc}")
            return EXIT_FAILURE

        logging.getLogger("assistant").error("unexpected error", exc_info=True, extra={"quiet": True})
        _log_crash()
        _line(f"unexpected error: {type(exc).__name__}: {exc} (details in the log)")
        return EXIT_FAILURE


def _reads(args: argparse.Namespace) -> bool:
    """Whether the command works on what a store holds (and so has no reason to create one)."""
    if args.command == "chat":
        return bool(args.incognito)  # a turn that writes nothing
    if args.command == "mcp":
        return bool(args.read_only)
    return bool(getattr(args, "reads", False))


def _path_text(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty path names no file")
    return value


def _check_text(argv: list[str]) -> None:
    """Arguments that are not valid UTF-8 reach Python as lone surrogates and would fail deep inside;
    refuse them here, naming which one."""
    for position, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput(f"argument {position} is not valid UTF-8 text") from None


def _silence_stdout() -> None:
    """After a failed write, point stdout at /dev/null so the interpreter's exit flush stays quiet."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _line(text: str) -> None:
    """One line on stderr, whatever the message holds (user text in it is shown, never obeyed)."""
    from memory.text import visible

    print("assistant: " + visible(" ".join(str(text).split())), file=sys.stderr)


def _log_crash() -> None:
    import traceback

    from assistant import paths

    try:
        # 0600: a traceback can quote memories.
        fd = os.open(paths.log_dir() / "crash.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as log:
            traceback.print_exc(file=log)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
