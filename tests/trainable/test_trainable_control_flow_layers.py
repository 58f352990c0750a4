"""`rillet.trainable` on layers inside the subgraphs an IF or a WHILE calls: a branch's dense layers (one in an IF
nested in a branch) and a loop body's are weighted layers where their op stands (`--train-last` counts them,
`--train` names them); their weights become variables and train through the control flow. Checked: the first
step's update against central differences of the loss, 20 steps in rillet and LiteRT (1e-5), the exported model
in LiteRT against rillet; with the loss inside the model and in the int8 model, where `infer` is the original's
ops reading the trained weights inside their subgraphs. The model is test_to_graph_called_weights.py's."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.converter import ModelError, load
from rillet.converter.trainable import weighted_layers
from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "converter"))
from test_to_graph_called_weights import BATCH, OUT, inputs, shipped_model  # noqa: E402

litert = pytest.importorskip("ai_edge_litert.interpreter")

TARGET = np.full((BATCH, OUT), 0.2, np.float32)


def test_layers_inside_branches_and_loops_are_listed_where_their_op_stands():
    m = load(shipped_model())
    layers = weighted_layers(m, 0)
    kinds = [m.op_name(m.subgraphs[0].operators[layer.op]) for layer in layers]
    assert kinds == ["FULLY_CONNECTED", "IF", "IF", "IF", "WHILE", "FULLY_CONNECTED"]
    inside = [m.subgraphs[k].tensors[i].name for layer in layers for k, i in layer.inside]
    assert inside == ["then_w", "nested_w", "else_w", "loop_w"]
    assert [layer.name for layer in layers[1:5]] == ["then_dense", "nested_dense", "else_dense", "loop_dense"]
    assert all(not layer.weights for layer in layers[1:5])


def test_the_command_lists_them_with_the_op_they_are_inside(tmp_path, capsys):
    from rillet.cli import main

    path = tmp_path / "shipped.tflite"
    path.write_bytes(shipped_model())
    assert main(["trainable", str(path), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines[1:5]] == ["loop_dense", "else_dense", "nested_dense", "then_dense"]
    assert "(inside WHILE operator" in lines[1] and all("(inside IF operator" in line for line in lines[2:5])
    assert "inside" not in lines[0] + lines[5]


def test_the_first_step_moves_inside_weights_by_their_gradient():
    """One SGD step of the training file (every layer but the first) changes each inside weight by -lr times the
    gradient; central differences of the loss, computed by `restore` and `infer` in LiteRT, give the same."""
    lr = 0.05
    training = rillet.trainable(shipped_model(), loss="mse", train_last=5, learning_rate=lr)
    x = inputs()[0]  # the then branch, its nested IF's dense layer, two iterations of the loop
    ours = Interpreter(model_content=training)
    before = ours.get_signature_runner("save")()
    assert {"then_w", "nested_w", "else_w", "loop_w", "head"} <= set(before)
    ours.get_signature_runner("train")(x=x, y=TARGET)
    after = ours.get_signature_runner("save")()
    theirs = litert.Interpreter(model_content=training)
    restore, infer = theirs.get_signature_runner("restore"), theirs.get_signature_runner("infer")

    def loss(values: dict) -> float:
        restore(**values)
        return float(np.mean((infer(x=x)["y"].astype(np.float64) - TARGET) ** 2))

    for name in ("then_w", "nested_w", "loop_w"):
        stepped = (before[name] - after[name]) / lr
        numeric = np.zeros(before[name].shape)
        for idx in np.ndindex(before[name].shape):
            for sign in (1, -1):
                moved = before[name].copy()
                moved[idx] += sign * 1e-2
                numeric[idx] += sign * loss({**before, name: moved}) / 2e-2
        assert np.abs(stepped).max() > 1e-3, name
        np.testing.assert_allclose(stepped, numeric, rtol=2e-2, atol=2e-3, err_msg=name)
    np.testing.assert_array_equal(after["else_w"], before["else_w"])  # the branch not taken


def test_twenty_steps_match_litert_and_the_export_runs_there(tmp_path):
    """`--train` by name: the loop body's layer and a branch's; 20 steps give the same losses in rillet and
    LiteRT, falling, and the model export_model writes then gives rillet's outputs in LiteRT."""
    training = rillet.trainable(shipped_model(), loss="mse", train=["loop_dense", "then_dense"], learning_rate=0.1)
    xs = inputs()
    losses = {}
    runners = {"rillet": Interpreter(model_content=training), "litert": litert.Interpreter(model_content=training)}
    for key, it in runners.items():
        step = it.get_signature_runner("train")
        losses[key] = np.array([float(step(x=xs[k % len(xs)], y=TARGET)["loss"]) for k in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-5:].mean() < losses["rillet"][:5].mean()
    saved = runners["rillet"].get_signature_runner("save")()
    assert set(saved) == {"then_w", "loop_w"}
    path = tmp_path / "tuned.tflite"
    runners["rillet"].export_model(str(path))
    exported = litert.Interpreter(model_path=str(path)).get_signature_runner("infer")
    for x in xs:
        want = runners["rillet"].get_signature_runner("infer")(x=x)["y"]
        np.testing.assert_allclose(exported(x=x)["y"], want, rtol=1e-5, atol=1e-6)


def test_with_the_loss_inside_the_model_infer_reads_the_trained_inside_weight():
    """The loss on the IF's output (a tensor inside the model): `infer` is the original's ops, its subgraphs
    copied with the trained weight read from its variable at the start of its branch. Before a step it gives
    the original's outputs; 20 steps alike in rillet and LiteRT; after them infer is LiteRT's and has moved."""
    data = shipped_model()
    training = rillet.trainable(data, loss="mse", output="gate", train=["then_dense"], learning_rate=0.1)
    original = litert.Interpreter(model_content=data).get_signature_runner("infer")
    xs = inputs()
    runners = {"rillet": Interpreter(model_content=training), "litert": litert.Interpreter(model_content=training)}
    for x in xs:
        np.testing.assert_allclose(runners["rillet"].get_signature_runner("infer")(x=x)["y"], original(x=x)["y"],
                                   rtol=1e-5, atol=1e-6)
    target = np.full((BATCH, 6), 0.1, np.float32)  # the gate's output: the hidden width
    losses = {}
    for key, it in runners.items():
        step = it.get_signature_runner("train")
        losses[key] = np.array([float(step(x=xs[k % len(xs)], y=target)["loss"]) for k in range(20)])
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    moved = 0
    for x in xs:
        got = runners["rillet"].get_signature_runner("infer")(x=x)["y"]
        np.testing.assert_allclose(got, runners["litert"].get_signature_runner("infer")(x=x)["y"], rtol=1e-5,
                                   atol=1e-6)
        moved += not np.allclose(got, original(x=x)["y"], atol=1e-4)
    assert moved > 0


def test_an_int8_models_layers_inside_control_flow_train_and_infer_in_int8(tmp_path):
    """rillet.quant's int8 model of the fixture (the branches' and the loop body's weights int8 constants of
    their subgraphs): the loop body's and the then branch's layers train in float (their weights dequantized into
    variables), `infer` is the original's int8 ops with those weights quantized again from the variables inside
    their subgraphs: the original's bits before a step; 10 steps alike in rillet and LiteRT, the loss falling;
    after them infer has moved, rillet's within one output step of LiteRT's (LiteRT runs an int8
    FULLY_CONNECTED whose filter is computed on its builtin kernel, not XNNPACK's), and the model export_model
    writes (the trained weights int8 constants again) gives rillet's infer bit for bit in both runtimes."""
    from rillet.quant import quantize

    xs = inputs()
    content = quantize(shipped_model(), [[x] for x in xs], progress=False, keep_float=["CAST"])
    training = rillet.trainable(content, loss="mse", train=["loop_dense", "then_dense"], learning_rate=0.1)
    original = litert.Interpreter(model_content=content).get_signature_runner("infer")
    runners = {"rillet": Interpreter(model_content=training), "litert": litert.Interpreter(model_content=training)}
    infer = runners["rillet"].get_signature_runner("infer")
    for x in xs:
        np.testing.assert_array_equal(infer(x=x)["y"], original(x=x)["y"])
    losses = {}
    for key, it in runners.items():
        step = it.get_signature_runner("train")
        losses[key] = np.array([float(step(x=xs[k % len(xs)], y=TARGET)["loss"]) for k in range(10)])
        assert set(it.get_signature_runner("save")()) == {"loop_w", "then_w"}
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][5:].mean() < losses["rillet"][:5].mean()
    m = load(content)
    last = m.subgraphs[0].operators[-1]
    assert m.op_name(last) == "DEQUANTIZE"  # the int8 head's output, to float
    out_step = float(m.subgraphs[0].tensors[last.inputs[0]].quantization.scale[0])
    path = tmp_path / "tuned_int8.tflite"
    runners["rillet"].export_model(str(path))  # the trained weights int8 constants of their subgraphs again
    exported = load(path)
    assert not {"VAR_HANDLE", "READ_VARIABLE", "DIV", "ROUND"} & {exported.op_name(op) for sg in exported.subgraphs
                                                                  for op in sg.operators}
    theirs = litert.Interpreter(model_path=str(path)).get_signature_runner("infer")
    ours = Interpreter(model_path=str(path)).get_signature_runner("infer")
    for x in xs:
        got = infer(x=x)["y"]
        assert np.abs(got - original(x=x)["y"]).max() > 0
        np.testing.assert_allclose(got, runners["litert"].get_signature_runner("infer")(x=x)["y"], atol=out_step * 1.01)
        np.testing.assert_array_equal(ours(x=x)["y"], got)
        np.testing.assert_array_equal(theirs(x=x)["y"], got)


