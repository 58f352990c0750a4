"""int8 RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR against LiteRT's default Interpreter, bit for bit.

The outputs here are declared (1,), which keeps LiteRT's bilinear resize in TFLite's kernel; with declared 4-D
outputs XNNPACK takes it (test_resize_xnnpack.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Input, Quant, assert_same_bits_as_litert, op_model

pytest.importorskip("ai_edge_litert")

I8 = np.int8


def resize_model(op, shape, size, align_corners, half_pixel_centers, qi, qo):
    return op_model(op, [Input(shape, I8, qi), np.array(size, np.int32)], [((1,), I8, qo)],
                    {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.sampled_from(["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]),
       st.integers(1, 2), st.integers(1, 9), st.integers(1, 9), st.integers(1, 5), st.integers(1, 23),
       st.integers(1, 23), st.sampled_from([(False, False), (True, False), (False, True)]),
       st.floats(0.01, 1.0), st.integers(-128, 127))
def test_resize(seed, op, n, h, w, c, oh, ow, corners, scale, zp):
    """Up and down, every coordinate convention; the input's extremes stress the 2^20-scaled rounding."""
    x = np.random.default_rng(seed).integers(-128, 128, size=(n, h, w, c)).astype(I8)
    q = Quant(scale, zp)
    assert_same_bits_as_litert(resize_model(op, (n, h, w, c), (oh, ow), *corners, q, q), [x])


@pytest.mark.parametrize("size", [(82, 1), (94, 3), (123, 2)])
def test_nearest_uses_fixed_point_index(size):
    """2 -> 82 rows: TFLite's optimized 16.16 fixed-point scale picks another row than its float formula
    (which the float kernel and align_corners/half_pixel_centers use)."""
    h = 2 if size[0] in (82, 94) else 3
    x = np.arange(h * 4, dtype=np.int64).astype(I8).reshape(1, h, 4, 1)
    q = Quant(0.1, 0)
    assert_same_bits_as_litert(resize_model("RESIZE_NEAREST_NEIGHBOR", (1, h, 4, 1), size, False, False, q, q), [x])


@pytest.mark.parametrize("op", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_output_quantized_unlike_the_input_is_refused(op):
    """LiteRT's builtin resize ignores the output's quantization (writes the input's values); rillet refuses."""
    from rillet.runtime import Interpreter

    m = resize_model(op, (1, 3, 3, 2), (5, 5), False, False, Quant(0.1, 0), Quant(0.2, 3))
    with pytest.raises(Exception, match="output quantized as the input"):
        Interpreter(model_content=m).allocate_tensors()
