"""Resizes: RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, as separable linear maps.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import (
    _apply,
    _jnp,
    _tfl,
    as_tensor,
)

# --------------------------------------------------------------------------------------------- resize


def resize_matrix(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool,
                  nearest: bool) -> np.ndarray:
    """[out, in] weights of TFLite's 1-D resize (the 2-D resizes are separable), computed in float32 as
    TFLite computes its source coordinates."""
    f32 = np.float32
    scale = f32(in_size - 1) / f32(out_size - 1) if align_corners and out_size > 1 else f32(in_size) / f32(out_size)
    m = np.zeros((out_size, in_size))
    for o in range(out_size):
        if nearest:
            offset = f32(0.5) if half_pixel_centers else f32(0)
            src = (f32(o) + offset) * scale
            i = int(np.floor(src + f32(0.5))) if align_corners else int(np.floor(src))
            i = min(i, in_size - 1)
            m[o, max(i, 0) if half_pixel_centers else i] = 1.0
        else:
            src = (f32(o) + f32(0.5)) * scale - f32(0.5) if half_pixel_centers else f32(o) * scale
            lo = max(int(np.floor(src)), 0)
            hi = min(int(np.ceil(src)), in_size - 1)
            frac = float(src) - lo
            m[o, lo] += 1.0 - frac
            m[o, hi] += frac
    return m


def resize_matrices(attrs: dict, in_h: int, in_w: int, nearest: bool):
    """The (rows, columns) resize_matrix pair for a RESIZE node's `attrs` (its `size`, `align_corners`,
    `half_pixel_centers`) from an in_h x in_w input; `nearest` for RESIZE_NEAREST_NEIGHBOR."""
    out_h, out_w = attrs["size"]
    return (resize_matrix(in_h, out_h, attrs["align_corners"], attrs["half_pixel_centers"], nearest),
            resize_matrix(in_w, out_w, attrs["align_corners"], attrs["half_pixel_centers"], nearest))


def _resize_infer(attrs, specs):
    xs, xd = specs[0]
    if len(xs) != 4 or None in xs[1:3]:
        raise ValueError(f"input must be NHWC with static height and width, got {xs}")
    return [((xs[0], *attrs["size"], xs[3]), xd)]


def _resize_np(a, x, nearest):
    mh, mw = resize_matrices(a, x.shape[1], x.shape[2], nearest)
    return np.einsum("oh,nhwc,pw->nopc", mh.astype(x.dtype), x, mw.astype(x.dtype))


def _resize_jax(a, x, nearest):
    jnp = _jnp()
    mh, mw = resize_matrices(a, x.shape[1], x.shape[2], nearest)
    return jnp.einsum("oh,nhwc,pw->nopc", jnp.asarray(mh, x.dtype), x, jnp.asarray(mw, x.dtype),
                      precision="highest")


_RESIZE_ATTRS = {"size": REQUIRED, "align_corners": False, "half_pixel_centers": False}
_RESIZE_MAP = {"align_corners": "align_corners", "half_pixel_centers": "half_pixel_centers"}
register(OpDef("RESIZE_BILINEAR", attrs=dict(_RESIZE_ATTRS), infer=_resize_infer,
               numpy=lambda a, x: _resize_np(a, x, False), jax=lambda a, x: _resize_jax(a, x, False),
               tflite=_tfl("RESIZE_BILINEAR", "ResizeBilinearOptions", _RESIZE_MAP, ["size"])))
register(OpDef("RESIZE_NEAREST_NEIGHBOR", attrs=dict(_RESIZE_ATTRS), infer=_resize_infer,
               numpy=lambda a, x: _resize_np(a, x, True), jax=lambda a, x: _resize_jax(a, x, True),
               tflite=_tfl("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions", _RESIZE_MAP, ["size"])))


def resize_bilinear(x, size, align_corners: bool = False, half_pixel_centers: bool = False,
                    name: str | None = None) -> Tensor:
    """RESIZE_BILINEAR: an NHWC x resized to `size` (height, width) by bilinear interpolation, with
    TFLite's `align_corners` and `half_pixel_centers` conventions."""
    attrs = {"size": tuple(size), "align_corners": align_corners, "half_pixel_centers": half_pixel_centers}
    return _apply("RESIZE_BILINEAR", [as_tensor(x)], attrs, name=name)


def resize_nearest(x, size, align_corners: bool = False, half_pixel_centers: bool = False,
                   name: str | None = None) -> Tensor:
    """RESIZE_NEAREST_NEIGHBOR: an NHWC x resized to `size` (height, width) taking the nearest pixel, with
    TFLite's `align_corners` and `half_pixel_centers` conventions."""
    attrs = {"size": tuple(size), "align_corners": align_corners, "half_pixel_centers": half_pixel_centers}
    return _apply("RESIZE_NEAREST_NEIGHBOR", [as_tensor(x)], attrs, name=name)


def _grad_resize(node, dys):
    # both resizes are separable linear maps y = Mh x Mw^T per image and channel, so
    # dx = Mh^T dy Mw, two BATCH_MATMULs on [N, C, H, W]
    x = node.inputs[0]
    mh, mw = ops.resize_matrices(node.attrs, x.shape[1], x.shape[2], node.op == "RESIZE_NEAREST_NEIGHBOR")
    g = ops.transpose(dys[0], [0, 3, 1, 2])
    g = ops.batch_matmul(g, ops.constant(mw.astype(x.dtype), graph=x.graph))
    g = ops.batch_matmul(ops.constant(mh.T.astype(x.dtype), graph=x.graph), g)
    return [ops.transpose(g, [0, 2, 3, 1])]


GRADIENTS = {
    "RESIZE_BILINEAR": _grad_resize,
    "RESIZE_NEAREST_NEIGHBOR": _grad_resize,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
