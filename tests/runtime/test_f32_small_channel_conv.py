"""float32 CONV_2D over fewer than 8 input channels (a model's first layer: RGB, ViT's patches) runs its IGEMM
with one tap per filter row (conv_gemm.c's row_taps), as int8 does (test_int8_small_channel_conv.py, whose
shapes these are, plus ViT's 16 x 16 stride-16 patches): interior rows read in place, rows that straddle the
left or right padding from edge rows of 0.0f rebuilt at each invoke. Every kernel path and 1-3 threads agree
with a float64 convolution in numpy within 1e-6 of the output's scale, and the best path with LiteRT within
1e-5."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, op_model, run
from test_int8_small_channel_conv import CASES as INT8_CASES, assert_each_invoke_reads_its_own_input
from test_kernel_paths import PATHS, rillet_outputs

F32 = np.float32

CASES = INT8_CASES + [
    (1, 32, 48, 3, 19, 16, 16, 16, 1, 1, 1, 0),  # ViT's patch embedding, VALID: no edge rows
    (1, 35, 33, 3, 8, 16, 16, 16, 0, 1, 1, 0),  # the same, SAME: a last patch column straddles the right edge
]


def conv_model(seed: int, n, h, w, cin, cout, kh, kw, stride, padding, dh, dw, act):
    rng = np.random.default_rng(seed)
    options = {"padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": act,
               "dilation_w_factor": dw, "dilation_h_factor": dh}
    filt = rng.standard_normal((cout, kh, kw, cin)).astype(F32)
    bias = rng.standard_normal(cout).astype(F32)
    model = op_model("CONV_2D", [Input((n, h, w, cin)), filt, bias], [((n, 1, 1, cout), F32)], options)
    return model, [rng.uniform(-1, 1, (n, h, w, cin)).astype(F32)], filt, bias


def numpy_conv(x, filt, bias, stride, padding, dh, dw, act):
    """TFLite's CONV_2D in float64: SAME pads (total // 2) before, the rest after."""
    n, h, w, _ = x.shape
    cout, kh, kw, _ = filt.shape
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if padding == 0:
        oh, ow = -(-h // stride), -(-w // stride)
        ph, pw = max((oh - 1) * stride + ekh - h, 0), max((ow - 1) * stride + ekw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - ekh) // stride + 1, (w - ekw) // stride + 1
    x, y = x.astype(np.float64), np.zeros((n, oh, ow, cout))
    for fy in range(kh):
        for fx in range(kw):
            taps = x[:, fy * dh:fy * dh + (oh - 1) * stride + 1:stride, fx * dw:fx * dw + (ow - 1) * stride + 1:stride]
            y += taps @ filt[:, fy, fx, :].astype(np.float64).T
    y += bias
    return np.clip(y, 0.0, None if act == 1 else 6.0) if act in (1, 3) else y


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_every_path_and_thread_count_gives_the_convolution(case, monkeypatch):
    model, feeds, filt, bias = conv_model(0, *case)
    expected = numpy_conv(feeds[0], filt, bias, case[7], case[8], case[9], case[10], case[11])
    scale = float(np.abs(expected).max()) or 1.0
    for isa in PATHS:
        for threads in (1, 2, 3):
            (got,) = rillet_outputs(model, feeds, isa, threads, monkeypatch)
            assert got.shape == expected.shape
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6 * scale, err_msg=f"{isa}, {threads} threads")


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_best_path_agrees_with_litert(case, monkeypatch):
    pytest.importorskip("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    model, feeds, _, _ = conv_model(1, *case)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    (expected,) = run(LiteRT, model, feeds)
    (got,) = run(Interpreter, model, feeds, num_threads=2)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * (float(np.abs(expected).max()) or 1.0))


def test_an_invoke_after_new_input_rebuilds_the_edge_rows():
    """The edge rows are copies of the input: a second invoke with other values must not read the first's."""
    model, (x,), _, _ = conv_model(2, *CASES[0])
    assert_each_invoke_reads_its_own_input(model, x)
