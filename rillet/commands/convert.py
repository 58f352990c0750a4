"""`rillet convert builder.py:make_model -o model.tflite [--weights ckpt.npz]`: a graph to a .tflite file."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from .common import UsageError, WorkError, existing_file, load_arrays, output_file, write_file


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("convert", help="convert a model built by a Python function to .tflite",
        description=("Imports FILE.py, calls FUNCTION (no arguments) and converts the rillet Model "
                     "it returns (or its pair of name -> tensor dicts, inputs and outputs) to a "
                     ".tflite file with an `infer` signature: constants folded, activations fused, "
                     "dead nodes dropped. --weights loads trained variable values first. The file "
                     "runs in rillet's runtime and in LiteRT."))
    p.add_argument("builder", help="FILE.py:FUNCTION, a function returning a rillet Model "
                                   "(or a pair of name -> tensor dicts: inputs, outputs)")
    p.add_argument("-o", "--output", required=True, help="the .tflite file to write")
    p.add_argument("--weights", help="a checkpoint (.npz keyed by variable name) to load before converting")
    p.set_defaults(func=run)


def load_builder(spec: str) -> Any:
    path, _, function = spec.rpartition(":")
    if not path or not function:
        raise UsageError(f"builder {spec!r} must be FILE.py:FUNCTION")
    file = Path(existing_file(path, "builder"))
    module_spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(file.parent.resolve()))  # the builder may import its neighbours
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - whatever the user's file raises, named in one line
        raise WorkError(f"{file}: {type(e).__name__}: {e}") from None
    finally:
        sys.path.pop(0)
    if not hasattr(module, function):
        raise UsageError(f"{file} has no function {function!r}")
    if not callable(getattr(module, function)):
        raise UsageError(f"{file}: {function!r} is {type(getattr(module, function)).__name__}, not a function")
    return getattr(module, function)


def load_weights(graph: Any, path: str, checkpoint: dict[str, Any] | None = None) -> int:
    """Loads the checkpoint at `path` (or its arrays, read already) into `graph`'s variables."""
    checkpoint = load_arrays(path, "checkpoint", "npz") if checkpoint is None else checkpoint
    missing = sorted(set(graph.variables) - set(checkpoint))
    unknown = sorted(set(checkpoint) - set(graph.variables))
    if missing or unknown:
        raise WorkError(f"checkpoint {path} does not match the model's variables "
                        f"(missing: {missing or 'none'}, unknown: {unknown or 'none'})")
    for name, value in checkpoint.items():
        graph.variables[name].load(value)
    return len(checkpoint)


def run(args: argparse.Namespace) -> int:
    from rillet.converter.from_graph import convert, endpoints

    checkpoint = load_arrays(args.weights, "checkpoint", "npz") if args.weights else None  # before the build
    output_file(args.output)
    builder = load_builder(args.builder)
    try:
        inputs, outputs = endpoints(builder())
    except Exception as e:  # noqa: BLE001 - the user's builder failed: one line naming it
        raise WorkError(f"{args.builder}: {type(e).__name__}: {e}") from None
    graph = next(iter(inputs.values())).graph
    if args.weights:
        count = load_weights(graph, args.weights, checkpoint)
        print(f"loaded {count} variables from {args.weights}")
    data = convert(inputs=inputs, outputs=outputs)
    write_file(args.output, data)
    print(f"wrote {args.output} ({len(data):,} bytes): inputs {list(inputs)}, outputs {list(outputs)}")
    return 0
