"""Hybrid (dynamic-range) FULLY_CONNECTED: float32 activations, int8 weights, against LiteRT's default
Interpreter within 1e-5.

LiteRT's default Interpreter hands these to XNNPACK, which quantizes each input row asymmetrically whatever
`asymmetric_quantize_inputs` says (TFLite's builtin hybrid kernel quantizes symmetrically when it is false,
and gives visibly different numbers); rillet follows the default Interpreter.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from single_op import Const, Input, Quant, litert_default, op_model, run

from rillet.converter.format import ModelError
from rillet.runtime import Interpreter, InterpreterError

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
F32, I8 = np.float32, np.int8


def assert_close(got: np.ndarray, expected: np.ndarray) -> None:
    """1e-5 relative, with an absolute floor at 1e-5 of the output's magnitude (sums that cancel to ~0)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(expected).max())))


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(1, 4), min_size=0, max_size=2), st.integers(1, 40),
       st.integers(1, 17), st.sampled_from([0, 1, 2, 3]), st.booleans(), st.booleans(), st.booleans(),
       st.booleans())
def test_hybrid_fully_connected(seed, batch, depth, units, act, per_channel, with_bias, asymmetric, keep_num_dims):
    rng = np.random.default_rng(seed)
    scales = rng.uniform(0.001, 0.05, units if per_channel else 1).astype(F32)
    w = rng.integers(-127, 128, (units, depth)).astype(I8)
    bias = rng.uniform(-1, 1, units).astype(F32) if with_bias else None
    shape = (*batch, depth)
    m = op_model("FULLY_CONNECTED", [Input(shape, F32), Const(w, Quant(scales, 0)), bias], [((1, units), F32)],
                 {"fused_activation_function": act, "asymmetric_quantize_inputs": asymmetric,
                  "keep_num_dims": keep_num_dims}, version=12)
    x = rng.uniform(-3, 3, shape).astype(F32)
    if rng.integers(0, 4) == 0:
        x[..., :] = np.abs(x)  # all positive rows: the zero point sits at an end of the range
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])


def test_hybrid_fully_connected_zero_row():
    w = np.arange(-6, 6, dtype=I8).reshape(3, 4)
    m = op_model("FULLY_CONNECTED", [Input((2, 4), F32), Const(w, Quant([0.1], 0)), np.ones(3, F32)],
                 [((2, 3), F32)], {}, version=12)
    x = np.array([[0, 0, 0, 0], [1, -2, 3, 0.5]], F32)
    got = run(Interpreter, m, [x])[0]
    np.testing.assert_array_equal(got[0], np.ones(3, F32))
    assert_close(got, litert_default(m, [x])[0])


@pytest.mark.parametrize("quant, message", [
    (Quant([0.1, 0.2], [0, 0]), "2 scales, expected 1 or 3"),
    (Quant([0.1], [3]), "zero point 0 is 3"),
])
def test_malformed_hybrid_weights_are_a_clear_error(quant, message):
    m = op_model("FULLY_CONNECTED", [Input((1, 4), F32), Const(np.ones((3, 4), I8), quant), None],
                 [((1, 3), F32)], {}, version=12)
    with pytest.raises(InterpreterError, match=f"FULLY_CONNECTED op 0 .*{message}"):
        Interpreter(model_content=m).allocate_tensors()


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), 0.0, -0.5, 1e-45])
def test_a_scale_that_is_no_positive_normal_number_is_refused_at_load(scale):
    m = op_model("FULLY_CONNECTED", [Input((1, 4), F32), Const(np.ones((3, 4), I8), Quant([scale], [0])), None],
                 [((1, 3), F32)], {}, version=12)
    with pytest.raises(ModelError, match=r"tensor 1 'in1': quantization scale 0 is .*; a scale must be positive"):
        Interpreter(model_content=m)


# ---- hybrid CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL ----
# Measured in LiteRT 2.3 (see native/ops/conv_hybrid.c): CONV_2D runs XNNPACK's dynamically quantized
# convolution (each image quantized asymmetrically; a 1x1 filter with stride 1 quantizes each pixel), while
# TFLite's builtin kernels quantize a per-tensor filter's images symmetrically and never per pixel;
# DEPTHWISE_CONV_2D stays with TFLite's per-channel hybrid kernel (each image asymmetric; per-tensor
# filters: test_hybrid_depthwise_per_tensor.py); BATCH_MATMUL runs XNNPACK's per-row asymmetric path. rillet follows the default
# Interpreter in each, within 1e-5.

CONV_EXAMPLES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def conv_case(data, depthwise: bool):
    n, h, w = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    sh, sw = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    dh, dw = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    padding = data.draw(st.sampled_from([0, 1]))  # SAME, VALID
    if padding == 1:
        assume(h >= (kh - 1) * dh + 1 and w >= (kw - 1) * dw + 1)
    return n, h, w, kh, kw, sh, sw, dh, dw, padding


