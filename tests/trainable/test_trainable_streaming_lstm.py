"""`rillet.trainable(..., carry_state=True)`: a streaming model's LSTM in the trained tail carries its state from
one train step to the next and `infer` from one invoke to the next, as the model does (to_graph holds the fused
LSTM's state in Variables, the training file in resource variables both signatures share), instead of starting
every step and invoke from zero."""

from __future__ import annotations

import numpy as np
import pytest

import rillet
import rillet.graph as rg
from rillet.converter import load
from rillet.converter.from_graph import convert
from rillet.converter.trainable import task_of
from rillet.graph import ops
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")


def streaming_model() -> bytes:
    """x [2, 5, 3] chunks -> dense -> a carried LSTM (the fused op, its state in variable tensors) -> the last
    step -> a dense softmax head."""
    rs = np.random.default_rng(2)
    weights = ([rs.normal(size=(4, 6)).astype(np.float32) * 0.5 for _ in range(4)],
               [rs.normal(size=(4, 4)).astype(np.float32) * 0.5 for _ in range(4)],
               [rs.normal(size=4).astype(np.float32) for _ in range(4)])
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder([2, 5, 3], name="x")
        h = ops.fully_connected(ops.reshape(x, [10, 3]), rg.Variable(rs.normal(size=(6, 3)).astype(np.float32)))
        y = ops.lstm(ops.reshape(h, [2, 5, 6]), *weights, carry_state=True, name="stream")
        last = ops.strided_slice(y, [0, 4, 0], [0, 5, 0], begin_mask=5, end_mask=5, shrink_axis_mask=2)
        p = ops.softmax(ops.fully_connected(last, rg.Variable(rs.normal(size=(3, 4)).astype(np.float32)),
                                            rg.Variable(np.zeros(3, np.float32))))
    model = convert(inputs={"x": x}, outputs={"p": p})
    assert "UNIDIRECTIONAL_SEQUENCE_LSTM" in {load(model).op_name(op) for op in load(model).subgraphs[0].operators}
    return model


def stream() -> list[np.ndarray]:
    rs = np.random.default_rng(8)
    return [rs.uniform(-1, 1, (2, 5, 3)).astype(np.float32) for _ in range(20)]


def test_infer_carries_the_state_as_the_original_does(tmp_path):
    """Written by `rillet trainable --carry-state`: infer's invokes give the original's, each from the state the
    one before left."""
    from rillet.cli import main

    model = streaming_model()
    (tmp_path / "stream.tflite").write_bytes(model)
    out = tmp_path / "train.tflite"
    assert main(["trainable", str(tmp_path / "stream.tflite"), "-o", str(out), "--train-last", "2",
                 "--carry-state"]) == 0
    content = out.read_bytes()
    assert task_of(load(content))["carry_state"] is True
    chunks = stream()[:4]
    original = litert.Interpreter(model_content=model).get_signature_runner("infer")
    want = [original(x=c)["p"] for c in chunks]
    assert np.abs(want[3] - litert.Interpreter(model_content=model).get_signature_runner("infer")(
        x=chunks[3])["p"]).max() > 1e-3  # the state matters
    for cls in (Interpreter, litert.Interpreter):
        infer = cls(model_content=content).get_signature_runner("infer")
        for c, w in zip(chunks, want):
            np.testing.assert_allclose(infer(x=c)["p"], w, rtol=1e-5, atol=1e-6)


def test_train_steps_carry_the_state_alike_in_rillet_and_litert():
    """20 steps over a stream: the same losses in both runtimes (1e-5), falling; the first equals the step of a
    file that starts from zero, the later ones do not (the state carried from the steps before)."""
    model = streaming_model()
    labels = np.array([0, 2], np.int32)
    chunks = stream()
    losses = {}
    for carried in (True, False):
        content = rillet.trainable(model, train_last=2, learning_rate=0.1, carry_state=carried)
        for key, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
            train = cls(model_content=content).get_signature_runner("train")
            losses[key, carried] = np.array([float(train(x=c, y=labels)["loss"]) for c in chunks])
    np.testing.assert_allclose(losses["rillet", True], losses["litert", True], rtol=1e-5)
    np.testing.assert_allclose(losses["rillet", True][0], losses["rillet", False][0], rtol=1e-6)
    assert np.abs(losses["rillet", True][1:] - losses["rillet", False][1:]).max() > 1e-3
    assert losses["rillet", True][-5:].mean() < losses["rillet", True][:5].mean()
