"""MediaPipe's custom pooling ops, as LiteRT runs them (its XNNPACK delegate, the only runtime with kernels for
them besides rillet's): MaxPoolingWithArgmax2D (each window's largest value and the number of its first tap,
t = fx * filter_h + fy, stored as uint32 bits in a float32 tensor) and MaxUnpooling2D (each value put back at
the tap its index names, zeros elsewhere). Windows tile the image (stride = filter); SAME padding repeats the
edge pixel. Written as custom ops with TfLitePoolParams as their options; Convolution2DTransposeBias needs no op
of its own (to_graph imports it as TRANSPOSE_CONV and ADD).

Forward only (segmentation models' frozen part). Each op: its shape rule, numpy reference, JAX lowering and
TFLite mapping, its builder."""

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

GRADIENTS: dict = {}
"""This family's gradient rules: none (forward only: both ops are in NO_GRADIENT)."""
