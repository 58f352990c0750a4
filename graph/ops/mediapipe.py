"""MediaPipe's custom pooling ops, as LiteRT runs them (its XNNPACK delegate, the only runtime with kernels for
them besides rillet's): MaxPoolingWithArgmax2D (each window's largest value and the number of its first tap,
t = fx * filter_h + fy, stored as uint32 bits in a float32 tensor) and MaxUnpooling2D (each value put back at
the tap its index names, zeros elsewhere). Windows tile the image (stride = filter); SAME padding repeats the
edge pixel. Written as custom ops with TfLitePoolParams as their options; Convolution2DTransposeBias needs no op
of its own (to_graph imports it as TRANSPOSE_CONV and ADD).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, its gradient rule (the
ops themselves: MaxUnpooling2D scatters a gradient to the taps the indices name)."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _jnp, _tfl, as_tensor

PADDING_CODES = {"SAME": 1, "VALID": 2}
"""TfLitePadding's codes, as TfLitePoolParams holds them."""


def pool_options(attrs: dict) -> bytes:
    """TfLitePoolParams as MediaPipe's models store it: padding, stride w/h, filter w/h, activation (none), then
    the four int32 of padding the kernel computes."""
    fh, fw = attrs["filter"]
    return struct.pack("<10i", PADDING_CODES[attrs["padding"]], fw, fh, fw, fh, 0, 0, 0, 0, 0)


def pool_attrs(options: bytes, what: str) -> dict:
    """The attrs of TfLitePoolParams bytes; ValueError naming what they hold that the ops do not take."""
    if len(options) < 24:
        raise ValueError(f"{what}: {len(options)} bytes of options, not the 24 or more of TfLitePoolParams")
    padding, sw, sh, fw, fh, activation = struct.unpack("<6i", bytes(options[:24]))
    names = {v: k for k, v in PADDING_CODES.items()}
    if padding not in names or (sh, sw) != (fh, fw) or activation != 0:
        raise ValueError(f"{what}: padding {padding}, strides {sh} x {sw}, filter {fh} x {fw}, activation "
                         f"{activation}; the graph takes SAME (1) or VALID (2), strides equal to the filter, no "
                         "activation")
    return {"filter": (fh, fw), "padding": names[padding]}


