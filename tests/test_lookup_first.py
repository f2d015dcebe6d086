"""The bundled model's embedding tables read row by row (memory/search/lookup_first.py): the same vectors as
the model as shipped, bit for bit, on the real onnxruntime; the edit is made once and only where it holds."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory.search.embeddings import BundledEngine, LocalEmbedder
from memory.search.lookup_first import _model_class, gather_first

TEXTS = ["when is my sister Anna's birthday?", "the boiler code is 4471",
         "Remind me to call the bank tomorrow at 9am, and to water the plants on Sunday evening",
         "ok", "Ünïcödé and emoji 🎉 and a long word pneumonoultramicroscopicsilicovolcanoconiosis"]


@pytest.fixture(scope="module")
def shipped() -> bytes:
    return Path(LocalEmbedder(cache_dir=Path("/nonexistent"))._model_file()).read_bytes()


def _graph(model: bytes):  # type: ignore[no-untyped-def]
    parsed = _model_class()()
    parsed.ParseFromString(model)
    return parsed.graph


def test_both_tables_are_read_row_by_row_and_nothing_else_changes(shipped: bytes) -> None:
    edited, changed = gather_first(shipped)
    assert changed == 2  # the word and the position embeddings (the token types are float32 already)
    before, after = _graph(shipped), _graph(edited)
    tables = {t.name for t in after.initializer}
    gathers = [n for n in after.node if n.op_type == "Gather"]
    assert all(n.input[0] in tables for n in gathers if "embeddings" in n.input[0])
    # Per table: its Cast and Mul over the whole table went, four nodes over the picked rows came.
    assert len(after.node) == len(before.node) - 2 * 2 + 3 * 2
    assert [t.name for t in after.initializer] == [t.name for t in before.initializer]
    assert gather_first(edited) == (edited, 0)  # made once: nothing left to edit


def test_the_edited_model_gives_the_shipped_models_vectors_bit_for_bit(shipped: bytes, tmp_path: Path) -> None:
    import onnxruntime

    original = tmp_path / "shipped.onnx"
    original.write_bytes(shipped)
    options = onnxruntime.SessionOptions()
    session = onnxruntime.InferenceSession(str(original), sess_options=options, providers=["CPUExecutionProvider"],
                                           disabled_optimizers=["ConstantFolding"])
    engine = BundledEngine(str(original))  # reads and edits the file as the app does
    assert len(session.get_inputs()) == len(engine.session.get_inputs())
    plain = BundledEngine.__new__(BundledEngine)  # the same tokens and pooling, on the unedited graph
    plain.session, plain.inputs, plain.tokenizer = session, engine.inputs, engine.tokenizer
    for batch in ([TEXTS[0]], TEXTS):
        assert np.array_equal(np.stack(list(engine.embed(batch))), np.stack(list(plain.embed(batch))))


def test_a_text_embedded_again_is_the_same_vector_and_unloading_forgets_them(tmp_path: Path) -> None:
    embedder = LocalEmbedder(cache_dir=tmp_path)
    first = embedder.embed(TEXTS[:2])
    again = embedder.embed([TEXTS[1], TEXTS[2], TEXTS[1]])
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[1])
    fresh = LocalEmbedder(cache_dir=tmp_path).embed([TEXTS[2]])
    assert np.allclose(again[1], fresh[0], atol=1e-6)
    assert embedder.embed([]).shape == (0, 384)
    assert embedder.unload() and embedder.embed(TEXTS[:1]).shape == (1, 384) and embedder.loads == 2
