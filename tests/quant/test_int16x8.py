"""--mode int16x8: TFLite's 16x8 scheme as TensorFlow's converter writes it (int16 activations with zero point
0, int8 per-channel weights, int64 biases named by quantized_bias_type, SOFTMAX/LOGISTIC/TANH writing steps of
1/32768, an ADD/SUB of any scales), on the small transformer files of tests/data/transformers. The file over
every op LiteRT runs int16 (int16_ops=INT16_OPS) loads and runs in LiteRT and comes closer to the float model
than int8; the default file holds int16 only where rillet's runtime runs it, and rillet runs it."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import sqnr_db

from rillet.converter.format import load
from rillet.quant import QuantizationWarning, quantize, quantize_with_report
from rillet.quant.rewrite import INT16_OPS, WEIGHT_AXIS, rillet_int16_ops
from rillet.runtime import Interpreter

DATA = Path(__file__).resolve().parents[1] / "data" / "transformers"
INT8, INT16, INT32, INT64, FLOAT32 = 9, 7, 2, 4, 0
MODELS = ["vit_tiny_f32", "whisper_tiny_encoder_f32"]


def inputs(name: str, n: int, seed: int) -> np.ndarray:
    """n standard-normal inputs of the model's input shape (what bench/make_transformers.py calibrates on)."""
    spec = load(str(DATA / f"{name}.tflite"))
    sg = spec.subgraphs[0]
    shape = tuple(sg.tensors[sg.inputs[0]].shape)
    return np.stack([np.random.default_rng(seed + k).standard_normal(shape).astype(np.float32)
                     for k in range(n)])


def outputs(content: bytes, xs: np.ndarray, interpreter_class=LiteRT) -> np.ndarray:
    it = interpreter_class(model_content=content)
    it.allocate_tensors()
    i, o = it.get_input_details()[0], it.get_output_details()[0]
    found = []
    for x in xs:
        it.set_tensor(i["index"], x)
        it.invoke()
        found.append(np.array(it.get_tensor(o["index"]), np.float64))
    return np.stack(found)


@pytest.fixture(scope="module", params=MODELS)
def model(request):
    name = request.param
    content = (DATA / f"{name}.tflite").read_bytes()
    calibration = inputs(name, 8, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QuantizationWarning)
        litert_file = quantize(content, calibration, mode="int16x8", progress=False, int16_ops=INT16_OPS)
        int8_file = quantize(content, calibration, progress=False, auto=False)  # every op int8
    return name, content, litert_file, int8_file


def test_the_16x8_file_is_tensorflow_s_form(model):
    _, _, data, _ = model
    m = load(data)
    sg = m.subgraphs[0]
    names = {m.op_name(op) for op in sg.operators}
    assert {"FULLY_CONNECTED", "BATCH_MATMUL", "SOFTMAX", "GELU", "ADD", "MEAN"} <= names
    weighted = 0
    for op in sg.operators:
        name = m.op_name(op)
        outs = [sg.tensors[o] for o in op.outputs]
        if name in ("QUANTIZE", "DEQUANTIZE") or outs[0].type != INT16:
            continue
        for t in outs + [sg.tensors[i] for i in op.inputs if i >= 0 and sg.tensors[i].type == INT16]:
            assert set(t.quantization.zero_point) == {0}, (name, t.name)  # symmetric int16 activations
        if name in WEIGHT_AXIS:
            weighted += 1
            x, w = sg.tensors[op.inputs[0]], sg.tensors[op.inputs[1]]
            assert w.type == INT8 and len(w.quantization.scale) == w.shape[WEIGHT_AXIS[name]]  # per channel
            assert op.builtin_options.fields()["quantized_bias_type"] == INT64
            if name == "FULLY_CONNECTED":  # a zero int64 bias where the float op has none (ViT's)
                assert len(op.inputs) > 2 and op.inputs[2] >= 0
            if len(op.inputs) > 2 and op.inputs[2] >= 0:
                b = sg.tensors[op.inputs[2]]
                assert b.type == INT64
                np.testing.assert_allclose(b.quantization.scale, np.float32(x.quantization.scale[0])
                                           * np.asarray(w.quantization.scale, np.float32), rtol=1e-6)
        if name == "SOFTMAX":
            assert outs[0].quantization.scale[0] == 1 / 32768
        if name in ("ADD", "SUB"):
            assert op.builtin_options.fields()["pot_scale_int16"] is False
    assert weighted >= 4


def test_the_16x8_file_runs_in_litert_closer_to_float_than_int8(model):
    name, content, data, int8_file = model
    xs = inputs(name, 3, 100)  # held out: never calibrated on
    reference = outputs(content, xs)
    db16, db8 = sqnr_db(reference, outputs(data, xs)), sqnr_db(reference, outputs(int8_file, xs))
    assert db16 > db8 + 10, (db16, db8)
    assert db16 > 40


