"""int8 ADD, SUB, MUL, MAX_POOL_2D and AVERAGE_POOL_2D on every kernel path this CPU runs (RILLET_ISA), bit for
bit against LiteRT's default Interpreter: the broadcasts the element-wise driver walks as rows of micro-kernels
(same shape, a constant on either side, a per-channel vector over NHWC on either side, in tiles of rows, a
column against a row), row lengths
around the SIMD blocks (15, 16, 17, 31, 32, 33 elements), both arithmetics (scales XNNPACK takes and refuses),
and pools whose channels straddle the 16- and 32-byte blocks."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, litert_default, op_model, run
from test_kernel_paths import PATHS

pytest.importorskip("ai_edge_litert")

I8 = np.int8
# (a shape, b shape, b constant?)
BROADCASTS = [
    ((2, 3, 5, 16), (2, 3, 5, 16), False),
    ((1, 4, 4, 17), (1, 4, 4, 17), False),
    ((33,), (33,), False),
    ((2, 8, 8, 1), (), True),      # a normalization's constant (the digits model's MUL and SUB)
    ((), (3, 5, 31), False),       # the constant on the left: SUB's minuend
    ((1, 15), (1, 1), False),
    ((2, 3, 3, 32), (32,), True),  # per-channel [C] over [N,H,W,C]
    ((2, 3, 3, 15), (15,), False),
    ((17,), (2, 3, 17), False),    # the vector on the left
    ((2, 4, 1), (1, 33), False),   # a column against a row: every row a constant against a vector
    ((3, 1, 16), (3, 5, 1), False),
    ((2, 1, 3, 17), (1, 4, 1, 17), False),
    ((24,), (2, 7, 5, 24), False),   # a vector on the left over more rows than one tile (11 rows of 24)
    ((1, 9, 9, 3), (3,), True),      # an RGB image's per-channel constant: tiles of 86 rows
]
# (input scales, output scale): XNNPACK's arithmetic, then ratios it refuses (TFLite's builtin arithmetic:
# ADD/SUB's a ratio below 1/1024, MUL's product ratio below 1/65536; ratios of 256 and more meet LiteRT's
# 16-bit wrap, which test_int8_elementwise_ops.py covers).
SCALES = {"xnnpack": (0.05, 0.02, 0.04), "tflite": (0.00002, 0.05, 0.05)}
TFLITE_MUL_SCALES = (0.004, 0.002, 1.0)


def binary_case(op, a_shape, b_shape, b_const, scales, act, seed):
    rng = np.random.default_rng(seed)
    sa, sb, so = TFLITE_MUL_SCALES if op == "MUL" and scales == SCALES["tflite"] else scales
    za, zb, zo = (int(v) for v in rng.integers(-100, 100, 3))
    a = rng.integers(-128, 128, a_shape).astype(I8)
    b = rng.integers(-128, 128, b_shape).astype(I8)
    b_spec = Const(b, Quant(sb, zb)) if b_const else Input(b_shape, I8, Quant(sb, zb))
    model = op_model(op, [Input(a_shape, I8, Quant(sa, za)), b_spec], [((1,), I8, Quant(so, zo))],
                     {"fused_activation_function": act}, version=2)
    return model, [a] if b_const else [a, b]


def cases():
    for op in ("ADD", "SUB", "MUL"):
        for i, (a_shape, b_shape, b_const) in enumerate(BROADCASTS):
            for arithmetic, scales in SCALES.items():
                act = (0, 1, 3)[i % 3]
                yield pytest.param(op, a_shape, b_shape, b_const, scales, act, id=f"{op}-{i}-{arithmetic}")


@pytest.mark.parametrize("op, a_shape, b_shape, b_const, scales, act", list(cases()))
def test_binary_on_every_path_matches_litert(op, a_shape, b_shape, b_const, scales, act, monkeypatch):
    from rillet.runtime import Interpreter

    model, feeds = binary_case(op, a_shape, b_shape, b_const, scales, act, seed=len(a_shape) * 7 + len(b_shape))
    (expected,) = litert_default(model, feeds)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, feeds)
        assert got.shape == expected.shape
        assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected))


POOLS = [  # op, (n, h, w, c), window, stride, padding (0 SAME, 1 VALID), activation
    ("MAX_POOL_2D", (2, 8, 8, 16), 2, 2, 1, 0), ("MAX_POOL_2D", (1, 5, 5, 15), 3, 1, 0, 1),
    ("MAX_POOL_2D", (1, 6, 7, 17), 3, 2, 0, 3), ("MAX_POOL_2D", (1, 4, 4, 31), 2, 1, 1, 0),
    ("MAX_POOL_2D", (1, 4, 4, 33), 2, 2, 0, 0), ("MAX_POOL_2D", (1, 3, 3, 64), 3, 1, 0, 1),
    ("AVERAGE_POOL_2D", (2, 8, 8, 16), 2, 2, 1, 0), ("AVERAGE_POOL_2D", (1, 5, 5, 15), 3, 1, 0, 1),
    ("AVERAGE_POOL_2D", (1, 6, 7, 17), 3, 2, 0, 3), ("AVERAGE_POOL_2D", (1, 9, 9, 33), 8, 1, 1, 0),
    ("AVERAGE_POOL_2D", (1, 7, 7, 32), 7, 1, 0, 0), ("AVERAGE_POOL_2D", (1, 4, 4, 1), 2, 1, 0, 0),
]


@pytest.mark.parametrize("op, shape, k, stride, padding, act", POOLS, ids=[f"{p[0]}-{i}" for i, p in enumerate(POOLS)])
def test_pool_on_every_path_matches_litert(op, shape, k, stride, padding, act, monkeypatch):
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(shape[-1])
    q = Quant(np.float32(0.05), int(rng.integers(-50, 50)))
    model = op_model(op, [Input(shape, I8, q)], [((1,), I8, q)],
                     {"padding": padding, "stride_w": stride, "stride_h": stride, "filter_width": k,
                      "filter_height": k, "fused_activation_function": act}, version=2)
    # Saturated values and a narrow range beside random ones: the average's half-away-from-zero ties.
    feeds = [rng.choice(np.array([-128, 127, -3, -2, -1, 0, 1, 2, 3], I8), shape) if shape[-1] % 2
             else rng.integers(-128, 128, shape).astype(I8)]
    (expected,) = litert_default(model, feeds)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, feeds)
        assert got.tobytes() == expected.tobytes(), (isa, np.count_nonzero(got != expected))
