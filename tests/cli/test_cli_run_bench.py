"""`rillet run` feeds what the model takes (quantized float input, arrays matched by name) or refuses,
saying why; `rillet bench` takes real inputs, warm-up, a per-op profile, the memory, JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rillet.cli import main
from rillet.commands.common import WorkError, as_model_input

from support import golden, model_path

litert = pytest.importorskip("ai_edge_litert.interpreter")


def run_json(capsys, *argv: str) -> dict:
    assert main(["run", *argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_float_input_to_an_int8_model_is_quantized_as_litert_quantizes_it(tmp_path, capsys):
    """The int8 model and its float-io twin share the input's scale and zero point; LiteRT's QUANTIZE op
    in the twin gives the int8 input rillet must feed, ties (k + 0.5) * scale included."""
    spec = litert.Interpreter(model_path=str(model_path("cnn_small_int8"))).get_input_details()[0]
    scale = spec["quantization"][0]
    rng = np.random.default_rng(4)
    x = rng.uniform(-1.2, 1.2, (1, 28, 28, 1)).astype(np.float32)
    x.reshape(-1)[:40] = ((np.arange(40) - 20) + 0.5) * scale  # exact ties
    twin = litert.Interpreter(model_path=str(model_path("cnn_small_int8_floatio")),
                              experimental_preserve_all_tensors=True)
    twin.allocate_tensors()
    twin.set_tensor(twin.get_input_details()[0]["index"], x)
    twin.invoke()
    quantize_op = next(op for op in twin._get_ops_details() if op["op_name"] == "QUANTIZE")
    expected_input = twin.get_tensor(int(quantize_op["outputs"][0]))
    np.testing.assert_array_equal(as_model_input(x, spec, "x"), expected_input)

    np.save(tmp_path / "x.npy", x)
    out = run_json(capsys, str(model_path("cnn_small_int8")), "--input", str(tmp_path / "x.npy"))
    (y,) = out["outputs"].values()
    reference = litert.Interpreter(model_path=str(model_path("cnn_small_int8")))
    reference.allocate_tensors()
    reference.set_tensor(spec["index"], expected_input)
    reference.invoke()
    assert y["dtype"] == "int8"
    np.testing.assert_array_equal(y["values"], reference.get_tensor(reference.get_output_details()[0]["index"]))


def test_what_cannot_be_fed_is_refused_saying_how():
    int8_unquantized = {"name": "x", "dtype": np.int8, "quantization": (0.0, 0)}
    with pytest.raises(WorkError, match="takes int8 with no quantization to map them by: give int8 values"):
        as_model_input(np.zeros(3, np.float32), int8_unquantized, "x")
    with pytest.raises(WorkError, match="uint8 values for input 'x', which takes float32: convert them first"):
        as_model_input(np.zeros(3, np.uint8), {"name": "x", "dtype": np.float32, "quantization": (0.0, 0)}, "x")
    int32 = {"name": "i", "dtype": np.int32, "quantization": (0.0, 0)}
    assert as_model_input(np.array([1, 2], np.int64), int32, "i").dtype == np.int32
    with pytest.raises(WorkError, match="int64 values for input 'i', which takes int32"):
        as_model_input(np.array([2**40], np.int64), int32, "i")
    float32 = {"name": "f", "dtype": np.float32, "quantization": (0.0, 0)}
    assert as_model_input(np.zeros(2), float32, "f").dtype == np.float32  # float64 narrowed


def test_npz_arrays_are_matched_by_name_and_wrong_keys_are_named(tmp_path, capsys):
    g = golden("cnn_small_f32")
    path = str(model_path("cnn_small_f32"))
    np.savez(tmp_path / "by_signature.npz", keras_tensor_3=g["x"])
    np.savez(tmp_path / "by_tensor.npz", **{"serving_default_keras_tensor_3:0": g["x"]})
    np.save(tmp_path / "x.npy", g["x"])
    for spec in ("by_signature.npz", "by_tensor.npz"):
        (y,) = run_json(capsys, path, "--input", str(tmp_path / spec))["outputs"].values()
        np.testing.assert_allclose(y["values"], g["y"], rtol=1e-5, atol=1e-6)
    (y,) = run_json(capsys, path, "--input", f"keras_tensor_3={tmp_path / 'x.npy'}")["outputs"].values()
    np.testing.assert_allclose(y["values"], g["y"], rtol=1e-5, atol=1e-6)

    np.savez(tmp_path / "wrong.npz", image=g["x"], labels=g["y"])
    assert main(["run", path, "--input", str(tmp_path / "wrong.npz")]) == 1
    err = capsys.readouterr().err
    assert "arrays ['image', 'labels'] name no input of the model" in err
    assert "its inputs are keras_tensor_3 float32[-1, 28, 28, 1]" in err
    assert main(["run", path, "--input", f"image={tmp_path / 'x.npy'}"]) == 1
    assert "input 'image'" in capsys.readouterr().err
    assert main(["run", path, "--input", str(tmp_path / "x.npy"), "--input", str(tmp_path / "x.npy")]) == 1
    assert "the model has 1 inputs" in capsys.readouterr().err


def test_run_json_with_a_profile(tmp_path, capsys):
    np.save(tmp_path / "x.npy", golden("mlp_f32")["x"])
    out = run_json(capsys, str(model_path("mlp_f32")), "--input", str(tmp_path / "x.npy"), "--profile",
                   "--output", str(tmp_path / "y.npy"))
    assert [row["op"] for row in out["profile"]] == ["FULLY_CONNECTED", "FULLY_CONNECTED", "SOFTMAX"]
    assert all(row["ms"] > 0 for row in out["profile"])
    assert out["memory"]["arena_bytes"] > 0
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), golden("mlp_f32")["y"], rtol=1e-5, atol=1e-6)


def test_bench_with_real_inputs_warmup_profile_and_memory(tmp_path, capsys):
    np.save(tmp_path / "x.npy", golden("cnn_small_f32")["x"])
    argv = ["bench", str(model_path("cnn_small_f32")), "--runs", "3", "--warmup", "0", "--input",
            str(tmp_path / "x.npy"), "--profile", "--memory"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "rillet per op" in text and "CONV_2D" in text and "folded" in text and "rillet memory: arena" in text
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["warmup"] == 0 and report["runs"] == 3
    assert report["results"]["rillet"]["median_ms"] > 0
    assert {row["op"] for row in report["profile"]} >= {"CONV_2D", "DEPTHWISE_CONV_2D", "SOFTMAX"}
    assert report["memory"]["weight_bytes"] > 0


def test_bench_refuses_inputs_that_name_no_input(tmp_path, capsys):
    np.savez(tmp_path / "wrong.npz", image=golden("mlp_f32")["x"])
    assert main(["bench", str(model_path("mlp_f32")), "--runs", "1", "--input", str(tmp_path / "wrong.npz")]) == 1
    assert "name no input of the model" in capsys.readouterr().err
