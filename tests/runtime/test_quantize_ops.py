"""QUANTIZE and DEQUANTIZE against LiteRT's default Interpreter (bit for bit), float16 weights, and clear
errors for malformed quantization."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Const, Input, Quant, assert_same_bits_as_litert, litert_default, op_model, run

from rillet.runtime import Interpreter, InterpreterError

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**31 - 1)
shapes = st.lists(st.integers(1, 9), min_size=1, max_size=4).map(tuple)
I8, F32 = np.int8, np.float32


@EXAMPLES
@given(seeds, shapes, st.booleans())
def test_quantize_float32_to_int8(seed, shape, near_ties):
    rng = np.random.default_rng(seed)
    scale, zero_point = np.float32(rng.uniform(0.001, 0.3)), int(rng.integers(-128, 128))
    if near_ties:  # values within an ulp of k + 1/2 steps: multiplying by 1/scale and dividing differ here
        x = ((rng.integers(-140, 140, shape) + 0.5) * np.float64(scale)).astype(F32)
        x = np.where(rng.integers(0, 3, shape) == 0, np.nextafter(x, F32(np.inf)), x).astype(F32)
    else:
        x = rng.uniform(-200 * scale, 200 * scale, shape).astype(F32)
    m = op_model("QUANTIZE", [Input(shape, F32)], [(shape, I8, Quant(scale, zero_point))], None)
    assert_same_bits_as_litert(m, [x])


@EXAMPLES
@given(seeds, shapes, st.integers(0, 3), st.booleans())
def test_quantize_float32_to_int8_per_channel(seed, shape, axis, ties):
    """One scale and zero point per index of the quantized dimension (first, middle or last): LiteRT runs TFLite's
    reference kernel (XNNPACK declines it), x / scale rounded half away from zero; exact ties (power-of-two
    scales, k + 1/2 steps, both signs), values an ulp off them, and values past the int8 range that clamp. A
    dimension of one channel is a per-tensor QUANTIZE naming a quantized dimension, which XNNPACK declines too:
    TFLite's per-tensor kernel, blocks of 8 rounded as XNNPACK does and the rest as per channel."""
    rng = np.random.default_rng(seed)
    axis = axis % len(shape)
    channels = shape[axis]
    if ties:
        scales = (2.0 ** rng.integers(-8, 0, channels)).astype(F32)
    else:
        scales = rng.uniform(0.001, 0.3, channels).astype(F32)
    zero_points = rng.integers(-128, 128, channels)
    along = [1] * len(shape)
    along[axis] = channels
    scale = scales.reshape(along)
    x = ((rng.integers(-160, 160, shape) + 0.5 * ties) * scale.astype(np.float64)).astype(F32)
    x = np.where(rng.integers(0, 4, shape) == 0, np.nextafter(x, F32(np.inf)), x).astype(F32)
    m = op_model("QUANTIZE", [Input(shape, F32)], [(shape, I8, Quant(scales, zero_points, axis))], None)
    assert_same_bits_as_litert(m, [x])


@EXAMPLES
@given(seeds, shapes, st.booleans())
def test_quantize_int8_to_int8(seed, shape, power_of_two):
    rng = np.random.default_rng(seed)
    si = np.float32(rng.uniform(0.001, 0.3))
    so = np.float32(si * (2.0 ** rng.integers(-4, 5) if power_of_two else rng.uniform(0.05, 20.0)))
    zi, zo = (int(v) for v in rng.integers(-128, 128, 2))
    m = op_model("QUANTIZE", [Input(shape, I8, Quant(si, zi))], [(shape, I8, Quant(so, zo))], None)
    assert_same_bits_as_litert(m, [rng.integers(-128, 128, shape).astype(I8)])


