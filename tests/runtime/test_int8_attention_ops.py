"""int8 BATCH_MATMUL with any zero point on either operand (full-int8 attention: both operands activations),
bit for bit with LiteRT's default Interpreter, on every kernel path and thread count; and the arithmetic
LiteRT uses for each form (XNNPACK's float scale where y's zero point is 0, TFLite's fixed-point multiplier
otherwise) checked against a numpy model of each, so a runtime that changes its mind shows up here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from single_op import Const, Input, Quant, litert_default, op_model, run
from test_kernel_paths import PATHS

pytest.importorskip("ai_edge_litert")

I8 = np.int8
ZERO_POINTS = [-128, -9, 0, 5, 127]


def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier."""
    q, shift = math.frexp(real)
    q_fixed = round(q * (1 << 31))
    if q_fixed == 1 << 31:
        q_fixed, shift = q_fixed // 2, shift + 1
    return q_fixed, shift


def fixed_point(acc: np.ndarray, multiplier: int, shift: int) -> np.ndarray:
    """gemmlowp's double rounding: SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT."""
    x = (acc.astype(np.int64) << max(shift, 0)).astype(np.int32).astype(np.int64)
    ab = x * multiplier
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    high = np.where(ab + nudge >= 0, (ab + nudge) >> 31, -((-(ab + nudge)) >> 31))  # toward zero
    right = max(-shift, 0)
    mask = (1 << right) - 1
    remainder, threshold = high & mask, (mask >> 1) + (high < 0)
    return (high >> right) + (remainder > threshold)


def expected_bits(x, y, qx: Quant, qy: Quant, qo: Quant, adj_x: bool, adj_y: bool) -> np.ndarray:
    """The arithmetic LiteRT 2.3's default Interpreter runs for this form (see s8_batch_matmul_ref.c)."""
    xs = x.astype(np.int64) - qx.zero_points
    ys = y.astype(np.int64) - qy.zero_points
    acc = np.matmul(np.swapaxes(xs, -1, -2) if adj_x else xs, np.swapaxes(ys, -1, -2) if adj_y else ys)
    sx, sy, so, zo = np.float32(qx.scales), np.float32(qy.scales), np.float32(qo.scales), qo.zero_points
    if qy.zero_points == 0:
        v = acc.astype(np.float32) * np.float32(sx * sy / so)
        return (np.rint(np.clip(v, np.float32(-128 - zo), np.float32(127 - zo))) + zo).astype(I8)
    multiplier, shift = quantize_multiplier(float(np.float64(sx * sy) / np.float64(so)))
    return np.clip(fixed_point(acc, multiplier, shift) + zo, -128, 127).astype(I8)


def attention_case(rng, m, k, n, zx, zy, adj_x=False, adj_y=False, batches=((2,), (2,)), y_constant=False):
    sx, sy = np.float32(rng.uniform(0.005, 0.1)), np.float32(rng.uniform(0.005, 0.1))
    qx, qy = Quant(sx, zx), Quant(sy, zy)
    qo = Quant(np.float32(sx * sy * np.sqrt(k) * rng.uniform(20, 120)), int(rng.integers(-128, 128)))
    x_shape = (*batches[0], *((k, m) if adj_x else (m, k)))
    y_shape = (*batches[1], *((n, k) if adj_y else (k, n)))
    x = rng.integers(-128, 128, x_shape).astype(I8)
    y = rng.integers(-128, 128, y_shape).astype(I8)
    y_spec = Const(y, qy) if y_constant else Input(y_shape, I8, qy)
    model = op_model("BATCH_MATMUL", [Input(x_shape, I8, qx), y_spec], [((1,), I8, qo)],
                     {"adj_x": adj_x, "adj_y": adj_y}, version=4)
    feeds = [x] if y_constant else [x, y]
    return model, feeds, expected_bits(x, y, qx, qy, qo, adj_x, adj_y)


def rillet(model, feeds, monkeypatch, isa=None, threads=1):
    from rillet.runtime import Interpreter

    if isa:
        monkeypatch.setenv("RILLET_ISA", isa)
    return run(Interpreter, model, feeds, num_threads=threads)[0]


@pytest.mark.parametrize("zy", ZERO_POINTS)
@pytest.mark.parametrize("zx", ZERO_POINTS)
def test_int8_batch_matmul_any_zero_points(zx, zy, monkeypatch):
    rng = np.random.default_rng(2000 + 7 * zx + zy)
    for y_constant in (False, True):
        model, feeds, expected = attention_case(rng, 9, 33, 13, zx, zy, adj_y=bool(zx & 1), y_constant=y_constant)
        (litert,) = litert_default(model, feeds)
        assert litert.tobytes() == expected.tobytes(), "LiteRT's arithmetic for this form changed"
        got = rillet(model, feeds, monkeypatch)
        assert got.tobytes() == expected.tobytes(), np.count_nonzero(got != expected)


