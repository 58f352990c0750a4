"""`rillet quantize` on real files (tests/data/real): MediaPipe's face detector has float16 weights and
TFLITE_METADATA, the hand re-crop model PRELU, TFLM's sine model two more metadata entries. Every mode
writes a model of that mode that keeps the metadata; LiteRT runs each, and rillet gives LiteRT's bits on the
int8 ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from quantcheck import run as run_model
from quantcheck import sqnr_db
from single_op import Input, op_model

from rillet.cli import main
from rillet.converter.format import load
from rillet.quant import QuantizationError, quantize

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
FACE = REAL / "face_detection_short_range.tflite"  # float16 weights, TFLITE_METADATA
HAND = REAL / "hand_recrop.tflite"                 # PRELU
SINE = REAL / "sine_float.tflite"                  # min_runtime_version, CONVERSION_METADATA
FLOAT16, INT8 = 1, 9


def inputs(path: Path, n: int, seed: int) -> list[np.ndarray]:
    shape = load(path).subgraphs[0].tensors[load(path).subgraphs[0].inputs[0]].shape
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(n)]


def litert_and_rillet(content: bytes, xs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    from rillet.runtime import Interpreter

    return run_model(content, xs, dequantize=False), run_model(content, xs, Interpreter, dequantize=False)


def metadata(model) -> list[tuple[str, bytes]]:
    return [(m.name, bytes(model.buffers[m.buffer].data)) for m in model.metadata or []]


def metadata_buffers(model) -> list[bytes]:
    return [bytes(model.buffers[b].data) for b in model.metadata_buffer or []]


def op_names(model) -> set[str]:
    return {model.op_name(op) for op in model.subgraphs[0].operators}


def tensor_types(model) -> set[int]:
    return {t.type for t in model.subgraphs[0].tensors}


@pytest.mark.parametrize("path, mode", [(FACE, "int8"), (FACE, "dynamic"), (FACE, "float16"), (SINE, "int8"),
                                        (SINE, "dynamic"), (SINE, "float16")])
def test_the_command_keeps_the_metadata(path, mode, tmp_path):
    np.save(tmp_path / "calib.npy", np.stack(inputs(path, 4, 0)))
    out = tmp_path / "q.tflite"
    assert main(["quantize", str(path), "--mode", mode, "--calib", str(tmp_path / "calib.npy"), "-o", str(out),
                 "--quiet"]) == 0
    original, quantized = load(path), load(out)
    assert metadata(original)  # the test means something: there is metadata to keep
    assert metadata(quantized) == metadata(original)
    assert metadata_buffers(quantized) == metadata_buffers(original)


def test_a_float16_weight_model_quantizes_to_int8_from_its_float32_values():
    xs = inputs(FACE, 3, 1)
    data = quantize(FACE.read_bytes(), np.stack(inputs(FACE, 8, 2)), progress=False)
    model = load(data)
    assert FLOAT16 not in tensor_types(model)
    assert op_names(model) >= {"CONV_2D", "DEPTHWISE_CONV_2D"}
    convs = [op for op in model.subgraphs[0].operators if model.op_name(op) == "CONV_2D"]
    assert all(model.subgraphs[0].tensors[op.inputs[0]].type == INT8 for op in convs)
    expected, got = litert_and_rillet(data, xs)
    assert got.tobytes() == expected.tobytes()
    float_out = run_model(FACE.read_bytes(), xs)
    assert sqnr_db(float_out, run_model(data, xs)) > 15  # random inputs and calibration: a coarse check


def test_a_float16_weight_model_in_dynamic_mode_gets_int8_weights():
    data = quantize(FACE.read_bytes(), mode="dynamic", progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    assert FLOAT16 not in tensor_types(model)
    weights = [sg.tensors[op.inputs[1]] for op in sg.operators if model.op_name(op) in ("CONV_2D", "DEPTHWISE_CONV_2D")]
    assert weights and all(w.type == INT8 for w in weights)
    assert all(sg.tensors[op.inputs[0]].type != INT8 for op in sg.operators)  # activations stay float
    assert len(data) < 0.8 * FACE.stat().st_size
    xs = inputs(FACE, 2, 3)
    expected, got = litert_and_rillet(data, xs)
    # Each op agrees with LiteRT within 1e-7 on the same input, but a float difference of one ulp upstream can
    # move a value across a rounding step where the next hybrid op quantizes it: compare with the float model.
    float_out = run_model(FACE.read_bytes(), xs)
    assert sqnr_db(float_out, expected) > 15 and sqnr_db(float_out, got) > 15


def test_per_tensor_dynamic_depthwise_weights_carry_a_scale_per_channel():
    """LiteRT's hybrid depthwise kernel reads one scale per channel whatever the file says (given one, it read
    past it and gave garbage beyond channel 0): --per-tensor writes the tensor's scale once per channel."""
    data = quantize(FACE.read_bytes(), mode="dynamic", per_channel=False, progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    depthwise = [sg.tensors[op.inputs[1]] for op in sg.operators if model.op_name(op) == "DEPTHWISE_CONV_2D"]
    assert depthwise
    for w in depthwise:
        q = w.quantization
        assert q.quantized_dimension == 3 and len(q.scale) == w.shape[3] and len(set(q.scale)) == 1
    xs = inputs(FACE, 2, 4)
    expected, got = litert_and_rillet(data, xs)
    float_out = run_model(FACE.read_bytes(), xs)
    assert np.isfinite(expected).all()
    # One scale per tensor is coarser than one per channel (about 14.6 dB here against the float model, where
    # LiteRT gave values up to 1e34 before); rillet and LiteRT agree far closer than either with the float model.
    assert sqnr_db(float_out, expected) > 10 and sqnr_db(float_out, got) > 10
    assert sqnr_db(expected, got) > 40


def test_a_float16_weight_model_in_float16_mode_is_a_float16_model():
    data = quantize(FACE.read_bytes(), mode="float16", progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    weights = [sg.tensors[op.inputs[1]] for op in sg.operators if model.op_name(op) == "CONV_2D"]
    producers = {o: op for op in sg.operators for o in op.outputs}
    assert weights and all(model.op_name(producers[sg.tensors.index(w)]) == "DEQUANTIZE" for w in weights)
    assert FLOAT16 in tensor_types(model)
    xs = inputs(FACE, 2, 4)
    expected, got = litert_and_rillet(data, xs)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))
    np.testing.assert_allclose(expected, run_model(FACE.read_bytes(), xs), rtol=1e-5,
                               atol=1e-5 * float(np.abs(expected).max()))  # the same weights as the original


