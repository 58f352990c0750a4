"""Max pooling's gradient where windows overlap or leave gaps (3x3 stride 2, SAME and VALID, unequal
strides, windows smaller than the stride): each tap's share lands on its phase of the stride grid, summed at
the windows' size and interleaved once, with builtins only. Checked against a naive scatter to the first
maximum of each window, and as a training step: 20 steps on rillet's runtime, in LiteRT and on JAX give the
same losses and weights (1e-5)."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT

import rillet as rl
from rillet.converter.training import build_training
from rillet.graph import Graph, gradients, ops, optimizers, placeholder
from rillet.graph import layers as L
from rillet.graph.ops import conv_geometry
from rillet.runtime import Interpreter


def naive_max_pool_grad(x: np.ndarray, dy: np.ndarray, k: tuple, s: tuple, padding: str) -> np.ndarray:
    """dy of each window added where the window's first maximum (row-major) is."""
    (oh, pt, _), (ow, pl, _) = (conv_geometry(x.shape[d], k[d - 1], s[d - 1], 1, padding) for d in (1, 2))
    dx = np.zeros_like(x)
    for n in range(x.shape[0]):
        for yy in range(oh):
            for xx in range(ow):
                for c in range(x.shape[3]):
                    best, where = -np.inf, None
                    for i in range(k[0]):
                        for j in range(k[1]):
                            r, q = yy * s[0] + i - pt, xx * s[1] + j - pl
                            if 0 <= r < x.shape[1] and 0 <= q < x.shape[2] and x[n, r, q, c] > best:
                                best, where = x[n, r, q, c], (r, q)
                    dx[n, where[0], where[1], c] += dy[n, yy, xx, c]
    return dx


@pytest.mark.parametrize("shape, k, s, padding", [
    ((2, 7, 7, 3), (3, 3), (2, 2), "VALID"),
    ((1, 8, 6, 2), (3, 3), (2, 2), "SAME"),
    ((1, 9, 9, 1), (5, 5), (2, 2), "SAME"),
    ((1, 7, 8, 2), (3, 2), (2, 1), "VALID"),   # unequal strides and window sides
    ((1, 7, 7, 2), (1, 1), (2, 2), "VALID"),   # windows smaller than the stride: gaps get nothing
    ((1, 8, 8, 1), (2, 2), (3, 3), "SAME"),
    ((1, 7, 5, 2), (3, 3), (3, 3), "VALID"),   # windows that tile but leave a remainder
])
def test_gradient_matches_a_naive_scatter(shape, k, s, padding):
    rs = np.random.default_rng(sum(shape) + k[0] + s[0])
    x = rs.permutation(np.prod(shape)).reshape(shape).astype(np.float64)  # distinct values: one maximum
    g = Graph()
    with g.as_default():
        xt = placeholder(shape, "float64", name="x")
        y = ops.max_pool2d(xt, k, s, padding)
        dy = rs.normal(size=y.shape)
        (dx,) = gradients(ops.reduce_sum(ops.mul(y, ops.constant(dy))), [xt])
    np.testing.assert_allclose(g.run(dx, {xt: x}), naive_max_pool_grad(x, dy, k, s, padding), rtol=1e-12)
    assert "ZEROS_LIKE" not in {n.op for n in g.nodes} or k[0] < s[0]  # zeros only where phases are empty


def cnn(graph: Graph, padding: str) -> L.Model:
    with graph.as_default():
        L.set_seed(7)
        x = L.Input([11, 11, 2], name="image")
        h = L.Conv2D(4, 3, padding="same", activation="relu", name="conv")(x)
        h = L.MaxPool2D(3, strides=2, padding=padding, name="max_pool")(h)
        h = L.Conv2D(6, 2, name="conv2")(h)
        h = L.MaxPool2D((2, 3), strides=(1, 2), name="max_pool2")(h)
        return L.Model(x, L.Dense(5, name="head")(L.Flatten(name="flatten")(h)))


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_twenty_steps_match_litert_and_jax(padding):
    pytest.importorskip("jax")
    from rillet.targets.xla import XlaRunner

    model = cnn(Graph(), padding)
    spec = rl.TrainSpec("softmax_cross_entropy", optimizers.Adam(0.01), label_dtype="int32")
    data = rl.convert(model, train=spec)
    rs = np.random.default_rng(3)
    feeds = [{"image": rs.normal(size=(6, 11, 11, 2)).astype(np.float32),
              "y": rs.integers(0, 5, 6).astype(np.int32)} for _ in range(20)]
    runs = {}
    for name, cls in (("rillet", Interpreter), ("LiteRT", LiteRT)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        runs[name] = ([float(step(**f)["loss"]) for f in feeds], it.get_signature_runner("save")())
    tg = build_training(model, spec)  # the same step on JAX, from the graph
    runner = XlaRunner({"loss": tg.loss, "step": tg.step}, feeds=[*tg.inputs.values(), tg.labels])
    jax_losses = [float(runner.run([f["image"], f["y"]])["loss"]) for f in feeds]
    values = runner.variables()
    runs["JAX"] = (jax_losses, {v.name: values[v.name] for v in tg.state})
    ours = runs["rillet"]
    assert ours[0][-1] < ours[0][0]
    for other in ("LiteRT", "JAX"):
        np.testing.assert_allclose(ours[0], runs[other][0], rtol=1e-5, err_msg=f"{other}: losses")
        for name, value in ours[1].items():
            np.testing.assert_allclose(value, runs[other][1][name], rtol=1e-5, atol=1e-6, err_msg=f"{other}: {name}")
