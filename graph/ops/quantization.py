"""Quantization at a float model's edges: QUANTIZE (float -> integer levels of a scale and zero point) and
DEQUANTIZE (levels -> float, or a float16 value widened). A graph tensor carries no scale: these ops carry it as
attrs, and the converter writes it on the integer tensor between them: one scale and zero point (per tensor), or
one per index of dimension `axis` (per channel, TFLite's quantized_dimension: a weight quantized per output
channel, read through a DEQUANTIZE).

Gradients are straight-through, TensorFlow's fake-quant gradient: rounding counts as the identity, so a QUANTIZE ->
DEQUANTIZE pair (a quantization-aware model's fake quantization, in a trained tail) passes its output's gradient to
its input where the input lies within the levels' range [(min - zero point) x scale, (max - zero point) x scale],
and zero outside, where the clamp holds it. The levels' gradient is a float tensor of their shape (autodiff lets a
QUANTIZE's integer output carry one): DEQUANTIZE's rule gives dy x scale, QUANTIZE's takes it over the scale. A
float16 DEQUANTIZE (a weight's storage) takes none. Each op: its shape rule, numpy reference, JAX lowering and
TFLite mapping, its builder, its gradient rule."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _jnp, _tfl, as_tensor

LEVELS = ("int8", "uint8", "int16")
"""The integer types QUANTIZE makes and DEQUANTIZE reads."""


def _per_axis(a, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """The scale (float32) and zero point (int32), shaped to broadcast along attr axis (or scalars)."""
    scale, zero_point = np.float32(a["scale"]) if a["axis"] is None else np.asarray(a["scale"], np.float32), \
        np.asarray(a["zero_point"], np.int32)
    if a["axis"] is None:
        return scale, zero_point
    shape = [1] * rank
    shape[a["axis"] % rank] = -1
    return scale.reshape(shape), np.broadcast_to(zero_point, scale.shape).reshape(shape)


def _levels(xp, a, x):
    """The float -> level LiteRT runs: x / scale rounded half to even (XNNPACK's, per tensor) or half away from
    zero (per channel, which XNNPACK declines: TFLite's reference kernel), plus the zero point, clamped."""
    info = np.iinfo(a["dtype"])
    scale, zero_point = _per_axis(a, len(x.shape))
    v = x.astype(np.float32) / scale
    rounded = xp.round(v)
    if a["axis"] is not None:  # a tie goes away from zero (v - trunc(v) is exact, so a tie is seen exactly)
        whole = xp.trunc(v)
        rounded = xp.where(xp.abs(v - whole) == 0.5, whole + xp.sign(v), rounded)
    return xp.clip(rounded + zero_point, info.min, info.max).astype(a["dtype"])


def _quantize_infer(attrs, specs):
    shape, dtype = specs[0]
    if dtype != "float32":
        raise ValueError(f"quantizes float32, got {dtype}")
    if attrs["dtype"] not in LEVELS:
        raise ValueError(f"quantizes to one of {', '.join(LEVELS)}, not {attrs['dtype']}")
    _check_scale(attrs, shape)
    return [(shape, attrs["dtype"])]


def _check_scale(attrs, shape) -> None:
    scale = np.asarray(attrs["scale"], np.float64)
    if not (np.all(np.isfinite(scale)) and np.all(scale > 0)):
        raise ValueError(f"scale {attrs['scale']} must be positive and finite")
    axis = attrs["axis"]
    if axis is None:
        if scale.ndim != 0:
            raise ValueError(f"{scale.size} scales need an axis (per channel)")
        return
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of range for rank {len(shape)}")
    channels = shape[axis]
    zero_points = np.asarray(attrs["zero_point"])
    if scale.ndim != 1 or (channels is not None and scale.size != channels) or zero_points.size not in (1, scale.size):
        raise ValueError(f"per channel along axis {axis} of {list(shape)}: {scale.size} scales and "
                         f"{zero_points.size} zero points")


register(OpDef("QUANTIZE", attrs={"scale": REQUIRED, "zero_point": 0, "dtype": "int8", "axis": None},
               infer=_quantize_infer,
               numpy=lambda a, x: _levels(np, a, x), jax=lambda a, x: _levels(_jnp(), a, x),
               tflite=_tfl("QUANTIZE", notes="scale and zero point written on the output tensor")))


def _scale_attrs(scale: Any, zero_point: Any, axis: int | None) -> dict[str, Any]:
    if axis is None:
        return {"scale": float(scale), "zero_point": int(zero_point), "axis": None}
    scales = tuple(float(v) for v in np.ravel(scale))
    zero_points = tuple(int(v) for v in np.broadcast_to(np.ravel(zero_point), (len(scales),)))
    return {"scale": scales, "zero_point": zero_points, "axis": int(axis)}


def quantize(x: Any, scale: Any, zero_point: Any = 0, dtype: str = "int8", axis: int | None = None,
             name: str | None = None) -> Tensor:
    """QUANTIZE: float32 x as `dtype` levels, round(x / scale) + zero_point clamped to the type's range; with
    `axis`, one scale (and zero point) per index of that dimension."""
    return _apply("QUANTIZE", [as_tensor(x)], {**_scale_attrs(scale, zero_point, axis),
                                               "dtype": np.dtype(dtype).name}, name=name)


def _dequantize_infer(attrs, specs):
    shape, dtype = specs[0]
    if dtype == "float16":
        return [(shape, "float32")]
    if dtype not in LEVELS:
        raise ValueError(f"dequantizes {', '.join(LEVELS)} levels or float16, not {dtype}")
    if attrs["scale"] is None:
        raise ValueError(f"{dtype} levels need a scale")
    _check_scale(attrs, shape)
    return [(shape, "float32")]


def _from_levels(xp, a, q):
    if a["scale"] is None:  # float16
        return q.astype(np.float32)
    scale, zero_point = _per_axis(a, len(q.shape))
    return ((q.astype(np.int32) - zero_point).astype(np.float32) * scale).astype(np.float32)


register(OpDef("DEQUANTIZE", attrs={"scale": None, "zero_point": 0, "axis": None}, infer=_dequantize_infer,
               numpy=lambda a, q: _from_levels(np, a, q), jax=lambda a, q: _from_levels(_jnp(), a, q),
               tflite=_tfl("DEQUANTIZE", notes="scale and zero point written on the input tensor")))


def dequantize(q: Any, scale: Any = None, zero_point: Any = 0, axis: int | None = None,
               name: str | None = None) -> Tensor:
    """DEQUANTIZE: integer levels q as float32, (q - zero_point) * scale; with `axis`, one scale (and zero
    point) per index of that dimension; a float16 q widened (no scale)."""
    attrs = {"scale": None, "zero_point": 0, "axis": None} if scale is None else _scale_attrs(scale, zero_point, axis)
    return _apply("DEQUANTIZE", [as_tensor(q)], attrs, name=name)


def _scale_constants(attrs: dict, like: Tensor) -> tuple[Tensor, np.ndarray, np.ndarray]:
    """The scale as a constant of `like`'s dtype broadcasting along the attrs' axis, and the zero point as numpy."""
    from .core import constant
    scale, zero_point = _per_axis(attrs, len(like.shape))
    return constant(np.asarray(scale, like.dtype), graph=like.graph), scale, zero_point


def _grad_quantize(node, dys):
    """Straight-through: d levels / dx is 1 / scale where x lies within the levels' range (TensorFlow's fake-quant
    mask: min <= x <= max), 0 where the clamp holds it."""
    from .compare import greater_equal, less_equal, logical_and
    from .core import constant
    from .elementwise import cast, div, mul

    (x,), (dq,) = node.inputs, dys
    scale_t, scale, zero_point = _scale_constants(node.attrs, x)
    info = np.iinfo(node.attrs["dtype"])
    low = constant(((info.min - zero_point) * scale).astype(x.dtype), graph=x.graph)
    high = constant(((info.max - zero_point) * scale).astype(x.dtype), graph=x.graph)
    inside = cast(logical_and(greater_equal(x, low), less_equal(x, high)), x.dtype)
    return [mul(div(dq, scale_t), inside)]


def _grad_dequantize(node, dys):
    """d float / d levels is the scale (the levels' gradient a float tensor of their shape); a float16 weight's
    widening takes none (a trained weight is a float32 variable)."""
    from .elementwise import mul

    if node.attrs["scale"] is None:
        return [None]
    scale_t, _, _ = _scale_constants(node.attrs, node.outputs[0])
    return [mul(dys[0], scale_t)]


GRADIENTS = {
    "QUANTIZE": _grad_quantize,
    "DEQUANTIZE": _grad_dequantize,
}
"""This family's gradient rules (straight-through); merged into `rillet.graph.ops.GRADIENTS`."""
