"""Any OpenAI-compatible endpoint through the official `openai` SDK: LM Studio, llama.cpp's
llama-server, vLLM, LocalAI, Ollama's /v1, OpenRouter.

Streaming Chat Completions with tool calls (their deltas arrive in fragments, several calls per
reply), token usage when the server reports it, timeouts, and failures in our terms (ProviderError
kinds, one line each). The provider sends exactly the SystemPrompt and conversation it is given:
what may leave the machine is decided before it is called (assistant.outbound).

The API key comes from the environment variable that `openai.api_key_env` names (default
OPENAI_API_KEY); a local server that needs no key gets a placeholder the SDK insists on.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from assistant.conversation import AssistantMessage, Item, ToolUse, UserMessage
from assistant.providers.base import (
    Capabilities,
    Delta,
    Note,
    ProviderError,
    SystemPrompt,
    Tools,
    ToolSpec,
    Usage,
    http_get,
    not_found,
    own_server,
    short_name,
    turn_block_at,
    unreachable,
)
from assistant.settings import Settings

log = logging.getLogger(__name__)

OPENAI_API = "https://api.openai.com/v1"  # the SDK's own default, used when no base URL is configured
NO_KEY = "no-key-needed"  # the SDK refuses to start without a key; local servers ignore this one
SERVER = "The OpenAI-compatible server"
RETRY_AFTER_CAP = 20.0  # seconds: a longer Retry-After is not waited for inside a turn


def endpoint_url(base_url: str) -> str:
    """The base URL as the SDK wants it: a scheme, no trailing slash; empty means OpenAI's API."""
    url = (base_url or OPENAI_API).strip().rstrip("/")
    return url if "://" in url else f"http://{url}"


def api_key(key_env: str) -> str | None:
    return os.environ.get(key_env) or None


@dataclass
class Probe:
    """What a quick GET {base}/models says about an endpoint."""
    url: str
    answered: bool = False
    status: int | None = None
    models: list[str] = field(default_factory=list)
    error: str = ""
    entries: list[dict[str, Any]] = field(default_factory=list)  # the list as the server gave it

    @property
    def usable(self) -> bool:
        return self.answered and self.status == 200


def probe(base_url: str, key: str | None = None, headers: dict[str, str] | None = None,
          timeout: float = 1.0) -> Probe:
    """Ask the server which models it offers; any HTTP answer means it is running."""
    url = endpoint_url(base_url)
    sent = {**(headers or {}), **({"Authorization": f"Bearer {key}"} if key else {})}
    answer = http_get(f"{url}/models", sent, timeout)
    if answer is None:
        return Probe(url, error="no answer")
    status, body = answer
    result = Probe(url, answered=True, status=status)
    if status == 200:
        try:
            result.entries = [m for m in json.loads(body).get("data", []) if isinstance(m, dict)]
            result.models = [str(m["id"]) for m in result.entries]
        except (ValueError, AttributeError, KeyError, TypeError):
            result.error = "the model list is not JSON"
    return result


DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"  # only for OpenAI's own API when no model is named


def named_model(settings: Settings) -> bool:
    """Whether the settings name the OpenAI-compatible server's chat model (else it is the first listed)."""
    return bool(settings.openai.model) or settings.model != Settings.model or not settings.openai.base_url


def chat_model(settings: Settings, listed: Callable[[], list[str]]) -> str:
    """openai.model, else a chat model the user chose (`model`, ASSISTANT_MODEL), else the first model
    the server lists (a local server usually has one loaded); "" when there is none to name."""

    if settings.openai.model:
        return settings.openai.model
    if settings.model != Settings.model:
        return settings.model
    if not settings.openai.base_url:
        return DEFAULT_OPENAI_MODEL
    models = listed()
    return models[0] if models else ""


