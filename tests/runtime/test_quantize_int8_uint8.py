"""QUANTIZE between int8 and uint8 (microWakeWord's streaming models end in one) against LiteRT's default
Interpreter, bit for bit: every input value of the source type, with lengths that leave 0-15 elements after
the 16-element blocks TFLite's optimized kernel rounds differently from the rest."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Input, Quant, assert_same_bits_as_litert, op_model

from rillet.runtime import Interpreter, InterpreterError

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PAIRS = [(np.int8, np.uint8), (np.uint8, np.int8)]


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.sampled_from(PAIRS), st.integers(0, 15), st.sampled_from(["ratio", "pow2"]))
def test_quantize_between_int8_and_uint8(seed, pair, tail, kind):
    source, target = pair
    rng = np.random.default_rng(seed)
    si = np.float32(rng.uniform(0.001, 0.3))
    so = np.float32(si * (2.0 ** rng.integers(-4, 5) if kind == "pow2" else rng.uniform(0.05, 20.0)))
    zi = int(rng.integers(np.iinfo(source).min, np.iinfo(source).max + 1))
    zo = int(rng.integers(np.iinfo(target).min, np.iinfo(target).max + 1))
    every = np.arange(np.iinfo(source).min, np.iinfo(source).max + 1)
    x = np.concatenate([every, rng.integers(every[0], every[-1] + 1, tail)]).astype(source)
    shape = (1, x.size)
    model = op_model("QUANTIZE", [Input(shape, source, Quant(si, zi))], [(shape, target, Quant(so, zo))])
    assert_same_bits_as_litert(model, [x.reshape(shape)])


@pytest.mark.parametrize("source,target", PAIRS)
def test_the_same_scale_shifts_by_128(source, target):
    """microWakeWord's own case: one scale, zero points 128 apart (TFLite's reference kernel flips the top bit)."""
    scale = np.float32(1 / 256)
    zi, zo = (-128, 0) if source is np.int8 else (0, -128)
    x = np.arange(np.iinfo(source).min, np.iinfo(source).max + 1).astype(source).reshape(1, 256)
    model = op_model("QUANTIZE", [Input((1, 256), source, Quant(scale, zi))], [((1, 256), target, Quant(scale, zo))])
    assert_same_bits_as_litert(model, [x])
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    got = it.get_tensor(it.get_output_details()[0]["index"])
    np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8) ^ 0x80)


def test_a_uint8_zero_point_outside_its_range_is_named():
    model = op_model("QUANTIZE", [Input((4,), np.int8, Quant(0.1, 0))], [((4,), np.uint8, Quant(0.1, -3))])
    with pytest.raises(InterpreterError, match="QUANTIZE's output has zero point -3, outside uint8's range"):
        Interpreter(model_content=model).allocate_tensors()
