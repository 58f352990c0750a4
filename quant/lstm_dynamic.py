"""The dynamic-range rule for UNIDIRECTIONAL_SEQUENCE_LSTM, as TensorFlow's dynamic-range quantizer writes it
(prepare_quantize_dynamic_range.cc with the op's DynamicRangeQuantizedOpInterface): the gates' input and
recurrent weights (inputs 1-8), the peepholes (9-11) and the projection (16) become symmetric int8 with one
scale each (the op has no per-channel form), biases, layer norm coefficients and the state stay float32, and
the options get asymmetric_quantize_inputs, so that TFLite's hybrid kernel quantizes x and h per batch row
with a zero point. TensorFlow quantizes all of an LSTM's weights or none (it keeps the whole op float when one
weight is under its size threshold); rillet, which applies no size threshold to any op, quantizes them all.
"""

from __future__ import annotations

from rillet.converter.format import ModelFile

from .lstm import LSTM, W_X, X, _input

FLOAT32 = 0
WEIGHT_SLOTS = (*range(W_X, W_X + 11), 16)  # gates' input and recurrent weights, peepholes, projection


def dynamic_weight_slots(model: ModelFile, k: int, op) -> list[int]:
    """The input slots of this LSTM that become int8 in dynamic-range mode; [] when it stays float (weights
    that are not float32 constants, or an input that is not float32)."""
    if model.op_name(op) != LSTM or op.builtin_options is None:
        return []
    sg = model.subgraphs[k]
    x = _input(op, X)
    if x < 0 or sg.tensors[x].type != FLOAT32:
        return []
    slots = [slot for slot in WEIGHT_SLOTS if _input(op, slot) >= 0]
    for slot in slots:
        i = _input(op, slot)
        if sg.tensors[i].type != FLOAT32 or model.tensor_data(k, i) is None:
            return []
    return slots
