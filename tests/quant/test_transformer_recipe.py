"""The int8 flag set the README gives for transformers (PT2E's split: the residual stream, layer norms and
softmax float, int8 around the matrix products), through `rillet quantize`, on the small ViT and Whisper files
of tests/data/transformers: closer to the float model than the all-int8 default and than litert-torch's PT2E
file beside them (calibrated on the same 4 inputs), in LiteRT, and rillet runs what it wrote."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import sqnr_db

from rillet.cli import main
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
def test_the_transformer_flags_beat_all_int8_and_pt2e(stem, tmp_path):
    float_path = DATA / f"{stem}_f32.tflite"
    shape = tuple(LiteRT(model_path=str(float_path)).get_input_details()[0]["shape"])

    def normal(seed: int) -> np.ndarray:
        return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)

    np.savez(tmp_path / "calib.npz", x=np.stack([normal(s) for s in CALIBRATION_SEEDS]))
    xs = [normal(100 + k) for k in range(3)]  # held out
    reference = outputs(float_path, xs)
    found = {}
    for name, flags in (("default", ""), ("flags", FLAGS)):
        out = tmp_path / f"{name}.tflite"
        assert main(["quantize", str(float_path), "--calib", str(tmp_path / "calib.npz"), "-o", str(out),
                     "--quiet", *shlex.split(flags)]) == 0
        found[name] = sqnr_db(reference, outputs(out, xs))
        ours = outputs(out, xs, Interpreter)  # rillet runs what it wrote
        assert sqnr_db(reference, ours) > found[name] - 1
    pt2e = sqnr_db(reference, outputs(DATA / f"{stem}_int8.tflite", xs))
    assert found["flags"] > found["default"] + 3, found
    assert found["flags"] > pt2e, (found, pt2e)


def test_data_movement_after_a_float_op_stays_float():
    """Whisper's stem: CONV_2D and GELU kept float, then TRANSPOSE into the (float) residual ADD. Quantizing
    before the TRANSPOSE would put the residual stream's start at 8 bits: it stays float, and no QUANTIZE
    reads a kept-float op's output only to move it."""
    from rillet.converter.format import load
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
