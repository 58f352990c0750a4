"""MediaPipe's custom ops that LiteRT's default Interpreter runs (through XNNPACK), found by their custom
names: Convolution2DTransposeBias (selfie segmentation's upsampling), against LiteRT within 1e-5."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from rillet.converter.format import Buffer, ModelFile, Operator, OperatorCode, SubGraph, Tensor, save

pytest.importorskip("ai_edge_litert")


def deconv_model(in_shape, filter_shape, padding, stride, bias=True, options=None) -> tuple[bytes, tuple]:
    rng = np.random.default_rng(0)
    n, h, w, _ = in_shape
    oc, kh, kw, _ = filter_shape
    out_h = h * stride if padding == 1 else (h - 1) * stride + kh
    out_w = w * stride if padding == 1 else (w - 1) * stride + kw
    weights = rng.standard_normal(filter_shape).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    buffers = [Buffer(data=None), Buffer(data=weights.view(np.uint8).reshape(-1)), Buffer(data=b.view(np.uint8))]
    tensors = [Tensor(shape=list(in_shape), type=0, name="x"), Tensor(shape=list(filter_shape), type=0, buffer=1, name="w"),
               Tensor(shape=[oc], type=0, buffer=2, name="b"), Tensor(shape=[n, out_h, out_w, oc], type=0, name="y")]
    raw = struct.pack("<3i", padding, stride, stride) if options is None else options
    op = Operator(opcode_index=0, inputs=[0, 1, 2] if bias else [0, 1], outputs=[3],
                  custom_options=np.frombuffer(raw, np.uint8))
    code = OperatorCode(deprecated_builtin_code=32, builtin_code=32, custom_code="Convolution2DTransposeBias")
    model = ModelFile(operator_codes=[code], buffers=buffers,
                      subgraphs=[SubGraph(tensors=tensors, inputs=[0], outputs=[3], operators=[op], name="main")])
    return save(model), (n, out_h, out_w, oc)


@pytest.mark.parametrize("padding", [1, 2])  # SAME, VALID
@pytest.mark.parametrize("in_shape, filter_shape, stride", [((1, 4, 5, 3), (2, 2, 2, 3), 2), ((1, 6, 6, 8), (4, 3, 3, 8), 2),
                                                            ((2, 3, 3, 2), (3, 4, 4, 2), 2), ((1, 5, 4, 4), (2, 3, 3, 4), 1)])
def test_convolution_2d_transpose_bias(in_shape, filter_shape, stride, padding):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    content, out_shape = deconv_model(in_shape, filter_shape, padding, stride)
    x = np.random.default_rng(1).standard_normal(in_shape).astype(np.float32)
    results = []
    for cls in (Interpreter, LiteRT):
        it = cls(model_content=content)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        results.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert results[0].shape == out_shape
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-5)


def test_options_of_another_size_are_refused():
    from rillet.runtime import Interpreter

    content, _ = deconv_model((1, 2, 2, 1), (1, 2, 2, 1), 1, 2, options=b"\x01\x00\x00\x00")
    with pytest.raises(Exception, match="custom options hold 4 bytes"):
        Interpreter(model_content=content)
