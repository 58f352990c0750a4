"""Mixed precision by measurement: which op types to keep float so that a quantized model's outputs reach a
target SQNR against the float model over the calibration data. Each round quantizes once per op type still
int8 with that type kept float too, runs it, and keeps the type that raises the outputs' SQNR most."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from rillet.converter.format import load

from .calibrate import allocate_for


def output_values(content: bytes, samples: list[dict[int, np.ndarray]], input_order: list[int],
                  interpreter_class: Callable) -> list[list[np.ndarray]]:
    """Every sample's outputs (float; int8 outputs dequantized), the feeds keyed by the float model's input
    indices and given in `input_order`; int8 inputs quantized with their parameters."""
    it = interpreter_class(model_content=content)
    allocate_for(it, [samples[0][i].shape for i in input_order])
    inputs, outputs = it.get_input_details(), it.get_output_details()
    found = []
    for feed in samples:
        for detail, i in zip(inputs, input_order):
            value = feed[i]
            if detail["dtype"] == np.int8:
                scale, zero_point = detail["quantization"]
                value = np.clip(np.round(value / scale) + zero_point, -128, 127).astype(np.int8)
            it.set_tensor(detail["index"], value)
        it.invoke()
        row = []
        for detail in outputs:
            y = it.get_tensor(detail["index"]).astype(np.float64)
            if detail["dtype"] == np.int8:
                scale, zero_point = detail["quantization"]
                y = (y - zero_point) * scale
            row.append(y)
        found.append(row)
    return found


def outputs_sqnr(reference: list[list[np.ndarray]], approx: list[list[np.ndarray]]) -> float:
    """The worst output's SQNR (dB) over all samples; inf where exact, -inf where it holds inf or NaN."""
    worst = math.inf
    for k in range(len(reference[0])):
        f = np.concatenate([row[k].reshape(-1) for row in reference])
        q = np.concatenate([row[k].reshape(-1) for row in approx])
        finite = np.isfinite(f)
        noise = float(np.sum((f[finite] - q[finite]) ** 2)) if np.isfinite(q[finite]).all() else math.inf
        signal = float(np.sum(f[finite] ** 2))
        db = math.inf if noise == 0 else (10 * math.log10(signal / noise) if signal > 0 and noise < math.inf
                                          else -math.inf)
        worst = min(worst, db)
    return worst


def int8_op_types(content: bytes) -> list[str]:
    """The op types of subgraph 0 that run on int8 tensors in `content` (its QUANTIZE and DEQUANTIZE aside)."""
    model = load(content)
    sg = model.subgraphs[0]
    found = set()
    for op in sg.operators:
        name = model.op_name(op)
        if name not in ("QUANTIZE", "DEQUANTIZE") and any(
                sg.tensors[o].type == 9 for o in op.outputs or [] if o >= 0):
            found.add(name)
    return sorted(found)


MIN_GAIN_DB = 0.1  # a type kept float must buy this much: less is noise, and costs the type's int8 speed
WEIGHT_OPS = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "TRANSPOSE_CONV", "UNIDIRECTIONAL_SEQUENCE_LSTM"}


def keep_float_for(target_db: float, build: Callable[[list[str]], bytes], measure: Callable[[bytes], float],
                   keep: list[str], note: Callable[[str], None]) -> list[str]:
    """Greedy over op types: the keep_float list (starting from `keep`) whose file `build` gives outputs at
    `target_db` or better by `measure`; each type added is told to `note`, with the dB it bought. Types with
    weights (WEIGHT_OPS) are tried only in a round where no other type raises the outputs."""
    keep = list(keep)
    content = build(keep)
    current = measure(content)
    while current < target_db:
        best, best_db, best_content = None, current, content
        types = int8_op_types(content)
        # the ops with weights last: kept float, they keep their float weights, the bulk of the model
        for tier in ([t for t in types if t not in WEIGHT_OPS], [t for t in types if t in WEIGHT_OPS]):
            for name in tier:
                trial = build(keep + [name])
                db = measure(trial)
                if db >= best_db + MIN_GAIN_DB or (best is not None and db > best_db):
                    best, best_db, best_content = name, db, trial
            if best is not None:
                break
        if best is None:
            note(f"min_sqnr {target_db:g} dB not reached: the outputs are at {current:.1f} dB, and keeping any "
                 f"more op type float raises them by less than {MIN_GAIN_DB:g} dB")
            break
        note(f"{best} kept float (min_sqnr {target_db:g} dB): the outputs went from {current:.1f} to "
             f"{best_db:.1f} dB")
        keep.append(best)
        current, content = best_db, best_content
    return keep
