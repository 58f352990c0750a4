"""float32 SOFTMAX, GELU and layer norms (as Keras and a PyTorch export lower them, tests/runtime/
transformer_graphs.py) against LiteRT's default Interpreter (XNNPACK where it takes the op) within 1e-5, on
every kernel path this CPU runs, with 1, 2 and 3 threads giving the same bits: rows around the kernels' 8-,
16-, 32- and 64-value steps (and ViT's 197), beta other than 1, attention masks of -1e9 and -inf, GELU's seams
(-3, 4.9) and tails. Bit for bit with LiteRT: float SOFTMAX (beta = 1) on the path that follows the XNNPACK
kernel LiteRT runs on this CPU, GELU and TANH on every path, int8 SOFTMAX on every path."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, Quant, litert_default, op_model, run
from test_kernel_paths import PATHS
from transformer_graphs import gelu_model, layer_norm_model, softmax_model

pytest.importorskip("ai_edge_litert")

F32 = np.float32


def rillet_all(model: bytes, feeds: list[np.ndarray], monkeypatch) -> np.ndarray:
    """The output on every path with 1, 2 and 3 threads: the same bits for every thread count on a path, and
    within 1e-6 of the first path's (a softmax row's sum adds lanes in another order; the AVX-512 paths' RSQRT
    is XNNPACK's estimate and step, an ulp from the reference's, which a layer norm's x * r + beta carries at
    the size of x * r: hence an absolute tolerance of 1e-7 of max |y| where that exceeds 1); returns the
    first's."""
    from rillet.runtime import Interpreter

    first = None
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (one_thread,) = run(Interpreter, model, feeds, num_threads=1)
        for threads in (2, 3):
            (y,) = run(Interpreter, model, feeds, num_threads=threads)
            assert y.tobytes() == one_thread.tobytes(), (isa, threads)
        if first is None:
            first = one_thread
        scale = max(1.0, float(np.nanmax(np.abs(first), initial=0.0)))
        np.testing.assert_allclose(one_thread, first, rtol=1e-6, atol=1e-7 * scale, err_msg=isa)
    return first


def assert_close_on_every_path(model: bytes, x: np.ndarray, monkeypatch) -> None:
    (expected,) = litert_default(model, [x])
    got = rillet_all(model, [x], monkeypatch)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


SOFTMAX_SHAPES = [(1, 2, 64, 64), (3, 1), (2, 5, 7), (1, 3, 17, 33), (1, 1, 4, 1500), (2, 250), (3, 15), (3, 16),
                  (2, 63), (2, 65), (1, 3, 5, 197)]


@pytest.mark.parametrize("shape", SOFTMAX_SHAPES)
@pytest.mark.parametrize("beta", [1.0, 0.125, 2.5])
def test_softmax(shape, beta, monkeypatch):
    x = (np.random.default_rng(len(shape) + shape[-1]).standard_normal(shape) * 4).astype(F32)
    assert_close_on_every_path(softmax_model(shape, beta), x, monkeypatch)


@pytest.mark.parametrize("mask", [-1e9, -np.inf])
def test_softmax_with_an_attention_mask(mask, monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 37, 37)).astype(F32)
    x = np.where(np.triu(np.ones((37, 37), bool), 1), F32(mask), x).astype(F32)  # causal: row i sees 0..i
    x[0, 1, 5, 2] = 80.0  # a large logit: the others' e^(x - max) underflow to 0
    assert_close_on_every_path(softmax_model(x.shape), x, monkeypatch)


