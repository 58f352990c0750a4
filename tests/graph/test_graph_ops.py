"""Every op: its value against an independent numpy formula, its gradient against central differences and
against jax.grad of its JAX lowering (the backward graph also evaluated through the JAX lowerings)."""

import numpy as np
import pytest
from graphcheck import (
    central_differences,
    naive_conv2d,
    naive_depthwise,
    naive_pool,
    naive_resize_bilinear,
    run_jax,
    x64,
)

import rillet.graph as rg
from rillet.graph import ops

rng = np.random.default_rng(7)


def U(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape)


def away_from(values, *kinks, gap=0.05):
    """Push values at least `gap` from the kinks, so finite differences do not straddle one."""
    for k in kinks:
        close = np.abs(values - k) < gap
        values = np.where(close, k + np.sign(values - k + 1e-12) * gap, values)
    return values


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def naive_transpose_conv(x, f, shape, stride, padding):
    """Each input pixel scattered through the filter [out, kh, kw, in], one element at a time."""
    n, h, w, _ = shape
    kh, kw = f.shape[1:3]
    out_h = -(-h // stride) if padding == "SAME" else (h - kh) // stride + 1
    out_w = -(-w // stride) if padding == "SAME" else (w - kw) // stride + 1
    pt, pl = max((out_h - 1) * stride + kh - h, 0) // 2, max((out_w - 1) * stride + kw - w, 0) // 2
    y = np.zeros(shape, dtype=x.dtype)
    for b in range(n):
        for iy in range(x.shape[1]):
            for ix in range(x.shape[2]):
                for fy in range(kh):
                    for fx in range(kw):
                        oy, ox = iy * stride - pt + fy, ix * stride - pl + fx
                        if 0 <= oy < h and 0 <= ox < w:
                            y[b, oy, ox] += f[:, fy, fx, :] @ x[b, iy, ix]
    return y


INDICES = np.array([2, 0, 2, 1], dtype=np.int32)
CONDITION = np.array([[True, False, True], [False, False, True]])


def gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
def naive_space_to_batch(x, block, pads):
    """out[(i * bw + j) * n + b, h, w] = padded[b, h * bh + i, w * bw + j], element by element."""
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    n, ph, pw, c = x.shape
    bh, bw = block
    y = np.zeros((n * bh * bw, ph // bh, pw // bw, c))
    for i, j, b, h, w in np.ndindex(bh, bw, n, ph // bh, pw // bw):
        y[(i * bw + j) * n + b, h, w] = x[b, h * bh + i, w * bw + j]
    return y


def naive_batch_to_space(x, block, crops):
    nb, h, w, c = x.shape
    bh, bw = block
    n = nb // (bh * bw)
    y = np.zeros((n, h * bh, w * bw, c))
    for i, j, b, r, q in np.ndindex(bh, bw, n, h, w):
        y[b, r * bh + i, q * bw + j] = x[(i * bw + j) * n + b, r, q]
    (t, d), (left, right) = crops
    return y[:, t:h * bh - d, left:w * bw - right]


def naive_lrn(x, radius, bias, alpha, beta):
    y = np.zeros_like(x)
    depth = x.shape[-1]
    for idx in np.ndindex(x.shape[:-1]):
        for c in range(depth):
            window = x[idx][max(c - radius, 0):c + radius + 1]
            y[idx][c] = x[idx][c] * (bias + alpha * np.sum(window ** 2)) ** -beta
    return y


def naive_lstm_from(x, wx, wh, b, h, c):
    """Keras' LSTM step by step from the state (h, c): gates i, f, c, o; c = f c + i tanh(.), h = o tanh(c); the
    outputs and the last state."""
    out = []
    for t in range(x.shape[1]):
        z = [x[:, t] @ wx[k].T + h @ wh[k].T + b[k] for k in range(4)]
        c = sigmoid(z[1]) * c + sigmoid(z[0]) * np.tanh(z[2])
        h = sigmoid(z[3]) * np.tanh(c)
        out.append(h)
    return np.stack(out, 1), h, c


def naive_lstm(x, wx, wh, b):
    """naive_lstm_from zeros, the outputs alone."""
    zeros = np.zeros((x.shape[0], wh[0].shape[0]))
    return naive_lstm_from(x, wx, wh, b, zeros, zeros)[0]


def reverse_cumsum(x, axis):
    return np.flip(np.cumsum(np.flip(x, axis), axis), axis)


ND_INDICES = np.array([[0, 1], [2, 3], [0, 1]], dtype=np.int32)
START = np.array([1, 0], dtype=np.int32)
MOD_X, MOD_Y = np.array([[0.35, 1.7, -2.2]]), np.array([[1.0, 0.8, 0.9]])  # x / y well away from integers
TFL_STATIC_INT = np.array([[0, 1], [1, 0]], dtype=np.int32)

# (id, inputs, graph builder over placeholders, independent numpy reference)
CASES = [
    ("add_broadcast", [U(2, 3), U(3)], ops.add, lambda a, b: a + b),
    ("add_scalar_lhs", [U(2, 3)], lambda a: 2.0 + a, lambda a: 2.0 + a),
    ("sub_broadcast_both", [U(2, 1), U(1, 3)], ops.sub, lambda a, b: a - b),
    ("mul_rank3_vector", [U(2, 3, 4), U(4)], ops.mul, lambda a, b: a * b),
    ("div", [U(2, 3), U(2, 3, lo=0.5, hi=2)], ops.div, lambda a, b: a / b),
    ("div_batch_broadcast", [U(3, 4), U(1, 4, lo=0.5, hi=2)], ops.div, lambda a, b: a / b),
    ("squared_difference", [U(2, 3), U(2, 1)], ops.squared_difference, lambda a, b: (a - b) ** 2),
    ("rsqrt", [U(2, 3, lo=0.3, hi=2)], ops.rsqrt, lambda x: 1 / np.sqrt(x)),
    ("sqrt", [U(2, 3, lo=0.3, hi=2)], ops.sqrt, np.sqrt),
    ("exp", [U(2, 3)], ops.exp, np.exp),
    ("log", [U(2, 3, lo=0.3, hi=2)], ops.log, np.log),
    ("neg", [U(2, 3)], ops.neg, np.negative),
    ("relu", [away_from(U(3, 4), 0)], ops.relu, lambda x: np.maximum(x, 0)),
    ("relu6", [away_from(U(3, 4, lo=-3, hi=9), 0, 6)], ops.relu6, lambda x: np.clip(x, 0, 6)),
    ("leaky_relu", [away_from(U(3, 4), 0)], lambda x: ops.leaky_relu(x, alpha=0.1),
     lambda x: np.where(x > 0, x, 0.1 * x)),
    ("sigmoid", [U(3, 4, lo=-4, hi=4)], ops.sigmoid, sigmoid),
    ("tanh", [U(3, 4, lo=-3, hi=3)], ops.tanh, np.tanh),
    ("hard_swish", [away_from(U(3, 4, lo=-5, hi=5), -3, 3)], ops.hard_swish,
     lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("softmax", [U(3, 5, lo=-3, hi=3)], ops.softmax, softmax),
    ("softmax_beta", [U(2, 4)], lambda x: ops.softmax(x, beta=0.5), lambda x: softmax(0.5 * x)),
    ("log_softmax", [U(3, 5, lo=-3, hi=3)], ops.log_softmax, lambda x: np.log(softmax(x))),
    ("square", [U(2, 3)], ops.square, np.square),
    ("sin", [U(2, 3, lo=-3, hi=3)], ops.sin, np.sin),
    ("cos", [U(2, 3, lo=-3, hi=3)], ops.cos, np.cos),
    ("maximum_broadcast", [U(2, 3), U(3)], ops.maximum, np.maximum),
    ("minimum_broadcast", [U(2, 1), U(2, 3)], ops.minimum, np.minimum),
    ("select", [U(2, 3), U(3)], lambda a, b: ops.select(CONDITION, a, b), lambda a, b: np.where(CONDITION, a, b)),
    ("prelu_per_channel", [away_from(U(2, 3, 4), 0), U(1, 1, 4)], ops.prelu,
     lambda x, a: np.where(x >= 0, x, a * x)),
    ("gelu", [U(3, 4, lo=-3, hi=3)], ops.gelu, gelu),
    ("gelu_at_zero", [np.array([[0.0, 1e-3, -2e-3]])], ops.gelu, gelu),
    ("gelu_tanh", [U(3, 4, lo=-3, hi=3)], lambda x: ops.gelu(x, approximate=True), gelu_tanh),
    ("reduce_max_axis1", [U(2, 3, 4)], lambda x: ops.reduce_max(x, 1), lambda x: x.max(1)),
    ("reduce_min_keepdims", [U(2, 3, 4)], lambda x: ops.reduce_min(x, [0, 2], keepdims=True),
     lambda x: x.min((0, 2), keepdims=True)),
    ("mean_axis1", [U(2, 3, 4)], lambda x: ops.reduce_mean(x, 1), lambda x: x.mean(1)),
    ("mean_keepdims", [U(2, 3, 4)], lambda x: ops.reduce_mean(x, [0, 2], keepdims=True),
     lambda x: x.mean((0, 2), keepdims=True)),
    ("sum_all", [U(2, 3, 4)], ops.reduce_sum, np.sum),
    # as an imported model gives it: a negative axis left in the node's attrs (a layer norm's variance)
    ("mean_negative_axis_keepdims", [U(1, 3, 4)],
     lambda x: rg.get_default_graph().add_node("MEAN", [x], {"axes": (-1,), "keepdims": True}).outputs[0],
     lambda x: x.mean(-1, keepdims=True)),
    ("sum_last_keepdims", [U(2, 3)], lambda x: ops.reduce_sum(x, -1, keepdims=True),
     lambda x: x.sum(-1, keepdims=True)),
    ("fully_connected", [U(3, 4), U(5, 4), U(5)], ops.fully_connected, lambda x, w, b: x @ w.T + b),
    ("fully_connected_no_bias", [U(2, 3), U(4, 3)], ops.fully_connected, lambda x, w: x @ w.T),
    ("batch_matmul", [U(2, 3, 4), U(2, 4, 5)], ops.batch_matmul, np.matmul),
    ("batch_matmul_broadcast", [U(2, 3, 4), U(4, 5)], ops.batch_matmul, np.matmul),
    ("batch_matmul_adj_x", [U(2, 4, 3), U(2, 4, 5)], lambda a, b: ops.batch_matmul(a, b, adj_x=True),
     lambda a, b: np.swapaxes(a, -1, -2) @ b),
    ("batch_matmul_adj_y", [U(3, 4), U(5, 4)], lambda a, b: ops.batch_matmul(a, b, adj_y=True),
     lambda a, b: a @ b.T),
    ("batch_matmul_adj_both", [U(2, 4, 3), U(2, 5, 4)],
     lambda a, b: ops.batch_matmul(a, b, adj_x=True, adj_y=True),
     lambda a, b: np.swapaxes(a, -1, -2) @ np.swapaxes(b, -1, -2)),
    ("transpose_conv_strided_same", [U(2, 3, 3, 2), U(3, 3, 3, 2)],
     lambda x, f: ops.transpose_conv2d(x, f, (2, 6, 5, 3), strides=2, padding="SAME"),
     lambda x, f: naive_transpose_conv(x, f, (2, 6, 5, 3), 2, "SAME")),
    ("transpose_conv_valid", [U(1, 3, 2, 2), U(2, 2, 3, 2)],
     lambda x, f: ops.transpose_conv2d(x, f, (1, 4, 4, 2), padding="VALID"),
     lambda x, f: naive_transpose_conv(x, f, (1, 4, 4, 2), 1, "VALID")),
    ("conv_valid", [U(2, 5, 5, 2), U(3, 3, 3, 2), U(3)], ops.conv2d,
     lambda x, f, b: naive_conv2d(x, f, 1, "VALID") + b),
    ("conv_same_stride2", [U(1, 6, 5, 2), U(2, 3, 3, 2)],
     lambda x, f: ops.conv2d(x, f, strides=2, padding="SAME"), lambda x, f: naive_conv2d(x, f, 2, "SAME")),
    ("conv_valid_stride2_leftover", [U(1, 6, 6, 1), U(2, 2, 2, 1)],
     lambda x, f: ops.conv2d(x, f, strides=2), lambda x, f: naive_conv2d(x, f, 2, "VALID")),
    ("conv_same_dilation2", [U(1, 6, 6, 2), U(2, 3, 3, 2)],
     lambda x, f: ops.conv2d(x, f, padding="SAME", dilations=2),
     lambda x, f: naive_conv2d(x, f, 1, "SAME", dilation=2)),
    ("conv_1x1", [U(2, 3, 3, 4), U(3, 1, 1, 4)], ops.conv2d, lambda x, f: naive_conv2d(x, f, 1, "VALID")),
    ("depthwise_same", [U(1, 5, 5, 3), U(1, 3, 3, 3), U(3)],
     lambda x, f, b: ops.depthwise_conv2d(x, f, b, padding="SAME"),
     lambda x, f, b: naive_depthwise(x, f, 1, "SAME", 1) + b),
    ("depthwise_multiplier2_stride2", [U(1, 6, 6, 2), U(1, 3, 3, 4)],
     lambda x, f: ops.depthwise_conv2d(x, f, strides=2, padding="SAME", depth_multiplier=2),
     lambda x, f: naive_depthwise(x, f, 2, "SAME", 2)),
    ("depthwise_dilation2_valid", [U(1, 6, 6, 2), U(1, 2, 2, 2)],
     lambda x, f: ops.depthwise_conv2d(x, f, dilations=2), lambda x, f: naive_depthwise(x, f, 1, "VALID", 1, 2)),
    ("max_pool_2x2", [U(2, 4, 4, 2)], ops.max_pool2d, lambda x: naive_pool(x, 2, 2, "VALID", np.max)),
    ("depth_to_space", [U(2, 2, 3, 8)], lambda x: ops.depth_to_space(x, 2),
     lambda x: x.reshape(2, 2, 3, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(2, 4, 6, 2)),
    ("space_to_depth", [U(1, 4, 6, 3)], lambda x: ops.space_to_depth(x, 2),
     lambda x: x.reshape(1, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 3, 12)),
    ("max_pool_3x3_s2_same", [U(1, 5, 5, 2)], lambda x: ops.max_pool2d(x, 3, 2, "SAME"),
     lambda x: naive_pool(x, 3, 2, "SAME", np.max)),
    ("avg_pool_2x2", [U(2, 4, 4, 2)], ops.avg_pool2d, lambda x: naive_pool(x, 2, 2, "VALID", np.mean)),
    ("avg_pool_3x3_s2_same", [U(1, 5, 6, 2)], lambda x: ops.avg_pool2d(x, 3, 2, "SAME"),
     lambda x: naive_pool(x, 3, 2, "SAME", np.mean)),
    ("concat_axis1", [U(2, 3), U(2, 2), U(2, 1)], lambda *xs: ops.concat(xs, 1),
     lambda *xs: np.concatenate(xs, 1)),
    ("pad", [U(2, 3)], lambda x: ops.pad(x, [(1, 0), (2, 1)]), lambda x: np.pad(x, [(1, 0), (2, 1)])),
    ("mirror_pad_reflect", [U(3, 4)], lambda x: ops.mirror_pad(x, [(1, 2), (2, 1)]),
     lambda x: np.pad(x, [(1, 2), (2, 1)], mode="reflect")),
    ("mirror_pad_symmetric", [U(1, 3, 3, 2)], lambda x: ops.mirror_pad(x, [(0, 0), (2, 1), (1, 1), (0, 0)], "SYMMETRIC"),
     lambda x: np.pad(x, [(0, 0), (2, 1), (1, 1), (0, 0)], mode="symmetric")),
    ("embedding_lookup", [U(4, 3)], lambda p: ops.embedding_lookup(INDICES, p), lambda p: p[INDICES]),
    ("reshape", [U(2, 3, 4)], lambda x: ops.reshape(x, [4, -1]), lambda x: x.reshape(4, 6)),
    ("squeeze", [U(2, 1, 3)], lambda x: ops.squeeze(x, [1]), lambda x: x[:, 0]),
    ("expand_dims", [U(2, 3)], lambda x: ops.expand_dims(x, -1), lambda x: x[..., None]),
    ("identity", [U(2, 3)], ops.identity, lambda x: x),
    ("transpose", [U(2, 3, 4)], lambda x: ops.transpose(x, [2, 0, 1]), lambda x: x.transpose(2, 0, 1)),
    ("strided_slice_stride2", [U(4, 7)], lambda x: ops.strided_slice(x, [1, 1], [0, 6], [1, 2], end_mask=1),
     lambda x: x[1:, 1:6:2]),
    ("strided_slice_shrink", [U(3, 4, 2)], lambda x: ops.strided_slice(x, [0, 2, 0], [0, 3, 0], begin_mask=5,
                                                                       end_mask=5, shrink_axis_mask=2),
     lambda x: x[:, 2, :]),
    ("slice", [U(3, 5)], lambda x: ops.slice_(x, [1, 2], [-1, 2]), lambda x: x[1:, 2:4]),
    ("gather_rows", [U(3, 2)], lambda p: ops.gather(p, INDICES), lambda p: p[INDICES]),
    ("gather_matrix_indices", [U(4, 3)], lambda p: ops.gather(p, TFL_STATIC_INT), lambda p: p[TFL_STATIC_INT]),
    ("pack_axis1", [U(2, 3), U(2, 3)], lambda a, b: ops.pack([a, b], axis=1), lambda a, b: np.stack([a, b], 1)),
    ("resize_bilinear_up", [U(1, 3, 4, 2)], lambda x: ops.resize_bilinear(x, (5, 7)),
     lambda x: naive_resize_bilinear(x, 5, 7)),
    ("resize_bilinear_half_pixel", [U(1, 4, 3, 1)], lambda x: ops.resize_bilinear(x, (6, 5), half_pixel_centers=True),
     lambda x: naive_resize_bilinear(x, 6, 5, half_pixel=True)),
    ("resize_bilinear_align_corners_down", [U(1, 5, 5, 1)],
     lambda x: ops.resize_bilinear(x, (3, 2), align_corners=True),
     lambda x: naive_resize_bilinear(x, 3, 2, align_corners=True)),
    ("resize_nearest_2x", [U(1, 2, 3, 2)], lambda x: ops.resize_nearest(x, (4, 6)),
     lambda x: x.repeat(2, 1).repeat(2, 2)),
    ("resize_nearest_half_pixel", [U(1, 3, 3, 1)], lambda x: ops.resize_nearest(x, (6, 6), half_pixel_centers=True),
     lambda x: x.repeat(2, 1).repeat(2, 2)),
    ("abs", [away_from(U(3, 4), 0)], ops.abs_, np.abs),
    ("elu", [away_from(U(3, 4, lo=-3, hi=3), 0)], ops.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    ("relu_n1_to_1", [away_from(U(3, 4, lo=-2, hi=2), -1, 1)], ops.relu_n1_to_1, lambda x: np.clip(x, -1, 1)),
    ("pow", [U(2, 3, lo=0.5, hi=2), U(3, lo=-2, hi=2)], ops.pow_, np.power),
    ("pow_negative_base_integer_exponent", [U(2, 3, lo=-2, hi=-0.5)], lambda x: ops.pow_(x, 3.0),
     lambda x: x ** 3),
    ("floor_mod", [MOD_X, MOD_Y], ops.floor_mod, np.mod),
    ("select_v1_same_shape", [U(2, 3), U(2, 3)], lambda a, b: ops.select_v1(CONDITION, a, b),
     lambda a, b: np.where(CONDITION, a, b)),
    ("select_v1_row_condition", [U(2, 3), U(2, 3)], lambda a, b: ops.select_v1(np.array([False, True]), a, b),
     lambda a, b: np.where([[False], [True]], a, b)),
    ("reduce_prod_axis1", [U(2, 3, 4, lo=0.5, hi=1.5)], lambda x: ops.reduce_prod(x, 1), lambda x: x.prod(1)),
    ("reduce_prod_keepdims", [U(2, 3, lo=-1.5, hi=-0.5)], lambda x: ops.reduce_prod(x, -1, keepdims=True),
     lambda x: x.prod(-1, keepdims=True)),
    ("cumsum", [U(2, 5)], lambda x: ops.cumsum(x, 1), lambda x: np.cumsum(x, 1)),
    ("cumsum_exclusive_reverse", [U(3, 4, 2)], lambda x: ops.cumsum(x, 1, exclusive=True, reverse=True),
     lambda x: reverse_cumsum(x, 1) - x),
    ("split_unused_part", [U(2, 6)], lambda x: (lambda p: p[0] * p[2])(ops.split(x, 3, axis=1)),
     lambda x: x[:, 0:2] * x[:, 4:6]),
    ("split_v_rest", [U(5, 2)], lambda x: (lambda p: p[0] - p[1] * 3.0)(ops.split_v(x, [2, 2, -1], axis=0)),
     lambda x: x[:2] - x[2:4] * 3.0),
    ("unpack_axis1", [U(2, 3, 2)], lambda x: (lambda p: p[0] * p[1] + p[2])(ops.unpack(x, axis=1)),
     lambda x: x[:, 0] * x[:, 1] + x[:, 2]),
    ("tile", [U(2, 3)], lambda x: ops.tile(x, [2, 3]), lambda x: np.tile(x, [2, 3])),
    ("broadcast_to", [U(3, 1)], lambda x: ops.broadcast_to(x, [2, 3, 4]),
     lambda x: np.broadcast_to(x, (2, 3, 4))),
    ("fill", [np.array(0.7)], lambda v: ops.fill([2, 3], v), lambda v: np.full((2, 3), v)),
    ("reverse", [U(2, 3, 4)], lambda x: ops.reverse(x, [0, 2]), lambda x: x[::-1, :, ::-1]),
    ("space_to_batch_nd", [U(2, 3, 4, 2)], lambda x: ops.space_to_batch_nd(x, [2, 2], [(1, 0), (0, 0)]),
     lambda x: naive_space_to_batch(x, (2, 2), [(1, 0), (0, 0)])),
    ("batch_to_space_nd", [U(8, 2, 3, 2)], lambda x: ops.batch_to_space_nd(x, [2, 2], [(1, 0), (0, 1)]),
     lambda x: naive_batch_to_space(x, (2, 2), [(1, 0), (0, 1)])),
    ("pad_v2", [U(2, 3), np.array(0.3)], lambda x, v: ops.pad_v2(x, [(1, 0), (2, 1)], v),
     lambda x, v: np.pad(x, [(1, 0), (2, 1)], constant_values=v)),
    ("gather_nd_duplicates", [U(3, 4, 2)], lambda p: ops.gather_nd(p, ND_INDICES),
     lambda p: p[ND_INDICES[:, 0], ND_INDICES[:, 1]]),
    ("gather_nd_full_index", [U(3, 4)], lambda p: ops.gather_nd(p, ND_INDICES),
     lambda p: p[ND_INDICES[:, 0], ND_INDICES[:, 1]]),
    ("dynamic_update_slice", [U(3, 4), U(2, 3)], lambda x, u: ops.dynamic_update_slice(x, u, START),
     lambda x, u: np.concatenate([x[:1], np.concatenate([u, x[1:3, 3:]], 1), x[3:]], 0)),
    ("l2_normalize", [U(3, 4)], ops.l2_normalize, lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)),
    ("lstm", [U(2, 3, 2), U(3, 2), U(3, 3), U(3)],
     lambda x, wx, wh, b: ops.lstm(x, [wx, wx * 0.5, wx * -1.0, wx * 2.0], [wh, wh * 0.5, wh * -1.0, wh * 2.0],
                                   [b, b * 2.0, b * -1.0, b]),
     lambda x, wx, wh, b: naive_lstm(x, [wx, wx * 0.5, -wx, wx * 2.0], [wh, wh * 0.5, -wh, wh * 2.0],
                                     [b, b * 2.0, -b, b])),
    ("lstm_time_major_clipped", [U(3, 2, 2, lo=-2, hi=2), U(3, 2), U(3, 3), U(3)],
     lambda x, wx, wh, b: ops.lstm(x, [wx] * 4, [wh] * 4, [b] * 4, time_major=True, cell_clip=5.0),
     lambda x, wx, wh, b: naive_lstm(x.swapaxes(0, 1), [wx] * 4, [wh] * 4, [b] * 4).swapaxes(0, 1)),
    ("if_then", [U(2, 3), U(3, 4)],
     lambda a, w: ops.if_(np.array([True]), lambda p, q: ops.tanh(ops.batch_matmul(p, q)),
                          lambda p, q: ops.batch_matmul(ops.mul(p, p), q), a, w),
     lambda a, w: np.tanh(a @ w)),
    ("if_else", [U(2, 3), U(3, 4)],
     lambda a, w: ops.if_(np.array([False]), lambda p, q: ops.tanh(ops.batch_matmul(p, q)),
                          lambda p, q: ops.batch_matmul(ops.mul(p, p), q), a, w),
     lambda a, w: (a * a) @ w),
    # two outputs, a branch that passes an argument through and one that ignores an argument (its gradient
    # zeros), the condition computed from an input (no gradient flows into it), an integer argument
    ("if_two_outputs_passthrough", [U(2, 3), U(2, 3)],
     lambda a, b: (lambda r: ops.mul(r[0], r[1]))(ops.if_(
         ops.greater(ops.reduce_sum(a), -100.0), lambda p, q, k: [p, ops.sin(p)],
         lambda p, q, k: [q, ops.mul(q, q)], a, b, np.int32(3))),
     lambda a, b: a * np.sin(a)),
    # the else branch's gradients of both arguments are one tensor (dy): a function gives each output once
    ("if_sum_branch", [U(2, 3), U(2, 3)],
     lambda a, b: ops.if_(np.array([False]), lambda p, q: ops.mul(p, q), lambda p, q: ops.add(p, q), a, b),
     lambda a, b: a + b),
    ("if_nested", [U(2, 3)],
     lambda a: ops.if_(np.array([False]), lambda p: p, lambda p: ops.if_(
         np.array([True]), lambda q: ops.exp(q), lambda q: q, ops.mul(p, 2.0)), a),
     lambda a: np.exp(2 * a)),
    ("local_response_normalization", [U(1, 2, 2, 6)],
     lambda x: ops.local_response_normalization(x, radius=2, bias=1.0, alpha=0.5, beta=0.75),
     lambda x: naive_lrn(x, 2, 1.0, 0.5, 0.75)),
]


def build(case):
    _, inputs, builder, _ = case
    graph = rg.Graph()
    with graph.as_default():
        xs = [rg.placeholder(a.shape, "float64", name=f"x{i}") for i, a in enumerate(inputs)]
        y = builder(*xs)
        weights = rg.constant(U(*y.shape))
        loss = ops.reduce_sum(ops.mul(y, weights))
        grads = rg.gradients(loss, xs)
    return graph, xs, y, weights, loss, grads


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_value(case):
    graph, xs, y, *_ = build(case)
    value = graph.run(y, dict(zip(xs, case[1])))
    np.testing.assert_allclose(value, case[3](*case[1]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradient_finite_differences(case):
    graph, xs, _y, _weights, loss, grads = build(case)
    inputs = case[1]
    analytic = graph.run(grads, dict(zip(xs, inputs)))
    numeric = central_differences(lambda arrays: graph.run(loss, dict(zip(xs, arrays))), inputs)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradient_jax(case):
    jax = pytest.importorskip("jax")
    graph, xs, y, _weights, loss, grads = build(case)
    inputs = case[1]
    with x64():
        def f(*arrays):
            return run_jax([loss], dict(zip(xs, arrays)))[0]
        expected = jax.grad(f, argnums=tuple(range(len(inputs))))(*inputs)
        lowered = run_jax(grads, dict(zip(xs, inputs)))
        value = run_jax([y], dict(zip(xs, inputs)))[0]
    np.testing.assert_allclose(np.asarray(value), graph.run(y, dict(zip(xs, inputs))), rtol=1e-10, atol=1e-12)
    ours = graph.run(grads, dict(zip(xs, inputs)))
    for o, e, low in zip(ours, expected, lowered):
        np.testing.assert_allclose(o, np.asarray(e), rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(np.asarray(low), o, rtol=1e-9, atol=1e-11)


def test_every_differentiable_op_is_covered():
    covered = set()
    for case in CASES:
        graph, *_ = build(case)
        covered |= {n.op for n in graph.nodes}
    float32_only = {"MaxPoolingWithArgmax2D", "MaxUnpooling2D"}  # test_mediapipe_pool_gradients.py
    # WHILE: test_control_flow_gradients.py (jax.grad does not run a while_loop in reverse); QUANTIZE and
    # DEQUANTIZE: test_quantization_gradients.py (straight-through: neither finite differences nor jax.grad give it)
    missing = set(rg.GRADIENTS) - covered - float32_only - {"WHILE", "QUANTIZE", "DEQUANTIZE"}
    assert not missing, f"ops with a gradient rule but no test case: {sorted(missing)}"


@pytest.mark.parametrize("op, reference", [(ops.less, np.less), (ops.greater_equal, np.greater_equal),
                                           (ops.equal, np.equal), (ops.greater, np.greater)])
def test_comparison_value(op, reference):
    a, b = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), np.array([2.0, 2.0, 2.0])
    graph = rg.Graph()
    with graph.as_default():
        x, y = rg.placeholder(a.shape, "float64", name="a"), rg.placeholder(b.shape, "float64", name="b")
        out = op(x, y)
    assert out.dtype == "bool"
    np.testing.assert_array_equal(graph.run(out, {x: a, y: b}), reference(a, b))


BOOLS = (np.array([[True, False, True], [False, False, True]]), np.array([True, False, False]))
HALVES = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], [-1.7, -0.2, 0.0, 0.3, 1.49, 2.51]])

# Ops through which no gradient flows, and integer forms of ops that have one: (id, inputs, builder, independent
# numpy reference); the value on the numpy reference and on the JAX lowering.
VALUE_CASES = [
    ("ceil", [HALVES], ops.ceil, np.ceil),
    ("floor", [HALVES], ops.floor, np.floor),
    ("round_half_to_even", [HALVES], ops.round_, lambda x: np.array([[-2, -2, -0, 0, 2, 2], [-2, -0, 0, 0, 1, 3]])),
    ("floor_div", [MOD_X * 3, MOD_Y], ops.floor_div, lambda x, y: np.floor(x / y)),
    ("floor_div_int", [np.array([7, -7, 6], np.int32), np.array([2, 2, -4], np.int32)], ops.floor_div,
     lambda x, y: np.array([3, -4, -2])),
    ("floor_mod_int", [np.array([7, -7, 6], np.int32), np.array([2, 2, -4], np.int32)], ops.floor_mod,
     lambda x, y: np.array([1, 1, -2])),
    ("abs_int", [np.array([-3, 0, 4], np.int32)], ops.abs_, np.abs),
    ("less_equal", [HALVES, np.array(0.0)], ops.less_equal, lambda x, y: x <= y),
    ("not_equal", [HALVES, np.array(0.5)], ops.not_equal, lambda x, y: x != y),
    ("logical_and", list(BOOLS), ops.logical_and, np.logical_and),
    ("logical_or", list(BOOLS), ops.logical_or, np.logical_or),
    ("logical_not", [BOOLS[0]], ops.logical_not, np.logical_not),
    ("reduce_all", [BOOLS[0]], lambda b: ops.reduce_all(b, 1), lambda b: np.array([False, False])),
    ("reduce_any_keepdims", [BOOLS[0]], lambda b: ops.reduce_any(b, 0, keepdims=True),
     lambda b: np.array([[True, False, True]])),
    ("arg_max_first_at_ties", [np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])], lambda x: ops.arg_max(x, 1),
     lambda x: np.array([1, 0])),
    ("arg_min_axis0_int64", [np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])],
     lambda x: ops.arg_min(x, 0, output_type="int64"), lambda x: np.array([0, 1, 1])),
    ("one_hot_out_of_range", [np.array([[0, 2], [3, -1]], np.int32)],
     lambda i: ops.one_hot_builtin(i, 3, on_value=5.0, off_value=-1.0),
     lambda i: np.array([[[5, -1, -1], [-1, -1, 5]], [[-1, -1, -1], [-1, -1, -1]]])),
    ("one_hot_axis0", [np.array([1, 0], np.int32)], lambda i: ops.one_hot_builtin(i, 3, axis=0),
     lambda i: np.array([[0, 1], [1, 0], [0, 0]])),
    ("zeros_like", [HALVES], ops.zeros_like_builtin, np.zeros_like),
    ("range_float", [np.array(0.5), np.array(3.0), np.array(0.75)], ops.range_,
     lambda a, b, c: np.array([0.5, 1.25, 2.0, 2.75])),
    ("range_int_down", [np.array(5, np.int32), np.array(-1, np.int32), np.array(-2, np.int32)], ops.range_,
     lambda a, b, c: np.array([5, 3, 1])),
    ("rfft2d_crop_and_pad", [U(2, 5, 3).astype(np.float32)], lambda x: ops.rfft2d(x, [4, 4]),
     lambda x: np.fft.fft2(np.pad(x[:, :4, :], [(0, 0), (0, 0), (0, 1)]))[..., :3]),
]


@pytest.mark.parametrize("case", VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_value_without_gradient(case):
    _, inputs, builder, reference = case
    graph = rg.Graph()
    with graph.as_default():
        xs = [rg.placeholder(a.shape, a.dtype, name=f"x{i}") for i, a in enumerate(inputs)]
        y = builder(*xs)
    assert y.producer.op in rg.NO_GRADIENT or np.issubdtype(np.dtype(y.dtype), np.integer)
    value = graph.run(y, dict(zip(xs, inputs)))
    want = reference(*inputs)
    tolerance = 1e-5 if value.dtype == np.complex64 else 0
    np.testing.assert_allclose(value, want, rtol=tolerance, atol=tolerance)
    if value.dtype != bool:
        assert value.dtype == y.dtype
    pytest.importorskip("jax")
    with x64():
        lowered = np.asarray(run_jax([y], dict(zip(xs, inputs)))[0])
    np.testing.assert_allclose(lowered, value, rtol=tolerance, atol=tolerance)