class ToolsUnsupported(ProviderError):
    """The server refused a request because it carried tools (a model or server without tool calls)."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_request", message)


def to_messages(system: SystemPrompt, conversation: list[Item], with_tools: bool) -> list[dict[str, Any]]:
    """Our conversation as Chat Completions messages. Without tools (a server that has none), calls and
    results made this turn are folded into plain messages so the roles still alternate.

    This turn's block is a user message of its own just before the newest one: a system message there
    would repeat the tools in templates that write them into every system message (llama-cpp-python's
    chatml-function-calling)."""
    out: list[dict[str, Any]] = [{"role": "system", "content": f"{system.stable}\n\n{system.memory}"}]
    block_at = turn_block_at(conversation) if system.turn else None
    for index, item in enumerate(conversation):
        if index == block_at:
            out.append({"role": "user", "content": system.turn})
        if isinstance(item, UserMessage):
            out.append({"role": "user", "content": item.text})
        elif isinstance(item, AssistantMessage):
            if item.tool_calls and with_tools:
                out.append({"role": "assistant", "content": item.text, "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _arguments(c)}}
                    for c in item.tool_calls]})
            else:
                folded = [f"(called {c.name} {_arguments(c)})" for c in item.tool_calls]
                out.append({"role": "assistant", "content": "\n".join([item.text, *folded]).strip() or "(no text)"})
        elif with_tools:
            out += [{"role": "tool", "tool_call_id": r.id, "content": r.content} for r in item.results]
        else:
            out.append({"role": "user", "content": "\n".join(f"({r.name} result) {r.content}" for r in item.results)})
    return out


def _arguments(call: ToolUse) -> str:
    # Arguments that were not a JSON object go back as the model wrote them, so it sees its own slip.
    value: Any = call.input
    return value if isinstance(value, str) else json.dumps(value)


class _Calls:
    """Tool calls assembled from their streamed fragments, by index."""

    def __init__(self) -> None:
        self.parts: dict[int, dict[str, str]] = {}

    def add(self, fragment: Any) -> None:
        index = fragment.index if fragment.index is not None else len(self.parts)
        entry = self.parts.setdefault(index, {"id": "", "name": "", "arguments": ""})
        if fragment.id and not entry["id"]:
            entry["id"] = fragment.id
        function = fragment.function
        if function is None:
            return
        if function.name and function.name != entry["name"]:
            # Most servers send the name once; a server that repeats it whole must not double it.
            entry["name"] = function.name if not entry["name"] else entry["name"] + function.name
        if function.arguments:
            entry["arguments"] += function.arguments

    def uses(self) -> list[ToolUse]:
        found = []
        for index, entry in sorted(self.parts.items()):
            raw = entry["arguments"].strip()
            try:
                value: Any = json.loads(raw) if raw else {}
            except ValueError:
                value = raw  # not JSON: the tool refuses it and the model hears why
            found.append(ToolUse(entry["id"] or f"call_{index}", entry["name"], value))
        return found


class OpenAIProvider:
    name = "openai"

    def __init__(self, base_url: str, model: str, key_env: str = "OPENAI_API_KEY",
                 headers: dict[str, str] | None = None, timeout: float = 120.0, max_retries: int = 2,
                 max_tokens: int = 2048, backoff: float = 0.5, context_window: int | None = None,
                 named: bool = True) -> None:
        import openai

        self.url = endpoint_url(base_url)
        self.model = model
        # Whether the model was named in the settings; one taken from the server's list is taken again
        # when the server comes back with another (a different server on the same URL).
        self.named = named
        self.key_env = key_env
        key = api_key(key_env)
        self.has_key = key is not None
        self.timeout, self.retries, self.backoff, self.max_tokens = timeout, max_retries, backoff, max_tokens
        # Retries are ours (429 and 5xx only, before anything streamed): a server that is not running
        # is said at once, not after the SDK's own three attempts.
        self.headers = dict(headers or {})
        self.client = openai.AsyncOpenAI(base_url=self.url, api_key=key or NO_KEY, timeout=timeout, max_retries=0,
                                         default_headers=self.headers or None)
        # Tools: unknown until the model calls one or the server refuses them. Usage: asked for with
        # stream_options.include_usage, dropped if the server refuses it.
        self.configured_window = context_window
        self.capabilities = Capabilities(Tools.UNKNOWN, streaming_usage=True, context_window=context_window,
                                         learned=context_window is not None, keeps_prefix=own_server(self.url, model))
        self.tool_choice: str | dict[str, Any] = "auto"

    def learn(self) -> Capabilities:
        """What the server is and can do, asked again after a failed request: its model list (a model
        that was not named is taken from it again: another server may now answer on this URL), then its
        window, by the paths of the kind of server its list says it is (window.openai_compatible_window)."""
        from assistant.providers.window import openai_compatible_window

        if not self.capabilities.learned:
            key = api_key(self.key_env)
            headers = {**self.headers, **({"Authorization": f"Bearer {key}"} if key else {})}
            found = probe(self.url, key, self.headers, timeout=1.0)
            self._take_model(found.models)
            self.capabilities.context_window = (self.configured_window or openai_compatible_window(
                self.url, self.model, headers, found.entries if found.usable else None))
            self.capabilities.learned = True
        return self.capabilities

    def _take_model(self, listed: list[str]) -> bool:
        """A model that was not named and is no longer listed gives way to the first listed one (with what
        was learned of the old one: tools, usage, window). True when it changed."""
        if self.named or not listed or self.model in listed:
            return False
        log.info("%s now lists %s, not %s: taking %s", self.url, ", ".join(listed[:5]), self.model, listed[0])
        self.model = listed[0]
        self.capabilities = Capabilities(Tools.UNKNOWN, streaming_usage=True, context_window=self.configured_window,
                                         learned=self.configured_window is not None,
                                         keeps_prefix=own_server(self.url, self.model))
        return True

    async def stream(self, system: SystemPrompt, conversation: list[Item], tools: list[ToolSpec], *,
                     max_tokens: int | None = None) -> AsyncIterator[Delta | ToolUse | Usage | Note]:
        if not self.model:
            # Nothing was named and the server listed nothing at launch: it may have loaded one since. One
            # that gives no list (not running) fails below in its own words.
            listed = await self._listed()
            self._take_model(listed or [])
            if not self.model and listed is not None:
                raise ProviderError("model", f"{SERVER} at {self.url} lists no model: set openai.model or "
                                             "ASSISTANT_MODEL")
        with_tools = bool(tools) and self.capabilities.tools is not Tools.NO
        request: dict[str, Any] = {"model": self.model, "messages": to_messages(system, conversation, with_tools),
                                   "stream": True, "max_tokens": max_tokens or self.max_tokens}
        if with_tools:
            request["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                  "parameters": t.parameters}} for t in tools]
            request["tool_choice"] = self.tool_choice
        was = self.model
        response = await self._open(request, with_tools)
        if self.model != was:
            yield Note(f"{SERVER} at {self.url} no longer serves {short_name(was)!r}: {short_name(self.model)!r} "
                       "answers from now on")
        calls = _Calls()
        usage: Usage | None = None
        finished, said = False, 0  # a finish_reason came; characters of the answer so far
        try:
            async for chunk in response:
                if getattr(chunk, "usage", None) is not None:
                    u = chunk.usage
                    usage = Usage(u.prompt_tokens or 0, u.completion_tokens or 0)
                for choice in chunk.choices or []:
                    finished = finished or bool(choice.finish_reason)
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        said += len(delta.content)
                        yield Delta(delta.content)
                    for fragment in delta.tool_calls or []:
                        calls.add(fragment)
        except Exception as exc:  # noqa: BLE001 - every way a stream can break becomes one of our kinds
            raise self._failure(exc, answered=said) from None
        finally:
            await response.close()
        if not finished:
            # Every answer ends with its finish_reason. Without one the stream was cut: by a server that
            # died, or, before a word, by one that refused the request without saying so (llama-cpp-python
            # does for a prompt over its window).
            if said or calls.parts:
                raise ProviderError("cut", f"{SERVER} at {self.url} stopped in the middle of the answer (cut off "
                                           f"after {said} characters)")
            raise ProviderError("empty", f"{SERVER} at {self.url} ended the answer before it began, without saying why")
        if usage is not None:
            yield usage
        for call in calls.uses():
            if with_tools:
                self.capabilities.tools = Tools.YES  # a model that called a tool takes them
            yield call

    async def _open(self, request: dict[str, Any], with_tools: bool) -> Any:
        """Start the stream: 429 and 5xx retried with backoff, a refused stream_options dropped once."""
        import openai

        attempt, reconnected, relisted = 0, False, False
        while True:
            if self.capabilities.streaming_usage:
                request["stream_options"] = {"include_usage": True}
            else:
                request.pop("stream_options", None)
            try:
                return await self.client.chat.completions.create(**request)
            except openai.NotFoundError as exc:
                # A model taken from the list that the server no longer has: another server answers on this
                # URL. Its first listed model is taken, once; a model that was named is never replaced.
                if not relisted and self._take_model(await self._listed() or []):
                    relisted, request["model"] = True, self.model
                    continue
                raise await self._failure_async(exc, attempt + 1) from None
            except openai.APIStatusError as exc:
                said = _error_text(exc).lower()
                status = exc.status_code
                if with_tools and status in (400, 422, 500, 501) and ("tool" in said or "function" in said):
                    self.capabilities.tools = Tools.NO
                    raise ToolsUnsupported(f"{SERVER} at {self.url} cannot use tools with {self.model!r} "
                                           f"({status}: {_error_text(exc)[:120]})") from None
                if self.capabilities.streaming_usage and status in (400, 422) and "stream_options" in said:
                    self.capabilities.streaming_usage = False
                    continue
                if not (status == 429 or status >= 500) or attempt >= self.retries:
                    raise await self._failure_async(exc, attempt + 1) from None
                response = exc.response
            except openai.APIConnectionError as exc:
                # One immediate retry: a kept-alive connection the server dropped after its last answer
                # (llama-cpp-python does after a failed stream) fails the next request. A server that is
                # not running refuses the retry at once too, so it is still said without a wait.
                if isinstance(exc, openai.APITimeoutError) or reconnected:
                    raise await self._failure_async(exc, attempt + 1) from None
                reconnected = True
                continue
            except Exception as exc:  # noqa: BLE001 - anything else is said at once
                raise await self._failure_async(exc, attempt + 1) from None
            attempt += 1
            wait = self._wait(attempt, response)
            log.info("%s answered %s; retry %d in %.1f s", self.url, response.status_code, attempt, wait)
            await asyncio.sleep(wait)

    def _wait(self, attempt: int, response: Any) -> float:
        """Backoff doubling from `backoff`, or the server's Retry-After when it gives a short one."""
        wait = self.backoff * 2.0 ** (attempt - 1)
        headers = getattr(response, "headers", None) or {}
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                told = float(headers.get(name, "")) * scale
            except (TypeError, ValueError):
                continue
            if 0 <= told <= RETRY_AFTER_CAP:
                return told
        return wait

    async def _failure_async(self, exc: BaseException, attempts: int = 1) -> ProviderError:
        """As _failure; a 404 also asks the server what it offers, so the line can name it."""
        import openai

        if isinstance(exc, openai.NotFoundError):
            return self._not_found(await self._listed())
        return self._failure(exc, attempts)

    async def _listed(self) -> list[str] | None:
        try:
            return [m.id async for m in self.client.models.list()]
        except Exception:  # noqa: BLE001 - no list: the line says the endpoint itself is wrong
            return None

    def _not_found(self, listed: list[str] | None) -> ProviderError:
        if listed is None:
            return ProviderError("model", f"{SERVER} at {self.url} has no chat completions endpoint (404): check "
                                          "openai.base_url (it usually ends in /v1)")
        return ProviderError("model", not_found(SERVER, self.url, self.model, listed,
                                                "set openai.model or ASSISTANT_MODEL"))

    def _failure(self, exc: BaseException, attempts: int = 1, answered: int | None = None) -> ProviderError:
        """One of our ProviderError kinds, with one line for the user that says what happened. `answered`:
        the characters of the answer streamed before it broke (None: it had not begun streaming)."""
        import openai

        tries = f" after {attempts} tries" if attempts > 1 else ""
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, openai.APITimeoutError) or "timeout" in type(exc).__name__.lower():
            return ProviderError("timeout", f"{SERVER} at {self.url} did not answer within {self.timeout:g} s")
        if answered is not None and not isinstance(exc, openai.APIStatusError | openai.APIError) or \
                isinstance(exc, openai.APIConnectionError) and not connection_refused(exc):
            # It took the request (and may have begun answering): the connection broke after that.
            if answered:
                return ProviderError("cut", f"{SERVER} at {self.url} closed the connection in the middle of the "
                                            f"answer (cut off after {answered} characters)")
            return ProviderError("network", f"{SERVER} at {self.url} closed the connection before answering")
        if isinstance(exc, openai.APIConnectionError):
            return ProviderError("network", unreachable(self.url, SERVER))
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            if not self.has_key:
                return ProviderError("auth", f"{SERVER} at {self.url} needs an API key ({exc.status_code}): "
                                             f"set {self.key_env}")
            return ProviderError("auth", f"{SERVER} at {self.url} refused the API key in {self.key_env} "
                                         f"({exc.status_code})")
        if isinstance(exc, openai.NotFoundError):
            return self._not_found(None)
        if isinstance(exc, openai.RateLimitError):
            return ProviderError("rate_limit", f"{SERVER} at {self.url} is rate limiting requests (429){tries}; "
                                               "try again shortly")
        if isinstance(exc, openai.APIStatusError):
            if exc.status_code in (503, 529):
                return ProviderError("overloaded", f"{SERVER} at {self.url} is overloaded ({exc.status_code}){tries}; "
                                                   "try again in a minute")
            if exc.status_code >= 500:
                return ProviderError("model", f"{SERVER} at {self.url} failed ({exc.status_code}){tries}")
            return ProviderError("bad_request", f"{SERVER} at {self.url} refused the request ({exc.status_code}: "
                                                f"{_error_text(exc)[:160]})")
        if isinstance(exc, openai.APIError):  # an error event in the middle of the stream
            return ProviderError("model", f"{SERVER} at {self.url} failed while answering: {_error_text(exc)[:160]}")
        log.warning("unexpected failure from %s", self.url, exc_info=exc)
        return ProviderError("model", f"{SERVER} at {self.url} failed: {type(exc).__name__}")


def connection_refused(exc: BaseException) -> bool:
    """Whether a connection error is one where nothing took the request (nothing listens, no route, no
    name): "not reachable". One that broke after the request was sent is said as that, not as this."""
    cause: BaseException | None = exc
    while cause is not None:  # by name: the SDK's HTTP client is httpx or its fork httpx2
        if type(cause).__name__ in ("ConnectError", "ConnectTimeout") or isinstance(cause, ConnectionRefusedError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _error_text(exc: BaseException) -> str:
    """The server's own message: {"error": {"message": ...}} (OpenAI, vLLM, llama.cpp), {"error": "..."}
    (Ollama), or FastAPI's {"detail": ...} (llama-cpp-python's validation errors)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = (inner.get("message") or inner.get("detail") or inner) if isinstance(inner, dict) else inner
    elif isinstance(body, str):
        text = body
    else:
        text = getattr(exc, "message", None) or exc
    return " ".join(str(text).split())
