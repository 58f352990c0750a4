"""Post-training quantization of float .tflite models: full-integer int8 (calibrated), TFLite's 16x8 (int16
activations, int8 weights), dynamic-range (int8 weights) and float16 weights, following TFLite's
quantization spec, with a per-layer report."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from rillet.converter.dense_weights import expand_weights, has_packed_weights
from rillet.converter.format import ModelFile, load, save

from .auto import transformer_choice
from .calibrate import CalibrationError, collect, feeds, model_inputs
from .lstm import add_intermediates, lstm_ops
from .precision import keep_float_for, output_values, outputs_sqnr
from .ranges import METHODS, choose_range, method_for
from .rewrite import (
    INT8,
    INT16,
    QuantizationError,
    plan_int8_subgraphs,
    rewrite_dynamic_range,
    rewrite_float16,
    rewrite_int8,
    wide_softmaxes,
)
from .subgraphs import fold_constant_if_operands, split_shared_constants
from .verify import rillet_refusal

MODES = ("int8", "int16x8", "dynamic", "float16")
"""What `quantize(mode=...)` takes: "int8" (full-integer, calibrated), "int16x8" (TFLite's 16x8: int16
activations, int8 weights, int64 biases; calibrated), "dynamic" (int8 weights, float activations) and "float16"
(float16 weights)."""
CALIBRATED = ("int8", "int16x8")  # the modes that calibrate activation ranges
# TensorTypes that hold quantized values where a tensor has a scale.
QUANTIZED_TYPES = {9: "int8", 3: "uint8", 7: "int16"}

__all__ = ["METHODS", "MODES", "CalibrationError", "QuantizationError", "QuantizationWarning", "already_quantized",
           "quantize", "quantize_with_report"]


class QuantizationWarning(UserWarning):
    """An op the quantizer kept float on its own (rillet's runtime refused its int8 form); names the op."""


def default_interpreter() -> Callable:
    from rillet.runtime import Interpreter

    return Interpreter


def _model_bytes(model: Any) -> bytes:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if isinstance(model, (str, os.PathLike)):
        with open(model, "rb") as f:
            return f.read()
    if isinstance(model, ModelFile):
        return save(model)
    from rillet.converter.from_graph import convert  # a rillet graph Model (or inputs/outputs pair)

    return convert(model)


def already_quantized(model: ModelFile) -> str:
    """What shows `model` is quantized already ("12 int8 tensors"), or "" for a float model. Float16 (and
    sparse) weights do not count: they stand for float32 values exactly, and quantize from those."""
    found: dict[str, int] = {}
    for sg in model.subgraphs:
        for t in sg.tensors:
            q = t.quantization
            if t.type in QUANTIZED_TYPES and q is not None and q.scale is not None and len(q.scale):
                found[QUANTIZED_TYPES[t.type]] = found.get(QUANTIZED_TYPES[t.type], 0) + 1
    return ", ".join(f"{n} {kind} tensor{'s' if n != 1 else ''}" for kind, n in found.items())


def quantize(model: Any, calibration_data: Any = None, *, mode: str = "int8", io: str = "float",
             per_channel: bool = True, calibration: str | None = None, percentile: float = 99.99,
             keep_float: list[str] | None = None, interpreter_class: Callable | None = None,
             progress: bool = True, min_sqnr: float | None = None,
             int16_ops: Iterable[str] | None = None, auto: bool = True) -> bytes:
    """Quantize a float model (.tflite bytes or path, a ModelFile, or a rillet graph Model) and return the
    .tflite bytes.

    mode: "int8" (full integer; needs `calibration_data`), "int16x8" (TFLite's 16x8: int16 activations with
    zero point 0, int8 per-channel weights, int64 biases; calibrated too; ops without an int16 kernel stay
    float between DEQUANTIZE and QUANTIZE), "dynamic" (int8 weights, float activations),
    "float16" (float16 weights). int8 and dynamic quantize float16 and sparse weights from the float32
    values they stand for; float16 keeps them as they are. io: "float" (QUANTIZE / DEQUANTIZE at the
    edges) or "int8" inputs and outputs. calibration: "minmax", "percentile" (at `percentile`), "mse" or "auto";
    None: minmax, or what `auto` chooses. keep_float: op types (SOFTMAX), op indices ("12") or output tensor
    names whose ops stay float. auto (int8): in a transformer (attention beside a softmax or layer norm) keep
    the layer norms, softmax, GELU, residual stream and stem float and calibrate by mse (quant/auto.py);
    a keep_float or calibration given overrides that choice. Other models are not affected.
    calibration_data: a numpy array (samples on axis 0), an .npz path or dict keyed by input name, or any
    iterable of inputs. min_sqnr: see quantize_with_report. An op whose int8 form rillet's runtime refuses
    stays float, named in a QuantizationWarning.
    """
    return quantize_with_report(model, calibration_data, mode=mode, io=io, per_channel=per_channel,
                                calibration=calibration, percentile=percentile, keep_float=keep_float,
                                interpreter_class=interpreter_class, progress=progress, min_sqnr=min_sqnr,
                                int16_ops=int16_ops, auto=auto)[0]


def quantize_with_report(model: Any, calibration_data: Any = None, *, mode: str = "int8", io: str = "float",
                         per_channel: bool = True, calibration: str | None = None, percentile: float = 99.99,
                         keep_float: list[str] | None = None, interpreter_class: Callable | None = None,
                         progress: bool = True, report: bool = False,
                         min_sqnr: float | None = None,
                         int16_ops: Iterable[str] | None = None, auto: bool = True) -> tuple[bytes, Any]:
    """`quantize`, and with report=True also the per-layer report (rillet.quant.report.Report) over the
    calibration data; the report runs the int8 model with `interpreter_class` too. min_sqnr (int8): keep op
    types float, one at a time, the one that raises the outputs' SQNR against the float model over the
    calibration data most (quant/precision.py), until it reaches min_sqnr dB; each is named in a warning.

    int16_ops (int16x8): the op types that run int16. By default those of TFLite's 16x8 ops that rillet's
    runtime runs on int16, and the file is checked in rillet as every mode's is. Naming them writes the file
    for LiteRT alone (measuring its 16x8 kernels, deploying to it): rillet's check is skipped.

    The report's meta["auto"] holds one line per choice `auto` made (empty where it chose nothing)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: choose one of {', '.join(MODES)}")
    if io not in ("float", "int8"):
        raise ValueError(f"io {io!r}: choose 'float' or 'int8'")
    if mode == "int16x8" and io != "float":
        raise ValueError("io 'int8' with mode 'int16x8': a 16x8 model keeps float inputs and outputs")
    if min_sqnr is not None and mode != "int8":
        raise ValueError(f"min_sqnr chooses which ops of an int8 model stay float; mode {mode!r} has none to "
                         "choose")
    if calibration is not None and calibration not in METHODS:
        raise ValueError(f"calibration {calibration!r}: choose one of {', '.join(METHODS)}")
    source = _model_bytes(model)
    float_model = load(source)
    quantized = already_quantized(float_model)
    if quantized:
        raise QuantizationError(f"the model is quantized already ({quantized}): quantize the float model it came "
                                "from")
    # float16 or sparse weights: int8 and dynamic quantize their float32 values; float16 mode keeps them as
    # they are (already float16, or smaller sparse) and stores the float32 constants as float16.
    if mode != "float16" and has_packed_weights(float_model):
        float_model = expand_weights(float_model)
        source = save(float_model)
    # an IF's constant operands become its branches' constants: weights the int8 and dynamic rules quantize
    if mode != "float16" and len(float_model.subgraphs) > 1:
        float_model = fold_constant_if_operands(float_model)
        source = save(float_model)
    if mode in CALIBRATED:  # a small constant several quantized ops read: one tensor (its own parameters) each
        split = split_shared_constants(float_model)
        if split is not float_model:
            float_model = split
            source = save(float_model)
    # an LSTM gets the intermediates TFLite's integer LSTM reads its gates' scales from, to calibrate into
    if mode == "int8" and any(lstm_ops(float_model, k) for k in range(len(float_model.subgraphs))):
        float_model = add_intermediates(float_model)
        source = save(float_model)
    # int8's own choices for a transformer (quant/auto.py); a keep_float or calibration given stands
    choice = transformer_choice(float_model, keep_given=keep_float is not None,
                                calibration_given=calibration is not None) if auto and mode == "int8" else None
    auto_lines = choice.lines if choice else []
    calibration = calibration or (choice.calibration if choice else None) or "minmax"
    interpreter_class = interpreter_class or default_interpreter()
    samples = None
    if mode in CALIBRATED or report:
        if calibration_data is None:
            raise CalibrationError("int8 quantization needs calibration_data (a few hundred representative inputs "
                                   "is typical)")
        samples = feeds(calibration_data, float_model)
        if not samples:
            raise CalibrationError("calibration data holds no samples")
    ranges = finite = None
    if mode in CALIBRATED:
        stats = collect(source, float_model, samples, interpreter_class, histograms=calibration != "minmax",
                        show_progress=progress)
        ranges = {k: {i: choose_range(s, method_for(calibration, float_model, k, i), percentile)
                      for i, s in sorted(sg_stats.items())} for k, sg_stats in stats.items()}
        finite = {k: {i: (s.finite_lo, s.finite_hi) for i, s in sg_stats.items()} for k, sg_stats in stats.items()}

    planned: dict[str, None] = {}  # what the planner kept float on its own, in order, once

    def rewrite(keep: list[str] | None) -> bytes:
        if mode in CALIBRATED:
            plans = plan_int8_subgraphs(float_model, ranges, keep, int8_inputs=io == "int8",
                                        int8_outputs=io == "int8", finite_ranges=finite,
                                        activation=INT16 if mode == "int16x8" else INT8,
                                        int16_ops=None if int16_ops is None else frozenset(int16_ops))
            planned.update(dict.fromkeys(note for plan in plans for note in plan.notes))
            return save(rewrite_int8(float_model, plans, int8_inputs=io == "int8", int8_outputs=io == "int8",
                                     per_channel=per_channel))
        if mode == "dynamic":
            return save(rewrite_dynamic_range(float_model, per_channel=per_channel, keep_float=keep))
        return save(rewrite_float16(float_model))

    # No file rillet cannot run: an op whose int8 (or hybrid) form rillet's runtime refuses stays float, named
    # in a warning; a refusal no op explains (or a float16 file) is an error.
    shapes = [samples[0][spec.index].shape for spec in model_inputs(float_model)] if samples else None
    refused: dict[str, str] = {}  # op index -> what rillet said; such an op stays float in every later try

    def runnable(keep: list[str]) -> bytes:
        while True:
            data = rewrite(keep + [j for j in refused if j not in keep] or None)
            if int16_ops is not None and mode == "int16x8":  # a file for LiteRT, asked for by name
                return data
            refusal = rillet_refusal(data, float_model, shapes, source)
            if refusal is None:
                return data
            if mode == "float16" or refusal.keep is None or refusal.keep in keep or refusal.keep in refused:
                raise QuantizationError(f"rillet's runtime cannot run the {mode} file: {refusal.message}")
            refused[refusal.keep] = (f"{refusal.label} kept float: rillet's runtime refused its {mode} form "
                                     f"({refusal.message})")

    keep, notes = list(keep_float if keep_float is not None else choice.keep if choice else []), []
    if mode == "int8":
        for entry, why in wide_softmaxes(float_model):
            if entry not in keep and "SOFTMAX" not in keep:
                keep.append(entry)
                notes.append(why)
    if min_sqnr is not None and mode == "int8":
        order = list(float_model.subgraphs[0].inputs)
        reference = output_values(source, samples, order, interpreter_class)
        keep = keep_float_for(min_sqnr, runnable, lambda content: outputs_sqnr(
            reference, output_values(content, samples, order, interpreter_class)), keep, notes.append)
    data = runnable(keep)
    for text in list(planned) + list(refused.values()) + notes:
        warnings.warn(text, QuantizationWarning, stacklevel=3)
    layer_report = None
    if report:
        from .report import compare

        layer_report = compare(source, data, samples, interpreter_class=interpreter_class, show_progress=progress)
        layer_report.meta["options"] = {"mode": mode, "io": io, "per_channel": per_channel, "calibration": calibration,
                                        "percentile": percentile, "keep_float": list(keep_float or []),
                                        "min_sqnr": min_sqnr, "auto": auto}
        layer_report.meta["auto"] = auto_lines
    return data, layer_report
