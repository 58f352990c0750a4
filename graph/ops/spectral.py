"""Spectra: RFFT2D, the 2-D discrete Fourier transform of a real signal over its two innermost axes (complex64
results: no gradient flows back through them into the graph's float ops).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, and its builder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _jnp, _tfl, as_tensor


def _rfft2d_infer(attrs, specs):
    shape, dtype = specs[0]
    fh, fw = attrs["fft_length"]
    if dtype != "float32" or len(shape) < 2:
        raise ValueError(f"expects a float32 tensor of rank >= 2, got {dtype} {shape}")
    if min(fh, fw) < 1 or fh & (fh - 1) or fw & (fw - 1):
        raise ValueError(f"fft_length {[fh, fw]} must be powers of two (TFLite's RFFT2D)")
    return [(shape[:-2] + (fh, fw // 2 + 1), "complex64")]


def _rfft2d(xp, a, x):
    # TFLite crops (or pads with zeros) each axis to fft_length first, which s= does too
    return xp.fft.rfft2(x, s=tuple(a["fft_length"])).astype(np.complex64)


register(OpDef("RFFT2D", attrs={"fft_length": REQUIRED}, infer=_rfft2d_infer,
               numpy=lambda a, x: _rfft2d(np, a, x), jax=lambda a, x: _rfft2d(_jnp(), a, x),
               tflite=_tfl("RFFT2D", "Rfft2dOptions", attr_inputs=["fft_length"])))


def rfft2d(x, fft_length: Sequence[int], name: str | None = None) -> Tensor:
    """RFFT2D: the 2-D FFT of the real x over its last two axes, each cropped or zero-padded to `fft_length`
    (powers of two), keeping the fft_length[1] // 2 + 1 non-negative frequencies of the last: complex64."""
    return _apply("RFFT2D", [as_tensor(x)], {"fft_length": tuple(int(n) for n in fft_length)}, name=name)
