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



def test_abs_takes_the_scale_ratio_in_float():
    """TFLite divides the float scales in float: 0.5 / float32(1/3) is exactly 1.5 there (1.49999995 in double), so
    the half steps -7 -> 10.5, -5 -> 7.5 and 3 -> 4.5 round up to LiteRT's 11, 8 and 5."""
    x = np.array([-7, -5, 7, 3, -128, 127], I8)
    m = op_model("ABS", [Input(x.shape, I8, Quant(0.5, 0))], [(x.shape, I8, Quant(1 / 3, 0))])
    assert_same_bits_as_litert(m, [x])


def test_abs_of_int32():
    """T5's relative position buckets take an int32 |i - j| (litert-torch); the most negative value stays itself."""
    x = np.array([[-5, 0, 7, -2**31, 2**31 - 1, -1]], np.int32)
    m = op_model("ABS", [Input(x.shape, np.int32)], [(x.shape, np.int32)])
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


# (a shape, b shape): the rows the driver walks (s8_vsqrdiff: two rows; s8_vsqrdiffc: a row and one element,
# on either side), a layer norm's x against its mean first.
SQDIFF_BROADCASTS = [
    ((1, 64, 128), (1, 64, 1)),
    ((1, 64, 1), (1, 64, 128)),
    ((2, 3, 33), (2, 3, 33)),
    ((3, 17), ()),
    ((), (5, 16)),
    ((4, 1), (1, 31)),
    ((2, 5, 1), (2, 5, 1)),
]


@pytest.mark.parametrize("a_shape, b_shape", SQDIFF_BROADCASTS, ids=[str(i) for i in range(len(SQDIFF_BROADCASTS))])
def test_squared_difference_rows_on_every_path_and_thread_count(a_shape, b_shape, monkeypatch):
    from rillet.runtime import Interpreter
    from single_op import run
    from test_kernel_paths import PATHS

    rng = np.random.default_rng(len(a_shape) * 5 + len(b_shape))
    a = rng.integers(-128, 128, a_shape).astype(I8)
    b = rng.integers(-128, 128, b_shape).astype(I8)
    out = np.broadcast_shapes(a.shape, b.shape)
    m = op_model("SQUARED_DIFFERENCE", [Input(a.shape, I8, Quant(0.031, -7)), Input(b.shape, I8, Quant(0.012, 19))],
                 [(out, I8, Quant(0.09, -128))])
    (expected,) = litert_default(m, [a, b])
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        for threads in (1, 2, 3):
            (got,) = run(Interpreter, m, [a, b], num_threads=threads)
            assert got.tobytes() == expected.tobytes(), (isa, threads, np.count_nonzero(got != expected))


@pytest.mark.parametrize("scales", [(0.031, -7, 0.012, 19, 0.09, -128), (0.5, 0, 0.002, -128, 0.0005, 3),
                                    (0.02, 100, 0.02, -100, 2.0, 0)])
def test_squared_difference_every_pair_of_codes(scales):
    """All 65536 (a, b) code pairs in one op: the tables of scaled values hold the reference's every value."""
    s1, z1, s2, z2, so, zo = scales
    codes = np.arange(-128, 128, dtype=np.int16)
    a = np.repeat(codes, 256).astype(I8).reshape(256, 256)
    b = np.tile(codes, 256).astype(I8).reshape(256, 256)
    m = op_model("SQUARED_DIFFERENCE", [Input(a.shape, I8, Quant(s1, z1)), Input(b.shape, I8, Quant(s2, z2))],
                 [(a.shape, I8, Quant(so, zo))])
    assert_same_bits_as_litert(m, [a, b])
