"""float32 MAX_POOL_2D and AVERAGE_POOL_2D on every kernel path this CPU runs (RILLET_ISA) and 1-3 threads: the
same bits as the scalar path (the SIMD pooling kernels keep its comparison, summation order and division), and
LiteRT's default Interpreter's values within 1e-5 (max: equal). Channels straddle the AVX2 (8, 16) and NEON (4, 8) blocks;
windows reach the border (SAME) and the driver's largest (8x8); inputs mix signed zeros and max ties."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, litert_default, op_model, run
from test_kernel_paths import PATHS

F32 = np.float32
POOLS = [  # op, (n, h, w, c), window, stride, padding (0 SAME, 1 VALID), activation
    ("MAX_POOL_2D", (1, 9, 9, 7), 3, 2, 0, 0), ("MAX_POOL_2D", (2, 8, 8, 16), 2, 2, 1, 1),
    ("MAX_POOL_2D", (1, 6, 7, 17), 3, 1, 0, 3), ("MAX_POOL_2D", (1, 5, 5, 33), 2, 1, 1, 0),
    ("MAX_POOL_2D", (1, 4, 4, 3), 3, 1, 0, 0),
    ("AVERAGE_POOL_2D", (1, 9, 9, 7), 3, 2, 0, 0), ("AVERAGE_POOL_2D", (2, 8, 8, 16), 2, 2, 1, 1),
    ("AVERAGE_POOL_2D", (1, 6, 7, 17), 3, 1, 0, 3), ("AVERAGE_POOL_2D", (1, 9, 9, 25), 8, 1, 1, 0),
    ("AVERAGE_POOL_2D", (1, 7, 7, 32), 7, 1, 0, 0), ("AVERAGE_POOL_2D", (1, 4, 4, 1), 2, 1, 0, 0),
]


def pool_case(op, shape, k, stride, padding, act, seed=0):
    rng = np.random.default_rng(seed)
    model = op_model(op, [Input(shape)], [((1,), F32)],
                     {"padding": padding, "stride_w": stride, "stride_h": stride, "filter_width": k,
                      "filter_height": k, "fused_activation_function": act})
    x = rng.uniform(-8, 8, shape).astype(F32)
    # A few values repeated (max ties) and signed zeros. (No wide magnitudes: a sum that cancels them keeps
    # the rounding of its summation order, and XNNPACK adds the taps in its own.)
    specials = np.array([0.0, -0.0, 1.5, -1.5, 1e-3], F32)
    mask = rng.random(shape) < 0.3
    x[mask] = rng.choice(specials, int(mask.sum()))
    return model, [x]


@pytest.mark.parametrize("op, shape, k, stride, padding, act", POOLS, ids=[f"{p[0]}-{i}" for i, p in enumerate(POOLS)])
def test_float_pool_on_every_path_is_the_scalar_result_and_litert(op, shape, k, stride, padding, act, monkeypatch):
    pytest.importorskip("ai_edge_litert")
    from rillet.runtime import Interpreter

    model, feeds = pool_case(op, shape, k, stride, padding, act)
    (expected,) = litert_default(model, feeds)
    monkeypatch.setenv("RILLET_ISA", "scalar")
    (scalar,) = run(Interpreter, model, feeds)
    scale = float(np.abs(expected).max()) or 1.0
    np.testing.assert_allclose(scalar, expected, rtol=1e-5, atol=1e-5 * scale)
    if op == "MAX_POOL_2D":  # the same values (between +0 and -0 each picks its own, by its comparison order)
        assert np.array_equal(scalar, expected)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        for threads in (1, 2, 3):
            (got,) = run(Interpreter, model, feeds, num_threads=threads)
            assert got.tobytes() == scalar.tobytes(), (isa, threads, np.count_nonzero(got != scalar))
