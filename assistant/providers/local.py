"""The local model for everything but chat: titles of closed conversations, consolidation summaries
and supersession judgements. Ollama's (`LocalModel`) or an OpenAI-compatible endpoint's
(`OpenAILocalModel`), as `local_provider` says; one policy for both (`StructuredModel`):

- every call has a timeout (the ollama client's default is none: a stalled server would hang);
- connection failures and server errors are retried with backoff, then a circuit breaker stops
  asking for the rest of the run;
- every answer is validated against the schema asked for; one that is not gets one repair attempt
  (the model is told what was wrong), and a second bad answer is MalformedAnswer: nothing is written;
- it is handed only requests built by assistant.outbound (the gate has kept secrets and private
  memories out of them).

The chat providers (ollama_provider, openai_provider) stream with tools and report failures as
ProviderError; they share the wording of an unreachable server (base.unreachable).
"""
from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

from assistant.providers.base import http_get, not_found, not_listed, unreachable
from assistant.runtime import Runtime
from memory.errors import MalformedAnswer, ModelUnavailable, RequestTooLong

__all__ = ["LocalModel", "OpenAILocalModel", "StructuredModel", "local_choice", "local_model", "reachable",
           "schema_errors", "unreachable"]

log = logging.getLogger(__name__)
SKIPPED = "summaries and supersession were skipped; scores and tiers were updated"


PROBE_SECONDS = 0.5  # a local server that is up answers its model list in milliseconds


def reachable(host: str, timeout: float | None = None) -> bool:
    """A quick GET /api/tags; any answer at all counts."""
    timeout = PROBE_SECONDS if timeout is None else timeout
    url = host.rstrip("/") if "://" in host else f"http://{host.rstrip('/')}"
    return http_get(url + "/api/tags", timeout=timeout) is not None


# -- validation -------------------------------------------------------------------------------------

_TYPES = {"string": str, "boolean": bool, "object": dict, "array": list, "null": type(None)}


def schema_errors(value: Any, schema: dict[str, Any], where: str = "answer") -> list[str]:
    """What is wrong with `value` under the JSON-schema subset our requests use (type, properties,
    required, items); empty when it fits."""
    wanted = schema.get("type")
    if wanted is not None:
        kinds = wanted if isinstance(wanted, list) else [wanted]
        if not any(_is(value, kind) for kind in kinds):
            return [f"{where} should be {' or '.join(kinds)}"]
    errors: list[str] = []
    if isinstance(value, dict):
        missing = [key for key in schema.get("required", []) if key not in value]
        if missing:
            errors.append(f"{where} lacks {', '.join(missing)}")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors += schema_errors(value[key], sub, f"{key}" if where == "answer" else f"{where}.{key}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{index}]")
    return errors


