"""Helpers of the MCP tests: the server `assistant mcp` runs, on a store of the test at the frozen clock,
and the SDK's own client (ClientSession) talking to it.

`session(server(db, ...))` runs that server in the test's process, built from the command's own arguments
and environment, over the SDK's in-memory transport (the quick loop: no interpreter to start).
`stdio_session` starts the real command over stdio_client, for the end-to-end tests (marked slow)."""
from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, Implementation

from tests.conftest import T0_TEXT

ASSISTANT = Path(sys.executable).with_name("assistant")  # the console script, as a client starts it
PASSED_ON = ("HOME", "PATH", "LANG", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
             "DBUS_SESSION_BUS_ADDRESS")


def server_env(**env: str) -> dict[str, str]:
    """The environment a client gives the server: the test's isolated dirs, the frozen clock, UTC, no model."""
    base = {k: os.environ[k] for k in PASSED_ON if k in os.environ}
    base.update({"ASSISTANT_NOW": T0_TEXT, "ASSISTANT_TIMEZONE": "UTC", "ASSISTANT_EMBEDDING_MODEL": "none",
                 "OLLAMA_HOST": "http://127.0.0.1:9"})
    base.update(env)
    return {k: v for k, v in base.items() if v != ""}  # "" removes a variable (the real clock: ASSISTANT_NOW="")


def server(db: str, *args: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(ASSISTANT), args=["mcp", "--db", db, *args], env=server_env(**env))


@asynccontextmanager
async def session(params: StdioServerParameters, client: str = "test-client") -> AsyncIterator[ClientSession]:
    """An initialized client session with the server `assistant mcp` runs for `params`, in this process:
    its arguments parsed by the CLI's parser, its settings read from the environment the client gives it,
    the store opened before serving, the same MemoryTools; the SDK's Client connects to it in memory
    (mode "legacy": the initialize handshake a stdio client makes, so the client's name is the source).
    What only the process shows (stdout, stderr, the exit status, stdio framing): stdio_session."""
    from assistant.cli.program import _reads, build_parser, ready_to_serve, version
    from assistant.mcp.server import MemoryTools
    from assistant.runtime import Runtime
    from assistant.settings import load_settings

    args = build_parser().parse_args(params.args)
    assert args.command == "mcp" and args.http is None, params.args
    settings = load_settings(getattr(args, "config", None), {"db": getattr(args, "db", None),  # as main() reads them
                                                             "now": getattr(args, "now", None)}, env=params.env)
    runtime = Runtime(settings, command=args.command, reads=_reads(args))  # as main() builds it
    try:
        ready_to_serve(runtime, args.read_only)  # as cmd_mcp, then serve()
        tools = MemoryTools(runtime, args.read_only, version())
        async with Client(tools.server, mode="legacy", cache=None,
                          client_info=Implementation(name=client, version="1.0")) as connected:
            yield connected.session
    finally:
        runtime.close()


@asynccontextmanager
async def stdio_session(params: StdioServerParameters, client: str = "test-client",
                        errlog: Path | None = None) -> AsyncIterator[ClientSession]:
    """An initialized client session with the real `assistant mcp` process over stdio; its stderr goes to
    `errlog` (or nowhere). A test that uses it is marked slow."""
    with open(errlog or os.devnull, "w", encoding="utf-8") as err:
        async with stdio_client(params, errlog=err) as (read, write), \
                ClientSession(read, write, client_info=Implementation(name=client, version="1.0")) as s:
            await s.initialize()
            yield s


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def call(s: ClientSession, tool: str, **arguments: object) -> str:
    """A tool's answer, which must not be an error."""
    result = await s.call_tool(tool, dict(arguments))
    assert not result.is_error, f"{tool}: {text(result)}"
    return text(result)


async def fails(s: ClientSession, tool: str, **arguments: object) -> str:
    """A tool's error, which must be one line."""
    result = await s.call_tool(tool, dict(arguments))
    assert result.is_error, f"{tool} did not fail: {text(result)}"
    said = text(result)
    assert said and "\n" not in said and "Traceback" not in said, said
    return said


async def read(s: ClientSession, uri: str) -> str:
    found = await s.read_resource(uri)
    return "\n".join(getattr(c, "text", "") for c in found.contents)
