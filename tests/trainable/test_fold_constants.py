"""converter/fold_constants.py: ops on constants folded as the kernels compute them. A file whose only
constant ops are the chain a quantized weight's export meets (DIV, ROUND, ADD, MAXIMUM, MINIMUM, CAST), on
values whose quotients are exact ties, negative, per channel by broadcasting and out of int8's range, gives
the same outputs folded and unfolded, in rillet and in LiteRT; what cannot fold exactly (x / 0, a CAST out
of range) stays an op."""

from __future__ import annotations

import numpy as np
import pytest

from rillet.converter import load, save
from rillet.converter.fold_constants import fold_constant_ops
from rillet.converter.format import Buffer, ModelFile, Operator, Options, SignatureDef, SubGraph, Tensor, TensorMap
from rillet.converter.format.schema import TENSOR_TYPES
from rillet.converter.frozen_copy import builtin_code
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

# quotients by the per-channel scales (0.5, 2) with ties at every .5, either sign, and beyond [-128, 127]
VALUES = np.array([[0.25, 1.25, -0.25, -1.25, 300.0, -300.0],
                   [1.0, 5.0, 3.0, -7.0, 2.2, -2.6]], np.float32)
SCALES = np.array([[0.5], [2.0]], np.float32)


def chain_model(divisor: np.ndarray, clamp: bool) -> bytes:
    """x (int32 [2, 6]) + CAST(clamp(ROUND(VALUES / divisor) + 3)): the int32 output of a weight quantized
    by ops, and the float ROUND result added to a float input as a second output."""
    m = ModelFile(buffers=[Buffer()])
    tensors: list[Tensor] = []
    ops: list[Operator] = []

    def tensor(dtype: str, value: np.ndarray | None = None, shape=(2, 6)) -> int:
        if value is not None:
            m.buffers.append(Buffer(data=np.frombuffer(value.tobytes(), np.uint8)))
            shape = value.shape
        tensors.append(Tensor(shape=list(shape), type=TENSOR_TYPES[dtype], name=f"t{len(tensors)}",
                              buffer=len(m.buffers) - 1 if value is not None else 0))
        return len(tensors) - 1

    def op(kind: str, inputs: list[int], dtype: str = "FLOAT32", options: Options | None = None) -> int:
        out = tensor(dtype)
        ops.append(Operator(opcode_index=builtin_code(m.operator_codes, kind), inputs=inputs, outputs=[out],
                            builtin_options=options))
        return out

    x, xf = tensor("INT32"), tensor("FLOAT32")
    level = op("ROUND", [op("DIV", [tensor("FLOAT32", VALUES), tensor("FLOAT32", divisor)],
                           options=Options("DivOptions", fused_activation_function=0))])
    rounded = op("ADD", [xf, level], options=Options("AddOptions", fused_activation_function=0))
    level = op("ADD", [level, tensor("FLOAT32", np.array([3.0], np.float32))],
               options=Options("AddOptions", fused_activation_function=0))
    if clamp:
        level = op("MAXIMUM", [level, tensor("FLOAT32", np.array([-128.0], np.float32))])
        level = op("MINIMUM", [level, tensor("FLOAT32", np.array([127.0], np.float32))])
    cast = op("CAST", [level], "INT8" if clamp else "INT32",
              Options("CastOptions", in_data_type=TENSOR_TYPES["FLOAT32"],
                      out_data_type=TENSOR_TYPES["INT8" if clamp else "INT32"]))
    if clamp:
        cast = op("CAST", [cast], "INT32", Options("CastOptions", in_data_type=TENSOR_TYPES["INT8"],
                                                   out_data_type=TENSOR_TYPES["INT32"]))
    out = op("ADD", [x, cast], "INT32", Options("AddOptions", fused_activation_function=0))
    m.subgraphs = [SubGraph(tensors=tensors, inputs=[x, xf], outputs=[out, rounded], operators=ops)]
    m.signature_defs = [SignatureDef(inputs=[TensorMap("x", x), TensorMap("xf", xf)],
                                     outputs=[TensorMap("out", out), TensorMap("rounded", rounded)],
                                     signature_key="serving_default", subgraph_index=0)]
    return save(m)


def outputs(content: bytes) -> list[dict]:
    feeds = {"x": np.arange(12, dtype=np.int32).reshape(2, 6), "xf": np.zeros((2, 6), np.float32)}
    return [it.get_signature_runner("serving_default")(**feeds)
            for it in (Interpreter(model_content=content), litert.Interpreter(model_content=content))]


@pytest.mark.parametrize("clamp", [True, False], ids=["int8", "int32"])
def test_folded_chain_gives_the_unfolded_outputs_in_rillet_and_litert(clamp):
    unfolded = chain_model(SCALES, clamp)
    folded = save(fold_constant_ops(load(unfolded)))
    m = load(folded)
    # the float ROUND's ADD reads an input: it stays; everything that read only constants went
    assert [m.op_name(op) for op in m.subgraphs[0].operators] == ["ADD", "ADD"]
    want = outputs(unfolded)
    np.testing.assert_array_equal(want[0]["out"], want[1]["out"])
    for got in outputs(folded):
        for key in ("out", "rounded"):
            np.testing.assert_array_equal(got[key], want[0][key], err_msg=key)


def test_what_cannot_fold_exactly_stays_an_op():
    # x / 0 (the kernels give 0), then an unclamped CAST to int8 of values out of its range
    unclamped = load(chain_model(np.array([[0.0], [2.0]], np.float32), clamp=False))
    folded = fold_constant_ops(unclamped)
    assert [folded.op_name(op) for op in folded.subgraphs[0].operators][:2] == ["DIV", "ROUND"]
    wide = load(chain_model(np.array([[0.001], [2.0]], np.float32), clamp=False))
    sg = wide.subgraphs[0]
    cast = next(op for op in sg.operators if wide.op_name(op) == "CAST")
    sg.tensors[cast.outputs[0]].type = TENSOR_TYPES["INT8"]
    folded = fold_constant_ops(wide)
    assert [folded.op_name(op) for op in folded.subgraphs[0].operators] == ["ADD", "CAST", "ADD"]
