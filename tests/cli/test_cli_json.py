"""--json wherever a command prints a table: quantize (its per-layer report) and demo (its results table);
run, bench and inspect are covered beside their other tests."""

from __future__ import annotations

import json

import numpy as np

from rillet.cli import main

from support import golden, model_path


def test_quantize_json_holds_the_sizes_and_the_report(tmp_path, capsys):
    calib = np.repeat(golden("cnn_small_f32")["x"], 4, axis=0)
    np.save(tmp_path / "calib.npy", calib)
    out = tmp_path / "q.tflite"
    assert main(["quantize", str(model_path("cnn_small_f32")), "--calib", str(tmp_path / "calib.npy"), "-o", str(out),
                 "--quiet", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["output_bytes"] == out.stat().st_size < result["model_bytes"]
    assert result["mode"] == "int8" and result["report"]["samples"] == 4
    assert all(t["sqnr_db"] > 20 for t in result["report"]["tensors"].values())


def test_demo_json_holds_one_record_per_model_and_runtime(capsys):
    assert main(["demo", "--runs", "3", "--bundled-sample", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    rillet = {r["variant"]: r for r in result["results"] if r["runtime"] == "rillet"}
    assert set(rillet) == {"float32", "int8"}
    assert all(r["accuracy"] > 0.9 and r["one_image_ms"] > 0 for r in rillet.values())
