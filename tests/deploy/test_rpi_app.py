"""examples/rpi_app.py: it classifies held-out digits as the bundled model does, and fine-tuning its last layer
on a user's differently written digits (here: shifted one pixel) makes the exported model read *other* such
digits better, in rillet and in LiteRT alike."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from rillet.bundled import digits_test_set
from rillet.runtime import Interpreter

APP = Path(__file__).resolve().parents[2] / "examples" / "rpi_app.py"


@pytest.fixture(scope="module")
def app():
    if not APP.exists():
        pytest.skip("examples/ is not beside the tests")
    spec = importlib.util.spec_from_file_location("rpi_app", APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shifted(images: np.ndarray) -> np.ndarray:
    return np.roll(images, (1, 1), axis=(1, 2))


def accuracy(model: Path, images: np.ndarray, labels: np.ndarray, interpreter_class=Interpreter) -> float:
    runner = interpreter_class(model_path=str(model)).get_signature_runner("infer")
    return float(np.mean(np.argmax(runner(image=images.astype(np.float32))["logits"], axis=1) == labels))


def test_classifies_the_sample_it_writes(app, tmp_path, capsys):
    assert app.main(["--make-sample", str(tmp_path / "s"), "--count", "40"]) == 0
    assert app.main([str(tmp_path / "s"), "--checkpoint", str(tmp_path / "none.npz")]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if ": " in line]
    assert len(lines) == 40
    right = sum(line.split(": ")[1].split()[0] == line[0] for line in lines)
    assert right >= 38  # the bundled model reads about 98% of held-out digits


def test_fine_tuning_the_head_on_shifted_digits_carries_to_unseen_ones(app, tmp_path, capsys):
    digits = digits_test_set(use_sklearn=False)
    mine = tmp_path / "mine"
    mine.mkdir()
    for k in range(100, 200):
        np.save(mine / f"{digits.labels[k]}_{k}.npy", shifted(digits.images[k:k + 1])[0, :, :, 0])
    out = tmp_path / "mine.tflite"
    assert app.main(["--labelled", str(mine), "--epochs", "20", "--out", str(out),
                     "--checkpoint", str(tmp_path / "head.npz")]) == 0
    assert "after" in capsys.readouterr().out
    unseen, labels = shifted(digits.images[:100]), digits.labels[:100]
    original = tmp_path / "original.tflite"
    original.write_bytes(app.training_model(0.02))
    before, after = accuracy(original, unseen, labels), accuracy(out, unseen, labels)
    assert after > before + 0.2, (before, after)
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    assert accuracy(out, unseen, labels, litert.Interpreter) == after
