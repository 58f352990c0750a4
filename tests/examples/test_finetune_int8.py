"""examples/finetune_on_device.py --int8: the bundled digits model's convolutions frozen in int8, its head
fine-tuned in float on rillet's runtime; accuracy on shifted digits rises, LiteRT trains the same file to
the same losses, the checkpoint restores and LiteRT runs the exported model with the same predictions."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("ai_edge_litert")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "finetune_on_device.py"


def test_fine_tuning_an_int8_extractors_head(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("finetune_on_device", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path), "--epochs", "10", "--int8"]) == 0
    out = capsys.readouterr().out
    assert "frozen convolutions int8" in out
    before, after = map(float, re.search(r"shifted: ([\d.]+) -> ([\d.]+)", out).groups())
    assert after > before + 0.3
    assert "same losses (1e-5): True" in out
    assert "same outputs: True" in out and "same predictions: True" in out
