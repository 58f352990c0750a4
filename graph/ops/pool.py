"""Pooling: MAX_POOL_2D, AVERAGE_POOL_2D.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from . import _grad as grad
from .conv import _depthwise_input_grad, _window_slices, _windows_np, conv_windows
from .core import (
    _apply,
    _jnp,
    _lax,
    _tfl,
    as_tensor,
)

# ------------------------------------------------------------------------------------------- pooling

_POOL_ATTRS = {"padding": "VALID", "stride_h": 1, "stride_w": 1, "filter_h": REQUIRED, "filter_w": REQUIRED}
_POOL_TFLITE = {"padding": "padding", "stride_h": "stride_h", "stride_w": "stride_w",
                "filter_h": "filter_height", "filter_w": "filter_width"}


def _pool_infer(attrs, specs):
    xs, xd = specs[0]
    if len(xs) != 4:
        raise ValueError(f"input must be NHWC, got {xs}")
    (oh, _, _), (ow, _, _) = conv_windows(attrs, xs[1], xs[2], attrs["filter_h"], attrs["filter_w"])
    return [((xs[0], oh, ow, xs[3]), xd)]


def _max_pool_np(a, x):
    out = None
    for _, _, xs in _windows_np(a, x, a["filter_h"], a["filter_w"], pad_value=-np.inf):
        out = xs if out is None else np.maximum(out, xs)
    return out


def pool_counts(attrs: dict, h: int, w: int) -> np.ndarray:
    """How many real (unpadded) inputs each average-pool window covers, [1, OH, OW, 1]: TFLite divides by it."""
    ones = np.ones((1, h, w, 1))
    return sum(xs for _, _, xs in _windows_np(attrs, ones, attrs["filter_h"], attrs["filter_w"]))


def _avg_pool_np(a, x):
    total = sum(xs for _, _, xs in _windows_np(a, x, a["filter_h"], a["filter_w"]))
    return total / pool_counts(a, x.shape[1], x.shape[2]).astype(x.dtype)


def _pool_jax(a, x, average):
    lax, jnp = _lax(), _jnp()
    (_, pt, pb), (_, pl, pr) = conv_windows(a, x.shape[1], x.shape[2], a["filter_h"], a["filter_w"])
    window = {"window_dimensions": (1, a["filter_h"], a["filter_w"], 1),
                  "window_strides": (1, a["stride_h"], a["stride_w"], 1),
                  "padding": ((0, 0), (pt, pb), (pl, pr), (0, 0))}
    if not average:
        return lax.reduce_window(x, jnp.array(-jnp.inf, x.dtype), lax.max, **window)
    total = lax.reduce_window(x, jnp.array(0, x.dtype), lax.add, **window)
    return total / jnp.asarray(pool_counts(a, x.shape[1], x.shape[2]), x.dtype)


register(OpDef("MAX_POOL_2D", attrs=dict(_POOL_ATTRS), infer=_pool_infer, numpy=_max_pool_np,
               jax=lambda a, x: _pool_jax(a, x, False), tflite=_tfl("MAX_POOL_2D", "Pool2DOptions", _POOL_TFLITE)))
register(OpDef("AVERAGE_POOL_2D", attrs=dict(_POOL_ATTRS), infer=_pool_infer, numpy=_avg_pool_np,
               jax=lambda a, x: _pool_jax(a, x, True),
               tflite=_tfl("AVERAGE_POOL_2D", "Pool2DOptions", _POOL_TFLITE,
                           notes="SAME windows divide by the count of real inputs, as TFLite does")))


def _pool_attrs(pool_size, strides, padding):
    kh, kw = (pool_size, pool_size) if isinstance(pool_size, int) else pool_size
    strides = (kh, kw) if strides is None else strides
    sh, sw = (strides, strides) if isinstance(strides, int) else strides
    return {"padding": padding.upper(), "stride_h": sh, "stride_w": sw, "filter_h": kh, "filter_w": kw}


def max_pool2d(x, pool_size=2, strides=None, padding: str = "VALID", name: str | None = None) -> Tensor:
    """MAX_POOL_2D over an NHWC x: the maximum of each `pool_size` window (an int or (h, w)), moved by
    `strides` (default: pool_size), `padding` "VALID" or "SAME" (TFLite's offsets)."""
    return _apply("MAX_POOL_2D", [as_tensor(x)], _pool_attrs(pool_size, strides, padding), name=name)


def avg_pool2d(x, pool_size=2, strides=None, padding: str = "VALID", name: str | None = None) -> Tensor:
    """AVERAGE_POOL_2D over an NHWC x: the mean of each `pool_size` window (an int or (h, w)), moved by
    `strides` (default: pool_size), `padding` "VALID" or "SAME"; a SAME window divides by the real inputs it
    covers, as TFLite's does."""
    return _apply("AVERAGE_POOL_2D", [as_tensor(x)], _pool_attrs(pool_size, strides, padding), name=name)


# ---------------------------------------------------------------------------------------- pooling


def _grad_average_pool(node, dys):
    x, a = node.inputs[0], node.attrs
    kh, kw = a["filter_h"], a["filter_w"]
    counts = ops.pool_counts(a, x.shape[1], x.shape[2])
    scaled = ops.mul(dys[0], ops.constant((1.0 / counts).astype(x.dtype), graph=x.graph))
    ones = ops.constant(np.ones((1, kh, kw, x.shape[3]), dtype=x.dtype), graph=x.graph)
    return [_depthwise_input_grad(scaled, ones, a, x.shape, 1)]


def _first_max_hits(y: Tensor, windows) -> list:
    """Per tap, where its window holds the first maximum: a tap holds the maximum where not (y > x_tap);
    `unclaimed` keeps later ties from taking it again."""
    hits, unclaimed = [], None
    for window in windows:
        is_max = ops.sub(1.0, grad._float_mask(ops.greater(y, window), y))
        if unclaimed is None:
            hit, unclaimed = is_max, ops.sub(1.0, is_max)
        else:
            hit = ops.mul(is_max, unclaimed)
            unclaimed = ops.sub(unclaimed, hit)
        hits.append(hit)
    return hits


def _grad_max_pool(node, dys):
    # dy goes to the first maximum of each window (TensorFlow's and XLA's choice), found tap by tap.
    x, y, a = node.inputs[0], node.outputs[0], node.attrs
    dy = dys[0]
    kh, kw = a["filter_h"], a["filter_w"]
    sh, sw = a["stride_h"], a["stride_w"]
    (oh, pt, pb), (ow, pl, pr) = ops.conv_windows(a, x.shape[1], x.shape[2], kh, kw)
    if kh == kw == sh == sw and (oh * kh, ow * kw) == x.shape[1:3]:
        # windows that tile the input: the taps' pieces side by side in channels are DEPTH_TO_SPACE's input
        windows = [w for _, _, w in _window_slices(x, a, kh, kw, oh, ow)]
        pieces = [ops.mul(hit, dy) for hit in _first_max_hits(y, windows)]
        return [ops.depth_to_space(ops.concat(pieces, axis=3), kh)]
    hp, wp = x.shape[1] + pt + pb, x.shape[2] + pl + pr
    xp = x
    if pt or pb or pl or pr:
        border = np.full((1, hp, wp, 1), -np.inf, dtype=x.dtype)
        border[:, pt:pt + x.shape[1], pl:pl + x.shape[2], :] = 0
        xp = ops.add(ops.pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)]), ops.constant(border, graph=x.graph))
    taps = list(_window_slices(xp, a, kh, kw, oh, ow))
    pieces = {(i, j): ops.mul(hit, dy) for (i, j, _), hit in zip(taps, _first_max_hits(y, [w for _, _, w in taps]))}
    total = _scatter_taps(pieces, (sh, sw), (oh, ow), (hp, wp))
    if total.shape[1:3] != x.shape[1:3]:
        total = ops.slice_(total, [0, pt, pl, 0], [-1, x.shape[1], x.shape[2], -1])
    return [total]


