"""Gradients through control flow as a training file runs them: an IF in the trained tail (its gradient an IF
of the branches' gradients, written as builtins): 20 steps on rillet's runtime, in LiteRT and on JAX give the
same losses and weights (1e-5), and the loss falls. A WHILE's (the loop run again keeping every iteration's
values, then a reverse loop of the body's gradients): against finite differences for 0 to 3 iterations, and
as a training file against LiteRT and the numpy reference (JAX has no reverse of a while loop)."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from graphcheck import central_differences

import rillet as rl
import rillet.graph as rg
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


def power_loop(i, n, v, w):
    """v <- tanh(v @ w) * (i + 1), n times: the counter, an integer loop value, enters the body's values."""
    return [ops.add(i, np.int32(1)), n, ops.mul(ops.tanh(ops.batch_matmul(v, w)), ops.cast(ops.add(i, np.int32(1)),
                                                                                           v.dtype)), w]


@pytest.mark.parametrize("iterations", [0, 1, 3])
def test_while_gradient_matches_finite_differences(iterations):
    rs = np.random.default_rng(iterations)
    g = Graph()
    with g.as_default():
        x, w = placeholder((2, 3), "float64", name="x"), placeholder((3, 3), "float64", name="w")
        n = placeholder((), "int32", name="n")
        _, _, y, _ = ops.while_loop(lambda i, k, v, u: ops.less(i, k), power_loop, [np.int32(0), n, x, w])
        loss = ops.reduce_sum(ops.mul(y, rs.normal(size=(2, 3))))
        dx, dw = rg.gradients(loss, [x, w])
    xv, wv = rs.normal(size=(2, 3)), rs.normal(0, 0.5, (3, 3))
    got = g.run([dx, dw], {x: xv, w: wv, n: iterations})
    numeric = central_differences(lambda a: g.run(loss, {x: a[0], w: a[1], n: iterations}), [xv, wv])
    for a, b in zip(got, numeric):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
    if iterations == 0:
        assert np.abs(got[1]).max() == 0  # no iteration: the weight took no part
    # the loop run again keeps the counter and v, not the bound or the weight, which the body passes on
    (kept,) = [node for node in g.nodes if node.op == "WHILE" and node.name.endswith("kept")]
    assert [node.op for node in kept.attrs["body"].graph.nodes].count("CONCATENATION") == 2


def test_while_gradient_refuses_a_loop_value_of_unknown_shape_saying_why():
    g = Graph()
    with g.as_default():
        x = placeholder((None, 3), "float32", name="x")
        _, y = ops.while_loop(lambda i, v: ops.less(i, 2), lambda i, v: [ops.add(i, 1), ops.mul(v, v)],
                              [np.int32(0), x], name="squaring")
        with pytest.raises(NotImplementedError, match='WHILE "squaring".*static shapes'):
            rg.gradients(ops.reduce_sum(y), [x])


def looped_model(graph: Graph, seed: int) -> tuple[dict, dict]:
    """dense -> a WHILE that applies a second dense layer (its weight a loop value, trained) as many times as the
    input's first feature says (1 to 3) -> y."""
    rs = np.random.default_rng(seed)
    with graph.as_default():
        x = placeholder([BATCH, FEATURES], "float32", name="x")
        w1 = Variable(rs.normal(0, 0.5, (HIDDEN, FEATURES)).astype(np.float32), name="w1")
        w2 = Variable(rs.normal(0, 0.4, (HIDDEN, HIDDEN)).astype(np.float32), name="w2")
        head = Variable(rs.normal(0, 0.5, (OUT, HIDDEN)).astype(np.float32), name="head")
        h = ops.tanh(ops.fully_connected(x, w1))
        times = ops.cast(ops.add(ops.minimum(ops.maximum(ops.reduce_max(x), np.float32(0)), np.float32(2)),
                                 np.float32(1)), "int32")
        _, _, h, _ = ops.while_loop(lambda i, k, v, u: ops.less(i, k),
                                    lambda i, k, v, u: [ops.add(i, np.int32(1)), k,
                                                        ops.tanh(ops.fully_connected(v, u)), u],
                                    [np.int32(0), times, h, w2], name="repeat")
        y = ops.fully_connected(h, head)
    return {"x": x}, {"y": y}


