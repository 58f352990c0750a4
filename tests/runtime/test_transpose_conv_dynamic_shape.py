"""TRANSPOSE_CONV whose output_shape is not a constant (a graph input here; a computed tensor in a decoder):
LiteRT sizes the output when the op runs, and so does rillet. Float within 1e-5 of LiteRT's default
Interpreter, int8 bit for bit (TFLite's builtin kernel: XNNPACK takes only a constant output_shape), with
output_shape changing from one invoke to the next on the same interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, Const, Input, Quant, litert_default, op_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")
OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
SAME, VALID = 0, 1
N, H, W, C_IN, C_OUT = 2, 4, 5, 6, 12


def model(dtype, kernel, stride, padding, out_hw, bias=True, activation=0):
    """A TRANSPOSE_CONV with output_shape as its first graph input; the output tensor declared at out_hw."""
    rng = np.random.default_rng(sum(kernel) * 10 + stride)
    kh, kw = kernel
    if dtype == np.int8:
        scales = rng.uniform(0.0005, 0.05, C_OUT).astype(np.float32)
        filt = Const(rng.integers(-127, 128, (C_OUT, kh, kw, C_IN)).astype(np.int8), Quant(scales, 0, 0))
        b = Const(rng.integers(-3000, 3000, C_OUT).astype(np.int32), Quant(scales * np.float32(0.05), 0))
        x, out = Input((N, H, W, C_IN), np.int8, Quant(0.05, 3)), ((N, *out_hw, C_OUT), np.int8, Quant(0.2, -5))
    else:
        filt = rng.standard_normal((C_OUT, kh, kw, C_IN)).astype(np.float32)
        b = rng.standard_normal(C_OUT).astype(np.float32)
        x, out = Input((N, H, W, C_IN)), ((N, *out_hw, C_OUT), np.float32)
    return op_model("TRANSPOSE_CONV", [Input((4,), np.int32), filt, x] + ([b] if bias else []), [out],
                    {"padding": padding, "stride_h": stride, "stride_w": stride,
                     "fused_activation_function": activation}, version=4 if activation else 3)


def feed(dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        return rng.integers(-128, 128, (N, H, W, C_IN)).astype(np.int8)
    return rng.uniform(-1, 1, (N, H, W, C_IN)).astype(np.float32)


def sizes(kernel, stride, padding):
    """Output sizes TFLite accepts for this input: the convolution's own, and one row and column less (SAME
    with stride 2 maps both to the input's size) or more (the extra row gets the bias alone)."""
    kh, kw = kernel
    if padding == SAME:
        exact = (H * stride, W * stride)
        return [exact, (exact[0] - 1, exact[1] - 1)] if stride > 1 else [exact]
    exact = ((H - 1) * stride + kh, (W - 1) * stride + kw)
    return [exact, (exact[0] + 1, exact[1] + 1)]


def assert_like_litert(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape, ((got.dtype, got.shape), (want.dtype, want.shape))
    if dtype == np.int8:
        assert got.tobytes() == want.tobytes(), f"{np.count_nonzero(got != want)} of {got.size} differ"
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max(initial=1.0)))


@pytest.mark.parametrize("dtype", [np.float32, np.int8], ids=["float32", "int8"])
@pytest.mark.parametrize("kernel, stride, padding", [((3, 3), 2, SAME), ((2, 2), 2, VALID), ((3, 1), 1, SAME),
                                                     ((1, 3), 3, VALID)])
@pytest.mark.parametrize("bias", [True, False])
def test_output_shape_read_when_the_op_runs(dtype, kernel, stride, padding, bias):
    shapes = sizes(kernel, stride, padding)
    content = model(dtype, kernel, stride, padding, shapes[0], bias)
    ours = Interpreter(model_content=content)
    ours.allocate_tensors()
    x_index = ours.get_input_details()[1]["index"]
    for step, hw in enumerate(shapes + shapes[:1]):  # and back: the output follows each invoke's values
        output_shape = np.array([N, *hw, C_OUT], np.int32)
        x = feed(dtype, step)
        ours.set_tensor(ours.get_input_details()[0]["index"], output_shape)
        ours.set_tensor(x_index, x)
        ours.invoke()
        got = ours.get_tensor(ours.get_output_details()[0]["index"])
        want = litert_default(model(dtype, kernel, stride, padding, hw, bias), [output_shape, x])[0]
        assert_like_litert(got, want, dtype)


@pytest.mark.parametrize("activation", [1, 3])  # RELU, RELU6
def test_a_fused_activation_with_output_shape_read_at_invoke(activation):
    for dtype in (np.float32, np.int8):
        content = model(dtype, (3, 3), 2, SAME, (2 * H, 2 * W), activation=activation)
        output_shape, x = np.array([N, 2 * H, 2 * W, C_OUT], np.int32), feed(dtype, 7)
        ours = Interpreter(model_content=content)
        ours.allocate_tensors()
        for d, v in zip(ours.get_input_details(), [output_shape, x]):
            ours.set_tensor(d["index"], v)
        ours.invoke()
        got = ours.get_tensor(ours.get_output_details()[0]["index"])
        assert_like_litert(got, litert_default(content, [output_shape, x])[0], dtype)


def test_an_output_shape_that_disagrees_with_the_filter_is_named_at_invoke():
    content = model(np.float32, (3, 3), 2, SAME, (2 * H, 2 * W))
    ours = Interpreter(model_content=content)
    ours.allocate_tensors()
    ours.set_tensor(ours.get_input_details()[0]["index"], np.array([N, 2 * H, 2 * W, C_OUT + 1], np.int32))
    ours.set_tensor(ours.get_input_details()[1]["index"], feed(np.float32, 0))
    with pytest.raises(Exception, match="filter is"):
        ours.invoke()
