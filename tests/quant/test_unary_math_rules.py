"""The quantizer's int8 rules for RSQRT, SQRT, LOG, EXP, ELU, GELU and DIV: each op runs int8 with the output range
calibration saw, LiteRT runs the file, and rillet gives LiteRT's bits; a DIV whose divisor comes near zero
(where TFLite's int8 DIV fails) is refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.converter.format import load
from rillet.quant import QuantizationError, quantize

pytest.importorskip("ai_edge_litert")

INT8 = 9


@pytest.mark.parametrize("name, lo, hi", [("RSQRT", 0.05, 4.0), ("SQRT", 0.25, 9.0), ("LOG", 0.1, 20.0),
                                          ("EXP", -4.0, 2.0), ("ELU", -3.0, 3.0), ("GELU", -3.0, 3.0)])
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


def test_div_quantizes_to_int8_and_gives_litert_bits():
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    rng = np.random.default_rng(1)
    content = op_model("DIV", [Input((1, 32)), Input((1, 32))], [((1, 32), np.float32)])

    def sample() -> list[np.ndarray]:
        return [rng.uniform(-3, 3, (1, 32)).astype(np.float32), rng.uniform(0.5, 2, (1, 32)).astype(np.float32)]

    data = quantize(content, [sample() for _ in range(32)], progress=False)
    q = load(data)
    div = next(op for op in q.subgraphs[0].operators if q.op_name(op) == "DIV")
    assert q.subgraphs[0].tensors[div.outputs[0]].type == INT8
    for feeds in [sample() for _ in range(6)]:
        outs = [it(model_content=data) for it in (LiteRT, Interpreter)]
        for it in outs:
            it.allocate_tensors()
            for d, v in zip(it.get_input_details(), feeds):
                it.set_tensor(d["index"], v)
            it.invoke()
        got, want = (it.get_tensor(it.get_output_details()[0]["index"]) for it in outs)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(want, feeds[0] / feeds[1], atol=0.1)


def test_a_divisor_near_zero_is_refused_by_name():
    content = op_model("DIV", [Input((1, 8)), Input((1, 8))], [((1, 8), np.float32)])
    rng = np.random.default_rng(2)
    calibration = [[rng.uniform(-1, 1, (1, 8)).astype(np.float32)] * 2 for _ in range(8)]
    with pytest.raises(QuantizationError, match=r"DIV #0 .*within half an int8 step .* of zero, where TFLite's "
                                                r"int8 DIV fails; keep it float with keep_float=\['DIV'\]"):
        quantize(content, calibration, progress=False)
