"""export_model(..., calibration=...) and `rillet train --recalibrate`: a fine-tuned int8 model quantized again
over the user's samples (converter/recalibrate.py) instead of keeping the original's scales. The file is int8
with the original's input and output types, LiteRT runs it with rillet's bits, and it predicts what the
trained model does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.converter import load, save
from rillet.converter.float_copy import float_copy
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"


def samples(details: dict, n: int, seed: int) -> np.ndarray:
    rs = np.random.default_rng(seed)
    shape = (n, *details["shape"][1:])
    if details["dtype"] == np.int8:
        return rs.integers(-128, 128, shape).astype(np.int8)
    return rs.uniform(-1, 1, shape).astype(np.float32)


def weight_scales(path: Path) -> list:
    m = load(path)
    sg = m.subgraphs[0]
    return [list(sg.tensors[op.inputs[1]].quantization.scale) for op in sg.operators
            if m.op_name(op) in ("CONV_2D", "FULLY_CONNECTED")]


def real(values: np.ndarray, m) -> np.ndarray:
    """A model's outputs as the float values they stand for (an int8 output dequantized)."""
    t = m.subgraphs[0].tensors[m.subgraphs[0].outputs[0]]
    if t.quantization is None or not t.quantization.scale:
        return values.astype(np.float64)
    return (values.astype(np.float64) - t.quantization.zero_point[0]) * t.quantization.scale[0]


def real_inputs(xs: np.ndarray, m) -> np.ndarray:
    t = m.subgraphs[0].tensors[m.subgraphs[0].inputs[0]]
    if t.quantization is None or not t.quantization.scale:
        return xs
    return ((xs.astype(np.float32) - t.quantization.zero_point[0]) * np.float32(t.quantization.scale[0]))


def predictions(path_or_runner, name: str, xs: np.ndarray) -> np.ndarray:
    return np.stack([next(iter(path_or_runner(**{name: x[None]}).values()))[0] for x in xs])


@pytest.mark.parametrize("model", ["cnn_small_int8", "cnn_small_int8_floatio"])
def test_a_fine_tuned_int8_model_is_quantized_again_from_samples(model, tmp_path):
    it = Interpreter(model_content=rillet.trainable(MODELS / f"{model}.tflite", train_last=2, learning_rate=0.05))
    infer, train = it.get_signature_runner("infer"), it.get_signature_runner("train")
    name, details = next(iter(infer.get_input_details().items()))
    xs = samples(details, 24, 3)
    for _ in range(10):
        train(**{name: xs[:1]}, y=np.array([3], np.int32))
    it.export_model(tmp_path / "kept.tflite")
    it.export_model(tmp_path / "again.tflite", calibration=xs)
    again = load(tmp_path / "again.tflite")
    sg = again.subgraphs[0]
    io = [sg.tensors[i].dtype for i in [*sg.inputs, *sg.outputs]]
    assert io == [np.dtype(details["dtype"]), np.dtype(next(iter(infer.get_output_details().values()))["dtype"])]
    assert all(s for s in weight_scales(tmp_path / "again.tflite"))
    assert weight_scales(tmp_path / "again.tflite") != weight_scales(tmp_path / "kept.tflite")
    ours = predictions(Interpreter(model_path=str(tmp_path / "again.tflite")).get_signature_runner(), name, xs)
    theirs = predictions(litert.Interpreter(model_path=str(tmp_path / "again.tflite")).get_signature_runner(), name, xs)
    np.testing.assert_array_equal(ours, theirs)
    # the trained model in float (its weights as the export holds them, every activation unrounded): the
    # recalibrated file follows it more closely than the kept scales, which clip the logits training grew
    kept = load(tmp_path / "kept.tflite")
    in_float = Interpreter(model_content=save(float_copy(kept))).get_signature_runner()
    reference = predictions(in_float, name, real_inputs(xs, kept))
    kept_out = predictions(Interpreter(model_path=str(tmp_path / "kept.tflite")).get_signature_runner(), name, xs)
    error_again = np.abs(real(ours, again) - reference).max()
    error_kept = np.abs(real(kept_out, kept) - reference).max()
    assert error_again < error_kept, (error_again, error_kept)
    assert (ours.argmax(-1) == reference.argmax(-1)).mean() >= 0.9


def test_a_float_model_has_nothing_to_recalibrate(tmp_path):
    it = Interpreter(model_content=rillet.trainable(MODELS / "cnn_small_f32.tflite"))
    name, details = next(iter(it.get_signature_runner("infer").get_input_details().items()))
    it.get_signature_runner("infer")(**{name: samples(details, 1, 0)})
    with pytest.raises(ValueError, match="not quantized"):
        it.export_model(tmp_path / "x.tflite", calibration=samples(details, 4, 0))
    assert not (tmp_path / "x.tflite").exists()


def test_the_command_recalibrates_and_needs_an_output(tmp_path, capsys):
    from rillet.cli import main

    training = tmp_path / "train.tflite"
    training.write_bytes(rillet.trainable(MODELS / "cnn_small_int8.tflite", learning_rate=0.01))
    details = next(iter(Interpreter(model_path=str(training)).get_signature_runner("infer").get_input_details().values()))
    data = tmp_path / "d.npz"
    np.savez(data, x=samples(details, 20, 1), y=np.arange(20, dtype=np.int32) % 10)
    assert main(["train", str(training), "--data", str(data), "--recalibrate"]) == 2
    assert main(["train", str(training), "--data", str(data), "--batch-size", "10", "--quiet",
                 "-o", str(tmp_path / "tuned.tflite"), "--recalibrate"]) == 0
    assert "quantized again over --data" in capsys.readouterr().out
    assert activation_scales(tmp_path / "tuned.tflite") != activation_scales(MODELS / "cnn_small_int8.tflite")


def activation_scales(path: Path) -> list:
    """The scales of the tensors the ops make, in order (calibrated ranges)."""
    m = load(path)
    sg = m.subgraphs[0]
    return [list(sg.tensors[o].quantization.scale) for op in sg.operators for o in op.outputs
            if sg.tensors[o].quantization is not None and sg.tensors[o].quantization.scale]
