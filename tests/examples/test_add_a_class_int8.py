"""examples/add_a_class_int8.py: the bundled digits model, quantized to int8 as a shipped file, learns two new
classes (the signs "+" and "x") from 20 drawings of each: its head widened to twelve classes, held-out accuracy
on the signs rises from 0 while the digits keep theirs, and LiteRT runs the exported int8 model with rillet's
predictions (the script's own checks, and its exit status)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("ai_edge_litert")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "add_a_class_int8.py"


def test_a_shipped_int8_model_learns_two_new_classes(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("add_a_class_int8", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path), "--epochs", "15"]) == 0
    out = capsys.readouterr().out
    digits, before, signs = re.search(r"after: digits [\d.]+ -> ([\d.]+), new signs ([\d.]+) -> ([\d.]+)", out).groups()
    assert float(before) < 0.1 and float(signs) >= 0.8 and float(digits) >= 0.85
    assert "the head widened to 12 classes" in out
    assert "same predictions as rillet: True" in out
    assert {p.name for p in tmp_path.iterdir()} == {"shipped_int8.tflite", "calculator_train.tflite",
                                                    "calculator_int8.tflite"}
