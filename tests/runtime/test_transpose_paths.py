"""TRANSPOSE's fast path (native/kernels/xx_transpose__scalar.c: the permutation simplified, then runs of the
kept innermost axis or tiled 2-D transposes, 4-byte ones on each path's x32_transpose_2d) gives numpy's and
LiteRT's result bit for bit on every path this CPU runs: on attention's head splits and merges, on transposes
that move the innermost axis, with axes of size 1 and axes that merge, on random shapes and permutations of
every element size."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, litert_default, op_model
from test_kernel_paths import PATHS, rillet_outputs

DTYPES = [np.float32, np.int8, np.int16, np.int64, np.bool_]


def random_case(seed: int) -> tuple[tuple[int, ...], tuple[int, ...], type]:
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 7))
    # sizes 1 (dropped), small, and past a 16-element block
    shape = tuple(int(rng.choice([1, 2, 3, 5, 16, 17, 33])) for _ in range(rank))
    return shape, tuple(int(p) for p in rng.permutation(rank)), DTYPES[seed % len(DTYPES)]


CASES = [
    ((1, 197, 3, 64), (0, 2, 1, 3), np.float32),   # attention: [1,s,h,d] -> [1,h,s,d]
    ((1, 12, 7, 16), (0, 2, 1, 3), np.float32),    # and back
    ((1, 17, 4, 8), (0, 2, 3, 1), np.float32),     # Kᵀ without adj_y: the innermost axis moves
    ((64, 33), (1, 0), np.float32),
    ((37, 19), (1, 0), np.int8),
    ((2, 3, 4, 5), (3, 1, 2, 0), np.int16),
    ((3, 1, 5, 1, 7), (4, 3, 2, 1, 0), np.int64),
    ((2, 3, 4), (0, 1, 2), np.float32),            # the identity: one copy
    ((1, 1, 40), (2, 0, 1), np.float32),           # only size-1 axes move: one copy
    ((6, 5, 4, 3), (2, 3, 0, 1), np.float32),      # two pairs of axes that merge
    ((70, 131), (1, 0), np.float32),               # 64 x 64 tiles and 8 x 8 blocks with edges
] + [random_case(seed) for seed in range(40)]


@pytest.mark.parametrize("shape, perm, dtype", CASES)
def test_transpose_matches_numpy_and_litert(shape, perm, dtype, monkeypatch):
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    x = (rng.integers(-100, 100, shape) if dtype != np.float32 else rng.standard_normal(shape)).astype(dtype)
    out_shape = tuple(shape[p] for p in perm)
    model = op_model("TRANSPOSE", [Input(shape, dtype), np.array(perm, np.int32)], [(out_shape, dtype)])
    expected = np.transpose(x, perm)
    for isa in PATHS:
        (got,) = rillet_outputs(model, [x], isa, 1, monkeypatch)
        assert got.shape == expected.shape and got.tobytes() == expected.tobytes(), isa
    if dtype != np.bool_ and len(shape) <= 6:  # LiteRT's TRANSPOSE takes up to rank 6
        assert got.tobytes() == litert_default(model, [x])[0].tobytes()


THREADED = [  # 65536 elements and more: the output's outermost merged axis split across threads
    ((1, 300, 4, 64), (0, 2, 1, 3), np.float32),   # 4 parts of a head split
    ((1, 150, 6, 64), (0, 2, 3, 1), np.float32),   # the moved innermost axis is the last; 6 parts
    ((384, 300), (1, 0), np.float32),              # the moved axis outermost: rows of 2-D transposes split
    ((7, 9, 40, 33), (2, 0, 3, 1), np.int16),
    ((2, 70000), (0, 1), np.int8),                 # one copy, split
]


@pytest.mark.parametrize("shape, perm, dtype", THREADED)
def test_transpose_split_across_threads(shape, perm, dtype, monkeypatch):
    rng = np.random.default_rng(sum(shape))
    x = (rng.integers(-100, 100, shape) if dtype != np.float32 else rng.standard_normal(shape)).astype(dtype)
    out_shape = tuple(shape[p] for p in perm)
    model = op_model("TRANSPOSE", [Input(shape, dtype), np.array(perm, np.int32)], [(out_shape, dtype)])
    expected = np.transpose(x, perm).tobytes()
    for isa in PATHS:
        for threads in (1, 2, 3):
            (got,) = rillet_outputs(model, [x], isa, threads, monkeypatch)
            assert got.tobytes() == expected, (isa, threads)
