"""Hybrid DEPTHWISE_CONV_2D with a per-tensor filter scale, as `rillet quantize --per-tensor --mode dynamic`
writes it (version 4): one scale for every channel.

LiteRT's per-channel hybrid kernel takes this file (the scale's quantized dimension is 0, whose size is 1) but
reads scales past the one there is, so only its channel 0 is right. The same filter with the scale repeated
per channel is the model LiteRT computes correctly; rillet's answer for the per-tensor file must equal
LiteRT's for that one within 1e-5, and LiteRT's own channel 0.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Const, Input, Quant, litert_default, op_model, run

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, I8 = np.float32, np.int8


def depthwise(shape, filt, quant, bias, mult, stride, padding, act):
    n, cin = shape[0], shape[3]
    opts = {"padding": padding, "stride_w": stride, "stride_h": stride, "depth_multiplier": mult,
            "fused_activation_function": act}
    return op_model("DEPTHWISE_CONV_2D", [Input(shape, F32), Const(filt, quant), bias], [((n, 1, 1, cin * mult), F32)],
                    opts, version=4)


def assert_close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(expected).max())))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.integers(1, 2), st.integers(3, 12), st.integers(1, 9), st.integers(1, 3),
       st.integers(1, 2), st.integers(1, 3), st.sampled_from([0, 1]), st.sampled_from([0, 1, 3]), st.booleans())
def test_per_tensor_scale_is_every_channels_scale(seed, n, hw, cin, mult, stride, k, padding, act, positive):
    rng = np.random.default_rng(seed)
    cout = cin * mult
    filt = rng.integers(-127, 128, (1, k, k, cout)).astype(I8)
    bias = rng.uniform(-1, 1, cout).astype(F32)
    scale = float(rng.uniform(0.001, 0.05))
    x = rng.uniform(0 if positive else -3, 3, (n, hw, hw, cin)).astype(F32)
    shape = (n, hw, hw, cin)
    per_tensor = depthwise(shape, filt, Quant([scale], 0, 0), bias, mult, stride, padding, act)
    repeated = depthwise(shape, filt, Quant(np.full(cout, scale, F32), 0, 3), bias, mult, stride, padding, act)
    got = run(Interpreter, per_tensor, [x])[0]
    assert_close(got, litert_default(repeated, [x])[0])
    assert_close(got[..., 0], litert_default(per_tensor, [x])[0][..., 0])


def test_per_tensor_scale_on_the_channel_axis_runs_too():
    """LiteRT refuses one scale whose quantized dimension is 3 (4 channels); its meaning is the same."""
    rng = np.random.default_rng(1)
    filt = rng.integers(-127, 128, (1, 3, 3, 4)).astype(I8)
    x = rng.uniform(-3, 3, (1, 6, 6, 4)).astype(F32)
    bias = np.zeros(4, F32)
    got = run(Interpreter, depthwise(x.shape, filt, Quant([0.02], 0, 3), bias, 1, 1, 1, 0), [x])[0]
    repeated = depthwise(x.shape, filt, Quant(np.full(4, 0.02, F32), 0, 3), bias, 1, 1, 1, 0)
    assert_close(got, litert_default(repeated, [x])[0])
