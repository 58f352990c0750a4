"""Quantization at a float model's edges: QUANTIZE (float -> integer levels of a scale and zero point) and
DEQUANTIZE (levels -> float, or a float16 value widened). A graph tensor carries no scale: these ops carry it as
attrs, and the converter writes it on the integer tensor between them: one scale and zero point (per tensor), or
one per index of dimension `axis` (per channel, TFLite's quantized_dimension: a weight quantized per output
channel, read through a DEQUANTIZE).

Forward only: the levels are steps (no derivative), as in TensorFlow; a model's QUANTIZE/DEQUANTIZE pairs sit in
its frozen part. Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder."""

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
    """TFLite's (and XNNPACK's) float -> level: x / scale rounded half to even, plus the zero point, clamped."""
    info = np.iinfo(a["dtype"])
    scale, zero_point = _per_axis(a, len(x.shape))
    q = xp.round(x.astype(np.float32) / scale) + zero_point
    return xp.clip(q, info.min, info.max).astype(a["dtype"])


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


GRADIENTS: dict = {}
"""This family's gradient rules: none (forward only: QUANTIZE and DEQUANTIZE are in NO_GRADIENT)."""
