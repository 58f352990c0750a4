"""The issue's bar: mobilenet_v2_035_96 quantized by rillet, from the calibration images TensorFlow's converter
was given, is at least as accurate as TensorFlow's own int8 file on 100 fresh random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import assert_same_bits_in_rillet, run, sqnr_db

from rillet.converter.format import load
from rillet.quant import quantize

from support import MODELS_DIR, model_path

LOGITS = "mobilenetv2_0.35_96_1/predictions_1/MatMul2"


@pytest.fixture(scope="module")
def files():
    f32 = model_path("mobilenet_v2_035_96_f32").read_bytes()
    tf_int8 = model_path("mobilenet_v2_035_96_int8").read_bytes()
    calib = np.load(MODELS_DIR / "mobilenet_v2_035_96_calib.npz")["x"]
    ours = quantize(f32, calib, io="int8", progress=False, interpreter_class=LiteRT)
    xs = list(np.random.default_rng(2024).uniform(-1, 1, (100, 1, 96, 96, 3)).astype(np.float32))
    return f32, tf_int8, ours, xs


def test_output_sqnr_at_least_tensorflows(files):
    f32, tf_int8, ours, xs = files
    reference = run(f32, xs)
    ours_db, tf_db = sqnr_db(reference, run(ours, xs)), sqnr_db(reference, run(tf_int8, xs))
    print(f"output SQNR: rillet {ours_db:.2f} dB, TensorFlow {tf_db:.2f} dB")
    assert ours_db >= tf_db


def test_logits_sqnr_beats_tensorflows(files):
    """The softmax output of this random-weight net is nearly uniform (both files tie on it); the logits
    before it tell the quantizers apart."""
    f32, tf_int8, ours, xs = files
    reference = run(f32, xs, tensor_name=LOGITS)
    ours_db = sqnr_db(reference, run(ours, xs, tensor_name=LOGITS))
    tf_db = sqnr_db(reference, run(tf_int8, xs, tensor_name=LOGITS))
    print(f"logits SQNR: rillet {ours_db:.2f} dB, TensorFlow {tf_db:.2f} dB")
    assert ours_db >= tf_db and ours_db > 20


def test_weights_and_biases_are_tensorflows_bit_for_bit(files):
    """Same float weights, same spec: per-channel int8 weights equal TensorFlow's, op by op, and so do the
    int32 biases wherever the op's input got the same scale (rillet keeps tighter ranges before each ADD)."""
    _, tf_int8, ours, _ = files
    ours_m, tf_m = load(ours), load(tf_int8)
    ours_ops, tf_ops = ours_m.subgraphs[0].operators, tf_m.subgraphs[0].operators
    assert [ours_m.op_name(op) for op in ours_ops] == [tf_m.op_name(op) for op in tf_ops]
    compared = 0
    for a, b in zip(ours_ops, tf_ops):
        same_input = ours_m.subgraphs[0].tensors[a.inputs[0]].quantization.scale == \
            tf_m.subgraphs[0].tensors[b.inputs[0]].quantization.scale
        for i, j in zip(a.inputs[1:] if same_input else a.inputs[1:2], b.inputs[1:]):
            ta, tb = ours_m.subgraphs[0].tensors[i], tf_m.subgraphs[0].tensors[j]
            if ours_m.tensor_data(0, i) is None or tb.quantization is None or not tb.quantization.scale:
                continue
            np.testing.assert_array_equal(ours_m.tensor_data(0, i), tf_m.tensor_data(0, j), err_msg=ta.name)
            np.testing.assert_allclose(ta.quantization.scale, tb.quantization.scale, rtol=1e-6, err_msg=ta.name)
            compared += 1
    assert compared > 60


def test_versions_are_tensorflows(files):
    _, tf_int8, ours, _ = files
    assert sorted((c.name, c.version) for c in load(ours).operator_codes) == \
        sorted((c.name, c.version) for c in load(tf_int8).operator_codes)


def test_rillet_gives_litert_bits(files):
    _, _, ours, xs = files
    assert_same_bits_in_rillet(ours, xs[:3])
