"""Numpy views of the interpreter's memory cannot dangle: a view keeps its plan alive, and reallocation while
one is held is refused with LiteRT's error instead of leaving it pointing into freed memory."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from support import golden, model_path


def _interpreter():
    from rillet.runtime import Interpreter

    it = Interpreter(model_path=str(model_path("mlp_f32")))
    it.allocate_tensors()
    return it


def test_a_view_outlives_its_interpreter():
    it = _interpreter()
    index = it.get_input_details()[0]["index"]
    x = golden("mlp_f32")["x"]
    it.set_tensor(index, x)
    it.invoke()
    out = it.tensor(it.get_output_details()[0]["index"])()
    expected = out.copy()
    del it
    gc.collect()
    np.testing.assert_array_equal(out, expected)  # the view keeps the plan and its arena alive
    out[...] = 0  # and writing to it is safe


def test_reallocating_while_a_view_is_held_is_refused():
    it = _interpreter()
    index = it.get_input_details()[0]["index"]
    view = it.tensor(index)()
    it.resize_tensor_input(index, [4, view.shape[1]])
    with pytest.raises(RuntimeError, match="at least 1 reference to internal data"):
        it.allocate_tensors()
    view[...] = 1  # the old arena is still whole: the refused allocate freed nothing
    del view
    it.allocate_tensors()  # with the view gone, it goes ahead
    assert list(it.get_input_details()[0]["shape"]) == [4, 64]
    x = np.repeat(golden("mlp_f32")["x"], 4, axis=0)
    it.set_tensor(index, x)
    it.invoke()
    y = it.get_tensor(it.get_output_details()[0]["index"])
    np.testing.assert_allclose(y, np.repeat(golden("mlp_f32")["y"], 4, axis=0), rtol=1e-5, atol=1e-6)


def test_holding_the_function_not_the_array_is_fine():
    it = _interpreter()
    index = it.get_input_details()[0]["index"]
    get = it.tensor(index)
    it.resize_tensor_input(index, [2, 64])
    it.allocate_tensors()
    assert get().shape == (2, 64)


def test_constant_views_do_not_block_reallocation():
    it = _interpreter()
    weights = next(d["index"] for d in it.get_tensor_details() if len(d["shape"]) == 2
                   and d["index"] not in (it.get_input_details()[0]["index"],))
    held = it.tensor(weights)()
    assert not held.flags.writeable
    it.allocate_tensors()
