"""Every kernel against LiteRT's reference kernels, one single-op model per example, shapes by hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from single_op import Input, assert_matches_litert, op_model

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
F32 = np.float32
ANY_SHAPE = [(1,)]  # output shapes in the file are placeholders: both runtimes compute them


def rand(seed: int, shape, low=-2.0, high=2.0, dtype=F32) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


seeds = st.integers(0, 2**31 - 1)
activations = st.sampled_from([0, 1, 2, 3])
paddings = st.sampled_from([0, 1])


@st.composite
def small_shape(draw, min_rank=1, max_rank=4, max_side=5):
    rank = draw(st.integers(min_rank, max_rank))
    return tuple(draw(st.integers(1, max_side)) for _ in range(rank))


@st.composite
def broadcast_pair(draw):
    out = draw(small_shape(max_rank=4))
    def operand():
        rank = draw(st.integers(0, len(out)))
        tail = out[len(out) - rank:]
        return tuple(d if draw(st.booleans()) else 1 for d in tail)
    return operand(), operand()


def fits(size: int, window: int, padding: int) -> bool:
    return padding == 0 or size >= window


@EXAMPLES
@given(seeds, st.integers(1, 2), st.integers(1, 8), st.integers(1, 8), st.integers(1, 4), st.integers(1, 4),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), paddings, activations)
def test_conv2d(seed, n, h, w, cin, cout, kh, kw, stride, dilation, padding, act):
    assume(fits(h, (kh - 1) * dilation + 1, padding) and fits(w, (kw - 1) * dilation + 1, padding))
    inputs = [Input((n, h, w, cin)), rand(seed, (cout, kh, kw, cin)), rand(seed + 1, (cout,))]
    m = op_model("CONV_2D", inputs, [((1,), F32)], {"padding": padding, "stride_w": stride, "stride_h": stride,
                 "fused_activation_function": act, "dilation_w_factor": dilation, "dilation_h_factor": dilation})
    assert_matches_litert(m, [rand(seed + 2, (n, h, w, cin))])


@EXAMPLES
@given(seeds, st.integers(1, 2), st.integers(1, 8), st.integers(1, 8), st.integers(1, 4), st.integers(1, 2),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), paddings, activations)
def test_depthwise_conv2d(seed, n, h, w, cin, mult, kh, kw, stride, dilation, padding, act):
    assume(fits(h, (kh - 1) * dilation + 1, padding) and fits(w, (kw - 1) * dilation + 1, padding))
    inputs = [Input((n, h, w, cin)), rand(seed, (1, kh, kw, cin * mult)), rand(seed + 1, (cin * mult,))]
    m = op_model("DEPTHWISE_CONV_2D", inputs, [((1,), F32)], {"padding": padding, "stride_w": stride,
                 "stride_h": stride, "depth_multiplier": mult, "fused_activation_function": act,
                 "dilation_w_factor": dilation, "dilation_h_factor": dilation})
    assert_matches_litert(m, [rand(seed + 2, (n, h, w, cin))])


@pytest.mark.parametrize("h, w, kh, kw, stride_h, stride_w, padding", [
    (5, 24, 3, 2, 1, 1, 0), (4, 30, 2, 5, 2, 2, 0), (6, 17, 1, 3, 1, 2, 1), (3, 40, 3, 4, 1, 3, 0)])
def test_depthwise_conv2d_on_wide_rows(h, w, kh, kw, stride_h, stride_w, padding):
    """Rows of 16 output pixels and more share indirection columns between pixels along the row (x-major
    taps, dwconv_driver.c): rectangular filters, strides that differ per axis, a stride equal to the filter."""
    inputs = [Input((2, h, w, 6)), rand(1, (1, kh, kw, 6)), rand(2, (6,))]
    m = op_model("DEPTHWISE_CONV_2D", inputs, [((1,), F32)], {"padding": padding, "stride_w": stride_w,
                 "stride_h": stride_h, "depth_multiplier": 1, "fused_activation_function": 0})
    assert_matches_litert(m, [rand(3, (2, h, w, 6))])


@EXAMPLES
@given(seeds, st.sampled_from(["MAX_POOL_2D", "AVERAGE_POOL_2D"]), st.integers(1, 2), st.integers(1, 8),
       st.integers(1, 8), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), paddings,
       activations)
def test_pool2d(seed, op, n, h, w, c, fh, fw, stride, padding, act):
    assume(fits(h, fh, padding) and fits(w, fw, padding))
    m = op_model(op, [Input((n, h, w, c))], [((1,), F32)], {"padding": padding, "stride_w": stride, "stride_h": stride,
                 "filter_width": fw, "filter_height": fh, "fused_activation_function": act})
    assert_matches_litert(m, [rand(seed, (n, h, w, c))])


@EXAMPLES
@given(seeds, st.integers(1, 3), st.integers(1, 3), st.integers(1, 20), st.integers(1, 8), activations,
       st.booleans(), st.booleans())
def test_fully_connected(seed, batch, rows, depth, units, act, has_bias, keep_num_dims):
    shape = (batch, rows, depth) if keep_num_dims else (batch * rows, depth)
    inputs = [Input(shape), rand(seed, (units, depth)), rand(seed + 1, (units,)) if has_bias else None]
    m = op_model("FULLY_CONNECTED", inputs, [((1,), F32)], {"fused_activation_function": act,
                 "keep_num_dims": keep_num_dims})
    assert_matches_litert(m, [rand(seed + 2, shape)])


@EXAMPLES
@given(seeds, broadcast_pair(), st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.booleans(),
       st.booleans())
def test_batch_matmul(seed, batches, m, k, n, adj_x, adj_y):
    a_batch, b_batch = batches
    a_shape = a_batch[-2:] + ((k, m) if adj_x else (m, k))
    b_shape = b_batch[-2:] + ((n, k) if adj_y else (k, n))
    model = op_model("BATCH_MATMUL", [Input(a_shape), Input(b_shape)], [((1,), F32)], {"adj_x": adj_x, "adj_y": adj_y})
    assert_matches_litert(model, [rand(seed, a_shape), rand(seed + 1, b_shape)])


@EXAMPLES
@given(seeds, st.sampled_from(["MEAN", "SUM"]), small_shape(), st.data(), st.booleans())
def test_reduce(seed, op, shape, data, keep_dims):
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    assume(len({a % len(shape) for a in axes}) == len(axes))
    m = op_model(op, [Input(shape), np.array(axes, np.int32)], [((1,), F32)], {"keep_dims": keep_dims})
    assert_matches_litert(m, [rand(seed, shape)])


@EXAMPLES
@given(seeds, st.sampled_from(["ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "GREATER"]), broadcast_pair(),
       activations, st.booleans())
def test_binary(seed, op, shapes, act, constant_rhs):
    a, b = rand(seed, shapes[0]), rand(seed + 1, shapes[1])
    if op == "DIV":
        b = (np.sign(b) + (b == 0)) * (0.5 + np.abs(b)).astype(F32)
    options = {"fused_activation_function": act} if op in ("ADD", "SUB", "MUL", "DIV") else {}
    out = np.bool_ if op == "GREATER" else F32
    rhs = b if constant_rhs else Input(b.shape)
    m = op_model(op, [Input(a.shape), rhs], [((1,), out)], options)
    assert_matches_litert(m, [a] if constant_rhs else [a, b])


@EXAMPLES
@given(seeds, st.sampled_from(["ADD", "SUB", "MUL"]), broadcast_pair())
def test_binary_int32(seed, op, shapes):
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(-1000, 1000, size=s).astype(np.int32) for s in shapes)
    m = op_model(op, [Input(a.shape, np.int32), Input(b.shape, np.int32)], [((1,), np.int32)], {})
    assert_matches_litert(m, [a, b])


UNARY_RANGES = {"RSQRT": (0.05, 4.0), "EXP": (-5.0, 5.0), "LOG": (0.01, 10.0), "NEG": (-3, 3), "RELU": (-3, 3),
                "RELU6": (-3, 9), "LOGISTIC": (-8, 8), "TANH": (-4, 4), "HARD_SWISH": (-5, 5)}


@EXAMPLES
@given(seeds, st.sampled_from(sorted(UNARY_RANGES)), small_shape())
def test_unary(seed, op, shape):
    m = op_model(op, [Input(shape)], [((1,), F32)])
    assert_matches_litert(m, [rand(seed, shape, *UNARY_RANGES[op])])


@EXAMPLES
@given(seeds, small_shape(), st.floats(0.0, 0.9))
def test_leaky_relu(seed, shape, alpha):
    m = op_model("LEAKY_RELU", [Input(shape)], [((1,), F32)], {"alpha": alpha})
    assert_matches_litert(m, [rand(seed, shape)])


@EXAMPLES
@given(seeds, small_shape(max_side=9), st.sampled_from([1.0, 0.5, 2.0]), st.booleans())
def test_softmax_and_log_softmax(seed, shape, beta, log):
    op, options = ("LOG_SOFTMAX", {}) if log else ("SOFTMAX", {"beta": beta})
    m = op_model(op, [Input(shape)], [((1,), F32)], options)
    assert_matches_litert(m, [rand(seed, shape, -5, 5)])


@EXAMPLES
@given(seeds, small_shape(), st.integers(2, 3), st.data(), st.sampled_from([F32, np.int32]))
def test_concatenation(seed, shape, count, data, dtype):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    shapes = [tuple(data.draw(st.integers(1, 4)) if d == axis % len(shape) else s for d, s in enumerate(shape))
              for _ in range(count)]
    values = [rand(seed + i, s, -50, 50).astype(dtype) for i, s in enumerate(shapes)]
    m = op_model("CONCATENATION", [Input(s, dtype) for s in shapes], [((1,), dtype)],
                 {"axis": axis, "fused_activation_function": 0})
    assert_matches_litert(m, values)


@EXAMPLES
@given(seeds, small_shape(), st.data())
def test_pad(seed, shape, data):
    pads = np.array([[data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))] for _ in shape], np.int32)
    m = op_model("PAD", [Input(shape), pads], [((1,), F32)], {})
    assert_matches_litert(m, [rand(seed, shape)])


@EXAMPLES
@given(seeds, small_shape(), st.data())
def test_reshape_squeeze_expand_dims(seed, shape, data):
    x = rand(seed, shape)
    target = list(np.random.default_rng(seed).permutation(shape))
    target[data.draw(st.integers(0, len(target) - 1))] = -1
    m = op_model("RESHAPE", [Input(shape), np.array(target, np.int32)], [((1,), F32)], {"new_shape": target})
    assert_matches_litert(m, [x])
    m = op_model("SQUEEZE", [Input(shape)], [((1,), F32)], {"squeeze_dims": []})
    assert_matches_litert(m, [x])
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    m = op_model("EXPAND_DIMS", [Input(shape), np.array([axis], np.int32)], [((1,), F32)], {})
    assert_matches_litert(m, [x])


@EXAMPLES
@given(seeds, small_shape(), st.sampled_from([F32, np.int32]))
def test_transpose(seed, shape, dtype):
    perm = np.random.default_rng(seed).permutation(len(shape)).astype(np.int32)
    m = op_model("TRANSPOSE", [Input(shape, dtype), perm], [((1,), dtype)], {})
    assert_matches_litert(m, [rand(seed, shape, -50, 50).astype(dtype)])


@EXAMPLES
@given(seeds, small_shape(max_side=6), st.data())
def test_strided_slice(seed, shape, data):
    rank = len(shape)
    begin = [data.draw(st.integers(-d, d)) for d in shape]
    end = [data.draw(st.integers(-d, d)) for d in shape]
    strides = [data.draw(st.sampled_from([-2, -1, 1, 2, 3])) for _ in shape]
    masks = {k: data.draw(st.integers(0, 2**rank - 1)) for k in ("begin_mask", "end_mask")}
    shrink = data.draw(st.integers(0, 2**rank - 1))
    for d in range(rank):  # a shrunk axis takes one index inside it with stride 1, as TensorFlow writes it
        if shrink >> d & 1 and not -shape[d] <= begin[d] < shape[d]:
            shrink &= ~(1 << d)
        if shrink >> d & 1:
            strides[d] = 1
    options = dict(masks, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=shrink, offset=False)
    m = op_model("STRIDED_SLICE", [Input(shape), np.array(begin, np.int32), np.array(end, np.int32),
                                   np.array(strides, np.int32)], [((1,), F32)], options)
    assert_matches_litert(m, [rand(seed, shape)])


@EXAMPLES
@given(seeds, small_shape(max_side=6), st.data())
def test_slice(seed, shape, data):
    begin = [data.draw(st.integers(0, d - 1)) for d in shape]
    size = [data.draw(st.sampled_from([-1, d - b])) if data.draw(st.booleans()) else data.draw(st.integers(1, d - b))
            for d, b in zip(shape, begin)]
    out_shape = tuple(d - b if n == -1 else n for d, b, n in zip(shape, begin, size))  # LiteRT checks it
    m = op_model("SLICE", [Input(shape), np.array(begin, np.int32), np.array(size, np.int32)], [(out_shape, F32)], {})
    assert_matches_litert(m, [rand(seed, shape)])


@EXAMPLES
@given(seeds, small_shape(max_rank=3), small_shape(max_rank=2), st.data(), st.booleans())
def test_gather(seed, shape, index_shape, data, constant_params):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    indices = np.random.default_rng(seed).integers(0, shape[axis], size=index_shape).astype(np.int32)
    params = rand(seed, shape)
    inputs = [params if constant_params else Input(shape), Input(index_shape, np.int32)]
    m = op_model("GATHER", inputs, [((1,), F32)], {"axis": axis, "batch_dims": 0})
    assert_matches_litert(m, [indices] if constant_params else [params, indices])


@EXAMPLES
@given(seeds, small_shape(max_rank=3), st.integers(1, 3), st.data())
def test_pack(seed, shape, count, data):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    m = op_model("PACK", [Input(shape) for _ in range(count)], [((1,), F32)], {"values_count": count, "axis": axis})
    assert_matches_litert(m, [rand(seed + i, shape) for i in range(count)])


@EXAMPLES
@given(small_shape(), st.sampled_from([np.int32, np.int64]))
def test_shape(shape, dtype):
    out_type = 2 if dtype == np.int32 else 4
    m = op_model("SHAPE", [Input(shape)], [((1,), dtype)], {"out_type": out_type})
    assert_matches_litert(m, [np.zeros(shape, F32)])


@EXAMPLES
@given(seeds, small_shape(), st.sampled_from([(F32, np.int32), (np.int32, F32), (F32, np.bool_), (np.int32, np.int64),
                                              (np.bool_, F32), (F32, np.uint8)]))
def test_cast(seed, shape, types):
    src, dst = types
    x = rand(seed, shape, -3, 255 if dst == np.uint8 else 3)
    if dst == np.uint8:
        x = np.abs(x)
    x = (x > 0) if src == np.bool_ else x.astype(src)
    m = op_model("CAST", [Input(shape, src)], [((1,), dst)], {})
    assert_matches_litert(m, [x])


@EXAMPLES
@given(seeds, st.sampled_from(["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]), st.integers(1, 2),
       st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 12), st.integers(1, 12),
       st.sampled_from([(False, False), (True, False), (False, True)]))
def test_resize(seed, op, n, h, w, c, out_h, out_w, mode):
    align_corners, half_pixel_centers = mode
    m = op_model(op, [Input((n, h, w, c)), np.array([out_h, out_w], np.int32)], [((1,), F32)],
                 {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers})
    assert_matches_litert(m, [rand(seed, (n, h, w, c))])
