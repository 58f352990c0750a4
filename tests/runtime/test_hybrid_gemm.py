"""Hybrid (dynamic-range) CONV_2D, FULLY_CONNECTED and BATCH_MATMUL with constant weights run on the qd8 micro-kernels
(native/ops/conv_hybrid_gemm.c; DEPTHWISE_CONV_2D on the qd8 depthwise kernels, dwconv_hybrid.c): their weights
are packed at prepare (counted in memory_report; depthwise reads them in place), the result is
the same bits on 1 and 2 threads and on every kernel path this CPU has, and stays within 1e-5 of LiteRT's
default Interpreter (test_hybrid_ops.py checks many more shapes against LiteRT on the same path)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, litert_default, op_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, I8 = np.float32, np.int8


def conv_model(rng, n, h, w, cin, cout, k, stride, padding, act=0):
    scales = rng.uniform(0.001, 0.05, cout).astype(F32)
    filt = rng.integers(-127, 128, (cout, k, k, cin)).astype(I8)
    bias = rng.uniform(-1, 1, cout).astype(F32)
    opts = {"padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": act}
    return op_model("CONV_2D", [Input((n, h, w, cin), F32), Const(filt, Quant(scales, 0, 0)), bias],
                    [((n, 1, 1, cout), F32)], opts, version=2)


def depthwise_model(rng, n, h, w, c, k, stride, padding, act=0):
    scales = rng.uniform(0.001, 0.05, c).astype(F32)
    filt = rng.integers(-127, 128, (1, k, k, c)).astype(I8)
    bias = rng.uniform(-1, 1, c).astype(F32)  # LiteRT refuses a hybrid depthwise without one
    opts = {"padding": padding, "stride_w": stride, "stride_h": stride, "depth_multiplier": 1,
            "fused_activation_function": act}
    return op_model("DEPTHWISE_CONV_2D", [Input((n, h, w, c), F32), Const(filt, Quant(scales, 0, 3)), bias],
                    [((n, 1, 1, c), F32)], opts, version=6)


def fc_model(rng, rows, depth, units):
    scales = rng.uniform(0.001, 0.05, units).astype(F32)
    w = rng.integers(-127, 128, (units, depth)).astype(I8)
    return op_model("FULLY_CONNECTED", [Input((rows, depth), F32), Const(w, Quant(scales, 0)),
                                        rng.uniform(-1, 1, units).astype(F32)],
                    [((rows, units), F32)], {"fused_activation_function": 1}, version=12)


def batch_matmul_model(rng, x_shape, k, n, adj_y):
    y_shape = (n, k) if adj_y else (k, n)
    scales = rng.uniform(0.001, 0.05, n).astype(F32)
    y = Const(rng.integers(-127, 128, y_shape).astype(I8), Quant(scales, 0, 0 if adj_y else 1))
    return op_model("BATCH_MATMUL", [Input(x_shape, F32), y], [((1, 1), F32)], {"adj_x": False, "adj_y": adj_y},
                    version=4)


def invoke(content, x, threads):
    it = Interpreter(model_content=content, num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]), it.memory_report()


CASES = {
    # per-image quantization, IGEMM with padding taps, two images with their own zero points
    "conv 3x3 stride 2 SAME, batch 2": lambda rng: conv_model(rng, 2, 21, 19, 13, 24, 3, 2, 0, act=3),
    "conv 3x3 stride 1 VALID": lambda rng: conv_model(rng, 1, 18, 18, 8, 17, 3, 1, 1),
    # few input channels: an IGEMM tap per filter row, edge rows holding each image's own zero point
    "conv 3x3 RGB first layer": lambda rng: conv_model(rng, 1, 32, 32, 3, 16, 3, 2, 0, act=1),
    "conv 5x5 one channel SAME, batch 2": lambda rng: conv_model(rng, 2, 20, 23, 1, 9, 5, 1, 0),
    # per-pixel quantization: a GEMM on the input's pixels
    "conv 1x1 stride 1": lambda rng: conv_model(rng, 2, 16, 15, 40, 33, 1, 1, 0),
    "fully connected": lambda rng: fc_model(rng, 37, 200, 41),
    # a decoder step: one row (AVX-512 VNNI's one-row kernel, four chains over k), a k tail, a narrow panel;
    # blocks of two rows take that kernel row by row too
    "fully connected, one row": lambda rng: fc_model(rng, 1, 517, 70),
    "fully connected, 10 rows": lambda rng: fc_model(rng, 10, 300, 33),
    # one y for every batch of x, [k][n] or (adj_y) [n][k]
    "batch matmul": lambda rng: batch_matmul_model(rng, (3, 29, 70), 70, 37, False),
    "batch matmul adj_y": lambda rng: batch_matmul_model(rng, (2, 1, 40, 33), 33, 25, True),
    # TFLite's EvalHybridPerChannel arithmetic on the qd8 depthwise kernels (weights read in place, not packed)
    "depthwise 3x3 stride 1 SAME, batch 2, 35 channels": lambda rng: depthwise_model(rng, 2, 17, 15, 35, 3, 1, 0, 3),
    "depthwise 5x5 stride 2 VALID": lambda rng: depthwise_model(rng, 1, 23, 21, 48, 5, 2, 1, 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hybrid_gemm_path_is_taken_and_same_on_1_and_2_threads(case, monkeypatch):
    rng = np.random.default_rng(7)
    content = CASES[case](rng)
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    x = rng.uniform(-3, 3, tuple(shape)).astype(F32)
    x[0] = np.abs(x[0])  # an all-positive image (or row): its zero point sits at an end of the range
    one, memory = invoke(content, x, 1)
    two, _ = invoke(content, x, 2)
    # the micro-kernel path, not the whole-op reference (which keeps no op state)
    assert memory["op_state_bytes"] > 0 and (memory["packed_weight_bytes"] > 0 or "depthwise" in case), memory
    np.testing.assert_array_equal(one, two)
    monkeypatch.setenv("RILLET_ISA", "scalar")
    scalar, _ = invoke(content, x, 2)
    np.testing.assert_array_equal(one, scalar)
    expected = litert_default(content, [x])[0]
    np.testing.assert_allclose(one, expected, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(expected).max())))