# Rows around the driver's 8-row tiles, columns around the kernels' 4 and the driver's 64, depths around the
# AVX2 kernel's 16 and 32 bytes; both adjoints, broadcast batches, constant y.
SHAPES = [  # m, k, n, adj_x, adj_y, batches, y_constant
    (1, 1, 1, False, False, ((), ()), False), (7, 15, 3, True, False, ((2,), (2,)), False),
    (8, 16, 4, False, True, ((3, 1), (1, 2)), False), (9, 17, 5, True, True, ((2,), ()), False),
    (17, 31, 63, False, False, ((), (2,)), False), (16, 32, 64, False, True, ((2, 2), (2, 2)), False),
    (33, 33, 65, True, False, ((1,), (3,)), True), (64, 64, 64, False, True, ((2,), (2,)), False),
    (5, 64, 130, False, False, ((2,), (2,)), True), (12, 47, 9, True, True, ((2, 1), (3,)), True),
    (9, 600, 20, False, True, ((2,), (2,)), False), (3, 513, 17, True, False, ((), ()), True),  # depth past 256, 512
]


@pytest.mark.parametrize("m, k, n, adj_x, adj_y, batches, y_constant", SHAPES)
def test_int8_batch_matmul_tiles_paths_and_threads(m, k, n, adj_x, adj_y, batches, y_constant, monkeypatch):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    for zx, zy in ((-9, 5), (3, 0), (127, -128)):
        model, feeds, expected = attention_case(rng, m, k, n, zx, zy, adj_x, adj_y, batches, y_constant)
        (litert,) = litert_default(model, feeds)
        assert litert.tobytes() == expected.tobytes()
        for isa in PATHS:
            for threads in (1, 2):
                got = rillet(model, feeds, monkeypatch, isa, threads)
                assert got.tobytes() == expected.tobytes(), (isa, threads, zx, zy, np.count_nonzero(got != expected))


def test_int8_batch_matmul_constant_y_without_minus_128(monkeypatch):
    """A constant y in [-127, 127] (TFLite's quantizer's range) runs AVX2's narrow kernel: same bits."""
    rng = np.random.default_rng(3)
    qx, qy, qo = Quant(0.02, -7), Quant(0.03, 4), Quant(0.9, 11)
    y = rng.integers(-127, 128, (2, 40, 24)).astype(I8)
    x = rng.integers(-128, 128, (2, 10, 40)).astype(I8)
    model = op_model("BATCH_MATMUL", [Input(x.shape, I8, qx), Const(y, qy)], [((1,), I8, qo)], {}, version=4)
    expected = expected_bits(x, y, qx, qy, qo, False, False)
    for isa in PATHS:
        assert rillet(model, [x], monkeypatch, isa, 2).tobytes() == expected.tobytes(), isa


def test_int8_batch_matmul_per_channel_y_is_a_clear_error():
    """LiteRT's kernel reads one scale and runs a per-channel y with scale 0 (every output its zero point):
    rillet refuses it at allocate, naming y."""
    from rillet.runtime import Interpreter, InterpreterError

    y = np.ones((3, 2), I8)
    model = op_model("BATCH_MATMUL", [Input((2, 3), I8, Quant(0.1, 0)), Const(y, Quant([0.1, 0.2], [0, 0], 1))],
                     [((2, 2), I8, Quant(0.5, 0))], {})
    with pytest.raises(InterpreterError, match="BATCH_MATMUL op 0 .*int8 y"):
        Interpreter(model_content=model).allocate_tensors()