def _scatter_taps(pieces: dict, strides: tuple, out_hw: tuple, padded_hw: tuple) -> Tensor:
    """The sum over taps (i, j) of pieces[i, j] ([N, oh, ow, C]) placed at rows i + sh*y, columns j + sw*x of
    a [N, >= hp, >= wp, C] grid (overlapping windows' gradient), without zero insertion: a tap lands on
    the phase (i % sh, j % sw) of the grid, shifted by (i // sh, j // sw) whole strides, so each phase is a
    sum of PADs at the windows' own (coarse) size, and the phases interleave once (PACK + RESHAPE)."""
    (sh, sw), (oh, ow), (hp, wp) = strides, out_hw, padded_hw
    kh, kw = max(i for i, _ in pieces) + 1, max(j for _, j in pieces) + 1
    hc = max(-(-hp // sh), oh + (kh - 1) // sh)  # the coarse grid: every phase's rows, and at least hp in all
    wc = max(-(-wp // sw), ow + (kw - 1) // sw)
    first = next(iter(pieces.values()))
    rows = []
    for ri in range(sh):
        phases = []
        for rj in range(sw):
            total = None
            for (i, j), piece in pieces.items():
                if i % sh == ri and j % sw == rj:
                    qi, qj = i // sh, j // sw
                    placed = ops.pad(piece, [(0, 0), (qi, hc - oh - qi), (qj, wc - ow - qj), (0, 0)])
                    total = placed if total is None else ops.add(total, placed)
            if total is None:  # windows smaller than the stride leave this phase untouched
                total = ops.zeros_like(ops.pad(first, [(0, 0), (0, hc - oh), (0, wc - ow), (0, 0)]))
            phases.append(total)
        rows.append(_interleave(phases, axis=2))
    return _interleave(rows, axis=1)


def _interleave(parts: list, axis: int) -> Tensor:
    """[.., n, ..] tensors -> [.., n * len(parts), ..], element k of part r at k * len(parts) + r."""
    if len(parts) == 1:
        return parts[0]
    shape = list(parts[0].shape)
    shape[axis] *= len(parts)
    return ops.reshape(ops.pack(parts, axis=axis + 1), grad._dims(tuple(shape)))


GRADIENTS = {
    "AVERAGE_POOL_2D": _grad_average_pool,
    "MAX_POOL_2D": _grad_max_pool,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
