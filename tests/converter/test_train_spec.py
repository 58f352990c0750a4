"""convert(model, train=TrainSpec(...)): training files whose `train` step gives the same losses and weights
on rillet's runtime, in LiteRT (signature runners) and on JAX (rillet.targets.xla) over 20 steps (1e-5
relative), for an MLP and for a CNN with convolutions, depthwise convolutions, batch norm and pooling."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

import rillet as rl
from rillet.converter import load
from rillet.converter.format import save
from rillet.converter.training import build_training, training_file
from rillet.graph import Graph, losses, optimizers
from rillet.graph import layers as L
from rillet.runtime import Interpreter

STEPS = 20
BATCH = 8


def mlp(graph: Graph) -> L.Model:
    with graph.as_default():
        L.set_seed(1)
        x = L.Input([12], name="x")
        h = L.Dense(16, activation="relu", name="hidden")(x)
        h = L.Dense(16, activation="tanh", name="hidden2")(h)
        return L.Model(x, L.Dense(5, name="head")(h))


def cnn(graph: Graph) -> L.Model:
    with graph.as_default():
        L.set_seed(2)
        x = L.Input([10, 10, 2], name="image")
        # no bias before batch norm: its gradient is zero up to rounding, which Adam would amplify
        h = L.Conv2D(6, 3, strides=2, padding="same", use_bias=False, name="conv")(x)
        h = L.BatchNormalization(momentum=0.9, name="bn")(h)
        h = L.MaxPool2D(2, strides=1, name="max_pool")(L.ReLU(name="relu")(h))
        h = L.DepthwiseConv2D(3, padding="same", activation="relu6", name="depthwise")(h)
        h = L.Conv2D(8, 1, name="pointwise")(h)
        h = L.AveragePool2D(2, name="avg_pool")(h)
        h = L.Flatten(name="flatten")(h)
        return L.Model(x, L.Dense(5, name="head")(h))


def batches(model: L.Model, seed: int) -> list[dict[str, np.ndarray]]:
    rs = np.random.default_rng(seed)
    (name, x), = model.inputs.items()
    shape = (BATCH, *x.shape[1:])
    return [{name: rs.normal(size=shape).astype(np.float32), "y": rs.integers(0, 5, BATCH).astype(np.int32)}
            for _ in range(STEPS)]


def train_in(interpreter, data) -> tuple[list[float], dict[str, np.ndarray]]:
    train = interpreter.get_signature_runner("train")
    step_losses = [float(train(**feeds)["loss"]) for feeds in data]
    return step_losses, interpreter.get_signature_runner("save")()


def train_on_jax(tg, data) -> tuple[list[float], dict[str, np.ndarray]]:
    from rillet.targets.xla import XlaRunner

    feeds = [*tg.inputs.values(), tg.labels]
    runner = XlaRunner({"loss": tg.loss, "step": tg.step}, feeds=feeds)
    step_losses = [float(runner.run([*f.values()])["loss"]) for f in data]
    values = runner.variables()
    return step_losses, {v.name: values[v.name] for v in tg.state}


def assert_same_training(a, b, what: str) -> None:
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5, err_msg=f"{what}: losses")
    assert sorted(a[1]) == sorted(b[1])
    for name in a[1]:
        np.testing.assert_allclose(a[1][name], b[1][name], rtol=1e-5, atol=1e-6, err_msg=f"{what}: {name}")


@pytest.mark.parametrize("build, optimizer", [
    (mlp, optimizers.SGD(0.1)),
    (mlp, optimizers.Momentum(0.05, momentum=0.9)),
    (cnn, optimizers.SGD(0.05)),
    (cnn, optimizers.Adam(0.01)),
], ids=["mlp-sgd", "mlp-momentum", "cnn-sgd", "cnn-adam"])
def test_train_step_matches_litert_and_jax_over_20_steps(build, optimizer):
    g = Graph()
    model = build(g)
    tg = build_training(model, rl.TrainSpec(losses.softmax_cross_entropy, optimizer, label_dtype="int32"))
    data = save(training_file(tg))
    feeds = batches(model, 0)
    on_rillet = train_in(Interpreter(model_content=data), feeds)
    on_litert = train_in(LiteRTInterpreter(model_content=data), feeds)
    on_jax = train_on_jax(tg, feeds)
    assert on_rillet[0][-1] < on_rillet[0][0]  # it learns
    assert_same_training(on_rillet, on_litert, "rillet vs LiteRT")
    assert_same_training(on_rillet, on_jax, "rillet vs JAX")


def test_dropout_draws_the_same_masks_as_litert():
    """Dropout's RANDOM_UNIFORM is LiteRT's stream on rillet's runtime: with a seed, the same masks, so the
    same 20 steps (JAX draws its own numbers, so it is left out here)."""
    g = Graph()
    with g.as_default():
        L.set_seed(4)
        x = L.Input([12], name="x")
        h = L.Dropout(0.3, seed=11, name="dropout")(L.Dense(16, activation="relu", name="hidden")(x))
        model = L.Model(x, L.Dense(5, name="head")(h))
    data = rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.SGD(0.1), label_dtype="int32"))
    assert "RANDOM_UNIFORM" in {load(data).op_name(op) for op in load(data).subgraphs[1].operators}
    feeds = batches(model, 4)
    assert_same_training(train_in(Interpreter(model_content=data), feeds),
                         train_in(LiteRTInterpreter(model_content=data), feeds), "dropout on")


def test_training_file_structure_matches_tensorflows():
    g = Graph()
    model = mlp(g)
    data = rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.Adam(), label_dtype="int32"))
    m = load(data)
    assert [s.signature_key for s in m.signature_defs] == ["infer", "train", "save", "restore"]
    assert [sg.name for sg in m.subgraphs] == ["infer", "train", "save", "restore", "init"]
    for sg in m.subgraphs[:4]:
        first = sg.operators[0]
        assert m.op_name(first) == "CALL_ONCE" and first.builtin_options.init_subgraph_index == 4
    train = next(s for s in m.signature_defs if s.signature_key == "train")
    assert [t.name for t in train.inputs] == ["x", "y"] and [t.name for t in train.outputs] == ["loss"]
    save_sig = next(s for s in m.signature_defs if s.signature_key == "save")
    names = [t.name for t in save_sig.outputs]
    assert "head/kernel" in names and "Adam/head/kernel/m" in names and "Adam/beta_1_power" in names
    ops = {m.op_name(op) for sg in m.subgraphs for op in sg.operators}
    assert not {name for name in ops if name.startswith(("FLEX", "RILLET_")) or name == "CUSTOM"}


def test_gradients_are_builtins_convolutions_included():
    g = Graph()
    model = cnn(g)
    m = load(rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.SGD(0.1),
                                                  label_dtype="int32")))
    names = [m.op_name(op) for op in m.subgraphs[1].operators]
    # the pointwise convolution's input gradient is one TRANSPOSE_CONV; each filter gradient a CONV_2D
    assert names.count("TRANSPOSE_CONV") == 1
    assert names.count("CONV_2D") == 2 + 2


def test_save_restore_signatures_and_checkpoints_roundtrip(tmp_path):
    g = Graph()
    model = cnn(g)
    data = rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.Momentum(0.05),
                                                label_dtype="int32"))
    feeds = batches(model, 1)
    it = Interpreter(model_content=data)
    train = it.get_signature_runner("train")
    for f in feeds[:3]:
        train(**f)
    saved = it.get_signature_runner("save")()
    it.save_checkpoint(tmp_path / "ckpt.npz")
    after = [float(train(**f)["loss"]) for f in feeds[3:6]]
    # restore through the signature (LiteRT runs it too) and through the runtime's checkpoint call
    litert = LiteRTInterpreter(model_content=data)
    litert.get_signature_runner("restore")(**saved)
    assert [float(litert.get_signature_runner("train")(**f)["loss"]) for f in feeds[3:6]] == pytest.approx(
        after, rel=1e-5)
    fresh = Interpreter(model_content=data)
    fresh.restore_checkpoint(tmp_path / "ckpt.npz")
    again = [float(fresh.get_signature_runner("train")(**f)["loss"]) for f in feeds[3:6]]
    np.testing.assert_allclose(again, after, rtol=1e-6)
    assert set(saved) == set(fresh.get_variables())
    assert "bn/moving_mean" in saved and "bn/moving_variance" in saved  # batch-norm statistics move


def test_infer_reads_the_trained_variables_and_exports():
    g = Graph()
    model = mlp(g)
    data = rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.SGD(0.5),
                                                label_dtype="int32"))
    feeds = batches(model, 2)
    it = Interpreter(model_content=data)
    infer = it.get_signature_runner("infer")
    before = infer(x=feeds[0]["x"])["head"]
    for f in feeds:
        it.get_signature_runner("train")(**f)
    after = infer(x=feeds[0]["x"])["head"]
    assert np.abs(after - before).max() > 1e-3
    litert = LiteRTInterpreter(model_content=data)
    for f in feeds:
        litert.get_signature_runner("train")(**f)
    np.testing.assert_allclose(litert.get_signature_runner("infer")(x=feeds[0]["x"])["head"], after, rtol=1e-5,
                               atol=1e-6)


def test_frozen_layers_cost_no_gradient_work():
    g = Graph()
    model = cnn(g)
    tg = build_training(model, rl.TrainSpec("softmax_cross_entropy", optimizers.SGD(0.1), trainable=["head"],
                                            label_dtype="int32"))
    assert [v.name for v in tg.state] == ["head/kernel", "head/bias"]
    m = training_file(tg)
    train = m.subgraphs[1]
    names = [m.op_name(op) for op in train.operators]
    # the forward convolutions only: no filter gradient, no input gradient, frozen batch norm folded away
    assert names.count("CONV_2D") == 2 and names.count("DEPTHWISE_CONV_2D") == 1
    assert "TRANSPOSE_CONV" not in names and "RSQRT" not in names
    assert sum(n == "VAR_HANDLE" for n in names) == 2
    feeds = batches(model, 3)
    assert_same_training(train_in(Interpreter(model_content=save(m)), feeds),
                         train_in(LiteRTInterpreter(model_content=save(m)), feeds), "frozen features")


def test_a_learning_rate_given_as_a_variable_stays_one_the_device_can_set():
    g = Graph()
    model = mlp(g)
    with g.as_default():
        lr = rl.Variable(0.1, name="learning_rate", trainable=False)
    data = rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.SGD(lr), label_dtype="int32"))
    feeds = batches(model, 5)
    for make in (Interpreter, LiteRTInterpreter):
        it = make(model_content=data)
        train, save_values = it.get_signature_runner("train"), it.get_signature_runner("save")
        train(**feeds[0])
        values = save_values()
        assert values["learning_rate"].item() == pytest.approx(0.1)  # LiteRT reads the scalar back as [1]
        it.get_signature_runner("restore")(**{**values, "learning_rate": np.float32(0.0)})
        train(**feeds[1])
        after = save_values()
        for name in ("hidden/kernel", "head/bias"):  # a zero learning rate: the step moves nothing
            np.testing.assert_array_equal(after[name], values[name])


def test_trainspec_errors_name_the_problem():
    g = Graph()
    model = mlp(g)
    with pytest.raises(ValueError, match="nothing-such"):
        rl.convert(model, train=rl.TrainSpec("softmax_cross_entropy", optimizers.SGD(), trainable=["nothing-such"]))
    with pytest.raises(ValueError, match="scalar"):
        rl.convert(model, train=rl.TrainSpec(lambda y, p: p * 2.0, optimizers.SGD()))
