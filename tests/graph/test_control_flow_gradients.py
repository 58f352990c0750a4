"""Gradients through control flow as a training file runs them: an IF in the trained tail (its gradient an IF
of the branches' gradients, written as builtins): 20 steps on rillet's runtime, in LiteRT and on JAX give the
same losses and weights (1e-5), and the loss falls."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT

import rillet as rl
from rillet.converter.training import build_training
from rillet.graph import Graph, Variable, ops, optimizers, placeholder
from rillet.runtime import Interpreter

BATCH, FEATURES, HIDDEN, OUT = 8, 5, 6, 3


def gated_model(graph: Graph, seed: int) -> tuple[dict, dict]:
    """dense -> relu -> IF(mean(x) > 0): dense(h) else 0.5 * dense(tanh(h) * s): both branches' weights are
    arguments of the IF (trained), the condition is the input's (no gradient)."""
    rs = np.random.default_rng(seed)
    with graph.as_default():
        x = placeholder([BATCH, FEATURES], "float32", name="x")
        w1 = Variable(rs.normal(0, 0.5, (HIDDEN, FEATURES)).astype(np.float32), name="w1")
        b1 = Variable(np.zeros(HIDDEN, np.float32), name="b1")
        w2 = Variable(rs.normal(0, 0.5, (OUT, HIDDEN)).astype(np.float32), name="w2")
        s = Variable(np.ones(HIDDEN, np.float32), name="s")
        h = ops.relu(ops.fully_connected(x, w1, b1))
        y = ops.if_(ops.greater(ops.reduce_mean(x), np.float32(0)),
                    lambda h_, w_, s_: ops.fully_connected(h_, w_),
                    lambda h_, w_, s_: ops.mul(ops.fully_connected(ops.mul(ops.tanh(h_), s_), w_), np.float32(0.5)),
                    h, w2, s, name="gate")
    return {"x": x}, {"y": y}


def batches() -> list[dict]:
    """Two batches, one taking each branch, alternating: a target another such model gives (learnable)."""
    rs = np.random.default_rng(11)
    xs = [(rs.normal(size=(BATCH, FEATURES)) + sign).astype(np.float32) for sign in (1.0, -1.0)]
    teacher = Graph()
    inputs, outputs = gated_model(teacher, seed=5)
    targets = [teacher.run(outputs["y"], {inputs["x"]: x}) for x in xs]
    return [{"x": xs[k % 2], "y": targets[k % 2]} for k in range(20)]


def test_twenty_steps_through_an_if_match_litert_and_jax():
    pytest.importorskip("jax")
    from rillet.targets.xla import XlaRunner

    model = gated_model(Graph(), seed=1)
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.05))
    data = rl.convert(model, train=spec)
    feeds = batches()
    runs = {}
    for name, cls in (("rillet", Interpreter), ("LiteRT", LiteRT)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        runs[name] = ([float(step(**f)["loss"]) for f in feeds], it.get_signature_runner("save")())
    tg = build_training(model, spec)
    runner = XlaRunner({"loss": tg.loss, "step": tg.step}, feeds=[*tg.inputs.values(), tg.labels])
    jax_losses = [float(runner.run([f["x"], f["y"]])["loss"]) for f in feeds]
    values = runner.variables()
    runs["JAX"] = (jax_losses, {v.name: values[v.name] for v in tg.state})
    losses, weights = runs["rillet"]
    # both branches trained: each batch's loss falls at every one of its ten steps
    assert all(np.diff(losses[0::2]) < 0) and all(np.diff(losses[1::2]) < 0), losses
    assert set(weights) >= {"w1", "b1", "w2", "s"}
    for other in ("LiteRT", "JAX"):
        np.testing.assert_allclose(losses, runs[other][0], rtol=1e-5, err_msg=f"{other}: losses")
        for name, value in weights.items():
            np.testing.assert_allclose(value, runs[other][1][name], rtol=1e-5, atol=1e-6, err_msg=f"{other}: {name}")


def test_the_training_file_holds_the_gradient_as_an_if_of_builtins():
    data = rl.convert(gated_model(Graph(), seed=1), train=rl.TrainSpec("mean_squared_error", optimizers.SGD(0.05)))
    from rillet.converter.format import load

    m = load(data)
    train = m.subgraphs[[s.signature_key for s in m.signature_defs].index("train")]
    assert [m.op_name(op) for op in train.operators].count("IF") == 2  # the forward's and its gradient's
    assert all(not m.op_name(op).startswith("RILLET_") for sg in m.subgraphs for op in sg.operators)
