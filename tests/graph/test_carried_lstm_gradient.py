"""A carried LSTM's gradient over one run: backpropagation through the run's steps from the state the run
started from (a constant, read from the state Variables `ops.lstm(carry_state=True)` makes). Checked against
finite differences and a naive LSTM from that state; and as a training file (the state as resource variables
that `infer` and `train` share): 20 steps in rillet and LiteRT give the numpy reference's losses and weights
(1e-5), the loss falling."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from graphcheck import central_differences
from test_graph_ops import naive_lstm_from

import rillet as rl
import rillet.graph as rg
from rillet.graph import Graph, Variable, ops, optimizers, placeholder
from rillet.runtime import Interpreter

BATCH, STEPS, FEATURES, CELLS = 2, 4, 3, 5


def weights(rs, dtype):
    return ([rs.normal(0, 0.5, (CELLS, FEATURES)).astype(dtype) for _ in range(4)],
            [rs.normal(0, 0.5, (CELLS, CELLS)).astype(dtype) for _ in range(4)],
            [rs.normal(0, 0.5, CELLS).astype(dtype) for _ in range(4)])


def test_gradient_of_a_later_run_starts_from_the_carried_state():
    rs = np.random.default_rng(3)
    wx, wh, b = weights(rs, np.float64)
    g = Graph()
    with g.as_default():
        x = placeholder((BATCH, STEPS, FEATURES), "float64", name="x")
        w0 = placeholder((CELLS, FEATURES), "float64", name="w0")  # the input gate's weights, differentiated
        y = ops.lstm(x, [w0, *wx[1:]], wh, b, carry_state=True, name="stream")
        seed = rs.normal(size=y.shape)
        loss = ops.reduce_sum(ops.mul(y, seed))
        dx, dw0 = rg.gradients(loss, [x, w0])
    assert {"stream/h_state", "stream/c_state"} <= set(g.variables)
    first, later = rs.normal(size=(2, BATCH, STEPS, FEATURES))
    g.run(y, {x: first, w0: wx[0]})  # a run that leaves a state
    start = {k: g.store[k].copy() for k in ("stream/h_state", "stream/c_state")}
    assert np.abs(start["stream/h_state"]).max() > 0.05

    def loss_from_start(arrays):
        g.store.update({k: v.copy() for k, v in start.items()})
        return g.run(loss, {x: arrays[0], w0: arrays[1]})

    numeric = central_differences(loss_from_start, [later, wx[0]])
    g.store.update({k: v.copy() for k, v in start.items()})
    got_y, got_dx, got_dw0 = g.run([y, dx, dw0], {x: later, w0: wx[0]})
    want_y, h, c = naive_lstm_from(later, wx, wh, b, start["stream/h_state"], start["stream/c_state"])
    np.testing.assert_allclose(got_y, want_y, rtol=1e-10)
    np.testing.assert_allclose(g.store["stream/h_state"], h, rtol=1e-10)  # the run left its last state
    np.testing.assert_allclose(g.store["stream/c_state"], c, rtol=1e-10)
    np.testing.assert_allclose(got_dx, numeric[0], rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(got_dw0, numeric[1], rtol=1e-5, atol=1e-8)
    # from zero instead, the gradient differs: the carried state is what it used
    g.store.update({k: np.zeros_like(v) for k, v in start.items()})
    assert np.abs(g.run(dw0, {x: later, w0: wx[0]}) - got_dw0).max() > 1e-3


def test_an_lstm_carried_without_state_variables_refuses_a_gradient_saying_why():
    g = Graph()
    with g.as_default():
        x = placeholder((None, STEPS, FEATURES), "float32", name="x")  # a dynamic batch: no state Variables
        wx, wh, b = weights(np.random.default_rng(0), np.float32)
        w = Variable(wx[0], name="w")
        y = ops.lstm(x, [w, *wx[1:]], wh, b, carry_state=True, name="stream")
        with pytest.raises(NotImplementedError, match='"stream".*not held in Variables'):
            rg.gradients(ops.reduce_sum(y), [w])


def streaming_model(graph: Graph, seed: int) -> tuple[dict, dict]:
    """x chunks -> a carried LSTM (input weights trained; recurrent weights and biases of seed 1, frozen) -> the
    last step's h -> a dense head (trained)."""
    rs = np.random.default_rng(seed)
    wx = weights(rs, np.float32)[0]
    _, wh, b = weights(np.random.default_rng(1), np.float32)
    with graph.as_default():
        x = placeholder((BATCH, STEPS, FEATURES), "float32", name="x")
        trained = [Variable(w, name=f"wx{k}") for k, w in enumerate(wx)]
        h = ops.lstm(x, trained, wh, b, carry_state=True, name="stream")
        head = Variable(rs.normal(0, 0.5, (2, CELLS)).astype(np.float32), name="head")
        y = ops.fully_connected(ops.reshape(ops.strided_slice(h, [0, STEPS - 1, 0], [0, STEPS, 0], begin_mask=5,
                                                              end_mask=5, shrink_axis_mask=2), [BATCH, CELLS]), head)
    return {"x": x}, {"y": y}