def assert_close_without_bias(model, bias, x, channels):
    """LiteRT refuses a convolution without its bias ("Tensor at index 2 was optional but was expected");
    rillet runs it as with a zero bias, so a bias-less model is checked against LiteRT given zeros."""
    if bias is not None:
        m = model(bias)
        assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])
        return
    expected = litert_default(model(np.zeros(channels, F32)), [x])[0]
    assert_close(run(Interpreter, model(None), [x])[0], expected)


def hybrid_input(rng, shape):
    x = rng.uniform(-3, 3, shape).astype(F32)
    if rng.integers(0, 4) == 0:
        x = np.abs(x)  # all positive: the zero point at an end of the range
    return x


@CONV_EXAMPLES
@given(st.integers(0, 2**31 - 1), st.data())
def test_hybrid_conv2d(seed, data):
    n, h, w, kh, kw, sh, sw, dh, dw, padding = conv_case(data, False)
    cin, cout = data.draw(st.integers(1, 17)), data.draw(st.integers(1, 17))
    if data.draw(st.booleans()):  # the per-pixel (1x1, stride 1) path often
        kh = kw = sh = sw = 1
    act, per_channel, with_bias = data.draw(st.sampled_from([0, 1, 2, 3])), data.draw(st.booleans()), data.draw(st.booleans())
    rng = np.random.default_rng(seed)
    scales = rng.uniform(0.001, 0.05, cout if per_channel else 1).astype(F32)
    filt = rng.integers(-127, 128, (cout, kh, kw, cin)).astype(I8)
    bias = rng.uniform(-1, 1, cout).astype(F32)
    opts = {"padding": padding, "stride_w": sw, "stride_h": sh, "dilation_w_factor": dw, "dilation_h_factor": dh,
            "fused_activation_function": act}
    def model(b):
        return op_model("CONV_2D", [Input((n, h, w, cin), F32), Const(filt, Quant(scales, 0, 0)), b],
                        [((n, 1, 1, cout), F32)], opts, version=2)
    x = hybrid_input(rng, (n, h, w, cin))
    assert_close_without_bias(model, bias if with_bias else None, x, cout)


@CONV_EXAMPLES
@given(st.integers(0, 2**31 - 1), st.data())
def test_hybrid_depthwise_conv2d(seed, data):
    n, h, w, kh, kw, sh, sw, dh, dw, padding = conv_case(data, True)
    cin, mult = data.draw(st.integers(1, 17)), data.draw(st.integers(1, 3))
    act, with_bias = data.draw(st.sampled_from([0, 1, 2, 3])), data.draw(st.booleans())
    rng = np.random.default_rng(seed)
    cout = cin * mult
    scales = rng.uniform(0.001, 0.05, cout).astype(F32)
    filt = rng.integers(-127, 128, (1, kh, kw, cout)).astype(I8)
    bias = rng.uniform(-1, 1, cout).astype(F32)
    opts = {"padding": padding, "stride_w": sw, "stride_h": sh, "dilation_w_factor": dw, "dilation_h_factor": dh,
            "depth_multiplier": mult, "fused_activation_function": act}
    def model(b):
        return op_model("DEPTHWISE_CONV_2D", [Input((n, h, w, cin), F32), Const(filt, Quant(scales, 0, 3)), b],
                        [((n, 1, 1, cout), F32)], opts, version=2)
    x = hybrid_input(rng, (n, h, w, cin))
    assert_close_without_bias(model, bias if with_bias else None, x, cout)


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(1, 3), min_size=0, max_size=2), st.integers(1, 9),
       st.integers(1, 17), st.integers(1, 17), st.booleans(), st.booleans(), st.booleans(), st.booleans(),
       st.booleans())
def test_hybrid_batch_matmul(seed, batch, rows, depth, cols, adj_x, adj_y, per_channel, asymmetric, y_batched):
    rng = np.random.default_rng(seed)
    x_shape = (*batch, depth, rows) if adj_x else (*batch, rows, depth)
    y_mat = (cols, depth) if adj_y else (depth, cols)
    y_shape = (*batch, *y_mat) if y_batched else y_mat
    axis = len(y_shape) - (2 if adj_y else 1)
    scales = rng.uniform(0.001, 0.05, cols if per_channel else 1).astype(F32)
    y = Const(rng.integers(-127, 128, y_shape).astype(I8), Quant(scales, 0, axis))
    m = op_model("BATCH_MATMUL", [Input(x_shape, F32), y], [((1, 1), F32)],
                 {"adj_x": adj_x, "adj_y": adj_y, "asymmetric_quantize_inputs": asymmetric}, version=4)
    x = hybrid_input(rng, x_shape)
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])
