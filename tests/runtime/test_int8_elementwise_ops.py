"""int8 ADD, SUB, MUL against LiteRT's default Interpreter, bit for bit: broadcasting, fused activations, and
scales on both sides of the range where LiteRT hands the op to XNNPACK (whose rounding differs from TFLite's)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import (
    Input,
    Quant,
    assert_same_bits_as_litert,
    litert_default,
    litert_reference,
    op_model,
    run,
)

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I8 = np.int8
seeds = st.integers(0, 2**31 - 1)
zero_points = st.integers(-128, 127)
activations = st.sampled_from([0, 1, 2, 3])  # NONE, RELU, RELU_N1_TO_1, RELU6


def int8s(seed: int, shape) -> np.ndarray:
    return np.random.default_rng(seed).integers(-128, 128, size=shape).astype(I8)


def log_uniform(low: float, high: float):
    return st.floats(np.log(low), np.log(high)).map(lambda v: float(np.float32(np.exp(v))))


@st.composite
def broadcast_pair(draw):
    out = tuple(draw(st.integers(1, 7)) for _ in range(draw(st.integers(1, 4))))

    def operand():
        rank = draw(st.integers(0, len(out)))
        return tuple(d if draw(st.booleans()) else 1 for d in out[len(out) - rank:])
    return operand(), operand()


def binary_model(op, a_shape, b_shape, qa, qb, qo, act):
    return op_model(op, [Input(a_shape, I8, qa), Input(b_shape, I8, qb)], [((1,), I8, qo)],
                    {"fused_activation_function": act}, version=2)


@EXAMPLES
@given(seeds, broadcast_pair(), st.sampled_from(["ADD", "SUB"]), log_uniform(1e-3, 1.0), log_uniform(1e-3, 1.0),
       log_uniform(1e-3, 1.0), zero_points, zero_points, zero_points, activations)
def test_add_sub(seed, shapes, op, sa, sb, so, za, zb, zo, act):
    # Ratios from ~1e-3 to ~1e3 cross XNNPACK's [1/1024, 256) on both ends.
    m = binary_model(op, *shapes, Quant(sa, za), Quant(sb, zb), Quant(so, zo), act)
    feeds = [int8s(seed, shapes[0]), int8s(seed + 1, shapes[1])]
    if op == "ADD" and max(sa, sb) / so >= 256:
        assert_same_bits_except_16_bit_wrap(m, feeds, clamp_bounds(so, zo, act))
    else:
        assert_same_bits_as_litert(m, feeds)


def clamp_bounds(so, zo, act):
    """The output's integer clamp for a fused activation (rillet saturates to these)."""
    q = lambda f: zo + int(np.sign(f / so) * np.floor(abs(f / so) + 0.5))  # TFLite rounds ties away from 0
    lo = {0: -128, 1: q(0.0), 2: q(-1.0), 3: q(0.0)}[act]
    hi = {0: 127, 1: 127, 2: q(1.0), 3: q(6.0)}[act]
    return max(lo, -128), min(hi, 127)


def assert_same_bits_except_16_bit_wrap(m, feeds, bounds=(-128, 127)):
    """Past XNNPACK's ratio range LiteRT's optimized int8 ADD (and MUL) wraps its unclamped result to 16 bits in SIMD
    blocks of 16 (a LiteRT overflow). rillet saturates instead, as LiteRT's reference kernel does: it equals
    BUILTIN_REF everywhere, and the default Interpreter wherever that one did not wrap."""
    from rillet.runtime import Interpreter

    got = run(Interpreter, m, feeds)[0]
    np.testing.assert_array_equal(got, litert_reference(m, feeds)[0])
    default = litert_default(m, feeds)[0]
    differs = got != default
    assert np.all(np.isin(got[differs], bounds)), (got[differs], default[differs], bounds)


@EXAMPLES
@given(seeds, broadcast_pair(), log_uniform(1e-3, 1.0), log_uniform(1e-3, 1.0), log_uniform(1e-8, 1e-1),
       zero_points, zero_points, zero_points, activations)
def test_mul(seed, shapes, sa, sb, so, za, zb, zo, act):
    # Product-to-output ratios from ~1e-5 to ~1e5 cross XNNPACK's [1/65536, 256).
    m = binary_model("MUL", *shapes, Quant(sa, za), Quant(sb, zb), Quant(so, zo), act)
    feeds = [int8s(seed, shapes[0]), int8s(seed + 1, shapes[1])]
    if np.float32(sa * sb) / np.float32(so) >= 256:  # LiteRT's optimized MUL wraps there too
        assert_same_bits_except_16_bit_wrap(m, feeds, clamp_bounds(so, zo, act))
    else:
        assert_same_bits_as_litert(m, feeds)


ALL_PAIRS = (np.arange(-128, 128).astype(I8).reshape(256, 1), np.arange(-128, 128).astype(I8).reshape(1, 256))


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("scales", [(0.1047, 0.0107, 0.00258), (0.668, 0.318, 0.00203), (0.05, 0.05, 0.1),
                                    (1.0, 0.001, 0.0039), (0.3, 0.0002, 0.9)])
def test_every_input_pair(op, scales):
    """All 65536 input pairs at once, at scales inside and outside XNNPACK's range."""
    m = binary_model(op, (256, 1), (1, 256), Quant(scales[0], -3), Quant(scales[1], 17), Quant(scales[2], 5), 0)
    if (op == "ADD" and max(scales[:2]) / scales[2] >= 256) or (op == "MUL" and scales[0] * scales[1] / scales[2] >= 256):
        assert_same_bits_except_16_bit_wrap(m, list(ALL_PAIRS))
    else:
        assert_same_bits_as_litert(m, list(ALL_PAIRS))


@pytest.mark.parametrize("op", ["ADD", "MUL"])
@pytest.mark.parametrize("act,out_scale,out_zp", [(3, 12.0, 0), (3, 12.0, 3), (2, 2.0, 0), (2, 2.0, -7), (1, 0.5, 1)])
def test_activation_bound_at_exact_half(op, act, out_scale, out_zp):
    """6 / 12 and -1 / 2 are exact halves: XNNPACK rounds the clamp bound to even, TFLite away from zero."""
    in_scale = out_scale if op == "ADD" else float(np.sqrt(out_scale))
    m = binary_model(op, (256, 1), (1, 256), Quant(in_scale, 0), Quant(in_scale, 0), Quant(out_scale, out_zp), act)
    assert_same_bits_as_litert(m, list(ALL_PAIRS))


@pytest.mark.parametrize("quant,message", [
    (None, "one scale"),
    (Quant(0.0, 0), "scale 0"),
    (Quant(-0.5, 0), "scale 0 is -0.5"),
    (Quant(0.1, 200), "zero point 200"),
    (Quant([0.1, 0.2], [0, 0]), "one scale, has 2"),
])
def test_malformed_quantization_is_refused(quant, message):
    from rillet.runtime import Interpreter

    m = op_model("ADD", [Input((2, 3), I8, Quant(0.1, 0)), Input((2, 3), I8, quant)], [((2, 3), I8, Quant(0.1, 0))],
                 {"fused_activation_function": 0}, version=2)
    with pytest.raises(Exception, match=message):
        Interpreter(model_content=m).allocate_tensors()
