"""rillet.quant on single ops and small models: every quantized file runs in LiteRT close to the float
model (and in rillet with LiteRT's bits once rillet runs int8); modes, kept-float ops, errors, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import assert_same_bits_in_rillet, run, sqnr_db
from single_op import Input, op_model

from rillet.converter.format import load
from rillet.quant import CalibrationError, QuantizationError, quantize

from support import model_path

RNG = np.random.default_rng(7)
CONV = {"padding": 0, "stride_w": 1, "stride_h": 1, "fused_activation_function": 1}
X4 = (1, 6, 6, 4)
SINGLE_OPS = {
    "CONV_2D": (op_model("CONV_2D", [Input(X4), RNG.normal(size=(3, 3, 3, 4)).astype(np.float32),
                                     RNG.normal(size=3).astype(np.float32)], [((1, 6, 6, 3), np.float32)], CONV), X4),
    "DEPTHWISE_CONV_2D": (op_model("DEPTHWISE_CONV_2D", [Input(X4), RNG.normal(size=(1, 3, 3, 4)).astype(np.float32),
                                                         RNG.normal(size=4).astype(np.float32)],
                                   [((1, 6, 6, 4), np.float32)], {**CONV, "depth_multiplier": 1}), X4),
    "FULLY_CONNECTED": (op_model("FULLY_CONNECTED", [Input((1, 16)), RNG.normal(size=(5, 16)).astype(np.float32),
                                                     RNG.normal(size=5).astype(np.float32)], [((1, 5), np.float32)],
                                 {"fused_activation_function": 0}), (1, 16)),
    "ADD": (op_model("ADD", [Input(X4), RNG.uniform(0, 3, size=X4).astype(np.float32)], [(X4, np.float32)],
                     {"fused_activation_function": 0}), X4),
    "MUL": (op_model("MUL", [Input(X4), RNG.uniform(-2, 2, size=X4).astype(np.float32)], [(X4, np.float32)],
                     {"fused_activation_function": 0}), X4),
    "MAX_POOL_2D": (op_model("MAX_POOL_2D", [Input(X4)], [((1, 3, 3, 4), np.float32)],
                             {"padding": 1, "stride_w": 2, "stride_h": 2, "filter_width": 2, "filter_height": 2,
                              "fused_activation_function": 0}), X4),
    "AVERAGE_POOL_2D": (op_model("AVERAGE_POOL_2D", [Input(X4)], [((1, 3, 3, 4), np.float32)],
                                 {"padding": 1, "stride_w": 2, "stride_h": 2, "filter_width": 2,
                                  "filter_height": 2, "fused_activation_function": 0}), X4),
    "MEAN": (op_model("MEAN", [Input(X4), np.array([1, 2], np.int32)], [((1, 4), np.float32)],
                      {"keep_dims": False}), X4),
    "RESHAPE": (op_model("RESHAPE", [Input(X4), np.array([1, 144], np.int32)], [((1, 144), np.float32)]), X4),
    "CONCATENATION": (op_model("CONCATENATION", [Input(X4), (3 * RNG.normal(size=X4)).astype(np.float32)],
                               [((1, 6, 6, 8), np.float32)], {"axis": 3, "fused_activation_function": 0}), X4),
    "SOFTMAX": (op_model("SOFTMAX", [Input((1, 10))], [((1, 10), np.float32)], {"beta": 1.0}), (1, 10)),
    "LOGISTIC": (op_model("LOGISTIC", [Input((1, 10))], [((1, 10), np.float32)]), (1, 10)),
    "TANH": (op_model("TANH", [Input((1, 10))], [((1, 10), np.float32)]), (1, 10)),
    "PAD": (op_model("PAD", [Input(X4), np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32)],
                     [((1, 8, 8, 4), np.float32)]), X4),
}


def samples(shape, n=24, seed=0, scale=2.0):
    return (scale * np.random.default_rng(seed).normal(size=(n, *shape))).astype(np.float32)


@pytest.mark.parametrize("io", ["float", "int8"])
@pytest.mark.parametrize("name", sorted(SINGLE_OPS))
def test_single_op_runs_in_litert_close_to_float(name, io):
    content, shape = SINGLE_OPS[name]
    q = quantize(content, samples(shape), io=io, progress=False, interpreter_class=LiteRT)
    model = load(q)
    assert {load(content).op_name(op) for op in load(content).subgraphs[0].operators} <= \
        {model.op_name(op) for op in model.subgraphs[0].operators}
    xs = list(samples(shape, 8, seed=1))
    db = sqnr_db(run(content, xs), run(q, xs))
    assert db > 25, f"{name}: SQNR {db:.1f} dB"
    assert_same_bits_in_rillet(q, xs[:2])


def test_fixed_output_parameters_follow_the_spec():
    for name, scale, zero_point in [("SOFTMAX", 1 / 256, -128), ("LOGISTIC", 1 / 256, -128), ("TANH", 1 / 128, 0)]:
        m = load(quantize(SINGLE_OPS[name][0], samples((1, 10)), io="int8", progress=False,
                          interpreter_class=LiteRT))
        out = m.subgraphs[0].tensors[m.subgraphs[0].outputs[0]].quantization
        assert (out.scale, out.zero_point) == ([scale], [zero_point])


def test_same_scale_ops_share_parameters():
    m = load(quantize(SINGLE_OPS["CONCATENATION"][0], samples(X4), io="int8", progress=False,
                      interpreter_class=LiteRT))
    sg = m.subgraphs[0]
    op = next(op for op in sg.operators if m.op_name(op) == "CONCATENATION")
    params = {(tuple(sg.tensors[i].quantization.scale), tuple(sg.tensors[i].quantization.zero_point))
              for i in op.inputs + op.outputs}
    assert len(params) == 1


def test_per_tensor_weights_on_request():
    content, shape = SINGLE_OPS["CONV_2D"]
    for per_channel, count in [(True, 3), (False, 1)]:
        m = load(quantize(content, samples(shape), per_channel=per_channel, progress=False, interpreter_class=LiteRT))
        sg = m.subgraphs[0]
        conv = next(op for op in sg.operators if m.op_name(op) == "CONV_2D")
        assert len(sg.tensors[conv.inputs[1]].quantization.scale) == count
        assert len(sg.tensors[conv.inputs[2]].quantization.scale) == count


@pytest.mark.parametrize("method", ["minmax", "percentile", "mse"])
def test_calibration_methods(method):
    content, shape = SINGLE_OPS["CONV_2D"]
    q = quantize(content, samples(shape), calibration=method, progress=False, interpreter_class=LiteRT)
    xs = list(samples(shape, 8, seed=1))
    assert sqnr_db(run(content, xs), run(q, xs)) > 20


def test_deterministic():
    content, shape = SINGLE_OPS["CONV_2D"]
    data = samples(shape)
    for method in ("minmax", "mse"):
        a = quantize(content, data, calibration=method, progress=False, interpreter_class=LiteRT)
        b = quantize(content, list(data), calibration=method, progress=False, interpreter_class=LiteRT)
        assert a == b


@pytest.mark.parametrize("mode", ["dynamic", "float16"])
def test_weight_only_modes_run_in_litert(mode):
    path = model_path("cnn_small_f32")
    f32 = path.read_bytes()
    q = quantize(f32, mode=mode, progress=False)
    assert len(q) < len(f32) * (0.45 if mode == "dynamic" else 0.65)
    xs = list(samples((1, 28, 28, 1), 8, seed=3, scale=1.0))
    assert sqnr_db(run(f32, xs), run(q, xs)) > 25
    m = load(q)
    types = {m.subgraphs[0].tensors[op.inputs[1]].type for op in m.subgraphs[0].operators
             if m.op_name(op) in ("CONV_2D", "FULLY_CONNECTED")}
    assert types == ({9} if mode == "dynamic" else {0})


def test_kept_float_op_is_wrapped():
    f32 = model_path("cnn_small_f32").read_bytes()
    calib = samples((1, 28, 28, 1), 16, scale=1.0)
    q = quantize(f32, calib, keep_float=["SOFTMAX"], io="int8", progress=False, interpreter_class=LiteRT)
    m = load(q)
    sg = m.subgraphs[0]
    names = [m.op_name(op) for op in sg.operators]
    softmax = sg.operators[names.index("SOFTMAX")]
    assert sg.tensors[softmax.inputs[0]].type == 0 and names[names.index("SOFTMAX") - 1] == "DEQUANTIZE"
    assert names[-1] == "QUANTIZE" and sg.tensors[sg.outputs[0]].type == 9
    xs = list(samples((1, 28, 28, 1), 8, seed=3, scale=1.0))
    assert sqnr_db(run(f32, xs), run(q, xs)) > 20


def test_classifies_like_float():
    """cnn_small (random weights) on 200 inputs: int8 picks the float model's class nearly everywhere."""
    f32 = model_path("cnn_small_f32").read_bytes()
    q = quantize(f32, samples((1, 28, 28, 1), 32, scale=1.0), progress=False, interpreter_class=LiteRT)
    xs = list(samples((1, 28, 28, 1), 200, seed=11, scale=1.0))
    agree = np.mean(run(f32, xs).argmax(-1) == run(q, xs).argmax(-1))
    assert agree >= 0.97, agree


