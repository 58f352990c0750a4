"""Test helpers for rillet.graph: evaluate a graph with the JAX lowerings, finite differences, naive references."""

from __future__ import annotations

import contextlib

import numpy as np

from rillet.graph import Tensor

# The TFLite builtins the C runtime runs in float (the graph's op set must cover them).
RUNTIME_FLOAT_OPS = [
    "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL", "MAX_POOL_2D", "AVERAGE_POOL_2D", "MEAN",
    "SUM", "ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "RSQRT", "SQRT", "EXP", "LOG", "NEG", "RELU", "RELU6",
    "LEAKY_RELU", "LOGISTIC", "TANH", "HARD_SWISH", "SOFTMAX", "LOG_SOFTMAX", "CONCATENATION", "PAD", "RESHAPE",
    "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "TRANSPOSE_CONV", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "STRIDED_SLICE",
    "SLICE", "GATHER", "SHAPE", "PACK", "CAST", "GREATER", "LESS", "GREATER_EQUAL", "EQUAL", "MAXIMUM", "MINIMUM",
    "SELECT_V2", "PRELU", "GELU", "SQUARE", "SIN", "COS", "REDUCE_MAX", "REDUCE_MIN", "MIRROR_PAD", "EMBEDDING_LOOKUP",
    "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE",
]


def run_jax(fetches: list[Tensor], feeds: dict) -> list:
    """Evaluate fetches with every node's JAX lowering (stateless graphs only): checks that each op the
    forward and backward graphs use has a lowering, and lets jax.grad trace through the forward graph."""
    graph = fetches[0].graph
    needed = graph._ancestors([f.node for f in fetches], stop=feeds)
    values = dict(feeds)
    for node in graph.nodes:
        if node not in needed or (node.outputs and all(t in values for t in node.outputs)):
            continue
        lowering = node.opdef.jax
        assert lowering is not None, f"{node.op} has no JAX lowering"
        out = lowering(node.attrs, *[values[t] for t in node.inputs])
        outs = out if isinstance(out, tuple) else (out,)
        for t, v in zip(node.outputs, outs):
            values[t] = v
    return [values[f] for f in fetches]


@contextlib.contextmanager
def x64():
    import jax
    with jax.enable_x64(True):
        yield


def central_differences(f, arrays: list[np.ndarray], eps: float = 1e-6) -> list[np.ndarray]:
    """d f / d each array, by central differences (float64)."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads


def same_geometry(size, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-size // s)
        total = max((out - 1) * s + eff - size, 0)
        return out, total // 2
    return (size - eff) // s + 1, 0


def naive_conv2d(x, f, stride, padding, dilation=1):
    """y[n, oh, ow, o] = sum x[n, oh*s + i*d - pad_top, ow*s + j*d - pad_left, c] f[o, i, j, c], element by element."""
    n, h, w, _c = x.shape
    o, kh, kw, _ = f.shape
    oh, pt = same_geometry(h, kh, stride, dilation, padding)
    ow, pl = same_geometry(w, kw, stride, dilation, padding)
    y = np.zeros((n, oh, ow, o))
    for b, r, q, oc, i, j in np.ndindex(n, oh, ow, o, kh, kw):
        hr, wq = r * stride + i * dilation - pt, q * stride + j * dilation - pl
        if 0 <= hr < h and 0 <= wq < w:
            y[b, r, q, oc] += x[b, hr, wq, :] @ f[oc, i, j, :]
    return y


def naive_depthwise(x, f, stride, padding, multiplier, dilation=1):
    n, h, w, c = x.shape
    _, kh, kw, _ = f.shape
    oh, pt = same_geometry(h, kh, stride, dilation, padding)
    ow, pl = same_geometry(w, kw, stride, dilation, padding)
    y = np.zeros((n, oh, ow, c * multiplier))
    for b, r, q, ch, m, i, j in np.ndindex(n, oh, ow, c, multiplier, kh, kw):
        hr, wq = r * stride + i * dilation - pt, q * stride + j * dilation - pl
        if 0 <= hr < h and 0 <= wq < w:
            y[b, r, q, ch * multiplier + m] += x[b, hr, wq, ch] * f[0, i, j, ch * multiplier + m]
    return y


def naive_pool(x, k, stride, padding, reduce):
    n, h, w, c = x.shape
    oh, pt = same_geometry(h, k, stride, 1, padding)
    ow, pl = same_geometry(w, k, stride, 1, padding)
    y = np.zeros((n, oh, ow, c))
    for b, r, q in np.ndindex(n, oh, ow):
        rows = slice(max(r * stride - pt, 0), min(r * stride - pt + k, h))
        cols = slice(max(q * stride - pl, 0), min(q * stride - pl + k, w))
        y[b, r, q] = reduce(x[b, rows, cols, :].reshape(-1, c), axis=0)
    return y


def naive_resize_bilinear(x, out_h, out_w, align_corners=False, half_pixel=False):
    """TFLite's reference ResizeBilinear, pixel by pixel (source coordinates in float32, as TFLite has them)."""
    n, h, w, c = x.shape
    f32 = np.float32

    def scale(i, o):
        return f32(i - 1) / f32(o - 1) if align_corners and o > 1 else f32(i) / f32(o)

    y = np.zeros((n, out_h, out_w, c))
    for r, q in np.ndindex(out_h, out_w):
        sy = (f32(r) + f32(0.5)) * scale(h, out_h) - f32(0.5) if half_pixel else f32(r) * scale(h, out_h)
        sx = (f32(q) + f32(0.5)) * scale(w, out_w) - f32(0.5) if half_pixel else f32(q) * scale(w, out_w)
        sy, sx = float(sy), float(sx)
        y0, y1 = max(int(np.floor(sy)), 0), min(int(np.ceil(sy)), h - 1)
        x0, x1 = max(int(np.floor(sx)), 0), min(int(np.ceil(sx)), w - 1)
        dy, dx = sy - y0, sx - x0
        y[:, r, q] = (x[:, y0, x0] * (1 - dy) * (1 - dx) + x[:, y1, x0] * dy * (1 - dx)
                      + x[:, y0, x1] * (1 - dy) * dx + x[:, y1, x1] * dy * dx)
    return y