@EXAMPLES
@given(seeds, shapes)
def test_dequantize_int8(seed, shape):
    rng = np.random.default_rng(seed)
    m = op_model("DEQUANTIZE", [Input(shape, I8, Quant(rng.uniform(0.001, 0.3), int(rng.integers(-128, 128))))],
                 [(shape, F32)], None)
    assert_same_bits_as_litert(m, [rng.integers(-128, 128, shape).astype(I8)])


def float16_weights_model(w16: np.ndarray, batch: int) -> bytes:
    """TensorFlow's float16-weights form: FULLY_CONNECTED reads DEQUANTIZE of a float16 constant."""
    from rillet.converter.format import (
        BUILTIN_CODES,
        Buffer,
        ModelFile,
        Operator,
        OperatorCode,
        SubGraph,
        Tensor,
        save,
    )

    units, depth = w16.shape
    tensors = [Tensor(shape=[batch, depth], type=0, buffer=0, name="x"),
               Tensor(shape=[units, depth], type=1, buffer=1, name="w16"),
               Tensor(shape=[units, depth], type=0, buffer=0, name="w"),
               Tensor(shape=[batch, units], type=0, buffer=0, name="y")]
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n], version=1)
             for n in ("DEQUANTIZE", "FULLY_CONNECTED")]
    ops = [Operator(opcode_index=0, inputs=[1], outputs=[2]), Operator(opcode_index=1, inputs=[0, 2, -1], outputs=[3])]
    return save(ModelFile(operator_codes=codes, buffers=[Buffer(data=None), Buffer(data=np.frombuffer(w16.tobytes(), np.uint8))],
                          subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[3], operators=ops, name="main")]))


def test_float16_weights_are_dequantized_at_prepare_exactly():
    rng = np.random.default_rng(3)
    w = rng.normal(0, 1, (7, 13)).astype(np.float16)
    w[0, :4] = [np.float16(6e-8), np.float16(-0.0), np.float16(65504), np.float16(-1e-5)]  # subnormals, extremes
    m = float16_weights_model(w, 3)
    it = Interpreter(model_content=m)
    it.allocate_tensors()
    assert it.profile()[0]["folded"]
    np.testing.assert_array_equal(it.get_tensor(2), w.astype(F32))
    x = rng.uniform(-1, 1, (3, 13)).astype(F32)
    got = run(Interpreter, m, [x])[0]
    np.testing.assert_allclose(got, litert_default(m, [x])[0], rtol=1e-5, atol=1e-5)
    assert it.get_tensor_details()[1]["dtype"] == np.float16


def test_per_channel_dequantize_of_int8_weights():
    rng = np.random.default_rng(4)
    w = rng.integers(-127, 128, (3, 5)).astype(I8)
    scales = np.array([0.5, 0.25, 0.125], F32)
    m = op_model("DEQUANTIZE", [Const(w, Quant(scales, 0, axis=0))], [((3, 5), F32)], None)
    it = Interpreter(model_content=m)
    it.allocate_tensors()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), w * scales[:, None])


@pytest.mark.parametrize("quant, message", [
    (Quant([], []), "no quantization scales|one scale"),
    (Quant([0.5], [300]), "zero point 300"),
    (Quant([0.5, 0.25], [0, 0]), "2 scales for dimension 0 of a rank-1 tensor"),  # per channel: 4 channels
])
def test_malformed_quantize_output_is_a_clear_error(quant, message):
    m = op_model("QUANTIZE", [Input((4,), F32)], [((4,), I8, quant)], None)
    with pytest.raises(InterpreterError, match=f"QUANTIZE op 0 .*({message})"):
        Interpreter(model_content=m).allocate_tensors()


def test_requantization_outside_xnnpack_range_is_refused():
    """XNNPACK takes int8->int8 ratios in [1/256, 128]; LiteRT falls back to TFLite's kernel outside it."""
    m = op_model("QUANTIZE", [Input((4,), I8, Quant(1.0, 0))], [((4,), I8, Quant(1e-3, 0))], None)
    with pytest.raises(InterpreterError, match="ratio"):
        Interpreter(model_content=m).allocate_tensors()
