"""The ops transformer files build causal masks and position ids from, against LiteRT's default Interpreter,
bit for bit: GATHER with int32 and int64 indices (out-of-range and negative ones fail in both), LESS over
broadcast ranges, SELECT_V2 with a broadcast condition or a scalar branch (float32, int32, int8), CUMSUM's
four modes on each axis."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, Const, Input, Quant, assert_same_bits_as_litert, op_model, run

pytest.importorskip("ai_edge_litert")

OPTIONS_TYPES.setdefault("CUMSUM", "CumsumOptions")
OPTIONS_TYPES.setdefault("SELECT_V2", "SelectV2Options")
OPTIONS_TYPES.setdefault("LESS", "LessOptions")
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("axis, indices", [(0, [1, 4, 0]), (1, [3, 0, 3]), (0, [[1, 2], [3, 4]])])
def test_gather_indices(index_dtype, axis, indices):
    ind = np.array(indices, index_dtype)
    model = op_model("GATHER", [Input((5, 4), np.float32), Input(ind.shape, index_dtype)], [((1,), np.float32)],
                     {"axis": axis})
    assert_same_bits_as_litert(model, [RNG.standard_normal((5, 4)).astype(np.float32), ind])


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("bad", [-1, 5])
def test_gather_index_outside_fails_in_both(index_dtype, bad):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    model = op_model("GATHER", [Input((5, 4), np.float32), Input((3,), index_dtype)], [((1,), np.float32)], {"axis": 0})
    feeds = [np.zeros((5, 4), np.float32), np.array([0, bad, 1], index_dtype)]
    for runtime in (LiteRT, Interpreter):
        with pytest.raises(RuntimeError):
            run(runtime, model, feeds)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
@pytest.mark.parametrize("a_shape, b_shape", [((6, 1), (1, 6)), ((1, 1, 6, 1), (6,))])
def test_less_over_broadcast_ranges(dtype, a_shape, b_shape):
    model = op_model("LESS", [Input(a_shape, dtype), Input(b_shape, dtype)], [((1,), np.bool_)], {})
    assert_same_bits_as_litert(model, [np.arange(6).astype(dtype).reshape(a_shape),
                                       np.arange(6).astype(dtype).reshape(b_shape)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
@pytest.mark.parametrize("cond_shape", [(6, 6), (1, 1, 6, 6), (6, 1), (1, 6), "scalar branch"])
def test_select_v2_causal_mask(dtype, cond_shape):
    q = Quant(0.1, 3) if dtype == np.int8 else None
    scores = (RNG.standard_normal((2, 1, 6, 6)) * 10).astype(dtype)
    fill = Const(np.array(-100, dtype), q) if q else np.array(-100, dtype)
    mask = np.tril(np.ones((6, 6), bool))
    out = ((2, 1, 6, 6), dtype, q) if q else ((2, 1, 6, 6), dtype)
    if cond_shape == "scalar branch":
        model = op_model("SELECT_V2", [Input((6, 6), np.bool_), fill, Input(scores.shape, dtype, q)], [out], {})
        cond = mask
    else:
        model = op_model("SELECT_V2", [Input(cond_shape, np.bool_), Input(scores.shape, dtype, q), fill], [out], {})
        cond = np.ascontiguousarray(np.broadcast_to(mask[:, :1] if cond_shape == (6, 1) else mask[:1] if cond_shape == (1, 6)
                                                    else mask, (6, 6))[: cond_shape[-2], : cond_shape[-1]].reshape(cond_shape))
    assert_same_bits_as_litert(model, [cond, scores])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("exclusive, reverse", [(False, False), (True, False), (False, True), (True, True)])
def test_cumsum(dtype, axis, exclusive, reverse):
    model = op_model("CUMSUM", [Input((6, 6), dtype), np.array(axis, np.int32)], [((6, 6), dtype)],
                     {"exclusive": exclusive, "reverse": reverse})
    assert_same_bits_as_litert(model, [RNG.integers(-5, 9, (6, 6)).astype(dtype)])


# SELECT_V2 merges the axes all three operands step through alike and runs rows of the last one: a row chosen
# whole (condition broadcast along it), chosen element by element, a filled branch, axes that cannot merge,
# one element; every element size (1, 2, 4, 8 bytes).
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.int64])
@pytest.mark.parametrize("cond_shape, x_shape, y_shape", [
    ((1, 1, 5, 1), (1, 1, 5, 7), ()),      # a causal mask's rows: each one memcpy or one fill
    ((1, 1, 5, 1), (), (2, 3, 5, 7)),      # the fill is x; y broadcast over nothing
    ((5, 7), (3, 1, 7), (3, 5, 7)),        # per element; x broadcast over the middle axis
    ((3, 1, 1), (3, 4, 5), (1, 4, 5)),     # the condition per outer index; y broadcast over it
    ((2, 1, 4, 1), (1, 3, 1, 6), (2, 3, 4, 6)),  # no two neighbouring axes merge
    ((1, 1), (1,), (1, 1, 1)),             # one element
])
def test_select_v2_merged_axes(dtype, cond_shape, x_shape, y_shape):
    out_shape = np.broadcast_shapes(cond_shape, x_shape, y_shape)
    model = op_model("SELECT_V2", [Input(cond_shape, np.bool_), Input(x_shape, dtype), Input(y_shape, dtype)],
                     [(out_shape, dtype)], {})
    cond = RNG.integers(0, 2, cond_shape).astype(np.bool_)
    x, y = (RNG.integers(0, 100, s).astype(dtype) for s in (x_shape, y_shape))
    assert_same_bits_as_litert(model, [cond, x, y + 100])
    from rillet.runtime import Interpreter

    assert np.array_equal(run(Interpreter, model, [cond, x, y + 100])[0], np.where(cond, x, y + 100))
