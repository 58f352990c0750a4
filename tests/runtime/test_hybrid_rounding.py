"""Hybrid (float activations, int8 weights) kernels on the inputs where the on-the-fly quantization's
rounding decides the result, against LiteRT's default Interpreter within 1e-5.

- FULLY_CONNECTED (and CONV_2D, BATCH_MATMUL) go to XNNPACK's qd8 path, whose scale is the multiplier
  255 / range in float: a row spanning exactly [-1, 1] puts the zero point on a tie (-0.5) that dividing by
  range / 255 instead breaks the other way (1.5% apart before).
- DEPTHWISE_CONV_2D stays with TFLite's EvalHybridPerChannel, which quantizes each image with
  AsymmetricQuantizeFloats (scale in double, ties away from zero): large zero-heavy images met the values
  where float and double scales pick different integers (0.3% apart at 48x48 before).
"""

from __future__ import annotations

import platform

import numpy as np
import pytest
from single_op import Const, Input, Quant, litert_default, op_model, run

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, I8 = np.float32, np.int8


def assert_close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("span", [1.0, 0.25, 3.0])
def test_fully_connected_row_spanning_a_symmetric_range(seed, span):
    rng = np.random.default_rng(seed)
    depth, units = int(rng.integers(2, 40)), int(rng.integers(1, 20))
    x = rng.uniform(-span, span, (3, depth)).astype(F32)
    x[:, 0], x[:, 1] = -span, span
    w = rng.integers(-127, 128, (units, depth)).astype(I8)
    m = op_model("FULLY_CONNECTED", [Input(x.shape, F32), Const(w, Quant([0.02], 0, 0)), rng.uniform(-1, 1, units).astype(F32)],
                 [((3, units), F32)], {}, version=12)
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])


def depthwise_model(rng, x):
    channels = x.shape[3]
    filt = rng.integers(-127, 128, (1, 3, 3, channels)).astype(I8)
    scales = rng.uniform(0.001, 0.05, channels).astype(F32)
    return op_model("DEPTHWISE_CONV_2D", [Input(x.shape, F32), Const(filt, Quant(scales, 0, 3)),
                                          rng.uniform(-1, 1, channels).astype(F32)], [(x.shape, F32)],
                    {"padding": 0, "stride_w": 1, "stride_h": 1, "depth_multiplier": 1}, version=2)


@pytest.mark.parametrize("hw,channels", [(48, 28), (64, 16), (32, 8)])
def test_depthwise_large_zero_heavy_image(hw, channels):
    rng = np.random.default_rng(hw)
    x = np.maximum(rng.standard_normal((1, hw, hw, channels)), 0).astype(F32)  # after a RELU: half zeros
    m = depthwise_model(rng, x)
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])


def test_depthwise_image_with_exact_ties():
    """The image's largest value 255/64 makes the scale 1/64: every k/64 + 1/128 lands on a tie, which TFLite
    rounds away from zero (XNNPACK's ties to even would take the even neighbour)."""
    rng = np.random.default_rng(9)
    x = ((rng.integers(0, 255, (1, 12, 12, 6)) + 0.5) / 64).astype(F32)
    x[0, 0, 0, 0] = 255 / 64
    m = depthwise_model(rng, x)
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])


@pytest.mark.parametrize("zero_heavy", [False, True])
def test_pointwise_conv_96_to_16_at_56x56(zero_heavy):
    """A 1x1 CONV_2D quantizes each pixel (a row of XNNPACK's fully connected product)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 56, 56, 96)).astype(F32)
    if zero_heavy:
        x = np.maximum(x, 0)
    else:
        x[..., 0], x[..., 1] = -1.0, 1.0  # every pixel's range exactly [-1, 1]: its zero point on a tie
    filt = rng.integers(-127, 128, (16, 1, 1, 96)).astype(I8)
    m = op_model("CONV_2D", [Input(x.shape, F32), Const(filt, Quant(rng.uniform(0.001, 0.05, 16).astype(F32), 0, 0)),
                             rng.uniform(-1, 1, 16).astype(F32)], [((1, 56, 56, 16), F32)],
                 {"padding": 0, "stride_w": 1, "stride_h": 1}, version=2)
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                    reason="the float bits follow LiteRT's x86 kernels (its aarch64 depthwise takes a 3x3 kernel)")
@pytest.mark.parametrize("seed", range(8))
def test_same_float_bits_as_litert(seed):
    """The next hybrid op quantizes this one's output again, where one bit can move a value a whole step, so
    each hybrid kernel scales back in the order of LiteRT's (XNNPACK's fused multiply-add, TFLite's depthwise
    groups of four): the bits are equal, not just close."""
    rng = np.random.default_rng(seed)
    n, h, w, cin = 1, int(rng.integers(3, 10)), int(rng.integers(3, 10)), int(rng.integers(1, 20))
    x = rng.uniform(-3, 3, (n, h, w, cin)).astype(F32)
    cout, k = int(rng.integers(1, 20)), int(rng.choice([1, 3]))
    conv = op_model("CONV_2D", [Input(x.shape, F32), Const(rng.integers(-127, 128, (cout, k, k, cin)).astype(I8),
                                                           Quant(rng.uniform(0.001, 0.05, cout).astype(F32), 0, 0)),
                                rng.uniform(-1, 1, cout).astype(F32)], [((n, 1, 1, cout), F32)],
                    {"padding": 1, "stride_w": 1, "stride_h": 1}, version=2)
    m = op_model("DEPTHWISE_CONV_2D", [Input(x.shape, F32), Const(rng.integers(-127, 128, (1, 3, 3, cin)).astype(I8),
                                                                  Quant(rng.uniform(0.001, 0.05, cin).astype(F32), 0, 3)),
                                       rng.uniform(-1, 1, cin).astype(F32)], [((n, 1, 1, cin), F32)],
                 {"padding": 0, "stride_w": 1, "stride_h": 1, "depth_multiplier": 1}, version=2)
    fc = op_model("FULLY_CONNECTED", [Input((2, cin), F32), Const(rng.integers(-127, 128, (7, cin)).astype(I8),
                                                                  Quant(rng.uniform(0.001, 0.05, 7).astype(F32), 0, 0)),
                                      rng.uniform(-1, 1, 7).astype(F32)], [((2, 7), F32)], {}, version=12)
    for model, feed in ((conv, x), (m, x), (fc, x[0, 0, :2])):
        assert run(Interpreter, model, [feed])[0].tobytes() == litert_default(model, [feed])[0].tobytes()
