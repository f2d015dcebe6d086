"""`assistant mcp`: the memory and reminders served to other AI tools over the Model Context Protocol,
on the official SDK (MCPServer; its stdio and streamable HTTP transports).

The tools are the registry's own (assistant.tools): each MCP tool is built from the same typed function
the chat model's tool calls, so its schema, its checks and its wording are those of the app. Every
answer (a tool result, an error, a resource, the prompt) goes on to the client's model, so it leaves
through the one gate as a chat turn's tool result does: a sensitive memory as "[secret in memory #N]",
a private one only when the request asks about it (its own words in `query` or `content`, or its id).
Writes carry their source, "mcp:<client name>" from the initialize request, and pass the one insert.

Store work runs in one worker thread at a time: requests of several clients (HTTP) queue there, and
the event loop keeps reading (a slow recall never holds up a ping).
"""
from __future__ import annotations

import contextlib
import hmac
import inspect
import logging
import re
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.exceptions import ToolError as ClientToolError
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    InputRequiredResult,
    JSONRPCError,
    ToolAnnotations,
)
from pydantic import ValidationError

from assistant.errors import AssistantError, ToolError, explain
from assistant.mcp.address import ListenAddress
from assistant.outbound.gate import Gate
from assistant.outbound.send import to_mcp_client
from assistant.reading import mentioned_ids
from assistant.recap import agenda_text
from assistant.runtime import Runtime
from assistant.tools import REGISTRY, Tool, argument_problems, call_tool
from memory import memories, reminders
from memory.connection import Error as SQLiteError
from memory.errors import MAX_ID, EmbedderUnavailable, MemoryLibError, NotFound
from memory.text import flat

log = logging.getLogger(__name__)
T = TypeVar("T")

INSTRUCTIONS = (
    "The user's own memory and reminders, kept on their machine by the `assistant` app. Call `recall` before "
    "answering a question about the user's life, plans, people or past conversations; `remember` what the user "
    "asks you to keep (with due_at it becomes a reminder that fires on their desktop); `upcoming` lists what is "
    "due. Times are the user's local time. A secret comes back as [secret in memory #N] and a private memory "
    "as [private memory #N] unless the request names it: never ask the user to repeat a secret.")
SOURCE_PREFIX = "mcp:"


def client_source(ctx: Context) -> str:
    """"mcp:<client name>" from the initialize request's clientInfo: what the app shows as a memory's source."""
    params = ctx.session.client_params
    name = params.client_info.name if params is not None else ""
    name = re.sub(r"[^\w.-]+", "-", name).strip("-.")[:60]
    return SOURCE_PREFIX + (name or "unknown")


def request_gate(runtime: Runtime, arguments: dict[str, Any]) -> Gate:
    """The gate of one request: it asks about what its `query` or `content` names, and the memory `id` it
    acts on (a private memory is shown to the request that names it, as to a chat message that does)."""
    said = [str(arguments[k]) for k in ("query", "content") if isinstance(arguments.get(k), str)]
    named = arguments.get("id")
    if isinstance(named, int) and not isinstance(named, bool):
        said.append(f"memory #{named}")  # as a chat message names it
    asking = " ".join(said)
    return Gate(runtime.store, asking, mentioned_ids(asking), runtime.embedder)


class MemoryServer(MCPServer[Any]):
    """The SDK's server with two answers it leaves out: a one-sentence tool error for arguments that do
    not fit the schema (not pydantic's report), and a JSON-RPC error for a line on stdin that is not
    JSON-RPC (the SDK's stdio transport drops it, leaving a client waiting)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
                        ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ClientToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ClientToolError(argument_problems(name, exc.__cause__)) from None
            raise

    async def run_stdio_async(self) -> None:
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(  # the SDK's own loop, as MCPServer.run_stdio_async runs it
                _AnswersBadLines(read_stream, write_stream), write_stream,
                self._lowlevel_server.create_initialization_options())


class _AnswersBadLines:
    """The stdio read stream, answering each line that is not a JSON-RPC message as JSON-RPC 2.0 says
    (-32700 for text that is not JSON, -32600 for JSON that is not a message, with its id when it has
    one) and passing every message on."""

    def __init__(self, inner: Any, write: Any) -> None:
        self.inner, self.write = inner, write

    @property
    def last_context(self) -> Any:  # the sender context the SDK's loop reads from its stream
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self.inner.receive()
            if not isinstance(item, Exception):
                return item
            await self.write.send(SessionMessage(_bad_line_answer(item)))

    def __aiter__(self) -> _AnswersBadLines:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _AnswersBadLines:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _bad_line_answer(error: Exception) -> JSONRPCError:
    problems = error.errors() if isinstance(error, ValidationError) else []
    if not problems or any(p["type"] == "json_invalid" for p in problems):
        log.info("a line on stdin is not JSON")
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message="Parse error"))
    sent: dict[str, Any] = next((p["input"] for p in problems if isinstance(p.get("input"), dict)), {})
    request_id = sent.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        request_id = None
    log.info("a line on stdin is JSON but not a JSON-RPC message")
    return JSONRPCError(jsonrpc="2.0", id=request_id,
                        error=ErrorData(code=INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 message"))


class _Token:
    """The SDK's bearer check (TokenVerifier) against the one token of this server."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:

        if hmac.compare_digest(token.encode(), self.token.encode()):
            return AccessToken(token=token, client_id="assistant-mcp", scopes=[])
        return None


