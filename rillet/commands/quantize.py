"""`rillet quantize model.tflite --calib data.npz -o model_int8.tflite [--report report.json]`: post-training
quantization of a float .tflite, with a per-layer report of the error it adds."""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from .common import UsageError, WorkError, existing_file, load_arrays, output_file, quiet_litert, write_file

if TYPE_CHECKING:
    from rillet.converter.format import ModelFile


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("quantize", help="quantize a float .tflite to int8 (or int8/float16 weights)",
        description=("Post-training quantization of a float .tflite (rillet's, TensorFlow's or "
                     "litert-torch's) following TFLite's quantization spec. --mode int8 (the "
                     "default) calibrates every activation's range on the --calib inputs and writes "
                     "a full-integer model; dynamic stores int8 weights and keeps float inputs and "
                     "outputs; float16 stores float16 weights. An op whose int8 form rillet's "
                     "runtime refuses stays float, and is named. The report table ranks the layers "
                     "by the error they add, against the float model on the calibration inputs: "
                     "`SQNR dB` is the layer's output's signal-to-quantization-noise ratio (10 log10"
                     " of the float output's power over the error's power: higher is better, each 6 "
                     "dB about one bit), `in dB` the worst SQNR among its inputs, and `added` how "
                     "many dB the layer itself loses (in dB minus SQNR dB)."))
    p.add_argument("model", help="the float .tflite file")
    p.add_argument("-o", "--output", required=True, help="the quantized .tflite file to write")
    p.add_argument("--calib", help="calibration inputs: an .npz (arrays keyed by input name, samples on axis 0) "
                                   "or an .npy array")
    p.add_argument("--mode", choices=["int8", "int16x8", "dynamic", "float16"], default="int8",
                   help="int8: full integer (default); int16x8: TFLite's 16x8, int16 activations and int8 "
                        "weights (ops rillet runs only in float stay float); dynamic: int8 weights only; "
                        "float16: float16 weights")
    p.add_argument("--io", choices=["float", "int8"], default="float", help="type of the model's inputs and outputs")
    p.add_argument("--per-tensor", action="store_true", help="one weight scale per tensor, not per channel")
    p.add_argument("--calibration", choices=["minmax", "percentile", "mse", "auto"],
                   help="how activation ranges are chosen from the calibration data (default: minmax, mse in a "
                        "transformer; auto: min/max for the inputs of softmax and max-like ops, mse elsewhere)")
    p.add_argument("--percentile", type=float, help="for --calibration percentile: 0 < P <= 100 (default 99.99)")
    p.add_argument("--keep-float", action="append", default=[], metavar="NAME",
                   help="an op type (SOFTMAX), op index, or output tensor name whose op stays float (repeatable); "
                        "in --mode dynamic, whose weights stay float32")
    p.add_argument("--no-auto", action="store_true",
                   help="int8: quantize a transformer as any model (by default its layer norms, softmax, GELU, "
                        "residual stream and stem stay float and ranges come from mse; the output says which; "
                        "--keep-float and --calibration override those choices)")
    p.add_argument("--min-sqnr", type=float, metavar="DB",
                   help="int8: keep op types float, the one that helps most first, until the outputs' SQNR against "
                        "the float model over the calibration data reaches DB dB")
    p.add_argument("--report", metavar="REPORT.json", help="write the per-tensor error report as JSON")
    p.add_argument("--html", metavar="REPORT.html", help="write the report as HTML with a per-layer SQNR chart")
    p.add_argument("--executor", choices=["rillet", "litert"], default="rillet",
                   help="the interpreter that runs the models for calibration and the report")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the result (and the per-layer report) as JSON")
    p.set_defaults(func=run)


def _calibration_data(path: str | None):
    return None if path is None else load_arrays(path, "calibration file")


FLOAT16 = 1  # TensorType
CALIBRATED = ("int8", "int16x8")  # the modes that calibrate activation ranges


def float16_weights(model: ModelFile) -> bool:
    """Whether `model` stores constants as float16 (TensorFlow's float16 quantization)."""
    return any(t.type == FLOAT16 and t.buffer and model.buffers[t.buffer].data is not None
               for sg in model.subgraphs for t in sg.tensors)


