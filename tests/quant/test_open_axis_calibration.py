"""Calibration of a model whose input leaves an axis open (-1) and stores it as 1, as openWakeWord's
melspectrogram does: the interpreter is sized to the calibration data before it is first prepared, since
the stored shape may not prepare at all (a convolution window wider than one sample)."""

from __future__ import annotations

import numpy as np
from single_op import Input, op_model

from rillet.converter.format import load, save
from rillet.quant import quantize


def open_width_conv() -> bytes:
    rng = np.random.default_rng(0)
    model = load(op_model("CONV_2D", [Input((1, 1, 1, 2)), rng.standard_normal((3, 1, 3, 2)).astype(np.float32),
                                      rng.standard_normal(3).astype(np.float32)], [((1, 1, 1, 3), np.float32)],
                          {"padding": 1, "stride_w": 1, "stride_h": 1, "fused_activation_function": 0}))
    sg = model.subgraphs[0]
    sg.tensors[sg.inputs[0]].shape_signature = [1, 1, -1, 2]
    sg.tensors[sg.outputs[0]].shape_signature = [1, 1, -1, 3]
    return save(model)


def resized_run(interpreter_class, content: bytes, x: np.ndarray) -> np.ndarray:
    it = interpreter_class(model_content=content)
    it.resize_tensor_input(it.get_input_details()[0]["index"], x.shape)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def test_calibration_sizes_an_open_axis_before_preparing():
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    rng = np.random.default_rng(1)
    calibration = rng.uniform(-1, 1, (6, 1, 1, 16, 2)).astype(np.float32)
    data = quantize(open_width_conv(), calibration, progress=False)
    x = rng.uniform(-1, 1, (1, 1, 16, 2)).astype(np.float32)
    expected = resized_run(LiteRT, data, x)
    assert resized_run(Interpreter, data, x).tobytes() == expected.tobytes()
    float_out = resized_run(LiteRT, open_width_conv(), x)
    assert np.abs(expected - float_out).max() < 0.1 * np.abs(float_out).max()


def test_the_report_sizes_both_models_before_preparing():
    from rillet.quant import quantize_with_report

    calibration = np.random.default_rng(2).uniform(-1, 1, (3, 1, 1, 16, 2)).astype(np.float32)
    for mode in ("int8", "dynamic", "float16"):
        _, report = quantize_with_report(open_width_conv(), calibration, mode=mode, report=True, progress=False)
        assert report.tensors and all(t.cosine > 0.9 for t in report.tensors)
