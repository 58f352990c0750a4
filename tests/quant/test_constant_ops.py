"""Ops that read constants alone stay float in an int8 file: T5's relative position buckets (litert-torch's T5
encoder: ABS of int32 offsets, CAST to float, LOG and MULs, CAST back to int32, an EMBEDDING_LOOKUP of the bias
table) are no activation, and the quantizer refused the file ('a CAST of int8 converts the raw integers').
The fixture is that chain in small, its bias added to the input: the file quantizes, the chain's ops stay
float while the ADD runs int8, and rillet gives LiteRT's bits."""

from __future__ import annotations

import numpy as np
import pytest
from quantcheck import assert_same_bits_in_rillet, run, sqnr_db

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    load,
    save,
)
from rillet.quant import quantize

pytest.importorskip("ai_edge_litert")

T = 8  # positions
TYPES = {np.dtype(np.float32): 0, np.dtype(np.int32): 2}


def relative_bias_model() -> bytes:
    """x [1, T, T] + bias[bucket(|i - j|)], the bucket floor(log(1 + |i - j| / 2) * 3) as T5 computes its own."""
    tensors: list[Tensor] = []
    buffers = [Buffer(data=None)]
    operators: list[tuple[str, list[int], list[int]]] = []

    def tensor(shape, dtype, data=None) -> int:
        buffer = 0
        if data is not None:
            buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(data, dtype).tobytes(), np.uint8)))
            buffer = len(buffers) - 1
        tensors.append(Tensor(shape=list(shape), type=TYPES[np.dtype(dtype)], buffer=buffer, name=f"t{len(tensors)}"))
        return len(tensors) - 1

    def op(name: str, inputs: list[int], shape, dtype) -> int:
        out = tensor(shape, dtype)
        operators.append((name, inputs, [out]))
        return out

    positions = np.arange(T, dtype=np.int32)
    x = tensor((1, T, T), np.float32)
    offsets = tensor((T, T), np.int32, positions[None, :] - positions[:, None])
    distance = op("ABS", [offsets], (T, T), np.int32)
    as_float = op("CAST", [distance], (T, T), np.float32)
    half = op("MUL", [as_float, tensor((), np.float32, np.float32(0.5))], (T, T), np.float32)
    shifted = op("ADD", [half, tensor((), np.float32, np.float32(1.0))], (T, T), np.float32)
    log = op("LOG", [shifted], (T, T), np.float32)
    scaled = op("MUL", [log, tensor((), np.float32, np.float32(3.0))], (T, T), np.float32)
    bucket = op("CAST", [scaled], (T, T), np.int32)
    flat = op("RESHAPE", [bucket, tensor((1,), np.int32, [T * T])], (T * T,), np.int32)
    table = np.random.default_rng(3).normal(0, 1, (8, 1)).astype(np.float32)
    rows = op("EMBEDDING_LOOKUP", [flat, tensor(table.shape, np.float32, table)], (T * T, 1), np.float32)
    bias = op("RESHAPE", [rows, tensor((3,), np.int32, [1, T, T])], (1, T, T), np.float32)
    y = op("ADD", [x, bias], (1, T, T), np.float32)
    names = sorted({name for name, _, _ in operators})
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[n], 127), builtin_code=BUILTIN_CODES[n])
             for n in names]
    model = ModelFile(
        operator_codes=codes,
        subgraphs=[SubGraph(tensors=tensors, inputs=[x], outputs=[y], name="main", operators=[
            Operator(opcode_index=names.index(name), inputs=inputs, outputs=outputs)
            for name, inputs, outputs in operators])],
        buffers=buffers,
        signature_defs=[SignatureDef(inputs=[TensorMap(name="x", tensor_index=x)],
                                     outputs=[TensorMap(name="y", tensor_index=y)],
                                     signature_key="serving_default", subgraph_index=0)],
    )
    return save(model)


def test_an_op_chain_on_constants_stays_float_and_the_file_runs_with_litert_s_bits():
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = relative_bias_model()
    rng = np.random.default_rng(0)
    data = quantize(content, rng.normal(0, 2, (16, 1, T, T)).astype(np.float32), progress=False, auto=False)
    q = load(data)
    sg = q.subgraphs[0]
    kinds = {}
    for op in sg.operators:
        kinds.setdefault(q.op_name(op), []).append(sg.tensors[op.outputs[0]].type)
    assert kinds["LOG"] == [0] and kinds["EMBEDDING_LOOKUP"] == [0] and sorted(kinds["CAST"]) == [0, 2]
    assert 9 in kinds["ADD"]  # the bias is added in int8, the chain's ADD stays float
    xs = [rng.normal(0, 2, (1, T, T)).astype(np.float32) for _ in range(4)]
    assert_same_bits_in_rillet(data, xs)
    assert sqnr_db(run(content, xs, LiteRT), run(data, xs, LiteRT)) > 30
