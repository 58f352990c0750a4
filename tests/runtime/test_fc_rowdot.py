"""FULLY_CONNECTED of a few rows on the row-dot kernels (native/ops/fc_rowdot.c), reading the model's weights in
place: every path and thread count give the scalar path's result (int8 bit for bit), LiteRT agrees, no packed
copy of the weights is made, and more rows than the threshold still take the packed GEMM (the last case).

The shapes are large enough for the thread pool to split the output channels (RL_PARALLEL_MIN_MACS, 65,536
multiply-adds), with units and depth off every kernel step (4 weight rows; k steps of 4 to 64)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, op_model, run
from test_kernel_paths import PATHS, rillet_outputs

F32, I8 = np.float32, np.int8
ROWDOT_MAX_ROWS = 2  # native/ops/fc_rowdot.h's RL_FC_ROWDOT_MAX_ROWS
# rows, depth, units, activation (0 none, 1 RELU, 3 RELU6), bias, per-channel weight scales (int8)
CASES = [(1, 1280, 61, 0, True, True), (2, 517, 131, 1, False, True), (1, 1001, 70, 3, True, False),
         (2, 257, 255, 0, True, True), (1, 33, 3, 0, False, False), (3, 300, 90, 0, True, True)]


def fc_model(rng, int8: bool, rows: int, depth: int, units: int, act: int, with_bias: bool, per_channel: bool):
    if not int8:
        bias = rng.standard_normal(units).astype(F32) if with_bias else None
        weights = rng.standard_normal((units, depth)).astype(F32)
        model = op_model("FULLY_CONNECTED", [Input((rows, depth)), weights, bias], [((rows, units), F32)],
                         {"fused_activation_function": act})
        x = rng.uniform(-1, 1, (rows, depth)).astype(F32)
        # Sum of |terms| per output: SIMD sums k in another order with fused multiply-adds, so a sum that cancels
        # moves by about as much as one that does not (the kernel testers' tolerance).
        magnitude = np.abs(x.astype(np.float64)) @ np.abs(weights.astype(np.float64)).T
        return model, [x], magnitude + (np.abs(bias) if with_bias else 0.0)
    si = np.float32(0.05)
    sw = rng.uniform(0.002, 0.02, units).astype(F32) if per_channel else np.float32(0.01)
    so = np.float32(0.05 * float(np.mean(sw)) * np.sqrt(depth) * 8)
    zi, zo = (int(v) for v in rng.integers(-100, 100, 2))
    weights = Const(rng.integers(-127, 128, (units, depth)).astype(I8), Quant(sw, 0, 0) if per_channel else Quant(sw, 0))
    bias = Const(rng.integers(-3000, 3000, units).astype(np.int32), Quant(si * sw, 0)) if with_bias else None
    model = op_model("FULLY_CONNECTED", [Input((rows, depth), I8, Quant(si, zi)), weights, bias],
                     [((rows, units), I8, Quant(so, zo))], {"fused_activation_function": act},
                     version=5 if per_channel else 4)
    return model, [rng.integers(-128, 128, (rows, depth)).astype(I8)], None


@pytest.mark.parametrize("int8", [False, True], ids=["f32", "int8"])
@pytest.mark.parametrize("case", CASES)
def test_every_path_and_thread_count_gives_the_scalar_result(int8, case, monkeypatch):
    model, feeds, magnitude = fc_model(np.random.default_rng(0), int8, *case)
    (expected,) = rillet_outputs(model, feeds, "scalar", 1, monkeypatch)
    for isa in PATHS:
        for threads in (1, 2, 3):
            (got,) = rillet_outputs(model, feeds, isa, threads, monkeypatch)
            if int8:
                assert got.tobytes() == expected.tobytes(), (isa, threads, np.count_nonzero(got != expected))
            else:
                error = np.abs(got.astype(np.float64) - expected)
                assert np.all(error <= 1e-6 * np.maximum(magnitude, 1.0)), (isa, threads, float(error.max()))


@pytest.mark.parametrize("int8", [False, True], ids=["f32", "int8"])
@pytest.mark.parametrize("case", CASES)
def test_agrees_with_litert(int8, case, monkeypatch):
    pytest.importorskip("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    model, feeds, _ = fc_model(np.random.default_rng(1), int8, *case)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    (expected,) = run(LiteRT, model, feeds)
    (got,) = run(Interpreter, model, feeds, num_threads=2)
    if int8:
        assert got.tobytes() == expected.tobytes(), np.count_nonzero(got != expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * (float(np.abs(expected).max()) or 1.0))


@pytest.mark.parametrize("int8", [False, True], ids=["f32", "int8"])
def test_few_rows_read_the_weights_in_place_and_more_rows_pack_them(int8):
    from rillet.runtime import Interpreter

    for rows, packed in ((1, False), (ROWDOT_MAX_ROWS, False), (ROWDOT_MAX_ROWS + 1, True)):
        model, _, _ = fc_model(np.random.default_rng(2), int8, rows, 300, 50, 0, True, True)
        it = Interpreter(model_content=model)
        it.allocate_tensors()
        memory = it.memory_report()
        assert (memory["packed_weight_bytes"] > 0) == packed, (rows, memory)
        if not packed:  # int8's prepared biases (4 bytes a unit) are op state, not a copy of the weights
            assert memory["op_state_bytes"] < 50 * 300 * (1 if int8 else 4), memory
