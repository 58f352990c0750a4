"""`rillet train`: a .tflite's train signature on the device runtime (LiteRT's losses, resume, export) and
a graph on XLA (one process or two through --processes, the same history); one-line errors, exit 2 for
bad usage and 1 when the training fails."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rillet.cli import main

from support import golden, model_path

FIT_NETS = Path(__file__).resolve().parents[1] / "targets" / "fit_nets.py"


@pytest.fixture
def mlp_data(tmp_path):
    """TensorFlow's train_mlp steps: 5 batches of 8, and LiteRT's loss for each."""
    g = golden("train_mlp")
    path = tmp_path / "train.npz"
    np.savez(path, x=g["xs"].reshape(40, 64), y=g["ys"].reshape(40, 10))
    return path, g["losses"]


def history(folder: Path) -> dict:
    return json.loads((folder / "checkpoint.json").read_text())["history"]


def test_device_training_gives_litert_losses_and_resumes(mlp_data, tmp_path, capsys):
    data, litert_losses = mlp_data
    model = str(model_path("train_mlp"))
    out = tmp_path / "trained.tflite"
    assert main(["train", model, "--data", str(data), "--epochs", "2", "--no-shuffle", "--quiet",
                 "--checkpoint-dir", str(tmp_path / "a"), "--every", "3", "-o", str(out)]) == 0
    assert "trained 2 epochs: loss" in capsys.readouterr().out
    uninterrupted = history(tmp_path / "a")
    np.testing.assert_allclose(uninterrupted["loss"][0], np.mean(litert_losses), rtol=1e-5)
    assert uninterrupted["loss"][1] < uninterrupted["loss"][0]

    for epochs in ("1", "2"):  # one epoch, then a second run resumes from its checkpoint
        assert main(["train", model, "--data", str(data), "--epochs", epochs, "--no-shuffle", "--quiet",
                     "--checkpoint-dir", str(tmp_path / "b")]) == 0
    assert history(tmp_path / "b") == uninterrupted

    from rillet.runtime import Interpreter

    (signature,) = Interpreter(model_path=str(out)).get_signature_list()
    assert signature == "infer"


def test_device_usage_errors_exit_2_work_errors_exit_1(mlp_data, tmp_path, capsys):
    data, _ = mlp_data
    model = str(model_path("train_mlp"))
    cases = [
        (["train", model, "--data", str(data), "--batch-size", "4"], 2, "takes batches of 8, not 4"),
        (["train", model, "--data", str(tmp_path / "none.npz")], 2, "none.npz does not exist"),
        (["train", model, "--data", str(data), "--metrics", "accuracy"], 2, "--metrics: XLA backend only"),
        (["train", model, "--backend", "xla", "--data", str(data)], 2, "the XLA backend trains a graph"),
    ]
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros((16, 64), np.float32), y=np.zeros((16, 10), np.float32))
    assert main(["train", model, "--data", str(other), "--quiet", "--checkpoint-dir", str(tmp_path / "c")]) == 0
    capsys.readouterr()
    cases.append((["train", model, "--data", str(data), "--quiet", "--checkpoint-dir", str(tmp_path / "c")], 1,
                  "was written with examples 16, this run has 40"))
    for argv, code, message in cases:
        assert main(argv) == code, argv
        err = capsys.readouterr().err
        assert err.startswith("rillet train: ") and message in err and err.count("\n") == 1, err


@pytest.fixture
def builder(tmp_path):
    """fit_nets.py copied to a user's folder (a builder is a file, as `rillet convert` takes it), and its data."""
    shutil.copy(FIT_NETS, tmp_path / "nets.py")
    spec = importlib.util.spec_from_file_location("nets", tmp_path / "nets.py")
    nets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nets)
    x, y = nets.data()
    np.savez(tmp_path / "train.npz", image=x, labels=y)
    np.savez(tmp_path / "val.npz", x=nets.validation()[0], y=nets.validation()[1])
    return f"{tmp_path / 'nets.py'}:model"


def test_xla_training_in_one_and_two_processes(builder, tmp_path, capsys):
    pytest.importorskip("jax")
    common = [builder, "--data", str(tmp_path / "train.npz"), "--validation", str(tmp_path / "val.npz"),
              "--epochs", "2", "--batch-size", "8", "--learning-rate", "0.01", "--metrics", "accuracy", "--quiet"]
    out = tmp_path / "model.tflite"
    assert main(["train", *common, "--checkpoint-dir", str(tmp_path / "one"), "-o", str(out)]) == 0
    assert "val_accuracy" in capsys.readouterr().out
    assert main(["train", *common, "--checkpoint-dir", str(tmp_path / "two"), "--processes", "2"]) == 0
    one, two = history(tmp_path / "one"), history(tmp_path / "two")
    assert sorted(one) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    for name in one:
        np.testing.assert_allclose(two[name], one[name], rtol=1e-5)

    from rillet.runtime import Interpreter

    x = np.load(tmp_path / "val.npz")["x"]
    probs = Interpreter(model_path=str(out)).get_signature_runner("infer")(image=x)["probs"]
    np.testing.assert_allclose(probs.sum(1), 1, rtol=1e-5)


def test_xla_usage_errors_exit_2(builder, tmp_path, capsys):
    data = str(tmp_path / "train.npz")
    for argv, message in [
        ([builder, "--data", data, "--metrics", "acc"], "unknown metric 'acc'"),
        ([builder, "--data", data, "--loss", "hinge"], "unknown loss 'hinge'"),
        ([str(tmp_path / "nets.py:nothing"), "--data", data], "has no function 'nothing'"),
        ([builder, "--data", data, "--coordinator", "127.0.0.1:1"], "needs --coordinator HOST:PORT, --num-processes N and --process-id K together"),
    ]:
        assert main(["train", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("rillet train: ") and message in err and err.count("\n") == 1, err
