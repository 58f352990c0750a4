"""keep_float in dynamic-range mode (it was ignored there): the ops it names keep float32 weights, the other
hybrid ops get int8 ones, and LiteRT and rillet give the same bits on the file. Hybrid DEPTHWISE_CONV_2D is
where dynamic-range error gathers on real models: TFLite's hybrid depthwise quantizes its whole input with
one scale, and each output channel reads only its own input channel, so a channel whose values are small
next to the tensor's largest keeps few steps (BirdNET's first depthwise alone: 21 dB against the float
model; keeping every depthwise float, 23 -> 31 dB for 1.3% more bytes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from quantcheck import run as run_model
from quantcheck import sqnr_db

from rillet.converter.format import load
from rillet.quant import QuantizationError, quantize

pytest.importorskip("ai_edge_litert")

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
FACE = REAL / "face_detection_short_range.tflite"  # float16 weights, expanded to float32 first
HAND = REAL / "hand_recrop.tflite"
FLOAT32, INT8 = 0, 9


def weight_types(data: bytes) -> dict[str, set[int]]:
    model = load(data)
    sg = model.subgraphs[0]
    found: dict[str, set[int]] = {}
    for op in sg.operators:
        name = model.op_name(op)
        if name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            found.setdefault(name, set()).add(sg.tensors[op.inputs[1]].type)
    return found


def test_keep_float_names_the_ops_that_stay_float_in_dynamic_mode():
    from rillet.runtime import Interpreter

    data = quantize(FACE.read_bytes(), mode="dynamic", keep_float=["DEPTHWISE_CONV_2D"], progress=False)
    assert weight_types(data) == {"CONV_2D": {INT8}, "DEPTHWISE_CONV_2D": {FLOAT32}}
    xs = [np.random.default_rng(5).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32)]
    expected = run_model(data, xs, dequantize=False)
    got = run_model(data, xs, Interpreter, dequantize=False)
    assert np.array_equal(got, expected)
    assert sqnr_db(run_model(FACE.read_bytes(), xs), expected) > 15


def test_an_op_index_or_output_name_keeps_one_op_float():
    """hand_recrop (float32 weights, so its op indices are the file's): op 0 by index, op 2 by its output."""
    content = HAND.read_bytes()
    output_name = load(content).subgraphs[0].tensors[load(content).subgraphs[0].operators[2].outputs[0]].name
    data = quantize(content, mode="dynamic", keep_float=["0", output_name], progress=False)
    sg = load(data).subgraphs[0]
    types = [sg.tensors[op.inputs[1]].type for op in sg.operators[:5]]
    assert types[0] == FLOAT32 and types[2] == FLOAT32 and types[4] == INT8  # ops 1 and 3 are PRELU


def test_an_unknown_name_is_refused_in_dynamic_mode():
    with pytest.raises(QuantizationError, match="keep_float: \\['NO_SUCH_OP'\\] name no op type"):
        quantize(FACE.read_bytes(), mode="dynamic", keep_float=["NO_SUCH_OP"], progress=False)
