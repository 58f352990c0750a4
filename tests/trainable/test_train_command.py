"""`rillet train` on a file `rillet trainable` wrote: the accuracy of a classification loss each epoch, and
validation (held-out data or a split) scored by the file's `infer` signature, checked against the same
predictions counted here; a regression loss reports no accuracy; usage errors are one line, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.runtime import Interpreter
from rillet.targets.device_train import DeviceTrainer
from rillet.targets.fit_data import FitError

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"


def shifted_classes(model: Path, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and a target the last layer can learn: the class after the one the original model picks."""
    it = Interpreter(model_path=str(model))
    it.allocate_tensors()
    x_detail, out = it.get_input_details()[0], it.get_output_details()[0]
    x = np.random.default_rng(seed).normal(0, 1, (n, *x_detail["shape"][1:])).astype(np.float32)
    picked = []
    for row in x:
        it.set_tensor(x_detail["index"], row[None])
        it.invoke()
        picked.append(int(it.get_tensor(out["index"]).argmax()))
    return x, ((np.array(picked) + 1) % out["shape"][-1]).astype(np.int32)


def accuracy_by_hand(trainer: DeviceTrainer, x: np.ndarray, y: np.ndarray) -> float:
    infer = trainer.interpreter.get_signature_runner("infer")
    name = trainer.infer_inputs[0]
    right = sum(int(infer(**{name: row[None]})[trainer.task["output"]].argmax() == label) for row, label in zip(x, y))
    return right / len(y)


def test_accuracy_rises_and_validation_is_infer_on_the_held_out_examples(tmp_path):
    model = MODELS / "mlp_f32.tflite"
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(model, train_last=1, learning_rate=0.5))
    x, y = shifted_classes(model, 160, 0)
    vx, vy = shifted_classes(model, 40, 1)
    trainer = DeviceTrainer(path)
    assert trainer.classifies
    assert trainer.evaluate((vx, vy), 8)["val_accuracy"] == accuracy_by_hand(trainer, vx, vy) < 0.2
    seen = []
    history = trainer.fit((x, y), epochs=4, batch_size=8, validation=(vx, vy), progress=False,
                          on_epoch=lambda e, v: seen.append((e, v)))
    assert set(history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert [e for e, _ in seen] == [0, 1, 2, 3] and seen[-1][1]["val_accuracy"] == history["val_accuracy"][-1]
    assert history["loss"][-1] < history["loss"][0]
    assert history["accuracy"][-1] > history["accuracy"][0]
    assert history["val_accuracy"][-1] == accuracy_by_hand(trainer, vx, vy) > 0.5
    # val_loss: the mean cross-entropy of infer's probabilities, as counted here
    infer = trainer.interpreter.get_signature_runner("infer")
    p = np.concatenate([infer(**{trainer.infer_inputs[0]: row[None]})["output_0"] for row in vx])
    assert history["val_loss"][-1] == pytest.approx(float(-np.log(p[np.arange(len(vy)), vy]).mean()), rel=1e-5)


def test_a_split_holds_out_the_last_examples(tmp_path):
    model = MODELS / "mlp_f32.tflite"
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(model, train_last=1, learning_rate=0.5))
    x, y = shifted_classes(model, 80, 2)
    trainer = DeviceTrainer(path)
    history = trainer.fit((x, y), epochs=1, batch_size=8, validation_split=0.25, progress=False)
    assert history["val_accuracy"][-1] == accuracy_by_hand(trainer, x[60:], y[60:])
    with pytest.raises(FitError, match="less than one batch"):
        trainer.fit((x, y), epochs=1, batch_size=8, validation_split=0.05, progress=False)


def test_int8_file_reports_accuracy_but_no_validation_loss(tmp_path):
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(MODELS / "cnn_small_int8.tflite", train_last=1))
    rs = np.random.default_rng(0)
    x = rs.integers(-128, 128, (32, 28, 28, 1)).astype(np.int8)
    y = rs.integers(0, 10, 32).astype(np.int32)
    history = DeviceTrainer(path).fit((x, y), epochs=1, batch_size=8, validation_split=0.25, progress=False)
    assert set(history) == {"loss", "accuracy", "val_accuracy"}
    assert 0.0 <= history["accuracy"][0] <= 1.0


def test_regression_loss_has_validation_loss_and_no_accuracy(tmp_path):
    model = MODELS / "mlp_f32.tflite"
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(model, train_last=1, loss="mse"))
    rs = np.random.default_rng(0)
    x, y = rs.normal(0, 1, (32, 64)).astype(np.float32), rs.uniform(0, 1, (32, 10)).astype(np.float32)
    trainer = DeviceTrainer(path)
    assert not trainer.classifies
    history = trainer.fit((x, y), epochs=1, batch_size=8, validation=(x[:8], y[:8]), progress=False)
    assert set(history) == {"loss", "val_loss"}
    infer = trainer.interpreter.get_signature_runner("infer")
    p = np.concatenate([infer(keras_tensor=row[None])["output_0"] for row in x[:8]])
    assert history["val_loss"][0] == pytest.approx(float(((p - y[:8]) ** 2).mean()), rel=1e-5)


def rillet_cli(*args: str) -> subprocess.CompletedProcess:
    """`rillet ARGS` in a child process, run from the tests' folder: from the checkout's root the local ./rillet
    would shadow the installed package (CI's venv is not editable)."""
    return subprocess.run([sys.executable, "-c", "import sys; from rillet.cli import main; sys.exit(main())", *args],
                          capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parent)


def test_cli_prints_each_epoch_with_accuracy_and_validation(tmp_path):
    model = MODELS / "mlp_f32.tflite"
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(model, train_last=1, learning_rate=0.5))
    x, y = shifted_classes(model, 64, 3)
    np.savez(tmp_path / "d.npz", x=x, y=y)
    done = rillet_cli("train", str(path), "--data", str(tmp_path / "d.npz"), "--epochs", "2", "--batch-size", "8",
                      "--validation-split", "0.25", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("epoch ")]
    assert [line.split(":")[0] for line in lines] == ["epoch 1/2", "epoch 2/2"]
    assert all("accuracy" in line and "val_accuracy" in line and "val_loss" in line for line in lines)
    both = rillet_cli("train", str(path), "--data", str(tmp_path / "d.npz"), "--validation-split", "0.25",
                      "--val", str(tmp_path / "d.npz"))
    assert both.returncode == 2 and "not both" in both.stderr


def test_a_resumed_run_reports_the_accuracy_of_one_never_stopped(tmp_path):
    model = MODELS / "mlp_f32.tflite"
    path = tmp_path / "train.tflite"
    path.write_bytes(rillet.trainable(model, train_last=1, learning_rate=0.5))
    x, y = shifted_classes(model, 64, 4)
    whole = DeviceTrainer(path).fit((x, y), epochs=2, batch_size=8, validation_split=0.25, progress=False)
    folder = tmp_path / "ckpt"
    DeviceTrainer(path).fit((x, y), epochs=1, batch_size=8, validation_split=0.25, progress=False,
                            checkpoint_dir=folder)
    resumed = DeviceTrainer(path).fit((x, y), epochs=2, batch_size=8, validation_split=0.25, progress=False,
                                      checkpoint_dir=folder)
    assert resumed == whole and len(whole["accuracy"]) == 2
