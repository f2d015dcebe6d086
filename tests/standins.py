"""Loopback stand-ins for the Anthropic Messages API and the Ollama API, started by tests.

Each records the requests it receives (path, headers, JSON body) and answers from a script: a
list of responses consumed in order (the last one repeats). Real SDK clients talk to them over HTTP.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hang up on purpose in the timeout and drop tests


class StandIn:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: list[Any] = []
        outer = self

        class Handler(handler):  # type: ignore[misc, valid-type]
            server_ref = outer

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll interval: shutdown() waits for it, and every test tears a server down.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def next_response(self) -> Any:
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

        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
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
    ints (an HTTP error status), "drop", or ("sleep", seconds, entry)."""

    def do_GET(self) -> None:
        if self.path.startswith("/api/tags"):
            self.server_ref.requests.append({"path": self.path, "headers": dict(self.headers), "body": {}})
            return self.send_json({"models": [{"name": "stand-in:latest", "model": "stand-in:latest",
                                               "modified_at": "2026-01-01T00:00:00Z", "size": 1,
                                               "digest": "0" * 64, "details": {}}]})
        self.send_json({"error": "not found"}, 404)

    def do_POST(self) -> None:
        body = self.read_body()
        reply = self.server_ref.next_response()
        if isinstance(reply, tuple) and reply[0] == "sleep":
            time.sleep(reply[1])
            reply = reply[2]
        if reply == "drop":
            return self.drop()
        if isinstance(reply, int):
            message = f"model '{body.get('model')}' not found" if reply == 404 else f"status {reply}"
            return self.send_json({"error": message}, reply)
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
