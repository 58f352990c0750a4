"""`rillet run` and `rillet bench`, in process."""

from __future__ import annotations

import numpy as np
import pytest

from rillet.cli import main

from support import golden, model_path


def test_run_writes_the_output(tmp_path, capsys):
    g = golden("cnn_small_f32")
    np.save(tmp_path / "x.npy", g["x"])
    code = main(["run", str(model_path("cnn_small_f32")), "--input", str(tmp_path / "x.npy"),
                 "--output", str(tmp_path / "y.npy"), "--profile"])
    assert code == 0
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), g["y"], rtol=1e-5, atol=1e-6)
    printed = capsys.readouterr().out
    assert "CONV_2D" in printed and "folded" in printed and "arena" in printed


def test_run_resizes_a_dynamic_batch(tmp_path):
    x = np.random.default_rng(1).uniform(-1, 1, (7, 28, 28, 1)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(model_path("cnn_small_f32")), "--input", str(tmp_path / "x.npy"),
                 "--output", str(tmp_path / "y.npy")]) == 0
    assert np.load(tmp_path / "y.npy").shape == (7, 10)


def test_run_reports_unsupported_models(tmp_path, capsys):
    from single_op import Input, op_model

    (tmp_path / "svdf.tflite").write_bytes(op_model("SVDF", [Input((2,))], [((2,), np.float32)]))
    np.save(tmp_path / "x.npy", np.zeros((2,), np.float32))
    assert main(["run", str(tmp_path / "svdf.tflite"), "--input", str(tmp_path / "x.npy")]) == 1
    assert "SVDF" in capsys.readouterr().err


def test_bench_prints_medians_and_ratios(capsys):
    pytest.importorskip("ai_edge_litert")
    assert main(["bench", str(model_path("mlp_f32")), "--runs", "3"]) == 0
    printed = capsys.readouterr().out
    assert "LiteRT + XNNPACK" in printed and "LiteRT builtin" in printed
    assert printed.count("rillet / this = ") == 2