def test_prelu_quantizes_to_int8_with_its_alpha_an_int8_constant_of_its_own_scale():
    data = quantize(HAND.read_bytes(), np.stack(inputs(HAND, 8, 5)), progress=False)
    model = load(data)
    sg = model.subgraphs[0]
    prelus = [op for op in sg.operators if model.op_name(op) == "PRELU"]
    assert prelus
    for op in prelus:
        x, alpha = sg.tensors[op.inputs[0]], sg.tensors[op.inputs[1]]
        assert x.type == alpha.type == sg.tensors[op.outputs[0]].type == INT8
        assert model.tensor_data(0, op.inputs[1]) is not None  # a constant
        assert alpha.quantization.scale != x.quantization.scale
    xs = inputs(HAND, 3, 6)
    expected, got = litert_and_rillet(data, xs)
    assert got.tobytes() == expected.tobytes()


def test_an_op_without_an_int8_kernel_is_named_in_one_line(tmp_path, capsys):
    sine = op_model("SIN", [Input((1, 8))], [((1, 8), np.float32)])
    with pytest.raises(QuantizationError, match=r"^SIN #0 \('out0'\): LiteRT has no int8 kernel for SIN "
                                                r"\(LiteRT 2.3 runs SIN on float32 only\); keep it float with "
                                                r"keep_float=\['SIN'\]"):
        quantize(sine, np.zeros((2, 1, 8), np.float32), progress=False)
    (tmp_path / "sin.tflite").write_bytes(sine)
    np.save(tmp_path / "calib.npy", np.zeros((2, 1, 8), np.float32))
    assert main(["quantize", str(tmp_path / "sin.tflite"), "--calib", str(tmp_path / "calib.npy"), "-o",
                 str(tmp_path / "q.tflite"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "LiteRT has no int8 kernel for SIN" in err and "Traceback" not in err


def test_float16_mode_says_when_the_weights_were_float16_already(tmp_path, capsys):
    out = tmp_path / "q.tflite"
    assert main(["quantize", str(FACE), "--mode", "float16", "-o", str(out), "--quiet"]) == 0
    assert "has float16 weights already: they are kept as they are" in capsys.readouterr().out
    assert main(["quantize", str(SINE), "--mode", "float16", "-o", str(out), "--quiet"]) == 0
    assert "already" not in capsys.readouterr().out


def test_the_size_line_says_larger_when_the_file_grew(tmp_path, capsys):
    out = tmp_path / "q.tflite"
    np.save(tmp_path / "calib.npy", np.stack(inputs(SINE, 4, 0)))
    assert main(["quantize", str(SINE), "--calib", str(tmp_path / "calib.npy"), "-o", str(out), "--quiet"]) == 0
    grew = out.stat().st_size / SINE.stat().st_size
    assert grew > 1 and f"{100 * (grew - 1):.0f}% larger than {SINE.stat().st_size:,}" in capsys.readouterr().out
