"""int8 L2_NORMALIZATION and REDUCE_PROD against LiteRT's default Interpreter (its builtin kernels: XNNPACK takes
neither in int8), bit for bit, and the quantizations LiteRT refuses refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import OPTIONS_TYPES, Input, Quant, assert_same_bits_as_litert, op_model

pytest.importorskip("ai_edge_litert")

OPTIONS_TYPES.update({"L2_NORMALIZATION": "L2NormOptions", "REDUCE_PROD": "ReducerOptions"})
EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I8, I32 = np.int8, np.int32
L2_OUT = Quant(1 / 128, 0)  # the only output quantization LiteRT's int8 kernel takes
seeds = st.integers(0, 2**31 - 1)
zero_points = st.integers(-128, 127)


def log_uniform(low: float, high: float):
    return st.floats(np.log(low), np.log(high)).map(lambda v: float(np.float32(np.exp(v))))


def l2_model(shape, q, q_out=L2_OUT, activation=0) -> bytes:
    return op_model("L2_NORMALIZATION", [Input(shape, I8, q)], [(shape, I8, q_out)],
                    {"fused_activation_function": activation})


@EXAMPLES
@given(seeds, st.lists(st.integers(1, 6), min_size=1, max_size=3), st.integers(1, 70), log_uniform(1e-3, 10.0),
       zero_points, st.integers(1, 128))
def test_l2_normalization(seed, outer, depth, scale, zp, spread):
    """Rows of small and large norms (spread: how far the values stray from the zero point)."""
    shape = (*outer, depth)
    rng = np.random.default_rng(seed)
    x = np.clip(zp + rng.integers(-spread, spread + 1, size=shape), -128, 127).astype(I8)
    assert_same_bits_as_litert(l2_model(shape, Quant(scale, zp)), [x])


@pytest.mark.parametrize("rows", [
    [0, 0, 0, 0],              # all at the zero point: a zero norm, taken as 1
    [1, 0, 0, 0],              # a sum of squares of 1
    [0, 0, 2, 0],
    [-128, 127, -128, 127],    # the largest norm one row of four can have
    [3, -4, 0, 0],             # an exact 5
])
@pytest.mark.parametrize("zp", [0, -128, 5])
def test_l2_normalization_edges(rows, zp):
    x = np.clip(np.array(rows) + zp, -128, 127).astype(I8).reshape(1, 4)
    assert_same_bits_as_litert(l2_model((1, 4), Quant(0.05, zp)), [x])


def test_l2_normalization_of_every_single_value():
    """Depth 1: every int8 value is its own row, so every sum of squares up to 255^2 is met."""
    x = np.arange(-128, 128).astype(I8).reshape(256, 1)
    assert_same_bits_as_litert(l2_model((256, 1), Quant(0.1, -3)), [x])


def test_l2_normalization_of_a_long_row():
    """A long row: the sum of squares goes past 2^29, where TFLite's inverse square root divides it down."""
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, size=(3, 20000)).astype(I8)
    assert_same_bits_as_litert(l2_model((3, 20000), Quant(0.02, 1)), [x])


def prod_model(shape, axes, keep_dims, q_in, q_out) -> bytes:
    reduced = {a % len(shape) for a in axes}
    out = tuple(1 if i in reduced else d for i, d in enumerate(shape) if keep_dims or i not in reduced)
    return op_model("REDUCE_PROD", [Input(shape, I8, q_in), np.array(axes, I32)], [(out, I8, q_out)],
                    {"keep_dims": keep_dims})


shapes_and_axes = st.sampled_from([((3, 4), [1]), ((3, 4), [0]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]),
                                   ((5,), [0]), ((2, 3, 2, 3), [1, 3]), ((2, 3, 2, 3), [0, 1, 2, 3]),
                                   ((4, 1, 3), [1]), ((2, 6), [1, -1])])


@EXAMPLES
@given(seeds, shapes_and_axes, st.booleans(), log_uniform(0.01, 1.0), zero_points, log_uniform(1e-3, 10.0),
       zero_points, st.integers(1, 128))
def test_reduce_prod(seed, shape_axes, keep_dims, in_scale, in_zp, out_scale, out_zp, spread):
    shape, axes = shape_axes
    rng = np.random.default_rng(seed)
    x = np.clip(in_zp + rng.integers(-spread, spread + 1, size=shape), -128, 127).astype(I8)
    model = prod_model(shape, axes, keep_dims, Quant(in_scale, in_zp), Quant(out_scale, out_zp))
    assert_same_bits_as_litert(model, [x])


def test_reduce_prod_of_values_near_one():
    """Values about 1 in real terms, so long products stay in range and every rescaling step shows."""
    rng = np.random.default_rng(5)
    x = rng.integers(90, 128, size=(4, 12)).astype(I8)
    model = prod_model((4, 12), [1], False, Quant(1 / 110, 0), Quant(1 / 100, -20))
    assert_same_bits_as_litert(model, [x])


@pytest.mark.parametrize("shape, axes, in_scale, out_scale", [
    ((4, 1, 3), [1], 1.0, 1 / 148),  # a product of one value: copied, whatever the step (hypothesis found it)
    ((3, 2), [1], 1.0, 1 / 148**2), ((3, 2), [1], 0.5, 1e-5), ((5, 3), [1], 0.9, 1e-7),
    ((3, 2), [1], 1.0, 1e-8),  # a step of 10^4: shift 14, the last TFLite's rescale defines
])
def test_reduce_prod_steps_past_2_to_the_7(shape, axes, in_scale, out_scale):
    """Per-step rescales of 2^7 to 2^14: TFLite's comment asks for less, but only a debug check does, and LiteRT
    runs them; a product of one value never rescales."""
    rng = np.random.default_rng(len(shape))
    for zero_point in (0, 5):
        x = rng.integers(-128, 128, shape).astype(I8)
        model = prod_model(shape, axes, False, Quant(in_scale, zero_point), Quant(out_scale, -3))
        assert_same_bits_as_litert(model, [x])
        small = np.clip(zero_point + rng.integers(-1, 2, shape), -128, 127).astype(I8)  # products of -1, 0, 1
        assert_same_bits_as_litert(model, [small])


@pytest.mark.parametrize("make, message", [
    (lambda: l2_model((2, 4), Quant(0.1, 0), Quant(1 / 64, 0)), "not 1/128 and 0"),
    (lambda: l2_model((2, 4), Quant(0.1, 0), Quant(1 / 128, 3)), "not 1/128 and 0"),
    (lambda: l2_model((2, 4), Quant(0.1, 0), activation=1), "fused activation 1"),
    (lambda: prod_model((2, 0), [1], False, Quant(0.1, 0), Quant(0.1, 0)), "empty int8 product"),
    (lambda: prod_model((2, 3), [1], False, Quant(100.0, 0), Quant(1e-9, 0)), "2\\^14 or more"),
])
def test_refused_by_name(make, message):
    from rillet.runtime import Interpreter

    with pytest.raises(Exception, match=message):
        it = Interpreter(model_content=make())
        it.allocate_tensors()
