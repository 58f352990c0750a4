"""QUANTIZE (float32 to int8) and DEQUANTIZE (int8 to float32) on every kernel path this CPU runs (RILLET_ISA),
bit for bit against LiteRT's default Interpreter (QUANTIZE is XNNPACK's f32-qs8-vcvt: multiply by the float
reciprocal, round to nearest with ties to even): lengths around the AVX2 (8, 32) and NEON (4, 16) blocks, exact
ties and values an ulp past them, values far outside int8 on both sides, zero points at both ends, and
per-channel DEQUANTIZE along either axis (runs of one element and of a whole row)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, litert_default, op_model, run
from test_kernel_paths import PATHS

pytest.importorskip("ai_edge_litert")

F32, I8 = np.float32, np.int8
LENGTHS = [1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 100, 1031]
QUANTS = [(0.05, -3), (1.0, 0), (0.5, -128), (0.0125, 127), (0.37, 64)]


@pytest.mark.parametrize("length", LENGTHS)
def test_quantize_on_every_path_matches_litert(length, monkeypatch):
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(length)
    scale, zero_point = QUANTS[length % len(QUANTS)]
    steps = rng.integers(-300, 300, length)
    x = np.select([rng.random(length) < 0.4, rng.random(length) < 0.5],
                  [(steps + 0.5) * scale, np.nextafter(((steps + 0.5) * scale).astype(F32), F32(np.inf))],
                  rng.uniform(-400, 400, length) * scale).astype(F32).reshape(1, length)
    model = op_model("QUANTIZE", [Input((1, length))], [((1,), I8, Quant(np.float32(scale), zero_point))], None)
    (expected,) = litert_default(model, [x])
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, [x])
        assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected))


@pytest.mark.parametrize("length", LENGTHS)
def test_dequantize_on_every_path_matches_litert(length, monkeypatch):
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(length)
    scale, zero_point = QUANTS[length % len(QUANTS)]
    x = rng.integers(-128, 128, (1, length)).astype(I8)
    x.flat[0], x.flat[-1] = -128, 127
    model = op_model("DEQUANTIZE", [Input((1, length), I8, Quant(np.float32(scale), zero_point))], [((1,), F32)],
                     None)
    (expected,) = litert_default(model, [x])
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, [x])
        assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected))


@pytest.mark.parametrize("axis", [0, 1])
def test_per_channel_dequantize_on_every_path(axis, monkeypatch):
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(axis)
    w = rng.integers(-128, 128, (5, 37)).astype(I8)
    channels = w.shape[axis]
    scales = rng.uniform(0.001, 0.5, channels).astype(F32)
    zero_points = rng.integers(-128, 128, channels)
    shape = (-1, 1) if axis == 0 else (1, -1)
    expected = (w.astype(np.int32) - zero_points.reshape(shape)).astype(F32) * scales.reshape(shape)
    model = op_model("DEQUANTIZE", [Const(w, Quant(scales, zero_points.tolist(), axis=axis))], [((5, 37), F32)], None)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        it = Interpreter(model_content=model)
        it.allocate_tensors()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        assert got.tobytes() == expected.tobytes(), isa
