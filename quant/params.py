"""Quantization parameters as TFLite's spec defines them: asymmetric int8 activations from a float range,
symmetric int8 weights (per tensor or per output channel), int32 biases, float16 weights; and TFLite's 16x8
scheme's symmetric int16 activations (zero point 0) with int64 biases."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rillet.converter.format import QuantizationParameters

INT8_MIN, INT8_MAX = -128, 127
INT16_MAX = 32767  # int16 activations use [-32767, 32767] around zero point 0, as TensorFlow's 16x8 converter
WEIGHT_MAX = 127  # weights use [-127, 127] so that -w is representable (TFLite's spec)


@dataclass(frozen=True)
class QParams:
    """Scales and zero points of one int8 (or int32) tensor; one entry per tensor, or per channel of `axis`."""

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int = 0

    @property
    def per_tensor(self) -> tuple[float, int]:
        return self.scale[0], self.zero_point[0]

    def parameters(self) -> QuantizationParameters:
        return QuantizationParameters(scale=[float(s) for s in self.scale],
                                      zero_point=[int(z) for z in self.zero_point],
                                      quantized_dimension=self.axis)


def round_half_away(x: np.ndarray) -> np.ndarray:
    """std::round, as TFLite rounds when it quantizes (numpy's round goes half to even)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def activation_params(lo: float, hi: float) -> QParams:
    """Asymmetric int8 from a float range: the range is widened to hold 0, and the zero point nudged to an
    integer in [-128, 127], as TensorFlow's converter does (scale = (max - min) / 255)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if not np.isfinite(lo) or not np.isfinite(hi):
        raise ValueError(f"range [{lo}, {hi}] is not finite")
    if hi == lo:  # a tensor that is always 0: any scale represents it exactly
        return QParams((1.0,), (INT8_MIN,))
    scale = (hi - lo) / (INT8_MAX - INT8_MIN)
    zero_point_from_min = INT8_MIN - lo / scale
    zero_point = int(np.clip(round_half_away(np.float64(zero_point_from_min)), INT8_MIN, INT8_MAX))
    return QParams((float(np.float32(scale)),), (zero_point,))


def int16_activation_params(lo: float, hi: float) -> QParams:
    """Symmetric int16 (zero point 0) from a float range: scale max(|lo|, |hi|) / 32767, as TensorFlow's
    16x8 converter computes it."""
    peak = max(-min(float(lo), 0.0), max(float(hi), 0.0))
    if not np.isfinite(peak):
        raise ValueError(f"range [{lo}, {hi}] is not finite")
    return QParams((float(np.float32(peak / INT16_MAX)) if peak > 0 else 1.0,), (0,))


def weight_scales(w: np.ndarray, axis: int | None) -> np.ndarray:
    """Symmetric scales max|w| / 127, per slice of `axis` (None: one for the whole tensor)."""
    w = np.asarray(w, np.float64)
    if axis is None:
        peak = np.array([np.abs(w).max() if w.size else 0.0])
    else:
        peak = np.abs(np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)).max(axis=1)
    scales = peak / WEIGHT_MAX
    return np.where(scales > 0, scales, 1.0).astype(np.float32)


def quantize_weights(w: np.ndarray, axis: int | None) -> tuple[np.ndarray, QParams]:
    scales = weight_scales(w, axis)
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    q = round_half_away(np.asarray(w, np.float64) / scales.astype(np.float64).reshape(shape))
    q = np.clip(q, -WEIGHT_MAX, WEIGHT_MAX).astype(np.int8)
    return q, QParams(tuple(float(s) for s in scales), (0,) * scales.size, axis or 0)


def quantize_bias(b: np.ndarray, input_scale: float, weight: QParams,
                  dtype: type = np.int32) -> tuple[np.ndarray, QParams]:
    """int32 bias (int64 beside int16 activations) with scale input_scale * weight_scale (per channel when the
    weights are)."""
    scales = (np.float64(input_scale) * np.asarray(weight.scale, np.float64)).astype(np.float32)
    scales = np.broadcast_to(scales, b.shape) if scales.size == 1 and b.size > 1 else scales
    q = round_half_away(np.asarray(b, np.float64) / scales.astype(np.float64))
    q = np.clip(q, np.iinfo(dtype).min, np.iinfo(dtype).max).astype(dtype)
    if len(weight.scale) == 1:
        return q, QParams((float(scales.reshape(-1)[0]),), (0,))
    return q, QParams(tuple(float(s) for s in scales), (0,) * scales.size, 0)


def quantize_values(x: np.ndarray, params: QParams, dtype: type = np.int8) -> np.ndarray:
    """Per-tensor int8 (or int16) values of a float array (a constant operand of a quantized op)."""
    scale, zero_point = params.per_tensor
    q = round_half_away(np.asarray(x, np.float64) / np.float64(scale)) + zero_point
    return np.clip(q, np.iinfo(dtype).min, np.iinfo(dtype).max).astype(dtype)


def dequantize(q: np.ndarray, params: QParams) -> np.ndarray:
    scale, zero_point = params.per_tensor
    return (q.astype(np.float64) - zero_point) * scale


def negation_input_params(p: QParams) -> QParams:
    """The parameters a NEG's input is requantized to first. LiteRT's int8 NEG negates the stored integers
    (reading no scale or zero point, -128 stays -128): on a view that maps the whole range of `p` onto
    [-127, 127], every value has its negation, and (scale, -zero point) is the output's exact parameters."""
    scale, zero_point = p.per_tensor
    wider = np.float64(scale) * 255 / 254
    lo = np.float64(scale) * (INT8_MIN - zero_point)
    new_zero = int(np.clip(round_half_away(np.float64(-127 - lo / wider)), -127, 127))
    return QParams((float(np.float32(wider)),), (new_zero,))


def negated_params(p: QParams) -> QParams:
    """The parameters of -x where x has `p` and the integers are negated: the same scale, the zero point's
    negation."""
    scale, zero_point = p.per_tensor
    return QParams((scale,), (-zero_point,))
