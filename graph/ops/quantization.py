"""Quantization at a float model's edges: QUANTIZE (float -> integer levels of a scale and zero point) and
DEQUANTIZE (levels -> float, or a float16 value widened). A graph tensor carries no scale: these ops carry it as
attrs, and the converter writes it on the integer tensor between them (TFLite's per-tensor quantization).

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


def _levels(xp, a, x):
    """TFLite's (and XNNPACK's) float -> level: x / scale rounded half to even, plus the zero point, clamped."""
    info = np.iinfo(a["dtype"])
    q = xp.round(x.astype(np.float32) / np.float32(a["scale"])) + a["zero_point"]
    return xp.clip(q, info.min, info.max).astype(a["dtype"])


def _quantize_infer(attrs, specs):
    shape, dtype = specs[0]
    if dtype != "float32":
        raise ValueError(f"quantizes float32, got {dtype}")
    if attrs["dtype"] not in LEVELS:
        raise ValueError(f"quantizes to one of {', '.join(LEVELS)}, not {attrs['dtype']}")
    _check_scale(attrs)
    return [(shape, attrs["dtype"])]


def _check_scale(attrs) -> None:
    scale = attrs["scale"]
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale {scale} must be positive and finite")


register(OpDef("QUANTIZE", attrs={"scale": REQUIRED, "zero_point": 0, "dtype": "int8"}, infer=_quantize_infer,
               numpy=lambda a, x: _levels(np, a, x), jax=lambda a, x: _levels(_jnp(), a, x),
               tflite=_tfl("QUANTIZE", notes="scale and zero point written on the output tensor")))


def quantize(x: Any, scale: float, zero_point: int = 0, dtype: str = "int8", name: str | None = None) -> Tensor:
    """QUANTIZE: float32 x as `dtype` levels, round(x / scale) + zero_point clamped to the type's range."""
    return _apply("QUANTIZE", [as_tensor(x)], {"scale": float(scale), "zero_point": int(zero_point),
                                               "dtype": np.dtype(dtype).name}, name=name)


def _dequantize_infer(attrs, specs):
    shape, dtype = specs[0]
    if dtype == "float16":
        return [(shape, "float32")]
    if dtype not in LEVELS:
        raise ValueError(f"dequantizes {', '.join(LEVELS)} levels or float16, not {dtype}")
    if attrs["scale"] is None:
        raise ValueError(f"{dtype} levels need a scale")
    _check_scale(attrs)
    return [(shape, "float32")]


def _from_levels(xp, a, q):
    if a["scale"] is None:  # float16
        return q.astype(np.float32)
    return ((q.astype(np.int32) - a["zero_point"]).astype(np.float32) * np.float32(a["scale"])).astype(np.float32)


register(OpDef("DEQUANTIZE", attrs={"scale": None, "zero_point": 0}, infer=_dequantize_infer,
               numpy=lambda a, q: _from_levels(np, a, q), jax=lambda a, q: _from_levels(_jnp(), a, q),
               tflite=_tfl("DEQUANTIZE", notes="scale and zero point written on the input tensor")))


def dequantize(q: Any, scale: float | None = None, zero_point: int = 0, name: str | None = None) -> Tensor:
    """DEQUANTIZE: integer levels q as float32, (q - zero_point) * scale; a float16 q widened (no scale)."""
    return _apply("DEQUANTIZE", [as_tensor(q)], {"scale": None if scale is None else float(scale),
                                                 "zero_point": int(zero_point)}, name=name)


GRADIENTS: dict = {}
"""This family's gradient rules: none (forward only: QUANTIZE and DEQUANTIZE are in NO_GRADIENT)."""
