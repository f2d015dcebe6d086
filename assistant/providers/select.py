"""Which chat model answers, decided in one place (`choose_provider`), for a turn and for `status`.

Configured (`provider`, ASSISTANT_PROVIDER) wins. Otherwise: anthropic when ANTHROPIC_API_KEY is set,
else a configured OpenAI-compatible endpoint that answers (configured: a base URL in the config file;
an OPENAI_API_KEY or OPENAI_BASE_URL alone selects nothing), else Ollama when it answers, else the
built-in offline mode.
"""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from assistant.providers.anthropic_provider import AnthropicProvider
from assistant.providers.base import Provider, not_listed, short_name
from assistant.providers.local import reachable
from assistant.providers.ollama_provider import OllamaProvider
from assistant.runtime import Runtime
from assistant.settings import Settings


@dataclass
class Choice:
    """The chat model a turn would use now, and why."""
    name: str  # anthropic | openai | ollama | offline
    reason: str  # "configured", "auto: ANTHROPIC_API_KEY is set", ...
    model: str = ""
    url: str = ""  # the server's address (openai, ollama)
    answers: bool | None = None  # whether the server answered a quick probe (None: not asked)
    offers: list[str] = field(default_factory=list)  # what an openai endpoint lists at /models
    problem: str = ""  # why it cannot work as configured (no key, nothing listed), else ""
    warning: str = ""  # what may not work (a model name the server does not list), else ""

    def line(self) -> str:
        """One line for `status`: "openai smollm2 at http://127.0.0.1:8080/v1, answers (auto: ...)", the model
        by its short name, as the status bar names it (a file path's stem)."""
        where = f" at {self.url}" if self.url else ""
        state = "" if self.answers is None else (", answers" if self.answers else ", not answering")
        problem = f"; {self.problem}" if self.problem else ""
        warning = f"; warning: {self.warning}" if self.warning else ""
        model = f" {short_name(self.model)}" if self.model else ""
        return f"{self.name}{model}{where}{state} ({self.reason}){problem}{warning}"

    def not_answering(self) -> str | None:
        """What to say once at launch when the server the settings name does not answer (chosen all the
        same, or passed over for the offline mode), else None."""
        url = self.url if self.answers is False else _missed_url(self.reason) if self.name == "offline" else ""
        return f"The server at {url} is not answering; offline until it does." if url else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _missed_url(reason: str) -> str:
    """The address an automatic choice found not answering ("the endpoint at URL not answering")."""
    found = re.search(r"the endpoint at (\S+) not answering", reason)
    return found.group(1).rstrip(",") if found else ""


def ollama_chat_model(runtime: Runtime) -> str:
    """ollama.chat_model, else a chat model the user chose (model, ASSISTANT_MODEL), else ollama.model."""

    s = runtime.settings
    if s.ollama.chat_model:
        return s.ollama.chat_model
    if s.model != Settings.model:
        return s.model
    return s.ollama.model


def _openai_choice(runtime: Runtime, reason: str, wait: float = 1.0) -> Choice:
    from assistant.providers.openai_provider import SERVER, api_key, chat_model, endpoint_url, probe

    o = runtime.settings.openai
    found = probe(o.base_url, api_key(o.api_key_env), o.headers, timeout=wait)
    model = chat_model(runtime.settings, lambda: found.models)
    choice = Choice("openai", reason, model, endpoint_url(o.base_url), found.answered, found.models)
    if found.status in (401, 403):
        choice.problem = (f"it asks for an API key: set {o.api_key_env}" if not api_key(o.api_key_env) else
                          f"it refused the key in {o.api_key_env}")
    elif found.answered and not model:
        choice.problem = "it lists no model: set openai.model"
    elif found.models and model not in found.models:
        choice.warning = not_listed(SERVER, choice.url, model, found.models)
    return choice


def choose_provider(runtime: Runtime) -> Choice:
    """The one decision: which chat model, and why (probes servers briefly: under a second each)."""
    s = runtime.settings
    if s.provider == "openai":
        # Chosen on purpose: a busy local server (one generating for another client) gets longer to say
        # which model it serves than the sub-second probe of automatic selection.
        return _openai_choice(runtime, "configured", wait=3.0)
    if s.provider == "ollama":
        return Choice("ollama", "configured", ollama_chat_model(runtime), s.ollama.host, reachable(s.ollama.host))
    if s.provider == "anthropic":
        return Choice("anthropic", "configured", s.model,
                      problem="" if os.environ.get("ANTHROPIC_API_KEY") else "ANTHROPIC_API_KEY is not set")
    if s.provider == "offline":
        return Choice("offline", "configured", "built-in")
    if os.environ.get("ANTHROPIC_API_KEY"):
        return Choice("anthropic", "auto: ANTHROPIC_API_KEY is set", s.model)
    missed = ""
    if s.endpoint_in_file:
        endpoint = _openai_choice(runtime, "auto: the endpoint in the config file answers")
        if endpoint.answers:
            return endpoint
        missed = f", the endpoint at {endpoint.url} not answering"
    if reachable(s.ollama.host):
        return Choice("ollama", f"auto: Ollama answers at {s.ollama.host}{missed}", ollama_chat_model(runtime),
                      s.ollama.host, True)
    return Choice("offline", f"auto: no ANTHROPIC_API_KEY{missed}, Ollama not reachable at {s.ollama.host}",
                  "built-in")


def provider_for(runtime: Runtime, choice: Choice) -> Provider | None:
    """The provider object for a choice (None: the built-in offline mode, which is no model), its
    capabilities learned (the window: config `context_window`, else as the server says; a few quick
    requests); raises ProviderError when it cannot work."""
    provider = _provider(runtime, choice)
    if provider is not None:
        provider.learn()
    return provider


def _provider(runtime: Runtime, choice: Choice) -> Provider | None:
    s = runtime.settings
    if choice.name == "anthropic":

        return AnthropicProvider(s.model, s.max_tokens, context_window=s.context_window)
    if choice.name == "openai":
        # A server that did not answer, or lists no model, gets the turn anyway: the message is stored
        # first, the turn fails (unreachable; no model to name), and the offline mode acts on the message
        # in its place (a reminder is still set). Nothing typed is lost to a server that cannot answer.
        from assistant.providers.openai_provider import OpenAIProvider, named_model

        o = s.openai
        return OpenAIProvider(o.base_url, choice.model, o.api_key_env, o.headers, o.timeout_seconds, o.max_retries,
                              s.max_tokens, context_window=s.context_window, named=named_model(s))
    if choice.name == "ollama":

        return OllamaProvider(s.ollama.host, choice.model, s.ollama.timeout_seconds, s.max_tokens,
                              context_window=s.context_window)
    return None


def select_provider(runtime: Runtime) -> Provider | None:
    """The chat model for this run (None: the offline mode); raises ProviderError when the configured one
    cannot work."""
    return provider_for(runtime, choose_provider(runtime))
