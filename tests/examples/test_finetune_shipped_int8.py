"""examples/finetune_shipped_int8.py: the bundled digits model, quantized to int8 and made trainable as a
shipped file, adapts to sideways (rotated) digits from 60 labelled images: held-out accuracy rises far above
the untrained model's; the exported model runs in LiteRT with rillet's predictions and its weighted layers
still compute in int8 (the script's own checks, and its exit status)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("ai_edge_litert")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "finetune_shipped_int8.py"


def test_a_shipped_int8_model_adapts_to_sideways_digits(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("finetune_shipped_int8", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path), "--epochs", "10"]) == 0
    out = capsys.readouterr().out
    before, after = map(float, re.search(r"sideways digits: ([\d.]+) -> ([\d.]+)", out).groups())
    assert before < 0.3 and after > before + 0.3
    assert re.search(r"upright digits: 0\.9\d", out)
    assert "same predictions as rillet: True" in out
    assert "computing in int8: 3 of the shipped model's 3" in out
    assert len(re.findall(r"^epoch \d+/10: loss .*, accuracy .*, val_accuracy", out, re.M)) == 10
    assert {p.name for p in tmp_path.iterdir()} == {"shipped_int8.tflite", "digits_train.tflite",
                                                    "digits_finetuned.tflite"}
