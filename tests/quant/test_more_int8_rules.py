"""Quantizer rules for ops rillet's runtime already runs in int8: the comparisons (each operand with its own
parameters, a bool output), REVERSE_V2, GATHER_ND, SELECT and SELECT_V2 (one scale through). Each single-op
model quantizes, LiteRT runs the file with TFLite's op version for it, and rillet gives LiteRT's bits."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, assert_same_bits_as_litert, op_model

from rillet.converter.format import load
from rillet.quant import quantize

RNG = np.random.default_rng(11)
X = (2, 3, 4)
F32, B = np.float32, np.bool_


def models():
    half = np.full(X, 0.25, F32)
    yield "GREATER", op_model("GREATER", [Input(X), Input(X)], [(X, B)]), 2
    yield "LESS_EQUAL", op_model("LESS_EQUAL", [Input(X), half], [(X, B)]), 2
    yield "EQUAL", op_model("EQUAL", [Input(X), Input(X)], [(X, B)]), 2
    yield "NOT_EQUAL", op_model("NOT_EQUAL", [Input(X), Input(X)], [(X, B)]), 2
    yield "LESS", op_model("LESS", [Input(X), Input(X)], [(X, B)]), 2
    yield "GREATER_EQUAL", op_model("GREATER_EQUAL", [Input(X), half], [(X, B)]), 2
    yield "REVERSE_V2", op_model("REVERSE_V2", [Input(X), np.array([1], np.int32)], [(X, F32)]), 3
    yield "GATHER_ND", op_model("GATHER_ND", [Input(X), np.array([[1, 2], [0, 0]], np.int32)], [((2, 4), F32)]), 1
    cond = RNG.random(X) > 0.5
    yield "SELECT_V2", op_model("SELECT_V2", [cond, Input(X), Input(X)], [(X, F32)]), 1
    yield "SELECT", op_model("SELECT", [cond, Input(X), Input(X)], [(X, F32)]), 1


@pytest.mark.parametrize("name, content, version", list(models()), ids=lambda v: v if isinstance(v, str) else "")
def test_the_op_quantizes_to_int8_and_rillet_gives_litert_bits(name, content, version):
    n_inputs = len(load(content).subgraphs[0].inputs)
    calibration = [[RNG.uniform(-1, 1, X).astype(F32) for _ in range(n_inputs)] for _ in range(8)]
    data = quantize(content, calibration, io="int8", progress=False)
    model = load(data)
    (op,) = [op for op in model.subgraphs[0].operators if model.op_name(op) == name]
    sg = model.subgraphs[0]
    assert all(sg.tensors[i].type == 9 for i in op.inputs if sg.tensors[i].type not in (2, 6))  # int8 operands
    assert model.operator_codes[op.opcode_index].version == version
    feeds = [RNG.integers(-128, 128, X).astype(np.int8) for _ in range(n_inputs)]
    if n_inputs == 2 and name in ("EQUAL", "NOT_EQUAL"):
        feeds[1][0] = feeds[0][0]  # some equal values
    assert_same_bits_as_litert(data, feeds)
