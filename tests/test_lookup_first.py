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


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2), as onnx.proto's messages hold one another."""
    def varint(value: int) -> bytes:
        out = bytearray()
        while True:
            out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
            value >>= 7
            if not value:
                return bytes(out)
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def _reachable_bytes(root: object, limit: int = 1_000_000) -> list[int]:
    """The sizes of the bytes objects over `limit` reachable from `root` (Python references only)."""
    import gc

    seen, todo, found = set(), [root], []
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        if isinstance(item, bytes | bytearray) and len(item) > limit:
            found.append(len(item))
        todo.extend(gc.get_referents(item))
    return found


def test_the_loaded_model_keeps_no_copy_of_its_file(shipped: bytes) -> None:
    # Given as bytes, onnxruntime's Python session holds them for its life: 22 MB more resident after a load
    # (102 -> 126 MB, /proc/self/statm, the app's malloc settings) where the unedited model loaded by path held none.
    engine = BundledEngine(LocalEmbedder(cache_dir=Path("/nonexistent"))._model_file())
    assert _reachable_bytes(engine) == []


def test_without_memfd_the_model_loads_from_a_private_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    path = LocalEmbedder(cache_dir=Path("/nonexistent"))._model_file()
    with_memfd = np.stack(list(BundledEngine(path).embed(TEXTS)))
    monkeypatch.delattr(os, "memfd_create", raising=False)  # macOS, or a kernel without it
    assert np.array_equal(np.stack(list(BundledEngine(path).embed(TEXTS))), with_memfd)


def test_a_widened_table_that_is_also_a_graph_output_is_left_as_it_is(shipped: bytes, tmp_path: Path) -> None:
    import onnxruntime

    # The word table's widened copy made an output of the graph too (a second graph field merges into the first).
    crafted = shipped + _field(7, _field(12, _field(1, b"inner.embeddings.word_embeddings.weight")))
    edited, changed = gather_first(crafted)
    assert changed == 1  # the position table only
    ids = np.array([[101, 7592, 2088, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    outputs = []
    for name, model in (("crafted.onnx", crafted), ("edited.onnx", edited)):
        (tmp_path / name).write_bytes(model)
        session = onnxruntime.InferenceSession(str(tmp_path / name), providers=["CPUExecutionProvider"])
        outputs.append(session.run(None, feed))
    assert all(np.array_equal(a, b) for a, b in zip(*outputs, strict=True))


def test_a_graph_with_subgraphs_is_not_edited(shipped: bytes) -> None:
    parsed = _model_class()()
    parsed.ParseFromString(shipped)
    parsed.graph.node[0].attribute.add(name="then_branch", type=5)  # GRAPH: a subgraph may read a table by name
    crafted = parsed.SerializeToString()
    assert gather_first(crafted) == (crafted, 0)


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage", "lfs pointer"])
def test_a_damaged_model_file_means_no_embeddings_not_a_traceback(shipped: bytes, tmp_path: Path,
                                                                   damage: str) -> None:
    from memory.errors import EmbedderUnavailable

    data = {"empty": b"", "truncated": shipped[:len(shipped) // 2], "garbage": bytes(range(256)) * 16,
            "lfs pointer": b"version https://git-lfs.github.com/spec/v1\nsize 22928619\n"}[damage]
    (tmp_path / "model.onnx").write_bytes(data)

    class Damaged(LocalEmbedder):
        def _model_file(self) -> str:  # the installed package's file, damaged on disk
            return str(tmp_path / "model.onnx")

    with pytest.raises(EmbedderUnavailable, match="could not load") as raised:
        Damaged(cache_dir=tmp_path).embed(["hello"])
    assert "assistant_onnx_subset" not in str(raised.value)  # said in the person's words, not the parser's
