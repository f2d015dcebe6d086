"""The local model (Ollama) for everything but chat: titles of closed conversations, consolidation
summaries and supersession judgements. One client, one policy for all of them:

- every call has a timeout (the ollama client's default is none: a stalled server would hang);
- connection failures and server errors are retried with backoff, then a circuit breaker stops
  asking for the rest of the run;
- an answer that is not the JSON asked for is retried once;
- secrets are redacted (memory.sensitive) before any text leaves the machine.

The chat provider (assistant.providers.ollama_provider) streams with tools and reports failures as
ProviderError; it shares the host and the wording of failures from here.
"""
from __future__ import annotations

import json
import logging
import time
from typing import Any

from assistant.runtime import Runtime
from memory.consolidation.protocol import judge_request, summary_request
from memory.errors import MalformedAnswer, ModelUnavailable
from memory.sensitive import redact

log = logging.getLogger(__name__)

TITLE_SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}, "summary": {"type": "string"}},
                "required": ["title", "summary"]}
TITLE_INSTRUCTIONS = ("Give this conversation a short title (at most 6 words) and a one-sentence summary. "
                      "Answer as JSON with keys title and summary.")


def unreachable(host: str) -> str:
    return f"Ollama is not reachable at {host}"


def reachable(host: str, timeout: float = 0.5) -> bool:
    """A quick GET /api/tags; any answer at all counts."""
    import httpx

    try:
        httpx.get(host.rstrip("/") + "/api/tags", timeout=timeout)
        return True
    except httpx.HTTPError:
        return False


class LocalModel:
    """Ollama behind the one policy; implements memory.consolidation.model.ConsolidationModel."""

    def __init__(self, host: str, model: str, timeout: float = 60.0, retries: int = 2,
                 breaker_threshold: int = 3, backoff: float = 0.5) -> None:
        import ollama

        self.host, self.name = host, model
        self.client = ollama.Client(host=host, timeout=timeout)
        self.retries, self.backoff = retries, backoff
        self.breaker_threshold = breaker_threshold
        self.failures = 0

    def _unreachable(self) -> ModelUnavailable:
        return ModelUnavailable(f"{unreachable(self.host)} (model {self.name}): summaries and supersession were "
                                "skipped; scores and tiers were updated")

    def check(self) -> None:
        """ModelUnavailable with one clear line when the server or the model is missing."""
        import httpx

        try:
            models = self.client.list().models
        except (ConnectionError, httpx.TransportError) as exc:
            raise self._unreachable() from exc
        except Exception as exc:  # noqa: BLE001 - any failure to list means the server is unusable
            raise ModelUnavailable(f"Ollama at {self.host} failed: {exc}") from exc
        names = {m.model for m in models}
        if self.name not in names and f"{self.name}:latest" not in names:
            raise ModelUnavailable(f"Ollama at {self.host} has no model {self.name!r} (run: ollama pull "
                                   f"{self.name}); summaries and supersession were skipped")

    def ask(self, instructions: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
        """One structured call under the policy; returns the JSON object the schema asks for."""
        import httpx
        import ollama

        if self.failures >= self.breaker_threshold:
            raise ModelUnavailable(f"Ollama at {self.host} failed {self.failures} times in a row; "
                                   "the rest of this run skips it")
        malformed_retry_used = False
        attempt = 0
        while True:
            try:
                response = self.client.chat(model=self.name, stream=False, format=schema, options={"temperature": 0},
                                            messages=[{"role": "system", "content": instructions},
                                                      {"role": "user", "content": redact(text)}])
                data = json.loads(response.message.content)
                if not isinstance(data, dict) or not set(schema["required"]) <= set(data):
                    raise MalformedAnswer(f"missing keys in {response.message.content[:120]!r}")
                self.failures = 0
                return data
            except (json.JSONDecodeError, MalformedAnswer) as exc:
                if malformed_retry_used:
                    self.failures += 1
                    raise MalformedAnswer(f"the model did not return valid JSON twice: {exc}") from None
                malformed_retry_used = True
            except ollama.ResponseError as exc:
                self.failures += 1
                if exc.status_code == 404:
                    raise ModelUnavailable(f"Ollama at {self.host} has no model {self.name!r}") from None
                if attempt >= self.retries:
                    raise ModelUnavailable(f"Ollama at {self.host} failed: {exc.error}") from None
            except (ConnectionError, httpx.TransportError):
                self.failures += 1
                if attempt >= self.retries or self.failures >= self.breaker_threshold:
                    raise self._unreachable() from None
            attempt += 1
            log.info("local model call failed (attempt %d); retrying", attempt)
            time.sleep(self.backoff * (2 ** (attempt - 1)))

    def summarize(self, texts: list[str]) -> dict[str, Any]:
        return self.ask(*summary_request(texts))

    def judge(self, newer: str, older: str) -> dict[str, Any]:
        return self.ask(*judge_request(newer, older))

    def title(self, transcript: str) -> tuple[str, str]:
        data = self.ask(TITLE_INSTRUCTIONS, transcript, TITLE_SCHEMA)
        title, summary = str(data["title"]).strip()[:80], str(data["summary"]).strip()[:400]
        if not title:
            raise MalformedAnswer("empty title")
        return title, summary


def local_model(runtime: Runtime, timeout: float | None = None, retries: int = 2) -> LocalModel:
    """The configured local model (ollama.host, ollama.model, ollama.timeout_seconds)."""
    s = runtime.settings.ollama
    return LocalModel(s.host, s.model, timeout=timeout or s.timeout_seconds, retries=retries)
