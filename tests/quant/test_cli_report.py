"""`rillet quantize` and its report: JSON keyed by the model's tensor names, the table, the HTML chart."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import run, sqnr_db

from rillet.converter.format import load
from rillet.quant import quantize_with_report

from support import model_path


def test_cli_writes_model_and_report(tmp_path):
    src = model_path("cnn_small_f32")
    np.savez(tmp_path / "calib.npz", x=np.random.default_rng(0).uniform(-1, 1, (16, 28, 28, 1)).astype(np.float32))
    out = subprocess.run(
        [sys.executable, "-m", "rillet.cli", "quantize", str(src), "--calib", "calib.npz", "-o", "q.tflite",
         "--report", "r.json", "--html", "r.html", "--executor", "litert", "--quiet"],
        check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "SQNR dB" in out.stdout and "wrote q.tflite" in out.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    names = {t.name for t in load(src).subgraphs[0].tensors}
    assert set(report["tensors"]) <= names and len(report["tensors"]) >= 8
    for entry in report["tensors"].values():
        assert entry["cosine"] > 0.9 and (entry["sqnr_db"] is None or entry["sqnr_db"] > 10)
    added = [layer["added_db"] for layer in report["layers"]]
    assert added == sorted(added, reverse=True)
    assert "<svg" in (tmp_path / "r.html").read_text()
    xs = list(np.random.default_rng(1).uniform(-1, 1, (4, 1, 28, 28, 1)).astype(np.float32))
    assert sqnr_db(run(src.read_bytes(), xs), run((tmp_path / "q.tflite").read_bytes(), xs)) > 20


def test_cli_errors_are_clear(tmp_path):
    src = model_path("cnn_small_f32")
    np.savez(tmp_path / "bad.npz", x=np.zeros((4, 27, 28, 1), np.float32))
    out = subprocess.run([sys.executable, "-m", "rillet.cli", "quantize", str(src), "--calib", "bad.npz",
                          "-o", "q.tflite", "--executor", "litert", "--quiet"],
                         check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "[4, 27, 28, 1]" in out.stderr and "expects" in out.stderr


def test_report_ranks_a_damaging_layer_and_suggests_it():
    """A FULLY_CONNECTED whose weights hold one huge outlier per channel (on a feature that is always 0) loses
    every other weight to rounding: the report ranks it first and suggests keeping it float."""
    from single_op import Input, op_model

    rng = np.random.default_rng(5)
    w1 = rng.normal(size=(16, 16)).astype(np.float32)
    w1[0] = 0.0  # feature 0, the one the outlier weights read, is always 0
    w2 = rng.normal(size=(8, 16)).astype(np.float32) * 0.01
    w2[:, 0] = 50.0
    first = op_model("FULLY_CONNECTED", [Input((1, 16)), w1, np.zeros(16, np.float32)], [((1, 16), np.float32)],
                     {"fused_activation_function": 0})
    # two FCs in one model: build the second on the first's output through the format layer
    m = load(first)
    sg = m.subgraphs[0]
    from rillet.converter.format import Buffer, Operator, Tensor

    m.buffers.append(Buffer(data=np.frombuffer(w2.tobytes(), np.uint8)))
    sg.tensors.append(Tensor(shape=[8, 16], type=0, buffer=len(m.buffers) - 1, name="w2"))
    sg.tensors.append(Tensor(shape=[1, 8], type=0, buffer=0, name="out2"))
    sg.operators.append(Operator(opcode_index=0, inputs=[sg.outputs[0], len(sg.tensors) - 2, -1],
                                 outputs=[len(sg.tensors) - 1], builtin_options=sg.operators[0].builtin_options))
    sg.outputs = [len(sg.tensors) - 1]
    m.signature_defs[0].outputs[0].tensor_index = len(sg.tensors) - 1
    from rillet.converter.format import save

    content = save(m)
    calib = rng.uniform(-1, 1, (16, 1, 16)).astype(np.float32)
    _, report = quantize_with_report(content, calib, progress=False, interpreter_class=LiteRT, report=True)
    assert report.layers[0].output == "out2"
    assert report.keep_float_suggestion[:1] == ["out2"]
    assert "out2" in report.table()
