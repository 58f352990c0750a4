"""Issue 11's widened builtins, each against LiteRT's default Interpreter (what a user runs: XNNPACK where
it takes the op, else TFLite's builtin kernels): float within 1e-5, integers and bools equal, int8 bit for
bit. Shapes cover broadcasting, negative axes, ties and empty edges where the op has them."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import (
    OPTIONS_TYPES,
    TYPE_CODES,
    Const,
    Input,
    Quant,
    assert_close_to_litert,
    assert_same_bits_as_litert,
    op_model,
)

pytest.importorskip("ai_edge_litert")

F32, I32, I64 = np.float32, np.int32, np.int64
OPTIONS_TYPES.update({
    "UNPACK": "UnpackOptions", "TILE": "TileOptions", "BROADCAST_TO": "BroadcastToOptions",
    "GATHER_ND": "GatherNdOptions", "ARG_MAX": "ArgMaxOptions", "ARG_MIN": "ArgMinOptions",
    "REDUCE_PROD": "ReducerOptions", "REDUCE_ANY": "ReducerOptions", "LOGICAL_AND": "LogicalAndOptions",
    "LOGICAL_OR": "LogicalOrOptions", "LOGICAL_NOT": "LogicalNotOptions", "POW": "PowOptions",
    "FLOOR_DIV": "FloorDivOptions", "FLOOR_MOD": "FloorModOptions", "GELU": "GeluOptions",
    "L2_NORMALIZATION": "L2NormOptions", "LOCAL_RESPONSE_NORMALIZATION": "LocalResponseNormalizationOptions",
    "SPACE_TO_BATCH_ND": "SpaceToBatchNDOptions", "BATCH_TO_SPACE_ND": "BatchToSpaceNDOptions",
    "MIRROR_PAD": "MirrorPadOptions", "FILL": "FillOptions", "ZEROS_LIKE": "ZerosLikeOptions",
    "RANGE": "RangeOptions", "CUMSUM": "CumsumOptions", "ONE_HOT": "OneHotOptions", "REVERSE_V2": "ReverseV2Options",
    "RFFT2D": "Rfft2dOptions",
})


def feed(rng, shape, dtype=F32):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100) + 1, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# ---- data movement: UNPACK, TILE, BROADCAST_TO, GATHER_ND, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MIRROR_PAD ----

@pytest.mark.parametrize("dtype", [F32, np.int8, I32, np.bool_])
@pytest.mark.parametrize("shape, axis", [((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((5,), 0)])
def test_unpack(shape, axis, dtype):
    rng = np.random.default_rng(0)
    n = shape[axis]
    part = tuple(d for i, d in enumerate(shape) if i != axis % len(shape))
    model = op_model("UNPACK", [Input(shape, dtype)], [(part, dtype)] * n, {"num": n, "axis": axis})
    assert_same_bits_as_litert(model, [feed(rng, shape, dtype)])


@pytest.mark.parametrize("dtype", [F32, np.int8, I32, np.bool_])
@pytest.mark.parametrize("shape, multiples", [((2, 3), (2, 1)), ((2, 3), (1, 3)), ((1, 2, 3), (3, 2, 2)), ((4,), (3,))])
def test_tile(shape, multiples, dtype):
    rng = np.random.default_rng(1)
    out = tuple(d * m for d, m in zip(shape, multiples))
    model = op_model("TILE", [Input(shape, dtype), np.array(multiples, I32)], [(out, dtype)])
    assert_same_bits_as_litert(model, [feed(rng, shape, dtype)])


@pytest.mark.parametrize("dtype", [F32, np.int8, I32])
@pytest.mark.parametrize("shape, target", [((3,), (2, 3)), ((2, 1), (2, 4)), ((1, 3, 1), (2, 3, 4)), ((), (2, 2))])
def test_broadcast_to(shape, target, dtype):
    rng = np.random.default_rng(2)
    model = op_model("BROADCAST_TO", [Input(shape, dtype), np.array(target, I32)], [(target, dtype)], version=2)
    assert_same_bits_as_litert(model, [feed(rng, shape, dtype)])


@pytest.mark.parametrize("index_dtype", [I32, I64])
@pytest.mark.parametrize("params_shape, indices", [
    ((4, 3), [[1], [3], [0]]), ((4, 3), [[1, 2], [3, 0]]), ((2, 3, 4), [[[1, 2]], [[0, 0]]]), ((5,), [[4], [2]])])
def test_gather_nd(params_shape, indices, index_dtype):
    rng = np.random.default_rng(3)
    idx = np.array(indices, index_dtype)
    out = idx.shape[:-1] + params_shape[idx.shape[-1]:]
    model = op_model("GATHER_ND", [Input(params_shape), Input(idx.shape, index_dtype)], [(out, F32)])
    assert_same_bits_as_litert(model, [feed(rng, params_shape), idx])


def test_gather_nd_refuses_an_index_outside_params():
    from rillet.runtime import Interpreter

    model = op_model("GATHER_ND", [Input((4, 3)), Input((1, 1), I32)], [((1, 3), F32)])
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[1]["index"], np.array([[4]], I32))
    with pytest.raises(RuntimeError, match="outside"):
        it.invoke()


@pytest.mark.parametrize("dtype", [F32, np.int8])
@pytest.mark.parametrize("op, shape, block, pads", [
    ("SPACE_TO_BATCH_ND", (1, 4, 4, 2), (2, 2), [[0, 0], [0, 0]]),
    ("SPACE_TO_BATCH_ND", (2, 3, 5, 1), (2, 3), [[1, 0], [0, 1]]),
    ("SPACE_TO_BATCH_ND", (1, 5, 3), (3,), [[1, 0]]),
    ("BATCH_TO_SPACE_ND", (4, 2, 2, 3), (2, 2), [[0, 0], [0, 0]]),
    ("BATCH_TO_SPACE_ND", (12, 2, 2, 1), (2, 3), [[1, 0], [0, 2]]),
])
def test_space_batch(op, shape, block, pads, dtype):
    rng = np.random.default_rng(4)
    blocks = int(np.prod(block))
    spatial = []
    for d, (b, (lo, hi)) in enumerate(zip(block, pads)):
        n = shape[1 + d]
        spatial.append((n + lo + hi) // b if op == "SPACE_TO_BATCH_ND" else n * b - lo - hi)
    batch = shape[0] * blocks if op == "SPACE_TO_BATCH_ND" else shape[0] // blocks
    out = (batch, *spatial, *shape[1 + len(block):])
    q = Quant(0.1, 7) if dtype == np.int8 else None  # a nonzero zero point: what padding writes
    model = op_model(op, [Input(shape, dtype, q), np.array(block, I32), np.array(pads, I32)],
                     [(out, dtype, q)] if q else [(out, dtype)])
    assert_same_bits_as_litert(model, [feed(rng, shape, dtype)])


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("dtype", [F32, np.int8, I32])
@pytest.mark.parametrize("shape, pads", [((3, 4), [[1, 2], [2, 0]]), ((1, 4, 4, 2), [[0, 0], [2, 1], [1, 2], [0, 0]]),
                                         ((3,), [[2, 2]])])
def test_mirror_pad(shape, pads, mode, dtype):
    rng = np.random.default_rng(5)
    out = tuple(d + lo + hi for d, (lo, hi) in zip(shape, pads))
    q = Quant(0.1, -3) if dtype == np.int8 else None
    model = op_model("MIRROR_PAD", [Input(shape, dtype, q), np.array(pads, I32)],
                     [(out, dtype, q)] if q else [(out, dtype)], {"mode": mode})
    assert_same_bits_as_litert(model, [feed(rng, shape, dtype)])


# ---- ARG_MAX / ARG_MIN, REDUCE_PROD / REDUCE_ANY, CUMSUM ----

@pytest.mark.parametrize("op", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize("dtype", [F32, np.int8, np.uint8, I32])
@pytest.mark.parametrize("out_dtype", [I32, I64])
@pytest.mark.parametrize("shape, axis", [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((7,), 0)])
def test_arg_minmax(op, dtype, out_dtype, shape, axis):
    rng = np.random.default_rng(6)
    x = rng.integers(-3, 4, shape).astype(dtype) if np.dtype(dtype).kind == "i" else feed(rng, shape, dtype)
    if dtype == np.uint8:
        x = rng.integers(0, 4, shape).astype(dtype)  # ties: the first index wins
    out = tuple(d for i, d in enumerate(shape) if i != axis % len(shape))
    q = Quant(0.5, 1) if dtype in (np.int8, np.uint8) else None
    model = op_model(op, [Input(shape, dtype, q), np.array([axis], I32)], [(out, out_dtype)],
                     {"output_type": 2 if out_dtype == I32 else 4})
    assert_same_bits_as_litert(model, [x])


@pytest.mark.parametrize("op, dtype", [("REDUCE_PROD", F32), ("REDUCE_PROD", I32), ("REDUCE_ANY", np.bool_)])
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("shape, axes", [((3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]), ((5,), [0])])
def test_reduce_prod_any(op, dtype, keep_dims, shape, axes):
    rng = np.random.default_rng(7)
    x = feed(rng, shape, dtype)
    if dtype == I32:
        x = rng.integers(-3, 4, shape).astype(I32)
    if dtype == np.bool_:
        x = rng.random(shape) < 0.2
    reduced = {a % len(shape) for a in axes}
    out = tuple(1 if i in reduced else d for i, d in enumerate(shape) if keep_dims or i not in reduced)
    model = op_model(op, [Input(shape, dtype), np.array(axes, I32)], [(out, dtype)], {"keep_dims": keep_dims})
    assert_close_to_litert(model, [x])


@pytest.mark.parametrize("dtype", [F32, I32, I64])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("shape, axis", [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2)])
def test_cumsum(dtype, exclusive, reverse, shape, axis):
    rng = np.random.default_rng(8)
    model = op_model("CUMSUM", [Input(shape, dtype), np.array(axis, I32)], [(shape, dtype)],
                     {"exclusive": exclusive, "reverse": reverse})
    assert_close_to_litert(model, [feed(rng, shape, dtype)])


# ---- element-wise: LOGICAL_*, POW, FLOOR_DIV, FLOOR_MOD, FLOOR, CEIL, ROUND, ELU, GELU, RELU_N1_TO_1 ----

BROADCASTS = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((4,), ())]


@pytest.mark.parametrize("op", ["LOGICAL_AND", "LOGICAL_OR"])
@pytest.mark.parametrize("shapes", BROADCASTS)
def test_logical_binary(op, shapes):
    rng = np.random.default_rng(9)
    out = np.broadcast_shapes(*shapes)
    model = op_model(op, [Input(shapes[0], np.bool_), Input(shapes[1], np.bool_)], [(out, np.bool_)])
    assert_same_bits_as_litert(model, [feed(rng, shapes[0], np.bool_), feed(rng, shapes[1], np.bool_)])


def test_logical_not():
    rng = np.random.default_rng(10)
    model = op_model("LOGICAL_NOT", [Input((3, 5), np.bool_)], [((3, 5), np.bool_)])
    assert_same_bits_as_litert(model, [feed(rng, (3, 5), np.bool_)])


@pytest.mark.parametrize("op", ["POW", "FLOOR_DIV", "FLOOR_MOD"])
@pytest.mark.parametrize("dtype", [F32, I32])
@pytest.mark.parametrize("shapes", BROADCASTS)
def test_binary_math(op, dtype, shapes):
    rng = np.random.default_rng(11)
    if op == "POW":
        a = rng.uniform(0.1, 3, shapes[0]) if dtype == F32 else rng.integers(-4, 5, shapes[0])
        b = rng.uniform(-2, 3, shapes[1]) if dtype == F32 else rng.integers(0, 6, shapes[1])
    else:
        a = rng.uniform(-10, 10, shapes[0]) if dtype == F32 else rng.integers(-20, 21, shapes[0])
        b = rng.uniform(-4, 4, shapes[1]) if dtype == F32 else rng.integers(1, 6, shapes[1]) * rng.choice([-1, 1], shapes[1])
        if dtype == F32:
            b = np.where(np.abs(b) < 0.25, 0.5, b)
    a, b = np.asarray(a, dtype), np.asarray(b, dtype)
    out = np.broadcast_shapes(a.shape, b.shape)
    model = op_model(op, [Input(a.shape, dtype), Input(b.shape, dtype)], [(out, dtype)])
    assert_close_to_litert(model, [a, b])


def test_int32_floor_div_by_zero_is_refused():
    from rillet.runtime import Interpreter

    model = op_model("FLOOR_DIV", [Input((3,), I32), Input((3,), I32)], [((3,), I32)])
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.array([1, 2, 3], I32))
    it.set_tensor(it.get_input_details()[1]["index"], np.array([1, 0, 3], I32))
    with pytest.raises(RuntimeError, match="division by zero"):
        it.invoke()


@pytest.mark.parametrize("op, options", [("FLOOR", None), ("CEIL", None), ("ROUND", None), ("ELU", None),
                                         ("GELU", {"approximate": False}), ("GELU", {"approximate": True}),
                                         ("RELU_N1_TO_1", None)])
def test_unary_math(op, options):
    rng = np.random.default_rng(12)
    x = rng.uniform(-4, 4, (4, 33)).astype(F32)
    x[0, :8] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.0, -0.0]  # ROUND's ties go to even
    model = op_model(op, [Input(x.shape)], [(x.shape, F32)], options)
    assert_close_to_litert(model, [x])


def test_int8_relu_n1_to_1():
    x = np.arange(-128, 128, dtype=np.int8).reshape(4, 64)
    q_in, q_out = Quant(0.02, 5), Quant(1 / 127, 0)
    model = op_model("RELU_N1_TO_1", [Input(x.shape, np.int8, q_in)], [(x.shape, np.int8, q_out)])
    assert_same_bits_as_litert(model, [x])


# ---- L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION ----

@pytest.mark.parametrize("shape", [(2, 5), (1, 3, 3, 8), (4,)])
def test_l2_normalization(shape):
    rng = np.random.default_rng(13)
    x = feed(rng, shape)
    x.reshape(-1, shape[-1])[0] = 0.0  # a zero row: divided by epsilon
    model = op_model("L2_NORMALIZATION", [Input(shape)], [(shape, F32)], {"fused_activation_function": 0})
    assert_close_to_litert(model, [x])


@pytest.mark.parametrize("radius, bias, alpha, beta", [(2, 1.0, 1e-4, 0.75), (5, 2.0, 0.5, 0.5), (1, 1.0, 1.0, 1.0)])
def test_local_response_normalization(radius, bias, alpha, beta):
    rng = np.random.default_rng(14)
    x = feed(rng, (1, 3, 4, 9))
    model = op_model("LOCAL_RESPONSE_NORMALIZATION", [Input(x.shape)], [(x.shape, F32)],
                     {"radius": radius, "bias": bias, "alpha": alpha, "beta": beta})
    assert_close_to_litert(model, [x])


# ---- FILL, ZEROS_LIKE, RANGE, ONE_HOT ----

@pytest.mark.parametrize("dtype", [F32, I32, I64, np.bool_])
def test_fill(dtype):
    value = np.array(3, dtype) if dtype != np.bool_ else np.array(True)
    model = op_model("FILL", [np.array([2, 3, 4], I32), Input((), dtype)], [((2, 3, 4), dtype)])
    assert_same_bits_as_litert(model, [value])


@pytest.mark.parametrize("dtype", [F32, I32, I64])
def test_zeros_like(dtype):
    rng = np.random.default_rng(15)
    model = op_model("ZEROS_LIKE", [Input((3, 4), dtype)], [((3, 4), dtype)])
    assert_same_bits_as_litert(model, [feed(rng, (3, 4), dtype)])


@pytest.mark.parametrize("dtype, start, limit, delta", [(I32, 0, 10, 3), (I32, 5, -4, -2), (I64, 1, 2, 1),
                                                        (F32, 0.5, 3.3, 0.1), (F32, 2.0, -1.0, -0.75)])
def test_range(dtype, start, limit, delta):
    n = int(np.ceil(abs((np.float32(limit) - np.float32(start)) / np.float32(delta)))) if dtype == F32 else \
        (abs(limit - start) + abs(delta) - 1) // abs(delta)
    model = scalar_constants(op_model("RANGE", [np.array(start, dtype), np.array(limit, dtype), np.array(delta, dtype)],
                                      [((n,), dtype)]))
    assert_close_to_litert(model, [])


def scalar_constants(content: bytes) -> bytes:
    """The model with its one-element constants made 0-d (op_model writes them as [1]; RANGE takes scalars)."""
    from rillet.converter.format import load, save

    model = load(content)
    for t in model.subgraphs[0].tensors:
        if t.buffer > 0 and list(t.shape or []) == [1]:
            t.shape = []
    return save(model)


@pytest.mark.parametrize("dtype", [F32, I32, np.int8, np.bool_])
@pytest.mark.parametrize("shape, axis", [((4,), -1), ((2, 3), -1), ((2, 3), 0), ((2, 3), 1)])
def test_one_hot(dtype, shape, axis):
    rng = np.random.default_rng(16)
    depth = 5
    indices = rng.integers(-1, depth + 1, shape).astype(I32)  # -1 and depth are off everywhere
    out = list(shape)
    out.insert(axis if axis >= 0 else len(shape), depth)
    on, off = (np.array(True), np.array(False)) if dtype == np.bool_ else (np.array(3, dtype), np.array(-1, dtype))
    model = op_model("ONE_HOT", [Input(shape, I32), np.array(depth, I32), on, off], [(tuple(out), dtype)],
                     {"axis": axis})
    assert_same_bits_as_litert(model, [indices])


def test_constants_fold():
    """ZEROS_LIKE and RANGE of known inputs run once, at prepare."""
    from rillet.runtime import Interpreter

    model = scalar_constants(op_model("RANGE", [np.array(0, I32), np.array(4, I32), np.array(1, I32)], [((4,), I32)]))
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    it.invoke()
    assert it.get_tensor(it.get_output_details()[0]["index"]).tolist() == [0, 1, 2, 3]
    assert it._plans[0].op_folded(0)


def test_the_option_field_table_is_sorted_by_options_type():
    """tflite_options.c looks a field up in a scan that stops past its options type: rows out of order are
    never found (an IF's subgraph indices read as 0)."""
    import re
    from pathlib import Path

    from rillet.native.build_config import NATIVE_DIR

    source = (Path(NATIVE_DIR) / "src" / "tflite_options.c").read_text()
    block = source[source.index("option-fields-begin"):source.index("option-fields-end")]
    types = [int(t) for t in re.findall(r"\{(\d+), F_\w+, \d+, FB_\w+, -?\d+\}", block)]
    assert types == sorted(types)


# ---- int8 PRELU and comparisons; int32 and int64 comparisons ----

@pytest.mark.parametrize("alpha_shape", [(3,), (1, 1, 3), ()])
@pytest.mark.parametrize("scales", [(0.05, 0.01, 0.04), (0.02, 0.004, 0.1)])
def test_int8_prelu(alpha_shape, scales):
    rng = np.random.default_rng(17)
    x = rng.integers(-128, 128, (2, 4, 4, 3)).astype(np.int8)
    alpha = rng.integers(-20, 100, alpha_shape).astype(np.int8)
    q_x, q_a, q_y = Quant(scales[0], 3), Quant(scales[1], -5), Quant(scales[2], -10)
    model = op_model("PRELU", [Input(x.shape, np.int8, q_x), Const(alpha, q_a)], [(x.shape, np.int8, q_y)])
    assert_same_bits_as_litert(model, [x])


@pytest.mark.parametrize("op", ["GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL"])
@pytest.mark.parametrize("quants", [((0.1, 0), (0.1, 0)), ((0.05, 3), (0.1, -4)), ((0.013, -128), (0.5, 127))])
def test_int8_comparisons(op, quants):
    rng = np.random.default_rng(18)
    a = rng.integers(-128, 128, (3, 4, 5)).astype(np.int8)
    b = rng.integers(-128, 128, (4, 1)).astype(np.int8)
    b[0, 0] = a[0, 0, 0]
    model = op_model(op, [Input(a.shape, np.int8, Quant(*quants[0])), Input(b.shape, np.int8, Quant(*quants[1]))],
                     [((3, 4, 5), np.bool_)])
    assert_same_bits_as_litert(model, [a, b])


@pytest.mark.parametrize("op", ["GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL"])
@pytest.mark.parametrize("dtype", [I32, I64])
def test_integer_comparisons(op, dtype):
    rng = np.random.default_rng(19)
    a, b = rng.integers(-3, 4, (2, 5)).astype(dtype), rng.integers(-3, 4, (5,)).astype(dtype)
    model = op_model(op, [Input(a.shape, dtype), Input(b.shape, dtype)], [((2, 5), np.bool_)])
    assert_same_bits_as_litert(model, [a, b])


# ---- REVERSE_V2 (BirdNET's spectrogram flips its mel bands with it) ----

@pytest.mark.parametrize("dtype", [F32, np.int8, I32])
@pytest.mark.parametrize("shape, axes", [((1, 1, 96), [2]), ((3, 4), [0]), ((2, 3, 4), [-1]), ((5,), [0])])
def test_reverse_v2(dtype, shape, axes):
    rng = np.random.default_rng(20)
    q = Quant(0.1, 2) if dtype == np.int8 else None
    model = op_model("REVERSE_V2", [Input(shape, dtype, q), np.array(axes, I32)],
                     [(shape, dtype, q)] if q else [(shape, dtype)], version=2 if dtype == np.int8 else 1)
    assert_same_bits_as_litert(model, [feed(rng, shape, dtype)])


# ---- RFFT2D and complex64 (BirdNET's spectrogram: RFFT2D, SQUEEZE, CAST to its real part) ----

TYPE_CODES.setdefault(np.dtype(np.complex64), 8)


@pytest.mark.parametrize("shape, fft", [((1, 1, 1, 64), (1, 64)), ((2, 4, 16), (4, 16)), ((3, 8), (8, 8)),
                                        ((1, 5, 12), (4, 16))])  # the last: rows cut, columns zero-padded
def test_rfft2d(shape, fft):
    rng = np.random.default_rng(21)
    out = (*shape[:-2], fft[0], fft[1] // 2 + 1)
    model = op_model("RFFT2D", [Input(shape), np.array(fft, I32)], [(out, np.complex64)])
    x = rng.standard_normal(shape).astype(F32)
    from single_op import litert_default, run

    from rillet.runtime import Interpreter

    expected = litert_default(model, [x])[0]
    got = run(Interpreter, model, [x])[0]
    assert got.dtype == np.complex64 and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_cast_complex64_keeps_the_real_part():
    x = (np.arange(6) + 1j * np.arange(6, 12)).astype(np.complex64).reshape(2, 3)
    model = op_model("CAST", [Input(x.shape, np.complex64)], [(x.shape, F32)])
    assert_same_bits_as_litert(model, [x])
