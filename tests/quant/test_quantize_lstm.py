"""`rillet quantize --mode int8` on a float UNIDIRECTIONAL_SEQUENCE_LSTM writes TFLite's integer LSTM as
TensorFlow's quantizer does (int8 weights per tensor, int16 power-of-two cell state, int16 peepholes and layer
norm coefficients, int32 biases, five intermediates with the gates' and hidden state's scales from a replay of
the float LSTM during calibration): LiteRT runs the file close to the float model over a sequence of invokes
(the state carries over), and rillet runs it with LiteRT's bits."""

from __future__ import annotations

import numpy as np
import pytest
from quantcheck import sqnr_db
from test_lstm import lstm_model
from test_lstm_int8 import run_invokes
from test_lstm_layer_norm import with_layer_norm

from rillet.converter.format import load
from rillet.quant import QuantizationError, quantize
from rillet.runtime import Interpreter

LiteRT = pytest.importorskip("ai_edge_litert.interpreter").Interpreter
INT8, INT16, INT32 = 9, 7, 2


def float_lstm(kwargs: dict) -> bytes:
    layer_norm = kwargs.pop("layer_norm", False)
    content = lstm_model(**kwargs)
    return with_layer_norm(content, kwargs.get("cifg", False), kwargs.get("n_cell", 4)) if layer_norm else content


def sequences(content: bytes, count: int, seed: int) -> list[np.ndarray]:
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(count)]


VARIANTS = [
    {}, {"cifg": True}, {"peephole": True}, {"n_output": 3, "proj_clip": 0.3}, {"time_major": True},
    {"layer_norm": True}, {"layer_norm": True, "cifg": True, "peephole": True}, {"cell_clip": 0.5, "batch": 1},
    {"layer_norm": True, "n_output": 3, "n_cell": 8, "steps": 9},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "plain")
def test_quantized_lstm_is_close_to_float_and_bit_exact_in_rillet(kwargs):
    content = float_lstm(dict(kwargs))
    q = quantize(content, sequences(content, 64, seed=0), progress=False)
    model = load(q)
    sg = model.subgraphs[0]
    op = next(o for o in sg.operators if model.op_name(o) == "UNIDIRECTIONAL_SEQUENCE_LSTM")
    types = [sg.tensors[i].type if i >= 0 else None for i in op.inputs]
    assert types[0] == INT8 and types[2] == INT8 and types[13] == INT32 and types[18] == INT8
    assert types[19] == INT16 and np.log2(sg.tensors[op.inputs[19]].quantization.scale[0]) % 1 == 0
    assert len(op.intermediates) == 5 and sg.tensors[op.outputs[0]].type == INT8
    if kwargs.get("layer_norm"):
        assert types[21] == INT16 and sg.tensors[op.intermediates[1]].quantization.scale[0] != 2.0 ** -12
    feeds = sequences(content, 4, seed=1)
    theirs, ours = run_invokes(LiteRT, q, feeds), run_invokes(Interpreter, q, feeds)
    for k, (t, o) in enumerate(zip(theirs, ours)):
        assert (t == o).all(), f"invoke {k}: {np.count_nonzero(t != o)} of {t.size} differ from LiteRT"
    float_out = np.concatenate([y.ravel() for y in run_invokes(LiteRT, content, feeds)])
    assert sqnr_db(float_out, np.concatenate([y.ravel() for y in theirs])) > 30


def test_lstm_with_another_activation_stays_float_on_request():
    content = lstm_model(activation=1)  # RELU: TFLite's integer LSTM applies tanh
    xs = sequences(content, 8, seed=2)
    with pytest.raises(QuantizationError, match="UNIDIRECTIONAL_SEQUENCE_LSTM .*tanh.*keep_float"):
        quantize(content, xs, progress=False)
    q = quantize(content, xs, progress=False, keep_float=["UNIDIRECTIONAL_SEQUENCE_LSTM"])
    feeds = sequences(content, 2, seed=3)
    for t, o in zip(run_invokes(LiteRT, content, feeds), run_invokes(Interpreter, q, feeds)):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)


def test_calibration_with_litert_gives_the_same_lstm_scales():
    """The replay sees the same sequence whichever interpreter runs the float model (it checks itself
    against the interpreter's outputs at every sample)."""
    content = float_lstm({"layer_norm": True, "n_output": 3})
    xs = sequences(content, 16, seed=4)
    ours, theirs = load(quantize(content, xs, progress=False)), load(quantize(content, xs, progress=False,
                                                                              interpreter_class=LiteRT))
    op_ours, op_theirs = ours.subgraphs[0].operators[-2], theirs.subgraphs[0].operators[-2]
    for i, j in zip(op_ours.intermediates + [op_ours.inputs[19]], op_theirs.intermediates + [op_theirs.inputs[19]]):
        np.testing.assert_allclose(ours.subgraphs[0].tensors[i].quantization.scale,
                                   theirs.subgraphs[0].tensors[j].quantization.scale, rtol=1e-5)


def test_the_replay_refuses_to_record_what_the_interpreter_did_not_compute():
    from rillet.quant import CalibrationError
    from rillet.quant.lstm import Replay, add_intermediates

    model = add_intermediates(load(lstm_model()))
    op = model.subgraphs[0].operators[0]
    x = sequences(lstm_model(), 1, seed=5)[0]
    y = run_invokes(LiteRT, lstm_model(), [x])[0]
    seen: dict[int, np.ndarray] = {}
    Replay(model).record({op.inputs[0]: x, op.outputs[0]: y}, seen.__setitem__)
    assert set(seen) == set(op.intermediates) - set(op.intermediates[:4]) | {op.inputs[19]}  # no layer norm: no gates
    with pytest.raises(CalibrationError, match="does not follow the interpreter"):
        Replay(model).record({op.inputs[0]: x, op.outputs[0]: y + 0.5}, seen.__setitem__)
