"""Weights inside the subgraphs an IF or a WHILE calls (constants of a branch, of a loop's body, of an IF nested
in a branch) import as Variables of the signature's graph, handed to the control-flow op as inputs after the
file's own (a WHILE carries them as loop values its body gives back unchanged): gradients reach them through the
control flow (against central differences), and a training file of the imported graph trains them with the same
losses in rillet, LiteRT and the numpy reference."""

from __future__ import annotations

import numpy as np
import pytest

import rillet as rl
from rillet.converter import load
from rillet.converter.from_graph import convert
from rillet.converter.to_graph import to_graph
from rillet.converter.training import build_training
from rillet.graph import Graph, gradients, ops, optimizers, placeholder
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

BATCH, FEATURES, HIDDEN, OUT = 4, 5, 6, 3
# the weights that live in called subgraphs, by the names the file gives them
INSIDE = ("then_w", "nested_w", "else_w", "loop_w")


def shipped_model(seed: int = 0) -> bytes:
    """An inference file: dense -> IF(mean(x) > 0): dense (then_w) with an IF nested on its sum (past -10:
    dense nested_w, else half), else tanh(dense else_w) -> a WHILE repeating tanh(dense loop_w) 1 to 3 times (as the
    input's largest value says) -> a dense head. Every weight of the branches and the body is a constant there."""
    rs = np.random.default_rng(seed)

    def weight(name: str, rows: int, cols: int) -> np.ndarray:
        return rs.normal(0, 0.5, (rows, cols)).astype(np.float32)

    w1, then_w, nested_w = weight("w1", HIDDEN, FEATURES), weight("then", HIDDEN, HIDDEN), weight("n", HIDDEN, HIDDEN)
    else_w, loop_w, head = weight("else", HIDDEN, HIDDEN), weight("loop", HIDDEN, HIDDEN), weight("head", OUT, HIDDEN)
    g = Graph()
    with g.as_default():
        x = placeholder([BATCH, FEATURES], "float32", name="x")
        h = ops.tanh(ops.fully_connected(x, ops.constant(w1, name="w1")))

        def then(a):
            inner = ops.fully_connected(a, ops.constant(then_w, name="then_w"), name="then_dense")
            return ops.if_(ops.greater(ops.reduce_sum(a), np.float32(-10)),
                           lambda b: ops.tanh(ops.fully_connected(b, ops.constant(nested_w, name="nested_w"),
                                                                     name="nested_dense")),
                           lambda b: ops.mul(b, np.float32(0.5)), inner)

        def otherwise(a):
            return ops.tanh(ops.fully_connected(a, ops.constant(else_w, name="else_w"), name="else_dense"))

        h = ops.if_(ops.greater(ops.reduce_mean(x), np.float32(0)), then, otherwise, h, name="gate")
        times = ops.cast(ops.add(ops.minimum(ops.maximum(ops.reduce_max(x), np.float32(0)), np.float32(2)),
                                 np.float32(1)), "int32")
        _, _, h = ops.while_loop(
            lambda i, k, v: ops.less(i, k),
            lambda i, k, v: [ops.add(i, np.int32(1)), k,
                             ops.tanh(ops.fully_connected(v, ops.constant(loop_w, name="loop_w"), name="loop_dense"))],
            [np.int32(0), times, h], name="repeat")
        y = ops.fully_connected(h, ops.constant(head, name="head"))
    return convert(inputs={"x": x}, outputs={"y": y})


def inputs() -> list[np.ndarray]:
    """Batches through each branch of both IFs and 1 to 3 iterations of the loop."""
    rs = np.random.default_rng(9)
    return [(rs.normal(size=(BATCH, FEATURES)) * scale + shift).astype(np.float32)
            for scale, shift in ((0.3, 0.5), (1.0, -0.6), (2.0, 0.4), (0.2, -0.1), (1.5, 1.0))]


def test_the_weights_of_called_subgraphs_are_constants_there_and_variables_once_imported():
    data = shipped_model()
    m = load(data)
    inside = {sg.tensors[i].name for sg in m.subgraphs[1:] for op in sg.operators for i in op.inputs or []
              if i >= 0 and m.tensor_data(m.subgraphs.index(sg), i) is not None
              and m.tensor_data(m.subgraphs.index(sg), i).size > 1}
    assert set(INSIDE) <= inside
    imported = to_graph(data)
    assert {v.name for v in imported.variables} == {"w1", *INSIDE, "head"}
    original = litert.Interpreter(model_content=data).get_signature_runner("infer")
    again = convert(inputs=imported.inputs, outputs=imported.outputs)
    for x in inputs():
        want = original(x=x)["y"]
        np.testing.assert_allclose(imported.run({"x": x})["y"], want, rtol=1e-5, atol=1e-6)
        for name, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
            got = cls(model_content=again).get_signature_runner("infer")(x=x)["y"]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_gradients_reach_the_weights_inside_branches_and_loops():
    """d loss / d each weight on the numpy reference against central differences (float32, steps of 1e-2); every
    inside weight gets a gradient from some batch."""
    imported = to_graph(shipped_model())
    graph = imported.graph
    variables = {v.name: v for v in imported.variables}
    rs = np.random.default_rng(3)
    with graph.as_default():
        mix = ops.constant(rs.normal(size=(BATCH, OUT)).astype(np.float32))
        loss = ops.reduce_sum(ops.mul(imported.outputs["y"], mix))
        grads = gradients(loss, [variables[n] for n in INSIDE])
    touched = set()
    for x in inputs():
        feeds = {imported.inputs["x"]: x}
        got = graph.run(grads, feeds)
        for name, g in zip(INSIDE, got):
            start = graph.store[name].copy()
            numeric = np.zeros_like(start)
            for idx in np.ndindex(start.shape):
                for sign in (1, -1):
                    graph.store[name] = start.copy()
                    graph.store[name][idx] += sign * 1e-2
                    numeric[idx] += sign * np.float64(graph.run(loss, feeds)) / 2e-2
            graph.store[name] = start
            np.testing.assert_allclose(g, numeric, rtol=1e-2, atol=2e-3, err_msg=name)
            if np.abs(g).max() > 0:
                touched.add(name)
    assert touched == set(INSIDE)


def test_a_training_file_of_the_imported_model_trains_them_in_rillet_and_litert():
    """Every weight trained (SGD), those inside the branches and the loop among them: 20 steps give the numpy
    reference's losses and weights in rillet and LiteRT (1e-5), and the inside weights move."""
    imported = to_graph(shipped_model())
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.1))
    data = rl.convert(imported, train=spec)
    xs = inputs()
    target = np.full((BATCH, OUT), 0.2, np.float32)
    tg = build_training(imported, spec)
    start = {n: tg.graph.store[n].copy() for n in INSIDE}
    reference = [float(tg.graph.run([tg.loss, tg.step], {tg.inputs["x"]: xs[k % 5], tg.labels: target})[0])
                 for k in range(20)]
    assert np.mean(reference[-5:]) < np.mean(reference[:5])
    for name in INSIDE:
        assert np.abs(tg.graph.store[name] - start[name]).max() > 1e-4, name
    for runtime, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        losses = [float(step(x=xs[k % 5], y=target)["loss"]) for k in range(20)]
        np.testing.assert_allclose(losses, reference, rtol=1e-5, err_msg=f"{runtime}: losses")
        saved = it.get_signature_runner("save")()
        for name in INSIDE:
            np.testing.assert_allclose(saved[name], tg.graph.store[name], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{runtime}: {name}")
