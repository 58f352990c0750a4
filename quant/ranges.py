"""Activation ranges from calibration statistics: min/max (TensorFlow's choice), a percentile of the
values, or the range that minimises the expected squared quantization error over the histogram."""

from __future__ import annotations

import numpy as np

from rillet.converter.format import ModelFile

from .calibrate import TensorStats

METHODS = ("minmax", "percentile", "mse", "auto")
"""How an activation's int8 range is chosen from calibration (`quantize(calibration=...)`): "minmax",
"percentile" (clip the rarest values), "mse" (the range with the least squared error) and "auto" (min/max for
the inputs of ops that follow their largest values, such as SOFTMAX and MAX_POOL_2D; mse elsewhere)."""
# Ops whose result follows their input's largest values: a range clipped below the maximum moves it (a
# softmax's winner, a max pool's output), so "auto" calibrates their inputs by min/max.
MAX_READERS = {"SOFTMAX", "LOG_SOFTMAX", "ARG_MAX", "ARG_MIN", "REDUCE_MAX", "REDUCE_MIN", "MAX_POOL_2D"}


def method_for(calibration: str, model: ModelFile, k: int, i: int) -> str:
    """The range method of tensor i of subgraph k: `calibration`, or for "auto" min/max where an op of
    MAX_READERS reads it and mse elsewhere."""
    if calibration != "auto":
        return calibration
    readers = {model.op_name(op) for op in model.subgraphs[k].operators if i in (op.inputs or [])}
    return "minmax" if readers & MAX_READERS else "mse"


def choose_range(stats: TensorStats, method: str = "minmax", percentile: float = 99.99) -> tuple[float, float]:
    if method == "minmax" or stats.histogram is None or stats.histogram.sum() == 0 or \
            not (np.isfinite(stats.lo) and np.isfinite(stats.hi)):  # infinities: the planner decides
        return stats.lo, stats.hi
    if method == "percentile":
        return percentile_range(stats, percentile)
    if method == "mse":
        return mse_range(stats)
    raise ValueError(f"calibration method {method!r}: choose one of {', '.join(METHODS)}")


def _cdf_edge(stats: TensorStats, fraction: float) -> float:
    """The value below which `fraction` of the samples lie (linear within a bin)."""
    cdf = np.cumsum(stats.histogram) / stats.histogram.sum()
    k = int(np.searchsorted(cdf, fraction))
    k = min(k, len(cdf) - 1)
    below = cdf[k - 1] if k else 0.0
    inside = (fraction - below) / max(cdf[k] - below, 1e-300)
    return float(stats.edges[k] + np.clip(inside, 0, 1) * (stats.edges[k + 1] - stats.edges[k]))


def percentile_range(stats: TensorStats, percentile: float) -> tuple[float, float]:
    """Clip the (100 - p)% of values beyond each side's tail, never beyond what was seen."""
    tail = (100.0 - percentile) / 100.0
    lo = max(stats.lo, _cdf_edge(stats, tail)) if stats.lo < 0 else stats.lo
    hi = min(stats.hi, _cdf_edge(stats, 1.0 - tail)) if stats.hi > 0 else stats.hi
    return lo, hi


def quantization_errors(centers: np.ndarray, counts: np.ndarray, lo: np.ndarray | float,
                        hi: np.ndarray | float) -> np.ndarray:
    """Expected squared error of int8 over each [lo, hi] (arrays of candidates, broadcast): clipping outside,
    uniform rounding (step^2 / 12) inside."""
    lo = np.minimum(np.asarray(lo, np.float64), 0.0)[..., None]
    hi = np.maximum(np.asarray(hi, np.float64), 0.0)[..., None]
    step = (hi - lo) / 255.0
    clipped = np.clip(centers, lo, hi)
    inside = (centers >= lo) & (centers <= hi)
    return np.sum(counts * ((centers - clipped) ** 2 + inside * step * step / 12.0), axis=-1)


def mse_range(stats: TensorStats, candidates: int = 128) -> tuple[float, float]:
    """Shrink each side of [min, max] in turn to the candidate with the least expected error (a tie: the wider
    range). Every candidate's error in one numpy pass: a Whisper-sized model has 900 tensors."""
    centers = (stats.edges[:-1] + stats.edges[1:]) / 2
    counts = stats.histogram.astype(np.float64)
    lo, hi = stats.lo, stats.hi
    fractions = np.linspace(1.0 / candidates, 1.0, candidates)
    for _ in range(2):  # alternate: the best upper end depends on the lower, and back
        if hi > 0:
            his = fractions * stats.hi
            errors = quantization_errors(centers, counts, lo, his)
            hi = float(his[np.flatnonzero(errors == errors.min())[-1]])
        if lo < 0:
            los = fractions * stats.lo
            errors = quantization_errors(centers, counts, los, hi)
            lo = float(los[np.flatnonzero(errors == errors.min())[-1]])
    return float(lo), float(hi)