def test_a_weight_a_while_carries_as_a_loop_value_trains():
    """TensorFlow's form of a loop's weight: a constant of the signature's subgraph the WHILE carries, its body
    giving it back unchanged. The body's dense layer is a layer where the WHILE stands, its weight the carried
    constant: trained alike in rillet and LiteRT, the loss falling."""
    from rillet.graph import Graph, ops, placeholder

    rs = np.random.default_rng(0)
    g = Graph()
    with g.as_default():
        x = placeholder([4, 5], "float32", name="x")
        h = ops.tanh(ops.fully_connected(x, ops.constant(rs.normal(0, 0.5, (6, 5)).astype(np.float32), name="w1")))
        u = ops.constant(rs.normal(0, 0.4, (6, 6)).astype(np.float32), name="u")
        _, _, h, _ = ops.while_loop(
            lambda i, k, v, w: ops.less(i, k),
            lambda i, k, v, w: [ops.add(i, np.int32(1)), k, ops.tanh(ops.fully_connected(v, w, name="body_dense")), w],
            [np.int32(0), np.int32(2), h, u])
        y = ops.fully_connected(h, ops.constant(rs.normal(0, 0.5, (3, 6)).astype(np.float32), name="head"))
    data = rillet.convert(inputs={"x": x}, outputs={"y": y})
    m = load(data)
    (body,) = [layer for layer in weighted_layers(m, 0) if layer.name == "body_dense"]
    assert m.op_name(m.subgraphs[0].operators[body.op]) == "WHILE" and not body.inside
    assert [m.subgraphs[0].tensors[w].name for w in body.weights] == ["u"]
    training = rillet.trainable(data, loss="mse", train=["body_dense"], learning_rate=0.1)
    xv, target = rs.normal(size=(4, 5)).astype(np.float32), np.full((4, 3), 0.2, np.float32)
    losses = {}
    for key, cls in (("rillet", Interpreter), ("litert", litert.Interpreter)):
        it = cls(model_content=training)
        step = it.get_signature_runner("train")
        losses[key] = [float(step(x=xv, y=target)["loss"]) for _ in range(8)]
        assert list(it.get_signature_runner("save")()) == ["u"]
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert all(b < a for a, b in zip(losses["rillet"], losses["rillet"][1:]))
