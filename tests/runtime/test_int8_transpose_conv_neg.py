"""int8 TRANSPOSE_CONV and int8 NEG against LiteRT's default Interpreter, bit for bit.

TRANSPOSE_CONV: LiteRT 2.3 hands int8 to XNNPACK (fp32 requantization) when the filter, bias and output_shape
are constants and the padding needs no negative side (VALID, or a filter at least the stride); otherwise
TFLite's optimized kernel runs (NEON rounding on whole blocks of 8 channels, gemmlowp's on the rest).
test_path_choice holds files on both sides of that boundary where the two kernels disagree, so a wrong choice
fails. NEG: LiteRT negates the stored int8 values modulo 2^8 and reads no scale or zero point.
"""

from __future__ import annotations

import numpy as np
import pytest
from single_op import (
    OPTIONS_TYPES,
    Const,
    Input,
    Quant,
    assert_same_bits_as_litert,
    litert_default,
    op_model,
)

pytest.importorskip("ai_edge_litert")

OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
SAME, VALID = 0, 1


def transpose_conv_model(rng, n, hw, channels, kernel, stride, padding, bias, x_q, out_q, per_channel=True,
                         constant_filter=True):
    """An int8 TRANSPOSE_CONV whose output is the convolution transposed of an (n, *hw, c_in) input."""
    (h, w), (c_in, c_out), (kh, kw) = hw, channels, kernel
    oh = h * stride if padding == SAME else (h - 1) * stride + kh
    ow = w * stride if padding == SAME else (w - 1) * stride + kw
    filt = rng.integers(-127, 128, (c_out, kh, kw, c_in)).astype(np.int8)
    w_scales = rng.uniform(0.002, 0.02, c_out).astype(np.float32) if per_channel else np.float32(0.01)
    f_q = Quant(w_scales, 0, 0)
    inputs = [np.array([n, oh, ow, c_out], np.int32),
              Const(filt, f_q) if constant_filter else Input(filt.shape, np.int8, f_q),
              Input((n, h, w, c_in), np.int8, x_q)]
    if bias:
        b_scales = np.atleast_1d(w_scales) * np.float32(x_q.scales)
        inputs.append(Const(rng.integers(-3000, 3000, c_out).astype(np.int32), Quant(b_scales, 0)))
    model = op_model("TRANSPOSE_CONV", inputs, [((n, oh, ow, c_out), np.int8, out_q)],
                     {"padding": padding, "stride_h": stride, "stride_w": stride}, version=3)
    x = rng.integers(-128, 128, (n, h, w, c_in)).astype(np.int8)
    return model, ([filt, x] if not constant_filter else [x])


CASES = [  # n, (h, w), (c_in, c_out), (kh, kw), stride, padding, bias
    (1, (5, 5), (3, 4), (3, 3), 2, SAME, True),
    (2, (4, 3), (5, 6), (3, 3), 1, VALID, False),
    (1, (7, 7), (8, 16), (4, 4), 2, SAME, True),
    (2, (3, 5), (7, 3), (2, 3), 2, VALID, True),
    (1, (1, 1), (1, 1), (1, 1), 1, SAME, False),
    (2, (6, 2), (16, 5), (5, 1), 2, SAME, False),
    (1, (3, 4), (4, 9), (3, 2), 3, VALID, True),
]
QUANTS = [(Quant(0.05, 3), Quant(0.2, -5)), (Quant(0.02, -128), Quant(0.5, 127)), (Quant(0.1, 0), Quant(0.05, 0))]


@pytest.mark.parametrize("quants", QUANTS)
@pytest.mark.parametrize("case", CASES)
def test_transpose_conv(case, quants):
    model, feeds = transpose_conv_model(np.random.default_rng(len(str(case))), *case, *quants)
    assert_same_bits_as_litert(model, feeds)


@pytest.mark.parametrize("per_channel, constant_filter", [(False, True), (True, False)])
def test_transpose_conv_filter_kinds(per_channel, constant_filter):
    """One filter scale, and a filter fed at invoke."""
    model, feeds = transpose_conv_model(np.random.default_rng(3), 2, (4, 4), (6, 5), (3, 3), 2, SAME, True,
                                        Quant(0.05, -9), Quant(0.3, 11), per_channel, constant_filter)
    assert_same_bits_as_litert(model, feeds)


