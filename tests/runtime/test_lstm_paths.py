"""The three LSTMs (float, int8, hybrid) on every kernel path this CPU runs (RILLET_ISA: the scalar path runs
the reference arithmetic, the SIMD paths the row-dot and activation kernels), at sizes around the kernels' tile
edges (4 weight rows a step; 8, 16 and 32 values a step along a row and in the activations, with tails): each
path against LiteRT (int8 bit for bit, float and hybrid within 1e-5), int8 the same bits on every path, and
a SIMD path's float results not the scalar path's bits (its kernels ran)."""

from __future__ import annotations

import numpy as np
import pytest
from test_kernel_paths import PATHS
from test_lstm import lstm_model, run_invokes
from test_lstm_hybrid import HybridSpec, float_feeds, hybrid_model
from test_lstm_int8 import LstmSpec, int8_feeds, lstm_int8_model

from rillet.runtime import Interpreter

LiteRT = pytest.importorskip("ai_edge_litert.interpreter").Interpreter

SHAPES = [  # (batch, n_input, n_cell, n_output): odd rows, row tails past 8, 16 and 32, a projection
    (1, 37, 13, 13), (3, 17, 9, 21), (2, 40, 36, 20),
]
SIMD_PATHS = [p for p in PATHS if p != "scalar"]


def float_case(batch, n_input, n_cell, n_output, time_major=False, **kwargs):
    content = lstm_model(batch=batch, steps=4, n_input=n_input, n_cell=n_cell, n_output=n_output,
                         time_major=time_major, **kwargs)
    shape = (4, batch, n_input) if time_major else (batch, 4, n_input)
    rng = np.random.default_rng(2)
    return content, [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(3)]


def outputs_on(path: str, content: bytes, feeds, monkeypatch) -> list[np.ndarray]:
    monkeypatch.setenv("RILLET_ISA", path)
    return run_invokes(Interpreter, content, feeds)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("variant", [{}, {"peephole": True, "cifg": True, "time_major": True}, {"cell_clip": 0.5}])
def test_float_lstm_on_every_path(shape, variant, monkeypatch):
    content, feeds = float_case(*shape, **variant)
    theirs = run_invokes(LiteRT, content, feeds)
    scalar = outputs_on("scalar", content, feeds, monkeypatch)
    for path in PATHS:
        ours = outputs_on(path, content, feeds, monkeypatch)
        for t, o in zip(theirs, ours):
            np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, err_msg=path)
        if path != "scalar":
            assert any((o != s).any() for o, s in zip(ours, scalar)), f"{path} gave the scalar path's bits"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("variant", [{}, {"layer_norm": True, "peephole": True}, {"time_major": True, "cifg": True}])
def test_int8_lstm_on_every_path(shape, variant, monkeypatch):
    batch, n_input, n_cell, n_output = shape
    spec = LstmSpec(batch=batch, steps=4, n_input=n_input, n_cell=n_cell, n_output=n_output,
                    weight_scale=0.1 / 127, **variant)
    if spec.peephole and n_output > n_cell:
        pytest.skip("int8 peepholes with more outputs than cells are refused")
    content, feeds = lstm_int8_model(spec), int8_feeds(spec, 3)
    theirs = run_invokes(LiteRT, content, feeds)
    for path in PATHS:
        ours = outputs_on(path, content, feeds, monkeypatch)
        for k, (t, o) in enumerate(zip(theirs, ours)):
            assert (o == t).all(), f"{path}, invoke {k}: {np.count_nonzero(o != t)} of {o.size} differ from LiteRT"
    assert len(np.unique(theirs[1])) > 8  # a real sequence, not a saturated constant


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("variant", [{}, {"asymmetric": True, "peephole": True}, {"layer_norm": True, "time_major": True}])
def test_hybrid_lstm_on_every_path(shape, variant, monkeypatch):
    batch, n_input, n_cell, n_output = shape
    spec = HybridSpec(batch=batch, steps=4, n_input=n_input, n_cell=n_cell, n_output=n_output,
                      weight_scale=0.1 / 127, **variant)
    content, feeds = hybrid_model(spec), float_feeds(spec, 3)
    theirs = run_invokes(LiteRT, content, feeds)
    for path in PATHS:
        ours = outputs_on(path, content, feeds, monkeypatch)
        for k, (t, o) in enumerate(zip(theirs, ours)):
            np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, err_msg=f"{path}, invoke {k}")


def test_a_simd_path_runs_here():
    """Without a SIMD path the tests above compare the scalar path with itself; say so rather than pass."""
    if not SIMD_PATHS:
        pytest.skip("this CPU runs only the scalar path")
    assert "scalar" in PATHS


@pytest.mark.parametrize("form", ["float", "int8"])
def test_a_keyword_spotting_sized_lstm_over_many_steps(form, monkeypatch):
    """128 cells over 40 inputs and 40 steps, batch 1 (bench_lstm.py's sizes), on the CPU's best path: float
    stays within 1e-5 of LiteRT however far the sums' order differs, int8 gives its bits. (Hybrid is left out:
    a last-ulp difference in a float gate can move a quantized h value across a rounding boundary after tens of
    steps, on the reference arithmetic too, and then the outputs differ by a quantum.)"""
    monkeypatch.delenv("RILLET_ISA", raising=False)
    if form == "float":
        content = lstm_model(batch=1, steps=40, n_input=40, n_cell=128)
        feeds = [np.random.default_rng(5).uniform(-1, 1, (1, 40, 40)).astype(np.float32) for _ in range(2)]
    else:
        spec = LstmSpec(batch=1, steps=40, n_input=40, n_cell=128, weight_scale=0.05 / 127)
        content, feeds = lstm_int8_model(spec), int8_feeds(spec, 2)
    theirs, ours = run_invokes(LiteRT, content, feeds), run_invokes(Interpreter, content, feeds)
    for k, (t, o) in enumerate(zip(theirs, ours)):
        if form == "int8":
            assert (o == t).all(), f"invoke {k}: {np.count_nonzero(o != t)} of {o.size} differ from LiteRT"
        else:
            np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, err_msg=f"invoke {k}")
    assert len(np.unique(theirs[1])) > 16  # not a saturated constant
