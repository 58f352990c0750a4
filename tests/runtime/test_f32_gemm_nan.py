"""A NaN (or an overflow to inf that becomes NaN) reaching the float GEMM, IGEMM and row-dot kernels' clamp stays
NaN on every path, as in the scalar kernels and XNNPACK (which LiteRT's default Interpreter runs them on): the x86
kernels once took max(acc, min) with the bound second, which turns NaN into the bound (-3.4e38 with no activation).
FULLY_CONNECTED of 1 row (row-dot), 64 rows (GEMM) and a 3x3 CONV_2D (IGEMM), with and without RELU6."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, op_model, run
from test_kernel_paths import PATHS, rillet_outputs

F32 = np.float32


def fc_case(rng, rows: int, act: int):
    weights = rng.standard_normal((37, 61)).astype(F32)
    model = op_model("FULLY_CONNECTED", [Input((rows, 61)), weights, rng.standard_normal(37).astype(F32)],
                     [((rows, 37), F32)], {"fused_activation_function": act})
    x = rng.uniform(-1, 1, (rows, 61)).astype(F32)
    x[0, 5] = np.nan
    x[rows - 1, 7] = np.inf  # inf * weights of both signs: NaN in most columns
    return model, x


def conv_case(rng, act: int):
    weights = rng.standard_normal((19, 3, 3, 5)).astype(F32)
    model = op_model("CONV_2D", [Input((1, 9, 9, 5)), weights, np.zeros(19, F32)], [((1, 9, 9, 19), F32)],
                     {"padding": 0, "stride_w": 1, "stride_h": 1, "fused_activation_function": act})
    x = rng.uniform(-1, 1, (1, 9, 9, 5)).astype(F32)
    x[0, 4, 4, 2] = np.nan
    return model, x


@pytest.mark.parametrize("act", [0, 3], ids=["none", "relu6"])
@pytest.mark.parametrize("kind", ["rowdot", "gemm", "igemm"])
def test_nan_passes_the_clamp_on_every_path(kind, act, monkeypatch):
    rng = np.random.default_rng(3)
    model, x = conv_case(rng, act) if kind == "igemm" else fc_case(rng, 1 if kind == "rowdot" else 64, act)
    (expected,) = rillet_outputs(model, [x], "scalar", 1, monkeypatch)
    assert np.isnan(expected).any()
    ai_edge_litert = pytest.importorskip("ai_edge_litert.interpreter")
    (litert,) = run(ai_edge_litert.Interpreter, model, [x])
    np.testing.assert_array_equal(np.isnan(expected), np.isnan(litert))
    for isa in PATHS:
        (got,) = rillet_outputs(model, [x], isa, 1, monkeypatch)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg=isa)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=isa)
