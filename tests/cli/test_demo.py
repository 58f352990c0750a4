"""`rillet demo`: its accuracy is what the Interpreter gives on the same held-out digits, with scikit-learn
and without (the bundled sample), with LiteRT and without; as a subprocess from outside the checkout."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from rillet.bundled import bundled_model_path, digits_test_set
from rillet.cli import main
from rillet.runtime import Interpreter

ROW = re.compile(r"^(float32|int8)\s+(rillet|LiteRT)\s+([\d.]+)% \((\d+)/(\d+)\)", re.MULTILINE)


def interpreter_correct(images: np.ndarray, labels: np.ndarray) -> int:
    runner = Interpreter(model_path=str(bundled_model_path())).get_signature_runner("infer")
    return int(np.sum(runner(image=images)["probs"].argmax(-1) == labels))


def rows(text: str, variant: str = "float32") -> dict[str, tuple[int, int]]:
    return {name: (int(correct), int(n)) for v, name, _, correct, n in ROW.findall(text) if v == variant}


def test_demo_reports_the_interpreters_accuracy_on_held_out_digits(capsys):
    assert main(["demo", "--runs", "5"]) == 0
    text = capsys.readouterr().out
    test = digits_test_set()
    correct = interpreter_correct(test.images, test.labels)
    assert rows(text)["rillet"] == (correct, len(test.labels))
    assert f"{correct / len(test.labels):.2%} ({correct}/{len(test.labels)})" in text
    assert correct / len(test.labels) > 0.95  # the bundled model is trained, not a placeholder
    assert f"data   {test.source}" in text and "held-out" in text
    assert "CONV_2D x2" in text and f"{bundled_model_path().stat().st_size:,} bytes" in text
    assert "median invoke time of 5 runs with 1 image" in text
    try:
        import ai_edge_litert  # noqa: F401
    except ImportError:
        assert "LiteRT   not installed" in text
    else:
        assert rows(text)["LiteRT"] == (correct, len(test.labels))
        assert f"float32: rillet and LiteRT give the same class for all {len(test.labels)} images" in text


def test_demo_quantizes_the_model_to_int8_within_a_point_of_float(capsys):
    from rillet.bundled import digits_calibration_images
    from rillet.quant import quantize

    assert main(["demo", "--runs", "3"]) == 0
    text = capsys.readouterr().out
    test = digits_test_set()
    int8_model = quantize(bundled_model_path().read_bytes(), digits_calibration_images(), progress=False)
    runner = Interpreter(model_content=int8_model).get_signature_runner("infer")
    correct = int(np.sum(runner(image=test.images)["probs"].argmax(-1) == test.labels))
    assert rows(text, "int8")["rillet"] == (correct, len(test.labels))
    assert abs(correct - rows(text)["rillet"][0]) / len(test.labels) <= 0.01
    assert f"{len(int8_model) / 1024:.1f} KiB" in text and len(int8_model) < bundled_model_path().stat().st_size / 2
    if "LiteRT   not installed" not in text:
        assert rows(text, "int8")["LiteRT"] == (correct, len(test.labels))
        assert f"int8: rillet and LiteRT give the same class for all {len(test.labels)} images" in text


def test_without_scikit_learn_the_bundled_sample_is_used(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # makes `from sklearn.datasets import ...` raise ImportError
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    assert main(["demo", "--runs", "3"]) == 0
    text = capsys.readouterr().out
    sample = digits_test_set(use_sklearn=False)
    assert "scikit-learn is not installed" in text and f"batch of {len(sample.labels)}" in text
    assert rows(text)["rillet"] == (interpreter_correct(sample.images, sample.labels), len(sample.labels))


def test_bundled_sample_is_the_start_of_the_held_out_split():
    pytest.importorskip("sklearn")
    full, sample = digits_test_set(), digits_test_set(use_sklearn=False)
    assert len(full.labels) > len(sample.labels) >= 100
    np.testing.assert_array_equal(sample.images, full.images[:len(sample.labels)])
    np.testing.assert_array_equal(sample.labels, full.labels[:len(sample.labels)])


def test_without_litert_the_demo_says_so(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    assert main(["demo", "--runs", "3", "--bundled-sample"]) == 0
    text = capsys.readouterr().out
    assert "LiteRT   not installed" in text and set(rows(text)) == {"rillet"}


def test_demo_runs_as_the_installed_command(tmp_path):
    # cwd=tmp_path: ./rillet in the checkout would otherwise shadow the installed package
    # ...and on the base install: it never imports JAX (it may be installed here); the graph, numpy-only, makes
    # the fine-tuning step's training file
    script = ("import sys; from rillet.cli import main; code = main(['demo', '--runs', '3']); "
              "assert not {'jax', 'rillet.targets.xla'} & set(sys.modules), 'imported'; "
              "sys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    test = digits_test_set()
    assert rows(proc.stdout)["rillet"] == (interpreter_correct(test.images, test.labels), len(test.labels))