def reduced_multiplier_64(acc: np.ndarray, multiplier: int, shift: int) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator: the multiplier rounded to 16 bits."""
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    total = 15 - shift
    return (acc.astype(np.int64) * reduced + (1 << (total - 1))) >> total


@pytest.mark.parametrize("y_dtype", [np.int8, np.int16])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("adj_x, adj_y, batches, y_constant", [
    (False, False, ((2,), (2,)), False), (True, True, ((3, 1), (1, 2)), False), (False, True, ((2,), ()), True)])
def test_int16x8_and_int16x16_batch_matmul(y_dtype, ties, adj_x, adj_y, batches, y_constant):
    """TFLite's 16x8 mode: 64-bit sums (past 2^31 here with int16 y) and the 16-bit rounded multiplier."""
    rng = np.random.default_rng(int(ties) * 10 + int(adj_x) + (y_dtype == np.int16) * 100)
    m, k, n = 5, 19, 7
    sx = np.float32(2.0**-10) if ties else np.float32(rng.uniform(1e-4, 1e-3))
    sy = np.float32(2.0**-6) if ties else np.float32(rng.uniform(1e-3, 1e-2))
    so = np.float32(sx * sy * 2.0 ** (9 if y_dtype == np.int8 else 16)) if ties else \
        np.float32(sx * sy * rng.uniform(50, 200) * (128 if y_dtype == np.int16 else 1))
    x_shape = (*batches[0], *((k, m) if adj_x else (m, k)))
    y_shape = (*batches[1], *((n, k) if adj_y else (k, n)))
    x = rng.integers(-32768, 32768, x_shape).astype(np.int16)
    y = rng.integers(np.iinfo(y_dtype).min, np.iinfo(y_dtype).max + 1, y_shape).astype(y_dtype)
    y_spec = Const(y, Quant(sy, 0)) if y_constant else Input(y_shape, y_dtype, Quant(sy, 0))
    model = op_model("BATCH_MATMUL", [Input(x_shape, np.int16, Quant(sx, 0)), y_spec], [((1,), np.int16, Quant(so, 0))],
                     {"adj_x": adj_x, "adj_y": adj_y}, version=4)
    feeds = [x] if y_constant else [x, y]
    xs, ys = x.astype(np.int64), y.astype(np.int64)
    acc = np.matmul(np.swapaxes(xs, -1, -2) if adj_x else xs, np.swapaxes(ys, -1, -2) if adj_y else ys)
    multiplier, shift = quantize_multiplier(float(np.float64(sx * sy) / np.float64(so)))
    expected = np.clip(reduced_multiplier_64(acc, multiplier, shift), -32768, 32767).astype(np.int16)
    (litert,) = litert_default(model, feeds)
    assert litert.tobytes() == expected.tobytes(), "LiteRT's 16x8 arithmetic changed"
    from rillet.runtime import Interpreter

    got = run(Interpreter, model, feeds, num_threads=2)[0]
    assert got.tobytes() == expected.tobytes(), np.count_nonzero(got != expected)


def test_int16_batch_matmul_needs_zero_points_0():
    from rillet.runtime import Interpreter, UnsupportedOpsError

    model = op_model("BATCH_MATMUL", [Input((2, 3), np.int16, Quant(0.001, 0)), Input((3, 2), I8, Quant(0.1, 4))],
                     [((2, 2), np.int16, Quant(0.01, 0))], {})
    with pytest.raises(UnsupportedOpsError, match="BATCH_MATMUL op 0 .*int8 y has zero point 4"):
        Interpreter(model_content=model).allocate_tensors()


def test_int8_batch_matmul_of_empty_depth_runs_the_reference():
    """k = 0: every output is the requantized empty sum, the output zero point (TFLite's builtin kernel; XNNPACK,
    which takes y zero point 0, fails to reshape it)."""
    from rillet.runtime import Interpreter

    for zy in (5, 0):
        model = op_model("BATCH_MATMUL", [Input((2, 3, 0), I8, Quant(0.1, 4)), Input((2, 0, 5), I8, Quant(0.1, zy))],
                         [((1,), I8, Quant(0.5, -3))], {}, version=4)
        feeds = [np.zeros((2, 3, 0), I8), np.zeros((2, 0, 5), I8)]
        if zy:
            assert litert_default(model, feeds)[0].tobytes() == np.full((2, 3, 5), -3, I8).tobytes()
        assert run(Interpreter, model, feeds)[0].tobytes() == np.full((2, 3, 5), -3, I8).tobytes()


@pytest.mark.parametrize("k", [255, 256, 257, 1000])
def test_int8_batch_matmul_extreme_sums(k, monkeypatch):
    """Every product 255 * 255 (x -128 against zero point 127, y 127 against -128): sums far past 2^24."""
    x = np.full((2, 3, k), -128, I8)
    y = np.full((2, k, 5), 127, I8)
    y[:, ::3] = -128  # some products -255 * 0 ... and of the other sign
    qx, qy = Quant(0.01, 127), Quant(0.01, -128)
    qo = Quant(np.float32(0.0001 * 65025 * k / 200), -3)
    model = op_model("BATCH_MATMUL", [Input(x.shape, I8, qx), Input(y.shape, I8, qy)], [((1,), I8, qo)], {}, version=4)
    expected = expected_bits(x, y, qx, qy, qo, False, False)
    assert litert_default(model, [x, y])[0].tobytes() == expected.tobytes()
    for isa in PATHS:
        assert rillet(model, [x, y], monkeypatch, isa, 2).tobytes() == expected.tobytes(), isa


def test_int8_batch_matmul_empty_output_with_many_batches_allocates_nothing_per_batch():
    """10^10 batches of 0 rows: an empty output, prepared and run without a per-batch table."""
    model = op_model("BATCH_MATMUL", [Input((100000, 100000, 0, 4), I8, Quant(0.1, 4)),
                                      Input((1, 1, 4, 5), I8, Quant(0.1, 3))], [((1,), I8, Quant(0.5, -3))], {}, version=4)
    from rillet.runtime import Interpreter

    got = run(Interpreter, model, [np.zeros((100000, 100000, 0, 4), I8), np.zeros((1, 1, 4, 5), I8)])[0]
    assert got.shape == (100000, 100000, 0, 5)
