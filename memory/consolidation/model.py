"""The local model behind consolidation: a small protocol, and the Ollama client that implements it.

Every call has a timeout, retries with backoff, and a circuit breaker: after repeated failures
the run stops asking. Malformed JSON is retried once. Text is redacted before it leaves.
"""
from __future__ import annotations

import json
import time
from typing import Any, Protocol

from memory.errors import StoreError
from memory.redact import redact

SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "key_facts": {"type": "array", "items": {"type": "string"}},
        "decisions": {"type": "array", "items": {"type": "object", "properties": {
            "decision": {"type": "string"}, "rationale": {"type": "string"},
            "outcome": {"type": ["string", "null"]}, "confidence": {"type": ["string", "number"]}}}},
        "superseded_facts": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["summary", "key_facts", "decisions", "superseded_facts"],
}
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {"supersedes": {"type": "boolean"}, "confidence": {"type": ["string", "number"]},
                   "reason": {"type": ["string", "null"]}},
    "required": ["supersedes", "confidence", "reason"],
}


class ModelUnavailable(StoreError):
    """The local model cannot be used for this run (unreachable, no such model, breaker open)."""


class MalformedAnswer(StoreError):
    """The model answered, but not with the JSON asked for."""


class ConsolidationModel(Protocol):
    name: str

    def check(self) -> None:
        """Raise ModelUnavailable with one clear line when the model cannot be used."""

    def summarize(self, texts: list[str]) -> dict[str, Any]: ...

    def judge(self, newer: str, older: str) -> dict[str, Any]: ...


def confidence_value(value: Any) -> float:
    """Models say 0.9 or "high"; both become a number in [0, 1]."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return max(0.0, min(1.0, float(value)))
    return {"high": 0.9, "medium": 0.7, "low": 0.4}.get(str(value).strip().lower(), 0.0)


class OllamaConsolidationModel:
    def __init__(self, host: str, model: str, timeout: float = 60.0, retries: int = 2,
                 breaker_threshold: int = 3, backoff: float = 0.5) -> None:
        import ollama

        self.host, self.name = host, model
        self.client = ollama.Client(host=host, timeout=timeout)
        self.retries, self.backoff = retries, backoff
        self.breaker_threshold = breaker_threshold
        self.failures = 0

    def _unreachable(self) -> ModelUnavailable:
        return ModelUnavailable(f"Ollama is not reachable at {self.host} (model {self.name}): "
                                "summaries and supersession were skipped; scores and tiers were updated")

    def check(self) -> None:
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

    def _call(self, system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
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
                                            messages=[{"role": "system", "content": system},
                                                      {"role": "user", "content": redact(user)}])
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
            time.sleep(self.backoff * (2 ** (attempt - 1)))

    def summarize(self, texts: list[str]) -> dict[str, Any]:
        notes = "\n".join(f"- {t}" for t in texts)
        return self._call("You consolidate a person's notes. Answer only with JSON with keys summary (2-3 "
                          "sentences), key_facts, decisions (decision, rationale, outcome, confidence) and "
                          "superseded_facts. Use only what the notes say.", f"Notes:\n{notes}", SUMMARY_SCHEMA)

    def judge(self, newer: str, older: str) -> dict[str, Any]:
        return self._call("Decide whether the NEWER note makes the OLDER note no longer true (supersedes it). "
                          "Be conservative: only when they clearly contradict. Answer JSON with keys "
                          "supersedes (boolean), confidence (high, medium or low) and reason.",
                          f"OLDER: {older}\nNEWER: {newer}", JUDGE_SCHEMA)
