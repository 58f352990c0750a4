"""The x86 SIMD kernels of LiteRT's Eigen order (f32_log_softmax__avx2.c, f32_gemv_eigen__avx2.c) give their
scalar references' bits (f32_log_softmax_ref.c, f32_gemv_eigen_ref.c, the specification): the same model run with
RILLET_ISA=scalar and on the CPU's best path, on sizes around the 4-float packets, the 8-element packet pairs,
the 16-element inner-product quads, the 8-row GEMV groups and odd tails, and on values where a lane's order or
special case shows: zeros of either sign as the row's maximum, NaN, infinities, exponents below -87 and -104.
Bits compared (the sign of a zero included), a NaN only by its place."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from single_op import Input, op_model, run  # noqa: E402
from test_kernel_paths import path_runs  # noqa: E402

F32 = np.float32


# The paths whose kernel table takes the SIMD kernels; the others run the reference itself.
SIMD_PATHS = [isa for isa in ("avx2", "avx512", "avx512vnni") if path_runs(isa)]
pytestmark = pytest.mark.skipif(not SIMD_PATHS, reason="no x86 SIMD path on this CPU")


def same_bits(a, b):
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    assert a.shape == b.shape
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    np.testing.assert_array_equal(nan_a, nan_b)
    bad = (a.view(np.uint32) != b.view(np.uint32)) & ~nan_a
    assert not bad.any(), f"{np.count_nonzero(bad)} differ, first at {np.argwhere(bad)[0]}: {a[bad][0]!r} {b[bad][0]!r}"


def check_paths(model, feeds, monkeypatch, threads=1):
    monkeypatch.setenv("RILLET_ISA", "scalar")
    reference = run(Interpreter, model, feeds, num_threads=threads)[0]
    for isa in SIMD_PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        same_bits(run(Interpreter, model, feeds, num_threads=threads)[0], reference)


DEPTHS = list(range(1, 41)) + [63, 64, 65, 127, 128, 129, 1000, 1001, 1003]


@pytest.mark.parametrize("depth", DEPTHS)
def test_log_softmax_simd_gives_the_reference_bits(depth, monkeypatch):
    """Rows of plain values, of spread ones (lanes past -87 and -104: Eigen's slow scaling and its zero), of ones
    where the slow scaling is one packet's of a pair but not the other's, and of special ones: a zero maximum of
    either sign (the scan's order picks the sign), NaN, +-inf."""
    rs = np.random.default_rng(depth)
    rows = [rs.normal(0, 1, depth), rs.normal(0, 60, depth), -np.abs(rs.normal(0, 200, depth))]
    zeros = -np.abs(rs.normal(0, 300, depth))
    zeros[rs.integers(0, depth, 3)] = 0.0
    zeros[rs.integers(0, depth, 3)] = -0.0
    rows.append(zeros)
    minus_zero_first = zeros.copy()
    minus_zero_first[0] = -0.0
    rows.append(minus_zero_first)
    for special in (np.nan, np.inf, -np.inf):
        row = rs.normal(0, 5, depth)
        row[rs.integers(0, depth)] = special
        rows.append(row)
    nan_first = rs.normal(0, 5, depth)
    nan_first[0] = np.nan
    rows.append(nan_first)
    one_half_slow = np.full(depth, -1.0)  # one lane past -87 in every other packet: the 8-wide exp's halves differ
    one_half_slow[[i for i in range(depth) if i % 8 == 5]] = -95.0
    rows += [one_half_slow, np.roll(one_half_slow, 4), np.roll(one_half_slow, 4) - 20.0]
    x = np.array(rows, F32)
    m = op_model("LOG_SOFTMAX", [Input(x.shape)], [(x.shape, F32)])
    check_paths(m, [x], monkeypatch)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 31, 32, 33, 36, 47, 48, 49, 130, 1283])
@pytest.mark.parametrize("units", [1, 2, 7, 8, 9, 15, 16, 17, 24, 33, 100])
def test_fully_connected_with_changing_weights_simd_gives_the_reference_bits(depth, units, monkeypatch):
    """One unit: Eigen's inner product (its 4-packet quads and the packets past them); more: its GEMV (the SIMD
    kernel's 8-row groups and the rows past them); 2 threads split the units into tiles that start off those
    groups. Weights holding +-inf, NaN and -0; RELU6's clamp after the bias."""
    rs = np.random.default_rng(depth * 131 + units)
    x, w, b = rs.normal(size=(1, depth)), rs.normal(size=(units, depth)), rs.normal(size=units)
    w.flat[rs.integers(0, w.size, 2)] = -0.0
    if units > 8:
        w[3, rs.integers(0, depth)] = np.inf
        w[5, rs.integers(0, depth)] = -np.inf
        w[6, rs.integers(0, depth)] = np.nan
    feeds = [x.astype(F32), w.astype(F32), b.astype(F32)]
    for activation, threads in ((0, 1), (3, 2)):
        m = op_model("FULLY_CONNECTED", [Input((1, depth)), Input((units, depth)), Input((units,))],
                     [((1, units), F32)], {"fused_activation_function": activation})
        check_paths(m, feeds, monkeypatch, threads)
