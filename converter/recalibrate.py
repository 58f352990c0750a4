"""A fine-tuned int8 model quantized again from data the user passes (`export_model(..., calibration=...)`).

Keeping the original's scales (export_model's default) is exact to what `infer` computed while training, but
a fine-tuned layer's weights and activations may have moved past the ranges the original was calibrated on
(a new class's logits, a camera's new lighting). Recalibrating takes the exported int8 model as the float
model it stands for (float_copy: every weight dequantized with its scales, the trained ones included) and
quantizes that again with rillet's quantizer over the user's samples: fresh per-channel weight scales and
activation ranges throughout, the inputs and outputs of the original's types.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .float_copy import float_copy
from .format import ModelFile, load, save
from .frozen_copy import builtin_code, is_quantized


def recalibrated(content: bytes, calibration_data: Any) -> bytes:
    """`content` (an exported int8 .tflite, one subgraph and its signature) quantized again to int8 over
    `calibration_data`: an array (samples on axis 0) for a one-input model or a dict of arrays by signature
    input name, as the int8 model takes them (int8 inputs are read as the values their scales give)."""
    m = load(content)
    if len(m.subgraphs) != 1 or not m.signature_defs:
        raise ValueError("recalibration takes a model of one subgraph with a signature (what export_model writes)")
    sg = m.subgraphs[0]
    if not any(is_quantized(t) for t in sg.tensors):
        raise ValueError("the model is not quantized: there is nothing to recalibrate (export it without calibration)")
    inputs = {tm.name: sg.tensors[tm.tensor_index] for tm in m.signature_defs[0].inputs}
    kinds = {t.dtype for t in inputs.values()}
    if kinds == {np.dtype(np.int8)}:
        io = "int8"
    elif kinds == {np.dtype(np.float32)}:
        io = "float"
    else:
        raise ValueError(f"recalibration writes int8 or float inputs; the model's are {sorted(map(str, kinds))}")
    data = calibration_data if isinstance(calibration_data, dict) else {next(iter(inputs)): calibration_data}
    if set(data) != set(inputs):
        raise ValueError(f"calibration data for inputs {sorted(data)}; the model takes {sorted(inputs)}")
    samples = {}
    for name, t in inputs.items():
        values = np.asarray(data[name])
        if io == "int8":  # the float model reads the real values the int8 ones stand for
            q = t.quantization
            values = (values.astype(np.float32) - np.float32(q.zero_point[0] if q.zero_point else 0)) * np.float32(q.scale[0])
        samples[name] = values.astype(np.float32)
    float_model = save(float_copy(m))
    from rillet.quant import quantize  # the quantizer's calibration runs only here

    again = quantize(float_model, samples, io="float", progress=False)
    return save(_original_edges(load(again), m)) if io == "int8" else again


def _original_edges(q: ModelFile, original: ModelFile) -> ModelFile:
    """`q` (quantized with float inputs and outputs) taking and giving int8 at the original's scales: each
    input's QUANTIZE reads the int8 input instead (int8 -> int8 requantizes to the calibrated scale), each
    output's DEQUANTIZE becomes a QUANTIZE to the original output's scale. A device's data pipeline feeds
    the recalibrated model as it fed the original."""
    sg, old = q.subgraphs[0], original.subgraphs[0]
    sg.tensors = list(sg.tensors)
    quantize_code = builtin_code(q.operator_codes, "QUANTIZE")
    made_by = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or []}
    old_io = {tm.name: tm.tensor_index for sd in original.signature_defs[:1] for tm in [*sd.inputs, *sd.outputs]}
    for tm in [*q.signature_defs[0].inputs, *q.signature_defs[0].outputs]:
        like = old.tensors[old_io[tm.name]]
        i = tm.tensor_index
        sg.tensors[i] = dataclasses.replace(sg.tensors[i], type=like.type, quantization=like.quantization)
        if i in made_by and q.op_name(sg.operators[made_by[i]]) == "DEQUANTIZE":
            sg.operators[made_by[i]] = dataclasses.replace(sg.operators[made_by[i]], opcode_index=quantize_code)
        elif i in made_by:
            raise ValueError(f"output {tm.name!r} is computed in float after recalibration: it cannot be int8")
    return q
