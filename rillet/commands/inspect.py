"""`rillet inspect model.tflite [--json]`: signatures, operators, shapes, MACs and totals."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("inspect", help="describe a .tflite model")
    p.add_argument("model", nargs="?", help="path to a .tflite file (default: the bundled demo model)")
    p.add_argument("--json", action="store_true", help="print the description as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rillet.bundled import bundled_model_path
    from rillet.converter.format import load
    from rillet.converter.format.summary import format_summary, summarize

    path = args.model or bundled_model_path()
    if not args.model and not args.json:
        print(f"model: {path} (bundled with rillet)")
    summary = summarize(load(path))
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0