def _is(value: Any, kind: str) -> bool:
    if kind in ("number", "integer"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return ok and (kind == "number" or float(value).is_integer())
    return isinstance(value, _TYPES.get(kind, object))


def parse_answer(raw: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON object in a model's answer, checked against `schema`; MalformedAnswer says what is wrong
    in words fit to tell the model (never the answer itself)."""
    text = (raw or "").strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        try:
            data = json.loads(text[start:end + 1]) if 0 <= start < end else None
        except ValueError:
            data = None
        if data is None:
            raise MalformedAnswer("the answer was not a JSON object") from None
    errors = schema_errors(data, schema)
    if errors:
        raise MalformedAnswer("; ".join(errors[:5]))
    if not isinstance(data, dict):  # a schema asks for an object; this says so to the type checker too
        raise MalformedAnswer("the answer was not a JSON object")
    return data


class _Transient(Exception):
    """A failure worth another try (connection, timeout, 429, 5xx); `final` is said when none is left."""

    def __init__(self, final: ModelUnavailable) -> None:
        super().__init__(str(final))
        self.final = final


# -- the policy -------------------------------------------------------------------------------------

class StructuredModel:
    """The one policy of local model calls; subclasses make one call (`_complete`) and `check`."""

    server = "the local model"
    max_tokens = 1024  # the longest answer asked for (lowered to fit a small window)

    def __init__(self, host: str, model: str, retries: int = 2, breaker_threshold: int = 3,
                 backoff: float = 0.5) -> None:
        self.host, self.name = host, model
        self.retries, self.backoff = retries, backoff
        self.breaker_threshold = breaker_threshold
        self.failures = 0
        self.listed: list[str] | None = None  # what the server listed when checked (named in a 404)

    def _complete(self, instructions: str, text: str, schema: dict[str, Any],
                  repair: tuple[str, str] | None) -> str:
        """One call; `repair` is (the previous answer, what was wrong with it). Raises _Transient or
        ModelUnavailable."""
        raise NotImplementedError

    def check(self) -> None:
        """ModelUnavailable with one clear line when the server or the model is missing."""
        raise NotImplementedError

    def reachable(self) -> bool:
        """A quick probe (well under a second) before work that can do without the model."""
        raise NotImplementedError

    def _unreachable(self) -> ModelUnavailable:
        return ModelUnavailable(f"{unreachable(self.host, self.server)} (model {self.name}): {SKIPPED}")

    def ask(self, instructions: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
        """One structured call under the policy; returns the JSON object the schema asks for. Called
        only by assistant.outbound.send.ask_local, with a request the gate built. A request refused for
        its length raises RequestTooLong (not a failure of the server: the breaker does not count it)."""
        if self.failures >= self.breaker_threshold:
            raise ModelUnavailable(f"{self.server} at {self.host} failed {self.failures} times in a row; "
                                   "the rest of this run skips it")
        repair: tuple[str, str] | None = None
        attempt = 0
        while True:
            raw = ""
            try:
                raw = self._complete(instructions, text, schema, repair)
                data = parse_answer(raw, schema)
                self.failures = 0
                return data
            except MalformedAnswer as exc:
                if repair is not None:
                    self.failures += 1
                    raise MalformedAnswer(f"the model did not return valid JSON twice: {exc}") from None
                repair = (raw, str(exc))
                log.info("local model answer unusable (%s); one repair attempt", exc)
                continue
            except ModelUnavailable:
                self.failures += 1
                raise
            except _Transient as exc:
                self.failures += 1
                if attempt >= self.retries or self.failures >= self.breaker_threshold:
                    raise exc.final from None
            attempt += 1
            log.info("local model call failed (attempt %d); retrying", attempt)
            time.sleep(self.backoff * (2 ** (attempt - 1)))


def _repair_messages(repair: tuple[str, str] | None, schema: dict[str, Any]) -> list[dict[str, str]]:
    """The repair turn: the model's own bad answer, then what was wrong and the schema to follow."""
    if repair is None:
        return []
    answer, fault = repair
    return [{"role": "assistant", "content": answer[:2000] or "(empty)"},
            {"role": "user", "content": f"That answer cannot be used: {fault}. Reply with only one JSON object "
                                        f"that follows this JSON schema: {json.dumps(schema)}"}]


# -- Ollama -----------------------------------------------------------------------------------------

class LocalModel(StructuredModel):
    """Ollama behind the one policy; implements memory.consolidation.protocol.ConsolidationModel."""

    server = "Ollama"

    def __init__(self, host: str, model: str, timeout: float = 60.0, retries: int = 2,
                 breaker_threshold: int = 3, backoff: float = 0.5) -> None:
        import ollama

        super().__init__(host, model, retries, breaker_threshold, backoff)
        self.client = ollama.Client(host=host, timeout=timeout)

    def reachable(self) -> bool:
        return reachable(self.host)

    def check(self) -> None:
        import httpx

        try:
            models = self.client.list().models
        except (ConnectionError, httpx.TransportError) as exc:
            raise self._unreachable() from exc
        except Exception as exc:  # noqa: BLE001 - any failure to list means the server is unusable
            raise ModelUnavailable(f"Ollama at {self.host} failed: {exc}") from exc
        names = [str(m.model) for m in models]
        self.listed = names
        if self.name not in names and f"{self.name}:latest" not in names:
            # Sent as configured all the same (one rule on every path); a 404 then says what to pull.
            log.warning("%s", not_listed("Ollama", self.host, self.name, names))

    def _complete(self, instructions: str, text: str, schema: dict[str, Any],
                  repair: tuple[str, str] | None) -> str:
        import httpx
        import ollama

        messages = [{"role": "system", "content": instructions}, {"role": "user", "content": text},
                    *_repair_messages(repair, schema)]
        try:
            response = self.client.chat(model=self.name, stream=False, format=schema, options={"temperature": 0},
                                        messages=messages)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise ModelUnavailable(not_found("Ollama", self.host, self.name, self.listed,
                                                 f"run: ollama pull {self.name}")) from None
            raise _Transient(ModelUnavailable(f"Ollama at {self.host} failed: {exc.error}")) from None
        except (ConnectionError, httpx.TransportError):
            raise _Transient(self._unreachable()) from None
        return response.message.content or ""


# -- an OpenAI-compatible endpoint --------------------------------------------------------------------

RESPONSE_FORMATS = ("json_schema", "json_object", "prompt")


def response_format(kind: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """How each kind of server is asked for JSON that follows `schema`.

    json_schema: OpenAI, vLLM, LM Studio, llama-server, Ollama's /v1. json_object: llama-cpp-python's
    server reads the schema from this form ({"type": "json_object", "schema": ...}). prompt: no
    response_format; the schema is in the instructions and the answer is validated.
    """
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    if kind == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


class OpenAILocalModel(StructuredModel):
    """An OpenAI-compatible endpoint behind the one policy (titles, summaries, the judge)."""

    def __init__(self, base_url: str, model: str, key_env: str = "OPENAI_API_KEY",
                 headers: dict[str, str] | None = None, timeout: float = 60.0, retries: int = 2,
                 breaker_threshold: int = 3, backoff: float = 0.5, json_format: str = "auto",
                 max_tokens: int = 1024) -> None:
        import openai

        from assistant.providers.openai_provider import NO_KEY, SERVER, api_key, endpoint_url

        url = endpoint_url(base_url)
        super().__init__(url, model, retries, breaker_threshold, backoff)
        self.server = SERVER
        self.key_env = key_env
        key = api_key(key_env)
        self.has_key = key is not None
        self.headers = dict(headers or {})
        self.timeout, self.max_tokens = timeout, max_tokens
        self.client = openai.OpenAI(base_url=url, api_key=key or NO_KEY, timeout=timeout, max_retries=0,
                                    default_headers=self.headers or None)
        # "auto" starts with the most precise form and steps down when the server refuses it.
        self.formats = list(RESPONSE_FORMATS) if json_format == "auto" else [json_format]

    def reachable(self) -> bool:
        from assistant.providers.openai_provider import api_key, probe

        return probe(self.host, api_key(self.key_env), self.headers, timeout=PROBE_SECONDS).answered

    def check(self) -> None:
        from assistant.providers.openai_provider import api_key, probe

        found = probe(self.host, api_key(self.key_env), self.headers, timeout=min(self.timeout, 5.0))
        if not found.answered:
            raise self._unreachable()
        if found.status in (401, 403):
            raise ModelUnavailable(self._auth_line(found.status))
        if not self.name and found.models:
            self.name = found.models[0]  # the quick probe at start-up missed it (a busy server answers late)
        if not self.name:
            raise ModelUnavailable(f"{self.server} at {self.host} lists no model and none is configured (set "
                                   "ASSISTANT_LOCAL_MODEL or openai.model); summaries and supersession were skipped")
        if found.models and self.name not in found.models:
            # The name is sent as configured (one rule on every path): a 404 at the call says what is offered.
            log.warning("%s", not_listed(self.server, self.host, self.name, found.models))
        self.listed = found.models

    def _auth_line(self, status: int | None) -> str:
        if not self.has_key:
            return f"{self.server} at {self.host} needs an API key ({status}): set {self.key_env}"
        return f"{self.server} at {self.host} refused the API key in {self.key_env} ({status})"

    def _complete(self, instructions: str, text: str, schema: dict[str, Any],
                  repair: tuple[str, str] | None) -> str:
        import openai

        while True:
            kind = self.formats[0]
            system = instructions
            if kind == "prompt":
                system += f"\n\nReply with only one JSON object that follows this JSON schema: {json.dumps(schema)}"
            request: dict[str, Any] = {
                "model": self.name, "temperature": 0, "max_tokens": self.max_tokens,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": text},
                             *_repair_messages(repair, schema)]}
            wanted = response_format(kind, schema)
            if wanted is not None:
                request["response_format"] = wanted
            try:
                reply = self.client.chat.completions.create(**request)
            except openai.APIStatusError as exc:
                # A refused form: 400 or 422 from most servers; llama-cpp-python wraps its validation
                # error ("response_format.type: Input should be 'text' or 'json_object'") in a 500.
                said = str(getattr(exc, "body", "") or exc).lower()
                if (wanted is not None and len(self.formats) > 1 and exc.status_code in (400, 422, 500)
                        and "response_format" in said):
                    log.info("%s refused response_format %s; trying %s", self.host, kind, self.formats[1])
                    self.formats.pop(0)
                    continue
                raise self._status_failure(exc) from None
            except openai.APITimeoutError:
                raise _Transient(ModelUnavailable(f"{self.server} at {self.host} did not answer within "
                                                  f"{self.timeout:g} s (model {self.name})")) from None
            except openai.APIConnectionError as exc:
                from assistant.providers.openai_provider import connection_refused

                if connection_refused(exc):
                    raise _Transient(self._unreachable()) from None
                # It took the request (a kept-alive connection the server had closed, a server that died).
                raise _Transient(ModelUnavailable(f"{self.server} at {self.host} closed the connection before "
                                                  f"answering (model {self.name})")) from None
            choices = reply.choices or []
            return (choices[0].message.content or "") if choices else ""

    def _status_failure(self, exc: Any) -> Exception:
        """A refusal by status: permanent (key, model, request), for the request's length, or worth another
        try (429, 5xx)."""
        import openai

        from assistant.providers.openai_provider import _error_text
        from assistant.providers.window import window_from_refusal

        said = _error_text(exc)
        window = window_from_refusal(said) if exc.status_code in (400, 413, 422) else None
        if window is not None:
            return RequestTooLong(f"{self.server} at {self.host} refused the request for its length ({said[:160]})",
                                  window)
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ModelUnavailable(self._auth_line(exc.status_code))
        if isinstance(exc, openai.NotFoundError):
            return ModelUnavailable(not_found(self.server, self.host, self.name, self.listed,
                                              "summaries and supersession were skipped"))
        final = ModelUnavailable(f"{self.server} at {self.host} failed ({exc.status_code})")
        if exc.status_code == 429 or exc.status_code >= 500:
            return _Transient(final)
        return ModelUnavailable(f"{self.server} at {self.host} refused the request ({exc.status_code})")


# -- which one --------------------------------------------------------------------------------------

def local_choice(runtime: Runtime) -> str:
    """Who serves the local model: `local_provider` when set, else the OpenAI-compatible endpoint when
    one is configured (a base URL in the config file, or provider = openai), else Ollama."""
    s = runtime.settings
    if s.local_provider:
        return s.local_provider
    return "openai" if s.endpoint_in_file or s.provider == "openai" else "ollama"


def local_model(runtime: Runtime, timeout: float | None = None, retries: int = 2) -> StructuredModel:
    """The configured local model, Ollama's (ollama.host, ollama.model) or the endpoint's (openai.*);
    `timeout` caps the configured one."""
    s = runtime.settings

    def capped(configured: float) -> float:
        return min(timeout, configured) if timeout else configured

    if local_choice(runtime) == "openai":
        from assistant.providers.openai_provider import api_key, chat_model, probe

        o = s.openai
        name = s.local_model or chat_model(
            s, lambda: probe(o.base_url, api_key(o.api_key_env), o.headers, timeout=1.0).models)
        return OpenAILocalModel(o.base_url, name, o.api_key_env, o.headers, timeout=capped(o.timeout_seconds),
                                retries=retries, json_format=o.json_format, max_tokens=min(1024, s.max_tokens))
    return LocalModel(s.ollama.host, s.local_model or s.ollama.model, timeout=capped(s.ollama.timeout_seconds),
                      retries=retries)
