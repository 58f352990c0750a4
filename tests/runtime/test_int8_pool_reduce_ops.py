"""int8 MAX_POOL_2D and AVERAGE_POOL_2D against LiteRT's default Interpreter, bit for bit."""

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