def test_twenty_steps_through_a_while_match_litert_and_the_reference():
    model = looped_model(Graph(), seed=1)
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.1))
    data = rl.convert(inputs=model[0], outputs=model[1], train=spec)
    rs = np.random.default_rng(9)
    xs = [(rs.normal(size=(BATCH, FEATURES)) * scale).astype(np.float32) for scale in (0.3, 1.0, 3.0)]
    teacher = Graph()
    inputs, outputs = looped_model(teacher, seed=5)
    targets = [teacher.run(outputs["y"], {inputs["x"]: x}) for x in xs]
    tg = build_training(model, spec)
    times = {int(min(max(x.max(), 0), 2) + 1) for x in xs}
    assert len(times) > 1, times  # the loop runs a different number of times across the batches
    reference = [float(tg.graph.run([tg.loss, tg.step], {tg.inputs["x"]: xs[k % 3], tg.labels: targets[k % 3]})[0])
                 for k in range(20)]
    for name, cls in (("rillet", Interpreter), ("LiteRT", LiteRT)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        losses = [float(step(x=xs[k % 3], y=targets[k % 3])["loss"]) for k in range(20)]
        np.testing.assert_allclose(losses, reference, rtol=1e-5, err_msg=f"{name}: losses")
        saved = it.get_signature_runner("save")()
        for v in tg.state:
            np.testing.assert_allclose(saved[v.name], v.numpy(), rtol=1e-5, atol=1e-6, err_msg=f"{name}: {v.name}")
    assert all(reference[k + 3] < reference[k] for k in range(17)), reference


def test_trainable_trains_a_shipped_model_with_a_while_in_its_trained_tail():
    """`rillet.trainable` on an inference file: dense, a WHILE of a dense layer repeated 1 to 3 times (its body a
    subgraph of the file, its weight a constant there), a dense head; the last two weighted layers train, the
    body's (a layer where the WHILE stands, its weight imported as a variable the loop carries) and the head:
    the same losses in rillet and LiteRT, falling."""
    rs = np.random.default_rng(0)
    g = Graph()
    with g.as_default():
        x = placeholder([4, FEATURES], "float32", name="x")
        h = ops.tanh(ops.fully_connected(x, rs.normal(0, 0.5, (HIDDEN, FEATURES)).astype(np.float32),
                                         np.zeros(HIDDEN, np.float32)))
        times = ops.cast(ops.add(ops.minimum(ops.maximum(ops.reduce_max(x), np.float32(0)), np.float32(2)),
                                 np.float32(1)), "int32")
        u = rs.normal(0, 0.4, (HIDDEN, HIDDEN)).astype(np.float32)
        _, _, h = ops.while_loop(lambda i, k, v: ops.less(i, k),
                                 lambda i, k, v: [ops.add(i, np.int32(1)), k, ops.tanh(ops.fully_connected(v, u))],
                                 [np.int32(0), times, h])
        y = ops.fully_connected(h, rs.normal(0, 0.5, (OUT, HIDDEN)).astype(np.float32), np.zeros(OUT, np.float32))
    training = rl.trainable(rl.convert(inputs={"x": x}, outputs={"y": y}), loss="mse", train_last=2,
                            learning_rate=0.1)
    xs = [(rs.normal(size=(4, FEATURES)) * scale).astype(np.float32) for scale in (0.3, 1.0, 3.0)]
    target = np.full((4, OUT), 0.2, np.float32)
    losses = {}
    for name, cls in (("rillet", Interpreter), ("LiteRT", LiteRT)):
        step = cls(model_content=training).get_signature_runner("train")
        losses[name] = [float(step(x=xs[k % 3], y=target)["loss"]) for k in range(12)]
    np.testing.assert_allclose(losses["rillet"], losses["LiteRT"], rtol=1e-5)
    assert all(losses["rillet"][k + 3] < losses["rillet"][k] for k in range(9)), losses["rillet"]


def test_a_while_gradient_on_jax_says_why_it_cannot_run_there():
    pytest.importorskip("jax")
    from rillet.targets.xla import XlaRunner

    tg = build_training(looped_model(Graph(), seed=1), rl.TrainSpec("mean_squared_error", optimizers.SGD(0.1)))
    runner = XlaRunner({"loss": tg.loss, "step": tg.step}, feeds=[*tg.inputs.values(), tg.labels])
    with pytest.raises(RuntimeError, match="changes a loop value's shape.*JAX's while_loop cannot carry"):
        runner.run([np.ones((BATCH, FEATURES), np.float32), np.zeros((BATCH, OUT), np.float32)])
