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


@EXAMPLES
@given(seeds, st.integers(1, 9), st.integers(1, 17), st.integers(1, 9), st.booleans(), st.booleans(),
       st.sampled_from([((2,), (2,)), ((3, 1), (1, 2)), ((), (2,)), ((2,), ())]), st.booleans())
def test_batch_matmul_int8(seed, m, k, n, adj_x, adj_y, batches, ties):
    rng = np.random.default_rng(seed)
    qa, qb, qo, _ = quantized_layer(rng, 1, k, False, ties, axis=0)
    a_shape = (*batches[0], *((k, m) if adj_x else (m, k)))
    b_shape = (*batches[1], *((n, k) if adj_y else (k, n)))
    model = op_model("BATCH_MATMUL", [Input(a_shape, I8, qa), Input(b_shape, I8, qb)], [((1,), I8, qo)],
                     {"adj_x": adj_x, "adj_y": adj_y}, version=4)
    assert_same_bits_as_litert(model, [int8s(rng, a_shape), int8s(rng, b_shape, -127)])


@pytest.mark.parametrize("filter_quant, input_quant, message", [
    (Quant([0.1, 0.2], [0, 0]), Quant(0.1, 0), "2 scales, expected 1 or 3"),
    (None, Quant(0.1, 0), "no quantization scales"),
    (Quant([0.1], [1]), Quant(0.1, 0), "zero point 0 is 1"),
    (Quant([0.1, 0.1, 0.1], [0, 0, 0], axis=3), Quant(0.1, 0), "dimension 3, expected 0"),
    (Quant([0.1], [0]), Quant(0.1, 200), "zero point 200"),
    (Quant([0.1], [0]), None, "one scale"),
])
def test_malformed_int8_conv_quantization_is_a_clear_error(filter_quant, input_quant, message):
    from rillet.runtime import Interpreter, InterpreterError

    inputs = [Input((1, 4, 4, 3), I8, input_quant), Const(np.ones((3, 1, 1, 3), I8), filter_quant),
              Const(np.zeros(3, np.int32), Quant(0.01, 0))]
    model = op_model("CONV_2D", inputs, [((1, 4, 4, 3), I8, Quant(0.5, 0))],
                     {"padding": 1, "stride_w": 1, "stride_h": 1})
    with pytest.raises(InterpreterError, match=f"CONV_2D op 0 .*{message}"):
        Interpreter(model_content=model).allocate_tensors()


@pytest.mark.parametrize("op", ["CONV_2D", "DEPTHWISE_CONV_2D"])
def test_int8_convolution_without_bias_runs_as_with_a_zero_bias(op):
    """LiteRT refuses an int8 convolution whose bias is omitted ("Tensor at index 2 was optional but was
    expected"), though the schema marks it optional; rillet runs it, bit for bit as LiteRT with zeros."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from single_op import run

    from rillet.runtime import Interpreter

    rng = np.random.default_rng(7)
    qi, qw, qo, qb = quantized_layer(rng, 6, 9 * 3, True, False, axis=0 if op == "CONV_2D" else 3)
    shape = (6, 3, 3, 3) if op == "CONV_2D" else (1, 3, 3, 6)
    extra = {} if op == "CONV_2D" else {"depth_multiplier": 2}
    def model(bias):
        return op_model(op, [Input((1, 5, 5, 3), I8, qi), Const(int8s(np.random.default_rng(1), shape, -127), qw), bias],
                        [((1, 1, 1, 6), I8, qo)], {"padding": 0, "stride_w": 1, "stride_h": 1, **extra}, version=3)
    x = int8s(rng, (1, 5, 5, 3))
    with pytest.raises(RuntimeError, match="was optional but was expected"):
        LiteRT(model_content=model(None)).allocate_tensors()
    expected = run(LiteRT, model(Const(np.zeros(6, np.int32), qb)), [x])[0]
    got = run(Interpreter, model(None), [x])[0]
    assert got.dtype == np.int8 and got.tobytes() == expected.tobytes()
