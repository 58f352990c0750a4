"""int8 DIV against LiteRT's builtin kernel, bit for bit: every (dividend, divisor) pair of int8 values under
several scales and zero points, broadcast operands with a fused RELU, and the refusal of a divisor at its
zero point (a real zero), which LiteRT refuses too."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, op_model, run

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

# (dividend scale, zero point, divisor scale, zero point, output scale, zero point)
SCALES = [(0.05, -128, 0.04, 3, 0.02, 5), (0.1, 0, 0.1, 0, 0.1, 0), (1 / 128, -1, 0.02, -128, 0.5, -10),
          (0.3, 20, 0.01, -50, 0.25, 100), (0.01, 0, 0.5, 127, 0.001, 0)]


def litert(content: bytes, feeds: list[np.ndarray]) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    return run(LiteRT, content, feeds)[0]


@pytest.mark.parametrize("scales", SCALES, ids=lambda s: "_".join(f"{v:g}" for v in s))
def test_every_pair_of_int8_values_matches_litert(scales):
    s1, z1, s2, z2, so, zo = scales
    a = np.repeat(np.arange(-128, 128, dtype=np.int8), 256)
    b = np.tile(np.arange(-128, 128, dtype=np.int8), 256)
    a, b = a[b != z2].reshape(1, -1), b[b != z2].reshape(1, -1)
    n = a.shape[1]
    content = op_model("DIV", [Input((1, n), np.int8, Quant(s1, z1)), Input((1, n), np.int8, Quant(s2, z2))],
                       [((1, n), np.int8, Quant(so, zo))])
    np.testing.assert_array_equal(run(Interpreter, content, [a, b])[0], litert(content, [a, b]))


def test_a_broadcast_constant_divisor_with_a_fused_relu_matches_litert():
    rng = np.random.default_rng(0)
    divisor = Const(np.array([[[-90], [-3], [40]]], np.int8), Quant(0.02, -7))
    content = op_model("DIV", [Input((2, 3, 5), np.int8, Quant(0.04, 10)), divisor],
                       [((2, 3, 5), np.int8, Quant(0.03, -20))], options={"fused_activation_function": 1})
    x = rng.integers(-128, 128, (2, 3, 5), dtype=np.int8)
    np.testing.assert_array_equal(run(Interpreter, content, [x])[0], litert(content, [x]))


def test_a_divisor_at_its_zero_point_is_refused_as_litert_refuses_it():
    content = op_model("DIV", [Input((1, 4), np.int8, Quant(0.1, 0)), Input((1, 4), np.int8, Quant(0.1, 5))],
                       [((1, 4), np.int8, Quant(0.1, 0))])
    feeds = [np.ones((1, 4), np.int8), np.array([[1, 2, 5, 7]], np.int8)]
    with pytest.raises(RuntimeError):
        litert(content, feeds)
    with pytest.raises(RuntimeError, match="int8 DIV by zero: divisor element 2 is its zero point 5"):
        run(Interpreter, content, feeds)
