"""int8 ABS and SQUARED_DIFFERENCE (the quantizer writes both) against LiteRT's default Interpreter, bit for bit.

LiteRT 2.3 runs both in TFLite's builtin kernels (XNNPACK does not take them on int8); each test sweeps
scales and zero points, and for ABS both sides of the equal-scale shortcut (no multiplier when they match).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Input, Quant, assert_same_bits_as_litert, litert_default, litert_reference, op_model

pytest.importorskip("ai_edge_litert")

I8 = np.int8
EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
scales = st.floats(0.002, 0.5)
zero_points = st.integers(-128, 127)


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(1, 6), min_size=0, max_size=4), scales, zero_points, scales,
       zero_points, st.booleans())
def test_abs(seed, shape, si, zi, so, zo, same_scale):
    so = si if same_scale else so
    x = np.random.default_rng(seed).integers(-128, 128, size=shape).astype(I8)
    m = op_model("ABS", [Input(tuple(shape), I8, Quant(si, zi))], [(tuple(shape), I8, Quant(so, zo))])
    assert_same_bits_as_litert(m, [x])



@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data(), scales, zero_points,
       scales, zero_points, scales, zero_points)
def test_squared_difference(seed, shape, data, s1, z1, s2, z2, so, zo):
    """Broadcast operands (an axis of 1 in either), each quantized its own way."""
    a_shape = [d if data.draw(st.booleans()) else 1 for d in shape]
    b_shape = [d if data.draw(st.booleans()) else 1 for d in shape][data.draw(st.integers(0, len(shape))):]
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, size=a_shape).astype(I8)
    b = rng.integers(-128, 128, size=b_shape).astype(I8)
    out = np.broadcast_shapes(a.shape, b.shape)
    m = op_model("SQUARED_DIFFERENCE", [Input(a.shape, I8, Quant(s1, z1)), Input(b.shape, I8, Quant(s2, z2))],
                 [(out, I8, Quant(so, zo))])
    assert_same_bits_as_litert(m, [a, b])


def test_the_reference_kernels_agree():
    """The premise that XNNPACK is not involved: LiteRT's reference kernels give the same bits as its default."""
    rng = np.random.default_rng(0)
    a, b = (rng.integers(-128, 128, size=(2, 9, 9, 7)).astype(I8) for _ in range(2))
    m = op_model("SQUARED_DIFFERENCE", [Input(a.shape, I8, Quant(0.03, 5)), Input(b.shape, I8, Quant(0.07, -9))],
                 [(a.shape, I8, Quant(0.2, -100))])
    assert_same_bits_as_litert(m, [a, b])
    assert litert_reference(m, [a, b])[0].tobytes() == litert_default(m, [a, b])[0].tobytes()
