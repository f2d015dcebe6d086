"""Loopback stand-ins for the Anthropic Messages API, the Ollama API and OpenAI Chat Completions, started by tests.

Each records the requests it receives (path, headers, JSON body) and answers from a script: a
list of responses consumed in order (the last one repeats). Real SDK clients talk to them over HTTP.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hang up on purpose in the timeout and drop tests


class StandIn:
    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: list[Any] = []
        outer = self

        class Handler(handler):  # type: ignore[misc, valid-type]
            server_ref = outer

        self.server = _QuietServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.base = self.url + "/v1"  # where an OpenAI client points
        # What a test may set (the handlers' docstrings say what each does): Ollama's /api/show answer;
        # the OpenAI-compatible server's bearer key, model ids, listed window, model names, tools, formats, usage,
        # the prompt window it refuses past, the wait before a plain request, the models' owner.
        self.show: dict[str, Any] | None = None
        self.key: str | None = None
        self.models = ["stand-in"]
        self.context_length: int | None = None
        self.any_name = False
        self.tools = True
        self.formats = {"json_schema", "json_object"}
        self.usage = True
        self.window: int | None = None
        self.slow_plain: float = 0
        self.slow_warm: float = 0  # seconds a request for one token (the app's between turns) waits first
        self.owned_by = "stand-in"
        # What answers the next request: the script, unless a test puts its own function here.
        self.next_response: Callable[[], Any] = self.scripted
        # A short poll interval: shutdown() waits for it, and every test tears a server down.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def scripted(self) -> Any:
        """The script's next entry (the last one repeats), None when there is none."""
        if not self.script:
            return None
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def bodies(self, prefix: str) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"].startswith(prefix)]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Base(BaseHTTPRequestHandler):
    server_ref: StandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    @staticmethod
    def waited(reply: Any) -> Any:
        """("sleep", seconds, entry): the entry after that long; ("hold", event, entry): the entry once the
        test sets the event (an answer under way for as long as the test needs, whatever the machine's load)."""
        if isinstance(reply, tuple) and reply[0] == "sleep":
            time.sleep(reply[1])
            return reply[2]
        if isinstance(reply, tuple) and reply[0] == "hold":
            reply[1].wait(60)
            return reply[2]
        return reply

    def read_body(self) -> dict[str, Any]:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        self.server_ref.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        return body

    def send_json(self, obj: Any, status: int = 200) -> None:
        raw = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def drop(self) -> None:
        self.close_connection = True
        self.connection.shutdown(2)


def text_reply(text: str) -> dict[str, Any]:
    return {"blocks": [{"type": "text", "text": text}], "stop": "end_turn"}


def tool_reply(name: str, args: dict[str, Any], text: str = "", tool_id: str = "toolu_1") -> dict[str, Any]:
    blocks = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": tool_id, "name": name, "input": args}]
    return {"blocks": blocks, "stop": "tool_use"}


class AnthropicHandler(_Base):
    def do_POST(self) -> None:
        body = self.read_body()
        reply = self.server_ref.next_response() or text_reply("ok")
        if reply == "drop":
            return self.drop()
        if isinstance(reply, int):
            kinds = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error",
                     500: "api_error", 400: "invalid_request_error"}
            return self.send_json({"type": "error", "error": {"type": kinds.get(reply, "api_error"),
                                                              "message": f"status {reply}"}}, reply)
        blocks, stop = reply["blocks"], reply["stop"]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

        def event(name: str, data: dict[str, Any]) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        message: dict[str, Any] = {
            "id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 0}}
        event("message_start", {"type": "message_start", "message": message})
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "text", "text": ""}})
                for start in range(0, len(block["text"]), 7):
                    event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                        "type": "text_delta", "text": block["text"][start:start + 7]}})
            else:
                event("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})
                raw = json.dumps(block["input"])
                for start in range(0, len(raw), 9):
                    event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                        "type": "input_json_delta", "partial_json": raw[start:start + 9]}})
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 5}})
        event("message_stop", {"type": "message_stop"})