def test_unsupported_op_names_itself_and_the_fix():
    content = op_model("SIN", [Input((1, 4))], [((1, 4), np.float32)])  # LiteRT has no int8 SIN
    with pytest.raises(QuantizationError, match=r"SIN #0.*no int8 kernel for SIN.*keep_float=\['SIN'\]"):
        quantize(content, samples((1, 4)), progress=False, interpreter_class=LiteRT)
    q = quantize(content, samples((1, 4)), keep_float=["SIN"], progress=False, interpreter_class=LiteRT)
    np.testing.assert_allclose(run(q, [np.ones((1, 4), np.float32)])[0], np.sin(np.ones((1, 4))), rtol=1e-6)


def test_wrong_calibration_shape_names_the_input():
    content, _ = SINGLE_OPS["FULLY_CONNECTED"]
    with pytest.raises(CalibrationError, match=r"'x0'.*\[5, 17\].*\[1, 16\]"):
        quantize(content, np.zeros((5, 17), np.float32), progress=False, interpreter_class=LiteRT)
    with pytest.raises(QuantizationError, match="name no op"):
        quantize(content, samples((1, 16)), keep_float=["NOPE"], progress=False, interpreter_class=LiteRT)


def test_rillet_graph_model():
    from rillet.graph import Graph, Variable, ops

    g = Graph()
    with g.as_default():
        x = ops.placeholder((1, 8), name="features")
        w = Variable(np.random.default_rng(0).normal(size=(4, 8)).astype(np.float32), name="dense/kernel")
        y = ops.relu(ops.fully_connected(x, w))
    q = quantize(({"features": x}, {"scores": y}), samples((1, 8)), progress=False, interpreter_class=LiteRT)
    it = LiteRT(model_content=q)
    out = it.get_signature_runner("infer")(features=np.ones((1, 8), np.float32))["scores"]
    assert out.shape == (1, 4) and out.dtype == np.float32
