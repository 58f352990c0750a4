"""`rillet inspect model.tflite [--json]`: signatures, operators, shapes, MACs and totals."""

from __future__ import annotations

import argparse
import json

from .common import WorkError, existing_file


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("inspect", help="describe a .tflite model")
    p.add_argument("model", nargs="?", help="path to a .tflite file (default: the bundled demo model)")
    p.add_argument("--json", action="store_true", help="print the description as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rillet.bundled import bundled_model_path
    from rillet.converter.format import ModelError, load
    from rillet.converter.format.summary import format_summary, summarize

    path = existing_file(args.model, "model") if args.model else bundled_model_path()
    if not args.model and not args.json:
        print(f"model: {path} (bundled with rillet)")
    try:
        summary = summarize(load(path))
    except ModelError as e:
        raise WorkError(f"{path}: {e}") from None
    summary["kernel_path"] = _kernel_path()
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    if not args.json:
        print(f"kernel path on this machine: {summary['kernel_path']} (RILLET_ISA=ref|avx2|avx512|... forces one)")
    return 0


def _kernel_path() -> str:
    from rillet.native import kernel_path

    try:
        return kernel_path()
    except RuntimeError as e:
        return f"unavailable: {e}"