class OllamaHandler(_Base):
    """Scripted Ollama: entries are strings (content), dicts ({"tool_calls": [...]} or {"json": obj}),
    ints (an HTTP error status), "drop", ("sleep", seconds, entry) or ("hold", event, entry)."""

    def do_GET(self) -> None:
        if self.path.startswith("/api/tags"):
            self.server_ref.requests.append({"path": self.path, "headers": dict(self.headers), "body": {}})
            return self.send_json({"models": [{"name": "stand-in:latest", "model": "stand-in:latest",
                                               "modified_at": "2026-01-01T00:00:00Z", "size": 1,
                                               "digest": "0" * 64, "details": {}}]})
        self.send_json({"error": "not found"}, 404)

    def do_POST(self) -> None:
        body = self.read_body()
        if self.path.startswith("/api/show"):  # the model's details: its context length, a Modelfile's num_ctx
            return self.send_json(self.server_ref.show or {
                "parameters": "", "model_info": {"general.architecture": "llama", "llama.context_length": 131072}})
        # One token asked (the app's request between turns): one given, outside the script.
        reply: Any = "o" if (body.get("options") or {}).get("num_predict") == 1 else self.server_ref.next_response()
        reply = self.waited(reply)
        if reply == "drop":
            return self.drop()
        if isinstance(reply, int):
            error = f"model '{body.get('model')}' not found" if reply == 404 else f"status {reply}"
            return self.send_json({"error": error}, reply)
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        if isinstance(reply, dict) and "tool_calls" in reply:
            message["tool_calls"] = [{"function": {"name": n, "arguments": a}} for n, a in reply["tool_calls"]]
        elif isinstance(reply, dict) and "json" in reply:
            message["content"] = json.dumps(reply["json"])
        else:
            message["content"] = reply if isinstance(reply, str) else "ok"
        done = {"model": body.get("model"), "created_at": "2026-11-22T14:00:00Z", "done": True, "done_reason": "stop"}
        if body.get("stream") is False:
            return self.send_json({**done, "message": message})
        self.send_response(200)
        self.send_header("content-type", "application/x-ndjson")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write((json.dumps({**done, "done": False, "message": message}) + "\n").encode())
        self.wfile.write((json.dumps({**done, "message": {"role": "assistant", "content": ""}}) + "\n").encode())