def transpose_conv_file(rng, kernel, stride, padding, c_out, constant_bias=True, constant_shape=True,
                        activation=0):
    """A random int8 TRANSPOSE_CONV with bias; the bias and output_shape constants or graph inputs."""
    n, h, w, c_in = 2, 4, 5, 6
    kh, kw = kernel
    oh = h * stride if padding == SAME else (h - 1) * stride + kh
    ow = w * stride if padding == SAME else (w - 1) * stride + kw
    filt = rng.integers(-127, 128, (c_out, kh, kw, c_in)).astype(np.int8)
    w_scales = rng.uniform(0.0005, 0.05, c_out).astype(np.float32)
    shape, bias = np.array([n, oh, ow, c_out], np.int32), rng.integers(-3000, 3000, c_out).astype(np.int32)
    b_q = Quant(w_scales * np.float32(0.05), 0)
    x = rng.integers(-128, 128, (n, h, w, c_in)).astype(np.int8)
    inputs = [shape if constant_shape else Input((4,), np.int32), Const(filt, Quant(w_scales, 0, 0)),
              Input(x.shape, np.int8, Quant(0.05, 3)), Const(bias, b_q) if constant_bias else Input((c_out,), np.int32, b_q)]
    feeds = ([] if constant_shape else [shape]) + [x] + ([] if constant_bias else [bias])
    model = op_model("TRANSPOSE_CONV", inputs, [((n, oh, ow, c_out), np.int8, Quant(0.2, -5))],
                     {"padding": padding, "stride_h": stride, "stride_w": stride,
                      "fused_activation_function": activation}, version=4 if activation else 3)
    return model, feeds


BOUNDARY = [  # (kernel, stride, padding, constant bias, constant output_shape): XNNPACK's side, then TFLite's
    ((3, 3), 2, SAME, True, True), ((1, 3), 2, VALID, True, True), ((2, 2), 2, SAME, True, True),
    ((1, 3), 2, SAME, True, True), ((3, 1), 3, SAME, True, True), ((3, 3), 2, SAME, False, True),
    ((3, 3), 2, SAME, True, False),  # output_shape fed: TFLite's kernel, the output sized when the op runs
]


@pytest.mark.parametrize("c_out", [12, 19])  # with fewer than 8 channels TFLite's kernel is its reference
@pytest.mark.parametrize("kernel, stride, padding, constant_bias, constant_shape", BOUNDARY)
def test_path_choice(kernel, stride, padding, constant_bias, constant_shape, c_out):
    """On each side of where LiteRT hands the op to XNNPACK, a file on which the two kernels disagree."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    from single_op import run

    for seed in range(30):
        model, feeds = transpose_conv_file(np.random.default_rng(seed), kernel, stride, padding, c_out,
                                           constant_bias, constant_shape)
        builtin = run(Interpreter, model, feeds,
                      experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)[0]
        reference = run(Interpreter, model, feeds, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)[0]
        default = litert_default(model, feeds)[0]
        if not (np.array_equal(default, builtin) and np.array_equal(default, reference)):
            assert_same_bits_as_litert(model, feeds)
            return
    pytest.fail("no seed where LiteRT's kernels disagree: the test no longer tells the paths apart")


@pytest.mark.parametrize("activation", [1, 2, 3])  # RELU, RELU_N1_TO_1, RELU6
@pytest.mark.parametrize("kernel, padding", [((3, 3), SAME), ((1, 2), SAME)])
def test_fused_activation(activation, kernel, padding):
    model, feeds = transpose_conv_file(np.random.default_rng(activation), kernel, 2, padding, 12, activation=activation)
    assert_same_bits_as_litert(model, feeds)


def test_transpose_conv_refuses_float_bias_on_int8():
    from rillet.runtime import Interpreter

    model = op_model("TRANSPOSE_CONV", [np.array([1, 2, 2, 1], np.int32), Const(np.ones((1, 1, 1, 1), np.int8),
                     Quant(0.1)), Input((1, 2, 2, 1), np.int8, Quant(0.1)), np.zeros(1, np.float32)],
                     [((1, 2, 2, 1), np.int8, Quant(0.1))], {"padding": SAME, "stride_h": 1, "stride_w": 1}, version=3)
    with pytest.raises(Exception, match="bias"):
        Interpreter(model_content=model).allocate_tensors()


@pytest.mark.parametrize("x_q, y_q", [(Quant(0.1, 0), Quant(0.1, 0)), (Quant(0.1, -3), Quant(0.2, 7)),
                                      (Quant(0.05, 10), Quant(0.1, -20)), (Quant(1.0, -128), Quant(1.0, -128))])
def test_neg_all_int8_values(x_q, y_q):
    x = np.arange(-128, 128, dtype=np.int8).reshape(2, 128)
    model = op_model("NEG", [Input(x.shape, np.int8, x_q)], [(x.shape, np.int8, y_q)])
    expected = (-x.astype(np.int32)).astype(np.uint8).astype(np.int8)  # what LiteRT gives: -x modulo 2^8
    np.testing.assert_array_equal(litert_default(model, [x])[0], expected)
    assert_same_bits_as_litert(model, [x])
