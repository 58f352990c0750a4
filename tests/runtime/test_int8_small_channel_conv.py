"""int8 CONV_2D over fewer than 8 input channels (a model's first layer) runs its IGEMM with one tap per filter
row (conv_gemm.c's row_taps): interior rows read in place, rows that straddle the left or right padding from
edge rows rebuilt at each invoke. These cases sweep what that touches: 1 to 7 channels (and 8, which keeps a
tap per filter tap), filter widths 2 to 5, stride 1 and 2, SAME padding wide enough for two edge columns a side,
images so small that the two sides' edge columns meet or every filter row lies in the padding, dilation along
y (row taps) and along x (not), batch 2. Every kernel path and 1-3 threads give the scalar path's bits, and the
best path gives LiteRT's."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, op_model
from test_kernel_paths import assert_best_path_gives_litert_bits, assert_int8_paths_give_scalar_bits

I8 = np.int8

CASES = [  # n, h, w, cin, cout, kh, kw, stride, padding (0 SAME, 1 VALID), dilation_h, dilation_w, activation
    (1, 17, 19, 3, 16, 3, 3, 2, 0, 1, 1, 3),  # an RGB first layer, odd sides
    (1, 16, 16, 3, 16, 3, 3, 2, 0, 1, 1, 3),  # even sides: padding on the right only
    (2, 9, 8, 1, 8, 3, 3, 1, 0, 1, 1, 0),
    (1, 7, 9, 2, 5, 5, 5, 1, 0, 1, 1, 1),  # two edge columns on each side
    (1, 4, 3, 3, 17, 3, 3, 1, 0, 1, 1, 0),  # the left and right edge columns meet
    (1, 2, 2, 3, 4, 5, 5, 1, 0, 1, 1, 0),  # filter rows wholly in the padding above and below
    (1, 1, 1, 3, 4, 3, 3, 1, 0, 1, 1, 0),
    (1, 6, 10, 4, 24, 3, 2, 2, 1, 1, 1, 3),  # a 3x2 filter, VALID
    (1, 10, 11, 5, 33, 7, 3, 2, 0, 1, 1, 0),
    (1, 9, 9, 7, 3, 3, 3, 1, 0, 2, 1, 1),  # dilated along y: still a tap per filter row
    (1, 9, 9, 3, 16, 3, 3, 1, 0, 1, 2, 0),  # dilated along x: a tap per filter tap
    (1, 8, 7, 6, 7, 3, 4, 1, 0, 1, 1, 0),
    (1, 5, 6, 8, 8, 3, 3, 1, 0, 1, 1, 0),  # 8 channels: a tap per filter tap
]


def conv_model(seed: int, n, h, w, cin, cout, kh, kw, stride, padding, dh, dw, act):
    rng = np.random.default_rng(seed)
    options = {"padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": act,
               "dilation_w_factor": dw, "dilation_h_factor": dh}
    si, sw = np.float32(0.05), rng.uniform(0.002, 0.02, cout).astype(np.float32)
    so = np.float32(0.05 * float(sw.mean()) * np.sqrt(kh * kw * cin) * 8)
    zi, zo = (int(v) for v in rng.integers(-100, 100, 2))
    inputs = [Input((n, h, w, cin), I8, Quant(si, zi)),
              Const(rng.integers(-127, 128, (cout, kh, kw, cin)).astype(I8), Quant(sw, 0, 0)),
              Const(rng.integers(-3000, 3000, cout).astype(np.int32), Quant(si * sw, 0))]
    model = op_model("CONV_2D", inputs, [((n, 1, 1, cout), I8, Quant(so, zo))], options, version=3)
    return model, [rng.integers(-128, 128, (n, h, w, cin)).astype(I8)]


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_every_path_and_thread_count_gives_the_scalar_bits(case, monkeypatch):
    assert_int8_paths_give_scalar_bits(*conv_model(0, *case), monkeypatch)


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_best_path_gives_litert_bits(case, monkeypatch):
    assert_best_path_gives_litert_bits(*conv_model(1, *case), monkeypatch)


def assert_each_invoke_reads_its_own_input(model: bytes, x: np.ndarray) -> None:
    """Invokes with x, x flipped along the width, and x again: the first and last give the same bits, the middle
    one a fresh interpreter's (the edge rows are copies of the input, rebuilt at each invoke)."""
    from rillet.runtime import Interpreter

    it = Interpreter(model_content=model)
    it.allocate_tensors()
    index, out = it.get_input_details()[0]["index"], it.get_output_details()[0]["index"]
    results = []
    for value in (x, np.flip(x, axis=2).copy(), x):
        it.set_tensor(index, value)
        it.invoke()
        results.append(it.get_tensor(out).copy())
    assert results[0].tobytes() == results[2].tobytes()
    fresh = Interpreter(model_content=model)
    fresh.allocate_tensors()
    fresh.set_tensor(fresh.get_input_details()[0]["index"], np.flip(x, axis=2).copy())
    fresh.invoke()
    assert fresh.get_tensor(fresh.get_output_details()[0]["index"]).tobytes() == results[1].tobytes()


def test_an_invoke_after_new_input_rebuilds_the_edge_rows():
    """The edge rows are copies of the input: a second invoke with other values must not read the first's."""
    model, (x,) = conv_model(2, *CASES[0])
    assert_each_invoke_reads_its_own_input(model, x)
