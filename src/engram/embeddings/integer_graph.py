"""Run the int8 MiniLM export on integer kernels instead of letting ONNX Runtime widen it.

The shipped export stores every weight as int8 with a float scale and turns it back into
float32 inside the graph (`Cast` then `Mul`). ONNX Runtime constant-folds those two nodes at load,
so the session holds float32 copies of every matrix (the 30,522-word embedding table alone is
47 MB) and multiplies in float32. This module rewrites the graph, once, in memory, before the
session sees it:

- a matrix product `x · (Cast(Wq) · s)` becomes the dynamic quantisation that ONNX Runtime's own
  quantiser emits: `DynamicQuantizeLinear(x)`, `MatMulInteger(xq, Wq)`, then one `Mul` by the two
  scales;
- the weights of those products are multiplied as shipped (int8, `signed=True`) or as uint8
  with zero point 128 (the same numbers, shifted; `signed=False`). uint8 × int8 on x86 CPUs
  without VNNI sums pairs of products in 16 bits and saturates: on an AVX2-only machine the
  vectors drifted to cosine 0.985 of the exact ones. uint8 × uint8 is exact on every CPU but
  half as fast where VNNI makes uint8 × int8 exact (docs/performance.md). `minilm.py` takes the
  signed graph where its vectors come out exact and the unsigned one elsewhere, so a vector is
  the same wherever it was computed (a store shared between machines stays consistent);
- an embedding lookup `Gather(Cast(Wq) · s, ids)` becomes `Cast(Gather(Wq, ids)) · Gather(s, ids)`,
  so only the looked-up rows are widened.

The int8 weights and their scales are used as shipped; only activations are quantised, per
tensor, per call. `bench/embedding_memory.py` and `tests/embeddings/test_minilm.py` measure what
that costs in memory, speed and agreement with the float32 reference model.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def integer_graph(model_bytes: bytes, signed: bool) -> bytes:
    """The serialised model with its dequantised weights replaced as above: the products'
    weights int8 when `signed`, else uint8."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load_from_string(model_bytes)
    graph = model.graph
    constants = {init.name for init in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}

    def dequantised(name: str) -> tuple[str, str] | None:
        """(int8 weights, scales) when `name` is `Cast(weights) · scales` of constants."""
        mul = producer.get(name)
        if mul is None or mul.op_type != "Mul":
            return None
        cast = producer.get(mul.input[0])
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in constants:
            return None
        return (cast.input[0], mul.input[1]) if mul.input[1] in constants else None

    zero = "integer_graph.zero_point"
    zero_point = np.array(0, dtype=np.int8) if signed else np.array(128, dtype=np.uint8)
    graph.initializer.append(numpy_helper.from_array(zero_point, zero))
    initializers = {init.name: init for init in graph.initializer}
    shifted: dict[str, str] = {}

    def product_weights(name: str) -> str:
        """The int8 weights `name` as the products take them: as shipped when signed, else a
        uint8 copy (each value + 128) made once per tensor."""
        if signed:
            return name
        if name not in shifted:
            values = numpy_helper.to_array(initializers[name]).astype(np.int16) + 128
            shifted[name] = f"{name}.uint8"
            graph.initializer.append(
                numpy_helper.from_array(values.astype(np.uint8), shifted[name])
            )
        return shifted[name]

    nodes: list[Any] = []
    for index, node in enumerate(graph.node):
        key = f"integer_graph.{index}"
        if node.op_type == "MatMul" and (weights := dequantised(node.input[1])) is not None:
            int8, scales = weights
            quantised = product_weights(int8)
            nodes += [
                helper.make_node(
                    "DynamicQuantizeLinear", [node.input[0]], [f"{key}.x", f"{key}.xs", f"{key}.xz"]
                ),
                helper.make_node(
                    "MatMulInteger", [f"{key}.x", quantised, f"{key}.xz", zero], [f"{key}.i"]
                ),
                helper.make_node("Cast", [f"{key}.i"], [f"{key}.f"], to=TensorProto.FLOAT),
                helper.make_node("Mul", [f"{key}.xs", scales], [f"{key}.s"]),
                helper.make_node("Mul", [f"{key}.f", f"{key}.s"], list(node.output)),
            ]
        elif node.op_type == "Gather" and (weights := dequantised(node.input[0])) is not None:
            quantised, scales = weights
            rows = node.input[1]
            nodes += [
                helper.make_node("Gather", [quantised, rows], [f"{key}.q"]),
                helper.make_node("Cast", [f"{key}.q"], [f"{key}.f"], to=TensorProto.FLOAT),
                helper.make_node("Gather", [scales, rows], [f"{key}.s"]),
                helper.make_node("Mul", [f"{key}.f", f"{key}.s"], list(node.output)),
            ]
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(_reachable(nodes, [out.name for out in graph.output]))
    used = {name for node in graph.node for name in node.input}
    kept = [init for init in graph.initializer if init.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return bytes(model.SerializeToString())


def _reachable(nodes: list[Any], outputs: list[str]) -> list[Any]:
    """`nodes` without those no output depends on any more (the old dequantisations), in order."""
    needed = set(outputs)
    kept: list[Any] = []
    for node in reversed(nodes):
        if any(out in needed for out in node.output):
            kept.append(node)
            needed.update(node.input)
    return kept[::-1]
