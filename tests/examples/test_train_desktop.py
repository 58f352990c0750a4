"""examples/train_desktop.py, short: it trains, writes a .tflite that LiteRT and rillet's runtime classify
exactly as the graph does, is deterministic given its seed, and splits the data as the bundled model was."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

for needed in ("jax", "sklearn", "tqdm", "ai_edge_litert"):
    pytest.importorskip(needed)

import rillet as rl
from rillet.bundled import DIGITS_SAMPLE, bundled_model_path

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_desktop.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("train_desktop", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_run_writes_a_model_all_three_runtimes_agree_on(example, tmp_path, capsys):
    out, sample = tmp_path / "digits.tflite", tmp_path / "sample.npz"
    assert example.main(["--epochs", "3", "--out", str(out), "--sample", str(sample), "--quiet",
                         "--min-accuracy", "0.8"]) == 0
    text = capsys.readouterr().out
    line = re.compile(r"^  (graph \(XLA\)|LiteRT|rillet runtime)\s+test accuracy ([\d.]+)%", re.MULTILINE)
    accuracies = dict(line.findall(text))
    assert len(accuracies) == 3 and len(set(accuracies.values())) == 1, text
    assert float(accuracies["LiteRT"]) > 80
    assert text.count("0 predictions differ from the graph's") == 2

    (signature,) = rl.Interpreter(model_path=str(out)).get_signature_list().values()
    assert signature == {"inputs": ["image"], "outputs": ["probs"]}
    it = rl.Interpreter(model_path=str(out))
    (inp,) = it.get_input_details()
    assert list(inp["shape_signature"]) == [-1, 8, 8, 1] and inp["dtype"] == np.float32
    with np.load(sample) as s:
        assert s["images"].dtype == np.uint8 and len(s["images"]) == len(s["labels"]) == 200


def test_raw_pixels_go_in_normalization_is_in_the_graph(example):
    model = example.build_model()
    written = rl.load(rl.convert(model))
    ops = [written.op_name(op) for op in written.subgraphs[0].operators]
    assert ops[:3] == ["MUL", "SUB", "CONV_2D"] and ops[-1] == "SOFTMAX"


def test_training_is_deterministic_given_the_seed(example):
    split = example.load_split(seed=1)
    x, y = split["x_train"][:256], split["y_train"][:256]
    files = []
    for _ in range(2):
        model = example.build_model(seed=1)
        example.train(model, x, y, epochs=1, seed=1, progress=False)
        files.append(rl.convert(model))
    assert files[0] == files[1]


def test_fails_under_the_minimum_accuracy(example, tmp_path, capsys):
    assert example.main(["--epochs", "0", "--out", str(tmp_path / "m.tflite"), "--quiet"]) == 1
    assert "FAIL: test accuracy" in capsys.readouterr().err


def test_split_is_the_one_the_bundled_model_held_out(example):
    """The demo finds its held-out images by index: the example's seed-0 split must still give them."""
    split = example.load_split(seed=0)
    with np.load(bundled_model_path(DIGITS_SAMPLE)) as sample:
        np.testing.assert_array_equal(sample["test_indices"], split["test_indices"])
        n = len(sample["labels"])
        np.testing.assert_array_equal(sample["images"], split["x_test"][:n, ..., 0])
        np.testing.assert_array_equal(sample["labels"], split["y_test"][:n])
    assert len(split["y_test"]) == 450 and len(split["y_train"]) == 1347


def test_two_processes_write_a_model_that_classifies_as_one_process_does(example, tmp_path, capsys):
    """--processes 2: jax.distributed over 2 local processes, each feeding half of every batch."""
    files = {n: tmp_path / f"digits_{n}.tflite" for n in (1, 2)}
    for n, out in files.items():
        assert example.main(["--epochs", "2", "--out", str(out), "--quiet", "--min-accuracy", "0.5",
                             "--processes", str(n)]) == 0
    x = example.load_split()["x_test"]
    predicted = {n: rl.Interpreter(model_path=str(out)).get_signature_runner("infer")(image=x)["probs"]
                 for n, out in files.items()}
    np.testing.assert_array_equal(predicted[2].argmax(1), predicted[1].argmax(1))
    np.testing.assert_allclose(predicted[2], predicted[1], rtol=1e-4, atol=1e-6)
