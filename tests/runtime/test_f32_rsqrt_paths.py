"""float32 RSQRT: on a CPU with AVX-512, LiteRT's default Interpreter runs it on XNNPACK's AVX-512 kernel (the
vrsqrt14ps estimate and one Newton-Raphson step), whose results differ from 1 / sqrtf(x) by an ulp on a third
of inputs; rillet's AVX-512 paths give its bits, and every path stays within 2 ulp of the scalar one. Counts
around the 16-lane step (the masked tail), magnitudes from FLT_MIN to 2^125, and +inf, a negative, a NaN.
Outside that range XNNPACK's step fails (NaN for 0 and subnormals, which its flush-to-zero makes 0; 1.5 times
the estimate above 2^126, where y0 * y0 flushes to 0): every rillet path gives the reference's 1 / sqrtf(x)
there, as LiteRT's builtin kernel does."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, litert_default, op_model, run
from test_kernel_paths import PATHS

pytest.importorskip("ai_edge_litert")

F32 = np.float32
AVX512_PATHS = [isa for isa in PATHS if isa.startswith("avx512")]


def cpu_has_avx512() -> bool:
    """The CPU itself, not rillet's paths: the emulated AVX-512 build (native/tests) runs those on an AVX2
    CPU, where LiteRT's XNNPACK takes its AVX2 kernel and SIMDe's estimate is not vrsqrt14ps's."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and "avx512f" in line.split() for line in f)
    except OSError:
        return False


HOST_AVX512 = cpu_has_avx512()
COUNTS = [1, 7, 15, 16, 17, 31, 32, 33, 48, 1000]


def operand(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.exp(rng.uniform(-87, 86.6, count)).astype(F32)  # 1.6e-38 to 4e37 (2^125 is 4.25e37)
    specials = np.array([np.inf, -4.0, np.nan, 1.0, 4.0, 1.1754944e-38, 9.0], F32)
    if count >= 16:
        x[3: 3 + len(specials)] = specials  # inside a full block, not only the tail
    return x


def rillet_on(isa: str, model: bytes, x: np.ndarray, monkeypatch) -> np.ndarray:
    from rillet.runtime import Interpreter

    monkeypatch.setenv("RILLET_ISA", isa)
    (y,) = run(Interpreter, model, [x])
    return y


@pytest.mark.parametrize("count", COUNTS)
def test_rsqrt_paths_within_two_ulp_of_scalar(count, monkeypatch):
    x = operand(count, count)
    model = op_model("RSQRT", [Input(x.shape)], [(x.shape, F32)])
    scalar = rillet_on("scalar", model, x, monkeypatch)
    for isa in PATHS:
        y = rillet_on(isa, model, x, monkeypatch)
        np.testing.assert_array_equal(np.isnan(y), np.isnan(scalar), err_msg=isa)
        np.testing.assert_array_equal(np.isinf(y), np.isinf(scalar), err_msg=isa)
        finite = np.isfinite(scalar)
        ulps = np.abs(y[finite].view(np.int32).astype(np.int64) - scalar[finite].view(np.int32))
        assert ulps.max(initial=0) <= 2, (isa, int(ulps.max()))


@pytest.mark.skipif(not (AVX512_PATHS and HOST_AVX512),
                    reason="LiteRT's XNNPACK runs its AVX-512 RSQRT only on a CPU with AVX-512")
@pytest.mark.parametrize("count", COUNTS)
def test_rsqrt_gives_xnnpack_avx512_bits(count, monkeypatch):
    x = operand(count, 100 + count)
    model = op_model("RSQRT", [Input(x.shape)], [(x.shape, F32)])
    (expected,) = litert_default(model, [x])
    for isa in AVX512_PATHS:
        y = rillet_on(isa, model, x, monkeypatch)
        same = (y.view(np.int32) == expected.view(np.int32)) | (np.isnan(y) & np.isnan(expected))
        assert same.all(), (isa, int(np.count_nonzero(~same)), x[~same][:4], y[~same][:4],
                            expected[~same][:4])


def test_rsqrt_outside_the_estimates_range_is_the_references_on_every_path(monkeypatch):
    from single_op import litert_reference

    # 0, subnormals, a negative subnormal, +inf and values from 2^125 up; doubled: a full block and a tail
    x = np.array([0.0, -0.0, 1e-40, 1e-45, 1.1e-38, -1e-40, np.inf, 1.45e38, 2.0**125, 3e38] + [2.0] * 9, F32)
    x = np.concatenate([x, x[::-1]])
    model = op_model("RSQRT", [Input(x.shape)], [(x.shape, F32)])
    (builtin,) = litert_reference(model, [x])
    for isa in PATHS:
        y = rillet_on(isa, model, x, monkeypatch)
        np.testing.assert_array_equal(y, builtin, err_msg=isa)