def test_softmax_rows_of_nan_and_inf_are_nan_as_in_litert(monkeypatch):
    x = np.zeros((4, 19), F32)
    x[0, 3] = np.nan
    x[1, 0] = np.inf
    x[2, :] = -np.inf
    (expected,) = litert_default(softmax_model(x.shape), [x])
    got = rillet_all(softmax_model(x.shape), [x], monkeypatch)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[3], expected[3], rtol=1e-6)


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("shape", [(1, 64, 512), (3, 37), (1, 197, 5), (3, 16)])
def test_gelu(shape, approximate, monkeypatch):
    x = (np.random.default_rng(shape[-1]).standard_normal(shape) * 2.5).astype(F32)
    assert_close_on_every_path(gelu_model(shape, approximate), x, monkeypatch)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_over_its_range_and_seams(approximate, monkeypatch):
    seams = [-3.0, np.nextafter(F32(-3), F32(0)), 4.9, 4.91, 1e-30, -1e-30, 0.0, -0.0, 1e30, -1e30, np.inf]
    x = np.concatenate([np.linspace(-14, 14, 28001), seams]).astype(F32)[None]
    model = gelu_model(x.shape, approximate)
    (expected,) = litert_default(model, [x])
    got = rillet_all(model, [x], monkeypatch)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), set())
    except OSError:
        return set()


def litert_gelu_has_fma() -> bool:
    """XNNPACK's GELU and TANH (rational_12_10_div, rational_9_8_div) with fused multiply-adds: x86 with FMA3 or
    AVX-512, aarch64."""
    import platform

    if platform.machine() in ("aarch64", "arm64"):
        return True
    flags = cpu_flags()
    return "fma" in flags or "avx512f" in flags


def unary_model(op: str, shape: tuple[int, ...]) -> bytes:
    return gelu_model(shape, op == "GELU_TANH") if op.startswith("GELU") else \
        op_model(op, [Input(shape)], [(shape, F32)])


@pytest.mark.skipif(not litert_gelu_has_fma(), reason="XNNPACK's GELU and TANH without FMA round otherwise")
@pytest.mark.parametrize("op", ["GELU", "GELU_TANH", "TANH"])
@pytest.mark.parametrize("count", [1, 7, 8, 9, 16, 17, 33, 28001])
def test_gelu_and_tanh_give_litert_s_bits_on_every_path(op, count, monkeypatch):
    """LiteRT's default Interpreter runs GELU (either form) and float TANH on XNNPACK's rational functions;
    every rillet path computes the same operations, so the same bits: counts around the 4-, 8- and 16-value
    steps, the range beyond the clamps (+-4.85, +-5.16, +-7.98), zeros, infinities and a NaN (36% of values
    differed by an ulp from the erf/erfc form rillet had for GELU, 40% for its sigmoid tanh form and for libm's
    tanhf)."""
    from rillet.runtime import Interpreter

    x = np.linspace(-12, 12, count).astype(F32)
    if count > 20:
        x[:11] = [0.0, -0.0, np.inf, -np.inf, np.nan, 5.1638283730, -5.1638283730, 4.84974098, -4.84974098,
                  7.9807181358, 1e-30]
    x = x[None]
    model = unary_model(op, x.shape)
    (expected,) = litert_default(model, [x])
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got,) = run(Interpreter, model, [x])
        same = (got.view(np.int32) == expected.view(np.int32)) | (np.isnan(got) & np.isnan(expected))
        assert same.all(), (isa, int(np.count_nonzero(~same)), x[~same][:4], got[~same][:4],
                            expected[~same][:4])


def litert_softmax_path() -> tuple[str | None, str]:
    """The rillet path whose softmax kernels run the operations, in the order, of the f32 raddstoreexpminusmax
    kernel XNNPACK's config picks on this CPU for LiteRT's default Interpreter: avx512f_rr2_p5_u64_acc2 with
    AVX-512F, avx2_rr2_p5_u32_acc2 with AVX2, neonfma_rr1_lut64_p2_u16_acc2 on aarch64; (None, why) where there
    is none this CPU runs."""
    import platform

    machine = platform.machine()
    if machine in ("aarch64", "arm64"):
        isa = "neon"
    elif machine in ("x86_64", "AMD64"):
        flags = cpu_flags()
        if "avx512f" in flags:
            isa = "avx512"
        elif "avx2" in flags:
            isa = "avx2"
        else:
            return None, "LiteRT's XNNPACK runs its SSE2 softmax kernel here, which no rillet path follows"
    else:
        return None, f"no rillet path follows XNNPACK's softmax kernel on {machine}"
    if isa not in PATHS:
        return None, f"XNNPACK's {isa} softmax kernel runs here, but rillet's {isa} path does not (its other " \
                     "instructions are missing)"
    return isa, ""


