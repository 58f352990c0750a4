"""int8 on transformers, through `rillet quantize`, on the small ViT and Whisper files of tests/data/transformers:
the default (which recognises a transformer and keeps its layer norms, softmax, GELU, residual stream and stem
float, quant/auto.py) and the README's flag set for the same split are closer to the float model than every
op int8 (--no-auto, the default before) and than litert-torch's PT2E file beside them (calibrated on the same
4 inputs), in LiteRT; rillet runs what it wrote and gives LiteRT's outputs."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import sqnr_db

from rillet.cli import main
from rillet.converter.format import load
from rillet.runtime import Interpreter

DATA = Path(__file__).resolve().parents[1] / "data" / "transformers"
FLAGS = ("--calibration mse --keep-float ADD --keep-float SUB --keep-float MUL --keep-float MEAN "
         "--keep-float SQUARED_DIFFERENCE --keep-float RSQRT --keep-float SOFTMAX --keep-float GELU "
         "--keep-float CONV_2D")
# bench/make_transformers.py --fixtures calibrates PT2E on 4 inputs, numpy seeds 1-4
CALIBRATION_SEEDS = range(1, 5)


def outputs(path: Path, xs: list[np.ndarray], interpreter_class=LiteRT) -> np.ndarray:
    """The output for each float input (an int8 input quantized first), as float."""
    it = interpreter_class(model_path=str(path))
    it.allocate_tensors()
    i, o = it.get_input_details()[0], it.get_output_details()[0]
    found = []
    for x in xs:
        if i["dtype"] == np.int8:
            scale, zero_point = i["quantization"]
            x = np.clip(np.round(x / scale) + zero_point, -128, 127).astype(np.int8)
        it.set_tensor(i["index"], x)
        it.invoke()
        y = np.array(it.get_tensor(o["index"]), np.float64)
        if o["dtype"] == np.int8:
            scale, zero_point = o["quantization"]
            y = (y - zero_point) * scale
        found.append(y)
    return np.stack(found)


@pytest.mark.parametrize("stem", ["vit_tiny", "whisper_tiny_encoder"])
def test_the_default_and_the_transformer_flags_beat_all_int8_and_pt2e(stem, tmp_path):
    float_path = DATA / f"{stem}_f32.tflite"
    shape = tuple(LiteRT(model_path=str(float_path)).get_input_details()[0]["shape"])

    def normal(seed: int) -> np.ndarray:
        return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)

    np.savez(tmp_path / "calib.npz", x=np.stack([normal(s) for s in CALIBRATION_SEEDS]))
    xs = [normal(100 + k) for k in range(3)]  # held out
    reference = outputs(float_path, xs)
    found = {}
    for name, flags in (("all int8", "--no-auto"), ("default", ""), ("flags", FLAGS)):
        out = tmp_path / f"{name.replace(' ', '_')}.tflite"
        assert main(["quantize", str(float_path), "--calib", str(tmp_path / "calib.npz"), "-o", str(out),
                     "--quiet", *shlex.split(flags)]) == 0
        theirs = outputs(out, xs)
        found[name] = sqnr_db(reference, theirs)
        ours = outputs(out, xs, Interpreter)  # rillet runs what it wrote, with LiteRT's bits
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
    pt2e = sqnr_db(reference, outputs(DATA / f"{stem}_int8.tflite", xs))
    # measured: ViT 41.1 dB default against 26.7 all int8 and PT2E's 32.1; Whisper 70.7, 39.6 and 68.7
    assert found["default"] > found["all int8"] + 10, found
    assert found["default"] > pt2e, (found, pt2e)
    assert found["flags"] > found["all int8"] + 10, found
    assert found["flags"] > pt2e, (found, pt2e)
    # the matrix products stay int8 in the default
    m = load((tmp_path / "default.tflite").read_bytes())
    products = [op for op in m.subgraphs[0].operators if m.op_name(op) in ("FULLY_CONNECTED", "BATCH_MATMUL")]
    assert products and all(m.subgraphs[0].tensors[op.outputs[0]].type == 9 for op in products)


def test_the_default_says_what_it_chose_and_flags_override_it(tmp_path, capsys):
    """The text output and the report's meta name each choice; --keep-float and --calibration stand as given
    (the file is the one --no-auto writes with the same flags); --no-auto writes every op int8."""
    import json

    from rillet.quant import quantize

    path = DATA / "vit_tiny_f32.tflite"
    shape = tuple(LiteRT(model_path=str(path)).get_input_details()[0]["shape"])
    np.savez(tmp_path / "calib.npz", x=np.stack([np.random.default_rng(s).standard_normal(shape).astype(np.float32)
                                                 for s in CALIBRATION_SEEDS]))
    common = ["quantize", str(path), "--calib", str(tmp_path / "calib.npz"), "--quiet"]
    assert main([*common, "-o", str(tmp_path / "d.tflite"), "--report", str(tmp_path / "r.json"),
                 "--html", str(tmp_path / "r.html")]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("auto: ")]
    assert any("layer norms float (" in x for x in lines) and any("calibration mse" in x for x in lines), lines
    assert json.loads((tmp_path / "r.json").read_text())["meta"]["auto"] == [x[len("auto: "):] for x in lines]
    assert (tmp_path / "r.html").read_text().count("<dt>chosen by default</dt>") == len(lines)
    flags = ["--keep-float", "SOFTMAX", "--calibration", "minmax"]
    assert main([*common, "-o", str(tmp_path / "k.tflite"), *flags]) == 0
    assert "as --keep-float says" in capsys.readouterr().out
    assert main([*common, "-o", str(tmp_path / "n.tflite"), "--no-auto", *flags]) == 0
    assert (tmp_path / "k.tflite").read_bytes() == (tmp_path / "n.tflite").read_bytes()
    assert main([*common, "-o", str(tmp_path / "all.tflite"), "--no-auto"]) == 0
    assert "auto: " not in capsys.readouterr().out
    calib = np.load(tmp_path / "calib.npz")["x"]
    assert (tmp_path / "all.tflite").read_bytes() == quantize(path, calib, auto=False, progress=False)
    m = load((tmp_path / "all.tflite").read_bytes())
    assert all(m.subgraphs[0].tensors[op.outputs[0]].type == 9 for op in m.subgraphs[0].operators
               if m.op_name(op) in ("MEAN", "RSQRT", "SOFTMAX", "GELU"))


@pytest.mark.parametrize("stem", ["cnn_small_f32", "mobilenet_v2_035_96_f32"])
def test_the_default_leaves_a_cnn_as_it_was(stem):
    """No attention, no automatic choice: the default's file is --no-auto's, byte for byte."""
    from rillet.quant import quantize
    from rillet.quant.auto import transformer_choice

    path = DATA.parent / "models" / f"{stem}.tflite"
    shape = tuple(LiteRT(model_path=str(path)).get_input_details()[0]["shape"])
    calib = np.stack([np.random.default_rng(s).standard_normal(shape).astype(np.float32) for s in range(1, 3)])
    assert not transformer_choice(load(path.read_bytes()), keep_given=False, calibration_given=False).lines
    assert quantize(path, calib, progress=False) == quantize(path, calib, auto=False, progress=False)


def test_data_movement_after_a_float_op_stays_float():
    """Whisper's stem: CONV_2D and GELU kept float, then TRANSPOSE into the (float) residual ADD. Quantizing
    before the TRANSPOSE would put the residual stream's start at 8 bits: it stays float, and no QUANTIZE
    reads a kept-float op's output only to move it."""
    from rillet.quant import quantize

    path = DATA / "whisper_tiny_encoder_f32.tflite"
    shape = tuple(LiteRT(model_path=str(path)).get_input_details()[0]["shape"])
    calib = np.stack([np.random.default_rng(s).standard_normal(shape).astype(np.float32)
                      for s in CALIBRATION_SEEDS])
    m = load(quantize(path, calib, keep_float=["CONV_2D", "GELU", "ADD"], progress=False))
    sg = m.subgraphs[0]
    producer = {o: op for op in sg.operators for o in op.outputs}
    moves = [op for op in sg.operators if m.op_name(op) == "TRANSPOSE" and op.inputs[0] in producer
             and m.op_name(producer[op.inputs[0]]) == "GELU"]
    assert moves and all(sg.tensors[op.outputs[0]].type == 0 for op in moves)
    assert all(sg.tensors[op.outputs[0]].type == 9 for op in sg.operators
               if m.op_name(op) == "FULLY_CONNECTED")


def test_a_product_of_activations_without_attention_is_no_transformer():
    """A BATCH_MATMUL of two activations and a classifier's SOFTMAX that does not weigh it (no layer norm): no
    choice; the tiny attention block (softmax into the product, a layer norm) is one."""
    from tiny_transformer import block

    from rillet.converter.from_graph import convert
    from rillet.graph import Graph, ops
    from rillet.quant.auto import transformer_choice

    with Graph().as_default():
        x = ops.placeholder([1, 4, 8], name="x")
        gram = ops.batch_matmul(x, x, adj_y=True, name="gram")
        y = ops.softmax(ops.reshape(gram, [1, 16], name="flat"), name="classes")
        content = convert(inputs={"x": x}, outputs={"y": y})
    assert transformer_choice(load(content), keep_given=False, calibration_given=False).lines == []
    lines = transformer_choice(load(block()), keep_given=False, calibration_given=False).lines
    assert lines[0].startswith("transformer: 2 BATCH_MATMUL of two activations (attention), 1 SOFTMAX, 1 layer norm:")
