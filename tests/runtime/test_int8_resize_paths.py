"""int8 RESIZE_BILINEAR on XNNPACK's arithmetic (the output declared 4-D, so LiteRT delegates it) on every kernel
path this CPU runs and 1-3 threads: the bits of the scalar path on one thread, and LiteRT's. Channel counts
around the kernels' 8-channel steps and their 1-7 channel tails (RGB among them), up- and down-scaling, each
sampling convention, batch 2, and larger sizes."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, Quant, op_model
from test_kernel_paths import assert_best_path_gives_litert_bits, assert_int8_paths_give_scalar_bits

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
    assert_int8_paths_give_scalar_bits(*resize_case(0, *case), monkeypatch)


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_best_path_gives_litert_bits(case, monkeypatch):
    assert_best_path_gives_litert_bits(*resize_case(1, *case), monkeypatch)
