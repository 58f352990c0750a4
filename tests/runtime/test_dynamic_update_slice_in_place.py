"""DYNAMIC_UPDATE_SLICE writing over its operand's block (plan.c, updates_in_place): taken when the op is the
last reader of an intermediate operand, so only the update is written; not taken when the operand (or a view
sharing its block) is read after the op, or when the update lives in that block. Each graph's output equals
numpy's and LiteRT's default Interpreter's bit for bit, and the output shares the operand's memory exactly
when the in-place path applies."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import assert_same_bits_as_litert
from transformer_graphs import OPTIONS, graph_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

OPTIONS.update({"DYNAMIC_UPDATE_SLICE": ("DynamicUpdateSliceOptions", {}), "RESHAPE": ("ReshapeOptions", {})})
SHAPE, UPDATE = (1, 16, 2, 8), (1, 1, 2, 8)


def reference(a, b, u, starts):
    x = a + b
    y = x.copy()
    y[tuple(slice(s, s + n) for s, n in zip(starts, UPDATE))] = u
    return x, y


def build(ops, output, extra_shapes=None):
    return graph_model({"a": SHAPE, "b": SHAPE, "u": UPDATE},
                       {"starts": np.array([0, 5, 0, 0], np.int32), "starts2": np.array([0, 15, 0, 0], np.int32),
                        "zeros": np.zeros(4, np.int32), "new_shape": np.array(SHAPE, np.int32)},
                       ops, output, {"x": SHAPE, "y": SHAPE, "y2": SHAPE, "v": SHAPE, "out": SHAPE,
                                     **(extra_shapes or {})})


def feeds():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s).astype(np.float32) for s in (SHAPE, SHAPE, UPDATE)]


def shares_memory(content, first, second):
    """Whether rillet placed the two named tensors over the same bytes (after an invoke)."""
    it = Interpreter(model_content=content)
    it.allocate_tensors()
    for d, v in zip(it.get_input_details(), feeds()):
        it.set_tensor(d["index"], v)
    it.invoke()
    index = {d["name"]: d["index"] for d in it.get_tensor_details()}
    return np.shares_memory(it.tensor(index[first])(), it.tensor(index[second])())


def check(content, expected):
    it = Interpreter(model_content=content)
    it.allocate_tensors()
    for d, v in zip(it.get_input_details(), feeds()):
        it.set_tensor(d["index"], v)
    for _ in range(2):  # a second invoke must not see the first's update in its operand
        it.invoke()
        np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), expected)
    assert_same_bits_as_litert(content, feeds())


def test_in_place_when_the_operand_is_not_read_after():
    content = build([("ADD", ["a", "b"], "x", None), ("DYNAMIC_UPDATE_SLICE", ["x", "u", "starts"], "y", None),
                     ("ADD", ["y", "b"], "out", None)], "out")
    a, b, u = feeds()
    check(content, reference(a, b, u, [0, 5, 0, 0])[1] + b)
    assert shares_memory(content, "x", "y")


def test_chained_updates_share_one_block():
    content = build([("ADD", ["a", "b"], "x", None), ("DYNAMIC_UPDATE_SLICE", ["x", "u", "starts"], "y", None),
                     ("DYNAMIC_UPDATE_SLICE", ["y", "u", "starts2"], "y2", None), ("ADD", ["y2", "b"], "out", None)],
                    "out")
    a, b, u = feeds()
    y = reference(a, b, u, [0, 5, 0, 0])[1]
    y[:, 15:16] = u
    check(content, y + b)
    assert shares_memory(content, "x", "y") and shares_memory(content, "y", "y2")  # overlapping lifetimes


def test_not_in_place_when_the_operand_is_read_after():
    content = build([("ADD", ["a", "b"], "x", None), ("DYNAMIC_UPDATE_SLICE", ["x", "u", "starts"], "y", None),
                     ("ADD", ["y", "x"], "out", None)], "out")
    a, b, u = feeds()
    x, y = reference(a, b, u, [0, 5, 0, 0])
    check(content, y + x)
    assert not shares_memory(content, "x", "y")


def test_not_in_place_when_a_view_of_the_operand_is_read_after():
    """v (a RESHAPE of x) shares x's block and is read after the update: writing over x would change v."""
    content = build([("ADD", ["a", "b"], "x", None), ("RESHAPE", ["x", "new_shape"], "v", {"new_shape": list(SHAPE)}),
                     ("DYNAMIC_UPDATE_SLICE", ["x", "u", "starts"], "y", None), ("ADD", ["y", "v"], "out", None)],
                    "out")
    a, b, u = feeds()
    x, y = reference(a, b, u, [0, 5, 0, 0])
    check(content, y + x)
    assert shares_memory(content, "x", "v") and not shares_memory(content, "x", "y")


def test_not_in_place_when_the_update_is_the_operand():
    content = build([("ADD", ["a", "b"], "x", None), ("DYNAMIC_UPDATE_SLICE", ["x", "x", "zeros"], "y", None),
                     ("ADD", ["y", "b"], "out", None)], "out")
    a, b, _ = feeds()
    check(content, (a + b) + b)
    assert not shares_memory(content, "x", "y")


def test_graph_input_operand_is_never_written():
    """A graph input (a decoder's cache passed in) keeps its block: invoking twice gives the same output."""
    content = build([("DYNAMIC_UPDATE_SLICE", ["a", "u", "starts"], "y", None), ("ADD", ["y", "b"], "out", None)],
                    "out")
    a, b, u = feeds()
    y = a.copy()
    y[:, 5:6] = u
    check(content, y + b)
    assert not shares_memory(content, "a", "y")
