"""int8 MAX_POOL_2D, AVERAGE_POOL_2D, MEAN and SUM against LiteRT's default Interpreter, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from single_op import Input, Quant, assert_same_bits_as_litert, op_model

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I8 = np.int8
seeds = st.integers(0, 2**31 - 1)
zero_points = st.integers(-128, 127)


def int8s(seed: int, shape) -> np.ndarray:
    return np.random.default_rng(seed).integers(-128, 128, size=shape).astype(I8)


def log_uniform(low: float, high: float):
    return st.floats(np.log(low), np.log(high)).map(lambda v: float(np.float32(np.exp(v))))


def pool_model(op, shape, q, qo, padding, stride, fh, fw, act):
    return op_model(op, [Input(shape, I8, q)], [((1,), I8, qo)],
                    {"padding": padding, "stride_w": stride, "stride_h": stride, "filter_width": fw,
                     "filter_height": fh, "fused_activation_function": act})


@EXAMPLES
@given(seeds, st.sampled_from(["MAX_POOL_2D", "AVERAGE_POOL_2D"]), st.integers(1, 2), st.integers(1, 9),
       st.integers(1, 9), st.integers(1, 17), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3),
       st.sampled_from([0, 1]), st.sampled_from([0, 1, 2, 3]), log_uniform(0.005, 2.0), zero_points)
def test_pool(seed, op, n, h, w, c, fh, fw, stride, padding, act, scale, zp):
    assume(padding == 0 or (h >= fh and w >= fw))
    assume(h >= fh and w >= fw)
    m = pool_model(op, (n, h, w, c), Quant(scale, zp), Quant(scale, zp), padding, stride, fh, fw, act)
    assert_same_bits_as_litert(m, [int8s(seed, (n, h, w, c))])


@pytest.mark.parametrize("act,scale,zp", [(3, 12.0, 0), (3, 12.0, 1), (2, 2.0, 0), (2, 2.0, 3)])
@pytest.mark.parametrize("op", ["MAX_POOL_2D", "AVERAGE_POOL_2D"])
def test_activation_bound_at_exact_half(op, act, scale, zp):
    """6 / 12 and -1 / 2 are exact halves: XNNPACK (MAX_POOL_2D) rounds them to even, TFLite away from zero."""
    m = pool_model(op, (1, 16, 16, 1), Quant(scale, zp), Quant(scale, zp), 1, 1, 1, 1, act)
    assert_same_bits_as_litert(m, [np.arange(-128, 128).astype(I8).reshape(1, 16, 16, 1)])


@pytest.mark.parametrize("op", ["MAX_POOL_2D", "AVERAGE_POOL_2D"])
def test_output_quantized_unlike_the_input_is_refused(op):
    """LiteRT's default Interpreter fails to prepare such a MAX_POOL_2D (XNNPACK refuses it); its builtin
    AVERAGE_POOL_2D ignores the output scale. rillet refuses both rather than give a wrong scale."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    m = pool_model(op, (1, 4, 4, 2), Quant(0.1, 0), Quant(0.2, 3), 0, 1, 2, 2, 0)
    if op == "MAX_POOL_2D":
        with pytest.raises(RuntimeError):
            LiteRT(model_content=m).allocate_tensors()
    with pytest.raises(Exception, match="output quantized as the input"):
        Interpreter(model_content=m).allocate_tensors()


def reduce_model(op, shape, axes, keep_dims, qi, qo):
    return op_model(op, [Input(shape, I8, qi), np.array(axes, np.int32)], [((1,), I8, qo)], {"keep_dims": keep_dims})


@st.composite
def reductions(draw):
    """A shape of rank 1-5 and a list of its axes, some negative, possibly repeated or over size-1 dimensions."""
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=5)))
    rank = len(shape)
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank + 1))
    return shape, axes


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.sampled_from(["MEAN", "SUM"]), reductions(), st.booleans(), log_uniform(0.002, 2.0), zero_points,
       st.one_of(st.just(1.0), log_uniform(0.05, 20.0)), st.one_of(st.none(), zero_points), st.booleans())
def test_reduce(seed, op, reduction, keep_dims, scale, zp, ratio, out_zp, near_zero_point):
    """Both run in XNNPACK (float rescale, ties to even); equal and unequal scales, every axis set, keep_dims."""
    shape, axes = reduction
    out_scale = float(np.float32(scale * (ratio * (np.prod(shape) if op == "SUM" else 1.0) ** 0.5)))
    x = int8s(seed, shape)
    if near_zero_point:  # sums near the zero point, where rounding ties and the output's middle are
        x = np.clip(zp + np.random.default_rng(seed).integers(-3, 4, size=shape), -128, 127).astype(I8)
    m = reduce_model(op, shape, axes, keep_dims, Quant(scale, zp), Quant(out_scale, zp if out_zp is None else out_zp))
    assert_same_bits_as_litert(m, [x])


@pytest.mark.parametrize("shape,x,out_scale", [((4,), [-64, -62, -67, -65], 1.0000050067901611),
                                               ((2, 1), [-63, -66], 1.0000100135803223)])
def test_mean_rounds_as_xnnpack_near_halves(shape, x, out_scale):
    """Means a hair from -64.5: XNNPACK's float32 sum * scale + bias gives -65 for the first, -64 for the second,
    where (sum - n * zi) * scale + zo gives the opposite in float32, and -65 for both exactly."""
    m = reduce_model("MEAN", shape, [0], False, Quant(1.0, -65), Quant(out_scale, -65))
    assert_same_bits_as_litert(m, [np.array(x, I8).reshape(shape)])


@pytest.mark.parametrize("keep_dims", [False, True])
def test_mean_as_mobilenet_v2_int8_pools_globally(keep_dims):
    """mobilenet_v2_035_96_int8's last MEAN: [1,3,3,1280] over axes 1 and 2, scales differing in the 4th digit."""
    m = reduce_model("MEAN", (1, 3, 3, 1280), [1, 2], keep_dims, Quant(7.845485150426157e-09, -1),
                     Quant(7.844488614239253e-09, -1))
    for seed in range(3):
        assert_same_bits_as_litert(m, [int8s(seed, (1, 3, 3, 1280))])


@pytest.mark.parametrize("op", ["MEAN", "SUM"])
def test_mean_sum_ties(op):
    """Pairs whose mean or sum lands on exact halves: XNNPACK rounds them to even after adding the output zero
    point (TFLite's builtin SUM would round them away from zero)."""
    x = np.stack([np.arange(-128, 128), np.roll(np.arange(-128, 128), 37)], 1).astype(I8)
    for qi, qo in [(Quant(0.1, 0), Quant(0.1, 0)), (Quant(0.1, 10), Quant(0.1, -7)), (Quant(0.25, 3), Quant(0.5, 0)),
                   (Quant(0.1, -3), Quant(0.2, 5))]:
        assert_same_bits_as_litert(reduce_model(op, (256, 2), [1], False, qi, qo), [x])


@pytest.mark.parametrize("op", ["MEAN", "SUM"])
def test_reduce_without_output_quantization_is_refused(op):
    from rillet.runtime import Interpreter

    m = op_model(op, [Input((2, 3), I8, Quant(0.1, 0)), np.array([1], np.int32)], [((1,), I8)], {"keep_dims": False})
    with pytest.raises(Exception, match="output must be quantized"):
        Interpreter(model_content=m).allocate_tensors()