def test_the_default_file_holds_int16_only_where_rillet_runs_it(model):
    name, content, _, _ = model
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", QuantizationWarning)
        data = quantize(content, inputs(name, 4, 1), mode="int16x8", progress=False)
    m = load(data)
    sg = m.subgraphs[0]
    int16_ops = {m.op_name(op) for op in sg.operators
                 if any(sg.tensors[o].type == INT16 for o in op.outputs) and m.op_name(op) != "QUANTIZE"}
    assert int16_ops <= rillet_int16_ops()
    (kept,) = [str(w.message) for w in caught if "int16x8:" in str(w.message)]
    assert "RSQRT" in kept and "SQUARED_DIFFERENCE" in kept  # named, with every other type left float
    xs = inputs(name, 2, 100)
    ours, theirs = outputs(data, xs, Interpreter), outputs(data, xs)  # rillet runs every file it writes
    assert np.isfinite(ours).all() and sqnr_db(theirs, ours) > 40


@pytest.mark.parametrize("name", MODELS)
def test_rillet_runs_the_default_file_with_litert_s_bits(name):
    content = (DATA / f"{name}.tflite").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QuantizationWarning)
        data = quantize(content, inputs(name, 8, 1), mode="int16x8", progress=False)
    m = load(data)
    sg = m.subgraphs[0]
    quantized = {m.op_name(op) for op in sg.operators if sg.tensors[op.outputs[0]].type == INT16}
    if not {"FULLY_CONNECTED", "BATCH_MATMUL", "SOFTMAX"} <= quantized:
        pytest.skip(f"rillet's runtime runs only {sorted(rillet_int16_ops())} on int16")
    xs = inputs(name, 2, 100)
    assert outputs(data, xs, Interpreter).tobytes() == outputs(data, xs).tobytes()


def test_layer_norm_variances_and_unrun_ops_stay_float(model):
    _, _, data, _ = model
    m = load(data)
    sg = m.subgraphs[0]
    for op in sg.operators:
        name = m.op_name(op)
        if name in ("RSQRT", "SQUARED_DIFFERENCE"):  # LiteRT: a coarse table / no int16 kernel
            assert sg.tensors[op.outputs[0]].type == FLOAT32
    # the variance's MEAN and ADD of epsilon before each RSQRT stay float too (it spans few int16 steps)
    producer = {o: op for op in sg.operators for o in op.outputs}
    for op in sg.operators:
        if m.op_name(op) == "RSQRT":
            add = producer[op.inputs[0]]
            assert m.op_name(add) == "ADD" and sg.tensors[add.outputs[0]].type == FLOAT32


def test_the_report_ranks_the_16x8_layers():
    name = MODELS[1]
    content = (DATA / f"{name}.tflite").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QuantizationWarning)
        _, report = quantize_with_report(content, inputs(name, 4, 1), mode="int16x8", progress=False,
                                         report=True, int16_ops=INT16_OPS, interpreter_class=LiteRT)
    assert any(t.dtype == "int16" for t in report.tensors)
    added = [layer.added_db for layer in report.layers]
    assert added == sorted(added, reverse=True) and added[0] > 0
    by_op = report.added_by_op()  # where the dB go, by op type: every layer's added dB counted once
    assert [row["added_db"] for row in by_op] == sorted((row["added_db"] for row in by_op), reverse=True)
    assert sum(row["added_db"] for row in by_op) == pytest.approx(sum(added), abs=1e-6)
    assert all(row["layers"] == sum(layer.op == row["op"] for layer in report.layers) for row in by_op)
    assert f"added dB by op type: {by_op[0]['op']} " in report.table()
    assert report.to_dict()["added_db_by_op"] == by_op


def test_int16x8_refuses_int8_io_and_min_sqnr():
    content = (DATA / f"{MODELS[0]}.tflite").read_bytes()
    with pytest.raises(ValueError, match="int16x8"):
        quantize(content, inputs(MODELS[0], 2, 1), mode="int16x8", io="int8", progress=False)
    with pytest.raises(ValueError, match="min_sqnr"):
        quantize(content, inputs(MODELS[0], 2, 1), mode="int16x8", min_sqnr=30, progress=False)


def test_the_command_line_writes_a_16x8_file_rillet_runs(tmp_path, capsys):
    from rillet.cli import main

    name = MODELS[1]
    np.savez(tmp_path / "calib.npz", x=inputs(name, 4, 1))
    out = tmp_path / "q.tflite"
    assert main(["quantize", str(DATA / f"{name}.tflite"), "--calib", str(tmp_path / "calib.npz"), "--mode",
                 "int16x8", "-o", str(out), "--quiet"]) == 0
    assert "int16x8, float inputs and outputs" in capsys.readouterr().out
    it = Interpreter(model_path=str(out))  # rillet runs what it wrote
    it.allocate_tensors()
    assert main(["quantize", str(DATA / f"{name}.tflite"), "--calib", str(tmp_path / "calib.npz"), "--mode",
                 "int16x8", "--io", "int8", "-o", str(out)]) == 2
    assert "--mode int16x8 keeps float32 inputs and outputs" in capsys.readouterr().err
