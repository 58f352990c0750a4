"""`rillet quantize --mode int8` on a float TRANSPOSE_CONV: a per-channel int8 filter (axis 0), an int32 bias
on the activation's scale times each filter scale, the op's TFLite version; LiteRT runs the file close to the
float model, and rillet runs it with LiteRT's bits (XNNPACK's side and TFLite's kernel's side both)."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import assert_same_bits_in_rillet, run, sqnr_db
from single_op import OPTIONS_TYPES, Input, op_model

from rillet.converter.format import load
from rillet.quant import quantize

OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
SAME, VALID = 0, 1


def float_transpose_conv(kernel, stride, padding, bias, c_in=6, c_out=12, hw=(5, 4), activation=0):
    rng = np.random.default_rng(kernel[0] * 10 + stride)
    (kh, kw), (h, w) = kernel, hw
    oh = h * stride if padding == SAME else (h - 1) * stride + kh
    ow = w * stride if padding == SAME else (w - 1) * stride + kw
    filt = (rng.standard_normal((c_out, kh, kw, c_in)) * rng.uniform(0.1, 2.0, (c_out, 1, 1, 1))).astype(np.float32)
    inputs = [np.array([1, oh, ow, c_out], np.int32), filt, Input((1, h, w, c_in))]
    if bias:
        inputs.append(rng.standard_normal(c_out).astype(np.float32))
    return op_model("TRANSPOSE_CONV", inputs, [((1, oh, ow, c_out), np.float32)],
                    {"padding": padding, "stride_h": stride, "stride_w": stride,
                     "fused_activation_function": activation}, version=4 if activation else 3 if bias else 1)


@pytest.mark.parametrize("kernel, stride, padding, bias, activation", [
    ((3, 3), 2, SAME, True, 0),   # XNNPACK's side
    ((4, 4), 2, SAME, False, 1),  # XNNPACK's side, RELU
    ((1, 3), 2, SAME, True, 0),   # a filter below the stride: TFLite's kernel
    ((2, 2), 1, VALID, True, 3),  # RELU6
])
def test_quantized_transpose_conv(kernel, stride, padding, bias, activation):
    content = float_transpose_conv(kernel, stride, padding, bias, activation=activation)
    xs = list((2.0 * np.random.default_rng(1).normal(size=(24, 1, 5, 4, 6))).astype(np.float32))
    q = quantize(content, np.stack(xs), progress=False, interpreter_class=LiteRT)
    model = load(q)
    sg = model.subgraphs[0]
    op = next(o for o in sg.operators if model.op_name(o) == "TRANSPOSE_CONV")
    filt = sg.tensors[op.inputs[1]]
    assert filt.type == 9 and len(filt.quantization.scale) == 12 and filt.quantization.quantized_dimension == 0
    assert sg.tensors[op.inputs[2]].type == 9 and sg.tensors[op.outputs[0]].type == 9
    if bias:
        assert sg.tensors[op.inputs[3]].type == 2
    assert sqnr_db(run(content, xs), run(q, xs)) > 25
    assert_same_bits_in_rillet(q, xs)
