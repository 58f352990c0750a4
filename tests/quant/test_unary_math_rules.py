"""The quantizer's int8 rules for RSQRT, SQRT, LOG and EXP: each op runs int8 with the output range
calibration saw, LiteRT runs the file, and rillet gives LiteRT's bits."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.converter.format import load
from rillet.quant import quantize

pytest.importorskip("ai_edge_litert")

INT8 = 9


@pytest.mark.parametrize("name, lo, hi", [("RSQRT", 0.05, 4.0), ("SQRT", 0.25, 9.0), ("LOG", 0.1, 20.0),
                                          ("EXP", -4.0, 2.0)])
def test_the_op_quantizes_to_int8_and_gives_litert_bits(name, lo, hi):
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from quantcheck import run

    from rillet.runtime import Interpreter

    rng = np.random.default_rng(0)
    content = op_model(name, [Input((1, 64))], [((1, 64), np.float32)])
    data = quantize(content, rng.uniform(lo, hi, (32, 1, 64)).astype(np.float32), progress=False)
    q = load(data)
    assert [q.op_name(op) for op in q.subgraphs[0].operators] == ["QUANTIZE", name, "DEQUANTIZE"]
    op = q.subgraphs[0].operators[1]
    assert q.subgraphs[0].tensors[op.outputs[0]].type == INT8
    xs = [rng.uniform(lo, hi, (1, 64)).astype(np.float32) for _ in range(8)]
    want = run(data, xs, LiteRT, dequantize=False)
    np.testing.assert_array_equal(run(data, xs, Interpreter, dequantize=False), want)
    exact = run(content, xs, LiteRT, dequantize=False)
    # the same function: within two output steps, or 10% where the input's own step moves a steep function
    np.testing.assert_allclose(want, exact, rtol=0.1, atol=(np.max(exact) - min(np.min(exact), 0)) / 255 * 2)
