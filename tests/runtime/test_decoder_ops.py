"""The decoder ops of litert-torch's GPT-2 with a KV cache (issue 28), against LiteRT's default Interpreter: REDUCE_ALL
over bools (the causal mask's check) and DYNAMIC_UPDATE_SLICE (the cache written at the current position), both
bit for bit. DYNAMIC_UPDATE_SLICE's starts are graph inputs read at invoke, clamped so the update fits."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import OPTIONS_TYPES, Const, Input, Quant, assert_same_bits_as_litert, op_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, I8, I32, I64 = np.float32, np.int8, np.int32, np.int64
OPTIONS_TYPES.update({"REDUCE_ALL": "ReducerOptions", "DYNAMIC_UPDATE_SLICE": "DynamicUpdateSliceOptions"})


def values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("shape, axes", [((3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]), ((5,), [0]),
                                         ((1, 1, 8, 8), [0, 1, 2, 3]), ((2, 3, 4), [1, -1])])
@pytest.mark.parametrize("density", [0.5, 0.95, 1.0])
def test_reduce_all(keep_dims, shape, axes, density):
    rng = np.random.default_rng(len(shape) * 10 + len(axes))
    x = rng.random(shape) < density
    reduced = {a % len(shape) for a in axes}
    out = tuple(1 if i in reduced else d for i, d in enumerate(shape) if keep_dims or i not in reduced)
    model = op_model("REDUCE_ALL", [Input(shape, np.bool_), np.array(axes, I32)], [(out, np.bool_)],
                     {"keep_dims": keep_dims})
    assert_same_bits_as_litert(model, [x])


def test_reduce_all_is_not_reduce_any():
    """One false among trues: ALL is false where ANY would be true (a kernel taking the wrong identity fails)."""
    x = np.ones((2, 6), np.bool_)
    x[1, 3] = False
    model = op_model("REDUCE_ALL", [Input(x.shape, np.bool_), np.array([1], I32)], [((2,), np.bool_)],
                     {"keep_dims": False})
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), [True, False])
    assert_same_bits_as_litert(model, [x])


UPDATE_CASES = [
    ((8,), (3,), [2]), ((8,), (3,), [7]), ((8,), (3,), [-4]), ((8,), (8,), [1]), ((8,), (0,), [3]),
    ((4, 5), (2, 3), [1, 1]), ((4, 5), (2, 3), [3, 9]), ((4, 5), (4, 1), [0, 4]), ((4, 5), (1, 5), [-1, 0]),
    ((2, 3, 4), (1, 2, 4), [1, 1, 0]), ((2, 3, 4), (2, 3, 2), [5, -7, 3]),
    ((1, 16, 2, 8), (1, 1, 2, 8), [0, 5, 0, 0]), ((1, 16, 2, 8), (1, 4, 2, 8), [0, 14, 0, 0]),
    ((1, 2, 3, 2, 3), (1, 1, 2, 2, 2), [0, 1, 1, 0, 1]),
]


@pytest.mark.parametrize("dtype", [F32, I8, I32, I64, np.bool_])
@pytest.mark.parametrize("index_dtype", [I32, I64])
@pytest.mark.parametrize("shape, update_shape, starts", UPDATE_CASES)
def test_dynamic_update_slice(dtype, index_dtype, shape, update_shape, starts):
    rng = np.random.default_rng(len(shape) * 100 + sum(update_shape))
    x, update = values(rng, shape, dtype), values(rng, update_shape, dtype)
    q = Quant(0.25, -3) if dtype == I8 else None
    model = op_model("DYNAMIC_UPDATE_SLICE",
                     [Input(shape, dtype, q), Input(update_shape, dtype, q), Input((len(shape),), index_dtype)],
                     [(shape, dtype, q)] if q else [(shape, dtype)])
    assert_same_bits_as_litert(model, [x, update, np.array(starts, index_dtype)])


def test_dynamic_update_slice_clamps_starts_at_each_invoke():
    """The starts change between invokes on one interpreter (a decoder's position): each run clamps its own."""
    shape, update_shape = (1, 6, 2), (1, 2, 2)
    model = op_model("DYNAMIC_UPDATE_SLICE", [Input(shape, F32), Input(update_shape, F32), Input((3,), I32)],
                     [(shape, F32)])
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    x = np.zeros(shape, F32)
    update = np.arange(4, dtype=F32).reshape(update_shape) + 1
    ins = [d["index"] for d in it.get_input_details()]
    for position, first_row in ((0, 0), (3, 3), (5, 4), (-2, 0), (100, 4)):
        for index, value in zip(ins, (x, update, np.array([0, position, 0], I32))):
            it.set_tensor(index, value)
        it.invoke()
        expected = x.copy()
        expected[:, first_row:first_row + 2] = update
        np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), expected)
        assert_same_bits_as_litert(model, [x, update, np.array([0, position, 0], I32)])


def test_dynamic_update_slice_constant_operand():
    """A constant operand (folded or not): the output is a copy with the update written, the constant kept."""
    base = np.arange(12, dtype=F32).reshape(3, 4)
    model = op_model("DYNAMIC_UPDATE_SLICE", [Const(base), Input((1, 2), F32), Input((2,), I64)], [((3, 4), F32)])
    for starts in ([1, 1], [2, 3]):
        assert_same_bits_as_litert(model, [np.full((1, 2), -1, F32), np.array(starts, I64)])


@pytest.mark.parametrize("update_shape, indices_shape, message", [
    ((2, 5), (2,), "larger than the operand"), ((2,), (1,), "rank"), ((1, 2), (3,), "vector of 2")])
def test_dynamic_update_slice_refuses_mismatched_shapes(update_shape, indices_shape, message):
    model = op_model("DYNAMIC_UPDATE_SLICE", [Input((3, 4), F32), Input(update_shape, F32), Input(indices_shape, I32)],
                     [((3, 4), F32)])
    with pytest.raises(Exception, match=message):
        Interpreter(model_content=model).allocate_tensors()
