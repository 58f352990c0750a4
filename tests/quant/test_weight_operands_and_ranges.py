"""Two things openWakeWord's melspectrogram taught the quantizer: a BATCH_MATMUL's constant operand is a
weight (symmetric int8, zero point 0, as TensorFlow writes it; rillet's int8 kernel takes no other), and a
tensor with an infinite value (a clip's inf bound, a LOG of 0) is refused naming the op to keep float."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, assert_same_bits_as_litert, op_model

from rillet.converter.format import load
from rillet.quant import QuantizationError, quantize

RNG = np.random.default_rng(21)


def test_a_constant_batch_matmul_operand_is_quantized_symmetrically():
    y = RNG.uniform(0.1, 2.0, (8, 5)).astype(np.float32)  # all positive: asymmetric would give zero point -128
    content = op_model("BATCH_MATMUL", [Input((1, 3, 8)), y], [((1, 3, 5), np.float32)],
                       {"adj_x": False, "adj_y": False})
    data = quantize(content, RNG.uniform(-1, 1, (8, 1, 3, 8)).astype(np.float32), io="int8", progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    (op,) = [op for op in sg.operators if model.op_name(op) == "BATCH_MATMUL"]
    weight = sg.tensors[op.inputs[1]]
    assert weight.type == 9 and list(weight.quantization.zero_point) == [0]
    q = model.tensor_data(0, op.inputs[1]).astype(np.float64) * weight.quantization.scale[0]
    assert np.abs(q - y).max() <= weight.quantization.scale[0] / 2 + 1e-9
    assert_same_bits_as_litert(data, [RNG.integers(-128, 128, (1, 3, 8)).astype(np.int8)])


def test_an_infinite_constant_names_the_op_that_reads_it():
    # MAXIMUM(x, +inf) is +inf everywhere (MINIMUM(x, +inf), a no-op clip, quantizes: test_clip_at_infinity.py)
    content = op_model("MAXIMUM", [Input((2, 4)), np.full((2, 4), np.inf, np.float32)], [((2, 4), np.float32)])
    with pytest.raises(QuantizationError, match=r"tensor 'in1' is a constant holding values in \[inf, inf\]; int8 "
                                                r"needs a finite range: keep MAXIMUM #0 \('out0'\) float with "
                                                r"keep_float=\['MAXIMUM'\]"):
        quantize(content, RNG.uniform(-1, 1, (4, 2, 4)).astype(np.float32), progress=False)


def test_infinite_calibration_data_is_named():
    content = op_model("RELU", [Input((2, 4))], [((2, 4), np.float32)])
    calibration = RNG.uniform(-1, 1, (4, 2, 4)).astype(np.float32)
    calibration[1, 0, 2] = np.inf
    with pytest.raises(QuantizationError, match=r"^tensor 'in0' holds values in \[-.*, inf\]; int8 needs a finite "
                                                r"range$"):
        quantize(content, calibration, progress=False)


def test_a_kept_float_output_may_hold_infinities_when_the_outputs_are_float():
    """A LOG kept float whose output calibration saw reach -inf: with float outputs nothing is quantized
    from that range, so it is no reason to refuse (with int8 outputs it is)."""
    content = op_model("LOG", [Input((2, 4))], [((2, 4), np.float32)])
    calibration = np.abs(RNG.uniform(-1, 1, (4, 2, 4))).astype(np.float32)
    calibration[0, 0, 0] = 0.0  # log(0) = -inf
    data = quantize(content, calibration, keep_float=["LOG"], progress=False)
    assert [load(data).op_name(op) for op in load(data).subgraphs[0].operators] == ["LOG"]
    with pytest.raises(QuantizationError, match=r"tensor 'out0' \(output of LOG #0 \('out0'\)\): calibration saw "
                                                r"values in \[-inf, .*\]; int8 needs a finite range: keep the "
                                                r"outputs float \(io='float', or --io float\)"):
        quantize(content, calibration, keep_float=["LOG"], io="int8", progress=False)