def test_twenty_steps_of_a_carried_lstm_match_litert_and_the_reference():
    model = streaming_model(Graph(), seed=1)
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.3))
    data = rl.convert(inputs=model[0], outputs=model[1], train=spec)
    rs = np.random.default_rng(4)
    chunks = [rs.normal(size=(BATCH, STEPS, FEATURES)).astype(np.float32) for _ in range(20)]
    teacher = Graph()  # a learnable target: another such model's outputs over the same stream
    inputs, outputs = streaming_model(teacher, seed=2)
    targets = [teacher.run(outputs["y"], {inputs["x"]: c}) for c in chunks]
    from rillet.converter.training import build_training

    tg = build_training(model, spec)
    assert {"stream/h_state", "stream/c_state"} <= {v.name for v in tg.state}
    reference = [float(tg.graph.run([tg.loss, tg.step], {tg.inputs["x"]: c, tg.labels: t})[0])
                 for c, t in zip(chunks, targets)]
    runs = {}
    for name, cls in (("rillet", Interpreter), ("LiteRT", LiteRT)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        runs[name] = ([float(step(x=c, y=t)["loss"]) for c, t in zip(chunks, targets)],
                      it.get_signature_runner("save")())
        # infer carries on from the state the training left (the resource variables both signatures share)
        state = runs[name][1]
        want, *_ = naive_lstm_from(chunks[0].astype(np.float64), [state[f"wx{k}"] for k in range(4)],
                              *weights(np.random.default_rng(1), np.float32)[1:], state["stream/h_state"],
                              state["stream/c_state"])
        got = it.get_signature_runner("infer")(x=chunks[0])["y"]
        np.testing.assert_allclose(got, want[:, -1] @ state["head"].T, rtol=1e-4, atol=1e-5, err_msg=name)
    for name, (losses, values) in runs.items():
        np.testing.assert_allclose(losses, reference, rtol=1e-5, err_msg=f"{name}: losses")
        for v in tg.state:
            np.testing.assert_allclose(values[v.name], v.numpy(), rtol=1e-5, atol=1e-6, err_msg=f"{name}: {v.name}")
    assert np.mean(reference[-5:]) < 0.5 * np.mean(reference[:5]), reference


def test_an_imported_streaming_lstm_trains_on_its_stream_as_the_graph_built_one():
    """to_graph of the inference file (the fused LSTM, its state in variable tensors): the state becomes the two
    untrained Variables ops.lstm makes, so the gradient starts from the carried state and the training file keeps
    it (it trained from zero at every step, or refused). 20 steps over the stream in rillet and LiteRT give the
    numpy reference's losses, which are the graph-built model's (1e-5), and the state moves."""
    from rillet.converter.to_graph import to_graph
    from rillet.converter.training import build_training

    graph = Graph()
    inputs, outputs = streaming_model(graph, seed=1)
    imported = to_graph(rl.convert(inputs=inputs, outputs=outputs))
    assert {"stream/h_state", "stream/c_state"} <= set(imported.graph.variables)
    trained = [f"wx{k}" for k in range(4)] + ["head"]
    assert set(trained) <= {v.name for v in imported.variables}
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.3), trainable=trained)
    data = rl.convert(imported, train=spec)
    rs = np.random.default_rng(4)
    chunks = [rs.normal(size=(BATCH, STEPS, FEATURES)).astype(np.float32) for _ in range(20)]
    teacher = Graph()
    t_inputs, t_outputs = streaming_model(teacher, seed=2)
    targets = [teacher.run(t_outputs["y"], {t_inputs["x"]: c}) for c in chunks]
    built = build_training((inputs, outputs), rl.TrainSpec("mean_squared_error", optimizers.SGD(0.3)))
    want = [float(built.graph.run([built.loss, built.step], {built.inputs["x"]: c, built.labels: t})[0])
            for c, t in zip(chunks, targets)]
    tg = build_training(imported, spec)
    assert {"stream/h_state", "stream/c_state"} <= {v.name for v in tg.state}
    reference = [float(tg.graph.run([tg.loss, tg.step], {tg.inputs["x"]: c, tg.labels: t})[0])
                 for c, t in zip(chunks, targets)]
    np.testing.assert_allclose(reference, want, rtol=1e-5)
    for name, cls in (("rillet", Interpreter), ("LiteRT", LiteRT)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        losses = [float(step(x=c, y=t)["loss"]) for c, t in zip(chunks, targets)]
        np.testing.assert_allclose(losses, reference, rtol=1e-5, err_msg=f"{name}: losses")
        state = it.get_signature_runner("save")()
        np.testing.assert_allclose(state["stream/h_state"], tg.graph.store["stream/h_state"], rtol=1e-5, atol=1e-6)
        assert np.abs(state["stream/h_state"]).max() > 0.05
