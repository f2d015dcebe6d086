"""How many tokens a model's server takes in one request (its context window), and how a request is
made to fit it (SPEC F7: the prompt fits the model).

The window is read where the server says it: vLLM's and other OpenAI-compatible model lists
(`max_model_len`, `context_length`), then, for the kind of server the list says it is (`server_kind`),
llama.cpp's server (`GET /props`), LM Studio (`GET /api/v0/models/{model}`), Ollama (`POST /api/show`:
the model's `context_length` and a Modelfile's `num_ctx`).
A server that says nothing (llama-cpp-python's) says it when refused: "Requested tokens (2155) exceed
context window of 2048" (`window_from_refusal`). The config's `context_window` wins over all of them.
"""
from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from assistant.providers.base import http_get

PROBE_SECONDS = 1.0  # each question to a server; a server that is slow to say is asked again next launch
# Tokens from characters: 4 per token for English prose, fewer for JSON, code, numbers and other
# scripts. The fit uses 3.2 so that a request it lets through is not refused by the server's count.
CHARS_PER_TOKEN = 3.2
_REFUSALS = [
    re.compile(r"exceeds? (?:the )?context window of (\d+)", re.I),  # llama-cpp-python
    re.compile(r"maximum context length is (\d+)", re.I),  # OpenAI, vLLM
    re.compile(r"context (?:length|window|size)[^\d]{0,40}(\d{3,7})", re.I),  # llama.cpp, LM Studio, others
    re.compile(r"\bn_ctx\D{0,10}(\d{3,7})", re.I),
]
_LENGTH = re.compile(r"context (?:window|length|size)|too many tokens|too long|exceed", re.I)


# Every byte a character takes beyond the first, in tokens: a CJK character (3 bytes) counts about 1.5
# tokens, an emoji (4 bytes) about 2; a small local model's tokenizer, trained on English, cuts them finer
# than prose (a request fitted by the characters alone was refused by the server's count).
TOKENS_PER_EXTRA_BYTE = 0.6


def tokens(text: str) -> int:
    """A cautious count of the tokens `text` takes (see CHARS_PER_TOKEN and TOKENS_PER_EXTRA_BYTE)."""
    wide = len(text.encode("utf-8", "surrogatepass")) - len(text)
    return int(len(text) / CHARS_PER_TOKEN + wide * TOKENS_PER_EXTRA_BYTE) + 1


def reply_room(window: int, asked: int) -> int:
    """Tokens kept for the answer: what was asked for (max_tokens), at most a quarter of the window."""
    return max(64, min(asked, window // 4))


def window_from_refusal(message: str) -> int | None:
    """The window a server named when it refused a request for its length; None when the refusal was
    not about length (0 when it was, without a number)."""
    for pattern in _REFUSALS:
        found = pattern.search(message)
        if found:
            return int(found.group(1))
    return 0 if _LENGTH.search(message) else None


def _get_json(url: str, headers: dict[str, str] | None = None) -> Any:
    answer = http_get(url, headers, timeout=PROBE_SECONDS)
    if answer is None or answer[0] != 200:
        return None
    try:
        return json.loads(answer[1])
    except ValueError:
        return None


def _post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=PROBE_SECONDS) as response:  # noqa: S310 - http(s) only
            return json.loads(response.read(2_000_000))
    except (OSError, ValueError, urllib.error.HTTPError):
        return None


def _number(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 256 else None


def server_kind(entries: list[dict[str, Any]], url: str) -> str:
    """What an OpenAI-compatible server is, as its model list says (`owned_by`): "llama.cpp", "lmstudio",
    "ollama", "vllm", "llama-cpp-python", or "" when it does not say."""
    owners = {str(e.get("owned_by", "")).lower() for e in entries}
    if "llamacpp" in owners:
        return "llama.cpp"
    if "organization_owner" in owners:
        return "lmstudio"
    if "vllm" in owners:
        return "vllm"
    if "me" in owners:
        return "llama-cpp-python"
    if "library" in owners or url.rstrip("/").endswith(":11434/v1"):
        return "ollama"
    return ""


def openai_compatible_window(url: str, model: str, headers: dict[str, str] | None = None,
                             entries: list[dict[str, Any]] | None = None) -> int | None:
    """An OpenAI-compatible server's window for `model`: from its model list (`entries`, asked when not
    given), then from where the kind of server the list says it is keeps it: llama.cpp's /props, LM
    Studio's /api/v0/models, Ollama's /api/show. A server of another kind is asked nothing more: a path
    it does not have is an error in its log (llama-cpp-python says its window only when it refuses)."""
    root = re.sub(r"/v1/?$", "", url.rstrip("/"))
    if entries is None:
        listing = _get_json(f"{url.rstrip('/')}/models", headers)
        data = listing.get("data") if isinstance(listing, dict) else None
        entries = [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    found = _listed({"data": entries}, model)
    if found:
        return found
    asks: dict[str, Callable[[], int | None]] = {
        "llama.cpp": lambda: _llama_cpp(_get_json(f"{root}/props", headers)),
        "lmstudio": lambda: _lm_studio(_get_json(f"{root}/api/v0/models/{model}", headers)),
        "ollama": lambda: ollama_window(root, model),  # Ollama's /v1
    }
    ask = asks.get(server_kind(entries, url))
    return ask() if ask is not None else None


def _llama_cpp(props: Any) -> int | None:
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    return _number(props.get("n_ctx")) or (_number(settings.get("n_ctx")) if isinstance(settings, dict) else None)


def _listed(listing: Any, model: str) -> int | None:
    entries = listing.get("data") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("id") == model:
            for key in ("max_model_len", "context_length", "context_window", "max_context_length"):
                if _number(entry.get(key)):
                    return _number(entry.get(key))
            meta = entry.get("meta")
            if isinstance(meta, dict) and _number(meta.get("n_ctx_train")):
                return _number(meta.get("n_ctx_train"))
    return None


def _lm_studio(entry: Any) -> int | None:
    if not isinstance(entry, dict):
        return None
    return _number(entry.get("loaded_context_length")) or _number(entry.get("max_context_length"))


def ollama_window(host: str, model: str) -> int | None:
    """Ollama's window for `model`: a Modelfile's num_ctx, else the model's own context length."""
    shown = _post_json(f"{host.rstrip('/')}/api/show", {"model": model})
    if not isinstance(shown, dict):
        return None
    found = re.search(r"(?m)^\s*num_ctx\s+(\d+)", str(shown.get("parameters") or ""))
    if found:
        return _number(int(found.group(1)))
    info = shown.get("model_info")
    for key, value in (info.items() if isinstance(info, dict) else []):
        if str(key).endswith(".context_length") and _number(value):
            return _number(value)
    return None
