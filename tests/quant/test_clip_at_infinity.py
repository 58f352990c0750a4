"""clip_by_value at infinity (openWakeWord's melspectrogram: MINIMUM(x, +inf)): the bound is a no-op, so it
takes no part in the range; quantized to the range's edge it leaves the int8 op the identity it was, and
rillet gives LiteRT's bits."""

from __future__ import annotations

import numpy as np
import pytest
from quantcheck import run
from single_op import Input, op_model

from rillet.converter.format import load
from rillet.quant import quantize

pytest.importorskip("ai_edge_litert")


@pytest.mark.parametrize("name, bound", [("MINIMUM", np.inf), ("MAXIMUM", -np.inf)])
def test_a_bound_at_infinity_quantizes_as_the_identity(name, bound):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    content = op_model(name, [Input((1, 16)), np.full((1, 16), bound, np.float32)], [((1, 16), np.float32)])
    rng = np.random.default_rng(0)
    data = quantize(content, rng.uniform(-2, 3, (16, 1, 16)).astype(np.float32), progress=False)
    q = load(data)
    op = next(op for op in q.subgraphs[0].operators if q.op_name(op) == name)
    assert q.subgraphs[0].tensors[op.outputs[0]].quantization.scale[0] == pytest.approx(5 / 255, rel=0.02)
    xs = [rng.uniform(-2, 3, (1, 16)).astype(np.float32) for _ in range(4)]
    want = run(data, xs, LiteRT)
    np.testing.assert_array_equal(run(data, xs, Interpreter), want)
    np.testing.assert_allclose(want, np.array(xs), atol=5 / 255)
