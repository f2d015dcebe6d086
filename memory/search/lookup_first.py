"""The bundled model's embedding tables, read row by row: a query no longer widens the whole vocabulary.

The int8 MiniLM keeps each embedding table as int8 rows with a scale per row, turned into float32 by a
Cast and a Mul that feed the Gather picking a text's rows. onnxruntime folds that once into float32
tables when ConstantFolding runs (130 MB more resident, embeddings.BundledEngine turns it off); without
folding it runs the Cast and the Mul over all 30,522 rows at every call (two float32 copies of 47 MB):
48 ms of a short query's 50. Gathering the int8 rows and their scales first, then widening only those,
is the same arithmetic (a scale per row goes with its row: outputs equal bit for bit, tested); a query
then takes ~8 ms, a batch a quarter less, and nothing more stays resident.

The graph is edited with protobuf (installed with onnxruntime) through the few ONNX messages it names
(field numbers from onnx.proto); everything else in the file (weights, metadata) passes through as the
parser's unknown fields, untouched. The `onnx` package is not needed at run time; the tests check the
result with it and against the original model on onnxruntime.
"""
from __future__ import annotations

from functools import cache
from typing import Any

FLOAT = 1  # onnx.TensorProto.FLOAT
GRAPH, GRAPHS = 5, 10  # onnx.AttributeProto.AttributeType
# (message, [(field, number, type, repeated, message type)]) of onnx.proto that this edit reads or writes.
_T = {"string": 9, "int64": 3, "int32": 5, "message": 11}
_SUBSET = (
    ("AttributeProto", (("name", 1, "string", False, None), ("i", 3, "int64", False, None),
                        ("type", 20, "int32", False, None))),  # AttributeType, an enum: the same wire as int32
    ("NodeProto", (("input", 1, "string", True, None), ("output", 2, "string", True, None),
                   ("name", 3, "string", False, None), ("op_type", 4, "string", False, None),
                   ("attribute", 5, "message", True, "AttributeProto"), ("domain", 7, "string", False, None))),
    ("TensorProto", (("dims", 1, "int64", True, None), ("name", 8, "string", False, None))),
    ("ValueInfoProto", (("name", 1, "string", False, None),)),
    ("GraphProto", (("node", 1, "message", True, "NodeProto"), ("initializer", 5, "message", True, "TensorProto"),
                    ("output", 12, "message", True, "ValueInfoProto"))),
    ("ModelProto", (("graph", 7, "message", False, "GraphProto"),)),
)
_PACKAGE = "assistant_onnx_subset"


@cache
def _model_class() -> Any:
    """ModelProto as far as _SUBSET names it, in a pool of its own (no clash with the `onnx` package's)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    file = descriptor_pb2.FileDescriptorProto(name=f"{_PACKAGE}.proto", package=_PACKAGE, syntax="proto2")
    for message, fields in _SUBSET:
        kind = file.message_type.add(name=message)
        for name, number, type_name, repeated, of in fields:
            field = kind.field.add(name=name, number=number, type=_T[type_name],
                                   label=3 if repeated else 1)  # LABEL_REPEATED, LABEL_OPTIONAL
            if of:
                field.type_name = f".{_PACKAGE}.{of}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.ModelProto"))


def gather_first(model_bytes: bytes) -> tuple[bytes, int]:
    """The model with each `Gather(Mul(Cast(q), scale), ids)` over a per-row scaled table made
    `Mul(Cast(Gather(q, ids)), Gather(scale, ids))`, and how many tables were changed (0: the bytes as
    given, for a model without such a table)."""
    from google.protobuf.message import DecodeError

    model = _model_class()()
    try:
        model.ParseFromString(model_bytes)
    except DecodeError:
        raise ValueError("the model file is damaged (not an ONNX model, or cut short)") from None
    graph = model.graph
    if any(a.type in (GRAPH, GRAPHS) for node in graph.node for a in node.attribute):
        return model_bytes, 0  # a subgraph may read a widened table by name: not looked into
    dims = {t.name: list(t.dims) for t in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    readers: dict[str, int] = {out.name: 1 for out in graph.output}  # a graph output is read by the caller
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    edits: dict[int, list[Any]] = {}  # the Gather's index in the graph -> the nodes in its place
    dropped: set[str] = set()  # the outputs of the Cast and Mul that go (by name: protobuf's wrappers are no ids)
    for index, gather in enumerate(graph.node):
        if gather.op_type != "Gather" or gather.domain or any(a.name == "axis" and a.i != 0 for a in gather.attribute):
            continue
        mul = producer.get(gather.input[0])
        if mul is None or mul.op_type != "Mul" or mul.domain:
            continue
        cast = producer.get(mul.input[0])
        if cast is None or cast.op_type != "Cast" or cast.domain:
            continue
        table, scale, ids = cast.input[0], mul.input[1], gather.input[1]
        rows = dims.get(table, [])
        if len(rows) != 2 or dims.get(scale) != [rows[0], 1] or readers[mul.output[0]] != 1 \
                or readers[cast.output[0]] != 1:
            continue  # not a table with a scale per row, or its widened copy is read elsewhere too
        stem = gather.output[0]
        picked, widened, scales = f"{stem}/rows_q", f"{stem}/rows_f", f"{stem}/rows_scale"
        nodes = [_node(graph, "Gather", [table, ids], [picked], f"{stem}/gather_q", gather.attribute),
                 _node(graph, "Cast", [picked], [widened], f"{stem}/cast", cast.attribute),
                 _node(graph, "Gather", [scale, ids], [scales], f"{stem}/gather_scale", gather.attribute),
                 _node(graph, "Mul", [widened, scales], [stem], f"{stem}/scale")]
        edits[index] = nodes
        dropped |= {mul.output[0], cast.output[0]}
    if not edits:
        return model_bytes, 0
    kept = []
    for index, node in enumerate(graph.node):
        if index in edits:
            kept += edits[index]
        elif not set(node.output) & dropped:
            kept.append(node)
    ordered = [_copy(graph, node) for node in kept]
    del graph.node[:]
    graph.node.extend(ordered)
    return model.SerializeToString(), len(edits)


def _node(graph: Any, op_type: str, inputs: list[str], outputs: list[str], name: str,
          attributes: Any = ()) -> Any:
    made = _node_class(graph)(op_type=op_type, input=inputs, output=outputs, name=name)
    made.attribute.extend(attributes)
    return made


def _node_class(graph: Any) -> Any:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(type(graph).DESCRIPTOR.fields_by_name["node"].message_type)


def _copy(graph: Any, node: Any) -> Any:
    """A node detached from the graph (clearing the repeated field would otherwise empty it)."""
    copy = _node_class(graph)()
    copy.CopyFrom(node)
    return copy
