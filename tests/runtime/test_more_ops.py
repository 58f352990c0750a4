"""The float32 builtins real models were refused for (issue 11's list: PRELU, MAXIMUM, MINIMUM, the
comparisons, SIN) and their near neighbours, against LiteRT: values within 1e-5, booleans equal;
broadcasting as numpy's."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, assert_close_to_litert, op_model

pytest.importorskip("ai_edge_litert")

F32 = np.float32
SHAPES = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((1, 5, 5, 3), (1, 1, 1, 3)), ((3, 1), (1, 4)), ((4,), ())]


def values(rng, shape):
    x = rng.standard_normal(shape).astype(F32)
    if x.size > 2:
        x.flat[0] = 0.0  # ties and zeros are where max/min, >=, PRELU's sign test differ
    return x


@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL",
                                "NOT_EQUAL"])
@pytest.mark.parametrize("shapes", SHAPES)
def test_binary_float_ops(op, shapes):
    rng = np.random.default_rng(0)
    a, b = values(rng, shapes[0]), values(rng, shapes[1])
    if b.size and a.size:
        b.flat[0] = a.flat[0]  # an equal pair
    out_shape = np.broadcast_shapes(a.shape, b.shape)
    out_dtype = np.float32 if op in ("MAXIMUM", "MINIMUM") else np.bool_
    model = op_model(op, [Input(a.shape), Input(b.shape)], [(out_shape, out_dtype)])
    assert_close_to_litert(model, [a, b])


@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
def test_int32_maximum_minimum(op):
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, (3, 4)).astype(np.int32)
    b = rng.integers(-5, 5, (4,)).astype(np.int32)
    model = op_model(op, [Input(a.shape, np.int32), Input(b.shape, np.int32)], [((3, 4), np.int32)])
    assert_close_to_litert(model, [a, b])


@pytest.mark.parametrize("alpha_shape", [(3,), (1, 1, 3), (4, 4, 3), ()])
def test_prelu(alpha_shape):
    rng = np.random.default_rng(2)
    x = values(rng, (2, 4, 4, 3))
    alpha = rng.uniform(0.05, 0.5, alpha_shape).astype(F32)
    model = op_model("PRELU", [Input(x.shape), Const(alpha)], [(x.shape, F32)])
    assert_close_to_litert(model, [x])


@pytest.mark.parametrize("op", ["SIN", "COS", "ABS", "SQRT", "SQUARE"])
def test_unary_float_ops(op):
    rng = np.random.default_rng(3)
    x = rng.uniform(-6, 6, (3, 7)).astype(F32)
    if op == "SQRT":
        x = np.abs(x)
    model = op_model(op, [Input(x.shape)], [(x.shape, F32)])
    assert_close_to_litert(model, [x])