class OpenAIHandler(_Base):
    """Scripted OpenAI-compatible server (/v1/chat/completions, /v1/models), speaking the wire format as
    OpenAI, vLLM and llama.cpp do: server-sent `data:` frames of chat.completion.chunk, `data: [DONE]`,
    tool-call deltas split across chunks (index, id and name first, then argument fragments),
    finish_reason, usage in a last chunk with no choices when stream_options.include_usage is set, and
    error bodies {"error": {"message", "type", "code"}} with their status codes.

    Script entries: a string (the answer), {"tool_calls": [(name, args), ...], "text": str} (args a dict,
    or a string sent as it is), {"json": obj} (the content, as JSON text), an int status or
    (status, message), "drop", ("sleep", seconds, entry), ("hold", event, entry), or ("break", text) (an
    error event mid-stream).
    Also ("cut", text): the text, then the connection closes in the middle of the answer (a server
    killed after its first words: no finish_reason, no [DONE], an unfinished chunked body).
    Settings on the StandIn: `models` (listed ids), `any_name` (True: answers any model name, as
    llama-cpp-python does), `key` (required bearer key), `tools` (False: a request
    with tools is refused as llama-server without --jinja refuses it), `formats` (response_format types
    accepted: {"json_schema", "json_object"}; others get the 500 llama-cpp-python gives),
    `usage` (False: stream_options is ignored, no usage chunk, as llama-cpp-python does), `context_length`
    (the window /v1/models gives each model, as vLLM does), `window` (a prompt of that many tokens or more,
    counted as 4 characters a token, is refused as llama-cpp-python refuses it: a 400 naming the window
    when not streamed, a stream that ends at once with nothing in it when streamed), `slow_plain`
    (seconds every request that is not streamed waits first: titles, summaries, the judge), `slow_warm`
    (seconds a request for one token waits first: a server still reading it, or one gone quiet), `owned_by`
    (what /v1/models says of each model: "me" for llama-cpp-python, "llamacpp" for llama-server).
    Every request is recorded, GETs too (what the app probed)."""

    def _too_long(self, body: dict[str, Any]) -> int | None:
        """The prompt's size when the stand-in's window refuses it, else None."""
        window = self.server_ref.window
        if window is None:
            return None
        size = len(json.dumps(body.get("messages", [])) + json.dumps(body.get("tools") or [])) // 4
        return size if size >= window else None

    def _refuse(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        extra = {}
        if status in (429, 500, 502, 503):
            extra = {"retry-after-ms": "10"}  # as OpenAI sends it; keeps retry tests fast
        raw = json.dumps({"error": {"message": message, "type": kind, "param": None, "code": None}}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    def _cut(self, body: dict[str, Any], text: str) -> None:
        """A chunked stream that stops after `text`, as a killed server's does."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for start in range(0, len(text), 7):
            data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600,
                    "model": body.get("model"), "choices": [{"index": 0, "delta": {"content": text[start:start + 7]},
                                                             "finish_reason": None}]}
            frame = f"data: {json.dumps(data)}\n\n".encode()
            self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
            self.wfile.flush()
        time.sleep(0.05)
        self.drop()

    def _authorised(self) -> bool:
        key = self.server_ref.key
        if key and self.headers.get("authorization") != f"Bearer {key}":
            self._refuse(401, "Incorrect API key provided", "invalid_api_key")
            return False
        return True

    def do_GET(self) -> None:
        self.server_ref.requests.append({"path": self.path, "headers": dict(self.headers), "body": {}})
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/v1/models"):
            models = self.server_ref.models
            window = self.server_ref.context_length  # as vLLM lists it (max_model_len)
            owner = self.server_ref.owned_by
            return self.send_json({"object": "list", "data": [
                {"id": m, "object": "model", "created": 1767225600, "owned_by": owner,
                 **({"max_model_len": window} if window else {})} for m in models]})
        self._refuse(404, f"Unknown path {self.path}", "not_found_error")

    def do_POST(self) -> None:
        body = self.read_body()
        if not self._authorised():
            return
        if not self.path.rstrip("/").endswith("/v1/chat/completions"):
            return self._refuse(404, f"Unknown path {self.path}", "not_found_error")
        models = self.server_ref.models
        if body.get("model") not in models and not self.server_ref.any_name:
            return self._refuse(404, f"The model `{body.get('model')}` does not exist", "not_found_error")
        if body.get("tools") and self.server_ref.tools is False:
            return self._refuse(400, "tools param requires --jinja flag")
        wanted = (body.get("response_format") or {}).get("type")
        if wanted and wanted != "text" and wanted not in self.server_ref.formats:
            # As llama-cpp-python 0.3.36 answers it (seen against the real server): its request validation
            # error, wrapped by its own error handler in an OpenAI-style body with status 500.
            return self._refuse(500, "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                                     f"'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                                     f"'input': '{wanted}'}}", "internal_server_error")
        if not body.get("stream") and self.server_ref.slow_plain:
            time.sleep(self.server_ref.slow_plain)
        too_long = self._too_long(body)
        if too_long is not None:
            window = self.server_ref.window
            if body.get("stream"):  # llama-cpp-python: the stream is open before the prompt is counted
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                return None
            asked = body.get("max_tokens") or 0
            return self._refuse(400, f"This model's maximum context length is {window} tokens. However, you requested "
                                     f"{too_long + asked} tokens ({too_long} in the messages, {asked} in the "
                                     "completion). Please reduce the length of the messages or completion.")
        # A request for one token (the app's between turns: the server reads the conversation) is answered
        # with one, outside the script, which stays for the turns.
        if body.get("max_tokens") == 1 and self.server_ref.slow_warm:
            time.sleep(self.server_ref.slow_warm)  # a server still reading it, or one that never answers
        reply: Any = "o" if body.get("max_tokens") == 1 else self.server_ref.next_response()
        reply = self.waited(reply)
        if reply == "drop":
            return self.drop()
        if isinstance(reply, tuple) and reply[0] == "cut":
            return self._cut(body, reply[1])
        if isinstance(reply, int):
            reply = (reply, f"status {reply}")
        if isinstance(reply, tuple) and isinstance(reply[0], int):
            kinds = {401: "invalid_api_key", 403: "permission_denied", 429: "rate_limit_exceeded",
                     500: "server_error", 503: "server_error"}
            return self._refuse(reply[0], reply[1], kinds.get(reply[0], "invalid_request_error"))
        if reply is None:
            reply = "ok"
        text, calls, broken = "", [], None
        if isinstance(reply, str):
            text = reply
        elif isinstance(reply, tuple) and reply[0] == "break":
            text, broken = reply[1], "the model crashed"
        elif "json" in reply:
            text = json.dumps(reply["json"])
        else:
            text, calls = reply.get("text", ""), reply["tool_calls"]
        model = body.get("model")
        usage = {"prompt_tokens": 42, "completion_tokens": max(1, len(text) // 4), "total_tokens": 0}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        finish = "tool_calls" if calls else "stop"
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {
                    "name": n, "arguments": a if isinstance(a, str) else json.dumps(a)}}
                    for i, (n, a) in enumerate(calls)]
            return self.send_json({"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600,
                                   "model": model, "choices": [{"index": 0, "message": message,
                                                                "finish_reason": finish}], "usage": usage})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

        def chunk(delta: dict[str, Any] | None, finish_reason: str | None = None, **extra: Any) -> None:
            data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": model,
                    "system_fingerprint": None,
                    "choices": [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None,
                                                          "finish_reason": finish_reason}], **extra}
            self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        chunk({"role": "assistant", "content": ""})
        for start in range(0, len(text), 7):
            chunk({"content": text[start:start + 7]})
        if broken:
            self.wfile.write(f"data: {json.dumps({'error': {'message': broken, 'type': 'server_error'}})}\n\n"
                             .encode())
            return
        for index, (name, args) in enumerate(calls):
            raw = args if isinstance(args, str) else json.dumps(args)
            chunk({"tool_calls": [{"index": index, "id": f"call_{index}", "type": "function",
                                   "function": {"name": name, "arguments": ""}}]})
            for start in range(0, len(raw), 5):
                chunk({"tool_calls": [{"index": index, "function": {"arguments": raw[start:start + 5]}}]})
        chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage") and self.server_ref.usage:
            chunk(None, usage=usage)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
