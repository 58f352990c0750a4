"""`rillet quantize --mode dynamic` on a float UNIDIRECTIONAL_SEQUENCE_LSTM writes TFLite's hybrid LSTM as
TensorFlow's dynamic-range quantizer does: int8 weights with one symmetric scale each for the gates, the
peepholes and the projection, float32 biases, layer norm coefficients and state, asymmetric_quantize_inputs
set (version 3). The file is smaller, LiteRT runs it close to the float model over a sequence of invokes
(the state carries over), and rillet runs it with LiteRT's results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from quantcheck import sqnr_db
from test_lstm import lstm_model
from test_lstm_int8 import run_invokes
from test_lstm_layer_norm import with_layer_norm

from rillet.cli import main
from rillet.converter.format import load
from rillet.quant import quantize
from rillet.runtime import Interpreter

LiteRT = pytest.importorskip("ai_edge_litert.interpreter").Interpreter
FLOAT32, INT8 = 0, 9
WEIGHT_SLOTS = [*range(1, 12), 16]


def float_lstm(kwargs: dict) -> bytes:
    layer_norm = kwargs.pop("layer_norm", False)
    content = lstm_model(**kwargs)
    return with_layer_norm(content, kwargs.get("cifg", False), kwargs.get("n_cell", 4)) if layer_norm else content


def sequences(content: bytes, count: int, seed: int) -> list[np.ndarray]:
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(count)]


def the_lstm(content: bytes):
    model = load(content)
    sg = model.subgraphs[0]
    op = next(o for o in sg.operators if model.op_name(o) == "UNIDIRECTIONAL_SEQUENCE_LSTM")
    return model, sg, op


VARIANTS = [
    {}, {"cifg": True}, {"peephole": True}, {"n_output": 3, "proj_clip": 0.3}, {"time_major": True},
    {"layer_norm": True}, {"layer_norm": True, "cifg": True, "peephole": True}, {"cell_clip": 0.5, "batch": 1},
    {"layer_norm": True, "n_output": 3, "n_cell": 8, "steps": 9}, {"activation": 1}, {"n_cell": 32, "n_input": 16},
    {"activation": 0},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "plain")
def test_dynamic_lstm_has_int8_weights_and_runs_as_litert_runs_it(kwargs):
    content = float_lstm(dict(kwargs))
    q = quantize(content, mode="dynamic", progress=False)
    model, sg, op = the_lstm(q)
    _, _, float_op = the_lstm(content)
    for slot, i in enumerate(op.inputs):
        if i < 0:
            continue
        t = sg.tensors[i]
        if slot in WEIGHT_SLOTS:
            assert t.type == INT8 and len(t.quantization.scale) == 1 and t.quantization.zero_point == [0], slot
            w = model.tensor_data(0, i)
            assert np.abs(w).max() == 127 and w.min() >= -127  # symmetric, narrow range, max|w| -> 127
        else:
            assert t.type == FLOAT32, slot
    assert op.builtin_options.fields()["asymmetric_quantize_inputs"] is True
    assert model.operator_codes[op.opcode_index].version == 3
    weight_bytes = [m.tensor_data(0, o.inputs[slot]).nbytes for m, o in ((model, op), (load(content), float_op))
                    for slot in WEIGHT_SLOTS if o.inputs[slot] >= 0]
    assert sum(weight_bytes[:len(weight_bytes) // 2]) * 4 == sum(weight_bytes[len(weight_bytes) // 2:])
    feeds = sequences(content, 4, seed=1)
    theirs, ours = run_invokes(LiteRT, q, feeds), run_invokes(Interpreter, q, feeds)
    for k, (t, o) in enumerate(zip(theirs, ours)):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, err_msg=f"invoke {k}")
    float_out = np.concatenate([y.ravel() for y in run_invokes(LiteRT, content, feeds)])
    assert sqnr_db(float_out, np.concatenate([y.ravel() for y in theirs])) > 35  # 41-64 dB here


def test_keep_float_keeps_the_lstm_float():
    content = float_lstm({"peephole": True})
    q = quantize(content, mode="dynamic", progress=False, keep_float=["UNIDIRECTIONAL_SEQUENCE_LSTM"])
    _, sg, op = the_lstm(q)
    assert all(sg.tensors[i].type == FLOAT32 for i in op.inputs if i >= 0)


def test_cli_writes_a_smaller_file(tmp_path: Path, capsys):
    src, dst = tmp_path / "lstm.tflite", tmp_path / "lstm_dynamic.tflite"
    src.write_bytes(float_lstm({"n_cell": 32, "n_input": 16}))
    assert main(["quantize", str(src), "-o", str(dst), "--mode", "dynamic"]) == 0
    assert dst.stat().st_size < 0.4 * src.stat().st_size  # 26,352 -> 8,304 bytes
    assert "3.2x smaller" in capsys.readouterr().out
