"""One exit (SPEC section 5): the source is walked, so a new call of a model outside assistant/outbound
fails here before it can skip the gate."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from memory.consolidation.protocol import ConsolidationModel
    from memory.search.embeddings import LocalEmbedder
    from memory.store import Store

ROOT = Path(__file__).resolve().parent.parent
SDKS = {"anthropic", "openai", "ollama"}
# The methods by which text reaches a model: a chat provider's stream, a local model's structured call,
# and the SDKs' own entry points.
MODEL_CALLS = {"stream", "ask", "summarize", "judge", "_complete", "chat", "create", "generate"}
# Calls of those names that are not a model call, or that sit behind the exit by construction:
ALLOWED = {
    # consolidation calls the model protocol it is given: the app gives it only the gated model
    # (assistant/jobs.py builds GatedConsolidationModel; test_consolidation_is_handed_the_gated_model)
    ("memory/consolidation/pipeline.py", "summarize"), ("memory/consolidation/pipeline.py", "judge"),
    # the UI consumes the service's turn, not a provider
    ("ui/widgets/chat.py", "stream"),
}


def _sources() -> list[Path]:
    return [p for top in ("assistant", "memory", "ui") for p in (ROOT / top).rglob("*.py")]


def _calls(tree: ast.AST) -> list[str]:
    """Names of model-like calls, except those through the exit itself (`send.chat(...)`)."""
    return [node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MODEL_CALLS
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "send")]


def test_only_the_outbound_module_and_the_providers_call_a_model() -> None:
    found = set()
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("assistant/outbound/", "assistant/providers/")):
            continue  # the exit itself, and the providers it calls (which call their SDKs)
        for name in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            found.add((rel, name))
    # Offline-mode internals call no model: they are checked by name, not allowed wholesale.
    offline = {(rel, name) for rel, name in found if rel.startswith("assistant/offline/") and name == "stream"}
    assert found - ALLOWED - offline == set(), "a model is called outside assistant/outbound"


def test_only_the_providers_import_a_model_sdk() -> None:
    offenders = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("assistant/providers/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [(rel, n) for n in names if n.split(".")[0] in SDKS]
    assert offenders == []


def test_the_agent_and_recall_reach_providers_only_through_send() -> None:
    """The two chat-provider callers hand their requests to outbound.send, never to provider.stream."""
    for rel in ("assistant/responders/model.py", "assistant/recall/reasoned.py", "assistant/turn/titles.py",
                "assistant/jobs.py"):
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        assert not _calls(tree), rel
        imported = {(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert any(module == "assistant.outbound" or (module or "").startswith("assistant.outbound.")
                   for module, _ in imported), rel


def test_consolidation_is_handed_the_gated_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's consolidation job gives the pipeline the local model behind the gate, nothing else."""
    from assistant import jobs
    from assistant.outbound.send import GatedConsolidationModel
    from memory.consolidation import pipeline
    from tests.conftest import make_runtime

    seen: list[ConsolidationModel | None] = []
    real = pipeline.Consolidator.__init__

    def spy(self: pipeline.Consolidator, store: Store, embedder: LocalEmbedder, model: ConsolidationModel | None,
            *args: Any, **kw: Any) -> None:
        seen.append(model)
        real(self, store, embedder, model, *args, **kw)

    monkeypatch.setattr(pipeline.Consolidator, "__init__", spy)
    rt = make_runtime(tmp_path)
    jobs.run_consolidation(rt)
    assert seen and all(isinstance(m, GatedConsolidationModel) for m in seen)
    rt.close()
