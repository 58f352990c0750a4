"""Float ops whose arithmetic rillet takes from XNNPACK, which LiteRT's default Interpreter delegates them to
(the model declares 4-D outputs, so LiteRT does delegate): the same bits as LiteRT on every kernel path this
CPU runs. AVERAGE_POOL_2D (x-major taps in nine-tap trees, times 1 / count), MEAN (times 1 / count; over the
last axis in XNNPACK's rsum order, as SUM), HARD_SWISH (a fused multiply-add), LOGISTIC (XNNPACK's AVX2
or AVX-512 approximation) and Convolution2DTransposeBias (fused multiply-adds from the bias). Ulp differences in these grew through MediaPipe's selfie segmentation
to 2.6e-5 of its mask (bench/trace_float_error.py finds such ops)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, litert_default, op_model, run
from test_kernel_paths import PATHS
from test_mediapipe_custom_ops import deconv_model

pytest.importorskip("ai_edge_litert")

F32 = np.float32


def cpu_has_avx512f() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


def assert_litert_bits_on_every_path(model: bytes, feeds: list[np.ndarray], monkeypatch, exact: bool = True):
    from rillet.runtime import Interpreter

    (expected,) = litert_default(model, feeds)
    for isa in ["scalar", *PATHS]:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, feeds)
        if exact:
            assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected), got.size)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-30)


POOLS = [  # (h, w, c), window, stride, padding (0 SAME, 1 VALID)
    ((64, 64, 16), (64, 64), 1, 1), ((16, 16, 96), (16, 16), 1, 1), ((5, 7, 8), (5, 7), 1, 1),
    ((9, 9, 8), (3, 3), 2, 0), ((11, 11, 4), (5, 5), 1, 0), ((13, 13, 8), (7, 7), 7, 1), ((10, 10, 3), (4, 4), 3, 0),
    ((12, 12, 17), (10, 10), 1, 0),  # 100 taps a window, beyond the driver's 8x8 for other pools
]


@pytest.mark.parametrize("shape, window, stride, padding", POOLS, ids=[f"pool{i}" for i in range(len(POOLS))])
def test_average_pool_is_xnnpacks(shape, window, stride, padding, monkeypatch):
    h, w, c = shape
    x = np.random.default_rng(0).uniform(0, 4, (1, h, w, c)).astype(F32)
    if padding == 0:
        out_h, out_w = -(-h // stride), -(-w // stride)
    else:
        out_h, out_w = (h - window[0]) // stride + 1, (w - window[1]) // stride + 1
    model = op_model("AVERAGE_POOL_2D", [Input(x.shape)], [((1, out_h, out_w, c), F32)],
                     {"padding": padding, "stride_w": stride, "stride_h": stride, "filter_height": window[0],
                      "filter_width": window[1], "fused_activation_function": 0})
    assert_litert_bits_on_every_path(model, [x], monkeypatch)


@pytest.mark.parametrize("shape", [(1, 5, 7, 8), (1, 9, 16, 24), (1, 18, 32, 16), (2, 3, 3, 5)])
def test_mean_over_the_image_is_xnnpacks(shape, monkeypatch):
    x = np.random.default_rng(1).uniform(0, 4, shape).astype(F32)
    model = op_model("MEAN", [Input(shape), np.array([1, 2], np.int32)], [((shape[0], 1, 1, shape[3]), F32)],
                     {"keep_dims": True})
    assert_litert_bits_on_every_path(model, [x], monkeypatch)


@pytest.mark.parametrize("op", ["MEAN", "SUM"])
@pytest.mark.parametrize("n", [1, 7, 8, 15, 16, 17, 31, 32, 33, 36, 48, 49, 64, 100, 257, 384, 1000, 1500])
def test_reduction_over_the_last_axis_is_xnnpacks(op, n, monkeypatch):
    """XNNPACK's rsum order: its AVX kernel's (kernels/f32_rsum__scalar.c) on the scalar, AVX2 and NEON paths,
    its AVX-512 kernel's (16 lanes at a time, f32_rsum__avx512.c) on the AVX-512 paths. LiteRT runs the one for
    this CPU: the paths that follow it give its bits, the others are within 1e-6 (MEAN over the last axis
    differed in 79 of 206 row lengths on the AVX-512 path before it had its own kernel)."""
    from rillet.runtime import Interpreter

    x = np.random.default_rng(n).uniform(-1, 3, (2, 3, n)).astype(F32)
    model = op_model(op, [Input(x.shape), np.array([2], np.int32)], [((2, 3, 1), F32)], {"keep_dims": True})
    (expected,) = litert_default(model, [x])
    for isa in ["scalar", *PATHS]:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, [x])
        if isa.startswith("avx512") == cpu_has_avx512f():
            assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected), got.size)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-30, err_msg=isa)


def activation_inputs() -> np.ndarray:
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-8, 8, 6000), rng.uniform(-100, 100, 2000),
                        [0.0, -0.0, 3.0, -3.0, 1e-20, -1e-20, 87.0, -87.0, 88.0, -88.0, 104.0, -104.0]])
    return x.astype(F32).reshape(1, 1, -1, 4)


def test_hard_swish_is_xnnpacks(monkeypatch):
    x = activation_inputs()
    assert_litert_bits_on_every_path(op_model("HARD_SWISH", [Input(x.shape)], [(x.shape, F32)]), [x], monkeypatch)


def test_logistic_is_xnnpacks(monkeypatch):
    """XNNPACK's AVX2 kernel on the scalar and AVX2 paths, its AVX-512 kernel (a table and vscalefps,
    f32_unary__avx512.c) on the AVX-512 paths: LiteRT runs the one for this CPU, and the paths that follow it
    give its bits, the others are within 1e-6 (the AVX-512 path gave the AVX2 kernel's before: an ulp off on a
    quarter of these)."""
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(F32)
    bits = bits[np.abs(bits) < 2.0**88]  # beyond, XNNPACK's AVX-512 kernel gives NaN (the next test)
    x = np.concatenate([activation_inputs().ravel(), bits, rng.standard_normal(4003).astype(F32)]).astype(F32)
    model = op_model("LOGISTIC", [Input(x.shape)], [(x.shape, F32)])
    (expected,) = litert_default(model, [x])
    for isa in ["scalar", *PATHS]:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, [x])
        if isa.startswith("avx512") == cpu_has_avx512f():
            assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected), got.size)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-30, err_msg=isa)


def test_logistic_of_huge_logits_is_xnnpacks(monkeypatch):
    """Past |x| ~ 2^88 XNNPACK's AVX-512 sigmoid overflows its polynomial into NaN; its AVX2 one gives 0 and 1.
    The paths of this CPU's kernel give LiteRT's bits."""
    from rillet.runtime import Interpreter

    x = (F32(2.0) ** np.arange(0, 128, 0.25).astype(F32)).astype(F32)
    x = np.concatenate([x, -x, [np.inf, -np.inf, np.finfo(F32).max, -np.finfo(F32).max]]).astype(F32)
    model = op_model("LOGISTIC", [Input(x.shape)], [(x.shape, F32)])
    (expected,) = litert_default(model, [x])
    assert np.isnan(expected).any() == cpu_has_avx512f()
    for isa in [p for p in ["scalar", *PATHS] if p.startswith("avx512") == cpu_has_avx512f()]:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, [x])
        assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected), got.size)


@pytest.mark.parametrize("padding", [1, 2])  # SAME, VALID
@pytest.mark.parametrize("in_shape, filter_shape, stride", [
    ((1, 8, 8, 16), (1, 2, 2, 16), 2), ((1, 6, 6, 8), (4, 3, 3, 8), 2), ((2, 3, 3, 2), (3, 4, 4, 2), 2),
    ((1, 7, 9, 24), (5, 3, 3, 24), 1), ((1, 5, 5, 16), (3, 5, 5, 16), 3), ((1, 3, 11, 4), (2, 2, 2, 4), 2)])
def test_convolution_2d_transpose_bias_is_xnnpacks(in_shape, filter_shape, stride, padding, monkeypatch):
    model, _ = deconv_model(in_shape, filter_shape, padding, stride)
    x = np.random.default_rng(3).standard_normal(in_shape).astype(F32)
    assert_litert_bits_on_every_path(model, [x], monkeypatch)
