"""int8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL against LiteRT's default Interpreter,
bit for bit; shapes, scales and zero points by hypothesis; malformed quantization gives a clear error."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from single_op import Const, Input, Quant, assert_same_bits_as_litert, op_model

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I8 = np.int8
ANY_SHAPE = [(1,)]

seeds = st.integers(0, 2**31 - 1)
activations = st.sampled_from([0, 1, 2, 3])
paddings = st.sampled_from([0, 1])


def int8s(rng: np.random.Generator, shape, low=-128) -> np.ndarray:
    return rng.integers(low, 128, size=shape).astype(I8)


def scales_for(rng: np.random.Generator, channels: int, per_channel: bool, ties: bool) -> np.ndarray:
    """Filter scales; `ties` draws powers of two, which put many requantized values exactly on .5."""
    n = channels if per_channel else 1
    if ties:
        return (2.0 ** -rng.integers(4, 9, n)).astype(np.float32)
    return rng.uniform(0.002, 0.05, n).astype(np.float32)


def quantized_layer(rng, channels, taps, per_channel, ties, axis):
    """Input, filter and output quantization that keep the requantization scale below 1, as real layers do."""
    si = np.float32(2.0 ** -rng.integers(3, 7)) if ties else np.float32(rng.uniform(0.005, 0.1))
    sw = scales_for(rng, channels, per_channel, ties)
    growth = np.sqrt(taps) * (2.0 ** rng.integers(3, 8) if ties else rng.uniform(4.0, 100.0))
    so = np.float32(2.0 ** np.round(np.log2(si * sw.mean() * growth))) if ties else np.float32(si * sw.mean() * growth)
    zi, zo = (int(v) for v in rng.integers(-128, 128, 2))
    bias_scale = (si * sw).astype(np.float32)
    return Quant(si, zi), Quant(sw, 0, axis), Quant(so, zo), Quant(bias_scale, 0)


def fits(size: int, window: int, padding: int) -> bool:
    return padding == 0 or size >= window


@EXAMPLES
@given(seeds, st.integers(1, 2), st.integers(1, 9), st.integers(1, 9), st.integers(1, 17), st.integers(1, 17),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), paddings, activations,
       st.booleans(), st.booleans())
def test_conv2d_int8(seed, n, h, w, cin, cout, kh, kw, stride, dilation, padding, act, per_channel, ties):
    assume(fits(h, (kh - 1) * dilation + 1, padding) and fits(w, (kw - 1) * dilation + 1, padding))
    rng = np.random.default_rng(seed)
    qi, qw, qo, qb = quantized_layer(rng, cout, kh * kw * cin, per_channel, ties, axis=0)
    bias = Const(rng.integers(-3000, 3000, cout).astype(np.int32), qb)  # LiteRT requires it on int8
    inputs = [Input((n, h, w, cin), I8, qi), Const(int8s(rng, (cout, kh, kw, cin), -127), qw), bias]
    m = op_model("CONV_2D", inputs, [((n, 1, 1, cout), I8, qo)], {
        "padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": act,
        "dilation_w_factor": dilation, "dilation_h_factor": dilation}, version=3)
    assert_same_bits_as_litert(m, [int8s(rng, (n, h, w, cin))])


@EXAMPLES
@given(seeds, st.integers(1, 2), st.integers(1, 9), st.integers(1, 9), st.integers(1, 17), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), paddings, activations,
       st.booleans(), st.booleans())
def test_depthwise_conv2d_int8(seed, n, h, w, cin, mult, kh, kw, stride, dilation, padding, act, per_channel, ties):
    assume(fits(h, (kh - 1) * dilation + 1, padding) and fits(w, (kw - 1) * dilation + 1, padding))
    rng = np.random.default_rng(seed)
    cout = cin * mult
    qi, qw, qo, qb = quantized_layer(rng, cout, kh * kw, per_channel, ties, axis=3)
    bias = Const(rng.integers(-3000, 3000, cout).astype(np.int32), qb)
    inputs = [Input((n, h, w, cin), I8, qi), Const(int8s(rng, (1, kh, kw, cout), -127), qw), bias]
    m = op_model("DEPTHWISE_CONV_2D", inputs, [((n, 1, 1, cout), I8, qo)], {
        "padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": act,
        "dilation_w_factor": dilation, "dilation_h_factor": dilation, "depth_multiplier": mult}, version=3)
    assert_same_bits_as_litert(m, [int8s(rng, (n, h, w, cin))])


@EXAMPLES
@given(seeds, st.lists(st.integers(1, 5), min_size=0, max_size=2), st.integers(1, 40), st.integers(1, 17),
       activations, st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_fully_connected_int8(seed, batch, depth, units, act, per_channel, ties, with_bias, keep_num_dims):
    rng = np.random.default_rng(seed)
    qi, qw, qo, qb = quantized_layer(rng, units, depth, per_channel, ties, axis=0)
    bias = Const(rng.integers(-3000, 3000, units).astype(np.int32), qb) if with_bias else None
    in_shape = (*batch, depth)
    inputs = [Input(in_shape, I8, qi), Const(int8s(rng, (units, depth), -127), qw), bias]
    m = op_model("FULLY_CONNECTED", inputs, [((1, units), I8, qo)],
                 {"fused_activation_function": act, "keep_num_dims": keep_num_dims}, version=5 if per_channel else 4)
    assert_same_bits_as_litert(m, [int8s(rng, in_shape)])
