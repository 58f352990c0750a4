"""int8 RESIZE_BILINEAR on XNNPACK's arithmetic (the output declared 4-D, so LiteRT delegates it) on every kernel
path this CPU runs and 1-3 threads: the bits of the scalar path on one thread, and LiteRT's. Channel counts
around the kernels' 8-channel steps and their 1-7 channel tails (RGB among them), up- and down-scaling, each
sampling convention, batch 2, and larger sizes."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, Quant, op_model, run
from test_kernel_paths import PATHS, rillet_outputs

CASES = [  # n, h, w, channels, out_h, out_w, align_corners, half_pixel_centers
    (1, 24, 24, 3, 48, 48, False, True),
    (2, 7, 5, 16, 14, 11, False, False),
    (1, 9, 13, 17, 5, 7, True, False),
    (1, 5, 6, 7, 9, 4, False, True),
    (1, 3, 2, 1, 8, 9, False, True),
    (1, 40, 40, 8, 80, 80, False, True),
    (2, 16, 16, 33, 31, 29, True, False),
]


def resize_case(seed: int, n, h, w, c, oh, ow, corners, half):
    rng = np.random.default_rng(seed)
    q = Quant(0.05, int(rng.integers(-20, 20)))
    model = op_model("RESIZE_BILINEAR", [Input((n, h, w, c), np.int8, q), np.array((oh, ow), np.int32)],
                     [((n, oh, ow, c), np.int8, q)], {"align_corners": corners, "half_pixel_centers": half})
    return model, [rng.integers(-128, 128, (n, h, w, c)).astype(np.int8)]


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_every_path_and_thread_count_gives_the_scalar_bits(case, monkeypatch):
    model, feeds = resize_case(0, *case)
    (expected,) = rillet_outputs(model, feeds, "scalar", 1, monkeypatch)
    for isa in PATHS:
        for threads in (1, 2, 3):
            (got,) = rillet_outputs(model, feeds, isa, threads, monkeypatch)
            assert got.tobytes() == expected.tobytes(), (isa, threads, np.count_nonzero(got != expected))


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_best_path_gives_litert_bits(case, monkeypatch):
    pytest.importorskip("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    model, feeds = resize_case(1, *case)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    (expected,) = run(LiteRT, model, feeds)
    (got,) = run(Interpreter, model, feeds, num_threads=2)
    assert got.tobytes() == expected.tobytes(), np.count_nonzero(got != expected)