class MemoryTools:
    """The registry's tools, the resources and the prompt on one MemoryServer, over one runtime."""

    def __init__(self, runtime: Runtime, read_only: bool = False, version: str = "",
                 http: tuple[ListenAddress, str] | None = None) -> None:
        self.runtime = runtime
        self.read_only = read_only
        self.limiter = anyio.CapacityLimiter(1)  # one store, one embedder: one request at a time
        auth: dict[str, Any] = {}
        if http is not None:
            address, token = http
            origin = f"http://{address.url_host}:{address.port}"
            # The SDK asks for an authorization server; there is none (the token is printed, or set in the
            # config), and no resource metadata is published, so no client goes looking for one.
            auth = {"auth": AuthSettings(issuer_url=origin, resource_server_url=None),  # type: ignore[arg-type]
                    "token_verifier": _Token(token)}
        self.server = MemoryServer("assistant", title="assistant: your memory and reminders", version=version,
                                   instructions=INSTRUCTIONS, **auth)
        for tool in REGISTRY.values():
            if tool.writes and read_only:
                continue  # --read-only: a writing tool is not even offered
            self.server.add_tool(self._handler(tool), name=tool.name, description=tool.description,
                                 annotations=ToolAnnotations(read_only_hint=not tool.writes,
                                                             destructive_hint=tool.name == "forget",
                                                             open_world_hint=False),
                                 structured_output=False)
        self._resources()

    # -- running ----------------------------------------------------------------------------

    async def _in_store(self, work: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(work, limiter=self.limiter)

    def warm_up(self) -> None:
        """Load the embedder in the background: a client starts its servers when it opens and asks
        later, so its first `recall` need not wait for the model (the store is not touched here)."""


        def load() -> None:
            embedder = self.runtime.embedder
            if embedder is not None:
                with contextlib.suppress(EmbedderUnavailable):  # the first search says so, once
                    embedder.embed(["warm up"])

        threading.Thread(target=load, name="embedder warm-up", daemon=True).start()

    def serve_stdio(self) -> None:
        self.warm_up()
        anyio.run(self.server.run_stdio_async)

    def serve_http(self, address: ListenAddress, announce: Callable[[str], None]) -> None:
        """Serve streamable HTTP on `address` until interrupted; `announce` gets the URL once listening."""

        import uvicorn

        family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address.host, address.port))
            sock.listen(2048)  # before the URL is announced: a client that connects at once is queued, not refused
        except OSError as exc:
            sock.close()
            raise AssistantError(f"cannot listen on {address.url_host}:{address.port}: {exc.strerror or exc}") from None
        port = sock.getsockname()[1]
        hosts = [f"{address.url_host}:{port}", f"localhost:{port}"]
        security = TransportSecuritySettings(  # DNS rebinding: only this address's own names are served
            allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts])
        app = self.server.streamable_http_app(transport_security=security, host=address.host)
        config = uvicorn.Config(app, log_level="warning", log_config=None, access_log=False)
        announce(f"http://{address.url_host}:{port}/mcp")
        self.warm_up()
        uvicorn.Server(config).run(sockets=[sock])

    # -- tools ------------------------------------------------------------------------------

    def _handler(self, tool: Tool) -> Callable[..., Any]:
        """An async function with `tool`'s own typed parameters (the SDK reads its schema from them) that
        runs the tool in the store's thread."""
        async def handler(ctx: Context, **arguments: Any) -> str:
            source = client_source(ctx)
            return await self._in_store(lambda: self._run(tool, arguments, source))

        parameters = tool.parameters()
        handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context), *parameters],
            return_annotation=str)
        handler.__annotations__ = {"ctx": Context, **{p.name: p.annotation for p in parameters}, "return": str}
        handler.__name__ = handler.__qualname__ = tool.name
        return handler

    def _run(self, tool: Tool, arguments: dict[str, Any], source: str) -> str:
        gate = request_gate(self.runtime, arguments)
        context = {"gate": gate, "source": source, "touch": not self.read_only}
        try:
            outcome = call_tool(self.runtime, tool, arguments, context)
        except (ToolError, MemoryLibError, AssistantError, SQLiteError) as exc:
            # One sentence for the client's model, through the gate as any result (it may quote what was sent).
            said = explain(exc) if not isinstance(exc, SQLiteError) else f"the store could not be used ({exc})"
            raise ClientToolError(to_mcp_client(gate, flat(said), f"{tool.name} error")) from None
        if outcome.changed:
            log.info("%s %s #%s", source, tool.name, (outcome.data or {}).get("id"))  # ids only: never the text
            # The request asks about what it just wrote ("[Private] Ana prefers tea" goes back to who said it):
            # a gate made before the write could not know that memory.
            gate = request_gate(self.runtime, arguments)
        return to_mcp_client(gate, outcome.content, f"{tool.name} result")

    # -- resources and the prompt -------------------------------------------------------------

    def _resources(self) -> None:
        server, runtime = self.server, self.runtime

        @server.resource("memory://agenda", name="agenda", title="Today's agenda", mime_type="text/plain",
                         description="Today at a glance: reminders overdue and due today (local times), and "
                                     "yesterday's conversations with their titles and summaries.")
        async def agenda() -> str:
            def work() -> str:
                gate = Gate(runtime.store, embedder=runtime.embedder)  # nothing asked: private ones by their id
                return to_mcp_client(gate, agenda_text(runtime, gate), "the agenda")
            return await self._in_store(work)

        @server.resource("memory://memory/{id}", name="memory", title="One memory", mime_type="text/plain",
                         description="One memory by its id: its kind, text, when it was said, its due time "
                                     "if it is a reminder, and where it came from.")
        async def memory(id: str) -> str:  # noqa: A002 - the template's name
            return await self._in_store(lambda: self._memory_text(id))

        @server.prompt(name="recap", title="Recap",
                       description="A recap from your memory of today or the last 48 hours (period: today or 48h), "
                                   "to summarise.")
        async def recap(period: str = "48h") -> str:
            def work() -> str:
                text = self._run(REGISTRY["recap"], {"period": period.strip().lower()}, SOURCE_PREFIX)
                return ("Here is a recap from my personal memory (the assistant app). Summarise it for me in a "
                        "few lines: what we talked about, what is overdue or coming up, what is new.\n\n" + text)
            try:
                return await self._in_store(work)
            except ClientToolError as exc:
                # An MCPError goes to the client as it is; the SDK says any other "Error rendering prompt" and
                # logs a traceback, as for a fault of ours.
                raise MCPError(INVALID_PARAMS, str(exc)) from None

    def _memory_text(self, text: str) -> str:
        raw = text.strip().lstrip("#")
        if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_ID:
            raise ResourceNotFoundError(f"not a memory id: {text[:40]!r} (ids are whole numbers from 1)")
        memory_id = int(raw)
        runtime = self.runtime
        gate = request_gate(runtime, {"id": memory_id})  # asked by its id
        try:
            memory = memories.get_memory(runtime.store, memory_id)
        except NotFound:
            raise ResourceNotFoundError(f"no memory with id {memory_id}") from None
        except (MemoryLibError, SQLiteError) as exc:
            raise ResourceError(flat(explain(exc))) from None
        clock = runtime.clock
        facts = [memory.kind, f"said {clock.short(memory.created_at)}", f"source {memory.source}"]
        if memory.private:
            facts.append("private")
        lines = [f"memory #{memory.id} ({'; '.join(facts)})"]
        if memory.due_at:
            state = f"done {clock.short(memory.done_at)}" if memory.done_at else \
                reminders.relative_time(memory.due_at, clock.now(), clock)
            lines.append(f"due: {reminders.due_text(memory, clock)} ({state})")
        lines.append(f"text: {flat(gate.memory(memory))}")
        return to_mcp_client(gate, "\n".join(lines), f"memory #{memory.id}")


def serve(runtime: Runtime, read_only: bool = False, http: ListenAddress | None = None, version: str = "",
          token: str = "", announce: Callable[[str], None] | None = None) -> None:
    """Serve until the client closes stdin (stdio) or the process is interrupted (HTTP)."""
    if http is None:
        MemoryTools(runtime, read_only, version).serve_stdio()
        return
    tools = MemoryTools(runtime, read_only, version, (http, token))
    tools.serve_http(http, announce or (lambda url: print(url, file=sys.stderr)))


__all__ = ["MemoryTools", "client_source", "request_gate", "serve"]
