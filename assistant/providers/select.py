"""Which chat model answers: configured, else anthropic with a key, else ollama if it answers, else offline."""
from __future__ import annotations

import os

from assistant.providers.local import reachable
from assistant.runtime import Runtime


def ollama_chat_model(runtime: Runtime) -> str:
    """ollama.chat_model, else a chat model the user chose (model, ASSISTANT_MODEL), else ollama.model."""
    from assistant.settings import Settings

    s = runtime.settings
    if s.ollama.chat_model:
        return s.ollama.chat_model
    if s.model != Settings.model:
        return s.model
    return s.ollama.model


def select_provider(runtime: Runtime):
    """The provider object for this run; raises ProviderError when the configured one cannot work."""
    s = runtime.settings
    name = s.provider
    if not name:
        if os.environ.get("ANTHROPIC_API_KEY"):
            name = "anthropic"
        elif reachable(s.ollama.host):
            name = "ollama"
        else:
            name = "offline"
    if name == "anthropic":
        from assistant.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(s.model, s.max_tokens)
    if name == "ollama":
        from assistant.providers.ollama_provider import OllamaProvider

        return OllamaProvider(s.ollama.host, ollama_chat_model(runtime), s.ollama.timeout_seconds)
    from assistant.offline.reply import OfflineProvider

    return OfflineProvider(runtime)
