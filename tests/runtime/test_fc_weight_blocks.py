"""A FULLY_CONNECTED whose packed weights exceed one block of columns (conv_gemm.c's RL_GEMM_WEIGHT_BLOCK_BYTES,
512 KB: a kernel call per block of columns over all of a tile's rows) against LiteRT's default Interpreter within
1e-5 of max|y|, the same bits with 1, 2 and 3 threads (other tiles, other blocks) and, on the AVX-512 paths,
through the 7x32 tile of 64 columns or more and the 7x16 one below: blocks that end on a 16-wide last panel
(333 columns) and on a full one, k of 1024 (3 panels of 32 a block) and 2048 (1)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import litert_default, run
from test_kernel_paths import PATHS
from transformer_graphs import graph_model

pytest.importorskip("ai_edge_litert")


def fc_model(rows: int, depth: int, units: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((units, depth)) / np.sqrt(depth)).astype(np.float32)
    b = rng.standard_normal(units).astype(np.float32)
    return graph_model({"x": (1, rows, depth)}, {"w": w, "b": b}, [("FULLY_CONNECTED", ["x", "w", "b"], "y", None)],
                       "y", {"y": (1, rows, units)})


@pytest.mark.parametrize("rows, depth, units", [(23, 1024, 333), (16, 2048, 96), (9, 1024, 60), (40, 384, 1536)])
def test_fully_connected_in_blocks_of_columns_matches_litert(rows, depth, units, monkeypatch):
    from rillet.runtime import Interpreter

    model = fc_model(rows, depth, units, seed=rows + units)
    x = np.random.default_rng(units).standard_normal((1, rows, depth)).astype(np.float32)
    (want,) = litert_default(model, [x])
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (one,) = run(Interpreter, model, [x], num_threads=1)
        for threads in (2, 3):
            (y,) = run(Interpreter, model, [x], num_threads=threads)
            assert y.tobytes() == one.tobytes(), (isa, threads)
        scale = float(np.abs(want).max())
        assert float(np.abs(one - want).max()) <= 1e-5 * scale, isa