def _pooled(size: int | None, f: int, padding: str) -> int | None:
    if size is None:
        return None
    return -(-size // f) if padding == "SAME" else (size - f) // f + 1


def _check(attrs, spec, what: str) -> None:
    shape, dtype = spec
    if dtype != "float32" or len(shape) != 4:
        raise ValueError(f"{what} must be a float32 [batch, height, width, channels], got {dtype} {list(shape)}")
    if attrs["padding"] not in PADDING_CODES or min(attrs["filter"]) < 1:
        raise ValueError(f"filter {attrs['filter']}, padding {attrs['padding']!r}")


def _argmax_infer(attrs, specs):
    _check(attrs, specs[0], "the input")
    n, h, w, c = specs[0][0]
    (fh, fw), padding = attrs["filter"], attrs["padding"]
    if padding == "VALID" and ((h is not None and h < fh) or (w is not None and w < fw)):
        raise ValueError(f"the {h} x {w} input is smaller than the {fh} x {fw} window")
    out = (n, _pooled(h, fh, padding), _pooled(w, fw, padding), c)
    return [(out, "float32"), (out, "float32")]


def _windows(xp, attrs, x):
    """x's windows as [batch, out_h, out_w, taps, channels], taps x-major; SAME's overhang repeats the edge."""
    (fh, fw), padding = attrs["filter"], attrs["padding"]
    n, h, w, c = x.shape
    oh, ow = _pooled(h, fh, padding), _pooled(w, fw, padding)
    rows = np.clip(np.arange(oh * fh) - max(oh * fh - h, 0) // 2, 0, h - 1)
    cols = np.clip(np.arange(ow * fw) - max(ow * fw - w, 0) // 2, 0, w - 1)
    x = x[:, rows][:, :, cols]
    x = xp.reshape(x, (n, oh, fh, ow, fw, c)).transpose(0, 1, 3, 4, 2, 5)
    return xp.reshape(x, (n, oh, ow, fw * fh, c))


def _argmax(xp, attrs, x, as_float):
    taps = _windows(xp, attrs, x)
    index = xp.argmax(taps, axis=3)  # the first of equal values, as XNNPACK keeps the earliest tap
    values = xp.take_along_axis(taps, index[:, :, :, None], axis=3)[:, :, :, 0]
    return values, as_float(index.astype(np.uint32))


register(OpDef("MaxPoolingWithArgmax2D", attrs={"filter": REQUIRED, "padding": "VALID"}, infer=_argmax_infer,
               numpy=lambda a, x: _argmax(np, a, x, lambda i: i.view(np.float32)),
               jax=lambda a, x: _argmax(_jnp(), a, x, _bits_as_float),
               tflite=_tfl("MaxPoolingWithArgmax2D", notes="a custom op; options TfLitePoolParams (pool_options)")))


def max_pool_with_argmax(x: Any, filter_hw: Sequence[int], padding: str = "VALID",
                         name: str | None = None) -> list[Tensor]:
    """MediaPipe's MaxPoolingWithArgmax2D over windows of `filter_hw` that tile x: [values, indices], the indices
    each window's first largest tap (fx * filter_h + fy) as uint32 bits in float32 (`.view(np.uint32)` reads
    them)."""
    node = as_tensor(x).graph.add_node("MaxPoolingWithArgmax2D", [as_tensor(x)],
                                       {"filter": tuple(int(f) for f in filter_hw), "padding": padding.upper()}, name)
    return list(node.outputs)


def _unpool_infer(attrs, specs):
    _check(attrs, specs[0], "the values")
    if specs[1][1] not in ("float32", "int32") or tuple(specs[1][0]) != tuple(specs[0][0]):
        raise ValueError(f"the indices must be float32 (or int32) of the values' shape, got {specs[1]}")
    if attrs["padding"] != "VALID":
        raise ValueError("takes VALID padding only, as LiteRT's XNNPACK does")
    n, h, w, c = specs[0][0]
    fh, fw = attrs["filter"]
    return [((n, None if h is None else h * fh, None if w is None else w * fw, c), "float32")]


def _unpool(xp, attrs, values, index):
    fh, fw = attrs["filter"]
    n, h, w, c = values.shape
    taps = [xp.where(index == t, values, 0.0).astype(np.float32) for t in range(fh * fw)]
    y = xp.stack(taps, axis=3)  # [n, h, w, fw * fh, c], x-major
    y = xp.reshape(y, (n, h, w, fw, fh, c)).transpose(0, 1, 4, 2, 3, 5)
    return xp.reshape(y, (n, h * fh, w * fw, c))


def _unpool_np(a, values, index):
    return _unpool(np, a, values, index.view(np.uint32) if index.dtype == np.float32 else index.astype(np.uint32))


def _unpool_jax(a, values, index):
    from jax import lax
    bits = lax.bitcast_convert_type(index, np.uint32) if index.dtype == np.float32 else index.astype(np.uint32)
    return _unpool(_jnp(), a, values, bits)


def _bits_as_float(index):
    from jax import lax
    return lax.bitcast_convert_type(index, np.float32)


register(OpDef("MaxUnpooling2D", attrs={"filter": REQUIRED, "padding": "VALID"}, infer=_unpool_infer,
               numpy=_unpool_np, jax=_unpool_jax,
               tflite=_tfl("MaxUnpooling2D", notes="a custom op; options TfLitePoolParams (pool_options)")))


def max_unpool(values: Any, indices: Any, filter_hw: Sequence[int], name: str | None = None) -> Tensor:
    """MediaPipe's MaxUnpooling2D: each value at the tap of its window that `indices` names (as
    max_pool_with_argmax gives them), zeros elsewhere; the output is filter_hw times the values' size."""
    return _apply("MaxUnpooling2D", [as_tensor(values), as_tensor(indices)],
                  {"filter": tuple(int(f) for f in filter_hw), "padding": "VALID"}, name=name)


CUSTOM_OPS = {"MaxPoolingWithArgmax2D", "MaxUnpooling2D"}
"""The graph ops written as custom ops (their options TfLitePoolParams: pool_options / pool_attrs)."""

def _window_sums(g: Tensor, filter_hw: tuple) -> Tensor:
    """g [n, h * fh, w * fw, c] summed over each fh x fw window: [n, h, w, c] (ranks of three at most)."""
    from .. import ops

    n, big_h, big_w, c = g.shape
    (fh, fw), h, w = filter_hw, big_h // filter_hw[0], big_w // filter_hw[1]
    rows = ops.reduce_sum(ops.reshape(g, [-1, fh, big_w * c]), 1)  # [n * h, w * fw * c]
    both = ops.reduce_sum(ops.reshape(rows, [-1, fw, c]), 1)  # [n * h * w, c]
    return ops.reshape(both, [-1 if n is None else n, h, w, c])


def _grad_unpool(node, dys):
    """Each value's gradient is dy at the tap its index names: dy masked by the unpooling of ones (a 1 at each
    window's one tap), summed over the window."""
    from .. import ops

    values, indices = node.inputs
    ones = ops.add(ops.mul(values, 0.0), 1.0)
    mask = _apply("MaxUnpooling2D", [ones, indices], dict(node.attrs))
    return [_window_sums(ops.mul(dys[0], mask), node.attrs["filter"]), None]


def _grad_argmax_pool(node, dys):
    """dy of each window at its largest tap (MaxUnpooling2D of dy by the indices) over the windows' grid, then
    that grid folded back onto the input: SAME's overhang, which repeats the edge pixel, added onto the edge,
    VALID's leftover rows and columns given zeros."""
    from .. import ops

    x = node.inputs[0]
    fh, fw = node.attrs["filter"]
    grid = _apply("MaxUnpooling2D", [dys[0], node.outputs[1]], {"filter": (fh, fw), "padding": "VALID"})
    for axis, size in ((1, x.shape[1]), (2, x.shape[2])):
        if size is None:
            raise ValueError(f'gradient of MaxPoolingWithArgmax2D "{node.name}": the image size must be static')
        covered = grid.shape[axis]
        if covered < size:  # VALID: the rows no window reads
            pad = [[0, 0]] * 4
            pad[axis] = [0, size - covered]
            grid = ops.pad(grid, pad)
        elif covered > size:  # SAME: the overhang before and after repeats the first and last row
            before = (covered - size) // 2
            after = covered - size - before
            parts = ops.split_v(grid, [before, size, after] if before else [size, after], axis=axis)
            middle = parts[1] if before else parts[0]
            first = ops.slice_(middle, [0] * 4, [-1 if a != axis else 1 for a in range(4)])
            last = ops.slice_(middle, [0 if a != axis else size - 1 for a in range(4)],
                              [-1 if a != axis else 1 for a in range(4)])
            inner = ops.slice_(middle, [0 if a != axis else 1 for a in range(4)],
                               [-1 if a != axis else size - 2 for a in range(4)]) if size > 2 else None
            if before:
                first = ops.add(first, ops.reduce_sum(parts[0], [axis], keepdims=True))
            last = ops.add(last, ops.reduce_sum(parts[-1], [axis], keepdims=True))
            if size == 1:
                grid = ops.add(first, ops.sub(last, middle))  # one row: it takes both overhangs
            else:
                grid = ops.concat([first, *([inner] if inner is not None else []), last], axis)
    return [grid]


GRADIENTS = {
    "MaxPoolingWithArgmax2D": _grad_argmax_pool,
    "MaxUnpooling2D": _grad_unpool,
}
"""This family's gradient rules by op name: gradients built from the ops themselves (a segmentation model's
decoder, unpooling by its encoder's indices, may sit in a trained tail); merged into
`rillet.graph.ops.GRADIENTS`."""
