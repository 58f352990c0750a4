"""The float32 builtins real models were refused for (issue 11's list: PRELU, MAXIMUM, MINIMUM, the
comparisons, SIN) and their near neighbours, against LiteRT: values within 1e-5, booleans equal;
broadcasting as numpy's."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import (
    OPTIONS_TYPES,
    Const,
    Input,
    Quant,
    assert_close_to_litert,
    assert_same_bits_as_litert,
    op_model,
)

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


# ---- data movement: DEPTH_TO_SPACE, SPACE_TO_DEPTH, SPLIT, SPLIT_V (any dtype; int8 keeps its quantization) ----

OPTIONS_TYPES.update({"DEPTH_TO_SPACE": "DepthToSpaceOptions", "SPACE_TO_DEPTH": "SpaceToDepthOptions",
                      "SPLIT": "SplitOptions", "SPLIT_V": "SplitVOptions"})


def feed(rng, shape, int8):
    if int8:
        return rng.integers(-128, 128, shape).astype(np.int8)
    return rng.standard_normal(shape).astype(F32)


@pytest.mark.parametrize("int8", [False, True])
@pytest.mark.parametrize("op, shape, block", [("DEPTH_TO_SPACE", (2, 3, 4, 8), 2), ("DEPTH_TO_SPACE", (1, 2, 2, 27), 3),
                                              ("SPACE_TO_DEPTH", (2, 4, 6, 3), 2), ("SPACE_TO_DEPTH", (1, 3, 3, 5), 3)])
def test_depth_space(op, shape, block, int8):
    rng = np.random.default_rng(4)
    n, h, w, c = shape
    out = (n, h * block, w * block, c // block**2) if op == "DEPTH_TO_SPACE" else (n, h // block, w // block,
                                                                                    c * block**2)
    dtype, q = (np.int8, Quant(0.05, 3)) if int8 else (F32, None)
    model = op_model(op, [Input(shape, dtype, q)], [(out, dtype, q)] if q else [(out, dtype)], {"block_size": block})
    assert_same_bits_as_litert(model, [feed(rng, shape, int8)])


@pytest.mark.parametrize("int8", [False, True])
@pytest.mark.parametrize("shape, axis, parts", [((6, 4), 0, 3), ((2, 9, 3), 1, 3), ((2, 3, 8), -1, 4), ((5,), 0, 1)])
def test_split(shape, axis, parts, int8):
    rng = np.random.default_rng(5)
    dtype, q = (np.int8, Quant(0.1, -2)) if int8 else (F32, None)
    part = list(shape)
    part[axis] //= parts
    outs = [(tuple(part), dtype, q) if q else (tuple(part), dtype) for _ in range(parts)]
    model = op_model("SPLIT", [np.array(axis, np.int32), Input(shape, dtype, q)], outs, {"num_splits": parts})
    assert_same_bits_as_litert(model, [feed(rng, shape, int8)])


@pytest.mark.parametrize("sizes", [[2, 3, 1], [1, -1, 2], [6], [0, 6]])
def test_split_v(sizes):
    rng = np.random.default_rng(6)
    shape, axis = (2, 6, 3), 1
    resolved = [s if s >= 0 else 6 - sum(v for v in sizes if v >= 0) for s in sizes]
    outs = [((2, s, 3), F32) for s in resolved]
    model = op_model("SPLIT_V", [Input(shape), np.array(sizes, np.int32), np.array(axis, np.int32)], outs,
                     {"num_splits": len(sizes)})
    assert_same_bits_as_litert(model, [feed(rng, shape, False)])


OPTIONS_TYPES.update({"REDUCE_MAX": "ReducerOptions", "REDUCE_MIN": "ReducerOptions"})


@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
@pytest.mark.parametrize("int8", [False, True])
@pytest.mark.parametrize("axes, keep", [([1, 2], False), ([1, 2], True), ([-1], False), ([0, 3], True), ([3], False)])
def test_reduce_max_min(op, int8, axes, keep):
    rng = np.random.default_rng(7)
    shape = (2, 3, 4, 5)
    dtype, q = (np.int8, Quant(0.02, -5)) if int8 else (F32, None)
    out = [d if i not in [a % 4 for a in axes] else 1 for i, d in enumerate(shape)]
    if not keep:
        out = [d for i, d in enumerate(shape) if i not in [a % 4 for a in axes]]
    model = op_model(op, [Input(shape, dtype, q), np.array(axes, np.int32)],
                     [(tuple(out), dtype, q) if q else (tuple(out), dtype)], {"keep_dims": keep})
    assert_same_bits_as_litert(model, [feed(rng, shape, int8)])


@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("shapes", SHAPES)
def test_int8_maximum_minimum(op, shapes):
    rng = np.random.default_rng(8)
    q = Quant(0.03, 7)
    a, b = feed(rng, shapes[0], True), feed(rng, shapes[1], True)
    out = np.broadcast_shapes(a.shape, b.shape)
    model = op_model(op, [Input(a.shape, np.int8, q), Input(b.shape, np.int8, q)], [(out, np.int8, q)])
    assert_same_bits_as_litert(model, [a, b])


@pytest.mark.parametrize("int8", [False, True])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((2, 1), (1, 3), (2, 3)), ((3,), (2, 3), ()),
                                    ((1, 4, 1), (2, 1, 5), (2, 4, 5))])
def test_select_v2(shapes, int8):
    rng = np.random.default_rng(9)
    cs, xs, ys = shapes
    dtype, q = (np.int8, Quant(0.1, 1)) if int8 else (F32, None)
    cond = rng.integers(0, 2, cs).astype(np.bool_)
    x, y = feed(rng, xs, int8), feed(rng, ys, int8)
    out = np.broadcast_shapes(cs, xs, ys)
    model = op_model("SELECT_V2", [Input(cs, np.bool_), Input(xs, dtype, q), Input(ys, dtype, q)],
                     [(out, dtype, q) if q else (out, dtype)])
    assert_same_bits_as_litert(model, [cond, x, y])


def test_select_same_shapes():
    rng = np.random.default_rng(10)
    cond = rng.integers(0, 2, (3, 4)).astype(np.bool_)
    x, y = feed(rng, (3, 4), False), feed(rng, (3, 4), False)
    model = op_model("SELECT", [Input((3, 4), np.bool_), Input((3, 4)), Input((3, 4))], [((3, 4), F32)])
    assert_same_bits_as_litert(model, [cond, x, y])


def test_int8_movement_refuses_an_output_quantized_unlike_its_input():
    from rillet.runtime import Interpreter, InterpreterError

    model = op_model("DEPTH_TO_SPACE", [Input((1, 2, 2, 4), np.int8, Quant(0.05, 3))],
                     [((1, 4, 4, 1), np.int8, Quant(0.1, 3))], {"block_size": 2})
    with pytest.raises(InterpreterError, match="int8 output is quantized unlike the input .scale 0.1 zero point 3"):
        Interpreter(model_content=model).allocate_tensors()


@pytest.mark.parametrize("op", ["SIN", "COS"])
def test_sin_and_cos_on_every_path_within_a_few_ulp(op, monkeypatch):
    """The x86 SIMD paths compute SIN and COS eight at a time (f32_unary__avx2.c) where |x| <= 8192, libm beyond
    and for the last 1-7 values; the scalar path is libm's. Every path is within 4 ulp of the exact value, over a
    rotary embedding's angles, a wide range, the points at and next to multiples of pi/2 and the specials (signed
    zeros keep their sign, inf and NaN give NaN), and the angles close to LiteRT."""
    from test_kernel_paths import PATHS, rillet_outputs

    rng = np.random.default_rng(4)
    near = np.arange(-40, 41) * (np.pi / 2)
    x = np.concatenate([
        rng.uniform(-64, 64, 3000), rng.uniform(-8192, 8192, 3000), rng.uniform(-1e5, 1e5, 50),
        near, np.nextafter(near.astype(F32), np.inf), np.nextafter(near.astype(F32), -np.inf),
        [0.0, -0.0, 1e-30, -1e-30, 8192.0, -8192.0, 8192.001, np.inf, -np.inf, np.nan],
    ]).astype(F32)
    with np.errstate(invalid="ignore"):  # inf
        exact = (np.sin if op == "SIN" else np.cos)(x.astype(np.float64))
    finite = np.isfinite(x)
    tolerance = np.maximum(4 * np.spacing(np.abs(exact[finite]).astype(F32)).astype(np.float64), 2.0 ** -40)
    model = op_model(op, [Input(x.shape)], [(x.shape, F32)])
    for isa in PATHS:
        (got,) = rillet_outputs(model, [x], isa, 1, monkeypatch)
        error = np.abs(got[finite].astype(np.float64) - exact[finite])
        worst = int(np.argmax(error - tolerance))
        assert np.all(error <= tolerance), (isa, float(x[finite][worst]), float(got[finite][worst]), exact[finite][worst])
        assert np.all(np.isnan(got[~finite])), isa
        if op == "SIN":
            assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist(), isa
    monkeypatch.delenv("RILLET_ISA")
    angles = x[:3000]
    assert_close_to_litert(op_model(op, [Input(angles.shape)], [(angles.shape, F32)]), [angles])
