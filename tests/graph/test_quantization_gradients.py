"""Straight-through gradients of QUANTIZE and DEQUANTIZE (TensorFlow's fake-quant gradient): a pair passes its
output's gradient to its input where the input lies within the levels' range and zero outside, per tensor and per
channel; the backward graph is builtins that LiteRT and rillet run; a layer before a quantization-aware model's
fake quantization trains (it silently took no gradient before), in a training file and through `rillet.trainable`;
levels that reach the loss through an integer op, which passes no gradient, are refused by name."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from graphcheck import run_jax

import rillet as rl
import rillet.graph as rg
from rillet.converter.training import build_training
from rillet.graph import Graph, Variable, ops, optimizers, placeholder
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

# (id, quantize's attrs (scale, zero point, dtype, axis)): per tensor, per channel along the last axis, int16
PAIRS = [
    ("int8", (0.05, -3, "int8", None)),
    ("int8_per_channel", ((0.02, 0.05, 0.1, 0.03), (0, -3, 5, 127), "int8", 1)),
    ("int16", (1 / 4096, 0, "int16", None)),
]


@pytest.mark.parametrize("case", PAIRS, ids=[c[0] for c in PAIRS])
def test_a_pair_passes_the_gradient_where_its_input_is_in_range(case):
    _, (scale, zero_point, dtype, axis) = case
    rs = np.random.default_rng(0)
    info = np.iinfo(dtype)
    per = np.asarray(scale, np.float32).reshape(1, -1) if axis is not None else np.float32(scale)
    zp = np.asarray(zero_point, np.float32).reshape(1, -1) if axis is not None else np.float32(zero_point)
    low, high = (info.min - zp) * per, (info.max - zp) * per
    x = (rs.uniform(-1.4, 1.4, (6, 4)) * (high - low) / 2 + (high + low) / 2).astype(np.float32)
    x[0] = low[0] if axis is not None else low  # the range's ends count as inside, as TensorFlow's mask has them
    x[1] = high[0] if axis is not None else high
    w = rs.normal(size=(6, 4)).astype(np.float32)
    g = Graph()
    with g.as_default():
        xp = placeholder(x.shape, "float32", name="x")
        y = ops.dequantize(ops.quantize(xp, scale, zero_point, dtype, axis), scale, zero_point, axis)
        (dx,) = rg.gradients(ops.reduce_sum(ops.mul(y, w)), [xp])
    inside = (x >= low) & (x <= high)
    assert inside.any() and not inside.all() and inside[:2].all()
    want = np.where(inside, w, 0).astype(np.float32)
    np.testing.assert_allclose(g.run(dx, {xp: x}), want, rtol=1e-6)
    if importlib.util.find_spec("jax") is not None:  # the JAX lowering where the desktop extra is installed
        np.testing.assert_allclose(np.asarray(run_jax([dx], {xp: x})[0]), want, rtol=1e-6)
    data = rl.convert(inputs={"x": xp}, outputs={"dx": dx})
    for name, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        got = cls(model_content=data).get_signature_runner("infer")(x=x)["dx"]
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)


def fake_quantized_model(graph: Graph, seed: int) -> tuple[dict, dict]:
    """dense -> relu -> QUANTIZE -> DEQUANTIZE (scale 1/32, zero point -100: relu's outputs past ~7 clamp) ->
    dense: a quantization-aware model's shape."""
    rs = np.random.default_rng(seed)
    with graph.as_default():
        x = placeholder([8, 5], "float32", name="x")
        w1 = Variable(rs.normal(0, 0.8, (6, 5)).astype(np.float32), name="w1")
        w2 = Variable(rs.normal(0, 0.5, (3, 6)).astype(np.float32), name="w2")
        h = ops.relu(ops.fully_connected(x, w1))
        h = ops.dequantize(ops.quantize(h, 1 / 32, -100), 1 / 32, -100)
        y = ops.fully_connected(h, w2)
    return {"x": x}, {"y": y}


def batches() -> list[dict]:
    rs = np.random.default_rng(4)
    teacher = Graph()
    inputs, outputs = fake_quantized_model(teacher, seed=7)
    xs = [rs.normal(0, 1.5, (8, 5)).astype(np.float32) for _ in range(3)]
    return [{"x": xs[k % 3], "y": teacher.run(outputs["y"], {inputs["x"]: xs[k % 3]})} for k in range(20)]


def test_a_layer_before_fake_quantization_trains_alike_in_rillet_litert_and_the_reference():
    model = fake_quantized_model(Graph(), seed=1)
    spec = rl.TrainSpec("mean_squared_error", optimizers.SGD(0.05))
    data = rl.convert(inputs=model[0], outputs=model[1], train=spec)
    tg = build_training(model, spec)
    start = tg.graph.store["w1"].copy()
    feeds = batches()
    reference = [float(tg.graph.run([tg.loss, tg.step], {tg.inputs["x"]: f["x"], tg.labels: f["y"]})[0])
                 for f in feeds]
    assert np.abs(tg.graph.store["w1"] - start).max() > 1e-3  # the layer before the pair trains
    assert np.mean(reference[-3:]) < np.mean(reference[:3])
    for name, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        it = cls(model_content=data)
        step = it.get_signature_runner("train")
        losses = [float(step(**f)["loss"]) for f in feeds]
        np.testing.assert_allclose(losses, reference, rtol=1e-5, err_msg=f"{name}: losses")
        np.testing.assert_allclose(it.get_signature_runner("save")()["w1"], tg.graph.store["w1"], rtol=1e-5,
                                   atol=1e-6, err_msg=f"{name}: w1")


def test_trainable_trains_the_layer_before_a_fake_quant_pair_of_a_shipped_model():
    """An inference file with the pair between its two dense layers, both trained (train_last=2): the pair stays
    in the training file (`infer` gives the original's outputs; the tail's float copy dropped it), the first
    layer's weight moves in rillet and LiteRT alike, the losses agree and fall."""
    g = Graph()
    inputs, outputs = fake_quantized_model(g, seed=1)
    original = g.store["w1"].copy()
    shipped = rl.convert(inputs=inputs, outputs=outputs)
    training = rl.trainable(shipped, loss="mse", train_last=2, learning_rate=0.05)
    feeds = batches()
    want = litert.Interpreter(model_content=shipped).get_signature_runner("infer")(x=feeds[0]["x"])["y"]
    losses, first = {}, {}
    for name, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        it = cls(model_content=training)
        got = it.get_signature_runner("infer")(x=feeds[0]["x"])["y"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)
        step = it.get_signature_runner("train")
        losses[name] = [float(step(**f)["loss"]) for f in feeds]
        (first[name],) = [v for v in it.get_signature_runner("save")().values() if v.shape == original.shape]
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    np.testing.assert_allclose(first["rillet"], first["litert"], rtol=1e-5, atol=1e-6)
    assert np.abs(first["rillet"] - original).max() > 1e-3
    assert np.mean(losses["rillet"][-3:]) < np.mean(losses["rillet"][:3])


def test_levels_reaching_the_loss_through_an_integer_op_are_refused_by_name():
    g = Graph()
    with g.as_default():
        x = placeholder([2, 6], "float32", name="x")
        q = ops.quantize(x, 0.1, 0, name="levels")
        y = ops.dequantize(ops.reshape(q, [3, 4], name="int8_view"), 0.1, 0)
        with pytest.raises(NotImplementedError, match='QUANTIZE "levels".*RESHAPE "int8_view"'):
            rg.gradients(ops.reduce_sum(y), [x])


def test_trainable_names_a_chosen_layer_the_loss_gives_no_gradient():
    """A layer whose every way to the output passes an op without a gradient (a FLOOR) trained nothing, silently
    (the optimizer skips a variable without one): `trainable` now refuses, naming its weight."""
    rs = np.random.default_rng(0)
    g = Graph()
    with g.as_default():
        x = placeholder([4, 5], "float32", name="x")
        h = ops.floor(ops.fully_connected(x, ops.constant(rs.normal(size=(6, 5)).astype(np.float32), name="w1")))
        y = ops.fully_connected(h, ops.constant(rs.normal(size=(3, 6)).astype(np.float32), name="w2"))
    shipped = rl.convert(inputs={"x": x}, outputs={"y": y})
    rl.trainable(shipped, loss="mse", train_last=1)  # the head alone: fine
    with pytest.raises(rl.converter.ModelError, match="no gradient to 'w1'.*every way from them to 'y'"):
        rl.trainable(shipped, loss="mse", train_last=2)