SOFTMAX_PATH, SOFTMAX_PATH_WHY = litert_softmax_path()
SOFTMAX_ROWS = [*range(1, 301), 383, 384, 385, 511, 512, 513, 1023, 1024, 1025, 1500]


@pytest.mark.skipif(SOFTMAX_PATH is None, reason=SOFTMAX_PATH_WHY)
def test_softmax_gives_litert_s_bits_on_its_path(monkeypatch):
    """With beta = 1 LiteRT's default Interpreter runs float SOFTMAX on XNNPACK, whose kernel for this CPU the
    path SOFTMAX_PATH follows operation for operation (the two-step ln 2 reduction and degree-5 polynomial, or
    aarch64's 64-entry table, and the row sum in that kernel's order), so its outputs are LiteRT's bits: every
    row length from 1 to 300 (around the 4-, 8-, 16-, 32- and 64-value steps and their tails) and longer ones,
    rows with masked (-1e9) entries and one large logit. (Before: 38% of values an ulp off, enough to flip int8
    results after a QUANTIZE in whisper_tiny_encoder_int8.) The other paths add in their own XNNPACK kernel's
    order: within 1e-6 (test_softmax). XNNPACK declines beta other than 1, which LiteRT's builtin kernel runs on
    Eigen's exp, a different approximation: within 1e-6 too, not its bits (test_softmax)."""
    from rillet.runtime import Interpreter

    monkeypatch.setenv("RILLET_ISA", SOFTMAX_PATH)
    rng = np.random.default_rng(28)
    differing = []
    for depth in SOFTMAX_ROWS:
        x = (rng.standard_normal((3, depth)) * 4).astype(F32)
        x[1, ::3] = -1e9
        x[2, depth // 2] = 60.0
        model = softmax_model(x.shape)
        (expected,) = litert_default(model, [x])
        (got,) = run(Interpreter, model, [x])
        if got.tobytes() != expected.tobytes():
            differing.append((depth, int(np.count_nonzero(got != expected))))
    assert not differing, f"{SOFTMAX_PATH}: (row length, values differing) {differing[:10]} of {len(differing)}"


@pytest.mark.parametrize("form", ["keras", "torch"])
@pytest.mark.parametrize("seq, d", [(64, 128), (7, 33), (197, 192), (3, 384)])
def test_layer_norm(form, seq, d, monkeypatch):
    x = (np.random.default_rng(seq).standard_normal((1, seq, d)) * 3 + 1).astype(F32)
    assert_close_on_every_path(layer_norm_model(seq, d, form), x, monkeypatch)


@pytest.mark.parametrize("depth", [1, 7, 8, 9, 31, 32, 33, 40, 64, 197, 1500])
@pytest.mark.parametrize("scale, zero_point, beta",
                         [(0.1, 3, 1.0), (0.02, -128, 1.0), (1.0, 0, 0.5), (0.003, 100, 2.0)])
def test_int8_softmax_is_litert_bit_for_bit(depth, scale, zero_point, beta, monkeypatch):
    """int8 SOFTMAX (LiteRT's builtin table arithmetic; XNNPACK does not take it) on every path, 1-3 threads."""
    from rillet.runtime import Interpreter

    shape = (2, 3, depth)
    model = op_model("SOFTMAX", [Input(shape, np.int8, Quant(scale, zero_point))],
                     [(shape, np.int8, Quant(1 / 256, -128))], {"beta": beta})
    x = np.random.default_rng(depth).integers(-128, 128, shape).astype(np.int8)
    x[0, 0, :] = 127  # a row of equal maxima
    (expected,) = litert_default(model, [x])
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        for threads in (1, 2, 3):
            (got,) = run(Interpreter, model, [x], num_threads=threads)
            assert got.tobytes() == expected.tobytes(), (isa, threads, np.count_nonzero(got != expected))
