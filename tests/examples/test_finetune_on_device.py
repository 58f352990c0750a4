"""examples/finetune_on_device.py: the head of the bundled digits model fine-tuned on rillet's runtime lifts
held-out accuracy on shifted digits; the checkpoint restores and the exported model runs in LiteRT with the
same predictions (the script's own checks, and its exit status)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("ai_edge_litert")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "finetune_on_device.py"


def test_fine_tuning_the_head_on_the_device(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("finetune_on_device", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path), "--epochs", "10"]) == 0
    out = capsys.readouterr().out
    before, after = map(float, re.search(r"shifted: ([\d.]+) -> ([\d.]+)", out).groups())
    assert after > before + 0.3
    assert "same outputs: True" in out and "same predictions: True" in out
    assert {p.name for p in tmp_path.iterdir()} == {"digits_train.tflite", "head.npz", "digits_finetuned.tflite"}
