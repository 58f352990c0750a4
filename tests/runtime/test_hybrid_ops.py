"""Hybrid (dynamic-range) FULLY_CONNECTED: float32 activations, int8 weights, against LiteRT's default
Interpreter within 1e-5.

LiteRT's default Interpreter hands these to XNNPACK, which quantizes each input row asymmetrically whatever
`asymmetric_quantize_inputs` says (TFLite's builtin hybrid kernel quantizes symmetrically when it is false,
and gives visibly different numbers); rillet follows the default Interpreter.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Const, Input, Quant, litert_default, op_model, run

from rillet.runtime import Interpreter, InterpreterError

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
F32, I8 = np.float32, np.int8


def assert_close(got: np.ndarray, expected: np.ndarray) -> None:
    """1e-5 relative, with an absolute floor at 1e-5 of the output's magnitude (sums that cancel to ~0)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(expected).max())))


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(1, 4), min_size=0, max_size=2), st.integers(1, 40),
       st.integers(1, 17), st.sampled_from([0, 1, 2, 3]), st.booleans(), st.booleans(), st.booleans(),
       st.booleans())
def test_hybrid_fully_connected(seed, batch, depth, units, act, per_channel, with_bias, asymmetric, keep_num_dims):
    rng = np.random.default_rng(seed)
    scales = rng.uniform(0.001, 0.05, units if per_channel else 1).astype(F32)
    w = rng.integers(-127, 128, (units, depth)).astype(I8)
    bias = rng.uniform(-1, 1, units).astype(F32) if with_bias else None
    shape = (*batch, depth)
    m = op_model("FULLY_CONNECTED", [Input(shape, F32), Const(w, Quant(scales, 0)), bias], [((1, units), F32)],
                 {"fused_activation_function": act, "asymmetric_quantize_inputs": asymmetric,
                  "keep_num_dims": keep_num_dims}, version=12)
    x = rng.uniform(-3, 3, shape).astype(F32)
    if rng.integers(0, 4) == 0:
        x[..., :] = np.abs(x)  # all positive rows: the zero point sits at an end of the range
    assert_close(run(Interpreter, m, [x])[0], litert_default(m, [x])[0])


def test_hybrid_fully_connected_zero_row():
    w = np.arange(-6, 6, dtype=I8).reshape(3, 4)
    m = op_model("FULLY_CONNECTED", [Input((2, 4), F32), Const(w, Quant([0.1], 0)), np.ones(3, F32)],
                 [((2, 3), F32)], {}, version=12)
    x = np.array([[0, 0, 0, 0], [1, -2, 3, 0.5]], F32)
    got = run(Interpreter, m, [x])[0]
    np.testing.assert_array_equal(got[0], np.ones(3, F32))
    assert_close(got, litert_default(m, [x])[0])


@pytest.mark.parametrize("quant, message", [
    (Quant([0.1, 0.2], [0, 0]), "2 scales, expected 1 or 3"),
    (Quant([0.1], [3]), "zero point 0 is 3"),
    (Quant([float("nan")], [0]), "scale 0 is nan"),
])
def test_malformed_hybrid_weights_are_a_clear_error(quant, message):
    m = op_model("FULLY_CONNECTED", [Input((1, 4), F32), Const(np.ones((3, 4), I8), quant), None],
                 [((1, 3), F32)], {}, version=12)
    with pytest.raises(InterpreterError, match=f"FULLY_CONNECTED op 0 .*{message}"):
        Interpreter(model_content=m).allocate_tensors()