def check_flags(args: argparse.Namespace) -> None:
    """Refuses flags the mode would ignore (UsageError, exit 2): a quiet no-op is a model that is not what the
    command line says. float16 and dynamic modes keep float inputs and outputs (only int8 mode rewrites the
    model's edges); float16 has no weight scales and no activation ranges; only int8 mode calibrates ranges."""
    if args.io == "int8" and args.mode != "int8":
        raise UsageError(f"--io int8 needs --mode int8: --mode {args.mode} keeps float32 inputs and outputs "
                         "(leave --io out)")
    if args.percentile is not None and not 0 < args.percentile <= 100:
        raise UsageError(f"--percentile {args.percentile:g}: must be above 0 and at most 100 (e.g. 99.99)")
    if args.percentile is not None and args.calibration != "percentile":
        raise UsageError(f"--percentile applies to --calibration percentile, not {args.calibration or 'minmax'}: add "
                         "--calibration percentile or leave --percentile out")
    if args.mode == "float16" and args.per_tensor:
        raise UsageError("--per-tensor: --mode float16 stores weights as float16 with no scales (int8 and dynamic "
                         "modes only)")
    if args.mode not in CALIBRATED and args.calibration is not None:
        raise UsageError(f"--calibration {args.calibration}: --mode {args.mode} calibrates no activation ranges "
                         "(--mode int8 and int16x8 only)")
    if args.mode == "float16" and args.keep_float:
        raise UsageError("--keep-float: --mode float16 stores every float32 constant as float16 (int8 and dynamic "
                         "modes only)")
    if args.min_sqnr is not None and args.mode != "int8":
        raise UsageError(f"--min-sqnr chooses which ops of a --mode int8 model stay float; --mode {args.mode} has no int8 ops to choose (leave --min-sqnr out)")
    if args.no_auto and args.mode != "int8":
        raise UsageError(f"--no-auto: --mode {args.mode} makes no automatic choices (--mode int8 only)")
    if args.percentile is None:
        args.percentile = 99.99


def run(args: argparse.Namespace) -> int:
    from rillet.converter.format import ModelError, load
    from rillet.quant import (
        CalibrationError,
        QuantizationError,
        QuantizationWarning,
        already_quantized,
        quantize_with_report,
    )
    from rillet.quant.auto import transformer_choice

    # --calib in dynamic or float16 mode is only for the report: asking for it asks for the report
    want_report = bool(args.report or args.html or
                       (args.calib and (args.json or args.mode not in CALIBRATED)))
    check_flags(args)
    if args.mode in CALIBRATED and args.calib is None:
        raise UsageError(f"--mode {args.mode} needs --calib data.npz (representative inputs)")
    if want_report and args.calib is None:
        raise UsageError("--report needs --calib data.npz")
    existing_file(args.model, "model")
    if args.calib is not None:
        existing_file(args.calib, "calibration file")
    for path, what in ((args.output, "output"), (args.report, "report"), (args.html, "report")):
        if path:
            output_file(path, what)
    interpreter_class = None
    if args.executor == "litert":
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError:
            raise WorkError("--executor litert needs ai-edge-litert (pip install ai-edge-litert)") from None
        interpreter_class = quiet_litert(Interpreter)
    try:
        model = load(args.model)
    except ModelError as e:
        raise WorkError(f"{args.model}: {e}") from None
    quantized = already_quantized(model)
    if quantized:
        raise WorkError(f"{args.model} is quantized already ({quantized}): quantize the float model it came from")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", QuantizationWarning)
            # LiteRT's note on preserve_all_tensors (calibration and the report ask for them) is not the user's
            # concern; outside this block the CLI silences it with LiteRT's own logging (quiet_litert)
            warnings.filterwarnings("ignore", message=".*experimental_preserve_all_tensors")
            data, report = quantize_with_report(
                args.model, _calibration_data(args.calib), mode=args.mode, io=args.io,
                per_channel=not args.per_tensor, calibration=args.calibration, percentile=args.percentile,
                keep_float=args.keep_float or None, interpreter_class=interpreter_class, progress=not args.quiet,
                report=want_report, min_sqnr=args.min_sqnr, auto=not args.no_auto)
    except (CalibrationError, QuantizationError, ValueError, RuntimeError) as e:  # and an op the runtime refuses
        raise WorkError(f"{args.model}: {e}") from None
    notes = [str(w.message) for w in caught if issubclass(w.category, QuantizationWarning)]
    chosen = [] if args.mode != "int8" or args.no_auto else transformer_choice(
        model, keep_given=bool(args.keep_float), calibration_given=args.calibration is not None).lines
    for w in caught:
        if not issubclass(w.category, QuantizationWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    write_file(args.output, data)
    before = Path(args.model).stat().st_size
    if report is not None:
        report.meta.update({"model": args.model, "output": args.output, "calibration_file": args.calib})
        report.meta.setdefault("options", {})["executor"] = args.executor
        if args.report:
            write_file(args.report, report.to_json(), "report")
        if args.html:
            write_file(args.html, report.to_html(), "report")
    if args.json:
        print(json.dumps({"model": args.model, "output": args.output, "model_bytes": before, "output_bytes": len(data),
                          "mode": args.mode, "io": args.io, "kept_float": notes, "auto": chosen,
                          "report": report.to_dict() if report is not None else None}, indent=2))
        return 0
    # A file can grow: a tiny model gains QUANTIZE ops and scales, a sparse one comes out dense.
    ratio = (f"{before / max(len(data), 1):.1f}x smaller than" if len(data) <= before
             else f"{100 * (len(data) - before) / max(before, 1):.0f}% larger than")
    print(f"wrote {args.output} ({len(data):,} bytes, {ratio} {before:,}): {args.mode}, {args.io} inputs and "
          "outputs")
    for line in chosen:
        print(f"auto: {line}")
    for note in notes:
        print(note)
    if args.mode == "float16" and float16_weights(model):
        print(f"{args.model} has float16 weights already: they are kept as they are; only its float32 constants "
              "became float16")
    if report is not None:
        print(report.table())
        for written in (args.report, args.html):
            if written:
                print(f"wrote {written}")
    return 0
