"""`trainable(..., classes=N)` / `rillet trainable --classes N`: a shipped classifier's head widened to N classes
(converter/new_classes.py), so fine-tuning teaches it classes it never saw. The old classes' logits are
unchanged before a step (int8: bit for bit), the file trains to a new class in rillet and LiteRT alike, and
exports in the original's form."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.converter import ModelError, load
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"


def feed(path: Path, seed: int) -> tuple[str, np.ndarray, np.ndarray]:
    """An input of the model at `path` and LiteRT's output of the original for it."""
    it = litert.Interpreter(model_path=str(path))
    runner = it.get_signature_runner(next(iter(it.get_signature_list())))
    name, d = next(iter(runner.get_input_details().items()))
    rs = np.random.default_rng(seed)
    x = (rs.integers(-128, 128, d["shape"]) if d["dtype"] == np.int8 else rs.uniform(-1, 1, d["shape"])).astype(d["dtype"])
    return name, x, next(iter(runner(**{name: x}).values()))


def only_output(interpreter, signature: str, name: str, x: np.ndarray) -> np.ndarray:
    return next(iter(interpreter.get_signature_runner(signature)(**{name: x}).values()))


def test_a_float_head_widens_without_moving_the_old_classes():
    """Under the softmax the old classes keep their odds against each other; the two new ones start level
    (zero logits), and LiteRT computes the same."""
    path = MODELS / "cnn_small_f32.tflite"
    name, x, want = feed(path, 0)
    content = rillet.trainable(path, classes=12)
    ours, theirs = (only_output(it, "infer", name, x) for it in (Interpreter(model_content=content),
                                                                 litert.Interpreter(model_content=content)))
    assert ours.shape == (1, 12)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    old = ours[0, :10] / ours[0, :10].sum()
    np.testing.assert_allclose(old, want[0], rtol=1e-5)
    assert ours[0, 10] == ours[0, 11]


@pytest.mark.parametrize("model", ["cnn_small_int8", "cnn_small_int8_floatio"])
def test_an_int8_head_learns_a_new_class_in_rillet_and_litert_and_exports_as_int8(model, tmp_path):
    path = MODELS / f"{model}.tflite"
    name, x, want = feed(path, 1)
    content = rillet.trainable(path, classes=11, train_last=2, learning_rate=0.05)
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    before = only_output(ours, "infer", name, x)
    np.testing.assert_array_equal(before, only_output(theirs, "infer", name, x))
    assert before.shape == (1, 11) and before.argmax() != 10
    y = np.array([10], np.int32)  # the new class
    losses = {key: np.array([float(it.get_signature_runner("train")(**{name: x}, y=y)["loss"]) for _ in range(20)])
              for key, it in (("rillet", ours), ("litert", theirs))}
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
    assert losses["rillet"][-1] < losses["rillet"][0] - 0.5, losses["rillet"]
    after = only_output(ours, "infer", name, x)
    np.testing.assert_array_equal(after, only_output(theirs, "infer", name, x))
    assert after.argmax() == 10
    ours.export_model(str(tmp_path / "eleven.tflite"))
    exported = load(tmp_path / "eleven.tflite")
    weights = [exported.subgraphs[0].tensors[op.inputs[1]] for op in exported.subgraphs[0].operators
               if exported.op_name(op) == "FULLY_CONNECTED"]
    assert weights[-1].shape[0] == 11 and weights[-1].dtype == np.int8
    it = litert.Interpreter(model_path=str(tmp_path / "eleven.tflite"))
    got = next(iter(it.get_signature_runner(next(iter(it.get_signature_list())))(**{name: x}).values()))
    np.testing.assert_array_equal(got, after)


def test_the_command_takes_classes(tmp_path, capsys):
    from rillet.cli import main

    out = tmp_path / "train.tflite"
    assert main(["trainable", str(MODELS / "cnn_small_int8.tflite"), "-o", str(out), "--classes", "12"]) == 0
    it = Interpreter(model_path=str(out))
    assert it.get_signature_runner("infer").get_output_details()[next(iter(
        it.get_signature_runner("infer").get_output_details()))]["shape"].tolist() == [1, 12]
    assert main(["trainable", str(MODELS / "cnn_small_int8.tflite"), "-o", str(out), "--classes", "1"]) == 2


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match="has 10 already"):
        rillet.trainable(MODELS / "cnn_small_f32.tflite", classes=10)
    with pytest.raises(ValueError, match="must be among the trained layers"):
        rillet.trainable(MODELS / "cnn_small_f32.tflite", classes=12,
                         train=[rillet.converter.trainable.weighted_layers(
                             load(MODELS / "cnn_small_f32.tflite"), 0)[0].name])
    with pytest.raises(ValueError, match="need a classification loss"):  # a regressor has no classes
        rillet.trainable(MODELS.parent / "real" / "sine_float.tflite", loss="mse", classes=4)
    with pytest.raises(ModelError, match="the MAXIMUM between the head and output"):
        rillet.trainable(head_then_add(), classes=5)


def head_then_add() -> bytes:
    """A classifier whose logits pass a per-class floor before the softmax: a new class would need a floor
    too, which nothing can make up."""
    from rillet.graph import Graph, Variable, ops

    graph = Graph()
    with graph.as_default():
        x = ops.placeholder([1, 4], "float32", name="x")
        logits = ops.fully_connected(x, Variable(np.ones((3, 4), np.float32), name="w"))
        probs = ops.softmax(ops.maximum(logits, np.array([0.1, 0.2, 0.3], np.float32)))
    return rillet.convert(inputs={"x": x}, outputs={"probs": probs})
