"""SUM, MEAN, REDUCE_MAX and REDUCE_MIN of plain int32 and int64 tensors against LiteRT's default Interpreter, bit
for bit: sums that wrap in their type, int32's MEAN summed in 64 bits, means truncated toward zero, empty slices,
any axes, keep_dims either way."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import OPTIONS_TYPES, Input, assert_same_bits_as_litert, op_model

pytest.importorskip("ai_edge_litert")

OPTIONS_TYPES.update({"REDUCE_MAX": "ReducerOptions", "REDUCE_MIN": "ReducerOptions"})
EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPS = ["SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN"]


def reduce_model(op: str, dtype, shape: tuple[int, ...], axes: list[int], keep: bool) -> bytes:
    marked = {a % len(shape) for a in axes}
    out = tuple(1 if d in marked else n for d, n in enumerate(shape) if keep or d not in marked)
    return op_model(op, [Input(shape, dtype), np.array(axes, np.int32)], [(out, dtype)], {"keep_dims": keep})


@EXAMPLES
@given(st.sampled_from(OPS), st.sampled_from([np.int32, np.int64]), st.integers(0, 2**31 - 1),
       st.lists(st.integers(0, 4), min_size=1, max_size=4), st.data(), st.booleans(), st.booleans())
def test_integer_reductions(op, dtype, seed, shape, data, keep, extreme):
    """Values over the whole type (sums that wrap) or small ones (means that truncate)."""
    rank = len(shape)
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique_by=lambda a: a % rank))
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    x = (rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True) if extreme
         else rng.integers(-9, 10, size=shape).astype(dtype))
    assert_same_bits_as_litert(reduce_model(op, dtype, tuple(shape), axes, keep), [x])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_a_mean_of_values_near_the_top_of_the_type(dtype):
    """int32's MEAN sums in 64 bits (no wrap); int64's wraps in its own."""
    top = np.iinfo(dtype).max
    x = np.array([[top, top, 5], [-7, -1, -1]], dtype)
    assert_same_bits_as_litert(reduce_model("MEAN", dtype, (2, 3), [1], False), [x])
