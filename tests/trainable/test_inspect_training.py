"""`rillet inspect` on a training file: the trained layers' variables with their shapes and bytes, the
optimizer's slots, and the memory a step needs, reported before any step and within 10% of what a step at
that batch then holds (the train plan's arena and op state, its packed weights among it, and the variables)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.cli import main
from rillet.commands.inspect import STEP_PARTS, training_memory
from rillet.runtime import Interpreter

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
CASES = [("mlp_f32", {"train_last": 2, "optimizer": "adam"}, 8),
         ("cnn_small_int8", {"train_last": 2, "optimizer": "momentum"}, 4),
         ("cnn_small_f32", {"train_last": 1}, 1)]


@pytest.mark.parametrize("name, options, batch", CASES, ids=[c[0] for c in CASES])
def test_step_memory_reported_before_a_step_is_within_10_percent_of_the_step(tmp_path, name, options, batch):
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(MODELS / f"{name}.tflite", **options))
    report = training_memory(path, batch)
    trained = [v for v in report["variables"] if v["role"] == "trained"]
    assert trained and all(v["bytes"] == np.prod(v["shape"]) * np.dtype(v["dtype"]).itemsize for v in trained)
    slots = sum(v["bytes"] for v in report["variables"] if v["role"] == "optimizer_slots")
    per_weight = {"adam": 2, "momentum": 1}.get(options.get("optimizer"), 0)
    assert slots - per_weight * sum(v["bytes"] for v in trained) in ((0, 8) if per_weight == 2 else (0,))

    it = Interpreter(model_path=str(path))
    runner = it.get_signature_runner("train")
    rs = np.random.default_rng(0)
    feeds = {}
    for key, d in runner.get_input_details().items():
        shape = [batch, *d["shape"][1:]]
        feeds[key] = (rs.integers(0, 10, shape) if key == "y" else rs.uniform(-1, 1, shape) * 100
                      ).astype(d["dtype"])
    runner(**feeds)
    plan = it._plans[it._signature_subgraphs()["train"]].memory()
    # the packed weights are part of the op state (they were once added to it again)
    assert STEP_PARTS == ("arena_bytes", "op_state_bytes", "dynamic_bytes")
    assert plan["packed_weight_bytes"] <= plan["op_state_bytes"]
    used = plan["arena_bytes"] + plan["op_state_bytes"] + plan["dynamic_bytes"] + it._program.variable_bytes()
    assert abs(report["step_bytes"] - used) <= 0.1 * used, (report, plan)


def test_cli_lists_trained_layers_and_step_memory(tmp_path, capsys):
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(MODELS / "mlp_f32.tflite", train_last=1, optimizer="adam"))
    assert main(["inspect", str(path), "--batch-size", "4"]) == 0
    text = capsys.readouterr().out
    assert "training (the train signature)" in text and "a step at batch 4:" in text and "optimizer_slots" in text
    assert main(["inspect", str(path), "--json"]) == 0
    training = json.loads(capsys.readouterr().out)["training"]
    assert training["loss"] == "softmax_cross_entropy" and training["optimizer"] == "adam"
    assert len(training["layers"]) == 1 and training["batch_size"] == 1
    assert main(["inspect", str(MODELS / "mlp_f32.tflite"), "--batch-size", "4"]) == 2


def test_adam_beta_powers_have_one_shape_read_and_assigned(tmp_path, capsys):
    """Adam's beta powers are scalars where the file reads them and where it assigns them (the constant they
    are multiplied by was written [1], so a step made them [1]): inspect gives their type and shape, and a
    step in rillet and in LiteRT leaves them scalars."""
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(MODELS / "mlp_f32.tflite", train_last=2, optimizer="adam"))
    powers = [v for v in training_memory(path, 1)["variables"] if v["name"].endswith("_power")]
    assert [(v["dtype"], v["shape"]) for v in powers] == [("float32", [])] * 2
    assert main(["inspect", str(path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "_power" in line and "optimizer_slots" in line]
    assert len(lines) == 2 and all(line.split()[2:4] == ["float32", "scalar"] for line in lines)
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    feeds = {"y": np.array([3], np.int32)}
    for interpreter in (Interpreter(model_path=str(path)), litert.Interpreter(model_path=str(path))):
        train = interpreter.get_signature_runner("train")
        name = next(k for k in train.get_input_details() if k != "y")
        feeds[name] = np.random.default_rng(0).uniform(-1, 1, train.get_input_details()[name]["shape"]).astype(
            np.float32)
        for _ in range(2):
            train(**feeds)
        save = interpreter.get_signature_runner("save")
        values = save()
        got = {k: v for k, v in values.items() if "power" in k}
        assert sorted((k, v.shape) for k, v in got.items()) == [("Adam/beta_1_power", ()), ("Adam/beta_2_power", ())]
        np.testing.assert_allclose(got["Adam/beta_1_power"], 0.9 ** 2, rtol=1e-6)
